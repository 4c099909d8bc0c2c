//! Materials and images: glTF's metallic-roughness material — base colour,
//! metallic and roughness, normal, occlusion and emissive (with
//! `KHR_materials_emissive_strength`), each texture with its sampler wrap
//! and `KHR_texture_transform` — alpha mode and sidedness; images read from
//! buffer views or URIs under the untrusted-input policy and decoded to
//! RGBA8 by `image_bytes` (PNG, JPEG, WebP or KTX2). A texture whose image cannot be read or
//! decoded is dropped with a warning (the slot's factor alone
//! then applies), as is a texture that asks for a UV set other than
//! `TEXCOORD_0` (the only one baked; read instead).

use std::collections::BTreeMap;

use crate::scene::{AlphaMode, Material, SourceImage, TextureWrap};
use glam::{Vec2, Vec3, Vec4};
use gltf::json::material::AlphaMode as JsonAlphaMode;
use throng_core::limits::MAX_IMAGE_BYTES;
use throng_core::material::{TextureRef, TextureSlot, UvTransform};

use crate::error::ImportError;
use crate::gltf_doc::{ImageSource, WrappingMode};
use crate::uri::{Longer, UriError, shown_uri};

use super::image_bytes;

use super::*;

/// What a glTF texture reference says, whichever kind it is.
struct SlotSource {
    /// Index in `textures` (checked when the slot is read).
    texture: usize,
    tex_coord: u32,
    transform: Option<UvTransform>,
}

/// What a `textureInfo` says.
fn info(t: &gltf::json::texture::Info) -> SlotSource {
    SlotSource {
        texture: t.index.value(),
        tex_coord: t.tex_coord,
        transform: t
            .extensions
            .as_ref()
            .and_then(|e| e.texture_transform.as_ref())
            .map(|x| UvTransform {
                offset: Vec2::from(x.offset.0),
                rotation: x.rotation.0,
                scale: Vec2::from(x.scale.0),
            }),
    }
}

/// What a normal or occlusion texture reference says (their typed form
/// lacks `KHR_texture_transform`: it is read from the extension's JSON).
fn other_info<E: HasOthers>(
    index: gltf::json::Index<gltf::json::texture::Texture>,
    tex_coord: u32,
    extensions: &Option<E>,
) -> SlotSource {
    SlotSource {
        texture: index.value(),
        tex_coord,
        transform: transform_value(
            extensions
                .as_ref()
                .and_then(|e| e.others().get("KHR_texture_transform")),
        ),
    }
}

/// The extension objects of a normal and an occlusion texture reference,
/// whose unknown members (`KHR_texture_transform`) are kept as JSON.
trait HasOthers {
    fn others(&self) -> &serde_json::Map<String, serde_json::Value>;
}

impl HasOthers for gltf::json::extensions::material::NormalTexture {
    fn others(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.others
    }
}

impl HasOthers for gltf::json::extensions::material::OcclusionTexture {
    fn others(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.others
    }
}

/// The images read so far, each image index loaded once however many
/// textures use it.
#[derive(Default)]
struct LoadedImages {
    images: Vec<SourceImage>,
    /// Per glTF image index, its index in `images`; `None` for one that
    /// could not be read (its warning already given).
    by_source: BTreeMap<usize, Option<u32>>,
}

/// A material's factors, alpha mode and sidedness, without its textures.
fn untextured(i: usize, mat: &gltf::json::Material) -> Result<Material, ImportError> {
    let pbr = &mat.pbr_metallic_roughness;
    let strength = mat
        .extensions
        .as_ref()
        .and_then(|e| e.emissive_strength.as_ref())
        .map_or(1.0, |s| s.emissive_strength.0);
    Ok(Material {
        name: mat.name.clone().unwrap_or_else(|| format!("material{i}")),
        base_color_factor: Vec4::from_array(pbr.base_color_factor.0),
        metallic_factor: pbr.metallic_factor.0.clamp(0.0, 1.0),
        roughness_factor: pbr.roughness_factor.0.clamp(0.0, 1.0),
        normal_scale: mat.normal_texture.as_ref().map_or(1.0, |t| t.scale),
        occlusion_strength: mat
            .occlusion_texture
            .as_ref()
            .map_or(1.0, |t| t.strength.0.clamp(0.0, 1.0)),
        emissive: Vec3::from_array(mat.emissive_factor.0) * strength.max(0.0),
        alpha_mode: match crate::gltf_doc::checked(&mat.alpha_mode, || {
            format!("materials[{i}].alphaMode")
        })? {
            JsonAlphaMode::Opaque => AlphaMode::Opaque,
            JsonAlphaMode::Mask => AlphaMode::Mask,
            JsonAlphaMode::Blend => AlphaMode::Blend,
        },
        alpha_cutoff: mat.alpha_cutoff.map_or(0.5, |c| c.0),
        double_sided: mat.double_sided,
        ..Material::default()
    })
}

