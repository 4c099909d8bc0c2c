//! `#[repr(C)]` structs shared with WGSL. Each mirrors a WGSL struct field for
//! field; a CPU-only test in `throng-render` checks offsets and sizes against
//! naga's layout of the shaders.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec4};

use crate::layout::FramePair;
use crate::limits::INSTANCE_RECORD_SIZE;
use crate::variety::Look;

/// Which baked frames an instance shows: the current clip's two frames and
/// weight, and, during a cross-fade, the previous clip's and the fade weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameBlend {
    /// Current clip frames.
    pub current: FramePair,
    /// Previous clip frames (ignored when `fade >= 1`).
    pub previous: FramePair,
    /// Weight of the current clip, in `[0, 1]`; 1 means no fade.
    pub fade: f32,
}

impl FrameBlend {
    /// Shows `current` alone.
    pub fn single(current: FramePair) -> Self {
        Self {
            current,
            previous: current,
            fade: 1.0,
        }
    }
}

/// One visible instance for one frame: 96 bytes, mirrored by WGSL's
/// `InstanceRecord` in `shaders/instance_record.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct InstanceRecord {
    /// Top three rows of `world_from_model` (3x4 affine).
    pub world_from_model: [[f32; 4]; 3],
    /// Current clip: earlier global frame.
    pub frame0: u32,
    /// Current clip: later global frame.
    pub frame1: u32,
    /// Current clip: weight of `frame1`.
    pub t: f32,
    /// Previous clip: earlier global frame.
    pub prev0: u32,
    /// Previous clip: later global frame.
    pub prev1: u32,
    /// Previous clip: weight of `prev1`.
    pub prev_t: f32,
    /// Weight of the current clip; `>= 1` disables the previous-clip path.
    /// Plus twice the LOD cross-fade level, if any
    /// ([`Self::with_lod_dither`]).
    pub fade: f32,
    /// Tint, RGBA8 packed little-endian (`r | g << 8 | b << 16 | a << 24`),
    /// multiplied into the base colour.
    pub tint: u32,
    /// Its look: palette row and hidden submeshes ([`Look`]).
    pub look: Look,
    /// Keeps the record a multiple of 16 bytes (uniform array stride).
    pub pad: [u32; 2],
}

const _: () = assert!(std::mem::size_of::<InstanceRecord>() == INSTANCE_RECORD_SIZE);

impl InstanceRecord {
    /// Builds a record from a world matrix, frame blend and RGBA8 tint.
    #[inline]
    pub fn new(world_from_model: &Mat4, blend: &FrameBlend, tint: u32) -> Self {
        let t = world_from_model.transpose();
        Self::from_rows(&[t.x_axis, t.y_axis, t.z_axis], blend, tint)
    }

    /// Builds a record from the top three rows of a world matrix.
    #[inline]
    pub fn from_rows(rows: &[Vec4; 3], blend: &FrameBlend, tint: u32) -> Self {
        Self {
            world_from_model: [rows[0].to_array(), rows[1].to_array(), rows[2].to_array()],
            frame0: blend.current.frame0,
            frame1: blend.current.frame1,
            t: blend.current.t,
            prev0: blend.previous.frame0,
            prev1: blend.previous.frame1,
            prev_t: blend.previous.t,
            fade: blend.fade,
            tint,
            look: Look::DEFAULT,
            pad: [0; 2],
        }
    }

    /// This record with look `look`.
    #[inline]
    pub fn with_look(mut self, look: Look) -> Self {
        self.look = look;
        self
    }

    /// The frame blend this record encodes.
    pub fn blend(&self) -> FrameBlend {
        FrameBlend {
            current: FramePair {
                frame0: self.frame0,
                frame1: self.frame1,
                t: self.t,
            },
            previous: FramePair {
                frame0: self.prev0,
                frame1: self.prev1,
                t: self.prev_t,
            },
            fade: self.fade,
        }
    }

