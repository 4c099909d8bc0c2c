//! Crowd variety on every record path (`throng_core::variety`): each
//! picture of a varied crowd is compared with the same picture made
//! without variety, from things already proven (the tint, models cut down
//! by hand), within the golden tolerances.
//!
//! - A variant's palette colour is the tint that colour would give: the
//!   Fox (one material) in rows white, red and blue equals the plain Fox
//!   tinted white, red and blue; and differs from it untinted.
//! - Per material: a Fox cut into two submeshes with a material each, its
//!   palette row red for one and blue for the other, equals each half alone
//!   (a model of that submesh only) tinted red and blue, drawn together.
//! - Hidden submeshes: hiding either half equals the other half alone, and
//!   hiding both leaves the background.
//! - A golden image of a varied crowd (`varied_crowd.png`): 16 two-material
//!   Foxes in the demo's generated palette, sizes and a toggle, the same
//!   within the golden tolerances on every record path.

use glam::Vec4;
use image::RgbaImage;
use throng_bench::demo::{GridOptions, demo_variety, dressed, framing_camera, grid_crowd};
use throng_core::BakedModel;
use throng_core::variety::{Look, Palette};
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::image_diff::diff;
use throng_render::{Gpu, GpuModel, PathChoice, Renderer, RendererOptions};
use throng_tests::golden::{self as common, assert_images_match};
use throng_tests::require_gpu;
use throng_tests::scenes::{self, EVERY_PATH, FOX_ROW, FOX_ROW_VIEW};

const SIZE: (u32, u32) = (192, 96);

const RED: Vec4 = Vec4::new(0.9, 0.25, 0.2, 1.0);
const BLUE: Vec4 = Vec4::new(0.2, 0.35, 0.9, 1.0);

/// The Fox's finest LOD alone, its one submesh cut into two at half its
/// triangles, the second with a material of its own (a copy of the first)
/// and drawn from another glTF primitive; `keep` says which halves stay.
fn halves(fox: &ModelHandle, keep: [bool; 2]) -> ModelHandle {
    let mut m: BakedModel = fox.model().clone();
    m.lods.truncate(1);
    m.impostor = None;
    let mut second_material = m.materials[0].clone();
    second_material.name = "second half".into();
    m.materials.push(second_material);
    let whole = m.lods[0].submeshes[0].clone();
    let half = whole.index_count / 6 * 3;
    let first = throng_core::model::Submesh {
        index_count: half,
        ..whole.clone()
    };
    let second = throng_core::model::Submesh {
        first_index: whole.first_index + half,
        index_count: whole.index_count - half,
        source_primitive: whole.source_primitive + 1,
        material: Some(1),
        ..whole
    };
    m.lods[0].submeshes = [first, second]
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect();
    ModelHandle::new(m).unwrap()
}

/// Three Foxes in a row, each of model `models[i]` with look `looks[i]`
/// and tint `tints[i]`, all at the same times.
fn row(models: &[&ModelHandle], looks: &[Look], tints: &[Vec4]) -> Crowd {
    scenes::crowd_of(models.iter().enumerate().map(|(i, &handle)| {
        let spawn = Spawn {
            tint: tints[i],
            look: looks[i],
            ..FOX_ROW.spawn(i)
        };
        (handle, spawn)
    }))
}

/// Every record path's picture of `crowds`.
struct Pictures<'a> {
    gpu: &'a Gpu,
    renderers: Vec<(PathChoice, Renderer)>,
}

impl<'a> Pictures<'a> {
    fn new(gpu: &'a Gpu) -> Self {
        let renderers = EVERY_PATH
            .into_iter()
            .map(|path| {
                let options = RendererOptions {
                    path,
                    ..RendererOptions::default()
                };
                (path, scenes::renderer(gpu, options))
            })
            .collect();
        Self { gpu, renderers }
    }

    fn draw(
        &mut self,
        crowds: &[&Crowd],
        handles: &[&ModelHandle],
    ) -> Vec<(PathChoice, RgbaImage)> {
        let models = scenes::upload(self.gpu, handles);
        let models: Vec<&GpuModel> = models.iter().collect();
        let camera = FOX_ROW_VIEW.camera(SIZE);
        self.renderers
            .iter_mut()
            .map(|(path, r)| {
                let (image, _) = scenes::draw(r, self.gpu, SIZE, &camera, crowds, &models);
                (*path, image)
            })
            .collect()
    }
}

fn assert_same(what: &str, varied: &[(PathChoice, RgbaImage)], plain: &[(PathChoice, RgbaImage)]) {
    let dir = std::env::temp_dir().join("throng-variety");
    for ((path, a), (_, b)) in varied.iter().zip(plain) {
        assert_images_match(&format!("{what}-{path:?}"), b, a, &dir);
    }
}

