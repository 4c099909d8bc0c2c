//! Materials and images: glTF's metallic-roughness material — base colour,
//! metallic and roughness, normal, occlusion and emissive (with
//! `KHR_materials_emissive_strength`), each texture with its sampler wrap
//! and `KHR_texture_transform` — alpha mode and sidedness; images read from
//! buffer views or URIs under the untrusted-input policy and decoded to
//! RGBA8 (PNG or JPEG, at most `MAX_IMAGE_SIDE` texels a side, checked from
//! the header before decoding). A texture whose image cannot be read or
//! decoded is dropped with a warning (the slot's factor alone
//! then applies), as is a texture that asks for a UV set other than
//! `TEXCOORD_0` (the only one baked; read instead).

use std::collections::BTreeMap;

use crate::scene::{AlphaMode, Material, SourceImage, TextureWrap};
use glam::{Vec2, Vec3, Vec4};
use throng_core::limits::{MAX_IMAGE_BYTES, MAX_IMAGE_SIDE};
use throng_core::material::{TextureRef, TextureSlot, UvTransform};

use crate::error::ImportError;
use crate::uri::{Longer, UriError, shown_uri};

use super::*;

/// What a `textureInfo` says.
fn info(t: gltf::texture::Info<'_>) -> SlotSource<'_> {
    SlotSource {
        tex_coord: t.tex_coord(),
        transform: t.texture_transform().map(|x| UvTransform {
            offset: Vec2::from(x.offset()),
            rotation: x.rotation(),
            scale: Vec2::from(x.scale()),
        }),
        texture: t.texture(),
    }
}

/// What a glTF texture reference says, whichever kind it is.
struct SlotSource<'a> {
    texture: gltf::Texture<'a>,
    tex_coord: u32,
    transform: Option<UvTransform>,
}

impl Ctx<'_> {
    pub(super) fn materials(
        &self,
        w: &mut Warnings,
    ) -> Result<(Vec<Material>, Vec<SourceImage>), ImportError> {
        let mut images = Vec::new();
        let mut image_map: BTreeMap<usize, Option<u32>> = BTreeMap::new();
        let mut out = Vec::new();
        for mat in self.doc.materials() {
            let i = mat.index().unwrap_or(0);
            let pbr = mat.pbr_metallic_roughness();
            let strength = mat.emissive_strength().unwrap_or(1.0);
            let mut m = Material {
                name: mat
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("material{i}")),
                base_color_factor: Vec4::from_array(pbr.base_color_factor()),
                metallic_factor: pbr.metallic_factor().clamp(0.0, 1.0),
                roughness_factor: pbr.roughness_factor().clamp(0.0, 1.0),
                normal_scale: mat.normal_texture().map_or(1.0, |t| t.scale()),
                occlusion_strength: mat
                    .occlusion_texture()
                    .map_or(1.0, |t| t.strength().clamp(0.0, 1.0)),
                emissive: Vec3::from_array(mat.emissive_factor()) * strength.max(0.0),
                alpha_mode: match mat.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => AlphaMode::Mask,
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
                alpha_cutoff: mat.alpha_cutoff().unwrap_or(0.5),
                double_sided: mat.double_sided(),
                ..Material::default()
            };
            let sources = [
                pbr.base_color_texture().map(info),
                pbr.metallic_roughness_texture().map(info),
                mat.normal_texture().map(|t| SlotSource {
                    tex_coord: t.tex_coord(),
                    transform: transform_value(t.extension_value("KHR_texture_transform")),
                    texture: t.texture(),
                }),
                mat.occlusion_texture().map(|t| SlotSource {
                    tex_coord: t.tex_coord(),
                    transform: transform_value(t.extension_value("KHR_texture_transform")),
                    texture: t.texture(),
                }),
                mat.emissive_texture().map(info),
            ];
            for (slot, source) in TextureSlot::ALL.into_iter().zip(sources) {
                let Some(source) = source else { continue };
                let here = || format!("materials[{i}].{}", slot.name());
                if source.tex_coord != 0 {
                    w.add(format!(
                        "{}: uses TEXCOORD_{}; TEXCOORD_0 is used instead",
                        here(),
                        source.tex_coord
                    ));
                }
                let transform = source.transform.unwrap_or_default();
                if !transform.is_finite() {
                    w.add(format!(
                        "{}: KHR_texture_transform is not finite; the texture is drawn untransformed",
                        here()
                    ));
                }
                let sampler = source.texture.sampler();
                let src = source.texture.source().index();
                let slot_image = match image_map.get(&src) {
                    Some(slot) => *slot,
                    None => {
                        let loaded = match self.image(src)? {
                            Ok(img) => {
                                images.push(img);
                                Some(images.len() as u32 - 1)
                            }
                            Err(why) => {
                                w.add(format!(
                                    "images[{src}]: {why}; the materials that use it are drawn without it"
                                ));
                                None
                            }
                        };
                        image_map.insert(src, loaded);
                        loaded
                    }
                };
                m.textures[slot as usize] = slot_image.map(|image| TextureRef {
                    image,
                    wrap: [wrap(sampler.wrap_s()), wrap(sampler.wrap_t())],
                    transform: if transform.is_finite() {
                        transform
                    } else {
                        UvTransform::IDENTITY
                    },
                });
            }
            out.push(m);
        }
        Ok((out, images))
    }

    /// Loads and decodes image `i`; the inner `Err` is a reason to skip it
    /// (unsupported format, missing file, undecodable bytes, a size over
    /// [`MAX_IMAGE_SIDE`] — read from the header before any texel is
    /// decoded), the outer one a broken file or a URI the policy refuses
    /// (outside the folder, not a regular file, larger than
    /// [`MAX_IMAGE_BYTES`]).
    pub(super) fn image(&self, i: usize) -> Result<Result<SourceImage, String>, ImportError> {
        let json = &self.doc.as_json().images[i];
        let name = json
            .name
            .clone()
            .or_else(|| json.uri.clone().filter(|u| !u.starts_with("data:")))
            .unwrap_or_else(|| format!("image{i}"));
        let bytes = if let Some(view_index) = &json.buffer_view {
            let Some(view) = self.doc.views().nth(view_index.value()) else {
                return Err(bad_value(
                    format!("images[{i}].bufferView"),
                    "is out of range",
                ));
            };
            let path = || format!("images[{i}].bufferView");
            let data = self
                .buffers
                .data
                .get(view.buffer().index())
                .ok_or_else(|| bad_value(path(), "names a missing buffer"))?;
            let end = view
                .offset()
                .checked_add(view.length())
                .filter(|&e| e <= data.len());
            let Some(end) = end else {
                return Err(bad_value(path(), "runs past the end of its buffer"));
            };
            data[view.offset()..end].to_vec()
        } else if let Some(uri) = &json.uri {
            let refused = |msg| ImportError::Uri {
                path: format!("images[{i}].uri"),
                uri: shown_uri(uri),
                msg,
            };
            match self.uris.read(uri, MAX_IMAGE_BYTES, Longer::Refuse) {
                Ok(bytes) => bytes,
                Err(UriError::Refused(msg)) => return Err(refused(msg)),
                Err(UriError::TooLong { len, limit }) => {
                    return Err(refused(format!(
                        "is {len} bytes, more than the {limit}-byte limit for an image"
                    )));
                }
                Err(UriError::Unreadable(msg)) => return Ok(Err(msg)),
            }
        } else {
            return Err(bad_value(
                format!("images[{i}]"),
                "has neither uri nor bufferView",
            ));
        };
        let format = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            image::ImageFormat::Png
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            image::ImageFormat::Jpeg
        } else {
            return Ok(Err("not a PNG or JPEG image".into()));
        };
        Ok(decode(name, &bytes, format))
    }
}

