//! What the impostor tests share: the Fox with its impostor, captured once
//! per test binary as `throng bake` captures it, its variants, a grid crowd
//! and the record paths the adapter has.

#![allow(dead_code)]

use std::sync::OnceLock;

use glam::{Mat4, Quat, Vec3};
use throng_bake::{BakeOptions, bake_file};
use throng_core::BakedModel;
use throng_core::impostor::{AtlasPlan, TextureCodec, default_screen_size};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_impostor::{capture_from, capture_lod};
use throng_render::{FrameStats, Gpu, GpuModel, PathChoice, RendererOptions};
use throng_tests::scenes::{self, View};

/// Impostor atlas of the tests: 12 × 12 views, 8 frames, 32² cells (what
/// budgets of 8 MiB and more choose), stored in the default codec (BC3).
pub const VIEWS: u32 = 12;
pub const FRAMES: u32 = 8;
pub const CELL: u32 = 32;

/// The impostor tests' vertical field of view, radians.
pub const FOV: f32 = 0.6;

/// The impostor tests' view: from `dir`, `distance` from the origin,
/// looking at it, seeing from `near` to four times the distance.
pub fn view_from(dir: Vec3, distance: f32, near: f32) -> View {
    View {
        eye: dir * distance,
        target: Vec3::ZERO,
        fov: FOV,
        depth: (near, distance * 4.0),
    }
}

/// The distance at which a model of `radius` spans about a cell's width of
/// pixels in a picture `height` pixels tall: the default chain's switch.
pub fn switch_distance(radius: f32, height: u32) -> f32 {
    radius * height as f32 / (CELL as f32 * (FOV * 0.5).tan())
}

/// The Fox with meshopt LODs (0.5, 0.2) and an impostor at the default
/// switch, captured once for every test of this file.
pub fn fox(gpu: &Gpu) -> &'static BakedModel {
    static FOX: OnceLock<BakedModel> = OnceLock::new();
    FOX.get_or_init(|| {
        let (model, _) = bake_file(
            &throng_tests::asset("khronos_Fox.glb"),
            &BakeOptions {
                lod_ratios: vec![0.5, 0.2],
                ..BakeOptions::default()
            },
            &|_, _| {},
        )
        .unwrap();
        // As `throng bake` captures it.
        let plan = AtlasPlan::layout(VIEWS, FRAMES, CELL, model.clips.len() as u32)
            .with_codec(TextureCodec::default());
        let atlas = capture_from(gpu, &model, capture_lod(&model, &plan), &plan).unwrap();
        assert_eq!(atlas.screen_size, default_screen_size(CELL));
        BakedModel {
            impostor: Some(atlas),
            ..model
        }
    })
}

/// `model` drawn as LOD 0 only (`None`), as impostors only (`Some(1.0)`),
/// or with the impostor switching at `Some(size)` after its mesh LODs.
pub fn variant(model: &BakedModel, impostor_below: Option<f32>) -> ModelHandle {
    let mut m = model.clone();
    match impostor_below {
        Some(s) => m.impostor.as_mut().unwrap().screen_size = s,
        None => {
            m.impostor = None;
            m.lods.truncate(1);
        }
    }
    ModelHandle::new(m).unwrap()
}

/// A `side × side` grid of the model, varied clips, times and headings,
/// `spacing` radii apart.
pub fn grid(handle: &ModelHandle, side: usize, spacing: f32) -> Crowd {
    grid_at(handle, side, spacing, 0.0, 0.0)
}

/// [`grid`], `later` seconds into the clips, every instance turned by
/// `turn` radians more.
pub fn grid_at(handle: &ModelHandle, side: usize, spacing: f32, later: f32, turn: f32) -> Crowd {
    let mut crowd = Crowd::new();
    let id = crowd.add_model(handle);
    let r = handle.model().bounding_radius;
    let half = (side - 1) as f32 * 0.5;
    for i in 0..side * side {
        let (x, z) = ((i % side) as f32 - half, (i / side) as f32 - half);
        crowd
            .spawn(
                id,
                Spawn {
                    transform: Mat4::from_rotation_translation(
                        Quat::from_rotation_y(i as f32 * 2.39 + turn),
                        Vec3::new(x, 0.0, z) * r * spacing,
                    ),
                    clip: Some(i % 3),
                    time: i as f32 * 0.37 + later,
                    speed: 0.0,
                    ..Spawn::default()
                },
            )
            .unwrap();
    }
    crowd
}

/// The record paths this adapter has.
pub fn paths(gpu: &Gpu) -> Vec<PathChoice> {
    let mut paths = vec![PathChoice::Packaged];
    if throng_render::supports_unbounded(&gpu.adapter, &gpu.device) {
        paths.push(PathChoice::Unbounded);
    }
    if throng_render::supports_gpu_driven(&gpu.adapter, &gpu.device) {
        paths.push(PathChoice::GpuDriven);
    }
    paths
}

