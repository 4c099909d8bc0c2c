//! [`GpuImpostor`]: a model's animated impostor on the GPU, the far end of
//! its LOD chain (`impostor.wgsl` beside this file draws it).
//!
//! The atlas's images become 2D-array textures (colour as sRGB, so the
//! shader reads linear premultiplied colour; normals and the surface, or a
//! one-texel stand-in for an atlas without one, as linear RGBA8), the
//! frame table (and, with the surface image, each material's emission
//! after it) an `Rgba32Float` texture of
//! [`IMPOSTOR_TABLE_WIDTH`] texels a row (textures, not storage buffers, so
//! the downlevel path reads them too), and one 6-index buffer makes the
//! quad (its corners come from the vertex index; no vertex buffer).

use std::borrow::Cow;

use throng_core::BakedModel;
use throng_core::gpu::{IMPOSTOR_TABLE_WIDTH, ImpostorParams};
use throng_core::impostor::{ImpostorAtlas, TextureCodec, frame_table};
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::device::textures::bone_texture_layers;
use crate::model::material::{TextureUpload, format_of, uploads_blocks};
use crate::program::bind_groups;
use crate::program::bind_groups::entries::bind_group;

/// Indices of the quad's two triangles (corner `k` is `(k & 1, k >> 1)`),
/// counter-clockwise seen from the viewer.
pub const QUAD_INDICES: [u32; 6] = [0, 1, 2, 2, 1, 3];

/// Vertices shaded per impostor instance.
pub const QUAD_VERTICES: u32 = 4;

/// An impostor on the GPU.
#[derive(Debug)]
pub struct GpuImpostor {
    /// Group 1 of the impostor programs ([`bind_groups::impostor_entries`]).
    pub bind_group: wgpu::BindGroup,
    /// [`QUAD_INDICES`].
    pub index_buffer: wgpu::Buffer,
    /// The level of the model's LOD chain it is drawn at
    /// ([`BakedModel::impostor_lod`]).
    pub lod: usize,
    /// Bytes uploaded.
    pub gpu_bytes: u64,
}

/// Checks the atlas's sizes against the device's limits.
pub fn check_limits(
    device: &wgpu::Device,
    model: &BakedModel,
    atlas: &ImpostorAtlas,
) -> Result<(), RenderError> {
    let limits = device.limits();
    let layers = bone_texture_layers(device.adapter_info().backend, atlas.plan.layers);
    let rows = table_rows(model, atlas);
    for (what, needed, limit) in [
        (
            "impostor atlas side",
            atlas.plan.layer_size,
            limits.max_texture_dimension_2d,
        ),
        (
            "impostor atlas layers",
            layers,
            limits.max_texture_array_layers,
        ),
        (
            "impostor frame table rows",
            rows,
            limits.max_texture_dimension_2d,
        ),
    ] {
        if needed > limit {
            return Err(RenderError::TooBig {
                model: model.name.clone(),
                what: what.into(),
                needed: needed as u64,
                limit: limit as u64,
            });
        }
    }
    Ok(())
}

fn table_rows(model: &BakedModel, atlas: &ImpostorAtlas) -> u32 {
    let emission = if atlas.plan.surface {
        throng_core::variety::column_count(model) as u64
    } else {
        0
    };
    let texels =
        model.frame_count() as u64 + atlas.plan.clips as u64 + atlas.plan.cells() + emission;
    texels
        .div_ceil(IMPOSTOR_TABLE_WIDTH as u64)
        .clamp(1, u32::MAX as u64) as u32
}

