//! Crowd variety: what makes instances of one model differ beyond their
//! tint, with no draw of their own and no CPU work per frame.
//!
//! - A model's variant [`Palette`]: rows of one colour per material (a
//!   shirt's, a skin's), multiplied into the base colour like the tint. An
//!   instance's [`Look::variant`] picks the row.
//! - Per-instance submesh toggles: [`Look::hidden`] has one bit per submesh
//!   of the finest LOD (hats, bags); a hidden submesh's vertices are moved
//!   out of the clip volume in the vertex stage, in every LOD that keeps it
//!   ([`submesh_bits`]).
//! - [`Variety`]: seeded per-instance picks of a variant, a scale within a
//!   range and the toggles, for spawning a varied crowd.
//!
//! The look travels in [`crate::gpu::InstanceRecord::look`] and
//! [`crate::gpu::GpuInstance::look`]. An impostor, captured once per model,
//! shows every submesh and multiplies its picture by its row's mean colour
//! (each material weighted by its surface area, [`Palette::texels`]).

use glam::{Vec3, Vec4};

pub use crate::gpu::Look;
use crate::gpu::pack_tint;
use crate::limits::{MAX_PALETTE_ROWS, TOGGLEABLE_SUBMESHES};
use crate::model::BakedModel;

/// Why a palette is refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PaletteError {
    /// No colours, or a count that is not whole rows.
    #[error("a palette of {colours} colours is not whole rows of {columns}")]
    Shape {
        /// Colours given.
        colours: usize,
        /// Colours per row.
        columns: usize,
    },
    /// More rows than [`MAX_PALETTE_ROWS`].
    #[error("a palette of {rows} rows has more than the {MAX_PALETTE_ROWS} allowed")]
    TooManyRows {
        /// Rows given.
        rows: usize,
    },
    /// A colour that is NaN or infinite.
    #[error("palette colour {index} is not finite: {value}")]
    NotFinite {
        /// Its index in the colours.
        index: usize,
        /// The colour.
        value: Vec4,
    },
    /// Columns other than the model's materials.
    #[error(
        "the palette has {columns} colours a row but model \"{model}\" has {materials} materials (one colour each, one for a model without materials)"
    )]
    Columns {
        /// Colours per row.
        columns: usize,
        /// Columns the model needs.
        materials: usize,
        /// The model's name.
        model: String,
    },
}

/// Rows of linear RGBA multipliers, one per material of a model. Stored as
/// RGBA8 like the tint: each component is clamped to `[0, 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Palette {
    columns: usize,
    colours: Vec<u32>,
}

impl Palette {
    /// A palette from its rows, `columns` colours each, one after another.
    pub fn new(columns: usize, colours: &[Vec4]) -> Result<Self, PaletteError> {
        if columns == 0 || colours.is_empty() || !colours.len().is_multiple_of(columns) {
            return Err(PaletteError::Shape {
                colours: colours.len(),
                columns,
            });
        }
        let rows = colours.len() / columns;
        if rows > MAX_PALETTE_ROWS as usize {
            return Err(PaletteError::TooManyRows { rows });
        }
        if let Some((index, &value)) = colours.iter().enumerate().find(|(_, c)| !c.is_finite()) {
            return Err(PaletteError::NotFinite { index, value });
        }
        Ok(Self {
            columns,
            colours: colours.iter().map(|&c| pack_tint(c)).collect(),
        })
    }

    /// `rows` rows for `columns` materials: row 0 leaves the model as it
    /// is (white); every other row gives each material a colour of its own,
    /// a seeded pick of hue, a moderate saturation and a value between 0.55
    /// and 1, so that a varied crowd stays lit like the model.
    pub fn generated(columns: usize, rows: usize, seed: u64) -> Result<Self, PaletteError> {
        let mut colours = Vec::with_capacity(columns * rows);
        for row in 0..rows {
            for column in 0..columns {
                if row == 0 {
                    colours.push(Vec4::ONE);
                    continue;
                }
                let h = |k: u64| unit(mix(seed ^ ((row as u64) << 32 | column as u64) ^ k));
                let rgb = hsv(h(1), 0.25 + 0.4 * h(2), 0.55 + 0.45 * h(3));
                colours.push(rgb.extend(1.0));
            }
        }
        Self::new(columns, &colours)
    }

