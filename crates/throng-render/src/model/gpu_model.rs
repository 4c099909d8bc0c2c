//! [`GpuModel`]: a baked model on the GPU.
//!
//! Upload checks the model against the device's limits first (texture side
//! and layers, buffer sizes) and fails with [`RenderError::TooBig`] rather
//! than letting wgpu raise a validation error. The bone texture is a
//! `texture_2d_array` of `Rgba32Float` or `Rgba16Float`, read with integer
//! `textureLoad` only. Materials and their images are uploaded by
//! [`crate::model::material`].
//! The impostor, if any, is uploaded by [`crate::impostor`].

use std::sync::Arc;

use throng_core::BakedModel;
use throng_core::gpu::ModelParams;
use throng_core::limits::MORPH_TEXTURE_WIDTH;
use throng_core::model::TexelFormat;
use throng_crowd::crowd::ModelHandle;
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::device::buffers::has_storage_buffers;
use crate::device::textures::{bone_texture_layers, texel_table};
use crate::impostor::GpuImpostor;
pub use crate::model::material::GpuMaterial;
use crate::model::material::TextureUpload;
use crate::model::shared_frames::{BoneFrames, FramesIdentity, SharedFrames, distinct_bytes};
use crate::program::bind_groups;
use crate::program::bind_groups::entries::bind_group;

/// A submesh ready to draw.
#[derive(Clone, Debug)]
pub struct GpuSubmesh {
    /// First index in the LOD's index buffer.
    pub first_index: u32,
    /// Index count.
    pub index_count: u32,
    /// Base vertex.
    pub base_vertex: i32,
    /// Vertices (from the base vertex on) its indices use.
    pub vertex_count: u32,
    /// Material slot in [`GpuModel::materials`] (the last slot is the default).
    pub material: usize,
    /// Shade flat (the baker generated the normals).
    pub flat: bool,
    /// Group 2 bind group: its material, palette column and toggle bit
    /// ([`crate::model::look`]).
    pub bind_group: wgpu::BindGroup,
}

/// One LOD's buffers.
#[derive(Debug)]
pub struct GpuLod {
    /// Vertex buffer of `BakedVertex` (also bound as storage for compute).
    pub vertex_buffer: wgpu::Buffer,
    /// Index buffer (u32).
    pub index_buffer: wgpu::Buffer,
    /// Submeshes.
    pub submeshes: Vec<GpuSubmesh>,
    /// Vertex count.
    pub vertex_count: u32,
    /// Some vertex has a tangent: the pose cache (which holds positions and
    /// normals only) leaves this LOD to per-vertex skinning, so that its
    /// normal maps are oriented by the tangents on every path.
    pub has_tangents: bool,
}

/// A baked model on the GPU. Identified by the [`ModelHandle`] key it was
/// uploaded from.
#[derive(Debug)]
pub struct GpuModel {
    key: u64,
    name: String,
    /// Group 1 bind group (bone texture + params).
    pub bind_group: wgpu::BindGroup,
    /// The bone texture (shared with the models of equal frames where it
    /// was uploaded with [`Self::upload_sharing`]).
    pub bone_texture: wgpu::Texture,
    /// Bytes the bone texture takes on the GPU, whether or not this model
    /// uploaded it.
    pub bone_bytes: u64,
    /// The bone texture found in (or put into) a [`SharedFrames`]: holds
    /// it alive there for as long as this model is.
    shared_frames: Option<Arc<BoneFrames>>,
    /// Its view and the `ModelParams` uniform: group 1's bindings 0 and 1,
    /// which the pose cache's per-LOD groups repeat.
    pub(crate) bone_view: wgpu::TextureView,
    pub(crate) params_buffer: wgpu::Buffer,
    /// The morph texture's view (group 1's binding 4; a one-texel stand-in
    /// without morph targets), which the pose cache's groups repeat too.
    pub(crate) morph_view: wgpu::TextureView,
    /// Frames in the global frame table (`ModelParams::frame_count`).
    pub frame_count: u32,
    /// LODs.
    pub lods: Vec<GpuLod>,
    /// Materials, plus a default one last.
    pub materials: Vec<GpuMaterial>,
    /// Triangles per instance, per LOD.
    pub triangles: Vec<u64>,
    /// The animated impostor after the last LOD, if the model has one that
    /// is ever drawn.
    pub impostor: Option<GpuImpostor>,
    /// Bytes uploaded (a bone texture found in a [`SharedFrames`] is
    /// not: see [`Self::bone_bytes`]).
    pub gpu_bytes: u64,
}

