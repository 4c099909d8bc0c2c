//! Materials and images as a baked model carries them: glTF's
//! metallic-roughness material — base colour, metallic and roughness,
//! normal, occlusion and emissive (with `KHR_materials_emissive_strength`),
//! each texture with its sampler wrap and `KHR_texture_transform` — alpha
//! mode and sidedness; and the encoded images the textures sample.

use glam::{Mat3, Vec2, Vec3, Vec4};

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

/// An encoded image (PNG or JPEG bytes, as stored in the glTF).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Image name or URI.
    pub name: String,
    /// MIME type (`image/png`, `image/jpeg`).
    pub mime: String,
    /// Encoded bytes.
    pub bytes: Vec<u8>,
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
