//! The CPU reference and the bake against positions worked out by hand, on
//! small glTF files built by the tests: STEP, CUBICSPLINE, matrix joints, two
//! skins sharing joints, a rigid mesh under a joint, a skinned node with a
//! non-identity transform, weights summing to 0.5, 6 influences.
//!
//! Each case builds a tiny file with [`GltfBuilder`], imports and bakes it,
//! and checks two independent evaluations against positions worked out by
//! hand (the arithmetic is in the comments, the values are literals):
//! the CPU reference (`throng_bake::reference::sample`) and the baked model
//! skinned the shader's way (`throng_core::baked::skin_lod`) at baked frame
//! times. Nothing here computes an expectation with throng code or with a
//! matrix product of the formula under test.
//!
//! Notation: `Rz90` is a rotation by 90° about +z, mapping `(x, y, z)` to
//! `(−y, x, z)`; `T(a, b, c)` a translation.
//!
//! - `interpolation`: STEP and CUBICSPLINE sampling;
//! - `joints`: a matrix joint, two skins sharing joints, a rigid mesh under a
//!   joint, and the ignored transform of the skinned node;
//! - `weights`: weights summing to 0.5, all-zero weights and 6 influences.
//!
//! This file holds [`Case`] (import, bake and check against hand values), the
//! hand comparison and the small builders the cases share.

use std::f32::consts::FRAC_1_SQRT_2;

use glam::{Mat4, Vec3};
use throng_bake::reference::{self, SkinnedPrimitive};
use throng_bake::scene::Scene;
use throng_bake::{BakeOptions, BakeReport, bake, import_slice};
use throng_core::BakedModel;
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;
use throng_core::layout::frame_time;
use throng_tests::gltf_builder::{Channel, GltfBuilder, Interpolation, Primitive};

mod interpolation;
mod joints;
mod weights;

/// Largest distance between a hand-computed and an evaluated position, in
/// model units; the models here are 1–10 units big, so this is about 1e-6
/// of their size: f32 rounding only.
const HAND_TOLERANCE: f32 = 1e-5;

