//! A crowd on real ground, the application's way (GPU tests): the demo's
//! hills and stair drawn by the application's terrain pass with a herd of
//! Foxes walking over them, placed on the ground by Throng (each Fox's
//! height the ground's under it), against the golden image
//! `tests/golden/terrain_walk.png` within the golden tolerances; and the
//! terrain shader validates with its uniforms matching the Rust struct.

use std::sync::OnceLock;

use glam::Vec2;
use throng::crowd::crowd::ModelHandle;
use throng::render::{OFFSCREEN_FORMAT, Offscreen};
use throng_demo::terrain_pass::{TerrainUniforms, shader_source};
use throng_examples::{AppGpu, Scene, bake_fox};
use throng_tests::golden::{check_golden, golden_dir};
use throng_tests::require_gpu;
use throng_tests::wgsl::{struct_layout, validate};

const SIZE: (u32, u32) = (320, 240);

fn fox() -> &'static ModelHandle {
    static FOX: OnceLock<ModelHandle> = OnceLock::new();
    FOX.get_or_init(|| bake_fox().expect("the Fox bakes"))
}

#[test]
fn a_herd_walks_over_the_terrain_as_its_golden_image_shows() {
    let gpu = require_gpu("terrain");
    let app = AppGpu {
        adapter: &gpu.adapter,
        device: &gpu.device,
        queue: &gpu.queue,
    };
    let mut scene = Scene::terrain(app, OFFSCREEN_FORMAT, fox(), 4).unwrap();
    scene.crowd.update(9.0);
    let ground = scene
        .crowd
        .ground()
        .expect("the scene has a ground")
        .clone();
    let mut highest = f32::MIN;
    for id in scene.crowd.ids().collect::<Vec<_>>() {
        let p = scene.crowd.world_transform(id).unwrap().w_axis;
        let h = ground.height_at(Vec2::new(p.x, p.z));
        assert!(
            (p.y - h).abs() < 1e-3,
            "{id:?} at {p}: the ground is at {h}"
        );
        highest = highest.max(p.y);
    }
    assert!(highest > 1.0, "some Foxes climbed (highest at {highest})");
    let target = Offscreen::new(&gpu.device, SIZE).unwrap();
    let mut stats = scene
        .render(&gpu.device, &gpu.queue, &target.view, SIZE)
        .unwrap();
    scene.wait_stats(&mut stats).unwrap();
    assert!(stats.visible >= 8, "{} Foxes in view", stats.visible);
    let image = target.read(&gpu.device, &gpu.queue).unwrap();
    check_golden(
        &golden_dir(env!("CARGO_MANIFEST_DIR")),
        "terrain_walk",
        &image,
    );
}

#[test]
fn the_terrain_shader_validates_and_matches_the_rust_struct() {
    let module = validate(
        "terrain.wgsl",
        &shader_source(),
        naga::valid::Capabilities::empty(),
    );
    let (members, span) = struct_layout(&module, "Terrain");
    assert_eq!(span as usize, size_of::<TerrainUniforms>());
    let offsets: Vec<usize> = members.iter().map(|m| m.1 as usize).collect();
    use std::mem::offset_of;
    assert_eq!(
        offsets,
        [
            offset_of!(TerrainUniforms, clip_from_world),
            offset_of!(TerrainUniforms, eye),
            offset_of!(TerrainUniforms, light),
            offset_of!(TerrainUniforms, sun),
            offset_of!(TerrainUniforms, ambient),
            offset_of!(TerrainUniforms, sky),
            offset_of!(TerrainUniforms, params),
        ]
    );
}