    /// Colours per row.
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.colours.len() / self.columns
    }

    /// Row `row`'s colour of column `column`, RGBA8 as the tint packs it.
    pub fn colour(&self, row: usize, column: usize) -> u32 {
        self.colours[row * self.columns + column]
    }

    /// Checks that the palette has one column per material of `model`
    /// ([`column_count`]).
    pub fn check(&self, model: &BakedModel) -> Result<(), PaletteError> {
        let materials = column_count(model);
        if self.columns != materials {
            return Err(PaletteError::Columns {
                columns: self.columns,
                materials,
                model: model.name.clone(),
            });
        }
        Ok(())
    }

    /// The texture the GPU reads (RGBA8, row-major): `columns + 1` texels a
    /// row, the palette's own and last its mean for the impostor, each
    /// material weighted by the surface area of the finest LOD that wears
    /// it. Call [`Self::check`] first.
    pub fn texels(&self, model: &BakedModel) -> (u32, u32, Vec<u32>) {
        let weights = material_areas(model, self.columns);
        let total: f32 = weights.iter().sum();
        let mut out = Vec::with_capacity((self.columns + 1) * self.rows());
        for row in 0..self.rows() {
            let colours = &self.colours[row * self.columns..][..self.columns];
            out.extend_from_slice(colours);
            let mean = if total > 0.0 {
                colours
                    .iter()
                    .zip(&weights)
                    .map(|(&c, &w)| unpack(c) * w)
                    .sum::<Vec4>()
                    / total
            } else {
                colours.iter().map(|&c| unpack(c)).sum::<Vec4>() / self.columns as f32
            };
            out.push(pack_tint(mean));
        }
        ((self.columns + 1) as u32, self.rows() as u32, out)
    }
}

/// Palette columns a model needs: one per material, or one for a model
/// without materials (its default material).
pub fn column_count(model: &BakedModel) -> usize {
    model.materials.len().max(1)
}

/// The palette column of a submesh's material (`None`: the default one).
pub fn column_of(material: Option<u32>) -> u32 {
    material.unwrap_or(0)
}

/// Per submesh of LOD `lod`, its bit of [`Look::hidden`]: the bit of the
/// finest LOD's submesh drawn from the same glTF primitive of the same node,
/// or 0 (never hidden) for a submesh the finest LOD lacks or past the
/// [`TOGGLEABLE_SUBMESHES`]th.
pub fn submesh_bits(model: &BakedModel, lod: usize) -> Vec<u32> {
    let finest = &model.lods[0].submeshes;
    let source = |s: &crate::model::Submesh| (s.source_node, s.source_mesh, s.source_primitive);
    model.lods[lod]
        .submeshes
        .iter()
        .map(|s| {
            finest
                .iter()
                .position(|f| source(f) == source(s))
                .filter(|&i| i < TOGGLEABLE_SUBMESHES as usize)
                .map_or(0, |i| 1 << i)
        })
        .collect()
}

/// Surface area of the finest LOD per palette column (bind pose).
fn material_areas(model: &BakedModel, columns: usize) -> Vec<f32> {
    let mut areas = vec![0.0f32; columns];
    for (m, area) in model.area_by_material().into_iter().enumerate() {
        let column = if m < model.materials.len() { m } else { 0 };
        areas[column.min(columns - 1)] += area;
    }
    areas
}

