//! Animated impostors, the far end of a model's LOD chain (issue #15; the
//! bake and the runtime build on this): the views an impostor is captured
//! from, how a view direction picks and blends them, and how many views,
//! frames and texels an atlas gets within a memory budget.
//!
//! **Views: hemi-octahedral.** A crowd stands on the ground and is seen from
//! above its feet, so the views cover the upper hemisphere of model space
//! (+Y up) only. For the same number of views, the hemi-octahedral map
//! spaces them about √2 closer than the full octahedral one; a direction
//! below the horizon is read as the horizon (a character seen slightly from
//! below looks like one seen from the side at impostor distances). The map
//! is trig-free both ways: `(x, z) / (|x| + |y| + |z|)` rotated by 45° into
//! the unit square. Views sit on the lattice points of a `side × side` grid
//! of that square, so the grid's edges are exactly the horizon; a direction
//! blends the three views of the lattice triangle around it with
//! barycentric weights, which are exact at the views and continuous between
//! them.
//!
//! **Frames.** Each clip gets `frames` captures evenly over its duration;
//! the runtime picks the frames around the instance's clip time.
//!
//! **Atlas.** Cells of `cell × cell` texels, in the order (clip, frame,
//! view), packed row by row into square 2D-array layers of at most
//! [`MAX_LAYER_SIZE`] texels a side, as the bone texture is. Two images:
//! colour with coverage, and the view-space normal with the ambient
//! occlusion and coverage; and a third, the surface (metalness, roughness, glow and
//! material), where the model's materials vary over its surface
//! ([`captures_surface`]). Stored in the plan's [`TextureCodec`] (BC7 by
//! default, one byte a texel an image; cells are then multiples of the
//! 4-texel block, so no block straddles two cells).

use glam::{Vec2, Vec3};

use crate::limits::MAX_LAYER_SIZE;
use crate::texture_codec::BLOCK;
pub use crate::texture_codec::TextureCodec;

/// Default memory budget of one model's impostor atlas.
pub const DEFAULT_BUDGET_BYTES: u64 = 1 << 20;

/// The screen height, in pixels, that [`default_screen_size`] is chosen
/// for.
pub const DEFAULT_SCREEN_HEIGHT: u32 = 1080;

/// The default switch to the impostor: where a cell's texels meet the
/// pixels of a [`DEFAULT_SCREEN_HEIGHT`] screen one to one (the sphere a
/// cell frames, `cell` texels across, spans `cell` pixels). Nearer, the
/// impostor would be magnified and blur; farther, it is minified.
pub fn default_screen_size(cell: u32) -> f32 {
    (cell as f32 / DEFAULT_SCREEN_HEIGHT as f32).min(1.0)
}

/// The smallest plan: views a side, frames per clip, texels a cell side.
pub const MIN_PLAN: (u32, u32, u32) = (4, 4, 16);

/// The direction `dir` (any length, model space, +Y up) on the unit square
/// of the hemi-octahedral map; below the horizon reads as the horizon.
pub fn hemi_oct_encode(dir: Vec3) -> Vec2 {
    let d = Vec3::new(dir.x, dir.y.max(0.0), dir.z);
    let l1 = d.x.abs() + d.y + d.z.abs();
    if l1 <= 0.0 || !l1.is_finite() {
        return Vec2::splat(0.5); // straight up, by convention
    }
    let p = Vec2::new(d.x, d.z) / l1;
    // Rotate the diamond |x| + |z| ≤ 1 by 45° onto [-1, 1]², then to [0, 1]².
    Vec2::new(p.x + p.y, p.x - p.y) * 0.5 + 0.5
}

/// The unit direction at `uv` of the hemi-octahedral map (`uv` clamped to
/// the unit square).
pub fn hemi_oct_decode(uv: Vec2) -> Vec3 {
    let q = uv.clamp(Vec2::ZERO, Vec2::ONE) * 2.0 - 1.0;
    let p = Vec2::new(q.x + q.y, q.x - q.y) * 0.5;
    let y = 1.0 - p.x.abs() - p.y.abs();
    Vec3::new(p.x, y.max(0.0), p.y).normalize()
}

