//! Occlusion culling never hides an instance that shows, proved per
//! instance and exactly, not within a picture tolerance
//! (docs/design/occlusion.md, "Tested").
//!
//! Every instance is tinted with its own id, and a custom fragment writes
//! the tint unshaded into a linear RGBA8 target, so each pixel of a
//! picture names the instance it shows. Two GPU-driven renderers draw the
//! same frames, occlusion culling off (the reference) and on; every
//! instance with at least one pixel in the reference must have at least
//! one in the picture with occlusion on, in every frame (the first ones
//! included, while the visibility bits settle). Scenes: a grid seen from
//! eye height (the bench's `--camera eye`); a wall with a gap about one
//! Fox long (a giant Fox's legs, the grid seen between and under them);
//! a fence of wide posts with narrow gaps, the grid seen through them;
//! occlusion.rs's deep grid behind a giant Fox; and Foxes whose box tops
//! lie from 8 pixels under to 8 over a wall's edge in steps of a fraction
//! of a pixel, at distances from just behind the wall to 24 times as far
//! (so their boxes fall on the pyramid's texel boundaries at every level).
//! Sizes that are not powers of two (257×143, 333×211), 640×360 and
//! 1080p; standard and reverse depth; MSAA 1 and 4; on Vulkan, and on GL
//! (tools/test.sh lists the module for llvmpipe GL). With MSAA only the
//! pixels inside a silhouette name an instance (the resolve blends ids
//! along edges), so there an instance must show a whole pixel to count.
//!
//! The culling must stay useful: each scene reports how many instances
//! were occluded once the bits had settled; the deep grid behind the wall
//! must be half hidden or more, the eye-height grid a few per cent.

use std::collections::BTreeMap;

use glam::{Mat4, Vec3, Vec4};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::{
    CustomFragment, DepthConvention, FrameStats, Gpu, GpuModel, Offscreen, PathChoice, RecordPath,
    Renderer, RendererOptions, wgpu,
};
use throng_tests::require_gpu;
use throng_tests::scenes::View;

/// The id picture's format: linear, so a tint byte comes back as itself.
const ID_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The unshaded tint: the instance's id, written as it came.
const ID_FRAGMENT: &str = "// #import draw
@fragment fn fs_id(in: VertexOut) -> @location(0) vec4<f32> {
    return in.tint;
}
";

/// Picture sizes: two that are no powers of two in either axis (level 0
/// of the pyramid is then smaller than the depth buffer, its texels
/// covering one to two pixels), a 16:9 one, and 1080p.
const SIZES: [(u32, u32); 4] = [(257, 143), (333, 211), (640, 360), (1920, 1080)];

/// Frames drawn per scene: the first two draw everything late (no bits
/// yet), the third onwards from settled bits.
const FRAMES: usize = 4;

/// The Fox's height and length in its own units (about 80 and 130).
const FOX_HEIGHT: f32 = 80.0;

/// The tint naming instance `i` (ids from 1; 0 is the cleared background).
fn id_tint(i: usize) -> Vec4 {
    let id = i as u32 + 1;
    assert!(id < 1 << 24, "ids fit in three bytes");
    let byte = |k: u32| ((id >> (8 * k)) & 0xff) as f32 / 255.0;
    Vec4::new(byte(0), byte(1), byte(2), 1.0)
}

/// The instance index a pixel names (`None`: the background).
fn id_of(p: &image::Rgba<u8>) -> Option<usize> {
    let [r, g, b, _] = p.0;
    let id = r as usize | (g as usize) << 8 | (b as usize) << 16;
    (id > 0).then(|| id - 1)
}