/// Seeded per-instance variety: a palette row among the first `variants`,
/// a uniform scale within `scale`, and each toggle's submesh hidden with
/// its chance. The same seed and index give the same pick everywhere.
#[derive(Clone, Debug, PartialEq)]
pub struct Variety {
    /// Rows to pick among (1: always row 0).
    pub variants: u32,
    /// Smallest and largest uniform scale.
    pub scale: [f32; 2],
    /// `(submesh of the finest LOD, chance of hiding it)`.
    pub toggles: Vec<(u32, f32)>,
    /// Seed of the picks.
    pub seed: u64,
}

impl Default for Variety {
    /// No variety: row 0, scale 1, nothing hidden.
    fn default() -> Self {
        Self {
            variants: 1,
            scale: [1.0, 1.0],
            toggles: Vec::new(),
            seed: 0,
        }
    }
}

impl Variety {
    /// Instance `index`'s look and scale.
    pub fn pick(&self, index: u64) -> (Look, f32) {
        let r = |k: u64| unit(mix(self.seed ^ mix(index ^ (k << 56))));
        let variant = ((r(1) * self.variants.max(1) as f32) as u32).min(self.variants.max(1) - 1);
        let scale = self.scale[0] + (self.scale[1] - self.scale[0]) * r(2);
        let hidden = self
            .toggles
            .iter()
            .enumerate()
            .filter(|&(k, &(submesh, chance))| {
                submesh < TOGGLEABLE_SUBMESHES && r(3 + k as u64) < chance
            })
            .fold(0, |bits, (_, &(submesh, _))| bits | 1 << submesh);
        (Look { variant, hidden }, scale)
    }
}

/// SplitMix64's finaliser.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A hash's top 24 bits as a number in `[0, 1)`.
fn unit(x: u64) -> f32 {
    (x >> 40) as f32 / (1u64 << 24) as f32
}

/// HSV (all in `[0, 1]`) to RGB.
fn hsv(h: f32, s: f32, v: f32) -> Vec3 {
    let k = |n: f32| {
        let k = (n + h * 6.0) % 6.0;
        v - v * s * k.min(4.0 - k).clamp(0.0, 1.0)
    };
    Vec3::new(k(5.0), k(3.0), k(1.0))
}

