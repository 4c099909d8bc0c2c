//! Small textures the shaders read by index or sample as they are: tables
//! of RGBA32F texels (the morph texture, the impostor's frame table), one
//! mip level textures and arrays (palettes, neutral texels, stand-ins),
//! and the layer count a bone texture is allocated with on each backend.

use wgpu::util::DeviceExt;

/// A 2D RGBA32F texture of `rows` rows of `width` texels from `texels`
/// (whole rows), read by index with `textureLoad`: the morph texture and
/// the impostor's frame table.
pub(crate) fn texel_table(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    width: u32,
    rows: u32,
    texels: &[[f32; 4]],
) -> wgpu::Texture {
    sampled_texture(
        device,
        queue,
        label,
        (width, rows, 1),
        wgpu::TextureFormat::Rgba32Float,
        bytemuck::cast_slice(texels),
    )
}

/// A 2D (array) texture of one mip level, `(width, height, layers)`, in
/// `format`, filled with `data` (layer after layer), for the shaders to
/// read: the tables above, the palette, neutral texels and stand-ins.
pub(crate) fn sampled_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    size: (u32, u32, u32),
    format: wgpu::TextureFormat,
    data: &[u8],
) -> wgpu::Texture {
    device.create_texture_with_data(
        queue,
        &descriptor(label, size, format),
        wgpu::util::TextureDataOrder::LayerMajor,
        data,
    )
}

/// A sampled 2D (array) texture of one mip level, `(width, height,
/// layers)`, written with copies: what every texture the shaders read is
/// made from.
pub(crate) fn descriptor(
    label: &str,
    (width, height, layers): (u32, u32, u32),
    format: wgpu::TextureFormat,
) -> wgpu::TextureDescriptor<'_> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: layers,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    }
}

/// Array layers to allocate for a bone texture of `layers` layers.
///
/// The GL backend picks a texture's GL target once, when the texture is
/// created, from its size alone: one layer makes a `TEXTURE_2D`, and a
/// square texture whose layer count is a multiple of 6 makes a cube map
/// (array). A `sampler2DArray` reads neither: every `textureLoad` returns
/// zeros, the model collapses to a point and the picture is background only,
/// with no error anywhere. Bone textures are square, so on GL they get one or
/// two unused layers more where needed to be created as a
/// `TEXTURE_2D_ARRAY`; other backends allocate exactly what the layout needs
/// (docs/design/software-gpu.md#gl-bone-texture-layers).
pub fn bone_texture_layers(backend: wgpu::Backend, layers: u32) -> u32 {
    match backend {
        wgpu::Backend::Gl => {
            let at_least_two = layers.max(2);
            if at_least_two.is_multiple_of(6) {
                at_least_two + 1
            } else {
                at_least_two
            }
        }
        _ => layers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gl_bone_textures_are_never_2d_or_cube_shaped() {
        for layers in 1..=64 {
            let n = bone_texture_layers(wgpu::Backend::Gl, layers);
            assert!(n >= layers && n <= layers + 2, "{layers} -> {n}");
            assert!(n >= 2 && !n.is_multiple_of(6), "{layers} -> {n}");
            assert_eq!(bone_texture_layers(wgpu::Backend::Vulkan, layers), layers);
        }
        assert_eq!(bone_texture_layers(wgpu::Backend::Gl, 240), 241);
    }
}
