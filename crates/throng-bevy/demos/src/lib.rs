//! What the examples share: the bundled Fox, baked by this build into a
//! scratch asset folder beside its glTF.

use std::path::{Path, PathBuf};

/// A scratch folder (named for `who` and this process) holding the bundled
/// Fox as `fox.glb` and as `fox.throng`, baked by this build with the
/// default mesh LODs or (`lods` false) none, as Bevy's glTF Fox has none.
/// Panics with what failed: the examples cannot run without it.
pub fn fox_assets(who: &str, lods: bool) -> PathBuf {
    fox_assets_with(who, lods, None)
}

/// [`fox_assets`], the Fox's clips carrying the events of `events` (a
/// sidecar's JSON, `{"Walk": [{"time": 0.1, "name": "left"}]}`).
pub fn fox_assets_with(who: &str, lods: bool, events: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{who}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let glb = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../assets/khronos_Fox.glb");
    std::fs::copy(&glb, dir.join("fox.glb")).expect("the bundled Fox");
    let defaults = throng_bake::BakeOptions::default();
    let opts = throng_bake::BakeOptions {
        lod_ratios: if lods {
            defaults.lod_ratios.clone()
        } else {
            Vec::new()
        },
        events_file: events.map(|json| {
            let path = dir.join("fox.events.json");
            std::fs::write(&path, json).expect("the events file is written");
            path
        }),
        ..defaults
    };
    let (model, _) = throng_bake::bake_file(&glb, &opts, &|_, _| {}).expect("the Fox bakes");
    throng_core::format::write_file(&model, &dir.join("fox.throng"))
        .expect("fox.throng is written");
    dir
}
