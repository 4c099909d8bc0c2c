//! What the examples share: the bundled Fox, baked by this build into a
//! scratch asset folder beside its glTF, how a windowed demo's run
//! ends when asked to (`--frames`, `--screenshot`: what a run under Xvfb
//! checks), and a windowed demo's window, camera, ground and overlay.

use std::path::{Path, PathBuf};

use bevy::app::{AppExit, PluginGroupBuilder};
use bevy::asset::AssetPlugin;
use bevy::camera::Hdr;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};

/// How a windowed demo's run ends.
#[derive(Resource, Clone, Debug, Default)]
pub struct Ending {
    /// The demo's name, leading what it prints.
    pub demo: &'static str,
    /// Quit after this many frames (`None`: run until closed).
    pub frames: Option<u64>,
    /// Save the window's picture here ten frames before quitting.
    pub screenshot: Option<PathBuf>,
}

/// Marks the demo's text overlay, whose last text [`quit_after`] prints.
#[derive(Component)]
pub struct Overlay;

/// The demo's text overlay ([`Overlay`]) in the window's top-left corner,
/// saying `text` until the demo's overlay system rewrites it.
pub fn overlay_text(text: &str) -> impl Bundle {
    (
        Overlay,
        Text::new(text),
        TextFont {
            font_size: FontSize::Px(18.0),
            ..default()
        },
        Node {
            position_type: PositionType::Absolute,
            top: px(8.0),
            left: px(8.0),
            ..default()
        },
    )
}

/// A windowed demo's 3D camera (placed by the caller): Throng draws into
/// the HDR target and Bevy's tonemapping pass maps crowd and ground alike
/// (AcesFitted needs no LUT feature).
pub fn hdr_camera() -> impl Bundle {
    (Camera3d::default(), Hdr, Tonemapping::AcesFitted)
}

/// The demos' grass-green ground: a plane of `size` by `size` model units
/// about the origin.
pub fn ground(
    size: f32,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
) -> impl Bundle {
    (
        Mesh3d(meshes.add(Plane3d::default().mesh().size(size, size))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.32, 0.45, 0.28),
            perceptual_roughness: 1.0,
            ..default()
        })),
    )
}

/// Bevy's default plugins for a demo's window titled `title`, loading
/// assets from `assets` (the folder [`fox_assets`] made).
pub fn window_plugins(assets: &Path, title: String) -> PluginGroupBuilder {
    DefaultPlugins
        .set(AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            ..default()
        })
        .set(WindowPlugin {
            primary_window: Some(Window { title, ..default() }),
            ..default()
        })
}

/// The demo's settings read from its flags, or (`Err`, what was wrong
/// with them) the process ends with status 2, having printed that after
/// the demo's name.
pub fn flags_or_exit<T>(demo: &str, flags: Result<T, String>) -> T {
    match flags {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{demo}: {e}");
            std::process::exit(2);
        }
    }
}

/// With [`Ending::frames`], quits after them and prints the overlay (and
/// with [`Ending::screenshot`], saves the window ten frames before).
pub fn quit_after(
    ending: Res<Ending>,
    mut frames: Local<u64>,
    text: Single<&Text, With<Overlay>>,
    mut exit: MessageWriter<AppExit>,
    mut commands: Commands,
) {
    *frames += 1;
    if let (Some(path), Some(n)) = (&ending.screenshot, ending.frames)
        && *frames + 10 == n
    {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path.clone()));
    }
    if ending.frames.is_some_and(|n| *frames >= n) {
        println!("{}: after {} frames: {}", ending.demo, *frames, text.0);
        exit.write(AppExit::Success);
    }
}

/// The LOD chain a demo's Fox is baked with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    /// LOD 0 alone, as Bevy's glTF Fox has.
    Bare,
    /// `throng bake`'s default mesh LODs (`throng_pipeline::DEFAULT_LOD_RATIOS`).
    Lods,
    /// The default mesh LODs and the animated impostor beyond them (as
    /// `throng bake` makes by default), captured on a headless adapter.
    Far,
}

/// A scratch folder (named for `who` and this process) holding the bundled
/// Fox as `fox.glb` and as `fox.throng`, baked by this build with the LOD
/// chain `chain`. Panics with what failed: the examples cannot run without
/// it.
pub fn fox_assets(who: &str, chain: Chain) -> PathBuf {
    fox_assets_with(who, chain, None)
}

/// [`fox_assets`], the Fox's clips carrying the events of `events` (a
/// sidecar's JSON, `{"Walk": [{"time": 0.1, "name": "left"}]}`).
pub fn fox_assets_with(who: &str, chain: Chain, events: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{who}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let glb = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../assets/khronos_Fox.glb");
    std::fs::copy(&glb, dir.join("fox.glb")).expect("the bundled Fox");
    let defaults = throng_bake::BakeOptions::default();
    let opts = throng_bake::BakeOptions {
        // `throng bake`'s default chain (BakeOptions' own default has no
        // generated LODs: before this, "the default mesh LODs" were none).
        lod_ratios: if chain == Chain::Bare {
            Vec::new()
        } else {
            throng_pipeline::DEFAULT_LOD_RATIOS.to_vec()
        },
        events_file: events.map(|json| {
            let path = dir.join("fox.events.json");
            std::fs::write(&path, json).expect("the events file is written");
            path
        }),
        ..defaults
    };
    let (mut model, _) = throng_bake::bake_file(&glb, &opts, &|_, _| {}).expect("the Fox bakes");
    if chain == Chain::Far {
        let budget = throng_core::impostor::DEFAULT_BUDGET_BYTES;
        let request = throng_core::impostor::PlanRequest::default();
        model = throng_impostor::attach::with_impostor(model, budget, request, None)
            .expect("the Fox's impostor is captured");
    }
    throng_core::format::write_file(&model, &dir.join("fox.throng"))
        .expect("fox.throng is written");
    dir
}
