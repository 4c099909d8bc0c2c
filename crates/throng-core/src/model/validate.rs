//! [`BakedModel::validate`]: the validity rules listed in the module docs
//! of [`crate::model`], checked before the baker or the `.throng` reader
//! hands a model out.

use super::BakedModel;
use super::animation::{RootMotionKey, Texels};
use super::mesh::Lod;
use crate::error::FormatError;
use crate::limits::{
    MAX_BONES, MAX_CLIPS, MAX_FPS, MAX_INFLUENCES, MAX_LAYER_SIZE, REST_FRAME, TEXELS_PER_MATRIX,
};
use crate::math::Aabb;

impl BakedModel {
    /// Checks the validity rules of the module docs.
    pub fn validate(&self) -> Result<(), FormatError> {
        if let Some(p) = &self.provenance {
            p.validate().map_err(FormatError::Invalid)?;
        }
        self.validate_bones()?;
        let frames = self.validate_texture()?;
        self.validate_clips(frames)?;
        self.validate_frame_bounds(frames)?;
        self.validate_root_motion_and_events(frames)?;
        self.validate_contacts()?;
        if let Some(atlas) = &self.impostor {
            atlas
                .check(self.clips.len())
                .map_err(FormatError::Invalid)?;
        }
        self.validate_scalars()?;
        self.validate_lods()?;
        self.morphs.validate(frames, &self.lods)?;
        self.validate_materials()
    }

