//! A model's materials on the GPU: each material's five texture slots
//! (`throng_core::material::TextureSlot`) as views and samplers — images
//! decoded once per (image, colour space), sRGB for base colour and
//! emissive, linear for metallic-roughness, normal and occlusion, each with
//! a CPU-built mip chain; an empty slot samples a 1 × 1 neutral texel
//! (white, or a flat normal) — and its constants, which each submesh's bind
//! group completes with its look ([`crate::look`]).

use std::collections::HashMap;

use throng_core::BakedModel;
use throng_core::material::{AlphaMode, Material, TextureSlot, TextureWrap, UvTransform};

use crate::error::RenderError;
use crate::uniforms::MaterialUniforms;

/// A material on the GPU: what its submeshes' bind groups hold, and the
/// pipeline state it needs.
#[derive(Debug)]
pub struct GpuMaterial {
    /// Per texture slot, its texture (a neutral texel where empty).
    pub(crate) views: [wgpu::TextureView; 5],
    /// Per texture slot, its sampler.
    pub(crate) samplers: [wgpu::Sampler; 5],
    /// Its constants, less what each submesh adds.
    pub(crate) uniforms: MaterialUniforms,
    /// Alpha mode.
    pub alpha_mode: AlphaMode,
    /// Draw back faces.
    pub double_sided: bool,
}

/// Uploads `model`'s materials and then the default material (glTF's),
/// and returns them with the bytes their textures take.
pub(crate) fn upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &BakedModel,
) -> Result<(Vec<GpuMaterial>, u64), RenderError> {
    let mut images: HashMap<(u32, bool), wgpu::TextureView> = HashMap::new();
    let mut bytes = 0;
    let white_srgb = texel(device, queue, [255; 4], true);
    let white = texel(device, queue, [255; 4], false);
    let flat_normal = texel(device, queue, [128, 128, 255, 255], false);
    let mut out = Vec::with_capacity(model.materials.len() + 1);
    for m in model
        .materials
        .iter()
        .chain(std::iter::once(&Material::default()))
    {
        let mut views = Vec::with_capacity(5);
        for slot in TextureSlot::ALL {
            let srgb = slot.is_srgb();
            let view = match m.texture(slot) {
                Some(t) => match images.get(&(t.image, srgb)) {
                    Some(v) => v.clone(),
                    None => {
                        let (view, b) = upload_image(device, queue, model, t.image as usize, srgb)?;
                        bytes += b;
                        images.insert((t.image, srgb), view.clone());
                        view
                    }
                },
                None if slot == TextureSlot::Normal => flat_normal.clone(),
                None if srgb => white_srgb.clone(),
                None => white.clone(),
            };
            views.push(view);
        }
        let views: [wgpu::TextureView; 5] = views.try_into().expect("five slots");
        out.push(make_material(device, m, views, &model.name));
    }
    Ok((out, bytes))
}

fn address_mode(w: TextureWrap) -> wgpu::AddressMode {
    match w {
        TextureWrap::Repeat => wgpu::AddressMode::Repeat,
        TextureWrap::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        TextureWrap::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
    }
}

fn make_material(
    device: &wgpu::Device,
    m: &Material,
    views: [wgpu::TextureView; 5],
    model: &str,
) -> GpuMaterial {
    let samplers = TextureSlot::ALL.map(|slot| {
        let wrap = m.texture(slot).map_or([TextureWrap::Repeat; 2], |t| t.wrap);
        device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some(&format!("{model} {} {} sampler", m.name, slot.name())),
            address_mode_u: address_mode(wrap[0]),
            address_mode_v: address_mode(wrap[1]),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        })
    });
    let mut uv_rows = [[0.0; 4]; 10];
    let mut textures = 0;
    for slot in TextureSlot::ALL {
        let t = m.texture(slot);
        textures |= (t.is_some() as u32) << slot as u32;
        let rows = rows_of(t.map_or(UvTransform::IDENTITY, |t| t.transform));
        uv_rows[2 * slot as usize] = rows[0];
        uv_rows[2 * slot as usize + 1] = rows[1];
    }
    GpuMaterial {
        views,
        samplers,
        uniforms: MaterialUniforms {
            base_color: m.base_color_factor.to_array(),
            emissive: m.emissive.to_array(),
            metallic: m.metallic_factor,
            roughness: m.roughness_factor,
            normal_scale: m.normal_scale,
            occlusion_strength: m.occlusion_strength,
            alpha_cutoff: m.alpha_cutoff,
            alpha_mode: m.alpha_mode as u32,
            palette_column: 0,
            submesh_bit: 0,
            textures,
            uv_rows,
        },
        alpha_mode: m.alpha_mode,
        double_sided: m.double_sided,
    }
}

/// The top two rows of a UV transform's matrix, as `MaterialUniforms`
/// holds them.
fn rows_of(t: UvTransform) -> [[f32; 4]; 2] {
    let m = t.matrix().transpose();
    [
        m.x_axis.extend(0.0).to_array(),
        m.y_axis.extend(0.0).to_array(),
    ]
}

/// RGBA8, sRGB-encoded or linear.
fn rgba8(srgb: bool) -> wgpu::TextureFormat {
    if srgb {
        wgpu::TextureFormat::Rgba8UnormSrgb
    } else {
        wgpu::TextureFormat::Rgba8Unorm
    }
}

/// A 1 × 1 texture of one RGBA8 texel.
fn texel(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    rgba: [u8; 4],
    srgb: bool,
) -> wgpu::TextureView {
    use wgpu::util::DeviceExt;
    let texture = device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some("throng neutral texel"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: rgba8(srgb),
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &rgba,
    );
    texture.create_view(&Default::default())
}

/// Decodes image `i`, uploads it (sRGB or linear) with a full mip chain.
fn upload_image(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &BakedModel,
    i: usize,
    srgb: bool,
) -> Result<(wgpu::TextureView, u64), RenderError> {
    let img = &model.images[i];
    let err = |msg: String| RenderError::Image {
        model: model.name.clone(),
        index: i,
        name: img.name.clone(),
        msg,
    };
    let decoded = image::load_from_memory(&img.bytes)
        .map_err(|e| err(e.to_string()))?
        .to_rgba8();
    let (w, h) = decoded.dimensions();
    let max = device.limits().max_texture_dimension_2d;
    if w == 0 || h == 0 || w > max || h > max {
        return Err(err(format!("{w}×{h} is outside 1..={max} per side")));
    }
    let mips = 32 - w.max(h).leading_zeros();
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(&format!("{} image {i} ({})", model.name, img.name)),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: mips,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: rgba8(srgb),
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut level = decoded;
    let mut bytes = 0u64;
    for mip in 0..mips {
        let (lw, lh) = level.dimensions();
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: mip,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            level.as_raw(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * lw),
                rows_per_image: Some(lh),
            },
            wgpu::Extent3d {
                width: lw,
                height: lh,
                depth_or_array_layers: 1,
            },
        );
        bytes += level.as_raw().len() as u64;
        if mip + 1 < mips {
            let (nw, nh) = ((lw / 2).max(1), (lh / 2).max(1));
            level = image::imageops::resize(&level, nw, nh, image::imageops::FilterType::Triangle);
        }
    }
    Ok((texture.create_view(&Default::default()), bytes))
}
