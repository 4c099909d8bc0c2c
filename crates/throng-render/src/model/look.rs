//! Crowd variety on the GPU (`throng_core::variety`): a model's variant
//! palette as a small texture, and each submesh's group 2 bind group, which
//! adds to its material the submesh's palette column and its bit of a
//! record's hidden mask.
//!
//! The vertex stages read both (`shaders/draw.wgsl`): a record's palette
//! colour multiplies its tint, and a hidden submesh's vertices leave the
//! clip volume, so neither costs a draw or CPU work per frame. The
//! impostor's vertex stage reads the palette's last column, each row's
//! area-weighted mean (`impostor/impostor.wgsl`).

use throng_crowd::crowd::ModelHandle;
use wgpu::util::DeviceExt;

use crate::base::uniforms::MaterialUniforms;
use crate::model::material::GpuMaterial;
use crate::program::bind_groups::MATERIAL_SLOT_BINDINGS;

/// What a submesh adds to its material's constants.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubmeshLook {
    /// Its palette column.
    pub(crate) column: u32,
    /// Its bit of the hidden mask (0: never hidden).
    pub(crate) bit: u32,
}

/// The model's palette texture (RGBA8, linear; `Palette::texels`), or one
/// white texel for a model without a palette; and its bytes.
pub(crate) fn palette_view(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    handle: &ModelHandle,
) -> (wgpu::TextureView, u64) {
    let (width, height, texels) = match handle.palette() {
        Some(p) => p.texels(handle.model()),
        None => (1, 1, vec![u32::MAX]),
    };
    let texture = crate::device::textures::sampled_texture(
        device,
        queue,
        &format!("{} variant palette", handle.model().name),
        (width, height, 1),
        wgpu::TextureFormat::Rgba8Unorm,
        bytemuck::cast_slice(&texels),
    );
    (
        texture.create_view(&Default::default()),
        4 * texels.len() as u64,
    )
}

/// A submesh's group 2 bind group: its material's textures and samplers,
/// the material's constants with the submesh's look, and the palette.
pub(crate) fn submesh_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    material: &GpuMaterial,
    palette: &wgpu::TextureView,
    look: SubmeshLook,
    label: &str,
) -> wgpu::BindGroup {
    let uniforms = MaterialUniforms {
        palette_column: look.column,
        submesh_bit: look.bit,
        ..material.uniforms
    };
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(&format!("{label} uniforms")),
        contents: bytemuck::bytes_of(&uniforms),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let mut entries = vec![
        wgpu::BindGroupEntry {
            binding: 2,
            resource: buffer.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: 3,
            resource: wgpu::BindingResource::TextureView(palette),
        },
    ];
    for (slot, &(texture, sampler)) in MATERIAL_SLOT_BINDINGS.iter().enumerate() {
        entries.push(wgpu::BindGroupEntry {
            binding: texture,
            resource: wgpu::BindingResource::TextureView(&material.views[slot]),
        });
        entries.push(wgpu::BindGroupEntry {
            binding: sampler,
            resource: wgpu::BindingResource::Sampler(&material.samplers[slot]),
        });
    }
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(&format!("{label} bind group")),
        layout,
        entries: &entries,
    })
}