    /// This record drawn as one half of a LOD cross-fade at `level` (1 to
    /// [`LOD_DITHER_LEVELS`] − 1): the mesh keeps the pixels whose dither
    /// rank is below `level`, the impostor the others. Stored in `fade` as
    /// `fade + 2·level` (a clip fade is at most 1, so the two never mix);
    /// [`Self::clip_fade`] and [`Self::lod_dither`] read them back.
    pub fn with_lod_dither(mut self, level: u32) -> Self {
        self.fade += 2.0 * level as f32;
        self
    }

    /// The LOD cross-fade level (0: none). See [`Self::with_lod_dither`].
    pub fn lod_dither(&self) -> u32 {
        (self.fade * 0.5).floor().max(0.0) as u32
    }

    /// The clip cross-fade's weight of the current clip.
    pub fn clip_fade(&self) -> f32 {
        self.fade - 2.0 * self.lod_dither() as f32
    }

    /// The world matrix.
    pub fn world_from_model(&self) -> Mat4 {
        let r = &self.world_from_model;
        Mat4::from_cols(
            Vec4::from(r[0]),
            Vec4::from(r[1]),
            Vec4::from(r[2]),
            Vec4::W,
        )
        .transpose()
    }
}

/// Packs linear RGBA in `[0, 1]` into the record's RGBA8 tint.
pub fn pack_tint(rgba: Vec4) -> u32 {
    let c = (rgba.clamp(Vec4::ZERO, Vec4::ONE) * 255.0).round();
    (c.x as u32) | (c.y as u32) << 8 | (c.z as u32) << 16 | (c.w as u32) << 24
}

/// Per-model constants for the shaders, mirrored by WGSL's `ModelParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct ModelParams {
    /// Palette size.
    pub bone_count: u32,
    /// Frames in the global frame table (frame indices are clamped below it).
    pub frame_count: u32,
    /// Layer side W of the bone texture.
    pub texture_width: u32,
    /// Layers of the bone texture.
    pub texture_layers: u32,
    /// Morph slots (0: the model has no morph targets).
    pub morph_slots: u32,
    /// Texels of one frame's morph weights (`⌈slots / 4⌉`).
    pub morph_frame_texels: u32,
    /// Texel index of the first morph delta in the morph texture.
    pub morph_delta_base: u32,
    /// Morph deltas in the morph texture (vertex ranges are clamped to it).
    pub morph_delta_count: u32,
}

/// One clip track of a [`GpuInstance`]: a [`crate::clock::Track`] split
/// into 32-bit words, and the clip it plays (20 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuTrack {
    /// Phase at the anchor, 32.32 fixed-point periods: low word (fraction).
    pub phase_lo: u32,
    /// Phase at the anchor: high word (whole periods).
    pub phase_hi: u32,
    /// Rate, signed 2⁻⁶⁴ periods per tick: low word.
    pub rate_lo: u32,
    /// Rate: high word (two's complement).
    pub rate_hi: u32,
    /// Clip index in the low 16 bits ([`GpuTrack::NO_CLIP`]: none), wrap
    /// mode code ([`crate::clock::WrapMode::code`]) in the high 16.
    pub clip: u32,
}

impl GpuTrack {
    /// The clip field's "no clip" (rest pose, or no previous clip).
    pub const NO_CLIP: u32 = 0xffff;

    /// The words of `track` playing `clip` (`None`: no clip) with `wrap`.
    pub fn new(
        track: &crate::clock::Track,
        clip: Option<u16>,
        wrap: crate::clock::WrapMode,
    ) -> Self {
        Self {
            phase_lo: track.phase as u32,
            phase_hi: (track.phase >> 32) as u32,
            rate_lo: track.rate as u64 as u32,
            rate_hi: ((track.rate as u64) >> 32) as u32,
            clip: clip.map_or(Self::NO_CLIP, u32::from) | wrap.code() << 16,
        }
    }
}