/// The basis a view is captured in and read back with: right, up, and
/// `dir` itself (unit, from the model towards the camera). Up is the model's
/// +Y projected onto the view plane, or −Z for a view within 2.6° of
/// straight up, where that projection vanishes.
pub fn view_basis(dir: Vec3) -> [Vec3; 3] {
    let z = dir.try_normalize().unwrap_or(Vec3::Y);
    let reference = if z.y.abs() > 0.999 {
        Vec3::NEG_Z
    } else {
        Vec3::Y
    };
    let x = reference.cross(z).normalize();
    [x, z.cross(x), z]
}

/// The views of an impostor: `side × side` lattice points of the
/// hemi-octahedral map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewGrid {
    /// Views along each side (at least 2).
    pub side: u32,
}

impl ViewGrid {
    /// Views in all.
    pub fn count(self) -> u32 {
        self.side * self.side
    }

    /// The map coordinates of view `(i, j)`.
    pub fn uv(self, i: u32, j: u32) -> Vec2 {
        let last = (self.side - 1) as f32;
        Vec2::new(i as f32 / last, j as f32 / last)
    }

    /// The direction towards the camera of view `index` (`j * side + i`).
    pub fn direction(self, index: u32) -> Vec3 {
        hemi_oct_decode(self.uv(index % self.side, index / self.side))
    }

    /// The three views to blend for a camera in direction `dir` from the
    /// model (model space), with barycentric weights summing to 1: the
    /// lattice triangle (each cell cut along its diagonal) that holds the
    /// direction's map point.
    pub fn blend(self, dir: Vec3) -> [(u32, f32); 3] {
        let last = (self.side - 1) as f32;
        let g = hemi_oct_encode(dir) * last;
        let cell = g.floor().clamp(Vec2::ZERO, Vec2::splat(last - 1.0));
        let f = (g - cell).clamp(Vec2::ZERO, Vec2::ONE);
        let (i, j) = (cell.x as u32, cell.y as u32);
        let at = |di: u32, dj: u32| (j + dj) * self.side + i + di;
        if f.x >= f.y {
            // Lower triangle: (0,0), (1,0), (1,1).
            [
                (at(0, 0), 1.0 - f.x),
                (at(1, 0), f.x - f.y),
                (at(1, 1), f.y),
            ]
        } else {
            // Upper triangle: (0,0), (1,1), (0,1).
            [
                (at(0, 0), 1.0 - f.y),
                (at(1, 1), f.x),
                (at(0, 1), f.y - f.x),
            ]
        }
    }
}

/// What an atlas holds and how it is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtlasPlan {
    /// The views.
    pub views: ViewGrid,
    /// Captures per clip, evenly over its duration.
    pub frames: u32,
    /// Texels along a cell's side.
    pub cell: u32,
    /// Clips captured.
    pub clips: u32,
    /// Side of each square layer (a multiple of `cell`, at most
    /// [`MAX_LAYER_SIZE`]).
    pub layer_size: u32,
    /// Layers of the 2D array.
    pub layers: u32,
    /// How the images are stored.
    pub codec: TextureCodec,
    /// Whether the atlas holds the surface image
    /// ([`ImpostorAtlas::surface`]) besides colour and normal.
    pub surface: bool,
}

/// What the caller fixes of a plan; the rest is chosen within the budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanRequest {
    /// Views a side (`--impostor-views`).
    pub views: Option<u32>,
    /// Frames per clip (`--impostor-frames`).
    pub frames: Option<u32>,
    /// Texels a cell side (`--impostor-size`).
    pub cell: Option<u32>,
    /// How the images are stored (`--impostor-codec`; default BC7).
    pub codec: TextureCodec,
    /// Whether the surface image is captured (`--no-impostor-surface`:
    /// `Some(false)`); `None` leaves it to the model's materials
    /// ([`captures_surface`]; `throng_impostor::with_impostor` decides),
    /// which [`AtlasPlan::choose`] alone reads as no. It takes its share
    /// of the budget.
    pub surface: Option<bool>,
}

