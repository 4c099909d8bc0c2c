//! Materials and images as a baked model carries them: glTF's
//! metallic-roughness material — base colour, metallic and roughness,
//! normal, occlusion and emissive (with `KHR_materials_emissive_strength`),
//! each texture with its sampler wrap and `KHR_texture_transform` — alpha
//! mode and sidedness; and the baked images the textures sample (mip
//! chains stored GPU-ready in a [`TextureCodec`]).

use glam::{Mat3, Vec2, Vec3, Vec4};

use crate::limits::MAX_IMAGE_SIDE;
use crate::texture_codec::{BLOCK, TextureCodec, decode_level, mip_levels, mip_size};

/// How alpha is treated (glTF `alphaMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque = 0,
    /// Fragments below the cutoff are discarded.
    Mask = 1,
    /// Alpha blended.
    Blend = 2,
}

/// Texture addressing mode (glTF sampler `wrapS`/`wrapT`). Not to be
/// confused with a clip's playback wrap (`throng_core::clock::WrapMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TextureWrap {
    /// Repeat.
    #[default]
    Repeat = 0,
    /// Clamp to edge.
    ClampToEdge = 1,
    /// Mirrored repeat.
    MirroredRepeat = 2,
}

impl TextureWrap {
    /// The mode of code `code` (its discriminant), if any.
    pub fn from_code(code: u32) -> Option<Self> {
        [Self::Repeat, Self::ClampToEdge, Self::MirroredRepeat]
            .into_iter()
            .find(|w| *w as u32 == code)
    }
}

/// `KHR_texture_transform`: texture coordinates are scaled, then rotated
/// (counter-clockwise, radians), then offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    /// Offset.
    pub offset: Vec2,
    /// Rotation in radians.
    pub rotation: f32,
    /// Scale.
    pub scale: Vec2,
}

impl Default for UvTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl UvTransform {
    /// No transform.
    pub const IDENTITY: UvTransform = UvTransform {
        offset: Vec2::ZERO,
        rotation: 0.0,
        scale: Vec2::ONE,
    };

    /// The transform as a matrix on `(u, v, 1)`, as the extension defines
    /// it: `T · R · S`.
    pub fn matrix(&self) -> Mat3 {
        let (s, c) = self.rotation.sin_cos();
        let translation = Mat3::from_cols(Vec3::X, Vec3::Y, self.offset.extend(1.0));
        let rotation = Mat3::from_cols(Vec3::new(c, -s, 0.0), Vec3::new(s, c, 0.0), Vec3::Z);
        let scale = Mat3::from_diagonal(self.scale.extend(1.0));
        translation * rotation * scale
    }

    /// Whether every number is finite.
    pub fn is_finite(&self) -> bool {
        self.offset.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

/// A material's use of an image: which, with which wrap and UV transform.
/// Every texture reads the vertices' one UV set (`TEXCOORD_0`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TextureRef {
    /// Index into the model's images.
    pub image: u32,
    /// Wrap modes (u, v) of its sampler.
    pub wrap: [TextureWrap; 2],
    /// Its `KHR_texture_transform`.
    pub transform: UvTransform,
}

impl TextureRef {
    /// Image `image`, repeating, untransformed.
    pub fn new(image: u32) -> Self {
        Self {
            image,
            ..Self::default()
        }
    }
}

/// The texture slots of a material, in the order the file stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureSlot {
    /// sRGB base colour (RGBA).
    BaseColor = 0,
    /// Linear; roughness in green, metallic in blue.
    MetallicRoughness = 1,
    /// Linear tangent-space normal.
    Normal = 2,
    /// Linear; occlusion in red.
    Occlusion = 3,
    /// sRGB emissive colour.
    Emissive = 4,
}

impl TextureSlot {
    /// Every slot, in file order.
    pub const ALL: [TextureSlot; 5] = [
        TextureSlot::BaseColor,
        TextureSlot::MetallicRoughness,
        TextureSlot::Normal,
        TextureSlot::Occlusion,
        TextureSlot::Emissive,
    ];

