//! The building blocks of the layouts: [`Entries`], uniform and storage
//! buffer entries, a variant palette's and the shadow map's entries, and
//! a layout made from entries.

use std::num::NonZeroU64;

/// Entries of one bind group layout.
pub type Entries = Vec<wgpu::BindGroupLayoutEntry>;

/// A uniform buffer of at least `size` bytes at `binding`, seen by
/// `visibility`, with a dynamic offset if `dynamic`.
pub fn uniform(
    binding: u32,
    visibility: wgpu::ShaderStages,
    size: usize,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: NonZeroU64::new(size as u64),
        },
        count: None,
    }
}

/// A storage buffer of at least `min` bytes at `binding`, seen by
/// `visibility`, read-only if `read_only`.
pub fn storage(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
    min: usize,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min as u64),
        },
        count: None,
    }
}

/// A bind group layout labelled `label` with `entries`.
pub fn create(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

/// A 2D texture read with `textureLoad` (unfilterable float): a variant
/// palette (RGBA8, `crate::model::look`), a depth pyramid (R32Float).
pub(crate) fn loaded_texture_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

/// The shadow map (depth, fragment stage) and its comparison sampler.
pub(crate) fn shadow_map_entries(map: u32, sampler: u32) -> [wgpu::BindGroupLayoutEntry; 2] {
    [
        wgpu::BindGroupLayoutEntry {
            binding: map,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Depth,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: sampler,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
            count: None,
        },
    ]
}

/// A bind group of `layout` holding `entries`, each `(binding, resource)`.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    entries: &[(u32, wgpu::BindingResource)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = entries
        .iter()
        .map(|(binding, resource)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: resource.clone(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}