/// One instance's animation and look as the GPU-driven path keeps it on
/// the GPU (80 bytes), mirrored by WGSL's `GpuInstance` in
/// `shaders/gpu_instance.wgsl`: both tracks of a cross-fade at one anchor
/// tick, the fade as a line in time, the tint and the model. Its transform
/// is a separate stream ([`GpuTransform`]), so that moving an instance, the
/// most frequent change, uploads 48 bytes and nothing else. The cull pass
/// derives the frame's [`InstanceRecord`] from both and the clock, so an
/// idle instance is never uploaded again.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuInstance {
    /// Anchor tick, low word.
    pub anchor_lo: u32,
    /// Anchor tick, high word.
    pub anchor_hi: u32,
    /// The current clip.
    pub current: GpuTrack,
    /// The clip faded out of.
    pub previous: GpuTrack,
    /// Fade weight of the current clip at the anchor.
    pub fade0: f32,
    /// Growth of the fade weight per second (0: no fade running).
    pub fade_rate: f32,
    /// Tint, RGBA8 (as [`InstanceRecord::tint`]).
    pub tint: u32,
    /// Model index within the crowd, with [`GpuInstance::LAYERED`] set for
    /// an instance with animation layers (the cull pass leaves those to the
    /// CPU's draw lists and the palette pre-pass).
    pub model: u32,
    /// Its look (as [`InstanceRecord::look`]).
    pub look: Look,
    /// Keeps the struct a multiple of 16 bytes.
    pub pad: [u32; 2],
}

impl GpuInstance {
    /// The bit of [`GpuInstance::model`] that marks an instance with
    /// animation layers.
    pub const LAYERED: u32 = 1 << 31;
}

/// One instance's transform on the GPU-driven path (48 bytes): the top
/// three rows of `world_from_model`, mirrored by WGSL's `GpuTransform` in
/// `shaders/gpu_instance.wgsl`. The layout of the crowd's own transform
/// rows, so a run of them uploads as one copy.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuTransform {
    /// Top three rows of `world_from_model`.
    pub rows: [[f32; 4]; 3],
}

/// One clip as the cull pass reads it (32 bytes), mirrored by WGSL's
/// `GpuClip`: its [`crate::layout::FrameMap`] and its bounding sphere.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuClip {
    /// First global frame.
    pub first_frame: u32,
    /// Frames in the clip.
    pub frame_count: u32,
    /// Duration, seconds.
    pub duration: f32,
    /// `(n − 1) / D`, or 0 for a single-frame clip.
    pub frames_per_second: f32,
    /// Bounding sphere over the clip, model space (centre, radius).
    pub sphere: [f32; 4],
}

/// One model of a crowd as the cull pass reads it (48 bytes), mirrored by
/// WGSL's `GpuModelInfo`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuModelInfo {
    /// Bounding sphere of the rest pose, model space.
    pub rest_sphere: [f32; 4],
    /// Its first clip in the crowd's clip table.
    pub clip_base: u32,
    /// Its clips.
    pub clip_count: u32,
    /// Its first LOD screen size in the crowd's LOD table.
    pub lod_base: u32,
    /// Its LODs.
    pub lod_count: u32,
    /// Its first draw group: group `group_base + 2·lod + fading`.
    pub group_base: u32,
    /// The level of its LOD chain the impostor is at, or [`NO_IMPOSTOR`].
    pub impostor_lod: u32,
    /// The projected size below which the impostor replaces the meshes
    /// (the centre of the cross-fade band).
    pub impostor_size: f32,
    /// The mesh LOD the impostor cross-fades with: the one drawn just above
    /// the band.
    pub impostor_mesh_lod: u32,
}

/// [`GpuModelInfo::impostor_lod`] of a model without an impostor.
pub const NO_IMPOSTOR: u32 = u32::MAX;

/// Levels of the dithered cross-fade between a model's last mesh LOD and
/// its impostor (a 4 × 4 ordered-dither matrix ranks each pixel 0 to 15).
pub const LOD_DITHER_LEVELS: u32 = 16;

/// What one cull dispatch sees (144 bytes), mirrored by WGSL's `CullView`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CullView {
    /// Frustum planes (left, right, bottom, top, near, far), `n·x + d ≥ 0`
    /// inside.
    pub planes: [[f32; 4]; 6],
    /// Eye position (w unused).
    pub eye: [f32; 4],
    /// The crowd clock, low word.
    pub now_lo: u32,
    /// The crowd clock, high word.
    pub now_hi: u32,
    /// Instances in the crowd.
    pub instance_count: u32,
    /// [`CullView::CULL`], [`CullView::LOD`], [`CullView::LOD_TINTS`].
    pub flags: u32,
    /// `1 / tan(fov_y / 2)` for LOD selection.
    pub lod_scale: f32,
    /// Draw groups of the crowd.
    pub group_count: u32,
    /// Indirect draws of the crowd.
    pub draw_count: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