/// Why no plan fits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A fixed value is out of range.
    #[error("impostor {what} {value} is out of range ({range})")]
    OutOfRange {
        /// Which value.
        what: &'static str,
        /// The value given.
        value: u32,
        /// What is allowed.
        range: &'static str,
    },
    /// Even the smallest plan left open by the request exceeds the budget.
    #[error(
        "the smallest impostor atlas ({views}×{views} views, {frames} frames per clip, {cell}² texels a cell, {clips} clips) needs {needed} bytes, over the budget of {budget}"
    )]
    OverBudget {
        /// Views a side of the smallest plan.
        views: u32,
        /// Frames per clip of the smallest plan.
        frames: u32,
        /// Cell side of the smallest plan.
        cell: u32,
        /// Clips.
        clips: u32,
        /// Its bytes.
        needed: u64,
        /// The budget.
        budget: u64,
    },
}

impl AtlasPlan {
    /// Cells in all.
    pub fn cells(&self) -> u64 {
        (self.clips as u64)
            .saturating_mul(self.frames as u64)
            .saturating_mul(self.views.count() as u64)
    }

    /// Cells per layer.
    pub fn cells_per_layer(&self) -> u32 {
        (self.layer_size / self.cell).pow(2)
    }

    /// Images the atlas holds: colour and normal, and the surface where
    /// [`Self::surface`].
    pub fn images(&self) -> u32 {
        2 + self.surface as u32
    }

    /// Bytes of the atlas, every image (every layer whole).
    pub fn bytes(&self) -> u64 {
        self.codec
            .image_bytes(self.layer_size, self.layers)
            .saturating_mul(self.images() as u64)
    }

    /// This layout stored in `codec`.
    pub fn with_codec(self, codec: TextureCodec) -> Self {
        Self { codec, ..self }
    }

    /// This layout with the surface image, or without.
    pub fn with_surface(self, surface: bool) -> Self {
        Self { surface, ..self }
    }

    /// The layer and texel origin of cell `(clip, frame, view)`.
    pub fn cell_origin(&self, clip: u32, frame: u32, view: u32) -> (u32, u32, u32) {
        let index = (clip as u64 * self.frames as u64 + frame as u64) * self.views.count() as u64
            + view as u64;
        let per_layer = self.cells_per_layer() as u64;
        let per_row = (self.layer_size / self.cell) as u64;
        let within = index % per_layer;
        (
            (index / per_layer) as u32,
            (within % per_row) as u32 * self.cell,
            (within / per_row) as u32 * self.cell,
        )
    }

    /// The layout of `views`, `frames` and `cell` for `clips` clips: the
    /// smallest square layer that holds every cell (at most
    /// [`MAX_LAYER_SIZE`] texels a side), and as many such layers
    /// as needed; stored as [`TextureCodec::Rgba8`] ([`Self::with_codec`]),
    /// without the surface image ([`Self::with_surface`]).
    pub fn layout(views: u32, frames: u32, cell: u32, clips: u32) -> Self {
        let grid = ViewGrid { side: views };
        let cells = clips as u64 * frames as u64 * grid.count() as u64;
        let max_side = (MAX_LAYER_SIZE / cell).max(1);
        // The least side whose square holds every cell.
        let mut side = (cells as f64).sqrt() as u32;
        while (side as u64).pow(2) < cells {
            side += 1;
        }
        let side = side.clamp(1, max_side);
        let per_layer = (side as u64).pow(2);
        AtlasPlan {
            views: grid,
            frames,
            cell,
            clips,
            layer_size: side * cell,
            layers: cells.div_ceil(per_layer).max(1) as u32,
            codec: TextureCodec::Rgba8,
            surface: false,
        }
    }