    /// The slot's name (as glTF calls the texture).
    pub fn name(self) -> &'static str {
        match self {
            TextureSlot::BaseColor => "baseColorTexture",
            TextureSlot::MetallicRoughness => "metallicRoughnessTexture",
            TextureSlot::Normal => "normalTexture",
            TextureSlot::Occlusion => "occlusionTexture",
            TextureSlot::Emissive => "emissiveTexture",
        }
    }

    /// Whether the slot's texels are sRGB-encoded colour (else linear data).
    pub fn is_srgb(self) -> bool {
        matches!(self, TextureSlot::BaseColor | TextureSlot::Emissive)
    }
}

/// A glTF metallic-roughness material.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Material name.
    pub name: String,
    /// Linear base colour factor (RGBA).
    pub base_color_factor: Vec4,
    /// Metalness factor in `[0, 1]`.
    pub metallic_factor: f32,
    /// Perceptual roughness factor in `[0, 1]`.
    pub roughness_factor: f32,
    /// Scale of the normal map's x and y.
    pub normal_scale: f32,
    /// How much the occlusion map darkens, in `[0, 1]`.
    pub occlusion_strength: f32,
    /// Linear emissive colour: `emissiveFactor` × its
    /// `KHR_materials_emissive_strength` (may exceed 1).
    pub emissive: Vec3,
    /// Textures by slot ([`TextureSlot`] order).
    pub textures: [Option<TextureRef>; 5],
    /// Alpha mode.
    pub alpha_mode: AlphaMode,
    /// Alpha cutoff for [`AlphaMode::Mask`].
    pub alpha_cutoff: f32,
    /// Draw back faces too.
    pub double_sided: bool,
}

impl Default for Material {
    /// glTF's default material (what a primitive without a material is
    /// drawn with): white, metallic 1, roughness 1, no textures, opaque.
    fn default() -> Self {
        Self {
            name: "default".into(),
            base_color_factor: Vec4::ONE,
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            emissive: Vec3::ZERO,
            textures: [None; 5],
            alpha_mode: AlphaMode::Opaque,
            alpha_cutoff: 0.5,
            double_sided: false,
        }
    }
}

impl Material {
    /// The texture in `slot`, if any.
    pub fn texture(&self, slot: TextureSlot) -> Option<&TextureRef> {
        self.textures[slot as usize].as_ref()
    }

    /// The base colour texture, if any.
    pub fn base_color_texture(&self) -> Option<&TextureRef> {
        self.texture(TextureSlot::BaseColor)
    }

    /// Why the material is unfit for a model of `images` images, if it is:
    /// an image index out of range, or a factor that is not finite or out
    /// of its range.
    pub fn check(&self, images: usize) -> Result<(), String> {
        for slot in TextureSlot::ALL {
            if let Some(t) = self.texture(slot) {
                if t.image as usize >= images {
                    return Err(format!(
                        "its {} uses image {} (there are {images})",
                        slot.name(),
                        t.image
                    ));
                }
                if !t.transform.is_finite() {
                    return Err(format!("its {} transform is not finite", slot.name()));
                }
            }
        }
        let unit = |v: f32| v.is_finite() && (0.0..=1.0).contains(&v);
        if !self.base_color_factor.is_finite()
            || !self.alpha_cutoff.is_finite()
            || !self.normal_scale.is_finite()
            || !self.emissive.is_finite()
        {
            return Err("a factor is not finite".into());
        }
        if !unit(self.metallic_factor)
            || !unit(self.roughness_factor)
            || !unit(self.occlusion_strength)
        {
            return Err(format!(
                "metallic {}, roughness {} and occlusion strength {} must be within 0..=1",
                self.metallic_factor, self.roughness_factor, self.occlusion_strength
            ));
        }
        if self.emissive.min_element() < 0.0 {
            return Err(format!("emissive {} is negative", self.emissive));
        }
        Ok(())
    }
}

