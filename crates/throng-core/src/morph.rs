//! Morph targets as baked: every frame's weights beside the bone frames, and
//! the targets' deltas stored sparsely, per vertex.
//!
//! A **slot** is one target of one mesh instance (two nodes showing the same
//! mesh animate their weights apart). Each global frame stores one weight per
//! slot, sampled like the bones (at the clip's frame times, the rest frame
//! holding the default weights). A **delta** is one target's offset of one
//! vertex: position and normal, tagged with its slot; a vertex's deltas are
//! the range [`BakedVertex::morph`] names (`[first, count]`, count 0 for a
//! vertex no target moves), so a face's 50 targets cost nothing at the
//! vertices of its body.
//!
//! Applied before skinning, in the shader's order ([`morph_vertex`]):
//!
//! ```text
//! w_s = lerp(W(frame0, s), W(frame1, s), t)          // per slot, as bones
//!       if fade < 1: w_s = lerp(lerp(W(prev0, s), W(prev1, s), prev_t), w_s, fade)
//! p = p + Σ_k w_slot(k) · Δp_k ;  n = n + Σ_k w_slot(k) · Δn_k   (over the vertex's range, in order)
//! ```
//!
//! then `p` and `n` are skinned as a bind-pose vertex is. The normal is
//! normalised by the skinning's normal transform.
//!
//! # On the GPU
//! One `texture_2d<f32>` (RGBA32F, [`MORPH_TEXTURE_WIDTH`] texels a row,
//! texel `i` at `(i % width, i / width)`): frame `f`'s weights fill texels
//! `f · T .. f · T + T` with `T = ⌈slots / 4⌉` (four to a texel), then each
//! delta takes [`MORPH_DELTA_TEXELS`] texels from [`Morphs::delta_base`]:
//! `(Δp.xyz, slot)` and `(Δn.xyz, 0)`. A model without morphs binds a
//! one-texel stand-in.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::error::FormatError;
use crate::gpu::FrameBlend;
use crate::limits::{
    MAX_MORPH_SLOTS, MORPH_DELTA_TEXELS, MORPH_TEXTURE_WIDTH, MORPH_WEIGHTS_PER_TEXEL,
};
use crate::model::mesh::{BakedVertex, Lod};

/// What a slot animates: target `target` of glTF mesh `mesh` shown by node
/// `node`.
#[derive(Clone, Debug, PartialEq)]
pub struct MorphSlot {
    /// Target name (glTF `mesh.extras.targetNames`, or `target{i}`).
    pub name: String,
    /// Node showing the mesh.
    pub node: u32,
    /// glTF mesh index.
    pub mesh: u32,
    /// Target index in the mesh.
    pub target: u32,
}

/// One target's offset of one vertex (32 bytes; the file's record).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MorphDelta {
    /// Position offset, in the baked vertex's (bind-pose model) space.
    pub position: [f32; 3],
    /// The slot whose weight scales it.
    pub slot: u32,
    /// Normal offset, in the same space.
    pub normal: [f32; 3],
    /// Zero.
    pub pad: u32,
}

/// A model's morph targets: slots, every frame's weights and the deltas.
/// Empty for a model without morph targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Morphs {
    /// The slots, in weight order.
    pub slots: Vec<MorphSlot>,
    /// `frame_count × slots.len()` weights, frame-major.
    pub weights: Vec<f32>,
    /// Deltas, the ranges of every LOD's vertices index into.
    pub deltas: Vec<MorphDelta>,
}