impl GpuImpostor {
    /// Uploads `model`'s impostor, if it has one that is ever drawn
    /// ([`BakedModel::impostor_lod`]); the caller checked
    /// [`check_limits`].
    pub(crate) fn upload(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &BakedModel,
        palette: &wgpu::TextureView,
        textures: TextureUpload,
    ) -> Option<Self> {
        let lod = model.impostor_lod()?;
        let atlas = model.impostor.as_ref()?;
        let name = &model.name;
        let images = AtlasImages::upload(device, queue, model, atlas, textures);
        let (table_texture, table_bytes) = upload_table(device, queue, model, atlas);
        let params = params(model, atlas);
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("{name} impostor params")),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("throng impostor sampler"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let table_view = table_texture.create_view(&Default::default());
        let bind_group = bind_group(
            device,
            &format!("{name} impostor bind group"),
            &bind_groups::impostor(device),
            &[
                (8, wgpu::BindingResource::TextureView(&images.colour)),
                (9, wgpu::BindingResource::TextureView(&images.normal)),
                (10, wgpu::BindingResource::Sampler(&sampler)),
                (11, wgpu::BindingResource::TextureView(&table_view)),
                (12, params_buffer.as_entire_binding()),
                (13, wgpu::BindingResource::TextureView(palette)),
                (14, wgpu::BindingResource::TextureView(&images.surface)),
            ],
        );
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&format!("{name} impostor quad")),
            contents: bytemuck::cast_slice(&QUAD_INDICES),
            usage: wgpu::BufferUsages::INDEX,
        });
        Some(Self {
            bind_group,
            index_buffer,
            lod,
            gpu_bytes: images.gpu_bytes + table_bytes,
        })
    }
}

/// The atlas's images on the GPU, as 2D-array views.
struct AtlasImages {
    colour: wgpu::TextureView,
    normal: wgpu::TextureView,
    /// The surface image, or a one-texel stand-in ([`no_surface`]).
    surface: wgpu::TextureView,
    /// Bytes uploaded (the stand-in not counted).
    gpu_bytes: u64,
}

impl AtlasImages {
    /// Uploads the colour, normal and (if the atlas has one) surface
    /// images, as blocks or decoded to RGBA8 as `textures` and the device
    /// allow.
    fn upload(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &BakedModel,
        atlas: &ImpostorAtlas,
        textures: TextureUpload,
    ) -> Self {
        let plan = &atlas.plan;
        let name = &model.name;
        let mut gpu_bytes = 0;
        let layers = bone_texture_layers(device.adapter_info().backend, plan.layers);
        // BC3 or BC7 blocks go as they are where `textures` says so (by
        // default where the device samples them natively), else decoded to
        // RGBA8 here: the same texels but for the rounding of BC3's
        // interpolated colours, which decoders may do apart, and where that
        // moves alpha across the cutoff a pixel flips (on lavapipe, 17 of
        // 76,800 pixels of a 16-impostor picture differ by more than 3
        // levels, the worst by 188; `impostor_draw.rs`).
        let blocks = uploads_blocks(device, textures, plan.codec);
        let codec = if blocks {
            plan.codec
        } else {
            TextureCodec::Rgba8
        };
        let (block_row_bytes, block_rows) = codec.rows(plan.layer_size, plan.layer_size);
        let mut image = |what: &str, format, data: &[u8]| {
            let size = wgpu::Extent3d {
                width: plan.layer_size,
                height: plan.layer_size,
                depth_or_array_layers: layers,
            };
            let label = format!("{name} impostor {what}");
            let texture = device.create_texture(&crate::device::textures::descriptor(
                &label,
                (size.width, size.height, layers),
                format,
            ));
            queue.write_texture(
                texture.as_image_copy(),
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(block_row_bytes),
                    rows_per_image: Some(block_rows),
                },
                wgpu::Extent3d {
                    depth_or_array_layers: plan.layers,
                    ..size
                },
            );
            gpu_bytes += codec.image_bytes(plan.layer_size, layers);
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some(&format!("{name} impostor {what} view")),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        };
        // The stored images, or their texels decoded here.
        let [colour, normal, surface]: [Cow<[u8]>; 3] = if blocks {
            [&atlas.colour, &atlas.normal, &atlas.surface].map(|i| i.as_slice().into())
        } else {
            [
                atlas.colour_rgba8(),
                atlas.normal_rgba8(),
                atlas.surface_rgba8(),
            ]
        };
        let colour = image("colour", format_of(codec, true), &colour);
        let normal = image("normal", format_of(codec, false), &normal);
        let surface = if plan.surface {
            image("surface", format_of(codec, false), &surface)
        } else {
            no_surface(device, queue, name)
        };
        Self {
            colour,
            normal,
            surface,
            gpu_bytes,
        }
    }
}