/// Pixels per instance index in an id picture. With MSAA the resolve
/// blends the ids along every silhouette into ids of no instance, or of
/// another one: only pixels whose four neighbours name the same instance
/// (inside a silhouette, where every sample is that instance's) count.
fn pixels_per_instance(image: &image::RgbaImage, samples: u32) -> BTreeMap<usize, u32> {
    let (w, h) = image.dimensions();
    let mut count = BTreeMap::new();
    for (x, y, p) in image.enumerate_pixels() {
        let Some(id) = id_of(p) else { continue };
        if samples > 1 {
            let inside = p.0[3] == 255
                && x > 0
                && y > 0
                && x + 1 < w
                && y + 1 < h
                && [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                    .iter()
                    .all(|&(u, v)| image.get_pixel(u, v) == p);
            if !inside {
                continue;
            }
        }
        *count.entry(id).or_insert(0) += 1;
    }
    count
}

/// One scene: the crowd (every instance tinted with its id) and the
/// camera, for a picture size.
struct Scene {
    name: &'static str,
    crowd: Crowd,
    view: View,
    /// The scene is built to hide most of its crowd: after the bits
    /// settle, at least this share of the instances must be occluded.
    occluded_share: f32,
}

/// Spawns `spawns` in a new crowd of `handle`, each tinted with its index.
fn crowd_of(handle: &ModelHandle, spawns: impl IntoIterator<Item = Spawn>) -> Crowd {
    let mut crowd = Crowd::new();
    let model = crowd.add_model(handle);
    for (i, spawn) in spawns.into_iter().enumerate() {
        let tint = id_tint(i);
        crowd.spawn(model, Spawn { tint, ..spawn }).unwrap();
    }
    crowd.update(0.0);
    crowd
}

/// A Fox side-on to a camera looking along −Z, at `at`, scaled by `scale`.
fn side_on(at: Vec3, scale: f32) -> Mat4 {
    Mat4::from_translation(at)
        * Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2)
        * Mat4::from_scale(Vec3::splat(scale))
}

/// A grid of Foxes facing every way, seen from half a Fox's height
/// looking level along it: the bench's `--camera eye`, where the near
/// rows hide the far ones' bodies.
fn eye_grid(handle: &ModelHandle) -> Scene {
    let (cols, rows) = (10, 18);
    let spawns = (0..cols * rows).map(|i| {
        let (c, r) = ((i % cols) as f32, (i / cols) as f32);
        Spawn {
            transform: Mat4::from_translation(Vec3::new((c - 4.5) * 70.0, 0.0, -r * 80.0))
                * Mat4::from_rotation_y(1.3 * i as f32),
            clip: Some(i % 3),
            time: 0.23 * i as f32,
            ..Spawn::default()
        }
    });
    Scene {
        name: "eye_grid",
        crowd: crowd_of(handle, spawns),
        view: View {
            eye: Vec3::new(0.0, FOX_HEIGHT * 0.5, 150.0),
            target: Vec3::new(0.0, FOX_HEIGHT * 0.5, -1400.0),
            fov: 50f32.to_radians(),
            depth: (5.0, 4000.0),
        },
        // Measured: 10 to 66 of 180 on lavapipe and llvmpipe GL (a level
        // camera culls little, docs/design/occlusion.md).
        occluded_share: 0.04,
    }
}

/// A giant Fox side-on, standing still (the first clip at its start),
/// the near end of its length at `x_min`.
fn giant(handle: &ModelHandle, scale: f32, x_min: f32, y: f32, z: f32) -> Spawn {
    // Side-on (a quarter turn about +Y) model z becomes world x.
    let bounds = handle.model().clips[0].bounds;
    Spawn {
        transform: side_on(Vec3::new(x_min - bounds.min.z * scale, y, z), scale),
        clip: Some(0),
        ..Spawn::default()
    }
}

/// A grid of `cols` × `rows` Foxes side-on, walking and running.
fn side_on_grid(
    cols: usize,
    rows: usize,
    spacing: (f32, f32),
    z0: f32,
) -> impl Iterator<Item = Spawn> {
    (0..cols * rows).map(move |i| {
        let (c, r) = ((i % cols) as f32, (i / cols) as f32);
        Spawn {
            transform: side_on(
                Vec3::new(
                    (c - (cols - 1) as f32 * 0.5) * spacing.0,
                    0.0,
                    z0 - r * spacing.1,
                ),
                1.0,
            ),
            clip: Some(i % 3),
            time: 0.31 * i as f32,
            ..Spawn::default()
        }
    })
}

/// A wall with a gap about one Fox long: a Fox three times the size,
/// side-on, its belly above the eye; a grid behind it shows between its
/// legs and under it, hidden by its body and legs elsewhere.
fn wall_with_a_gap(handle: &ModelHandle) -> Scene {
    let wall = Spawn {
        transform: side_on(Vec3::new(0.0, 0.0, 200.0), 3.0),
        clip: Some(0),
        ..Spawn::default()
    };
    Scene {
        name: "wall_gap",
        crowd: crowd_of(
            handle,
            std::iter::once(wall).chain(side_on_grid(9, 12, (90.0, 90.0), -200.0)),
        ),
        view: View {
            eye: Vec3::new(0.0, 40.0, 400.0),
            target: Vec3::new(0.0, 40.0, -1000.0),
            fov: 50f32.to_radians(),
            depth: (5.0, 5000.0),
        },
        occluded_share: 0.0,
    }
}

