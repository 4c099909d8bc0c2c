//! What a GPU mirror of the crowd reads: each instance's state as a
//! [`GpuInstance`] (analytic tracks, fade, tint, model), its transform as a
//! [`GpuTransform`] (the crowd's own rows, borrowed, not copied) and the
//! crowd's model, clip and LOD tables, from which a cull pass on the GPU
//! derives the same draw list [`Crowd::build_draw_list`] builds on the CPU.
//! Which instances to re-read is the change log's business
//! ([`Crowd::changes`]).

use throng_core::gpu::{GpuClip, GpuInstance, GpuModelInfo, GpuTrack, GpuTransform, NO_IMPOSTOR};
use throng_core::limits::MAX_LOOK_CLASSES;

use super::Crowd;
use super::anim_state::Playback;

/// The crowd's tables for a GPU cull pass.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuTables {
    /// One per model, crowd order.
    pub models: Vec<GpuModelInfo>,
    /// Every model's clips, model after model.
    pub clips: Vec<GpuClip>,
    /// Every model's LOD screen sizes, model after model.
    pub lod_sizes: Vec<f32>,
    /// Draw groups: per model, per level of its LOD chain, steady then
    /// fading, one per look class ([`GpuModelInfo::group`]).
    pub group_count: u32,
}

impl Crowd {
    /// Dense slot `d`'s state for the GPU (`d < self.len()`).
    pub fn gpu_instance(&self, d: usize) -> GpuInstance {
        let a = &self.anims[d];
        let meta = self.metas[d];
        let track = |p: &Playback| GpuTrack::new(&p.track, p.is_some().then_some(p.clip), p.wrap);
        GpuInstance {
            anchor_lo: a.anchor as u32,
            anchor_hi: (a.anchor >> 32) as u32,
            current: track(&a.current),
            previous: track(&a.previous),
            fade0: a.fade0,
            fade_rate: a.fade_rate,
            tint: self.tints[d],
            model: meta.model as u32
                | if meta.layered {
                    GpuInstance::LAYERED
                } else {
                    0
                },
            look: self.looks[d],
            pad: [0; 2],
        }
    }

    /// Every instance's transform, in dense slot order: the crowd's own
    /// storage, so a run of slots uploads as one copy.
    pub fn gpu_transforms(&self) -> &[GpuTransform] {
        bytemuck::cast_slice(&self.rows)
    }

    /// The model, clip and LOD tables of the crowd's models, with each
    /// model's look classes and its draw groups
    /// ([`GpuModelInfo::group`]).
    pub fn gpu_tables(&self) -> GpuTables {
        let mut t = GpuTables::default();
        for m in &self.models {
            let masks = m.look_classes.masks();
            let mut hidden_masks = [0; MAX_LOOK_CLASSES as usize];
            hidden_masks[..masks.len()].copy_from_slice(masks);
            let info = GpuModelInfo {
                rest_sphere: m.rest_sphere.to_array(),
                clip_base: t.clips.len() as u32,
                clip_count: m.maps.len() as u32,
                lod_base: t.lod_sizes.len() as u32,
                lod_count: m.lod_sizes.len() as u32,
                group_base: t.group_count,
                impostor_lod: m.impostor.map_or(NO_IMPOSTOR, |i| i.lod),
                impostor_size: m.impostor.map_or(0.0, |i| i.size),
                impostor_mesh_lod: m.impostor.map_or(0, |i| i.mesh_lod),
                rest_half_extent: m.rest_half_extent.extend(0.0).to_array(),
                look_classes: masks.len() as u32,
                pad: [0; 3],
                hidden_masks,
            };
            t.group_count += info.group_count();
            t.models.push(info);
            t.clips
                .extend(
                    m.maps
                        .iter()
                        .zip(&m.spheres)
                        .zip(&m.half_extents)
                        .map(|((map, s), h)| GpuClip {
                            first_frame: map.first_frame,
                            frame_count: map.frame_count,
                            duration: map.duration,
                            frames_per_second: map.frames_per_second,
                            sphere: s.to_array(),
                            half_extent: h.extend(0.0).to_array(),
                        }),
                );
            t.lod_sizes.extend_from_slice(&m.lod_sizes);
        }
        t
    }
}