/// Quaternion `[x, y, z, w]` of a 90° rotation about +z.
const RZ90: [f32; 4] = [0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2];
/// The identity quaternion.
const QUAT_ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// One weight on joint `j`.
fn only(j: u16) -> ([u16; 4], [f32; 4]) {
    ([j, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
}

/// An imported and baked test model.
struct Case {
    name: &'static str,
    scene: Scene,
    warnings: Vec<String>,
    model: BakedModel,
    report: BakeReport,
}

impl Case {
    /// Imports `b.to_gltf()` and bakes it with default options.
    fn build(name: &'static str, b: &GltfBuilder) -> Self {
        let bytes = b.to_gltf();
        let imported =
            import_slice(&bytes, None, name).unwrap_or_else(|e| panic!("{name}: import: {e}"));
        let (model, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
            .unwrap_or_else(|e| panic!("{name}: bake: {e}"));
        Self {
            name,
            scene: imported.scene,
            warnings: imported.warnings,
            model,
            report,
        }
    }

    /// Clip time of baked frame `k` of clip `clip`, checked to be `t` (the
    /// time the hand values were worked out for).
    fn frame_time(&self, clip: usize, k: u32, t: f32) -> f32 {
        let info = &self.model.clips[clip];
        let ft = frame_time(k, info.frame_count, info.duration);
        assert!(
            (ft - t).abs() <= 1e-6,
            "{}: frame {k} of clip {:?} is at {ft}s, not {t}s",
            self.name,
            info.name
        );
        ft
    }

    /// The CPU reference at clip time `t` equals `expected` (per source
    /// primitive, in instance order).
    fn check_reference(&self, clip: usize, t: f32, expected: &[&[[f32; 3]]]) {
        let found = reference::sample(&self.scene, Some(clip), t);
        let what = format!(
            "{}: reference, clip {:?} t={t}s",
            self.name, self.scene.clips[clip].name
        );
        assert_hand(&what, expected, &found);
    }

    /// The baked model at baked frame `k` (clip time `t`) equals `expected`.
    fn check_baked(&self, clip: usize, k: u32, t: f32, expected: &[&[[f32; 3]]]) {
        let t = self.frame_time(clip, k, t);
        let info = &self.model.clips[clip];
        let found = skin_lod(&self.model, 0, &FrameBlend::single(info.frames_at(t)));
        let what = format!(
            "{}: baked, clip {:?} frame {k} t={t}s",
            self.name, info.name
        );
        assert_hand(&what, expected, &found);
    }

    /// Both the reference and the baked model at baked frame `k` (time `t`)
    /// equal `expected`.
    fn check(&self, clip: usize, k: u32, t: f32, expected: &[&[[f32; 3]]]) {
        let t = self.frame_time(clip, k, t);
        self.check_reference(clip, t, expected);
        self.check_baked(clip, k, t, expected);
    }
}

/// Compares positions with [`HAND_TOLERANCE`], printing the worst vertex.
fn assert_hand(what: &str, expected: &[&[[f32; 3]]], found: &[SkinnedPrimitive]) {
    assert_eq!(found.len(), expected.len(), "{what}: primitive count");
    let mut worst: Option<(f32, usize, usize, Vec3, Vec3)> = None;
    for (p, (e, f)) in expected.iter().zip(found).enumerate() {
        assert_eq!(
            e.len(),
            f.positions.len(),
            "{what}: vertex count of primitive {p} (node {}, mesh {}, primitive {})",
            f.node,
            f.mesh,
            f.primitive
        );
        for (v, (a, b)) in e.iter().zip(&f.positions).enumerate() {
            let a = Vec3::from_array(*a);
            let d = (a - *b).length();
            if worst.is_none_or(|w| d.is_nan() || d > w.0) {
                worst = Some((d, p, v, a, *b));
            }
        }
    }
    let Some((d, p, v, a, b)) = worst else { return };
    let f = &found[p];
    let msg = format!(
        "{what}: worst vertex {v} of primitive {p} (node {}, mesh {}, primitive {}): expected {a}, found {b}, off by {d:.3e} (tolerance {HAND_TOLERANCE:e})",
        f.node, f.mesh, f.primitive
    );
    println!("{msg}");
    assert!(d <= HAND_TOLERANCE, "{msg}");
}

/// A mesh `name` of one triangle at `positions`, vertex `v` skinned with
/// `influences[v]` (one set of joints and weights).
fn skinned_triangle(
    b: &mut GltfBuilder,
    name: &str,
    positions: &[[f32; 3]; 3],
    influences: &[([u16; 4], [f32; 4]); 3],
) -> usize {
    let (j, w): (Vec<_>, Vec<_>) = influences.iter().copied().unzip();
    b.mesh(name, vec![Primitive::new(positions).skin_set(&j, &w)])
}

/// A triangle skinned with weight 1 to joint 0 of skin 0, for the cases that
/// test sampling.
fn unit_triangle(b: &mut GltfBuilder, positions: &[[f32; 3]; 3]) -> usize {
    skinned_triangle(b, "tri", positions, &[only(0); 3])
}

/// Adds clip `name`: `node` translated linearly from `from` at 0 s to `to`
/// at 1 s.
fn move_over_a_second(b: &mut GltfBuilder, name: &str, node: usize, from: [f32; 3], to: [f32; 3]) {
    b.animation(
        name,
        vec![Channel::translation(
            node,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[from, to],
        )],
    );
}

/// Adds clip `name`: `node` rotated linearly from the identity at 0 s to
/// `Rz90` at 1 s.
fn turn_rz90_over_a_second(b: &mut GltfBuilder, name: &str, node: usize) {
    b.animation(
        name,
        vec![Channel::rotation(
            node,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[QUAT_ID, RZ90],
        )],
    );
}

/// `T(0,−1,0)`, column-major: the inverse bind of a joint resting at
/// `T(0,1,0)`.
fn inverse_bind_of_t010() -> Mat4 {
    Mat4::from_cols_array(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
    ])
}
