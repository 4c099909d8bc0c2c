//! The texture stage: the frame table's palette rows as texels at the bake's
//! precision (a half-precision bake is refused where a matrix entry does not
//! fit an f16, naming the bone), laid out in layers no larger than
//! [`BakeOptions::max_layer_size`].

use throng_core::layout::TextureLayout;
use throng_core::model::{TexelFormat, Texels};

use crate::error::BakeError;
use crate::mesh::Palette;
use crate::options::BakeOptions;
use crate::scene::Scene;

/// The texture stage's output.
pub(crate) struct PackedTexture {
    /// Every frame's palette at the bake's precision.
    pub(crate) texels: Texels,
    /// Layer side and count that hold them.
    pub(crate) layout: TextureLayout,
}

/// Packs `rows` (3 per bone per frame, f32) as texels; `palette` names the
/// bone of an entry beyond the f16 range.
pub(crate) fn pack_texels(
    rows: Vec<[f32; 4]>,
    scene: &Scene,
    palette: &Palette,
    opts: &BakeOptions,
) -> Result<PackedTexture, BakeError> {
    let bone_count = palette.entries.len() as u32;
    let texel_count = rows.len() as u64;
    let texels = match opts.precision {
        TexelFormat::F32 => Texels::F32(rows),
        TexelFormat::F16 => {
            let half: Vec<[half::f16; 4]> =
                rows.iter().map(|r| r.map(half::f16::from_f32)).collect();
            if let Some(i) = half.iter().position(|r| r.iter().any(|x| !x.is_finite())) {
                let bone = (i / 3) % bone_count as usize;
                return Err(BakeError::Option(format!(
                    "--precision half: bone {} ({}) has a matrix entry beyond the f16 range ({:?}); use --precision full",
                    bone,
                    palette.names(scene)[bone],
                    rows[i]
                )));
            }
            Texels::F16(half)
        }
    };
    let layout = TextureLayout::for_texels(texel_count, opts.max_layer_size);
    Ok(PackedTexture { texels, layout })
}
