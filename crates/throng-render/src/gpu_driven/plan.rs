//! A crowd's indirect draws planned ([`CrowdPlan`]): every (model, LOD,
//! fading, look class, submesh the class shows) as a [`DrawSpec`] for the
//! cull and a [`Planned`] draw that becomes a draw item of whichever list
//! (camera, late phase, light) culled it. A look class (`throng_crowd`'s
//! `look_classes`) leaves out the submeshes its hidden mask hides; class 0
//! draws them all.

use throng_core::gpu::DrawSpec;
use throng_core::material::AlphaMode;
use throng_core::variety::submesh_bits;
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
pub(crate) struct Planned {
    pub(crate) key: PipelineKey,
    pub(crate) model: usize,
    lod: usize,
    sub: usize,
    pub(crate) blend: bool,
    /// Draws the model's impostor (`sub` unused).
    pub(crate) impostor: bool,
    /// Vertices an instance shades.
    pub(crate) vertices: u32,
}

impl Planned {
    /// Its indirect draw at `offset` of `args`, reading `records` (the bind
    /// group, and the buffer as instance-rate attributes: `target`); a mesh
    /// is drawn with pipeline `key`, from the pose cache
    /// where its LOD is cached (a fallback is counted in `stats`).
    pub(crate) fn item(
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
    pub(crate) fn cast_key(&self) -> PipelineKey {
        PipelineKey::caster(self.key.cross_fade, false)
    }
}

/// A crowd's indirect draws: what the cull fills and what each draws.
#[derive(Default)]
pub(crate) struct CrowdPlan {
    /// Per indirect draw, its group and submesh, for the cull.
    pub(crate) specs: Vec<DrawSpec>,
    /// Per indirect draw, what it draws.
    pub(crate) planned: Vec<Planned>,
    /// Per draw group of a look class that hides something: the group and
    /// the submeshes its draws leave out (counted per instance drawn,
    /// `FrameStats::parts_culled`).
    pub(crate) hidden: Vec<(u32, u32)>,
}

impl CrowdPlan {
    /// No draws: an empty crowd.
    pub(crate) fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }
}

/// Every (model, LOD, fading, look class, submesh shown) of a crowd; with
/// `cull_hidden` false, every submesh in every class (the hidden ones then
/// moved out of view in the vertex stage).
pub(crate) fn plan(
    crowd: &Crowd,
    tables: &GpuTables,
    models: &[&GpuModel],
    cull_hidden: bool,
) -> Result<CrowdPlan, RenderError> {
    let mut out = CrowdPlan::default();
    for (m, handle) in crowd.models().enumerate() {
        let (index, model) = find_model_by_key(models, handle)?;
        let info = &tables.models[m];
        for lod in 0..info.lod_count as usize {
            if model.impostor_at(lod).is_some() {
                for fading in [false, true] {
                    out.specs.push(DrawSpec {
                        group: info.group(lod as u32, fading, 0),
                        index_count: QUAD_INDICES.len() as u32,
                        first_index: 0,
                        base_vertex: 0,
                    });
                    out.planned.push(Planned {
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
            let mesh_lod = lod.min(model.lods.len() - 1);
            let bits = submesh_bits(handle.model(), mesh_lod);
            for fading in [false, true] {
                for class in 0..info.classes() {
                    let hides = match class {
                        0 => 0,
                        _ if !cull_hidden => 0,
                        c => info.hidden_masks[c as usize - 1],
                    };
                    let group = info.group(lod as u32, fading, class);
                    let at = Level {
                        index,
                        lod,
                        mesh_lod,
                        fading,
                        group,
                    };
                    let hidden = plan_class(&mut out, model, at, |s| {
                        bits.get(s).is_some_and(|&b| b & hides != 0)
                    });
                    if hidden > 0 {
                        out.hidden.push((group, hidden));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Where one draw group's draws are: the model's place among the frame's
/// models, the level of its LOD chain and the mesh LOD drawn there,
/// fading or not, and the group.
struct Level {
    index: usize,
    lod: usize,
    mesh_lod: usize,
    fading: bool,
    group: u32,
}

/// The draws of one group of `model` at `at`: one per submesh of the mesh
/// LOD that `hides` does not leave out. Returns how many it leaves out.
fn plan_class(
    out: &mut CrowdPlan,
    model: &GpuModel,
    at: Level,
    hides: impl Fn(usize) -> bool,
) -> u32 {
    let Level {
        index,
        lod,
        mesh_lod,
        fading,
        group,
    } = at;
    let mut hidden = 0;
    for (s, sub) in model.lods[mesh_lod].submeshes.iter().enumerate() {
        if hides(s) {
            hidden += 1;
            continue;
        }
        let material = &model.materials[sub.material];
        out.specs.push(DrawSpec {
            group,
            index_count: sub.index_count,
            first_index: sub.first_index,
            base_vertex: sub.base_vertex,
        });
        let blend = material.alpha_mode == AlphaMode::Blend;
        out.planned.push(Planned {
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
    hidden
}
