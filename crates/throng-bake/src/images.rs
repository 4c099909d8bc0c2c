//! The images stage: each decoded source image becomes a baked
//! [`Image`] — its full mip chain generated here and every level stored in
//! the bake's [`TextureCodec`], so the runtime uploads the levels as they
//! are (or decodes BC blocks where the device has none) and never decodes a
//! PNG or filters a mip level.
//!
//! Each level is the one above filtered by a tent two texels of the new
//! level wide (weights 1, 3, 3, 1 along each axis when halving, clamped at
//! the edges), as format 7's runtime built its mips. What is averaged
//! depends on what the materials use the image as ([`ImageContent`]):
//! * **colour** (base colour, emissive; sRGB): the sRGB codes, weighted by
//!   alpha (so the colour of empty texels does not bleed into a masked
//!   edge); alpha as it is. Averaging in linear light instead is the
//!   physically right filter, but it makes coarse levels brighter than the
//!   impostor's capture matches: measured on the Fox, the near/far test's
//!   mean difference rose from 19.5 to 22.8 levels (bound 20) and distant
//!   Foxes paled, so it waits for the impostor to capture at the mesh's
//!   scale (docs/BENCHMARKS.md, "Baked textures");
//! * **data** (metallic-roughness, occlusion): as stored;
//! * **normal** (normal maps): as vectors, renormalised.
//!
//! An image used as more than one is filtered as the first of normal,
//! colour, data that applies. A block codec needs sides that are whole
//! blocks; an image whose sides are not is stored as RGBA8. Levels are
//! encoded in strips of block rows on rayon; the output does not depend on
//! the thread count.

use rayon::prelude::*;
use throng_core::material::{Image, ImageContent, Material, TextureSlot};
use throng_core::texture_codec::{TextureCodec, encode_level, mip_levels, mip_size};

use crate::scene::SourceImage;

/// Block rows encoded as one task.
const STRIP_BLOCK_ROWS: u32 = 16;

/// What each of `count` images is, from the slots `materials` use it in
/// (an unused image is colour).
pub fn contents(count: usize, materials: &[Material]) -> Vec<ImageContent> {
    let rank = |c: ImageContent| match c {
        ImageContent::Normal => 2,
        ImageContent::Colour => 1,
        ImageContent::Data => 0,
    };
    let mut out: Vec<Option<ImageContent>> = vec![None; count];
    for m in materials {
        for slot in TextureSlot::ALL {
            let Some(t) = m.texture(slot) else { continue };
            let c = match slot {
                TextureSlot::Normal => ImageContent::Normal,
                s if s.is_srgb() => ImageContent::Colour,
                _ => ImageContent::Data,
            };
            if let Some(o) = out.get_mut(t.image as usize)
                && o.is_none_or(|old| rank(c) > rank(old))
            {
                *o = Some(c);
            }
        }
    }
    out.into_iter().map(Option::unwrap_or_default).collect()
}

/// `images` baked: mip chains filtered for what `materials` use them as,
/// stored in `codec` (RGBA8 for an image whose sides are not whole blocks).
pub fn bake_images(
    images: &[SourceImage],
    materials: &[Material],
    codec: TextureCodec,
) -> Vec<Image> {
    let contents = contents(images.len(), materials);
    images
        .iter()
        .zip(contents)
        .map(|(src, content)| bake_image(src, content, codec))
        .collect()
}

/// One image baked as `content` in `codec` (or RGBA8, see [`bake_images`]).
pub fn bake_image(src: &SourceImage, content: ImageContent, codec: TextureCodec) -> Image {
    let codec = codec.for_size(src.width, src.height);
    let (w, h) = (src.width, src.height);
    let mut levels = Vec::with_capacity(mip_levels(w, h) as usize);
    // Level 0 is the image as it is; level 1 is filtered from its bytes
    // and each level after from the one before, in floats (a quarter of
    // the image's texels at most: an 8192² image never needs its 1 GiB
    // as floats).
    levels.push(encode(codec, &src.rgba, w));
    let lut = lut(content);
    let alpha = |b: u8| b as f32 / 255.0;
    let mut texels: Vec<[f32; 4]> = Vec::new();
    for l in 1..mip_levels(w, h) {
        let (from, to) = (mip_size(w, h, l - 1), mip_size(w, h, l));
        texels = if l == 1 {
            downsample(
                |i| {
                    let t = &src.rgba[4 * i..4 * i + 4];
                    [
                        lut[t[0] as usize],
                        lut[t[1] as usize],
                        lut[t[2] as usize],
                        alpha(t[3]),
                    ]
                },
                from,
                to,
                content,
            )
        } else {
            downsample(|i| texels[i], from, to, content)
        };
        levels.push(encode(codec, &from_float(&texels, content), to.0));
    }
    Image {
        name: src.name.clone(),
        width: w,
        height: h,
        codec,
        content,
        levels,
    }
}