/// A fence: wide posts (Foxes side-on, squashed to under half their
/// length and stretched six times in height) with narrow gaps between
/// them, in front of a grid whose Foxes show only through the gaps: a box
/// whose corners fall on posts while its middle shows through a gap is
/// culled by a test that samples too few texels.
fn fence(handle: &ModelHandle) -> Scene {
    let posts = (0..20).map(|i| Spawn {
        transform: Mat4::from_translation(Vec3::new((i as f32 - 9.5) * 70.0, -200.0, 150.0))
            * Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2)
            * Mat4::from_scale(Vec3::new(1.0, 6.0, 0.45)),
        clip: Some(0),
        ..Spawn::default()
    });
    // Rows of Foxes, each row shifted by a fraction of the posts' pitch.
    let behind = (0..12 * 9).map(|i| {
        let (c, r) = ((i % 12) as f32, (i / 12) as f32);
        Spawn {
            transform: side_on(
                Vec3::new((c - 5.5) * 110.0 + r * 37.0, 0.0, -40.0 - r * 140.0),
                1.0,
            ),
            clip: Some(i % 3),
            time: 0.29 * i as f32,
            ..Spawn::default()
        }
    });
    Scene {
        name: "fence",
        crowd: crowd_of(handle, posts.chain(behind)),
        view: View {
            eye: Vec3::new(10.0, 45.0, 420.0),
            target: Vec3::new(0.0, 40.0, -1000.0),
            fov: 45f32.to_radians(),
            depth: (5.0, 5000.0),
        },
        occluded_share: 0.0,
    }
}

/// occlusion.rs's first view: a Fox six times the size, side-on, hides
/// a deep grid from a camera at half a Fox's height in front of it. Most
/// of the grid must be found hidden.
fn behind_a_wall(handle: &ModelHandle) -> Scene {
    let wall = Spawn {
        transform: side_on(Vec3::new(0.0, -290.0, 60.0), 6.0),
        clip: Some(0),
        ..Spawn::default()
    };
    Scene {
        name: "behind_wall",
        crowd: crowd_of(
            handle,
            std::iter::once(wall).chain(side_on_grid(8, 24, (100.0, 60.0), 0.0)),
        ),
        view: View {
            eye: Vec3::new(-60.0, 35.0, 160.0),
            target: Vec3::new(0.0, 35.0, -800.0),
            fov: 50f32.to_radians(),
            depth: (5.0, 4000.0),
        },
        occluded_share: 0.5,
    }
}

/// The edge scene's view and wall: a giant Fox side-on whose back runs
/// across the picture under its middle.
const EDGE_VIEW: View = View {
    eye: Vec3::new(0.0, 60.0, 300.0),
    target: Vec3::new(0.0, 60.0, -1000.0),
    fov: 40f32.to_radians(),
    depth: (5.0, 8000.0),
};

