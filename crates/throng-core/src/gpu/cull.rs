//! What the GPU-driven path's cull pass and light fit read and write: the
//! crowd's clip and model tables ([`GpuClip`], [`GpuModelInfo`]), a view
//! ([`CullView`]), the indirect draws it fills ([`DrawSpec`]), the drawn
//! instances' bounds ([`DRAWN_WORDS`]) and the light fitted to them
//! ([`LightFitParams`], [`LightFit`]).

use bytemuck::{Pod, Zeroable};

use crate::limits::MAX_LOOK_CLASSES;

/// One clip as the cull pass reads it (48 bytes), mirrored by WGSL's
/// `GpuClip`: its [`crate::layout::FrameMap`], its bounding sphere and
/// the half extents of the box the sphere bounds (the clip's bounds over
/// every baked pose, centred on the sphere's centre).
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
    /// Half extents of the clip's bounding box (w unused), model space,
    /// about the sphere's centre: occlusion culling's tighter bound.
    pub half_extent: [f32; 4],
}

/// One model of a crowd as the cull pass reads it (144 bytes), mirrored by
/// WGSL's `GpuModelInfo`.
///
/// Its draw groups: per level of its LOD chain, steady then fading, one
/// group per look class — class 0 for instances drawn with every submesh
/// (the hidden ones moved out of view), class `c ≥ 1` for instances whose
/// hidden mask is `hidden_masks[c − 1]`, drawn without those submeshes
/// ([`Self::group`], [`Self::class_of`]). The impostor draws every submesh
/// in one quad: its groups are class 0's only.
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
    /// Its first draw group ([`Self::group`]).
    pub group_base: u32,
    /// The level of its LOD chain the impostor is at, or [`NO_IMPOSTOR`].
    pub impostor_lod: u32,
    /// The projected size below which the impostor replaces the meshes
    /// (the centre of the cross-fade band).
    pub impostor_size: f32,
    /// The mesh LOD the impostor cross-fades with: the one drawn just above
    /// the band.
    pub impostor_mesh_lod: u32,
    /// Half extents of the rest pose's bounding box (w unused), about
    /// [`Self::rest_sphere`]'s centre.
    pub rest_half_extent: [f32; 4],
    /// Hidden masks with draw groups of their own: the first
    /// `look_classes` of [`Self::hidden_masks`] (at most
    /// [`MAX_LOOK_CLASSES`]).
    pub look_classes: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// The hidden masks of look classes 1, 2, …, each non-zero and each
    /// once.
    pub hidden_masks: [u32; MAX_LOOK_CLASSES as usize],
}

impl GpuModelInfo {
    /// The look class of an instance with hidden mask `hidden`: 1 + the
    /// mask's place in [`Self::hidden_masks`], or 0 where it has none.
    /// WGSL's `look_class` in `cull.wgsl` is its twin.
    pub fn class_of(&self, hidden: u32) -> u32 {
        let n = self.look_classes.min(MAX_LOOK_CLASSES) as usize;
        self.hidden_masks[..n]
            .iter()
            .position(|&m| m == hidden)
            .map_or(0, |i| i as u32 + 1)
    }

    /// Look classes, class 0 included.
    pub fn classes(&self) -> u32 {
        1 + self.look_classes.min(MAX_LOOK_CLASSES)
    }

    /// The draw group of level `lod` of its LOD chain, `fading` or not,
    /// look class `class`: `group_base + (2·lod + fading)·classes + class`.
    /// WGSL's `draw_group` in `cull.wgsl` is its twin.
    pub fn group(&self, lod: u32, fading: bool, class: u32) -> u32 {
        self.group_base + (2 * lod + fading as u32) * self.classes() + class
    }

    /// Its draw groups, all levels and classes.
    pub fn group_count(&self) -> u32 {
        2 * self.lod_count * self.classes()
    }
}

/// [`GpuModelInfo::impostor_lod`] of a model without an impostor.
pub const NO_IMPOSTOR: u32 = u32::MAX;

/// What one cull dispatch sees (240 bytes), mirrored by WGSL's `CullView`.
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
    /// The view's `clip_from_world` (column-major; depth in `[0, 1]`,
    /// reversed with [`CullView::DEPTH_REVERSED`]): the occlusion test
    /// projects each instance's box with it.
    pub clip_from_world: [[f32; 4]; 4],
    /// The depth pyramid the late phase tests against: width and height of
    /// its level 0, its levels, and one unused word.
    pub pyramid: [u32; 4],
    /// With [`CullView::PREVIOUS`], the crowd clock one frame before (low
    /// and high word), then two unused words.
    pub previous: [u32; 4],
}

