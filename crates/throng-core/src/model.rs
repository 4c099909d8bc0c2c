//! The baked model: what `throng bake` produces and the runtime consumes.
//!
//! A [`BakedModel`] is built only by the baker or by the `.throng` reader and
//! is checked by [`BakedModel::validate`] before either hands it out, so the
//! runtime can index it without further checks: a bone index beyond the
//! palette, a frame beyond the table or a texel beyond the texture is a load
//! error, never a GPU read.
//!
//! # Validity rules
//! 1. At least one bone, at most [`MAX_BONES`]; every bone's parent is another
//!    bone and parents form no cycle; every matrix is finite.
//! 2. At least one frame (frame [`REST_FRAME`] is the rest pose). Every clip's
//!    frames lie inside the frame table; a clip of duration D > 0 has ≥ 2
//!    frames, a clip of duration 0 exactly 1; durations are finite and
//!    `(frames − 1) / duration` too (the time-to-frame rate); its
//!    measured errors are finite and non-negative.
//! 3. The texture holds exactly `frames × bones × 3` texels, at most
//!    `u32::MAX` (the shader's linear texel index is a `u32`), its layout is
//!    tight ([`TextureLayout::is_tight_for`]) with `W ≤ MAX_LAYER_SIZE`, and
//!    every texel is finite.
//! 4. One frame bound per frame; every bound finite and non-empty.
//! 5. At least one LOD; each has at least one submesh. Every submesh's vertex
//!    and index ranges lie inside its LOD, its index count is a multiple of 3,
//!    each index is below its vertex count, and its material exists.
//! 6. Every vertex's bone indices are below the bone count; positions,
//!    normals, uvs and weights are finite and weights non-negative.
//! 7. Every material's image exists; every image has its full mip chain,
//!    each level the size its codec needs ([`Image::check`]).
//! 8. An impostor belongs to the model: at least one clip, the model's clip
//!    count, its plan's layout and image sizes ([`ImpostorAtlas::check`]).
//!
//! [`ImpostorAtlas::check`]: crate::impostor::ImpostorAtlas::check

use glam::{Mat4, Vec3, Vec4};

use crate::error::FormatError;
use crate::layout::{FrameMap, FramePair, TextureLayout, texel_address, texel_index};
use crate::limits::{
    MAX_BONES, MAX_CLIPS, MAX_FPS, MAX_INFLUENCES, MAX_LAYER_SIZE, REST_FRAME, TEXELS_PER_MATRIX,
};
use crate::material::{Image, Material};
use crate::math::{Aabb, Rows3x4};

/// One palette entry ("bone"): a node and its inverse bind matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Name of the node.
    pub name: String,
    /// Index of the node in the source glTF.
    pub node: u32,
    /// Palette index of the nearest ancestor node that is also a palette
    /// entry (for skeleton drawing and bone queries).
    pub parent: Option<u32>,
    /// `bind_from_model`: maps bind-pose model space into the node's space.
    pub inverse_bind: Mat4,
    /// The node's global matrix in the rest pose.
    pub rest_global: Mat4,
}

/// One baked clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    /// Clip name.
    pub name: String,
    /// Duration in seconds (0 for a single-pose clip).
    pub duration: f32,
    /// First global frame.
    pub first_frame: u32,
    /// Number of frames.
    pub frame_count: u32,
    /// Box of all skinned vertices over all frames of the clip.
    pub bounds: Aabb,
    /// The clip was baked in place: its root's horizontal motion and yaw were
    /// removed from the pose and stored in [`BakedModel::root_motion`].
    pub root_motion: bool,
    /// Skinned-vertex error of the bake measured for this clip.
    pub error: ClipError,
}

/// The error of one baked clip against the CPU reference, measured by the
/// baker on skinned vertex positions (docs/BAKE_ERROR.md). All values are
/// relative to [`BakedModel::bounding_radius`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClipError {
    /// Worst error at the baked frame times.
    pub at_frames: f32,
    /// Worst error between baked frames (frame interpolation as the shader
    /// does it), measured at every interval's midpoint and at the source's
    /// key times that fall between frames.
    pub between_frames: f32,
    /// The bound the clip was baked for (`--max-error`); 0 if unknown.
    pub max_error: f32,
}

/// Root motion of one frame: where the root has moved since the clip's first
/// frame, in the clip-start frame of model space. The transform is
/// `T(translation) · R_y(yaw)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RootMotionKey {
    /// Horizontal displacement since frame 0 of the clip (y is 0).
    pub translation: [f32; 3],
    /// Rotation about +y since frame 0 of the clip, radians, continuous
    /// (not wrapped to ±π).
    pub yaw: f32,
}