/// The frame table (and, with the surface image, each material's emission
/// after it), zero-padded to whole rows of [`IMPOSTOR_TABLE_WIDTH`] texels.
/// Returns the texture and its bytes.
fn upload_table(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &BakedModel,
    atlas: &ImpostorAtlas,
) -> (wgpu::Texture, u64) {
    let mut table = frame_table(model, atlas);
    if atlas.plan.surface {
        table.extend(throng_core::impostor::surface_emission(model));
    }
    let rows = table_rows(model, atlas);
    table.resize((rows * IMPOSTOR_TABLE_WIDTH) as usize, [0.0; 4]);
    let texture = crate::device::textures::texel_table(
        device,
        queue,
        &format!("{} impostor frame table", model.name),
        IMPOSTOR_TABLE_WIDTH,
        rows,
        &table,
    );
    (texture, (table.len() * 16) as u64)
}

/// The impostor's uniform: the atlas's layout, the model's frames and
/// clips, and its materials' mean surface ([`mean_surface`]).
fn params(model: &BakedModel, atlas: &ImpostorAtlas) -> ImpostorParams {
    let plan = &atlas.plan;
    let surface = mean_surface(model);
    ImpostorParams {
        views: plan.views.side,
        frames: plan.frames,
        cell: plan.cell,
        layer_size: plan.layer_size,
        cells_per_row: plan.layer_size / plan.cell,
        cells_per_layer: plan.cells_per_layer(),
        frame_count: model.frame_count(),
        clip_count: plan.clips,
        metallic: surface.metallic,
        roughness: surface.roughness,
        surface: plan.surface as u32,
        materials: throng_core::variety::column_count(model) as u32,
        emissive: surface.emissive.to_array(),
        pad1: 0,
    }
}

/// The surface image's stand-in for an atlas without one: one texel, never
/// read (`impostor.surface` is 0), in as many layers as the backend needs
/// for an array.
fn no_surface(device: &wgpu::Device, queue: &wgpu::Queue, name: &str) -> wgpu::TextureView {
    let layers = bone_texture_layers(device.adapter_info().backend, 1);
    crate::device::textures::sampled_texture(
        device,
        queue,
        &format!("{name} impostor surface (none)"),
        (1, 1, layers),
        wgpu::TextureFormat::Rgba8Unorm,
        &vec![0; 4 * layers as usize],
    )
    .create_view(&wgpu::TextureViewDescriptor {
        label: Some(&format!("{name} impostor surface (none) view")),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    })
}

/// The model's metalness, roughness and emission, its materials' (glTF's
/// default material for submeshes without one) weighted by their surface
/// area in the finest LOD; the texture maps are not sampled (the factors
/// alone).
fn mean_surface(model: &BakedModel) -> MeanSurface {
    let areas = model.area_by_material();
    let default = throng_core::material::Material::default();
    let total: f32 = areas.iter().sum();
    let mut mean = MeanSurface {
        metallic: 0.0,
        roughness: 0.0,
        emissive: glam::Vec3::ZERO,
    };
    if total <= 0.0 {
        mean.roughness = 1.0;
        return mean;
    }
    for (i, &a) in areas.iter().enumerate() {
        let mat = model.materials.get(i).unwrap_or(&default);
        let w = a / total;
        mean.metallic += mat.metallic_factor * w;
        mean.roughness += mat.roughness_factor * w;
        mean.emissive += mat.emissive * w;
    }
    mean
}

/// A model's materials averaged over its surface ([`mean_surface`]).
struct MeanSurface {
    metallic: f32,
    roughness: f32,
    /// Emission: factor × strength (the emissive texture's texels are not
    /// averaged in).
    emissive: glam::Vec3,
}