impl CullView {
    /// Flag: test the frustum.
    pub const CULL: u32 = 1;
    /// Flag: select LODs by projected size.
    pub const LOD: u32 = 2;
    /// Flag: tint records by LOD.
    pub const LOD_TINTS: u32 = 4;
}

/// One indirect draw the cull pass fills (16 bytes), mirrored by WGSL's
/// `DrawSpec`: which group's instances it draws, and of which submesh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DrawSpec {
    /// Draw group (model, LOD, fading).
    pub group: u32,
    /// Indices of the submesh.
    pub index_count: u32,
    /// First index of the submesh.
    pub first_index: u32,
    /// Base vertex of the submesh.
    pub base_vertex: i32,
}

/// One changed instance state of a crowd mirror's scattered upload (96
/// bytes), mirrored by WGSL's `StateUpdate` in `shaders/mirror.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct StateUpdate {
    /// Dense slot the state goes to.
    pub slot: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// The state.
    pub state: GpuInstance,
}

/// One changed transform of a crowd mirror's scattered upload (64 bytes),
/// mirrored by WGSL's `TransformUpdate` in `shaders/mirror.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct TransformUpdate {
    /// Dense slot the transform goes to.
    pub slot: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// The transform.
    pub transform: GpuTransform,
}

/// Parameters of a scattered upload (16 bytes), mirrored by WGSL's
/// `MirrorParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MirrorParams {
    /// State updates in the batch.
    pub state_count: u32,
    /// Transform updates in the batch.
    pub transform_count: u32,
    /// Instances in the mirror (slots at or past it are ignored).
    pub instance_count: u32,
    /// Motion updates in the batch.
    pub motion_count: u32,
}

/// Words at the start of a cull pass's counter buffer, before the
/// per-group counts: the drawn instances' bounds as six order-preserving
/// words (min x, y, z, max x, y, z), the count of drawn instances, and one
/// unused word. Read back together with the counts.
pub const DRAWN_WORDS: u32 = 8;

/// What the GPU-driven path's light fit reads (32 bytes), mirrored by WGSL's
/// `LightFitParams` in `shaders/light_fit.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LightFitParams {
    /// Direction towards the light (w unused; normalised on the GPU).
    pub toward_light: [f32; 4],
    /// Crowds whose camera-drawn boxes ([`DRAWN_WORDS`] words each) are the
    /// receivers.
    pub crowd_count: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
}

/// The GPU-driven path's light, fitted on the GPU to what the camera's cull
/// passes drew (176 bytes), mirrored by WGSL's `LightFit`: the light's
/// frustum planes (the [`CullView::planes`] of the shadow view) and its
/// `clip_from_world` (the matrix of the shadow uniforms).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LightFit {
    /// Frustum planes (left, right, bottom, top, near, far), `n·x + d ≥ 0`
    /// inside; planes that reject everything when nothing is visible.
    pub planes: [[f32; 4]; 6],
    /// Column-major orthographic `clip_from_world` of the light.
    pub light_clip_from_world: [[f32; 4]; 4],
    /// Instances the camera views drew (0: no light, nothing casts).
    pub visible: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
}

/// Texels along a row of an impostor's frame table (see [`ImpostorParams`]).
pub const IMPOSTOR_TABLE_WIDTH: u32 = 1024;

