//! Draw items: one indexed draw of one submesh (or of the impostor's quad)
//! for one group or package of instance records, and how a frame's draw
//! lists are laid out into them (record slices, packages of
//! `PACKAGE_WIDTH`).

use throng_core::gpu::InstanceRecord;
use throng_core::limits::PACKAGE_WIDTH;
use throng_crowd::crowd::{Crowd, DrawList};

use crate::base::error::RenderError;
use crate::base::options::RecordPath;
use crate::impostor::{GpuImpostor, QUAD_INDICES};
use crate::model::gpu_model::GpuModel;
use crate::pose_cache::PoseCache;
use crate::program::pipeline::{PipelineKey, RECORDS_SLOT};

pub(crate) struct DrawItem {
    /// The mesh pipeline (ignored for impostors).
    pub(crate) key: PipelineKey,
    /// Draws the impostor's quad with the impostor pipeline.
    pub(crate) impostor: bool,
    /// `None` for the impostor, whose corners come from the vertex index.
    pub(crate) vertex_buffer: Option<wgpu::Buffer>,
    pub(crate) index_buffer: wgpu::Buffer,
    /// Group 1: the model's, or its impostor's.
    pub(crate) model_bind_group: wgpu::BindGroup,
    /// Group 2 (`None` for the impostor, whose pipelines have none).
    pub(crate) material_bind_group: Option<wgpu::BindGroup>,
    pub(crate) indices: std::ops::Range<u32>,
    pub(crate) base_vertex: i32,
    pub(crate) instances: std::ops::Range<u32>,
    pub(crate) dynamic_offset: Option<u32>,
    /// GPU-driven: the indirect arguments (buffer, offset) and the records
    /// bind group of the list that wrote them.
    pub(crate) indirect: Option<(wgpu::Buffer, u64, wgpu::BindGroup)>,
    /// Storage paths: the records buffer, bound as the instance-rate vertex
    /// buffer at [`RECORDS_SLOT`].
    pub(crate) records: Option<wgpu::Buffer>,
}

impl DrawItem {
    pub(crate) fn new(
        key: PipelineKey,
        model: &GpuModel,
        lod: &crate::model::gpu_model::GpuLod,
        sub: &crate::model::gpu_model::GpuSubmesh,
        slice: &Slice,
    ) -> Self {
        Self {
            instances: slice.first..slice.first + slice.count,
            dynamic_offset: slice.offset,
            ..Self::of_submesh(key, model, lod, sub)
        }
    }

    /// A draw of `sub` with no instances yet.
    pub(crate) fn of_submesh(
        key: PipelineKey,
        model: &GpuModel,
        lod: &crate::model::gpu_model::GpuLod,
        sub: &crate::model::gpu_model::GpuSubmesh,
    ) -> Self {
        Self {
            key,
            impostor: false,
            vertex_buffer: Some(lod.vertex_buffer.clone()),
            index_buffer: lod.index_buffer.clone(),
            model_bind_group: model.bind_group.clone(),
            material_bind_group: Some(sub.bind_group.clone()),
            indices: sub.first_index..sub.first_index + sub.index_count,
            base_vertex: sub.base_vertex,
            instances: 0..0,
            dynamic_offset: None,
            indirect: None,
            records: None,
        }
    }

    /// A draw of `impostor`'s quads for the records of `slice`.
    pub(crate) fn impostor(impostor: &GpuImpostor, slice: &Slice) -> Self {
        Self {
            instances: slice.first..slice.first + slice.count,
            dynamic_offset: slice.offset,
            ..Self::of_impostor(impostor)
        }
    }

    /// A draw of `impostor`'s quads with no instances yet.
    pub(crate) fn of_impostor(impostor: &GpuImpostor) -> Self {
        Self {
            key: PipelineKey::IMPOSTOR,
            impostor: true,
            vertex_buffer: None,
            index_buffer: impostor.index_buffer.clone(),
            model_bind_group: impostor.bind_group.clone(),
            material_bind_group: None,
            indices: 0..QUAD_INDICES.len() as u32,
            base_vertex: 0,
            instances: 0..0,
            dynamic_offset: None,
            indirect: None,
            records: None,
        }
    }

    /// This draw with the instance count and first instance the GPU wrote
    /// at `offset` of `args`, reading the records bound by `records`.
    pub(crate) fn with_indirect(
        self,
        args: &wgpu::Buffer,
        offset: u64,
        records: wgpu::BindGroup,
    ) -> Self {
        Self {
            indirect: Some((args.clone(), offset, records)),
            ..self
        }
    }

    /// On the storage paths: the item binds `poses`' group 1 for LOD `lod`
    /// of `model` (the model's bindings and that LOD's pose cache, or its
    /// stand-in) and, where that LOD is cached and the records are not
    /// layered, reads the cache (`key.pose_cache`). Also returns whether
    /// the draw falls back to per-vertex skinning although the cache is on.
    pub(crate) fn with_poses(
        mut self,
        poses: &PoseCache,
        model: &GpuModel,
        lod: usize,
    ) -> Result<(Self, bool), RenderError> {
        let (group, cached) = poses
            .group(model, lod)
            .ok_or_else(|| RenderError::MissingModel {
                name: model.name().to_owned(),
                key: model.key(),
            })?;
        self.model_bind_group = group.clone();
        self.key.pose_cache = cached && !self.key.palettes;
        let fallback = poses.enabled() && !cached && !self.key.palettes;
        Ok((self, fallback))
    }

