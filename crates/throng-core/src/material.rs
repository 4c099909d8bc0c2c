//! Materials and images as a baked model carries them: what the renderer
//! needs of a glTF material (base colour, its texture and sampler wrap,
//! alpha mode, sidedness) and the encoded images it samples.

use glam::Vec4;

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

/// A material, reduced to what Throng draws.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Material name.
    pub name: String,
    /// Linear base colour factor (RGBA).
    pub base_color_factor: Vec4,
    /// Base colour image index, if textured.
    pub base_color_image: Option<u32>,
    /// Wrap modes (u, v) of the base colour sampler.
    pub wrap: [TextureWrap; 2],
    /// Alpha mode.
    pub alpha_mode: AlphaMode,
    /// Alpha cutoff for [`AlphaMode::Mask`].
    pub alpha_cutoff: f32,
    /// Draw back faces too.
    pub double_sided: bool,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: "default".into(),
            base_color_factor: Vec4::ONE,
            base_color_image: None,
            wrap: [TextureWrap::Repeat; 2],
            alpha_mode: AlphaMode::Opaque,
            alpha_cutoff: 0.5,
            double_sided: false,
        }
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