impl GpuModel {
    /// The identity key ([`ModelHandle::key`]).
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Model name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The impostor, if level `lod` of the LOD chain is it.
    pub fn impostor_at(&self, lod: usize) -> Option<&GpuImpostor> {
        self.impostor.as_ref().filter(|i| i.lod == lod)
    }

    /// Uploads a model, checking it against the device's limits first; an
    /// error the device raises during the upload (out of memory, say) is
    /// returned, never a panic.
    pub fn upload(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        handle: &ModelHandle,
    ) -> Result<Self, RenderError> {
        Self::upload_with(device, queue, handle, TextureUpload::Auto)
    }

    /// [`Self::upload_with`], binding the bone texture already in `frames`
    /// for a model whose baked frames are equal to this one's (one
    /// animation library on many bodies of one build), or uploading it
    /// there for the next ([`crate::model::shared_frames`]).
    pub fn upload_sharing(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        handle: &ModelHandle,
        textures: TextureUpload,
        frames: &SharedFrames,
    ) -> Result<Self, RenderError> {
        Self::upload_in(device, queue, handle, textures, Some(frames))
    }

    /// What tells its bone texture from another's.
    fn frames_identity(&self) -> FramesIdentity {
        match &self.shared_frames {
            Some(f) => FramesIdentity::Shared(Arc::as_ptr(f) as usize),
            None => FramesIdentity::Own(self.key),
        }
    }

    /// The bone textures `models` bind: the bytes of the distinct ones,
    /// and the bytes sharing saved (what the models' textures would take
    /// apart, less the distinct ones). A model given twice counts once.
    pub fn bone_bytes_of(models: &[&GpuModel]) -> (u64, u64) {
        distinct_bytes(
            models
                .iter()
                .map(|m| (m.key, m.frames_identity(), m.bone_bytes)),
        )
    }

    /// Whether this model binds a bone texture another model uploaded
    /// ([`Self::upload_sharing`]).
    pub fn shares_frames(&self) -> bool {
        self.shared_frames
            .as_ref()
            .is_some_and(|f| f.source.key() != self.key)
    }

    /// [`Self::upload`], its block-compressed images uploaded as `textures`
    /// says.
    pub fn upload_with(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        handle: &ModelHandle,
        textures: TextureUpload,
    ) -> Result<Self, RenderError> {
        Self::upload_in(device, queue, handle, textures, None)
    }

    /// The upload, its bone texture found in or put into `frames` if any.
    fn upload_in(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        handle: &ModelHandle,
        textures: TextureUpload,
        frames: Option<&SharedFrames>,
    ) -> Result<Self, RenderError> {
        let model = handle.model();
        check_limits(device, model)?;
        let upload = Upload {
            device,
            queue,
            handle,
            textures,
            frames,
        };
        let what = format!("uploading model {:?}", model.name);
        crate::device::context::catch_device_errors(device, &what, || upload.run())?
    }
}

/// One model's upload, once its limits were checked ([`GpuModel::upload_with`]).
struct Upload<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    handle: &'a ModelHandle,
    textures: TextureUpload,
    frames: Option<&'a SharedFrames>,
}