/// What an image's texels are, which decides how its mip chain was
/// filtered at bake and how it is sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ImageContent {
    /// sRGB-encoded colour (base colour, emissive): mips averaged as
    /// sRGB codes, weighted by alpha (`throng_bake::images`).
    #[default]
    Colour = 0,
    /// Linear data (metallic-roughness, occlusion): mips averaged as
    /// stored.
    Data = 1,
    /// A tangent-space normal map: mips averaged as vectors and
    /// renormalised.
    Normal = 2,
}

impl ImageContent {
    /// The content of code `code` (its discriminant), if any.
    pub fn from_code(code: u32) -> Option<Self> {
        [Self::Colour, Self::Data, Self::Normal]
            .into_iter()
            .find(|c| *c as u32 == code)
    }

    /// A short name (`colour`, `data`, `normal`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Colour => "colour",
            Self::Data => "data",
            Self::Normal => "normal",
        }
    }
}

/// A baked image: decoded from the glTF's PNG or JPEG at bake, with its
/// full mip chain generated there, each level stored in `codec` and ready
/// for the GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Image name or URI.
    pub name: String,
    /// Width of level 0, texels.
    pub width: u32,
    /// Height of level 0, texels.
    pub height: u32,
    /// How every level is stored.
    pub codec: TextureCodec,
    /// What the texels are.
    pub content: ImageContent,
    /// The mip chain, level 0 first, down to 1 × 1.
    pub levels: Vec<Vec<u8>>,
}

impl Image {
    /// The size of level `level`.
    pub fn level_size(&self, level: u32) -> (u32, u32) {
        mip_size(self.width, self.height, level)
    }

    /// Bytes of every level.
    pub fn bytes(&self) -> u64 {
        self.levels.iter().map(|l| l.len() as u64).sum()
    }

    /// Level `level` as RGBA8 (decoded from `codec`); `None` past the
    /// chain or if the level's size is wrong.
    pub fn decoded_level(&self, level: u32) -> Option<Vec<u8>> {
        let (w, h) = self.level_size(level);
        decode_level(self.codec, self.levels.get(level as usize)?, w, h)
    }

    /// The image's mean colour, linear RGB as a material samples it: its
    /// last mip level (the chain's 1 × 1 average) decoded, its RGB read as
    /// sRGB where the image holds colour. `None` if that level is missing
    /// or the wrong size.
    pub fn mean_colour(&self) -> Option<glam::Vec3> {
        let last = self.levels.len().checked_sub(1)? as u32;
        let texel = self.decoded_level(last)?;
        let [r, g, b] = [texel[0], texel[1], texel[2]].map(|c| {
            let v = c as f32 / 255.0;
            if self.content != ImageContent::Colour {
                v
            } else if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        });
        Some(glam::Vec3::new(r, g, b))
    }