/// `rgba` (one level, `w` texels wide) in `codec`, strips of block rows
/// in parallel.
fn encode(codec: TextureCodec, rgba: &[u8], w: u32) -> Vec<u8> {
    let strip = (STRIP_BLOCK_ROWS * throng_core::texture_codec::BLOCK) as usize;
    let row = w as usize * 4;
    rgba.par_chunks(strip * row)
        .map(|texels| {
            let rows = (texels.len() / row) as u32;
            encode_level(codec, texels, w, rows).expect("a strip holds whole rows")
        })
        .flatten_iter()
        .collect()
}

/// An RGB byte as the filter averages it: a normal's component in −1..1,
/// colour and data as stored (0–1).
fn lut(content: ImageContent) -> [f32; 256] {
    std::array::from_fn(|v| {
        let c = v as f32 / 255.0;
        match content {
            ImageContent::Colour | ImageContent::Data => c,
            ImageContent::Normal => c * 2.0 - 1.0,
        }
    })
}

/// [`lut`] undone, rounded to the nearest RGBA8 texel.
fn from_float(texels: &[[f32; 4]], content: ImageContent) -> Vec<u8> {
    let q = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    texels
        .iter()
        .flat_map(|t| {
            let rgb = [t[0], t[1], t[2]].map(|c| match content {
                ImageContent::Colour | ImageContent::Data => q(c),
                ImageContent::Normal => q(c * 0.5 + 0.5),
            });
            [rgb[0], rgb[1], rgb[2], q(t[3])]
        })
        .collect()
}

/// Taps of a tent filter along one axis: the source texels `from` long
/// that destination texel `x` of `to` covers, with their weights (summing
/// to 1). The tent is two destination texels wide — four source texels
/// weighted 1, 3, 3, 1 when halving — clamped at the edges.
fn taps(x: usize, from: usize, to: usize) -> Vec<(usize, f32)> {
    let scale = from as f32 / to as f32;
    let centre = (x as f32 + 0.5) * scale;
    let first = (centre - scale).floor().max(0.0) as usize;
    let last = ((centre + scale).ceil() as usize).min(from);
    let mut out: Vec<(usize, f32)> = (first..last)
        .map(|i| {
            (
                i,
                (1.0 - ((i as f32 + 0.5) - centre).abs() / scale).max(0.0),
            )
        })
        .filter(|&(_, w)| w > 0.0)
        .collect();
    let sum: f32 = out.iter().map(|t| t.1).sum();
    for t in &mut out {
        t.1 /= sum;
    }
    out
}