impl Morphs {
    /// No morph targets.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Number of slots.
    pub fn slot_count(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Weight of `slot` at global frame `frame` (both clamped, as the
    /// shader clamps; 0 without slots).
    pub fn weight(&self, frame: u32, slot: u32) -> f32 {
        let n = self.slots.len();
        if n == 0 || self.weights.is_empty() {
            return 0.0;
        }
        let frames = self.weights.len() / n;
        let f = (frame as usize).min(frames.saturating_sub(1));
        self.weights[f * n + (slot as usize).min(n - 1)]
    }

    /// The weight of `slot` for a frame blend: frame interpolation, then
    /// the cross-fade, as the bones are blended.
    pub fn blended_weight(&self, slot: u32, blend: &FrameBlend) -> f32 {
        let c = &blend.current;
        let (a, b) = (self.weight(c.frame0, slot), self.weight(c.frame1, slot));
        let cur = a + (b - a) * c.t;
        if blend.fade >= 1.0 {
            return cur;
        }
        let p = &blend.previous;
        let (a, b) = (self.weight(p.frame0, slot), self.weight(p.frame1, slot));
        let prev = a + (b - a) * p.t;
        prev + (cur - prev) * blend.fade
    }

    /// The deltas of `v` (empty when no target moves it, or its range is
    /// out of bounds, which [`Self::validate`] refuses).
    pub fn deltas_of(&self, v: &BakedVertex) -> &[MorphDelta] {
        let [first, count] = v.morph;
        let (first, count) = (first as usize, count as usize);
        self.deltas.get(first..first + count).unwrap_or(&[])
    }

    /// Texels of one frame's weights: `⌈slots / 4⌉`.
    pub fn texels_per_frame(&self) -> u32 {
        self.slot_count().div_ceil(MORPH_WEIGHTS_PER_TEXEL)
    }

    /// Texel index of the first delta: after every frame's weights.
    pub fn delta_base(&self, frame_count: u32) -> u64 {
        frame_count as u64 * self.texels_per_frame() as u64
    }

    /// Texels the morph texture holds (before padding to whole rows).
    pub fn texel_count(&self, frame_count: u32) -> u64 {
        self.delta_base(frame_count) + self.deltas.len() as u64 * MORPH_DELTA_TEXELS as u64
    }

    /// Rows of the morph texture ([`MORPH_TEXTURE_WIDTH`] texels each), at
    /// least 1.
    pub fn texture_rows(&self, frame_count: u32) -> u64 {
        self.texel_count(frame_count)
            .div_ceil(MORPH_TEXTURE_WIDTH as u64)
            .max(1)
    }

    /// The morph texture's texels, whole rows (zero-padded): the layout in
    /// the module docs. `frame_count` is the model's.
    pub fn texels(&self, frame_count: u32) -> Vec<[f32; 4]> {
        let rows = self.texture_rows(frame_count) as usize;
        let mut out = vec![[0.0f32; 4]; rows * MORPH_TEXTURE_WIDTH as usize];
        let n = self.slots.len();
        let per_frame = self.texels_per_frame() as usize;
        for f in 0..frame_count as usize {
            for s in 0..n {
                out[f * per_frame + s / 4][s % 4] = self.weight(f as u32, s as u32);
            }
        }
        let base = self.delta_base(frame_count) as usize;
        for (e, d) in self.deltas.iter().enumerate() {
            let i = base + e * MORPH_DELTA_TEXELS as usize;
            let [x, y, z] = d.position;
            out[i] = [x, y, z, d.slot as f32];
            let [x, y, z] = d.normal;
            out[i + 1] = [x, y, z, 0.0];
        }
        out
    }

    /// The validity rules: weights for every frame and slot, all finite;
    /// every delta finite and naming a slot; every vertex range of every
    /// LOD inside the deltas; at most [`MAX_MORPH_SLOTS`] slots, and slots
    /// exactly representable as f32 (the GPU reads them so).
    pub fn validate(&self, frame_count: u32, lods: &[Lod]) -> Result<(), FormatError> {
        let bad = |m: String| Err(FormatError::Invalid(format!("morph targets: {m}")));
        let n = self.slots.len();
        if n as u64 > MAX_MORPH_SLOTS as u64 {
            return bad(format!("{n} slots, more than {MAX_MORPH_SLOTS}"));
        }
        if n == 0 && !(self.weights.is_empty() && self.deltas.is_empty()) {
            return bad("weights or deltas without slots".into());
        }
        if self.weights.len() as u64 != frame_count as u64 * n as u64 {
            return bad(format!(
                "{} weights for {frame_count} frames of {n} slots",
                self.weights.len()
            ));
        }
        if let Some(i) = self.weights.iter().position(|w| !w.is_finite()) {
            return bad(format!(
                "weight {} of frame {} ({:?}) is not finite",
                i % n.max(1),
                i / n.max(1),
                self.slots[i % n.max(1)].name
            ));
        }
        for (e, d) in self.deltas.iter().enumerate() {
            if d.slot as usize >= n {
                return bad(format!("delta {e} names slot {}, of {n}", d.slot));
            }
            if !d.position.iter().chain(&d.normal).all(|x| x.is_finite()) {
                return bad(format!("delta {e} is not finite"));
            }
        }
        for (l, lod) in lods.iter().enumerate() {
            for (i, v) in lod.vertices.iter().enumerate() {
                let [first, count] = v.morph;
                if first as u64 + count as u64 > self.deltas.len() as u64 {
                    return bad(format!(
                        "LOD {l} vertex {i} names deltas {first}..{}, of {}",
                        first as u64 + count as u64,
                        self.deltas.len()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A vertex's morphed bind-pose position and normal, with `weight` giving
/// each slot's weight: the arithmetic of the shader's `morph()`.
#[inline]
pub fn morph_vertex(
    morphs: &Morphs,
    v: &BakedVertex,
    mut weight: impl FnMut(u32) -> f32,
) -> (Vec3, Vec3) {
    let mut p = Vec3::from(v.position);
    let mut n = Vec3::from(v.normal);
    for d in morphs.deltas_of(v) {
        let w = weight(d.slot);
        p += Vec3::from(d.position) * w;
        n += Vec3::from(d.normal) * w;
    }
    (p, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::FramePair;

    fn two_slots() -> Morphs {
        Morphs {
            slots: (0..2)
                .map(|t| MorphSlot {
                    name: format!("target{t}"),
                    node: 0,
                    mesh: 0,
                    target: t,
                })
                .collect(),
            // Frame 0: (0, 0); frame 1: (1, 0.5); frame 2: (0.5, 1).
            weights: vec![0.0, 0.0, 1.0, 0.5, 0.5, 1.0],
            deltas: vec![
                MorphDelta {
                    position: [1.0, 0.0, 0.0],
                    slot: 0,
                    normal: [0.0, 1.0, 0.0],
                    pad: 0,
                },
                MorphDelta {
                    position: [0.0, 2.0, 0.0],
                    slot: 1,
                    normal: [0.0, 0.0, 0.0],
                    pad: 0,
                },
            ],
        }
    }

    fn vertex(morph: [u32; 2]) -> BakedVertex {
        BakedVertex {
            position: [0.0; 3],
            normal: [0.0, 0.0, 1.0],
            uv: [0.0; 2],
            joints: [0; 4],
            weights: [1.0, 0.0, 0.0, 0.0],
            morph,
            tangent: [0; 4],
        }
    }

    #[test]
    fn weights_interpolate_and_fade_like_bones() {
        let m = two_slots();
        let blend = FrameBlend {
            current: FramePair {
                frame0: 1,
                frame1: 2,
                t: 0.5,
            },
            previous: FramePair::single(0),
            fade: 0.5,
        };
        // Current: slot 0 = 0.75, slot 1 = 0.75; previous 0; fade 0.5.
        assert_eq!(m.blended_weight(0, &blend), 0.375);
        assert_eq!(m.blended_weight(1, &blend), 0.375);
        // Clamped like the shader: frame 99 is the last, slot 9 the last.
        assert_eq!(m.weight(99, 9), 1.0);
    }

    #[test]
    fn deltas_apply_over_the_vertex_range_only() {
        let m = two_slots();
        let (p, n) = morph_vertex(&m, &vertex([0, 2]), |s| [1.0, 0.5][s as usize]);
        assert_eq!(p, Vec3::new(1.0, 1.0, 0.0));
        assert_eq!(n, Vec3::new(0.0, 1.0, 1.0));
        let (p, _) = morph_vertex(&m, &vertex([1, 1]), |_| 1.0);
        assert_eq!(p, Vec3::new(0.0, 2.0, 0.0));
        let (p, _) = morph_vertex(&m, &vertex([0, 0]), |_| 1.0);
        assert_eq!(p, Vec3::ZERO);
    }

    #[test]
    fn texels_hold_weights_then_deltas() {
        let m = two_slots();
        let t = m.texels(3);
        assert_eq!(t.len(), MORPH_TEXTURE_WIDTH as usize);
        assert_eq!(m.texels_per_frame(), 1);
        assert_eq!(t[1], [1.0, 0.5, 0.0, 0.0]);
        assert_eq!(t[3], [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(t[4], [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(t[5], [0.0, 2.0, 0.0, 1.0]);
    }

    #[test]
    fn validation_refuses_what_the_gpu_would_misread() {
        let lod = |morph| Lod {
            screen_size: 0.0,
            vertices: vec![vertex(morph)],
            indices: vec![],
            submeshes: vec![],
        };
        let m = two_slots();
        assert!(m.validate(3, &[lod([0, 2])]).is_ok());
        let e = m.validate(3, &[lod([1, 2])]).unwrap_err().to_string();
        assert!(e.contains("LOD 0 vertex 0 names deltas 1..3, of 2"), "{e}");
        let e = m.validate(4, &[]).unwrap_err().to_string();
        assert!(e.contains("6 weights for 4 frames of 2 slots"), "{e}");
        let mut nan = two_slots();
        nan.weights[3] = f32::NAN;
        let e = nan.validate(3, &[]).unwrap_err().to_string();
        assert!(
            e.contains("weight 1 of frame 1 (\"target1\") is not finite"),
            "{e}"
        );
        let mut stray = two_slots();
        stray.deltas[1].slot = 2;
        let e = stray.validate(3, &[]).unwrap_err().to_string();
        assert!(e.contains("delta 1 names slot 2, of 2"), "{e}");
    }
}