    /// The palette: 1 to [`MAX_BONES`] bones, each parent another bone of
    /// the palette, finite matrices, and no cycle through the parents.
    fn validate_bones(&self) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        let bones = self.bones.len();
        if bones == 0 || bones > MAX_BONES as usize {
            return bad(format!(
                "palette has {bones} bones (1..={MAX_BONES} allowed)"
            ));
        }
        for (i, b) in self.bones.iter().enumerate() {
            if let Some(p) = b.parent
                && (p as usize >= bones || p as usize == i)
            {
                return bad(format!(
                    "bone {i} ({}) has parent {p} (palette has {bones})",
                    b.name
                ));
            }
            if !b.inverse_bind.is_finite() || !b.rest_global.is_finite() {
                return bad(format!("bone {i} ({}) has a non-finite matrix", b.name));
            }
        }
        for (i, _) in self.bones.iter().enumerate() {
            let mut cur = i;
            let mut steps = 0;
            while let Some(p) = self.bones[cur].parent {
                cur = p as usize;
                steps += 1;
                if steps > bones {
                    return bad(format!("bone parents form a cycle through bone {i}"));
                }
            }
        }
        Ok(())
    }

    /// The bone texture (rule 3 first: the frame count derives from the
    /// texel count): a positive whole number of frames, every texel
    /// addressable by a u32, a tight layout, finite values. Returns the
    /// frame count.
    fn validate_texture(&self) -> Result<u32, FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        let per_frame = self.bones.len() as u64 * TEXELS_PER_MATRIX as u64;
        let texels = self.texture.texels.len() as u64;
        if texels == 0 || !texels.is_multiple_of(per_frame) {
            return bad(format!(
                "texture holds {texels} texels, not a positive multiple of {per_frame} (bones × 3)"
            ));
        }
        // The shaders address texel (frame · bones + bone) · 3 + row as a u32
        // (skinning.wgsl's bone_rows): every texel's index must fit one.
        if texels > u32::MAX as u64 {
            return bad(format!(
                "texture holds {texels} texels, more than the shader's u32 texel index reaches ({})",
                u32::MAX
            ));
        }
        let frames = (texels / per_frame) as u32;
        let layout = self.texture.layout();
        if self.texture.width == 0
            || self.texture.width > MAX_LAYER_SIZE
            || !layout.is_tight_for(texels)
        {
            return bad(format!(
                "texture layout {}x{}x{} does not tightly hold {texels} texels (W ≤ {MAX_LAYER_SIZE})",
                self.texture.width, self.texture.width, self.texture.layers
            ));
        }
        let finite = match &self.texture.texels {
            Texels::F32(v) => v.iter().flatten().all(|x| x.is_finite()),
            Texels::F16(v) => v.iter().flatten().all(|x| x.is_finite()),
        };
        if !finite {
            return bad("texture holds a NaN or infinite value".into());
        }
        debug_assert!(REST_FRAME < frames);
        Ok(frames)
    }

    /// The clips: at most [`MAX_CLIPS`], each spanning frames of the
    /// `frames`-frame table, with a duration that matches its frame count,
    /// a finite frame rate, valid bounds and finite non-negative errors.
    fn validate_clips(&self, frames: u32) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        if self.clips.len() > MAX_CLIPS as usize {
            return bad(format!("{} clips (at most {MAX_CLIPS})", self.clips.len()));
        }
        for (c, clip) in self.clips.iter().enumerate() {
            let end = clip.first_frame as u64 + clip.frame_count as u64;
            if clip.frame_count == 0 || end > frames as u64 {
                return bad(format!(
                    "clip {c} ({}) spans frames {}..{end}, the table has {frames}",
                    clip.name, clip.first_frame
                ));
            }
            let ok_duration = clip.duration.is_finite()
                && clip.duration >= 0.0
                && ((clip.duration > 0.0) == (clip.frame_count >= 2));
            if !ok_duration {
                return bad(format!(
                    "clip {c} ({}) has duration {} with {} frames",
                    clip.name, clip.duration, clip.frame_count
                ));
            }
            // FrameMap's (n − 1) / D: an infinite rate makes time 0 a NaN
            // frame weight on the CPU and the GPU alike.
            let map = clip.frame_map();
            if !map.frames_per_second.is_finite() {
                return bad(format!(
                    "clip {c} ({}) has {} frames in {} s: its frame rate (n − 1) / duration overflows f32",
                    clip.name, clip.frame_count, clip.duration
                ));
            }
            if !aabb_ok(&clip.bounds) {
                return bad(format!("clip {c} ({}) has invalid bounds", clip.name));
            }
            let e = &clip.error;
            if ![e.at_frames, e.between_frames, e.max_error]
                .iter()
                .all(|x| x.is_finite() && *x >= 0.0)
            {
                return bad(format!(
                    "clip {c} ({}) has errors {e:?}, not finite non-negative numbers",
                    clip.name
                ));
            }
        }
        Ok(())
    }

    /// One valid box per frame of the `frames`-frame table.
    fn validate_frame_bounds(&self, frames: u32) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        if self.frame_bounds.len() != frames as usize {
            return bad(format!(
                "{} frame bounds for {frames} frames",
                self.frame_bounds.len()
            ));
        }
        if let Some(f) = self.frame_bounds.iter().position(|b| !aabb_ok(b)) {
            return bad(format!("bounds of frame {f} are invalid"));
        }
        Ok(())
    }

    /// The model's own numbers: valid bounds and bounding radius, an fps
    /// within (0, [`MAX_FPS`]], a finite non-negative bake error.
    fn validate_scalars(&self) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        if !(aabb_ok(&self.bounds)
            && self.bounding_radius.is_finite()
            && self.bounding_radius >= 0.0)
        {
            return bad("model bounds or bounding radius invalid".into());
        }
        if !(self.fps > 0.0 && self.fps <= MAX_FPS) {
            return bad(format!("fps {} is outside (0, {MAX_FPS}]", self.fps));
        }
        if !(self.bake_error.is_finite() && self.bake_error >= 0.0) {
            return bad(format!(
                "bake error {} is not a finite non-negative number",
                self.bake_error
            ));
        }
        Ok(())
    }

    /// The LODs: at least one, screen sizes not increasing, each valid on
    /// its own ([`Self::validate_lod`]).
    fn validate_lods(&self) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        if self.lods.is_empty() {
            return bad("no LOD".into());
        }
        if self
            .lods
            .windows(2)
            .any(|w| w[1].screen_size > w[0].screen_size)
        {
            return bad("LOD screen sizes must not increase from one LOD to the next".into());
        }
        for (l, lod) in self.lods.iter().enumerate() {
            self.validate_lod(l, lod)?;
        }
        Ok(())
    }

    /// Every material (its images among the model's) and every image, each
    /// by its own check.
    fn validate_materials(&self) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        for (i, m) in self.materials.iter().enumerate() {
            if let Err(why) = m.check(self.images.len()) {
                return bad(format!("material {i} ({}): {why}", m.name));
            }
        }
        for (i, img) in self.images.iter().enumerate() {
            if let Err(why) = img.check() {
                return bad(format!("image {i} ({}): {why}", img.name));
            }
        }
        Ok(())
    }

    fn validate_root_motion_and_events(&self, frames: u32) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        let any = self.clips.iter().any(|c| c.root_motion);
        let has_keys = !self.root_motion.is_empty();
        if any != has_keys {
            return bad(format!(
                "{} root-motion keys, but {} clip has root motion",
                self.root_motion.len(),
                if any { "a" } else { "no" }
            ));
        }
        if any {
            if self.root_motion.len() != frames as usize {
                return bad(format!(
                    "{} root-motion keys for {frames} frames",
                    self.root_motion.len()
                ));
            }
            let ok = |k: &RootMotionKey| {
                k.translation.iter().all(|x| x.is_finite()) && k.yaw.is_finite()
            };
            if let Some(f) = self.root_motion.iter().position(|k| !ok(k)) {
                return bad(format!("root motion of frame {f} is not finite"));
            }
            for (c, clip) in self.clips.iter().enumerate().filter(|(_, c)| c.root_motion) {
                if self.root_motion[clip.first_frame as usize] != RootMotionKey::default() {
                    return bad(format!(
                        "clip {c} ({}): root motion must start at zero",
                        clip.name
                    ));
                }
            }
        }
        let mut last = (0u32, f32::NEG_INFINITY);
        for (i, e) in self.events.iter().enumerate() {
            let Some(clip) = self.clips.get(e.clip as usize) else {
                return bad(format!(
                    "event {i} ({}) names clip {} (there are {})",
                    e.name,
                    e.clip,
                    self.clips.len()
                ));
            };
            if !(e.time.is_finite() && e.time >= 0.0 && e.time <= clip.duration) {
                return bad(format!(
                    "event {i} ({}) at {} s is outside clip {} ({}, {} s)",
                    e.name, e.time, e.clip, clip.name, clip.duration
                ));
            }
            if (e.clip, e.time) < last {
                return bad(format!(
                    "events are not sorted by clip and time at event {i} ({})",
                    e.name
                ));
            }
            last = (e.clip, e.time);
        }
        Ok(())
    }

    fn validate_lod(&self, l: usize, lod: &Lod) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(format!("LOD {l}: {msg}")));
        if lod.submeshes.is_empty() {
            return bad("no submesh".into());
        }
        if !(lod.screen_size.is_finite() && lod.screen_size >= 0.0) {
            return bad("screen size not finite and non-negative".into());
        }
        let bones = self.bones.len();
        for (v, vert) in lod.vertices.iter().enumerate() {
            if let Some(j) = vert.joints.iter().find(|&&j| j as usize >= bones) {
                return bad(format!("vertex {v} uses bone {j}, the palette has {bones}"));
            }
            let finite = vert
                .position
                .iter()
                .chain(&vert.normal)
                .chain(&vert.uv)
                .all(|x| x.is_finite());
            let weights_ok = vert.weights.iter().all(|w| w.is_finite() && *w >= 0.0);
            if !finite || !weights_ok {
                return bad(format!("vertex {v} has a non-finite or negative value"));
            }
        }
        debug_assert_eq!(MAX_INFLUENCES, 4);
        for (s, sub) in lod.submeshes.iter().enumerate() {
            let v_end = sub.base_vertex as u64 + sub.vertex_count as u64;
            let i_end = sub.first_index as u64 + sub.index_count as u64;
            if v_end > lod.vertices.len() as u64 || i_end > lod.indices.len() as u64 {
                return bad(format!(
                    "submesh {s} spans vertices ..{v_end} of {} and indices ..{i_end} of {}",
                    lod.vertices.len(),
                    lod.indices.len()
                ));
            }
            if sub.index_count % 3 != 0 {
                return bad(format!(
                    "submesh {s} has {} indices, not triangles",
                    sub.index_count
                ));
            }
            let range = sub.first_index as usize..i_end as usize;
            if let Some(i) = lod.indices[range].iter().find(|&&i| i >= sub.vertex_count) {
                return bad(format!(
                    "submesh {s} index {i} is beyond its {} vertices",
                    sub.vertex_count
                ));
            }
            if let Some(m) = sub.material
                && m as usize >= self.materials.len()
            {
                return bad(format!(
                    "submesh {s} uses material {m} (there are {})",
                    self.materials.len()
                ));
            }
        }
        Ok(())
    }
}

fn aabb_ok(b: &Aabb) -> bool {
    b.min.is_finite() && b.max.is_finite() && b.min.cmple(b.max).all()
}