/// A named event at a time of a clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipEvent {
    /// Clip index.
    pub clip: u32,
    /// Clip time in seconds, in `[0, duration]`.
    pub time: f32,
    /// Event name.
    pub name: String,
    /// Free-form payload (JSON text, empty when none).
    pub data: String,
}

impl ClipInfo {
    /// Baked frames and weight at clip time `time` (clamped to the clip).
    pub fn frames_at(&self, time: f32) -> FramePair {
        self.frame_map().frames_at(time)
    }

    /// The precomputed time-to-frame mapping.
    pub fn frame_map(&self) -> FrameMap {
        FrameMap::new(self.first_frame, self.frame_count, self.duration)
    }
}

/// Texel storage precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelFormat {
    /// `Rgba32Float`, 16 bytes a texel.
    F32 = 0,
    /// `Rgba16Float`, 8 bytes a texel.
    F16 = 1,
}

impl TexelFormat {
    /// Bytes per texel.
    pub fn texel_size(self) -> usize {
        match self {
            Self::F32 => 16,
            Self::F16 => 8,
        }
    }

    /// From the file's code.
    pub fn from_code(code: u32) -> Option<Self> {
        match code {
            0 => Some(Self::F32),
            1 => Some(Self::F16),
            _ => None,
        }
    }
}

/// Texels of the bone texture, tightly packed in linear order.
#[derive(Clone, Debug, PartialEq)]
pub enum Texels {
    /// 32-bit float RGBA.
    F32(Vec<[f32; 4]>),
    /// 16-bit float RGBA.
    F16(Vec<[half::f16; 4]>),
}

impl Texels {
    /// Number of texels.
    pub fn len(&self) -> usize {
        match self {
            Self::F32(v) => v.len(),
            Self::F16(v) => v.len(),
        }
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Storage format.
    pub fn format(&self) -> TexelFormat {
        match self {
            Self::F32(_) => TexelFormat::F32,
            Self::F16(_) => TexelFormat::F16,
        }
    }

    /// Texel `i` as f32.
    #[inline]
    pub fn get(&self, i: usize) -> Vec4 {
        match self {
            Self::F32(v) => Vec4::from_array(v[i]),
            Self::F16(v) => Vec4::from_array(v[i].map(half::f16::to_f32)),
        }
    }

    /// Raw bytes, in file and GPU upload order.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::F32(v) => bytemuck::cast_slice(v),
            Self::F16(v) => bytemuck::cast_slice(v),
        }
    }
}

/// The bone-matrix texture: a `texture_2d_array` of `width²` layers.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneTexture {
    /// Layer side `W`.
    pub width: u32,
    /// Number of layers.
    pub layers: u32,
    /// The texels, `frames × bones × 3` of them.
    pub texels: Texels,
}

impl BoneTexture {
    /// Layout (W and layers).
    pub fn layout(&self) -> TextureLayout {
        TextureLayout {
            width: self.width,
            layers: self.layers,
        }
    }

    /// Bytes the texels take on the GPU, counting the unused tail of the last
    /// layer.
    pub fn gpu_bytes(&self) -> u64 {
        self.layout().capacity() * self.texels.format().texel_size() as u64
    }
}

/// A vertex of a baked mesh (72 bytes; the GPU vertex layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BakedVertex {
    /// Bind-pose model-space position.
    pub position: [f32; 3],
    /// Bind-pose model-space normal.
    pub normal: [f32; 3],
    /// First texture coordinates.
    pub uv: [f32; 2],
    /// Palette indices of up to 4 influences.
    pub joints: [u16; 4],
    /// Weights of those influences, summing to 1.
    pub weights: [f32; 4],
    /// Its morph deltas: `[first, count]` in [`crate::morph::Morphs::deltas`]
    /// (`[0, 0]` where no target moves it).
    pub morph: [u32; 2],
    /// Bind-pose tangent, snorm16 ([`pack_tangent`]): unit xyz and the
    /// bitangent's sign in w (glTF `TANGENT`). All zero: none (the shader
    /// then derives a frame from screen-space derivatives).
    pub tangent: [i16; 4],
}

