//! Materials and images: base colour, its texture and sampler wrap, alpha
//! mode, sidedness; images read from buffer views or URIs under the
//! untrusted-input policy.

use std::collections::BTreeMap;

use crate::scene::{AlphaMode, Image, Material, TextureWrap};
use glam::Vec4;
use throng_core::limits::MAX_IMAGE_BYTES;

use crate::error::ImportError;
use crate::uri::{Longer, UriError, shown_uri};

use super::*;

impl Ctx<'_> {
    pub(super) fn materials(
        &self,
        w: &mut Warnings,
    ) -> Result<(Vec<Material>, Vec<Image>), ImportError> {
        let mut images = Vec::new();
        let mut image_map: BTreeMap<usize, Option<u32>> = BTreeMap::new();
        let mut out = Vec::new();
        for mat in self.doc.materials() {
            let i = mat.index().unwrap_or(0);
            let pbr = mat.pbr_metallic_roughness();
            let mut m = Material {
                name: mat
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("material{i}")),
                base_color_factor: Vec4::from_array(pbr.base_color_factor()),
                alpha_mode: match mat.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => AlphaMode::Mask,
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
                alpha_cutoff: mat.alpha_cutoff().unwrap_or(0.5),
                double_sided: mat.double_sided(),
                ..Material::default()
            };
            if let Some(info) = pbr.base_color_texture() {
                if info.tex_coord() != 0 {
                    w.add(format!(
                        "materials[{i}]: base colour uses TEXCOORD_{}; TEXCOORD_0 is used instead",
                        info.tex_coord()
                    ));
                }
                let tex = info.texture();
                let sampler = tex.sampler();
                m.wrap = [wrap(sampler.wrap_s()), wrap(sampler.wrap_t())];
                let src = tex.source().index();
                let slot = match image_map.get(&src) {
                    Some(slot) => *slot,
                    None => {
                        let slot = match self.image(src)? {
                            Ok(img) => {
                                images.push(img);
                                Some(images.len() as u32 - 1)
                            }
                            Err(why) => {
                                w.add(format!(
                                    "images[{src}]: {why}; the material is drawn untextured"
                                ));
                                None
                            }
                        };
                        image_map.insert(src, slot);
                        slot
                    }
                };
                m.base_color_image = slot;
            }
            out.push(m);
        }
        Ok((out, images))
    }

    /// Loads image `i`; the inner `Err` is a reason to skip it (unsupported
    /// format, missing file), the outer one a broken file or a URI the
    /// policy refuses (outside the folder, not a regular file, larger than
    /// [`MAX_IMAGE_BYTES`]).
    pub(super) fn image(&self, i: usize) -> Result<Result<Image, String>, ImportError> {
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
        let mime = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            "image/png"
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            "image/jpeg"
        } else {
            return Ok(Err("not a PNG or JPEG image".into()));
        };
        Ok(Ok(Image {
            name,
            mime: mime.into(),
            bytes,
        }))
    }
}

pub(super) fn wrap(mode: gltf::texture::WrappingMode) -> TextureWrap {
    match mode {
        gltf::texture::WrappingMode::ClampToEdge => TextureWrap::ClampToEdge,
        gltf::texture::WrappingMode::MirroredRepeat => TextureWrap::MirroredRepeat,
        gltf::texture::WrappingMode::Repeat => TextureWrap::Repeat,
    }
}