impl Upload<'_> {
    /// Uploads everything: the bone texture, the morph texture, the
    /// materials and palette, each LOD's buffers and looks, the impostor.
    fn run(self) -> Result<GpuModel, RenderError> {
        let (device, queue, handle) = (self.device, self.queue, self.handle);
        let model = handle.model();
        let name = model.name.clone();
        let mut gpu_bytes = 0u64;

        let (bone_texture, bone_bytes, shared_frames) = match self.frames {
            Some(store) => {
                let (frames, found) = store.get_or_upload(device, handle, || self.bone_texture());
                if !found {
                    gpu_bytes += frames.bytes;
                }
                (frames.texture.clone(), frames.bytes, Some(frames))
            }
            None => {
                let (texture, bytes) = self.bone_texture();
                gpu_bytes += bytes;
                (texture, bytes, None)
            }
        };
        let (morph_view, morph_bytes) = upload_morphs(device, queue, model);
        gpu_bytes += morph_bytes;
        let group = self.model_group(bone_texture, morph_view);

        // Materials (the default one last).
        let material_layout = bind_groups::material(device);
        let (materials, material_bytes) =
            crate::model::material::upload(device, queue, model, self.textures)?;
        gpu_bytes += material_bytes;
        let (palette, palette_bytes) = crate::model::look::palette_view(device, queue, handle);
        gpu_bytes += palette_bytes;
        let looks = Looks {
            layout: &material_layout,
            materials: &materials,
            palette: &palette,
        };

        let mut lods = Vec::with_capacity(model.lods.len());
        let mut triangles = Vec::with_capacity(model.lods.len());
        let vertex_usage = vertex_usage(device);
        for (l, lod) in model.lods.iter().enumerate() {
            let gpu_lod = self.lod(l, lod, vertex_usage, &looks);
            gpu_bytes += gpu_lod.vertex_buffer.size() + gpu_lod.index_buffer.size();
            triangles.push(lod.indices.len() as u64 / 3);
            lods.push(gpu_lod);
        }
        let impostor = GpuImpostor::upload(device, queue, model, &palette, self.textures);
        gpu_bytes += impostor.as_ref().map_or(0, |i| i.gpu_bytes);
        Ok(GpuModel {
            key: handle.key(),
            name,
            bind_group: group.bind_group,
            bone_texture: group.bone_texture,
            bone_bytes,
            shared_frames,
            bone_view: group.bone_view,
            params_buffer: group.params_buffer,
            morph_view: group.morph_view,
            frame_count: group.frame_count,
            lods,
            materials,
            triangles,
            impostor,
            gpu_bytes,
        })
    }

    /// The bone texture, its layers allocated as the backend needs for an
    /// array and its texels written (stored tightly; the tail of the last
    /// layer is zero-filled). Returns it and the bytes it holds.
    fn bone_texture(&self) -> (wgpu::Texture, u64) {
        let (device, model) = (self.device, self.handle.model());
        let tex = &model.texture;
        let format = match tex.texels.format() {
            TexelFormat::F32 => wgpu::TextureFormat::Rgba32Float,
            TexelFormat::F16 => wgpu::TextureFormat::Rgba16Float,
        };
        let texel_size = tex.texels.format().texel_size();
        let size = wgpu::Extent3d {
            width: tex.width,
            height: tex.width,
            depth_or_array_layers: tex.layers,
        };
        let allocated_layers = bone_texture_layers(device.adapter_info().backend, tex.layers);
        let label = format!("{} bone texture", model.name);
        let bone_texture = device.create_texture(&crate::device::textures::descriptor(
            &label,
            (tex.width, tex.width, allocated_layers),
            format,
        ));
        // Texels are stored tightly; the tail of the last layer is zero-filled.
        let data = tex.texels.as_bytes();
        let capacity = tex.layout().capacity() as usize * texel_size;
        let padded;
        let bytes = if data.len() == capacity {
            data
        } else {
            let mut v = vec![0u8; capacity];
            v[..data.len()].copy_from_slice(data);
            padded = v;
            &padded
        };
        self.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &bone_texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            bytes,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(tex.width * texel_size as u32),
                rows_per_image: Some(tex.width),
            },
            size,
        );
        let gpu_bytes = capacity as u64 / tex.layers.max(1) as u64 * allocated_layers as u64;
        (bone_texture, gpu_bytes)
    }

    /// Group 1: the bone texture's view, the `ModelParams` uniform (the
    /// bone and morph textures' shapes) and the morph texture's view.
    fn model_group(
        &self,
        bone_texture: wgpu::Texture,
        morph_view: wgpu::TextureView,
    ) -> ModelGroup {
        let (device, model) = (self.device, self.handle.model());
        let name = &model.name;
        let morphs = &model.morphs;
        let frames = model.frame_count();
        let params = ModelParams {
            bone_count: model.bone_count(),
            frame_count: frames,
            texture_width: model.texture.width,
            texture_layers: model.texture.layers,
            morph_slots: morphs.slot_count(),
            morph_frame_texels: morphs.texels_per_frame(),
            morph_delta_base: morphs.delta_base(frames) as u32,
            morph_delta_count: morphs.deltas.len() as u32,
        };
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("{name} model params")),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let bone_view = bone_texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some(&format!("{name} bone texture view")),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let bind_group = bind_group(
            device,
            &format!("{name} model bind group"),
            &bind_groups::model(device),
            &[
                (0, wgpu::BindingResource::TextureView(&bone_view)),
                (1, params_buffer.as_entire_binding()),
                (
                    bind_groups::MORPH_TEXTURE_BINDING,
                    wgpu::BindingResource::TextureView(&morph_view),
                ),
            ],
        );
        ModelGroup {
            bind_group,
            bone_texture,
            bone_view,
            params_buffer,
            morph_view,
            frame_count: params.frame_count,
        }
    }

    /// LOD `l`'s vertex and index buffers and its submeshes, each with the
    /// group 2 bind group of its material, palette column and toggle bit.
    fn lod(
        &self,
        l: usize,
        lod: &throng_core::model::Lod,
        vertex_usage: wgpu::BufferUsages,
        looks: &Looks<'_>,
    ) -> GpuLod {
        let (device, model) = (self.device, self.handle.model());
        let name = &model.name;
        let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("{name} LOD {l} vertices")),
            contents: bytemuck::cast_slice(&lod.vertices),
            usage: vertex_usage,
        });
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("{name} LOD {l} indices")),
            contents: bytemuck::cast_slice(&lod.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let default_material = looks.materials.len() - 1;
        let bits = throng_core::variety::submesh_bits(model, l);
        let submeshes = lod
            .submeshes
            .iter()
            .zip(bits)
            .enumerate()
            .map(|(i, (s, bit))| {
                let material = s.material.map_or(default_material, |m| m as usize);
                let bind_group = crate::model::look::submesh_bind_group(
                    device,
                    looks.layout,
                    &looks.materials[material],
                    looks.palette,
                    crate::model::look::SubmeshLook {
                        column: throng_core::variety::column_of(s.material),
                        bit,
                    },
                    &format!("{name} LOD {l} submesh {i}"),
                );
                GpuSubmesh {
                    first_index: s.first_index,
                    index_count: s.index_count,
                    base_vertex: s.base_vertex as i32,
                    vertex_count: s.vertex_count,
                    material,
                    flat: s.flags & throng_core::model::SUBMESH_GENERATED_NORMALS != 0,
                    bind_group,
                }
            })
            .collect();
        GpuLod {
            vertex_buffer,
            index_buffer,
            submeshes,
            vertex_count: lod.vertices.len() as u32,
            has_tangents: lod.vertices.iter().any(|v| v.tangent != [0; 4]),
        }
    }
}

