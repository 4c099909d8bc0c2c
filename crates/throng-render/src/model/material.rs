//! A model's materials on the GPU: each material's five texture slots
//! (`throng_core::material::TextureSlot`) as views and samplers — images
//! uploaded once per (image, colour space), sRGB for base colour and
//! emissive, linear for metallic-roughness, normal and occlusion, each with
//! the mip chain the bake made (BC blocks as stored where the device
//! samples them, else decoded to RGBA8 here: [`TextureUpload`]); an empty
//! slot samples a 1 × 1 neutral texel (white, or a flat normal) — and its
//! constants, which each submesh's bind group completes with its look
//! ([`crate::model::look`]).

use std::collections::HashMap;

use throng_core::BakedModel;
use throng_core::material::{AlphaMode, Material, TextureSlot, TextureWrap, UvTransform};
use throng_core::texture_codec::{BLOCK, TextureCodec};

use crate::base::error::RenderError;
use crate::base::uniforms::MaterialUniforms;

/// How a model's block-compressed images reach the GPU
/// ([`crate::GpuModel::upload_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextureUpload {
    /// BC blocks as stored where the device has `TEXTURE_COMPRESSION_BC`
    /// and is not a CPU rasteriser (which decodes a block at every fetch:
    /// there RGBA8 decoded once at load draws faster); else decoded.
    #[default]
    Auto,
    /// BC blocks as stored wherever the device has
    /// `TEXTURE_COMPRESSION_BC` (decoded where it has not).
    Blocks,
    /// Every level decoded to RGBA8 at load.
    Decoded,
}

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
    textures: TextureUpload,
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
                        let (view, b) =
                            upload_image(device, queue, model, t.image as usize, srgb, textures)?;
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
    crate::device::textures::sampled_texture(
        device,
        queue,
        "throng neutral texel",
        (1, 1, 1),
        rgba8(srgb),
        &rgba,
    )
    .create_view(&Default::default())
}

/// Whether an image stored in `codec` goes to `device` as its blocks, as
/// `textures` says (else it is decoded to RGBA8 at load).
pub(crate) fn uploads_blocks(
    device: &wgpu::Device,
    textures: TextureUpload,
    codec: TextureCodec,
) -> bool {
    // A CPU rasteriser (lavapipe, llvmpipe) decodes a BC block at every
    // fetch: there RGBA8 decoded once here draws faster (the Fox's default
    // bake's impostor capture: 0.45 s against 1.11 s).
    let wanted = match textures {
        TextureUpload::Auto => device.adapter_info().device_type != wgpu::DeviceType::Cpu,
        TextureUpload::Blocks => true,
        TextureUpload::Decoded => false,
    };
    wanted
        && codec.is_block()
        && device
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
}

/// The GPU format of an image stored in `codec`, sampled as sRGB or not.
pub(crate) fn format_of(codec: TextureCodec, srgb: bool) -> wgpu::TextureFormat {
    use wgpu::TextureFormat as F;
    match (codec, srgb) {
        (TextureCodec::Rgba8, s) => rgba8(s),
        (TextureCodec::Bc7, true) => F::Bc7RgbaUnormSrgb,
        (TextureCodec::Bc7, false) => F::Bc7RgbaUnorm,
        (TextureCodec::Bc3, true) => F::Bc3RgbaUnormSrgb,
        (TextureCodec::Bc3, false) => F::Bc3RgbaUnorm,
    }
}

/// The first mip level of `img` whose sides fit `max` texels (the level
/// an upload starts at: larger ones are left out), if any.
pub(crate) fn first_level(img: &throng_core::material::Image, max: u32) -> Option<u32> {
    (0..img.levels.len() as u32).find(|&l| {
        let (w, h) = img.level_size(l);
        w <= max && h <= max
    })
}

/// Uploads image `i` (sRGB or linear) with its baked mip chain: BC blocks
/// as they are or each level decoded to RGBA8 here, as `textures` says.
/// Levels larger than the device's textures are left out (the chain starts
/// at the first that fits).
fn upload_image(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &BakedModel,
    i: usize,
    srgb: bool,
    textures: TextureUpload,
) -> Result<(wgpu::TextureView, u64), RenderError> {
    let img = &model.images[i];
    let err = |msg: String| RenderError::Image {
        model: model.name.clone(),
        index: i,
        name: img.name.clone(),
        msg,
    };
    let max = device.limits().max_texture_dimension_2d;
    let levels = img.levels.len() as u32;
    let Some(first) = first_level(img, max) else {
        return Err(err(format!(
            "no mip level of {}×{} fits {max} texels a side",
            img.width, img.height
        )));
    };
    let (w, h) = img.level_size(first);
    let blocks =
        uploads_blocks(device, textures, img.codec) && img.codec.fits(w) && img.codec.fits(h);
    let codec = if blocks {
        img.codec
    } else {
        TextureCodec::Rgba8
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(&format!("{} image {i} ({})", model.name, img.name)),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: levels - first,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: format_of(codec, srgb),
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut bytes = 0u64;
    for l in first..levels {
        let (lw, lh) = img.level_size(l);
        let data: std::borrow::Cow<[u8]> = if codec == img.codec {
            img.levels[l as usize].as_slice().into()
        } else {
            img.decoded_level(l)
                .ok_or_else(|| err(format!("mip level {l} does not decode")))?
                .into()
        };
        let (row_bytes, rows) = codec.rows(lw, lh);
        // A block level's copy covers whole blocks.
        let (cw, ch) = if blocks {
            (lw.next_multiple_of(BLOCK), lh.next_multiple_of(BLOCK))
        } else {
            (lw, lh)
        };
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: l - first,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row_bytes),
                rows_per_image: Some(rows),
            },
            wgpu::Extent3d {
                width: cw,
                height: ch,
                depth_or_array_layers: 1,
            },
        );
        bytes += data.len() as u64;
    }
    Ok((texture.create_view(&Default::default()), bytes))
}