/// A giant Fox's back as a wall's edge, and behind it, at distances from
/// just behind to far away (each distance tests its instance at another
/// pyramid level), standing Foxes placed so that their tops lie
/// between 8 pixels under and 8 pixels over the edge (found by drawing
/// the wall alone), in steps of a fraction of a pixel, across the
/// picture's middle half in steps of a fraction of a pixel too: their
/// boxes straddle texel boundaries at every level.
fn edge(gpu: &Gpu, model: &GpuModel, handle: &ModelHandle, size: (u32, u32)) -> Scene {
    let view = EDGE_VIEW;
    let length = handle.model().clips[0].bounds.max.z - handle.model().clips[0].bounds.min.z;
    let wall = giant(handle, 4.0, -length * 2.0, -210.0, 120.0);
    // The first row from the top that the wall covers, per column.
    let alone = crowd_of(handle, [wall]);
    let cam = view.camera(size);
    let mut renderer = id_renderer(gpu, DepthConvention::Standard, 1, false);
    let target = Offscreen::with_format(&gpu.device, size, ID_FORMAT).unwrap();
    renderer
        .render(&target.view, size, &cam, &[&alone], &[model])
        .unwrap();
    let picture = target.read(&gpu.device, &gpu.queue).unwrap();
    let top_row = |x: u32| (0..size.1).find(|&y| picture.get_pixel(x, y).0[3] == 255);
    // The standing Fox's (the first clip's) highest point and its middle
    // across.
    let standing = handle.model().clips[0].bounds;
    let top = standing.max.y;
    let mid_x = 0.5 * (standing.min.x + standing.max.x);
    let mid_z = 0.5 * (standing.min.z + standing.max.z);
    let forward = (view.target - view.eye).normalize();
    let right = forward.cross(Vec3::Y).normalize();
    let up = right.cross(forward);
    let tan_half = (view.fov * 0.5).tan();
    let aspect = size.0 as f32 / size.1 as f32;
    let wall_distance = view.eye.z - 120.0;
    let n = 96;
    let spawns = (0..n).filter_map(|i| {
        // Distances from 1.2 to 24 times the wall's, geometric.
        let t = i as f32 / (n - 1) as f32;
        let distance = wall_distance * 1.2 * 20f32.powf(t);
        // Across the middle half of the picture by 37.29-pixel steps,
        // wrapped; the box's top 8 pixels under to 8 over the edge by
        // 0.37-pixel steps (the standing Fox's ears are under its box's
        // top by a few units; the conservative test keeps a box within a
        // few texels of the edge: those further under are the ones it can
        // hide).
        let column = size.0 as f32 * 0.25 + (i as f32 * 37.29) % (size.0 as f32 * 0.5);
        let over = -8.0 + (i as f32 * 0.37) % 16.0;
        let row = top_row(column as u32)? as f32 - over;
        // The point of the picture at (column, row), `distance` ahead.
        let ndc_x = column / size.0 as f32 * 2.0 - 1.0;
        let ndc_y = 1.0 - row / size.1 as f32 * 2.0;
        let at = view.eye
            + distance * (forward + right * ndc_x * tan_half * aspect + up * ndc_y * tan_half);
        Some(Spawn {
            transform: Mat4::from_translation(at - Vec3::new(mid_x, top, mid_z)),
            clip: Some(0),
            ..Spawn::default()
        })
    });
    let crowd = crowd_of(handle, std::iter::once(wall).chain(spawns));
    assert!(
        crowd.len() > n / 2,
        "the wall spans the picture's middle half"
    );
    Scene {
        name: "edge",
        crowd,
        view,
        occluded_share: 0.0,
    }
}

/// The camera of `view` for `size`, reversed (infinite far plane) for a
/// reversed depth buffer.
fn camera(view: &View, size: (u32, u32), depth: DepthConvention) -> Camera {
    let mut camera = view.camera(size);
    if depth == DepthConvention::Reversed {
        camera.clip_from_view = glam::camera::rh::proj::directx::perspective_infinite_reverse(
            view.fov,
            size.0 as f32 / size.1 as f32,
            view.depth.0,
        );
    }
    camera
}

/// A GPU-driven renderer into the id format, occlusion culling as asked.
fn id_renderer(gpu: &Gpu, depth: DepthConvention, samples: u32, occlusion: bool) -> Renderer {
    let renderer = Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        ID_FORMAT,
        RendererOptions {
            path: PathChoice::GpuDriven,
            sample_count: samples,
            clear_color: wgpu::Color::TRANSPARENT,
            shadows: None,
            fragment: Some(CustomFragment {
                file: "id.wgsl".into(),
                source: ID_FRAGMENT.into(),
                entry: "fs_id".into(),
            }),
            depth,
            occlusion,
            ..RendererOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("an id renderer: {e}"));
    assert_eq!(renderer.path(), RecordPath::GpuDriven);
    renderer
}

/// One frame's id picture, its pixels per instance, and its stats.
fn id_frame(
    renderer: &mut Renderer,
    samples: u32,
    gpu: &Gpu,
    size: (u32, u32),
    camera: &Camera,
    crowd: &Crowd,
    model: &GpuModel,
) -> (image::RgbaImage, BTreeMap<usize, u32>, FrameStats) {
    let target = Offscreen::with_format(&gpu.device, size, ID_FORMAT).unwrap();
    let mut stats = renderer
        .render(&target.view, size, camera, &[crowd], &[model])
        .unwrap_or_else(|e| panic!("render: {e}"));
    let image = target.read(&gpu.device, &gpu.queue).unwrap();
    renderer.wait_gpu_stats(&mut stats).unwrap();
    let pixels = pixels_per_instance(&image, samples);
    (image, pixels, stats)
}

