//! Target `cli_args`: the command line's value grammar
//! (`throng_cli::args`). The first byte picks the grammar, the rest is the
//! argument's text (UTF-8, lossily):
//!
//! - 0: `--layer` specs, one a line, applied to an instance of SimpleSkin
//!   the way `throng render` / `throng sample` apply them; an accepted
//!   stack must give a finite palette;
//! - 1: `--size`; 2: byte counts; 3: a clip by name or index.

use std::sync::OnceLock;

use throng_cli::args::{bytes, clip, layer, size};
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};

/// Layer specs taken from one input, at most.
const MAX_LAYERS: usize = 8;

fn model() -> &'static ModelHandle {
    static MODEL: OnceLock<ModelHandle> = OnceLock::new();
    MODEL.get_or_init(|| ModelHandle::new(crate::simple_skin()).expect("SimpleSkin is valid"))
}

/// The target's body.
pub fn run(data: &[u8]) -> bool {
    let Some((&which, text)) = data.split_first() else {
        return false;
    };
    let text = String::from_utf8_lossy(text);
    match which % 4 {
        0 => layers(&text),
        1 => size::parse_size(&text).is_ok_and(|(w, h)| {
            assert!(w > 0 && h > 0, "{text:?} gave a zero size {w}x{h}");
            true
        }),
        2 => bytes::parse_bytes(&text).is_ok_and(|n| {
            let digits = text.trim();
            if digits.bytes().all(|b| b.is_ascii_digit()) {
                assert_eq!(Ok(n), digits.parse::<u64>(), "{text:?}");
            }
            true
        }),
        _ => {
            let names: Vec<&str> = model()
                .model()
                .clips
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            clip::resolve_clip(&names, &text).is_ok_and(|c| {
                assert!(
                    c < names.len(),
                    "{text:?} resolved to clip {c} of {}",
                    names.len()
                );
                true
            })
        }
    }
}

fn layers(text: &str) -> bool {
    let specs: Vec<layer::LayerSpec> = text
        .lines()
        .take(MAX_LAYERS)
        .filter_map(|l| layer::parse(l).ok())
        .collect();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(model());
    let id = crowd
        .spawn(
            m,
            Spawn {
                clip: Some(0),
                ..Spawn::default()
            },
        )
        .expect("SimpleSkin spawns");
    if specs.is_empty() || layer::apply(&mut crowd, m, &[id], &specs).is_err() {
        return false;
    }
    let mut palette = Vec::new();
    for _ in 0..3 {
        crowd.update(0.4);
        crowd.palette(id, &mut palette).expect("the instance lives");
        let bad = palette
            .iter()
            .position(|rows| !rows.iter().all(|r| r.is_finite()));
        assert!(
            bad.is_none(),
            "{specs:?}: bone {bad:?} of the palette is not finite"
        );
    }
    true
}