    /// Checks the validity rule of images: a size within
    /// [`MAX_IMAGE_SIDE`], sides a whole number of blocks for a block codec,
    /// the full mip chain and each level's bytes what its size and codec
    /// need.
    pub fn check(&self) -> Result<(), String> {
        let (w, h) = (self.width, self.height);
        if w == 0 || h == 0 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
            return Err(format!(
                "{w}×{h} is outside 1..={MAX_IMAGE_SIDE} texels a side"
            ));
        }
        if !self.codec.fits(w) || !self.codec.fits(h) {
            return Err(format!(
                "{w}×{h} is not a whole number of {BLOCK}×{BLOCK} blocks, which {} needs",
                self.codec.name()
            ));
        }
        let want = mip_levels(w, h);
        if self.levels.len() != want as usize {
            return Err(format!(
                "has {} mip levels; a {w}×{h} image has {want}",
                self.levels.len()
            ));
        }
        for (l, bytes) in self.levels.iter().enumerate() {
            let (lw, lh) = self.level_size(l as u32);
            let need = self.codec.level_bytes(lw, lh);
            if bytes.len() as u64 != need {
                return Err(format!(
                    "mip level {l} ({lw}×{lh}, {}) is {} bytes, not {need}",
                    self.codec.name(),
                    bytes.len()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uv_transform_is_scale_then_rotation_then_offset() {
        let t = UvTransform {
            offset: Vec2::new(0.5, 0.25),
            rotation: std::f32::consts::FRAC_PI_2,
            scale: Vec2::new(2.0, 3.0),
        };
        // (1, 0) → scaled (2, 0) → rotated per the extension's matrix
        // (x' = c·x + s·y, y' = −s·x + c·y) → (0, −2) → offset.
        let p = t.matrix() * Vec3::new(1.0, 0.0, 1.0);
        assert!(p.abs_diff_eq(Vec3::new(0.5, -1.75, 1.0), 1e-6), "{p}");
        assert_eq!(UvTransform::IDENTITY.matrix(), Mat3::IDENTITY);
    }

    #[test]
    fn check_names_what_is_wrong() {
        let mut m = Material::default();
        assert_eq!(m.check(0), Ok(()));
        m.textures[TextureSlot::Normal as usize] = Some(TextureRef::new(2));
        assert!(
            m.check(2)
                .unwrap_err()
                .contains("normalTexture uses image 2")
        );
        assert_eq!(m.check(3), Ok(()));
        m.roughness_factor = 1.5;
        assert!(m.check(3).unwrap_err().contains("roughness 1.5"));
        m.roughness_factor = 0.5;
        m.emissive = Vec3::new(0.0, f32::NAN, 0.0);
        assert!(m.check(3).unwrap_err().contains("not finite"));
        m.emissive = Vec3::ONE;
        m.textures[TextureSlot::Normal as usize]
            .as_mut()
            .unwrap()
            .transform
            .rotation = f32::INFINITY;
        assert!(m.check(3).unwrap_err().contains("transform"));
    }

    #[test]
    fn image_check_names_what_is_wrong() {
        let mut img = Image {
            name: "a".into(),
            width: 8,
            height: 4,
            codec: TextureCodec::Bc7,
            content: ImageContent::Colour,
            levels: (0..4)
                .map(|l| {
                    let (w, h) = mip_size(8, 4, l);
                    vec![0; TextureCodec::Bc7.level_bytes(w, h) as usize]
                })
                .collect(),
        };
        assert_eq!(img.check(), Ok(()));
        assert_eq!(img.bytes(), 2 * 16 + 16 + 16 + 16);
        assert_eq!(img.decoded_level(3).map(|l| l.len()), Some(4));
        assert!(img.decoded_level(4).is_none());
        img.levels[2].pop();
        assert!(
            img.check()
                .unwrap_err()
                .contains("mip level 2 (2×1, bc7) is 15 bytes")
        );
        img.levels.pop();
        assert!(img.check().unwrap_err().contains("has 3 mip levels"));
        img.width = 6;
        assert!(
            img.check()
                .unwrap_err()
                .contains("whole number of 4×4 blocks")
        );
        img.width = MAX_IMAGE_SIDE + 4;
        assert!(img.check().unwrap_err().contains("outside"));
        for c in [
            ImageContent::Colour,
            ImageContent::Data,
            ImageContent::Normal,
        ] {
            assert_eq!(ImageContent::from_code(c as u32), Some(c));
        }
        assert_eq!(ImageContent::from_code(3), None);
    }

    #[test]
    fn wrap_codes_round_trip() {
        for w in [
            TextureWrap::Repeat,
            TextureWrap::ClampToEdge,
            TextureWrap::MirroredRepeat,
        ] {
            assert_eq!(TextureWrap::from_code(w as u32), Some(w));
        }
        assert_eq!(TextureWrap::from_code(3), None);
    }
}
