//! A crowd's indirect draws planned: every (model, LOD, fading, submesh)
//! as a [`DrawSpec`] for the cull and a [`Planned`] draw that becomes a
//! draw item of whichever list (camera, late phase, light) culled it.

use throng_core::gpu::DrawSpec;
use throng_core::material::AlphaMode;
use throng_crowd::crowd::{Crowd, GpuTables};

use crate::base::error::RenderError;
use crate::base::options::FrameStats;
use crate::draw::items::{DrawItem, find_model_by_key};
use crate::impostor::{QUAD_INDICES, QUAD_VERTICES};
use crate::model::gpu_model::GpuModel;
use crate::pose_cache::PoseCache;
use crate::program::pipeline::PipelineKey;

/// One planned indirect draw: what it draws and with which pipeline.
#[derive(Clone, Copy)]
pub(in crate::renderer) struct Planned {
    pub(in crate::renderer) key: PipelineKey,
    pub(in crate::renderer) model: usize,
    lod: usize,
    sub: usize,
    pub(in crate::renderer) blend: bool,
    /// Draws the model's impostor (`sub` unused).
    pub(super) impostor: bool,
    /// Vertices an instance shades.
    pub(super) vertices: u32,
}

impl Planned {
    /// Its indirect draw at `offset` of `args`, reading `records` (the bind
    /// group, and the buffer as instance-rate attributes: `target`); a mesh
    /// is drawn with pipeline `key`, from the pose cache
    /// where its LOD is cached (a fallback is counted in `stats`).
    pub(in crate::renderer) fn item(
        &self,
        model: &GpuModel,
        key: PipelineKey,
        (args, offset, records, buffer): (&wgpu::Buffer, u64, &wgpu::BindGroup, &wgpu::Buffer),
        poses: &PoseCache,
        stats: &mut FrameStats,
    ) -> Result<DrawItem, RenderError> {
        if let Some(imp) = model.impostor_at(self.lod).filter(|_| self.impostor) {
            let item = DrawItem::of_impostor(imp).with_indirect(args, offset, records.clone());
            return Ok(item.with_records(buffer));
        }
        let lod_index = self.lod.min(model.lods.len() - 1);
        let lod = &model.lods[lod_index];
        let sub = &lod.submeshes[self.sub];
        let item = DrawItem::of_submesh(key, model, lod, sub)
            .with_indirect(args, offset, records.clone())
            .with_records(buffer);
        let (item, fallback) = item.with_poses(poses, model, lod_index)?;
        stats.pose_fallback_draws += fallback as u32;
        Ok(item)
    }

    /// The pipeline key its shadow casters are drawn with (into the
    /// renderer's map or a caller's light view).
    pub(in crate::renderer) fn cast_key(&self) -> PipelineKey {
        PipelineKey::caster(self.key.cross_fade, false)
    }
}

/// Every (model, LOD, fading, submesh) of a crowd: the indirect draws'
/// specs and what each draws.
pub(in crate::renderer) fn plan(
    crowd: &Crowd,
    tables: &GpuTables,
    models: &[&GpuModel],
) -> Result<(Vec<DrawSpec>, Vec<Planned>), RenderError> {
    let mut specs = Vec::new();
    let mut planned = Vec::new();
    for (m, handle) in crowd.models().enumerate() {
        let (index, model) = find_model_by_key(models, handle)?;
        let info = &tables.models[m];
        for lod in 0..info.lod_count as usize {
            if model.impostor_at(lod).is_some() {
                for fading in [false, true] {
                    specs.push(DrawSpec {
                        group: info.group_base + 2 * lod as u32 + fading as u32,
                        index_count: QUAD_INDICES.len() as u32,
                        first_index: 0,
                        base_vertex: 0,
                    });
                    planned.push(Planned {
                        key: PipelineKey::IMPOSTOR,
                        model: index,
                        lod,
                        sub: 0,
                        blend: false,
                        impostor: true,
                        vertices: QUAD_VERTICES,
                    });
                }
                continue;
            }
            let gl = &model.lods[lod.min(model.lods.len() - 1)];
            for fading in [false, true] {
                for (s, sub) in gl.submeshes.iter().enumerate() {
                    let material = &model.materials[sub.material];
                    specs.push(DrawSpec {
                        group: info.group_base + 2 * lod as u32 + fading as u32,
                        index_count: sub.index_count,
                        first_index: sub.first_index,
                        base_vertex: sub.base_vertex,
                    });
                    let blend = material.alpha_mode == AlphaMode::Blend;
                    planned.push(Planned {
                        key: PipelineKey {
                            flat: sub.flat,
                            double_sided: material.double_sided,
                            blend,
                            cross_fade: fading,
                            palettes: false,
                            pose_cache: false,
                        },
                        model: index,
                        lod,
                        sub: s,
                        blend,
                        impostor: false,
                        vertices: sub.vertex_count,
                    });
                }
            }
        }
    }
    Ok((specs, planned))
}