/// The next level of the one `src` reads (texel `i` in row order, `from`
/// in size): each texel a tent-filtered
/// mean of the texels around it ([`taps`]), as [`ImageContent`] says.
fn downsample(
    src: impl Fn(usize) -> [f32; 4],
    from: (u32, u32),
    to: (u32, u32),
    content: ImageContent,
) -> Vec<[f32; 4]> {
    let (fw, fh) = (from.0 as usize, from.1 as usize);
    let (tw, th) = (to.0 as usize, to.1 as usize);
    let columns: Vec<Vec<(usize, f32)>> = (0..tw).map(|x| taps(x, fw, tw)).collect();
    let mut out = Vec::with_capacity(tw * th);
    for y in 0..th {
        let rows = taps(y, fh, th);
        for column in &columns {
            let mut sum = [0.0f32; 4];
            let mut plain = [0.0f32; 3];
            let mut weight = 0.0;
            for &(sy, wy) in &rows {
                for &(sx, wx) in column {
                    let t = src(sy * fw + sx);
                    let w = wy * wx;
                    // Colour is weighted by alpha as well; an all-empty
                    // footprint keeps the plain mean of its colours.
                    let wc = if content == ImageContent::Colour {
                        w * t[3]
                    } else {
                        w
                    };
                    for c in 0..3 {
                        sum[c] += t[c] * wc;
                        plain[c] += t[c] * w;
                    }
                    sum[3] += t[3] * w;
                    weight += wc;
                }
            }
            let mut t = if weight > 0.0 {
                [sum[0] / weight, sum[1] / weight, sum[2] / weight, sum[3]]
            } else {
                [plain[0], plain[1], plain[2], 0.0]
            };
            if content == ImageContent::Normal {
                let len = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
                if len > 1e-6 {
                    for c in t.iter_mut().take(3) {
                        *c /= len;
                    }
                } else {
                    // Opposite normals cancel: the surface's own normal.
                    t[..3].copy_from_slice(&[0.0, 0.0, 1.0]);
                }
            }
            out.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng_core::material::TextureRef;

    fn image(w: u32, h: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> SourceImage {
        SourceImage {
            name: "test".into(),
            width: w,
            height: h,
            rgba: (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .flat_map(|(x, y)| texel(x, y))
                .collect(),
        }
    }

    #[test]
    fn levels_keep_the_mean_and_normals_stay_unit() {
        // A black and white checker: every level below is mid-grey, the
        // mean of its codes (within 6 where the tent is clamped at an edge
        // and takes one colour's texels more than the other's).
        let checker = image(8, 8, |x, y| {
            if (x + y) % 2 == 0 {
                [255; 4]
            } else {
                [0, 0, 0, 255]
            }
        });
        let baked = bake_image(&checker, ImageContent::Colour, TextureCodec::Rgba8);
        assert_eq!(baked.levels.len(), 4);
        assert_eq!(baked.check(), Ok(()));
        for l in 1..4 {
            for t in baked.levels[l].chunks(4) {
                assert!(
                    t[..3].iter().all(|c| c.abs_diff(128) <= 6) && t[3] == 255,
                    "level {l}: {t:?}"
                );
            }
        }
        // The tent reaches past the 2 × 2 below: along an axis, level 1's
        // first texel weighs source texels 0, 1, 2 by 3, 3, 1 (the tap
        // before 0 is clamped away), so a lone white texel at (0, 0) of a
        // 4 × 4 gives it (3/7)² and nothing to its neighbour, and one at
        // (2, 2) gives level 1's (0, 0) (1/7)².
        let dot = |at: (u32, u32)| {
            let img = image(4, 4, |x, y| {
                if (x, y) == at {
                    [255; 4]
                } else {
                    [0, 0, 0, 255]
                }
            });
            bake_image(&img, ImageContent::Data, TextureCodec::Rgba8)
        };
        let corner = dot((0, 0));
        assert_eq!(corner.levels[1][0], (255.0f32 * 9.0 / 49.0).round() as u8);
        assert_eq!(corner.levels[1][4], 0);
        assert_eq!(dot((2, 2)).levels[1][0], (255.0f32 / 49.0).round() as u8);
        // Normals tilted ±x average to +z, unit length.
        let tilted = image(4, 4, |x, _| {
            if x % 2 == 0 {
                [218, 128, 218, 255]
            } else {
                [37, 128, 218, 255]
            }
        });
        let n = bake_image(&tilted, ImageContent::Normal, TextureCodec::Rgba8);
        assert_eq!(&n.levels[2], &[128, 128, 255, 255]);
    }

    #[test]
    fn empty_texels_do_not_darken_a_masked_edge() {
        // Red where opaque, black where empty: the colour of a half-covered
        // level is red, its alpha a half.
        let masked = image(4, 4, |x, _| {
            if x < 2 {
                [255, 0, 0, 255]
            } else {
                [0, 0, 0, 0]
            }
        });
        let baked = bake_image(&masked, ImageContent::Colour, TextureCodec::Rgba8);
        assert_eq!(&baked.levels[2], &[255, 0, 0, 128]);
        // An all-empty block keeps its plain mean.
        let empty = image(2, 2, |_, _| [255, 255, 255, 0]);
        let baked = bake_image(&empty, ImageContent::Colour, TextureCodec::Rgba8);
        assert_eq!(&baked.levels[1], &[255, 255, 255, 0]);
    }

    #[test]
    fn odd_sizes_keep_every_level_and_fall_back_to_rgba8() {
        let img = image(5, 3, |x, y| [(x * 50) as u8, (y * 80) as u8, 7, 255]);
        let baked = bake_image(&img, ImageContent::Colour, TextureCodec::Bc7);
        assert_eq!(baked.codec, TextureCodec::Rgba8);
        assert_eq!(baked.check(), Ok(()));
        assert_eq!(baked.levels.len(), 3);
        assert_eq!(baked.levels[0], img.rgba, "level 0 is the image as it is");
    }

    #[test]
    fn block_codecs_keep_level_zero_within_a_few_levels_whatever_the_strips() {
        // Taller than one strip, so several tasks encode it.
        let (w, h) = (
            8,
            STRIP_BLOCK_ROWS * throng_core::texture_codec::BLOCK * 2 + 4,
        );
        let img = image(w, h, |x, y| [(x * 16) as u8, (y % 256) as u8, 128, 255]);
        for codec in [TextureCodec::Bc7, TextureCodec::Bc3] {
            let baked = bake_image(&img, ImageContent::Data, codec);
            assert_eq!(baked.codec, codec);
            assert_eq!(baked.check(), Ok(()));
            let back = baked.decoded_level(0).unwrap();
            let worst = back
                .iter()
                .zip(&img.rgba)
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap();
            assert!(worst <= 12, "{codec:?}: worst channel difference {worst}");
        }
    }

    #[test]
    fn contents_follow_the_slots_that_use_them() {
        let mut m = Material::default();
        m.textures[TextureSlot::BaseColor as usize] = Some(TextureRef::new(0));
        m.textures[TextureSlot::MetallicRoughness as usize] = Some(TextureRef::new(1));
        m.textures[TextureSlot::Occlusion as usize] = Some(TextureRef::new(2));
        m.textures[TextureSlot::Normal as usize] = Some(TextureRef::new(2));
        assert_eq!(
            contents(4, &[m]),
            [
                ImageContent::Colour,
                ImageContent::Data,
                ImageContent::Normal,
                ImageContent::Colour
            ]
        );
    }
}
