//! Animation layers on the CPU (`throng_core::layers`) against independent
//! oracles built from the source glTF: a masked override re-attaches the
//! layer clip's subtree to the base's parent (computed from the reference's
//! global matrices, no decomposition), and weighted override and additive
//! layers equal a glam TRS blend of the reference's local transforms. Both at
//! baked frame times, where the palette equals the reference within
//! `BAKED_F32_TOLERANCE`.
//!
//! - `bones`: masked, weighted, additive and weightless layers of the bone
//!   palette, and the masks and layers that are refused;
//! - `crowd`: a crowd instance plays its layers and answers bone queries with
//!   them;
//! - `morph_weights`: morph weights layered as bones are, and morph preset
//!   layers.
//!
//! This file holds the baked Fox and its oracle helpers ([`Fox`]).

use glam::{Mat4, Vec3};
use throng_bake::sample::PoseEvaluator;
use throng_bake::{BakeOptions, Scene, bake};
use throng_core::baked::blend_matrix;
use throng_core::gpu::FrameBlend;
use throng_core::layers::{LayerPose, Skeleton, layered_palette};
use throng_core::layout::FramePair;
use throng_core::math::{Rows3x4, mat4_to_rows, rows_transform_point};
use throng_core::model::BakedModel;
use throng_tests::BAKED_F32_TOLERANCE;

mod bones;
mod crowd;
mod morph_weights;

struct Fox {
    scene: Scene,
    model: BakedModel,
    eval: PoseEvaluator,
    skeleton: Skeleton,
}

fn fox() -> Fox {
    let path = throng_tests::asset("khronos_Fox.glb");
    let scene = throng_bake::import_file(&path).unwrap().scene;
    let (model, _) = bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    let eval = PoseEvaluator::new(&scene);
    let skeleton = Skeleton::new(&model);
    Fox {
        scene,
        model,
        eval,
        skeleton,
    }
}

impl Fox {
    /// Clip `name` at its baked frame `k`: its frames and its time.
    fn at(&self, name: &str, k: u32) -> (usize, FramePair, f32) {
        let c = self.model.clip_index(name).unwrap();
        let clip = &self.model.clips[c];
        let t = throng_core::layout::frame_time(k, clip.frame_count, clip.duration);
        (c, FramePair::single(clip.first_frame + k), t)
    }

    /// Reference globals of every node for clip `c` at `t`.
    fn globals(&self, c: usize, t: f32) -> Vec<Mat4> {
        self.eval.globals(Some(&self.scene.clips[c]), t)
    }

    /// Worst distance between LOD 0 skinned by two palettes.
    fn worst(&self, a: &[Rows3x4], b: &[Rows3x4]) -> f32 {
        let mut worst = 0.0f32;
        for v in &self.model.lods[0].vertices {
            let p = Vec3::from(v.position);
            let pa = rows_transform_point(&blend_matrix(v, |j| a[j as usize]), p);
            let pb = rows_transform_point(&blend_matrix(v, |j| b[j as usize]), p);
            worst = worst.max((pa - pb).length());
        }
        worst
    }

    /// Palette of node globals: `G(node of bone) · inverse_bind`.
    fn palette(&self, globals: impl Fn(usize) -> Mat4) -> Vec<Rows3x4> {
        (0..self.model.bones.len())
            .map(|b| mat4_to_rows(&(globals(b) * self.model.bones[b].inverse_bind)))
            .collect()
    }

    fn node(&self, bone: u32) -> usize {
        self.model.bones[bone as usize].node as usize
    }

    /// The CPU's palette of `layers` over `base`.
    fn layered(&self, base: &FrameBlend, layers: &[LayerPose]) -> Vec<Rows3x4> {
        let mut palette = Vec::new();
        layered_palette(&self.model, &self.skeleton, base, layers, &mut palette);
        palette
    }

    /// Asserts that `got` skins LOD 0 within `BAKED_F32_TOLERANCE` × the
    /// bounding radius of `expected`.
    fn assert_skins_as(&self, expected: &[Rows3x4], got: &[Rows3x4]) {
        let radius = self.model.bounding_radius;
        let worst = self.worst(expected, got);
        assert!(
            worst <= BAKED_F32_TOLERANCE * radius,
            "worst vertex {worst} (bound {} = {BAKED_F32_TOLERANCE} × radius {radius})",
            BAKED_F32_TOLERANCE * radius
        );
    }

    /// Asserts that every bone `b` of `palette` for which `keeps(b)` is
    /// `base`'s bit for bit (no layer moved it).
    fn assert_base_rows(
        &self,
        palette: &[Rows3x4],
        base: &FrameBlend,
        keeps: impl Fn(u32) -> bool,
    ) {
        for (b, rows) in palette.iter().enumerate() {
            let b = b as u32;
            if keeps(b) {
                let plain = throng_core::baked::blended_bone_rows(&self.model, b, base);
                assert_eq!(*rows, plain, "bone {b}");
            }
        }
    }
}
