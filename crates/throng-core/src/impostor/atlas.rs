//! A captured atlas as a `.throng` stores it ([`ImpostorAtlas`]): its
//! images in the plan's codec, each clip's framing sphere, the cells'
//! silhouette rectangles, and its validity against a model's clips.

use super::plan::AtlasPlan;
use crate::limits::MAX_LAYER_SIZE;
use crate::texture_codec::TextureCodec;

/// A captured impostor atlas: what a `.throng` file stores of a model's
/// impostor (`throng-impostor` captures it).
#[derive(Clone, Debug, PartialEq)]
pub struct ImpostorAtlas {
    /// The layout.
    pub plan: AtlasPlan,
    /// Projected size (fraction of the screen height, as
    /// `throng_core::model::Lod::screen_size`) below which the impostor
    /// replaces the meshes; 0: never ([`default_screen_size`]).
    ///
    /// [`default_screen_size`]: super::default_screen_size
    pub screen_size: f32,
    /// Per clip, the bounding sphere each of its cells is framed on (model
    /// space, centre and radius): the impostor's quad at run time.
    pub spheres: Vec<[f32; 4]>,
    /// Colour, RGBA8 sRGB, premultiplied by coverage (alpha), layer after
    /// layer, rows top to bottom; stored in the plan's codec.
    pub colour: Vec<u8>,
    /// Normal in the cell's view basis, octahedral in RG, the ambient
    /// occlusion in B (1 unoccluded: the material's occlusion map by its
    /// strength), coverage in A; RGBA8 linear, premultiplied by coverage;
    /// laid out and stored as `colour`.
    pub normal: Vec<u8>,
    /// Where the plan has it ([`AtlasPlan::surface`]; else empty): the
    /// surface as the mesh's material decodes it, RGBA8 linear,
    /// premultiplied by coverage, laid out and stored as `colour`: R
    /// metalness, G perceptual roughness, B glow (the largest channel of
    /// the emissive texture's texel, which scales its material's
    /// [`surface_emission`]), A the material ([`surface_id_code`]).
    ///
    /// [`surface_emission`]: super::surface_emission
    /// [`surface_id_code`]: super::surface_id_code
    pub surface: Vec<u8>,
}

impl ImpostorAtlas {
    /// Bytes of each image.
    pub fn image_bytes(plan: &AtlasPlan) -> u64 {
        plan.codec.image_bytes(plan.layer_size, plan.layers)
    }