/// `bytes` (a PNG or JPEG) decoded to RGBA8, or why not: a size over
/// [`MAX_IMAGE_SIDE`] is refused from the header, before any texel is
/// decoded, and the decoder is held to that size's memory.
fn decode(name: String, bytes: &[u8], format: image::ImageFormat) -> Result<SourceImage, String> {
    let reader = || image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let (w, h) = reader()
        .into_dimensions()
        .map_err(|e| format!("cannot be decoded ({e})"))?;
    if w == 0 || h == 0 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
        return Err(format!(
            "is {w}×{h}, outside the 1..={MAX_IMAGE_SIDE} texels a side an image may have"
        ));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    // The texels at 16 bits a channel, and the RGBA8 copy.
    limits.max_alloc = Some(w as u64 * h as u64 * 12);
    let mut r = reader();
    r.limits(limits);
    let rgba = r
        .decode()
        .map_err(|e| format!("cannot be decoded ({e})"))?
        .into_rgba8();
    Ok(SourceImage {
        name,
        width: w,
        height: h,
        rgba: rgba.into_raw(),
    })
}

pub(super) fn wrap(mode: gltf::texture::WrappingMode) -> TextureWrap {
    match mode {
        gltf::texture::WrappingMode::ClampToEdge => TextureWrap::ClampToEdge,
        gltf::texture::WrappingMode::MirroredRepeat => TextureWrap::MirroredRepeat,
        gltf::texture::WrappingMode::Repeat => TextureWrap::Repeat,
    }
}

/// A `KHR_texture_transform` object read from its JSON (normal and
/// occlusion textures, whose typed form lacks it); missing fields take the
/// extension's defaults, anything unreadable reads as no transform.
fn transform_value(v: Option<&serde_json::Value>) -> Option<UvTransform> {
    let v = v?.as_object()?;
    let pair = |key: &str, default: Vec2| match v.get(key) {
        None => Some(default),
        Some(x) => {
            let a = x.as_array()?;
            Some(Vec2::new(
                a.first()?.as_f64()? as f32,
                a.get(1)?.as_f64()? as f32,
            ))
        }
    };
    Some(UvTransform {
        offset: pair("offset", Vec2::ZERO)?,
        rotation: match v.get("rotation") {
            None => 0.0,
            Some(r) => r.as_f64()? as f32,
        },
        scale: pair("scale", Vec2::ONE)?,
    })
}
