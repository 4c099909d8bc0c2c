//! `MATL` on disk: a material's record with its five texture slots, and
//! the conversions between it and [`Material`]. The reader checks every
//! code and number it converts (a wrap or alpha mode it does not know, an
//! unknown flag) and says which material; ranges and image indices are
//! `BakedModel::validate`'s (`Material::check`).

use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3, Vec4};

use super::{NONE, StrRef};
use crate::error::FormatError;
use crate::material::{AlphaMode, Material, TextureRef, TextureSlot, TextureWrap, UvTransform};

/// One texture slot of a material (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct TextureSlotRecord {
    /// Image index, or [`NONE`] for an empty slot.
    pub image: u32,
    /// Wrap u in bits 0 to 7, wrap v in bits 8 to 15 (0 repeat, 1 clamp to
    /// edge, 2 mirrored repeat).
    pub wrap: u32,
    /// `KHR_texture_transform` offset.
    pub offset: [f32; 2],
    /// Its scale.
    pub scale: [f32; 2],
    /// Its rotation in radians.
    pub rotation: f32,
    /// Zero.
    pub reserved: u32,
}

/// `MATL`: one material (224 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct MaterialRecord {
    /// Material name.
    pub name: StrRef,
    /// Base colour factor (linear RGBA).
    pub base_color_factor: [f32; 4],
    /// Emissive colour (linear; factor × strength).
    pub emissive: [f32; 3],
    /// Metalness factor.
    pub metallic_factor: f32,
    /// Roughness factor.
    pub roughness_factor: f32,
    /// Normal map scale.
    pub normal_scale: f32,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// 0 opaque, 1 mask, 2 blend.
    pub alpha_mode: u32,
    /// Alpha cutoff.
    pub alpha_cutoff: f32,
    /// Bit 0: double-sided.
    pub flags: u32,
    /// Texture slots in [`TextureSlot`] order.
    pub textures: [TextureSlotRecord; 5],
}

const _: () = assert!(std::mem::size_of::<TextureSlotRecord>() == 32);
const _: () = assert!(std::mem::size_of::<MaterialRecord>() == 224);

impl TextureSlotRecord {
    fn from_texture(t: Option<&TextureRef>) -> Self {
        match t {
            None => Self {
                image: NONE,
                ..Self::from_texture(Some(&TextureRef::default()))
            },
            Some(t) => Self {
                image: t.image,
                wrap: t.wrap[0] as u32 | (t.wrap[1] as u32) << 8,
                offset: t.transform.offset.into(),
                scale: t.transform.scale.into(),
                rotation: t.transform.rotation,
                reserved: 0,
            },
        }
    }

    fn to_texture(self, what: &dyn Fn() -> String) -> Result<Option<TextureRef>, FormatError> {
        if self.image == NONE {
            return Ok(None);
        }
        let wrap = |code: u32| {
            TextureWrap::from_code(code).ok_or_else(|| {
                FormatError::corrupt(format!("{} has unknown wrap mode {code}", what()))
            })
        };
        if self.reserved != 0 {
            return Err(FormatError::corrupt(format!(
                "{} has reserved word {:#x}, not 0",
                what(),
                self.reserved
            )));
        }
        if self.wrap >> 16 != 0 {
            return Err(FormatError::corrupt(format!(
                "{} has unknown wrap bits {:#x}",
                what(),
                self.wrap
            )));
        }
        Ok(Some(TextureRef {
            image: self.image,
            wrap: [wrap(self.wrap & 0xff)?, wrap(self.wrap >> 8)?],
            transform: UvTransform {
                offset: Vec2::from(self.offset),
                rotation: self.rotation,
                scale: Vec2::from(self.scale),
            },
        }))
    }
}

impl MaterialRecord {
    /// The record of `m`, its name at `name`.
    pub(super) fn from_material(m: &Material, name: StrRef) -> Self {
        Self {
            name,
            base_color_factor: m.base_color_factor.into(),
            emissive: m.emissive.into(),
            metallic_factor: m.metallic_factor,
            roughness_factor: m.roughness_factor,
            normal_scale: m.normal_scale,
            occlusion_strength: m.occlusion_strength,
            alpha_mode: m.alpha_mode as u32,
            alpha_cutoff: m.alpha_cutoff,
            flags: m.double_sided as u32,
            textures: TextureSlot::ALL.map(|s| TextureSlotRecord::from_texture(m.texture(s))),
        }
    }

    /// Material `i` of this record, named `name`.
    pub(super) fn to_material(self, i: usize, name: String) -> Result<Material, FormatError> {
        let alpha_mode = match self.alpha_mode {
            0 => AlphaMode::Opaque,
            1 => AlphaMode::Mask,
            2 => AlphaMode::Blend,
            x => {
                return Err(FormatError::corrupt(format!(
                    "material {i} has unknown alpha mode {x}"
                )));
            }
        };
        if self.flags & !1 != 0 {
            return Err(FormatError::corrupt(format!(
                "material {i} has unknown flags {:#x}",
                self.flags
            )));
        }
        let mut textures = [None; 5];
        for (slot, (t, r)) in TextureSlot::ALL
            .into_iter()
            .zip(textures.iter_mut().zip(self.textures))
        {
            *t = r.to_texture(&|| format!("material {i}'s {}", slot.name()))?;
        }
        Ok(Material {
            name,
            base_color_factor: Vec4::from(self.base_color_factor),
            metallic_factor: self.metallic_factor,
            roughness_factor: self.roughness_factor,
            normal_scale: self.normal_scale,
            occlusion_strength: self.occlusion_strength,
            emissive: Vec3::from(self.emissive),
            textures,
            alpha_mode,
            alpha_cutoff: self.alpha_cutoff,
            double_sided: self.flags & 1 != 0,
        })
    }
}
