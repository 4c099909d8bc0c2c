//! What the GPU-driven path's cull pass and light fit read and write: the
//! crowd's clip and model tables ([`GpuClip`], [`GpuModelInfo`]), a view
//! ([`CullView`]), the indirect draws it fills ([`DrawSpec`]), the drawn
//! instances' bounds ([`DRAWN_WORDS`]) and the light fitted to them
//! ([`LightFitParams`], [`LightFit`]).

use bytemuck::{Pod, Zeroable};

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