/// Background pixels: those equal to the top-left corner's (the clear
/// colour; the crowd never reaches the corner).
pub fn covered(image: &image::RgbaImage) -> Vec<bool> {
    let bg = *image.get_pixel(0, 0);
    image.pixels().map(|p| *p != bg).collect()
}

/// Near/far bound of every impostor test (measured on the Fox's crowd of
/// `impostor_draw.rs`): most pixels covered by exactly one of the two
/// pictures, as a fraction of the pixels the meshes cover. The impostor's silhouette is the capture's
/// at half coverage, bilinearly filtered and blended over three views and
/// two captures, so thin parts (legs, the tail's tip) thin out or widen by
/// about a pixel at this distance. Measured 0.161 on lavapipe and
/// llvmpipe GL from the BC3 atlas (0.160 from the same capture stored as
/// RGBA8, same run); the same
/// crowd a little later in its clips and turned by a radian (that test's
/// control, which must fail) measures 1.18.
pub const COVERAGE_BOUND: f64 = 0.25;

/// Near/far bound of every impostor test: the largest mean absolute
/// difference, in 8-bit levels averaged over RGB, where both pictures
/// cover a pixel (measured on the Fox's crowd): the impostor's colour is filtered
/// over the views and captures around the true ones and lit from blended
/// normals. Measured 19.5 on lavapipe since the Fox's texture is stored
/// BC7 with baked mips (format 8; docs/BENCHMARKS.md, "Baked textures"),
/// 19.4 on lavapipe and llvmpipe GL from the BC3 atlas before,
/// 17.9 from the same capture stored as RGBA8 (same run; the capture from
/// LOD 1, `CAPTURE_VERTEX_BUDGET`, raised it from the 11.3 measured when
/// the atlas was captured from LOD 0).
pub const MAD_BOUND: f64 = 20.0;

/// How far apart two pictures of a crowd are.
pub struct Comparison {
    /// Pixels covered by one picture only, over those the first covers.
    pub coverage_mismatch: f64,
    /// Mean absolute difference where both cover (8-bit levels, RGB mean).
    pub mad: f64,
    /// Pixels the first covers.
    pub covered: usize,
    /// |pixels the second covers − pixels the first covers|, over those
    /// the first covers.
    pub count: f64,
}

impl Comparison {
    /// Within [`COVERAGE_BOUND`] and [`MAD_BOUND`].
    pub fn within_bounds(&self) -> bool {
        self.coverage_mismatch <= COVERAGE_BOUND && self.mad <= MAD_BOUND
    }

    /// `what` with the figures where the comparison is out of the bounds.
    pub fn failure(&self, what: &str) -> Option<String> {
        (!self.within_bounds()).then(|| {
            format!(
                "{what}: coverage mismatch {:.3}, MAD {:.1}",
                self.coverage_mismatch, self.mad
            )
        })
    }
}

/// `b` against `a` ([`Comparison`]).
pub fn compare(a: &image::RgbaImage, b: &image::RgbaImage) -> Comparison {
    let (ca, cb) = (covered(a), covered(b));
    let mut only = 0usize;
    let mut both = 0usize;
    let mut sum = 0.0;
    for (i, (pa, pb)) in a.pixels().zip(b.pixels()).enumerate() {
        match (ca[i], cb[i]) {
            (true, true) => {
                both += 1;
                sum += (0..3)
                    .map(|c| (pa[c] as f64 - pb[c] as f64).abs())
                    .sum::<f64>()
                    / 3.0;
            }
            (false, false) => {}
            _ => only += 1,
        }
    }
    let n = ca.iter().filter(|&&c| c).count();
    let n_b = cb.iter().filter(|&&c| c).count();
    Comparison {
        coverage_mismatch: only as f64 / n.max(1) as f64,
        mad: sum / both.max(1) as f64,
        covered: n,
        count: (n_b as f64 - n as f64).abs() / n.max(1) as f64,
    }
}

/// `crowd` of `model` drawn by a new headless renderer on `path`, at `size`,
/// from `camera`.
pub fn draw(
    gpu: &Gpu,
    path: PathChoice,
    size: (u32, u32),
    camera: &Camera,
    crowd: &Crowd,
    model: &GpuModel,
) -> (image::RgbaImage, FrameStats) {
    let options = RendererOptions {
        path,
        ..RendererOptions::default()
    };
    let mut renderer = scenes::renderer(gpu, options);
    scenes::draw(&mut renderer, gpu, size, camera, &[crowd], &[model])
}