/// Every scene at every size, drawn [`FRAMES`] times with and without
/// occlusion culling: no instance shown without it is missing with it.
/// Prints a line per scene and size: instances shown, occluded per frame.
fn no_visible_instance_is_culled(depth: DepthConvention, samples: u32) {
    let name = format!("occlusion per instance ({depth:?}, {samples}×)");
    let gpu = require_gpu(&name);
    let handle = super::gpu_driven::fox_with_lods();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let mut report = Vec::new();
    for size in SIZES {
        for scene in [
            eye_grid(&handle),
            wall_with_a_gap(&handle),
            fence(&handle),
            behind_a_wall(&handle),
            edge(&gpu, &model, &handle, size),
        ] {
            let Scene {
                name: scene_name,
                mut crowd,
                view,
                occluded_share,
            } = scene;
            let case = format!("{name} {scene_name} {}×{}", size.0, size.1);
            // Fresh renderers per case: no visibility bit carries over.
            let mut with = id_renderer(&gpu, depth, samples, true);
            let mut without = id_renderer(&gpu, depth, samples, false);
            // On GL with MSAA the early pass is drawn single-sampled
            // (wgpu's GL backend does not keep multisampled textures past
            // their pass; occlusion_pyramid.rs asserts it): culling is on
            // on every backend and sample count.
            assert!(with.occlusion_culling(), "{case}: occlusion culling on");
            let cam = camera(&view, size, depth);
            let mut occluded = Vec::new();
            let mut shown = 0;
            for k in 0..FRAMES {
                let (reference_picture, reference, sb) =
                    id_frame(&mut without, samples, &gpu, size, &cam, &crowd, &model);
                let (culled_picture, culled, sa) =
                    id_frame(&mut with, samples, &gpu, size, &cam, &crowd, &model);
                assert_eq!(
                    sa.visible + sa.occluded,
                    sb.visible,
                    "{case} frame {k}: counts"
                );
                // The instances shown without occlusion and missing with it,
                // the most visible first.
                let mut missing: Vec<(u32, usize)> = reference
                    .iter()
                    .filter(|(id, _)| !culled.contains_key(id))
                    .map(|(&id, &pixels)| (pixels, id))
                    .collect();
                missing.sort_unstable_by(|a, b| b.cmp(a));
                if !missing.is_empty() {
                    let dir = std::env::temp_dir().join("throng-occlusion-per-instance");
                    std::fs::create_dir_all(&dir).unwrap();
                    let file =
                        |what: &str| dir.join(format!("{case}-{k}-{what}.png").replace(' ', "_"));
                    reference_picture.save(file("without")).unwrap();
                    culled_picture.save(file("with")).unwrap();
                    panic!(
                        "{case} frame {k}: {} of {} shown instances culled by occlusion; \
                         the worst: instance {} with {} pixels; (pixels, instance): {:?}; \
                         id pictures in {}",
                        missing.len(),
                        reference.len(),
                        missing[0].1,
                        missing[0].0,
                        &missing[..missing.len().min(8)],
                        dir.display()
                    );
                }
                occluded.push(sa.occluded);
                shown = reference.len();
                crowd.update(0.05);
            }
            let settled = *occluded.last().unwrap();
            report.push(format!(
                "{scene_name} {}×{}: {shown} of {} shown, occluded per frame {occluded:?}",
                size.0,
                size.1,
                crowd.len()
            ));
            let share = occluded_share;
            assert!(
                settled as f32 >= share * crowd.len() as f32,
                "{case}: occlusion culls too little once settled: {settled} of {} \
                 (at least {share} owed); per frame {occluded:?}",
                crowd.len()
            );
        }
    }
    eprintln!("{name}:\n  {}", report.join("\n  "));
}

#[test]
fn no_shown_instance_is_culled_standard_depth() {
    no_visible_instance_is_culled(DepthConvention::Standard, 1);
}

#[test]
fn no_shown_instance_is_culled_reversed_depth() {
    no_visible_instance_is_culled(DepthConvention::Reversed, 1);
}

#[test]
fn no_shown_instance_is_culled_standard_depth_msaa() {
    no_visible_instance_is_culled(DepthConvention::Standard, 4);
}

#[test]
fn no_shown_instance_is_culled_reversed_depth_msaa() {
    no_visible_instance_is_culled(DepthConvention::Reversed, 4);
}