impl CullView {
    /// Flag: test the frustum.
    pub const CULL: u32 = 1;
    /// Flag: select LODs by projected size.
    pub const LOD: u32 = 2;
    /// Flag: tint records by LOD.
    pub const LOD_TINTS: u32 = 4;
    /// Flag: the early phase of two-phase occlusion culling — draw only the
    /// instances in view that were visible last frame.
    pub const EARLY: u32 = 8;
    /// Flag: the late phase — test every instance in view against the depth
    /// pyramid of the early phase, keep the result as next frame's
    /// visibility, and draw those visible now that the early phase did not.
    pub const LATE: u32 = 16;
    /// Flag: the view's depth is reversed (near 1, far 0).
    pub const DEPTH_REVERSED: u32 = 32;
    /// Flag: beside each record, write where its instance was one frame
    /// before ([`crate::gpu::PreviousRecord`]), for a motion-vector prepass.
    pub const PREVIOUS: u32 = 64;
}

/// The bit of an instance's per-view LOD state word that says it was
/// visible (drawn, not occluded) the last time the late phase tested it;
/// the LOD is in the bits below.
pub const VISIBLE_BIT: u32 = 1 << 31;

/// What the depth pyramid's reduction reads (16 bytes), mirrored by WGSL's
/// `PyramidParams` in `throng-render/src/occlusion/pyramid_reduce.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct PyramidParams {
    /// 1 if the depth buffer is reversed (near 1, far 0), else 0.
    pub reversed: u32,
    /// The level a downsample reads (the one below the level it writes).
    pub source_level: u32,
    /// Level 0's width and height.
    pub size0: [u32; 2],
}

/// One indirect draw the cull pass fills (16 bytes), mirrored by WGSL's
/// `DrawSpec`: which group's instances it draws, and of which submesh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DrawSpec {
    /// Draw group (model, LOD, fading, look class: [`GpuModelInfo::group`]).
    pub group: u32,
    /// Indices of the submesh.
    pub index_count: u32,
    /// First index of the submesh.
    pub first_index: u32,
    /// Base vertex of the submesh.
    pub base_vertex: i32,
}

/// Words at the start of a cull pass's counter buffer, before the
/// per-group counts: the bounds of the instances in view as six
/// order-preserving words (min x, y, z, max x, y, z), the count of
/// instances in view, the count of draw groups (written by the CPU), the
/// count of instances the phase found occluded, the count it drew, and two
/// unused words. Read back together with the counts. The early phase of
/// occlusion culling fills the bounds and the count in view (what the light
/// is fitted to, the same with occlusion on or off); the late phase only
/// its occluded and drawn counts.
pub const DRAWN_WORDS: u32 = 12;

/// [`DRAWN_WORDS`]' word that counts the instances in view.
pub const IN_VIEW_WORD: u32 = 6;
/// [`DRAWN_WORDS`]' word that holds the number of draw groups.
pub const GROUPS_WORD: u32 = 7;
/// [`DRAWN_WORDS`]' word that counts the instances found occluded.
pub const OCCLUDED_WORD: u32 = 8;
/// [`DRAWN_WORDS`]' word that counts the instances a phase drew.
pub const PLACED_WORD: u32 = 9;

/// What the GPU-driven path's light fit reads (32 bytes), mirrored by WGSL's
/// `LightFitParams` in `shadow/light_fit.wgsl`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_classes_number_groups_after_every_level_and_fading() {
        let mut info = GpuModelInfo {
            group_base: 10,
            lod_count: 3,
            look_classes: 2,
            ..Default::default()
        };
        info.hidden_masks[..2].copy_from_slice(&[0b10, 0b01]);
        assert_eq!(info.class_of(0b10), 1);
        assert_eq!(info.class_of(0b01), 2);
        assert_eq!(info.class_of(0b11), 0, "a mask without a class");
        assert_eq!(info.class_of(0), 0);
        assert_eq!(info.classes(), 3);
        assert_eq!(info.group_count(), 18);
        // Every (level, fading, class) its own group, all within the model's.
        let mut groups: Vec<u32> = (0..3)
            .flat_map(|lod| [false, true].map(|f| (lod, f)))
            .flat_map(|(lod, f)| (0..3).map(move |c| info.group(lod, f, c)))
            .collect();
        groups.sort_unstable();
        assert_eq!(groups, (10..28).collect::<Vec<_>>());
        // A model without classes keeps the layout it had: 2·lod + fading.
        let plain = GpuModelInfo {
            group_base: 4,
            lod_count: 2,
            ..Default::default()
        };
        assert_eq!(plain.group(1, true, 0), 4 + 3);
    }
}