    /// On the storage paths: the item's draw reads its records from
    /// `records` as instance-rate vertex attributes.
    pub(crate) fn with_records(mut self, records: &wgpu::Buffer) -> Self {
        self.records = Some(records.clone());
        self
    }

    /// Binds the records (the item's own on the GPU-driven path, else
    /// `group`) and issues the draw.
    pub(crate) fn issue(&self, pass: &mut wgpu::RenderPass<'_>, group: Option<&wgpu::BindGroup>) {
        match &self.indirect {
            Some((args, offset, records)) => {
                pass.set_bind_group(3, records, &[]);
                pass.draw_indexed_indirect(args, *offset);
            }
            None => {
                if let Some(group) = group {
                    self.bind_records(pass, group);
                }
                pass.draw_indexed(
                    self.indices.clone(),
                    self.base_vertex,
                    self.instances.clone(),
                );
            }
        }
    }

    pub(crate) fn bind_geometry(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(vertices) = &self.vertex_buffer {
            pass.set_vertex_buffer(0, vertices.slice(..));
        }
        if let Some(records) = &self.records {
            pass.set_vertex_buffer(RECORDS_SLOT, records.slice(..));
        }
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        pass.set_bind_group(1, &self.model_bind_group, &[]);
    }

    pub(crate) fn bind_records(&self, pass: &mut wgpu::RenderPass<'_>, group: &wgpu::BindGroup) {
        match self.dynamic_offset {
            Some(o) => pass.set_bind_group(3, group, &[o]),
            None => pass.set_bind_group(3, group, &[]),
        }
    }
}

/// A range of one draw list's records placed in the staging buffer.
pub(crate) struct Slice {
    pub(crate) list: usize,
    pub(crate) group: usize,
    /// First instance index for the draw.
    pub(crate) first: u32,
    pub(crate) count: u32,
    /// Dynamic offset of its package (packaged path).
    pub(crate) offset: Option<u32>,
}

/// Appends the records of `lists` to `staging`: in package slots of
/// `package_stride` bytes on the packaged path, back to back on the
/// unbounded one. Returns where each group (or package) went.
pub(crate) fn lay_out(
    staging: &mut Vec<u8>,
    lists: &[DrawList],
    path: RecordPath,
    package_stride: u64,
) -> Vec<Slice> {
    let record_size = std::mem::size_of::<InstanceRecord>();
    let mut slices = Vec::new();
    for (c, list) in lists.iter().enumerate() {
        for (g, group) in list.groups.iter().enumerate() {
            match path {
                RecordPath::Packaged => {
                    for (first, count) in group.packages(PACKAGE_WIDTH) {
                        let offset = staging.len();
                        let recs = &list.records[first as usize..(first + count) as usize];
                        staging.extend_from_slice(bytemuck::cast_slice(recs));
                        staging.resize(offset + package_stride as usize, 0);
                        slices.push(Slice {
                            list: c,
                            group: g,
                            first: 0,
                            count,
                            offset: Some(offset as u32),
                        });
                    }
                }
                RecordPath::Unbounded | RecordPath::GpuDriven => {
                    let base = (staging.len() / record_size) as u32;
                    let recs =
                        &list.records[group.first as usize..(group.first + group.count) as usize];
                    staging.extend_from_slice(bytemuck::cast_slice(recs));
                    slices.push(Slice {
                        list: c,
                        group: g,
                        first: base,
                        count: group.count,
                        offset: None,
                    });
                }
            }
        }
    }
    slices
}

/// The GPU model of `handle` and its index in `models`, or an error naming it.
pub(crate) fn find_model_by_key<'a>(
    models: &[&'a GpuModel],
    handle: &throng_crowd::crowd::ModelHandle,
) -> Result<(usize, &'a GpuModel), RenderError> {
    models
        .iter()
        .position(|m| m.key() == handle.key())
        .map(|i| (i, models[i]))
        .ok_or_else(|| RenderError::MissingModel {
            name: handle.model().name.clone(),
            key: handle.key(),
        })
}

/// The GPU model a group draws, or an error naming it.
pub(crate) fn find_model<'a>(
    models: &[&'a GpuModel],
    crowd: &Crowd,
    group: &throng_crowd::crowd::DrawGroup,
) -> Result<&'a GpuModel, RenderError> {
    models
        .iter()
        .copied()
        .find(|m| m.key() == group.model_key)
        .ok_or_else(|| RenderError::MissingModel {
            name: crowd
                .model(group.model)
                .map(|m| m.name.clone())
                .unwrap_or_default(),
            key: group.model_key,
        })
}