/// Group 1 of a model and what it binds ([`Upload::model_group`]).
struct ModelGroup {
    bind_group: wgpu::BindGroup,
    bone_texture: wgpu::Texture,
    bone_view: wgpu::TextureView,
    params_buffer: wgpu::Buffer,
    morph_view: wgpu::TextureView,
    frame_count: u32,
}

/// What every submesh's group 2 is made from ([`Upload::lod`]): the
/// material layout, the materials (the default one last) and the palette.
struct Looks<'a> {
    layout: &'a wgpu::BindGroupLayout,
    materials: &'a [GpuMaterial],
    palette: &'a wgpu::TextureView,
}

/// The vertex buffers' usage. The compute passes (pose-cache fill,
/// GPU-driven path) read the vertices as storage; a device without storage
/// buffers (WebGL2) draws them as vertices only.
fn vertex_usage(device: &wgpu::Device) -> wgpu::BufferUsages {
    if has_storage_buffers(device) {
        wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE
    } else {
        wgpu::BufferUsages::VERTEX
    }
}

/// The morph texture (`throng_core::morph`, "On the GPU"): RGBA32F rows of
/// [`MORPH_TEXTURE_WIDTH`] texels; one zero texel for a model without
/// morph targets (never read: no vertex has deltas). Its height was checked against the device's limit by
/// [`check_limits`]. Returns the view and the bytes uploaded.
fn upload_morphs(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &BakedModel,
) -> (wgpu::TextureView, u64) {
    let frames = model.frame_count();
    let (texels, width, rows) = if model.morphs.is_empty() {
        (vec![[0.0f32; 4]], 1, 1)
    } else {
        let rows = model.morphs.texture_rows(frames) as u32;
        (model.morphs.texels(frames), MORPH_TEXTURE_WIDTH, rows)
    };
    let label = format!("{} morph texture", model.name);
    let texture = texel_table(device, queue, &label, width, rows, &texels);
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    (view, std::mem::size_of_val(texels.as_slice()) as u64)
}