/// Per-model constants of an impostor's draw (32 bytes), mirrored by
/// WGSL's `ImpostorParams` in `shaders/impostor.wgsl`: the atlas's layout
/// (`crate::impostor::AtlasPlan`) and the size of its frame table.
///
/// The frame table is an `Rgba32Float` texture, [`IMPOSTOR_TABLE_WIDTH`]
/// texels a row, read by index: first one texel per global baked frame,
/// `(clip, capture position, 0, 0)` (the position is in captures: the
/// frame's clip time over the duration, times `frames`, so that the
/// shader interpolates it between an instance's two baked frames like the
/// pose), then one texel per clip, its framing sphere (model space centre
/// and radius), then one per atlas cell, the rectangle its silhouette
/// covers (`crate::impostor::ImpostorAtlas::cell_rects`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ImpostorParams {
    /// Views along each side of the hemi-octahedral lattice.
    pub views: u32,
    /// Captures per clip.
    pub frames: u32,
    /// Texels along a cell's side.
    pub cell: u32,
    /// Texels along a layer's side.
    pub layer_size: u32,
    /// Cells along a layer's row.
    pub cells_per_row: u32,
    /// Cells per layer.
    pub cells_per_layer: u32,
    /// Global baked frames (the table's frame texels; the clips' spheres
    /// follow).
    pub frame_count: u32,
    /// Clips.
    pub clip_count: u32,
    /// The model's metalness, its materials' mean weighted by surface
    /// area: without the surface image the atlas holds colour and normal
    /// only, and the impostor is shaded as one material.
    pub metallic: f32,
    /// Its roughness, likewise.
    pub roughness: f32,
    /// 1: the atlas has the surface image
    /// (`crate::impostor::ImpostorAtlas::surface`), which replaces the
    /// means per texel, and the table's per-material emission follows its
    /// cells (`crate::impostor::surface_emission`); 0: it has not.
    pub surface: u32,
    /// Materials (palette columns) the surface image's codes spread over
    /// (`crate::impostor::surface_id_code`).
    pub materials: u32,
    /// Its emission (factor × strength, linear RGB), likewise: without the
    /// surface image an emissive part glows over the whole impostor at its
    /// share of the surface.
    pub emissive: [f32; 3],
    /// Padding to 16 bytes.
    pub pad1: u32,
}

/// One animation layer of an instance as the palette pre-pass reads it
/// (48 bytes), mirrored by WGSL's `GpuLayer` in `shaders/palette.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuLayer {
    /// The layer clip's earlier frame.
    pub frame0: u32,
    /// Its later frame.
    pub frame1: u32,
    /// Weight of `frame1`.
    pub t: f32,
    /// The layer's weight in `[0, 1]`.
    pub weight: f32,
    /// The additive reference pose's earlier frame.
    pub ref0: u32,
    /// Its later frame.
    pub ref1: u32,
    /// Weight of `ref1`.
    pub ref_t: f32,
    /// [`GpuLayer::OVERRIDE`], [`GpuLayer::ADDITIVE`] or [`GpuLayer::WEIGHTS`].
    pub mode: u32,
    /// First entry of the layer's mask in the mask table, or
    /// [`GpuLayer::NO_MASK`].
    pub mask: u32,
    /// Padding.
    pub pad: [u32; 3],
}

impl GpuLayer {
    /// `mode` of an override layer.
    pub const OVERRIDE: u32 = 0;
    /// `mode` of an additive layer.
    pub const ADDITIVE: u32 = 1;
    /// `mode` of a weights layer (its mask a morph preset).
    pub const WEIGHTS: u32 = 2;
    /// `mask` of a layer on every bone.
    pub const NO_MASK: u32 = u32::MAX;
}

/// An instance's base pose (its clip cross-faded as on the plain path) and
/// the layers over it, for the palette pre-pass (192 bytes), mirrored by
/// WGSL's `GpuLayerSet`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuLayerSet {
    /// The base clip's earlier frame.
    pub frame0: u32,
    /// Its later frame.
    pub frame1: u32,
    /// Weight of `frame1`.
    pub t: f32,
    /// The faded-out clip's earlier frame.
    pub prev0: u32,
    /// Its later frame.
    pub prev1: u32,
    /// Weight of `prev1`.
    pub prev_t: f32,
    /// Weight of the base clip against the faded-out one (1: no fade).
    pub fade: f32,
    /// Layers in use, at most [`crate::layers::MAX_EXTRA_LAYERS`].
    pub layer_count: u32,
    /// First palette matrix the instance's palette is written to.
    pub palette: u32,
    /// Padding.
    pub pad: [u32; 3],
    /// The layers, bottom first.
    pub layers: [GpuLayer; crate::layers::MAX_EXTRA_LAYERS],
}