    /// The best plan for `clips` clips within `budget` bytes. Values the
    /// request leaves open start at 12 views a side, 16 frames per clip and
    /// 64 texels a cell, and are lowered step by step until the atlas fits:
    /// the cell to 32 texels, the frames to 8, the views to 8 a side, then
    /// each on to [`MIN_PLAN`] (sharpness first gives way to smoothness of
    /// motion and of turning, down to a floor for each).
    pub fn choose(clips: u32, budget: u64, request: PlanRequest) -> Result<Self, PlanError> {
        let check = |what, value: Option<u32>, lo: u32, hi: u32, range| match value {
            Some(v) if v < lo || v > hi => Err(PlanError::OutOfRange {
                what,
                value: v,
                range,
            }),
            _ => Ok(()),
        };
        check("views", request.views, 2, 64, "2 to 64 a side")?;
        check("frames", request.frames, 1, 1024, "1 to 1024 per clip")?;
        check(
            "cell size",
            request.cell,
            4,
            MAX_LAYER_SIZE,
            "4 to 1024 texels",
        )?;
        if let Some(cell) = request.cell
            && !request.codec.fits(cell)
        {
            return Err(PlanError::OutOfRange {
                what: "cell size",
                value: cell,
                range: "a multiple of 4 texels with BC7 (its 4 × 4 blocks)",
            });
        }
        let clips = clips.max(1);
        // [views, frames, cell], each lowered only where the request leaves it open.
        let mut value = [
            request.views.unwrap_or(12),
            request.frames.unwrap_or(16),
            request.cell.unwrap_or(64),
        ];
        let open = [
            request.views.is_none(),
            request.frames.is_none(),
            request.cell.is_none(),
        ];
        let (views, frames, cell) = (0, 1, 2);
        let stages = [
            (cell, 32),
            (frames, 8),
            (views, 8),
            (cell, MIN_PLAN.2),
            (frames, MIN_PLAN.1),
            (views, MIN_PLAN.0),
        ];
        let mut stage = 0;
        loop {
            let plan = Self::layout(value[views], value[frames], value[cell], clips)
                .with_codec(request.codec)
                .with_surface(request.surface.unwrap_or(false));
            if plan.bytes() <= budget {
                return Ok(plan);
            }
            // The next value that may still go down.
            while stage < stages.len() {
                let (k, floor) = stages[stage];
                if open[k] && value[k] > floor {
                    break;
                }
                stage += 1;
            }
            let Some(&(k, floor)) = stages.get(stage) else {
                return Err(PlanError::OverBudget {
                    views: value[views],
                    frames: value[frames],
                    cell: value[cell],
                    clips,
                    needed: plan.bytes(),
                    budget,
                });
            };
            value[k] = if k == views {
                value[k] - 1
            } else if k == cell {
                // Whole blocks a cell (the floors are multiples of 4).
                (value[k] * 7 / 8 / BLOCK * BLOCK).max(floor)
            } else {
                (value[k] * 7 / 8).max(floor)
            };
        }
    }
}