/// Checks every size the upload will need against the device's limits.
pub fn check_limits(device: &wgpu::Device, model: &BakedModel) -> Result<(), RenderError> {
    let limits = device.limits();
    let too_big = |what: &str, needed: u64, limit: u64| {
        if needed > limit {
            Err(RenderError::TooBig {
                model: model.name.clone(),
                what: what.to_owned(),
                needed,
                limit,
            })
        } else {
            Ok(())
        }
    };
    too_big(
        "bone texture side",
        model.texture.width as u64,
        limits.max_texture_dimension_2d as u64,
    )?;
    too_big(
        "bone texture layers",
        bone_texture_layers(device.adapter_info().backend, model.texture.layers) as u64,
        limits.max_texture_array_layers as u64,
    )?;
    too_big(
        "morph texture rows",
        model.morphs.texture_rows(model.frame_count()),
        limits.max_texture_dimension_2d as u64,
    )?;
    if let Some(atlas) = &model.impostor {
        crate::impostor::check_limits(device, model, atlas)?;
    }
    let storage = has_storage_buffers(device);
    for (l, lod) in model.lods.iter().enumerate() {
        let vb = std::mem::size_of_val(lod.vertices.as_slice()) as u64;
        too_big(
            &format!("LOD {l} vertex buffer bytes"),
            vb,
            limits.max_buffer_size,
        )?;
        if storage {
            too_big(
                &format!("LOD {l} vertex buffer as storage"),
                vb,
                limits.max_storage_buffer_binding_size,
            )?;
        }
        too_big(
            &format!("LOD {l} index buffer bytes"),
            lod.indices.len() as u64 * 4,
            limits.max_buffer_size,
        )?;
    }
    for img in &model.images {
        // Each level uploaded is one `write_texture`, staged in a buffer;
        // levels larger than the device's textures are left out (and an
        // image with none that fits is refused by the upload, naming it).
        let Some(first) = crate::model::material::first_level(img, limits.max_texture_dimension_2d)
        else {
            continue;
        };
        let (w, h) = img.level_size(first);
        too_big(
            &format!("image level {first} bytes as RGBA8"),
            throng_core::texture_codec::TextureCodec::Rgba8.level_bytes(w, h),
            limits.max_buffer_size,
        )?;
    }
    Ok(())
}