/// One bone of a model's skeleton table for the palette pre-pass (112
/// bytes), mirrored by WGSL's `GpuBone`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuBone {
    /// `inverse(inverse_bind)` as rows.
    pub bind: [[f32; 4]; 3],
    /// `inverse_bind` as rows.
    pub inverse_bind: [[f32; 4]; 3],
    /// Parent bone, or [`crate::layers::NO_PARENT`].
    pub parent: u32,
    /// The bone visited `i`-th (this entry being the `i`-th): parents first.
    pub ordered: u32,
    /// Padding.
    pub pad: [u32; 2],
}

/// Parameters of one palette pre-pass dispatch, mirrored by WGSL's
/// `PaletteParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct PaletteParams {
    /// Layer sets to evaluate.
    pub set_count: u32,
    /// The first of them in the layer-set buffer.
    pub first_set: u32,
    /// Padding.
    pub pad: [u32; 2],
}

/// Where one (model, LOD)'s pose cache sits, mirrored by WGSL's
/// `PoseCacheParams` (`shaders/pose_cache.wgsl`): pose `f` of the LOD
/// starts at cached vertex `f * vertex_count` ([`crate::pose_cache`]). The
/// fill (`shaders/pose_fill.wgsl`) reads the same parameters.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct PoseCacheParams {
    /// Vertices of the LOD (of each pose).
    pub vertex_count: u32,
    /// Poses cached: the model's global frame count (frame indices are
    /// clamped below it).
    pub frame_count: u32,
    /// Padding.
    pub pad: [u32; 2],
}

/// One instance's analytic motion on the GPU-driven path (112 bytes),
/// mirrored by WGSL's `GpuMotion` in `shaders/motion.wgsl` and evaluated
/// there and by [`crate::motion::motion_rows`] the same way: the instance's
/// transform at the anchor tick, a kind, and the kind's parameters. The
/// motion pass writes the instance's transform of the frame from it, so a
/// walking instance is never uploaded again until its motion changes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMotion {
    /// Top three rows of `world_from_model` at the anchor.
    pub anchor_rows: [[f32; 4]; 3],
    /// Anchor tick, low word.
    pub anchor_lo: u32,
    /// Anchor tick, high word.
    pub anchor_hi: u32,
    /// [`crate::motion::MotionKind`] code in the low 8 bits, a wrap mode
    /// code ([`crate::clock::WrapMode::code`]) in bits 8 to 15.
    pub kind: u32,
    /// Path: its first point in the crowd's point table. Root motion: the
    /// clip's first key in the crowd's root-key table. Simulated: its agent
    /// (the instance's stable slot).
    pub base: u32,
    /// A [`crate::clock::Track`] as four words (phase lo, hi, rate lo, hi):
    /// velocity: half the yaw, in turns; path: the distance along it; root
    /// motion: the clip's playback.
    pub track: [u32; 4],
    /// Velocity: (velocity x, y, z, yaw rate). Path: (length, turn
    /// distance, unused, unused). Root motion: (the motion of one whole
    /// loop: x, y, z; the clip's duration). Simulated: (the velocity it
    /// starts with: x, y, z; the clip's ground speed, 0 for none).
    pub a: [f32; 4],
    /// Path: (points, unused…). Root motion: (frames, half the yaw of one
    /// whole loop in 2⁻³² turns, frames per second as f32 bits, unused).
    /// Simulated: (the serial of its hand-over, unused…).
    pub b: [u32; 4],
}

/// What the motion pass reads (16 bytes), mirrored by WGSL's
/// `MotionParams` in `shaders/motion.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MotionParams {
    /// The crowd clock, low word.
    pub now_lo: u32,
    /// The crowd clock, high word.
    pub now_hi: u32,
    /// Instances in the crowd.
    pub instance_count: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// One changed motion of a crowd mirror's scattered upload (128 bytes),
/// mirrored by WGSL's `MotionUpdate` in `shaders/mirror.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MotionUpdate {
    /// Dense slot the motion goes to.
    pub slot: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// The motion.
    pub motion: GpuMotion,
}