/// A material's texture references in [`TextureSlot::ALL`] order.
fn slot_sources(mat: &gltf::json::Material) -> [Option<SlotSource>; 5] {
    let pbr = &mat.pbr_metallic_roughness;
    [
        pbr.base_color_texture.as_ref().map(info),
        pbr.metallic_roughness_texture.as_ref().map(info),
        mat.normal_texture
            .as_ref()
            .map(|t| other_info(t.index, t.tex_coord, &t.extensions)),
        mat.occlusion_texture
            .as_ref()
            .map(|t| other_info(t.index, t.tex_coord, &t.extensions)),
        mat.emissive_texture.as_ref().map(info),
    ]
}

impl Ctx<'_> {
    /// Every material with its textures, and the images they use.
    pub(super) fn materials(
        &self,
        w: &mut Warnings,
    ) -> Result<(Vec<Material>, Vec<SourceImage>), ImportError> {
        let mut loaded = LoadedImages::default();
        let mut out = Vec::new();
        for (i, mat) in self.doc.json().materials.iter().enumerate() {
            let mut m = untextured(i, mat)?;
            for (slot, source) in TextureSlot::ALL.into_iter().zip(slot_sources(mat)) {
                let Some(source) = source else { continue };
                m.textures[slot as usize] = self.texture_ref(i, slot, &source, &mut loaded, w)?;
            }
            out.push(m);
        }
        Ok((out, loaded.images))
    }

    /// Material `i`'s texture in `slot`: `None` (with a warning) if its
    /// texture or image cannot be read. A UV set other than `TEXCOORD_0`
    /// and a transform that is not finite are warned about (and replaced).
    fn texture_ref(
        &self,
        i: usize,
        slot: TextureSlot,
        source: &SlotSource,
        loaded: &mut LoadedImages,
        w: &mut Warnings,
    ) -> Result<Option<TextureRef>, ImportError> {
        let here = || format!("materials[{i}].{}", slot.name());
        let texture = match self
            .doc
            .texture(source.texture, || format!("{}.index", here()))
        {
            Ok(texture) => texture,
            Err(why) => {
                w.add(format!("{why}; the material is drawn without it"));
                return Ok(None);
            }
        };
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
        let slot_image = self.loaded_image(texture.image, loaded, w)?;
        Ok(slot_image.map(|image| TextureRef {
            image,
            wrap: texture.wrap.map(wrap),
            transform: if transform.is_finite() {
                transform
            } else {
                UvTransform::IDENTITY
            },
        }))
    }

    /// Image `src`'s index in `loaded`, loading it on first use; `None`
    /// (warned about once) for an image that cannot be read.
    fn loaded_image(
        &self,
        src: usize,
        loaded: &mut LoadedImages,
        w: &mut Warnings,
    ) -> Result<Option<u32>, ImportError> {
        if let Some(slot) = loaded.by_source.get(&src) {
            return Ok(*slot);
        }
        let index = match self.image(src, w)? {
            Ok(img) => {
                loaded.images.push(img);
                Some(loaded.images.len() as u32 - 1)
            }
            Err(why) => {
                w.add(format!(
                    "images[{src}]: {why}; the materials that use it are drawn without it"
                ));
                None
            }
        };
        loaded.by_source.insert(src, index);
        Ok(index)
    }

    /// Loads and decodes image `i`; the inner `Err` is a reason to skip it
    /// (an image object that breaks glTF's rules — neither `uri` nor
    /// `bufferView`, a view out of range or past its buffer —, an
    /// unsupported format, a missing file, undecodable bytes, a size over
    /// `MAX_IMAGE_SIDE` — read from the header before any texel is
    /// decoded), the outer one a URI the policy refuses (outside the
    /// folder, not a regular file, larger than [`MAX_IMAGE_BYTES`]).
    pub(super) fn image(
        &self,
        i: usize,
        w: &mut Warnings,
    ) -> Result<Result<SourceImage, String>, ImportError> {
        let json = &self.doc.json().images[i];
        let name = json
            .name
            .clone()
            .or_else(|| json.uri.clone().filter(|u| !u.starts_with("data:")))
            .unwrap_or_else(|| format!("image{i}"));
        let source = match self.doc.image(i) {
            Ok((source, note)) => {
                if let Some(note) = note {
                    w.add(note);
                }
                source
            }
            Err(e) => return Ok(Err(e.to_string())),
        };
        let bytes = match source {
            ImageSource::View(view) => {
                let path = || format!("images[{i}].bufferView");
                match self.buffers.view(&view, &path) {
                    Ok(bytes) => bytes.to_vec(),
                    Err(e) => return Ok(Err(e.to_string())),
                }
            }
            ImageSource::Uri(uri) => {
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
            }
        };
        Ok(image_bytes::decode(name, &bytes))
    }
}

pub(super) fn wrap(mode: WrappingMode) -> TextureWrap {
    match mode {
        WrappingMode::ClampToEdge => TextureWrap::ClampToEdge,
        WrappingMode::MirroredRepeat => TextureWrap::MirroredRepeat,
        WrappingMode::Repeat => TextureWrap::Repeat,
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