#[test]
fn a_variant_is_its_palette_colour_as_a_tint() {
    let gpu = require_gpu("variety");
    let (_, fox) = common::baked("khronos_Fox.glb");
    assert_eq!(
        fox.model().materials.len(),
        1,
        "the test needs one material"
    );
    let palette = Palette::new(1, &[Vec4::ONE, RED, BLUE]).unwrap();
    let dressed = fox.with_palette(palette).unwrap();
    let looks: Vec<Look> = (0..3).map(|variant| Look { variant, hidden: 0 }).collect();
    let mut pictures = Pictures::new(&gpu);
    let varied = pictures.draw(
        &[&row(&[&dressed; 3], &looks, &[Vec4::ONE; 3])],
        &[&dressed],
    );
    let tinted = pictures.draw(
        &[&row(
            &[&fox; 3],
            &[Look::DEFAULT; 3],
            &[Vec4::ONE, RED, BLUE],
        )],
        &[&fox],
    );
    let untinted = pictures.draw(
        &[&row(&[&fox; 3], &[Look::DEFAULT; 3], &[Vec4::ONE; 3])],
        &[&fox],
    );
    assert_same("variant-as-tint", &varied, &tinted);
    for ((path, a), (_, b)) in varied.iter().zip(&untinted) {
        let d = diff(a, b);
        assert!(
            d.differing > 200,
            "{path:?}: the variants changed only {} pixels",
            d.differing
        );
    }
}

#[test]
fn palette_columns_colour_their_materials_and_hidden_submeshes_vanish() {
    let gpu = require_gpu("variety");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let both = halves(&fox, [true, true]);
    let (first, second) = (halves(&fox, [true, false]), halves(&fox, [false, true]));
    let palette = Palette::new(2, &[Vec4::ONE, Vec4::ONE, RED, BLUE]).unwrap();
    let dressed = both.with_palette(palette).unwrap();
    let mut pictures = Pictures::new(&gpu);

    // Row 1 of the palette: the first half red, the second blue.
    let row1 = Look {
        variant: 1,
        hidden: 0,
    };
    let varied = pictures.draw(
        &[&row(&[&dressed; 3], &[row1; 3], &[Vec4::ONE; 3])],
        &[&dressed],
    );
    let halves_tinted = pictures.draw(
        &[
            &row(&[&first; 3], &[Look::DEFAULT; 3], &[RED; 3]),
            &row(&[&second; 3], &[Look::DEFAULT; 3], &[BLUE; 3]),
        ],
        &[&first, &second],
    );
    assert_same("columns", &varied, &halves_tinted);

    // Hidden halves, one instance each way and one whole.
    let hide = |hidden| Look { variant: 0, hidden };
    let varied = pictures.draw(
        &[&row(
            &[&both; 3],
            &[hide(0b10), hide(0b01), hide(0)],
            &[Vec4::ONE; 3],
        )],
        &[&both],
    );
    let cut = pictures.draw(
        &[&row(
            &[&first, &second, &both],
            &[Look::DEFAULT; 3],
            &[Vec4::ONE; 3],
        )],
        &[&first, &second, &both],
    );
    assert_same("hidden", &varied, &cut);

    let none = pictures.draw(
        &[&row(&[&both; 3], &[hide(0b11); 3], &[Vec4::ONE; 3])],
        &[&both],
    );
    let empty = pictures.draw(&[&Crowd::new()], &[]);
    assert_same("all-hidden", &none, &empty);
}

#[test]
fn a_varied_crowd_matches_its_golden_on_every_path() {
    let gpu = require_gpu("variety");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let two = dressed(&halves(&fox, [true, true]), 7);
    let (crowd, _, bounds) = grid_crowd(
        &two,
        &GridOptions {
            count: 16,
            tints: false,
            variety: Some(demo_variety(7, vec![(1, 0.3)])),
            ..GridOptions::default()
        },
    )
    .unwrap();
    let looks: Vec<Look> = crowd.ids().map(|id| crowd.look(id).unwrap()).collect();
    assert!(
        looks.iter().any(|l| l.hidden == 0b10) && looks.iter().any(|l| l.hidden == 0),
        "the toggle hides the second half on some Foxes and not on others: {looks:?}"
    );
    let size = (256, 256);
    let camera = framing_camera(&bounds, 1.0);
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &two).unwrap();
    let golden = common::golden_dir(env!("CARGO_MANIFEST_DIR"));
    for path in [
        PathChoice::GpuDriven,
        PathChoice::Unbounded,
        PathChoice::Packaged,
    ] {
        let options = RendererOptions {
            path,
            sample_count: 4,
            ..RendererOptions::default()
        };
        let mut renderer = scenes::renderer(&gpu, options);
        let (image, stats) = scenes::draw(&mut renderer, &gpu, size, &camera, &[&crowd], &[&model]);
        assert_eq!(stats.visible, 16, "{path:?}");
        println!("{path:?}:");
        common::check_golden(&golden, "varied_crowd", &image);
    }
}