/// A tangent as [`BakedVertex::tangent`] stores it: xyz normalised, w ±1
/// (its sign; +1 for 0); a zero-length or non-finite xyz packs as all zero,
/// "no tangent".
pub fn pack_tangent(t: glam::Vec4) -> [i16; 4] {
    let xyz = t.truncate();
    let len = xyz.length();
    if !(len.is_finite() && len > 1e-6 && t.w.is_finite()) {
        return [0; 4];
    }
    let n = xyz / len;
    let q = |x: f32| (x.clamp(-1.0, 1.0) * i16::MAX as f32).round() as i16;
    let w = if t.w < 0.0 { -1.0 } else { 1.0 };
    [q(n.x), q(n.y), q(n.z), q(w)]
}

/// The tangent [`pack_tangent`] stored, as the GPU's `Snorm16x4` reads it
/// (zero: none).
pub fn unpack_tangent(t: [i16; 4]) -> glam::Vec4 {
    glam::Vec4::from(t.map(|x| (x as f32 / i16::MAX as f32).max(-1.0)))
}

/// Submesh flag: normals were generated by the baker (the source had none);
/// the renderer shades such submeshes flat, as glTF requires.
pub const SUBMESH_GENERATED_NORMALS: u32 = 1;

/// A draw range of one LOD with one material: one source glTF primitive.
#[derive(Clone, Debug, PartialEq)]
pub struct Submesh {
    /// Material index, if any (the renderer uses a default white material).
    pub material: Option<u32>,
    /// `SUBMESH_*` flags.
    pub flags: u32,
    /// Source glTF node.
    pub source_node: u32,
    /// Source glTF mesh.
    pub source_mesh: u32,
    /// Source primitive index within the mesh.
    pub source_primitive: u32,
    /// First vertex in the LOD's vertex array.
    pub base_vertex: u32,
    /// Vertex count.
    pub vertex_count: u32,
    /// First index in the LOD's index array.
    pub first_index: u32,
    /// Index count (a multiple of 3); indices are relative to `base_vertex`.
    pub index_count: u32,
}

/// One level of detail: vertices, indices and submeshes.
#[derive(Clone, Debug, PartialEq)]
pub struct Lod {
    /// Smallest projected screen-height fraction at which this LOD is used
    /// (LOD 0 uses 0 = always).
    pub screen_size: f32,
    /// Vertices (source order per submesh).
    pub vertices: Vec<BakedVertex>,
    /// Triangle-list indices, relative to each submesh's `base_vertex`.
    pub indices: Vec<u32>,
    /// Submeshes.
    pub submeshes: Vec<Submesh>,
}

/// A baked model, ready for upload. See the module docs for its validity rules.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedModel {
    /// Model name.
    pub name: String,
    /// Source file name.
    pub source: String,
    /// Frames per second the clips were baked at.
    pub fps: f32,
    /// Largest skinned-vertex error of the baked texture vs the CPU reference,
    /// relative to [`Self::bounding_radius`], measured at bake time.
    pub bake_error: f32,
    /// Palette.
    pub bones: Vec<Bone>,
    /// Clips in source file order.
    pub clips: Vec<ClipInfo>,
    /// Bone matrices of every frame.
    pub texture: BoneTexture,
    /// Box of every vertex over every frame (rest pose included).
    pub bounds: Aabb,
    /// Half the diagonal of [`Self::bounds`]; the unit of error tolerances.
    pub bounding_radius: f32,
    /// Per-frame boxes, one per global frame.
    pub frame_bounds: Vec<Aabb>,
    /// LODs, finest first.
    pub lods: Vec<Lod>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Images referenced by materials, mip chains in their codecs.
    pub images: Vec<Image>,
    /// Root motion per global frame (empty when no clip has root motion;
    /// zero for frames of clips without it).
    pub root_motion: Vec<RootMotionKey>,
    /// Events, sorted by clip then time.
    pub events: Vec<ClipEvent>,
    /// Morph targets: slots, weights per frame, sparse deltas (empty for a
    /// model without).
    pub morphs: crate::morph::Morphs,
    /// The animated impostor at the far end of the LOD chain, if baked.
    pub impostor: Option<crate::impostor::ImpostorAtlas>,
    /// Where the bake came from (inputs, options, baker), if recorded.
    pub provenance: Option<crate::provenance::Provenance>,
}

impl BakedModel {
    /// Palette size.
    pub fn bone_count(&self) -> u32 {
        self.bones.len() as u32
    }

