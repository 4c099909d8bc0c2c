//! Target `wgsl`: the composition of user WGSL with Throng's modules
//! (`throng_render::shader::compose`, as custom fragments and simulation
//! hooks are composed), then naga's parse and validation of the result —
//! what wgpu does with it before any driver sees it. The first byte picks
//! the record path the virtual `records` module resolves to (or none).
//!
//! Invariants of an accepted composition: it ends with the user's source,
//! and holds each imported module once.

use throng_render::RecordPath;
use throng_render::shader::compose;

/// The marker `compose` writes before each file it emits.
const MARKER: &str = "\n// ---- ";

/// The target's body.
pub fn run(data: &[u8]) -> bool {
    let Some((&which, text)) = data.split_first() else {
        return false;
    };
    let Ok(source) = std::str::from_utf8(text) else {
        return false;
    };
    let records = match which % 4 {
        0 => None,
        1 => Some(RecordPath::Packaged),
        2 => Some(RecordPath::Unbounded),
        _ => Some(RecordPath::GpuDriven),
    };
    let Ok(composed) = compose("fuzz.wgsl", source, records) else {
        return false;
    };
    assert!(composed.ends_with(source), "the user's source is not last");
    let mut seen = std::collections::BTreeSet::new();
    let head = &composed[..composed.len() - source.len()];
    for part in head.split(MARKER).skip(1) {
        let name = part.lines().next().unwrap_or_default();
        assert!(seen.insert(name.to_owned()), "{name} composed twice");
    }
    let Ok(module) = naga::front::wgsl::parse_str(&composed) else {
        return false;
    };
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .is_ok()
}