    /// The colour image as RGBA8 (decoded if the codec compresses it; an
    /// image of the wrong size decodes to nothing).
    pub fn colour_rgba8(&self) -> std::borrow::Cow<'_, [u8]> {
        decoded(&self.plan, &self.colour)
    }

    /// The normal image as RGBA8, as [`Self::colour_rgba8`].
    pub fn normal_rgba8(&self) -> std::borrow::Cow<'_, [u8]> {
        decoded(&self.plan, &self.normal)
    }

    /// The surface image as RGBA8, as [`Self::colour_rgba8`] (empty
    /// without one).
    pub fn surface_rgba8(&self) -> std::borrow::Cow<'_, [u8]> {
        decoded(&self.plan, &self.surface)
    }

    /// Per cell, in cell order, the rectangle of its covered texels (any
    /// coverage) in the cell's coordinates: `(x0, y0, x1, y1)` from −1 to 1,
    /// x right and y up across the framing sphere's disc; `(1, 1, −1, −1)`
    /// (empty) for a cell nothing covers. The quad drawn at run time spans
    /// the rectangles of the cells it blends rather than the whole disc,
    /// most of which is empty.
    pub fn cell_rects(&self) -> Vec<[f32; 4]> {
        let p = &self.plan;
        let side = p.layer_size as usize;
        let cell = p.cell as usize;
        let views = p.views.count();
        let colour = self.colour_rgba8();
        (0..p.cells())
            .map(|index| {
                let view = (index % views as u64) as u32;
                let frame = ((index / views as u64) % p.frames as u64) as u32;
                let clip = (index / views as u64 / p.frames as u64) as u32;
                let (layer, x0, y0) = p.cell_origin(clip, frame, view);
                let base = layer as usize * side * side;
                let (mut lo, mut hi) = ([cell; 2], [0usize; 2]);
                for y in 0..cell {
                    let row = base + (y0 as usize + y) * side + x0 as usize;
                    for x in 0..cell {
                        if colour.get((row + x) * 4 + 3).is_some_and(|&a| a > 0) {
                            lo = [lo[0].min(x), lo[1].min(y)];
                            hi = [hi[0].max(x + 1), hi[1].max(y + 1)];
                        }
                    }
                }
                if lo[0] >= hi[0] {
                    return [1.0, 1.0, -1.0, -1.0];
                }
                let to = |t: usize| t as f32 / cell as f32 * 2.0 - 1.0;
                // Rows run down the cell; y runs up.
                [to(lo[0]), -to(hi[1]), to(hi[0]), -to(lo[1])]
            })
            .collect()
    }

    /// Why the atlas cannot belong to a model of `clips` clips, if it
    /// cannot: no clip, a plan whose layout is not the one [`AtlasPlan::layout`]
    /// gives its views, frames, cell size and clips, values out of range,
    /// images of the wrong size, or spheres that are not finite with a
    /// positive radius, one per clip.
    pub fn check(&self, clips: usize) -> Result<(), String> {
        let p = &self.plan;
        if !(2..=64).contains(&p.views.side)
            || !(1..=1024).contains(&p.frames)
            || !(4..=MAX_LAYER_SIZE).contains(&p.cell)
        {
            return Err(format!(
                "impostor plan of {} views a side, {} frames, {} texels a cell is out of range",
                p.views.side, p.frames, p.cell
            ));
        }
        // Every record's clip is a cell of the atlas (impostor.wgsl clamps the
        // clip below `clips`): with no clip there is no cell to clamp to, and
        // the shader's cells would lie past the atlas's layers.
        if p.clips == 0 {
            return Err(
                "impostor of 0 clips: an impostor needs at least one clip's cells (bake the model without one)"
                    .into(),
            );
        }
        if p.clips as usize != clips {
            return Err(format!(
                "impostor of {} clips for a model of {clips}",
                p.clips
            ));
        }
        let want = AtlasPlan::layout(p.views.side, p.frames, p.cell, p.clips)
            .with_codec(p.codec)
            .with_surface(p.surface);
        if !p.codec.fits(p.cell) {
            return Err(format!(
                "impostor cells of {} texels are not whole {} blocks",
                p.cell,
                p.codec.name()
            ));
        }
        if want != *p {
            return Err(format!(
                "impostor layout {}² texels × {} layers is not the layout of its plan ({}² × {})",
                p.layer_size, p.layers, want.layer_size, want.layers
            ));
        }
        let bytes = Self::image_bytes(p);
        let surface = if p.surface { bytes } else { 0 };
        for (what, image, bytes) in [
            ("colour", &self.colour, bytes),
            ("normal", &self.normal, bytes),
            ("surface", &self.surface, surface),
        ] {
            if image.len() as u64 != bytes {
                return Err(format!(
                    "impostor {what} image holds {} bytes, its plan {bytes}",
                    image.len()
                ));
            }
        }
        if !(self.screen_size.is_finite() && (0.0..=1.0).contains(&self.screen_size)) {
            return Err(format!(
                "impostor screen size {} is not within 0..=1",
                self.screen_size
            ));
        }
        if self.spheres.len() != clips {
            return Err(format!(
                "{} impostor spheres for {clips} clips",
                self.spheres.len()
            ));
        }
        if let Some(c) = self
            .spheres
            .iter()
            .position(|s| !s.iter().all(|x| x.is_finite()) || s[3] <= 0.0)
        {
            return Err(format!(
                "impostor sphere of clip {c} is not finite and positive"
            ));
        }
        Ok(())
    }
}

/// `image` as RGBA8: itself, or decoded from the plan's codec.
fn decoded<'a>(plan: &AtlasPlan, image: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
    match plan.codec {
        TextureCodec::Rgba8 => std::borrow::Cow::Borrowed(image),
        codec => std::borrow::Cow::Owned(
            crate::texture_codec::decode(codec, image, plan.layer_size, plan.layers)
                .unwrap_or_default(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_rects_bound_the_covered_texels() {
        let plan = AtlasPlan::layout(2, 1, 4, 1);
        let bytes = ImpostorAtlas::image_bytes(&plan) as usize;
        let mut atlas = ImpostorAtlas {
            plan,
            screen_size: 0.0,
            spheres: vec![[0.0, 0.0, 0.0, 1.0]],
            colour: vec![0; bytes],
            normal: vec![0; bytes],
            surface: Vec::new(),
        };
        // Cell 1 (view 1): texels (1, 2) and (2, 3) covered (x, row).
        let (layer, x0, y0) = plan.cell_origin(0, 0, 1);
        let side = plan.layer_size as usize;
        for (x, y) in [(1, 2), (2, 3)] {
            let i = layer as usize * side * side + (y0 as usize + y) * side + x0 as usize + x;
            atlas.colour[i * 4 + 3] = 7;
        }
        let rects = atlas.cell_rects();
        assert_eq!(rects.len(), 4);
        assert_eq!(rects[0], [1.0, 1.0, -1.0, -1.0], "an empty cell");
        // x from texel 1 to 3 of 4: -0.5..0.5; rows 2..4 from the top: y -1..0.
        assert_eq!(rects[1], [-0.5, -1.0, 0.5, 0.0]);
    }
}