/// RGBA8 back to linear RGBA.
fn unpack(c: u32) -> Vec4 {
    Vec4::new(
        (c & 0xff) as f32,
        (c >> 8 & 0xff) as f32,
        (c >> 16 & 0xff) as f32,
        (c >> 24) as f32,
    ) / 255.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_shape_and_values_are_checked() {
        assert!(matches!(
            Palette::new(2, &[Vec4::ONE; 3]),
            Err(PaletteError::Shape { .. })
        ));
        assert!(matches!(
            Palette::new(0, &[]),
            Err(PaletteError::Shape { .. })
        ));
        assert!(matches!(
            Palette::new(1, &[Vec4::ONE, Vec4::splat(f32::NAN)]),
            Err(PaletteError::NotFinite { index: 1, .. })
        ));
        let rows = MAX_PALETTE_ROWS as usize + 1;
        assert!(matches!(
            Palette::new(1, &vec![Vec4::ONE; rows]),
            Err(PaletteError::TooManyRows { .. })
        ));
        let p = Palette::new(2, &[Vec4::ONE, Vec4::new(2.0, 0.5, -1.0, 1.0)]).unwrap();
        assert_eq!(p.rows(), 1);
        assert_eq!(p.colour(0, 1), pack_tint(Vec4::new(1.0, 0.5, 0.0, 1.0)));
    }

    #[test]
    fn generated_rows_are_white_then_distinct_and_seeded() {
        let a = Palette::generated(3, 8, 7).unwrap();
        assert_eq!(a, Palette::generated(3, 8, 7).unwrap());
        assert_ne!(a, Palette::generated(3, 8, 8).unwrap());
        assert!((0..3).all(|c| a.colour(0, c) == u32::MAX));
        let others: std::collections::BTreeSet<u32> = (1..8)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| a.colour(r, c))
            .collect();
        assert!(others.len() > 15, "{others:?}");
    }

    #[test]
    fn picks_are_seeded_in_range_and_honour_the_chances() {
        let v = Variety {
            variants: 5,
            scale: [0.8, 1.2],
            toggles: vec![(0, 0.0), (3, 1.0), (1, 0.5), (40, 1.0)],
            seed: 3,
        };
        let mut halves = 0;
        for i in 0..1000 {
            let (look, scale) = v.pick(i);
            assert_eq!(v.pick(i), (look, scale));
            assert!(look.variant < 5 && (0.8..=1.2).contains(&scale));
            assert_eq!(look.hidden & !0b1010, 0, "{look:?}");
            assert_eq!(look.hidden & 0b1000, 0b1000);
            halves += (look.hidden >> 1) & 1;
        }
        assert!(
            (400..600).contains(&halves),
            "{halves} of 1000 hid submesh 1"
        );
        let seen: std::collections::BTreeSet<u32> = (0..100).map(|i| v.pick(i).0.variant).collect();
        assert_eq!(seen.len(), 5);
    }

    #[test]
    fn generated_colours_keep_their_saturation_and_value_in_range() {
        let p = Palette::generated(4, 64, 11).unwrap();
        assert_eq!((p.columns(), p.rows()), (4, 64));
        for row in 1..64 {
            for column in 0..4 {
                let c = unpack(p.colour(row, column));
                let (max, min) = (c.x.max(c.y).max(c.z), c.x.min(c.y).min(c.z));
                // Value 0.55..=1, saturation 0.25..=0.65 (one level of
                // rounding each way).
                let level = 1.0 / 255.0;
                assert!((0.55 - level..=1.0).contains(&max), "{c}");
                let saturation = (max - min) / max;
                assert!(
                    (0.25 - 2.0 * level..=0.65 + 2.0 * level).contains(&saturation),
                    "{c}"
                );
                assert_eq!(c.w, 1.0);
            }
        }
    }

    #[test]
    fn texels_end_each_row_with_its_area_weighted_mean() {
        let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data")
            .join(format!("simple_skin.v{}.throng", crate::format::VERSION));
        let model = crate::format::read_file(&sample).unwrap();
        assert_eq!(column_count(&model), 1, "the sample has one material");
        let colours = [
            Vec4::new(1.0, 0.0, 0.0, 1.0),
            Vec4::new(0.0, 0.0, 1.0, 1.0),
            Vec4::new(0.2, 0.4, 0.6, 1.0),
            Vec4::new(0.0, 1.0, 0.0, 1.0),
        ];
        let two = Palette::new(2, &colours).unwrap();
        assert!(matches!(
            two.check(&model),
            Err(PaletteError::Columns {
                columns: 2,
                materials: 1,
                ..
            })
        ));
        // Column 1 wears no surface: each row's mean is its column 0.
        let (width, height, texels) = two.texels(&model);
        assert_eq!((width, height), (3, 2));
        let row = |r: usize| vec![two.colour(r, 0), two.colour(r, 1), two.colour(r, 0)];
        assert_eq!(texels, [row(0), row(1)].concat());
        let one = Palette::new(1, &colours[..2]).unwrap();
        assert!(one.check(&model).is_ok());
        assert_eq!(
            one.texels(&model),
            (
                2,
                2,
                vec![
                    one.colour(0, 0),
                    one.colour(0, 0),
                    one.colour(1, 0),
                    one.colour(1, 0)
                ]
            )
        );
    }

    #[test]
    fn hsv_primaries() {
        assert!(hsv(0.0, 1.0, 1.0).abs_diff_eq(Vec3::X, 1e-6));
        assert!(hsv(1.0 / 3.0, 1.0, 1.0).abs_diff_eq(Vec3::Y, 1e-6));
        assert!(hsv(0.5, 0.0, 0.5).abs_diff_eq(Vec3::splat(0.5), 1e-6));
    }
}