    /// Surface area of the finest LOD in the bind pose per material, and
    /// last that of the submeshes without one (`materials.len() + 1`
    /// entries).
    pub fn area_by_material(&self) -> Vec<f32> {
        let lod = &self.lods[0];
        let mut areas = vec![0.0f32; self.materials.len() + 1];
        for s in &lod.submeshes {
            let at = s.material.map_or(self.materials.len(), |m| m as usize);
            let indices = &lod.indices[s.first_index as usize..][..s.index_count as usize];
            for tri in indices.chunks_exact(3) {
                let p = |i: u32| Vec3::from(lod.vertices[(s.base_vertex + i) as usize].position);
                let (a, b, c) = (p(tri[0]), p(tri[1]), p(tri[2]));
                areas[at.min(self.materials.len())] += 0.5 * (b - a).cross(c - a).length();
            }
        }
        areas
    }

    /// The level of the LOD chain the impostor is at (after every mesh
    /// LOD), if the model has one that is ever drawn (a positive
    /// `screen_size`).
    pub fn impostor_lod(&self) -> Option<usize> {
        self.impostor
            .as_ref()
            .filter(|i| i.screen_size > 0.0)
            .map(|_| self.lods.len())
    }

    /// The whole LOD chain's thresholds, finest first: per level the
    /// smallest projected size at which it is drawn (fraction of the screen
    /// height). The mesh LODs' [`Lod::screen_size`]s, then, with an
    /// impostor ([`Self::impostor_lod`]), 0 for it, every mesh threshold
    /// raised to at least the impostor's (so the chain stays
    /// non-increasing and the last mesh LOD ends where the impostor
    /// begins).
    pub fn lod_sizes(&self) -> Vec<f32> {
        let floor = match self.impostor_lod() {
            Some(_) => self.impostor.as_ref().map_or(0.0, |i| i.screen_size),
            None => 0.0,
        };
        let mut sizes: Vec<f32> = self.lods.iter().map(|l| l.screen_size.max(floor)).collect();
        if self.impostor_lod().is_some() {
            sizes.push(0.0);
        }
        sizes
    }

    /// Frames in the global frame table.
    pub fn frame_count(&self) -> u32 {
        let per_frame = self.bones.len() * TEXELS_PER_MATRIX as usize;
        self.texture
            .texels
            .len()
            .checked_div(per_frame)
            .unwrap_or(0) as u32
    }

    /// Clip index by exact name.
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name == name)
    }

    /// Baked 3x4 matrix of `bone` at global `frame`.
    ///
    /// # Panics
    /// If `bone` or `frame` is out of range.
    #[inline]
    pub fn palette_rows(&self, bone: u32, frame: u32) -> Rows3x4 {
        let base = texel_index(frame, bone, 0, self.bone_count()) as usize;
        [
            self.texture.texels.get(base),
            self.texture.texels.get(base + 1),
            self.texture.texels.get(base + 2),
        ]
    }

    /// Checks the validity rules of the module docs.
    pub fn validate(&self) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        if let Some(p) = &self.provenance {
            p.validate().map_err(FormatError::Invalid)?;
        }
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
        // Rule 3 first: the frame count derives from the texel count.
        let per_frame = bones as u64 * TEXELS_PER_MATRIX as u64;
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
        if self.frame_bounds.len() != frames as usize {
            return bad(format!(
                "{} frame bounds for {frames} frames",
                self.frame_bounds.len()
            ));
        }
        if let Some(f) = self.frame_bounds.iter().position(|b| !aabb_ok(b)) {
            return bad(format!("bounds of frame {f} are invalid"));
        }
        self.validate_root_motion_and_events(frames)?;
        if let Some(atlas) = &self.impostor {
            atlas
                .check(self.clips.len())
                .map_err(FormatError::Invalid)?;
        }
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
        self.morphs.validate(frames, &self.lods)?;
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

    /// Location of a bone-matrix row in the texture (for diagnostics).
    pub fn texel_location(&self, bone: u32, frame: u32, row: u32) -> crate::layout::TexelAddress {
        texel_address(
            texel_index(frame, bone, row, self.bone_count()),
            self.texture.width,
        )
    }
}

fn aabb_ok(b: &Aabb) -> bool {
    b.min.is_finite() && b.max.is_finite() && b.min.cmple(b.max).all()
}

/// Model-space box of `points` (empty if none).
pub fn aabb_of(points: impl IntoIterator<Item = Vec3>) -> Aabb {
    let mut b = Aabb::EMPTY;
    for p in points {
        b.add_point(p);
    }
    b
}