/// A captured impostor atlas: what a `.throng` file stores of a model's
/// impostor (`throng-impostor` captures it).
#[derive(Clone, Debug, PartialEq)]
pub struct ImpostorAtlas {
    /// The layout.
    pub plan: AtlasPlan,
    /// Projected size (fraction of the screen height, as
    /// `throng_core::model::Lod::screen_size`) below which the impostor
    /// replaces the meshes; 0: never ([`default_screen_size`]).
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

/// Whether an impostor of `model` captures the surface image: where its
/// materials vary over its surface, so that one area-weighted mean (what
/// the impostor is shaded with otherwise) would show a different picture.
/// That is more than one material (a variant palette may colour them
/// apart, and each has its own factors), or a metallic-roughness or
/// emissive texture. (Occlusion travels in the normal image, for every
/// model.)
pub fn captures_surface(model: &crate::model::BakedModel) -> bool {
    use crate::material::TextureSlot;
    model.materials.len() > 1
        || model.materials.iter().any(|m| {
            m.texture(TextureSlot::MetallicRoughness).is_some()
                || m.texture(TextureSlot::Emissive).is_some()
        })
}

/// The surface image's alpha for material (palette column) `id` of a model
/// with `materials` materials (at least 1): the ids spread over the whole
/// 0–1 range, so that coverage, filtering and block compression, which move
/// a code by a level or two, still round to the right id (exact for up to
/// 256 materials; `impostor.wgsl`'s `surface_material` is the inverse).
pub fn surface_id_code(id: u32, materials: u32) -> f32 {
    let last = materials.max(1) - 1;
    if last == 0 {
        0.0
    } else {
        id.min(last) as f32 / last as f32
    }
}

/// Per material (palette column), the emission the surface image's glow
/// scales, linear RGB (`impostor.wgsl` reads it after the frame table's
/// cells): the factor × strength, times the hue of the emissive texture
/// where there is one (its mean colour, from its last mip level, over its
/// largest channel; the glow carries the texel's brightness). One entry for
/// a model without materials.
pub fn surface_emission(model: &crate::model::BakedModel) -> Vec<[f32; 4]> {
    use crate::material::TextureSlot;
    if model.materials.is_empty() {
        return vec![[0.0; 4]];
    }
    model
        .materials
        .iter()
        .map(|m| {
            let hue = m
                .texture(TextureSlot::Emissive)
                .and_then(|t| model.images.get(t.image as usize))
                .and_then(|image| image.mean_colour())
                .map(|c| {
                    let top = c.max_element();
                    if top > 0.0 { c / top } else { Vec3::ZERO }
                })
                .unwrap_or(Vec3::ONE);
            (m.emissive * hue).extend(0.0).to_array()
        })
        .collect()
}

/// The impostor's frame table (see [`crate::gpu::ImpostorParams`]): per
/// global baked frame `(clip, capture position, 0, 0)`, then per clip its
/// framing sphere, then per cell its silhouette's rectangle
/// ([`ImpostorAtlas::cell_rects`]). A frame `k` of a clip of `n` frames is at clip time
/// `k / (n − 1)` of the duration, so at capture position
/// `frames · k / (n − 1)` (captures are evenly spaced from time 0, the
/// last frame of a looping clip lands on capture `frames`, which wraps to
/// 0). Frames of no clip (the rest pose) read as clip 0 at position 0.
pub fn frame_table(model: &crate::model::BakedModel, atlas: &ImpostorAtlas) -> Vec<[f32; 4]> {
    let frames = atlas.plan.frames as f32;
    let mut table = vec![[0.0; 4]; model.frame_count() as usize];
    for (c, clip) in model.clips.iter().enumerate() {
        let last = clip.frame_count.saturating_sub(1).max(1) as f32;
        for k in 0..clip.frame_count {
            if let Some(t) = table.get_mut((clip.first_frame + k) as usize) {
                *t = [c as f32, frames * k as f32 / last, 0.0, 0.0];
            }
        }
    }
    table.extend(atlas.spheres.iter().copied());
    table.extend(atlas.cell_rects());
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs() -> impl Iterator<Item = Vec3> {
        (0..40).flat_map(|a| {
            (0..=20).map(move |e| {
                let az = a as f32 / 40.0 * std::f32::consts::TAU;
                let el = e as f32 / 20.0 * std::f32::consts::FRAC_PI_2;
                Vec3::new(el.cos() * az.cos(), el.sin(), el.cos() * az.sin())
            })
        })
    }

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

    #[test]
    fn the_map_round_trips_over_the_upper_hemisphere() {
        let mut worst = 0.0f32;
        for d in dirs() {
            let uv = hemi_oct_encode(d);
            assert!(
                (0.0..=1.0).contains(&uv.x) && (0.0..=1.0).contains(&uv.y),
                "{d} → {uv}"
            );
            worst = worst.max((hemi_oct_decode(uv) - d).length());
        }
        assert!(worst < 1e-5, "worst round trip error {worst}");
        // Straight up is the centre; the horizon is the square's edge.
        assert!((hemi_oct_encode(Vec3::Y) - Vec2::splat(0.5)).length() < 1e-6);
        let h = hemi_oct_encode(Vec3::X);
        assert!(h.x.min(h.y) < 1e-6 || h.x.max(h.y) > 1.0 - 1e-6, "{h}");
    }

    #[test]
    fn below_the_horizon_reads_as_the_horizon() {
        let below = Vec3::new(0.6, -0.3, 0.2);
        let at = hemi_oct_decode(hemi_oct_encode(below));
        assert!(at.y.abs() < 1e-6, "{at}");
        let flat = Vec3::new(0.6, 0.0, 0.2).normalize();
        assert!((at - flat).length() < 1e-5, "{at} vs {flat}");
        assert_eq!(hemi_oct_encode(Vec3::ZERO), Vec2::splat(0.5));
        assert_eq!(hemi_oct_encode(Vec3::NAN), Vec2::splat(0.5));
    }

    #[test]
    fn blending_is_exact_at_the_views_and_weights_sum_to_one() {
        for side in [2u32, 3, 8, 12] {
            let grid = ViewGrid { side };
            for v in 0..grid.count() {
                let [(view, w), ..] = {
                    let mut b = grid.blend(grid.direction(v));
                    b.sort_by(|a, b| b.1.total_cmp(&a.1));
                    b
                };
                assert_eq!(view, v, "side {side}: view {v} picks itself");
                assert!((w - 1.0).abs() < 1e-4, "side {side}: view {v} weight {w}");
            }
            for d in dirs() {
                let b = grid.blend(d);
                let sum: f32 = b.iter().map(|(_, w)| w).sum();
                assert!((sum - 1.0).abs() < 1e-5, "{d}: weights sum to {sum}");
                for (view, w) in b {
                    assert!(view < grid.count() && w >= -1e-6, "{d}: {b:?}");
                }
            }
        }
    }

    #[test]
    fn view_bases_are_orthonormal_and_upright() {
        for d in dirs().chain([Vec3::Y, Vec3::new(0.0, 1.0, 1e-4)]) {
            let [x, y, z] = view_basis(d);
            for (a, b) in [(x, y), (y, z), (z, x)] {
                assert!(a.dot(b).abs() < 1e-5, "{d}: not orthogonal");
            }
            assert!((x.cross(y) - z).length() < 1e-5, "{d}: not right-handed");
            assert!((z - d.normalize()).length() < 1e-5, "{d}: z is the view");
            // Upright: the model's up is never below the view's horizon.
            assert!(y.y >= -1e-6, "{d}: up {y}");
        }
    }

    #[test]
    fn plans_fit_their_budget_and_layers() {
        for clips in [1u32, 3, 10, 40] {
            for budget in [4u64 << 20, DEFAULT_BUDGET_BYTES, 256 << 20] {
                let Ok(plan) = AtlasPlan::choose(clips, budget, PlanRequest::default()) else {
                    continue;
                };
                assert!(plan.bytes() <= budget, "{clips} clips, {budget}: {plan:?}");
                assert!(plan.layer_size <= MAX_LAYER_SIZE && plan.layer_size % plan.cell == 0);
                assert!(
                    plan.layers as u64 * plan.cells_per_layer() as u64 >= plan.cells(),
                    "{plan:?}"
                );
                // Every cell has its own place.
                let last =
                    plan.cell_origin(plan.clips - 1, plan.frames - 1, plan.views.count() - 1);
                assert!(last.0 < plan.layers && last.1 + plan.cell <= plan.layer_size);
            }
        }
        // Ten clips in the default budget still get a usable atlas.
        let plan = AtlasPlan::choose(10, DEFAULT_BUDGET_BYTES, PlanRequest::default()).unwrap();
        assert!(plan.views.side >= 6 && plan.cell >= 16, "{plan:?}");
    }

    #[test]
    fn requests_are_kept_or_refused_with_a_reason() {
        let fixed = PlanRequest {
            views: Some(9),
            frames: Some(8),
            cell: Some(32),
            codec: TextureCodec::Rgba8,
            surface: None,
        };
        let plan = AtlasPlan::choose(3, 1 << 30, fixed).unwrap();
        assert_eq!((plan.views.side, plan.frames, plan.cell), (9, 8, 32));
        let err = AtlasPlan::choose(3, 1 << 20, fixed).unwrap_err();
        assert!(matches!(err, PlanError::OverBudget { .. }), "{err}");
        let err = AtlasPlan::choose(
            3,
            1 << 30,
            PlanRequest {
                views: Some(1),
                ..PlanRequest::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("views 1"), "{err}");
        // Block codecs take whole 4 × 4 blocks a cell, and choose them so.
        let err = AtlasPlan::choose(
            3,
            1 << 30,
            PlanRequest {
                cell: Some(30),
                ..PlanRequest::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("multiple of 4"), "{err}");
        for budget in [300 << 10, 1 << 20, 5 << 20] {
            let plan = AtlasPlan::choose(3, budget, PlanRequest::default()).unwrap();
            assert_eq!(plan.codec, TextureCodec::Bc3);
            assert!(
                plan.cell.is_multiple_of(4) && plan.layer_size.is_multiple_of(4),
                "{plan:?}"
            );
            assert_eq!(
                plan.bytes(),
                2 * plan.layers as u64 * (plan.layer_size as u64).pow(2)
            );
        }
    }
}
