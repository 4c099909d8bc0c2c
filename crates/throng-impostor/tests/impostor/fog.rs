//! Distance fog (`Lighting::fog`) on every record path, meshes and
//! impostors alike: a near row of Foxes and a far one, the far row small
//! enough on screen to be drawn as impostors.
//!
//! - Saturated fog of every falloff (linear, exponential, exponential
//!   squared, atmospheric) paints every crowd pixel the fog's colour.
//! - A linear fog that starts and ends between the rows leaves the near row
//!   as it is without fog and paints the far row the fog's colour: the
//!   distance is measured from the eye, per fragment.

use glam::Vec3;
use image::RgbaImage;
use throng_crowd::crowd::{Crowd, ModelHandle};
use throng_render::image_diff::PIXEL_LEVEL_TOLERANCE;
use throng_render::{Fog, FogFalloff, Gpu, GpuModel, Lighting, PathChoice, RendererOptions};
use throng_tests::require_gpu;
use throng_tests::scenes::{self, EVERY_PATH, Row, View};

const SIZE: (u32, u32) = (200, 120);
/// The fog's colour, linear.
const FOG: Vec3 = Vec3::new(0.8, 0.3, 0.1);
/// Distance from the eye between the rows: the near row is nearer, the far
/// row farther, every part of them.
const BETWEEN: f32 = 900.0;

/// A crowd of the Fox in the near row of three, the far row of seven, or
/// both. Each Fox's clip and time by its place in its row, so a row poses
/// alike drawn alone or with the other.
fn crowd(fox: &ModelHandle, near: bool, far: bool) -> Crowd {
    let clips = fox.model().clips.len();
    let near_row = Row {
        first: Vec3::new(-80.0, 0.0, 0.0),
        step: Vec3::new(80.0, 0.0, 0.0),
        clips,
        time_step: 0.1,
    };
    let far_row = Row {
        first: Vec3::new(-330.0, 0.0, -1400.0),
        step: Vec3::new(110.0, 0.0, 0.0),
        ..near_row
    };
    let near = near_row.of(fox, if near { 3 } else { 0 });
    scenes::crowd_of(near.chain(far_row.of(fox, if far { 7 } else { 0 })))
}

/// Both rows, from the near one's front and above.
const VIEW: View = View {
    eye: Vec3::new(0.0, 90.0, 320.0),
    target: Vec3::new(0.0, 40.0, -300.0),
    fov: 40f32.to_radians(),
    depth: (1.0, 10_000.0),
};

struct Scene<'a> {
    gpu: &'a Gpu,
    model: GpuModel,
}

impl Scene<'_> {
    /// The crowd's picture and how many impostors it drew.
    fn draw(&self, path: PathChoice, fog: Option<Fog>, crowd: &Crowd) -> (RgbaImage, u32) {
        let options = RendererOptions {
            path,
            lighting: Lighting {
                fog,
                ..Lighting::default()
            },
            ..RendererOptions::default()
        };
        let (picture, stats) = scenes::draw(
            &mut scenes::renderer(self.gpu, options),
            self.gpu,
            SIZE,
            &VIEW.camera(SIZE),
            &[crowd],
            &[&self.model],
        );
        (picture, stats.impostors)
    }
}

fn fog(falloff: FogFalloff) -> Fog {
    Fog {
        color: FOG.extend(1.0),
        light_scatter: Vec3::ZERO,
        light_exponent: 8.0,
        falloff,
    }
}

/// The sRGB-encoded 8-bit level of a linear value.
fn srgb(linear: f32) -> u8 {
    let s = if linear <= 0.003_130_8 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

/// Pixels of `mask` that are not `mask`'s background.
fn covered(mask: &RgbaImage) -> Vec<(u32, u32)> {
    let background = mask.get_pixel(0, 0).0;
    mask.enumerate_pixels()
        .filter(|(_, _, p)| p.0 != background)
        .map(|(x, y, _)| (x, y))
        .collect()
}

/// The worst channel difference over `pixels` between `actual` and
/// `expected` (a picture or one colour), and where.
fn worst(
    actual: &RgbaImage,
    pixels: &[(u32, u32)],
    expected: impl Fn(u32, u32) -> [u8; 3],
) -> (u8, (u32, u32)) {
    let mut w = (0, (0, 0));
    for &(x, y) in pixels {
        let a = actual.get_pixel(x, y).0;
        let e = expected(x, y);
        let d = (0..3).map(|c| a[c].abs_diff(e[c])).max().unwrap();
        if d > w.0 {
            w = (d, (x, y));
        }
    }
    w
}

#[test]
fn fog_paints_the_crowd_by_distance_from_the_eye_on_every_path() {
    let gpu = require_gpu("fog");
    // The impostor takes over below a quarter of the screen's height: the
    // far row, not the near one.
    let fox = crate::common::variant(crate::common::fox(&gpu), Some(0.25));
    let scene = Scene {
        gpu: &gpu,
        model: GpuModel::upload(&gpu.device, &gpu.queue, &fox).unwrap(),
    };
    let both = crowd(&fox, true, true);
    let fog_level = [srgb(FOG.x), srgb(FOG.y), srgb(FOG.z)];
    let saturated = [
        FogFalloff::Linear {
            start: 0.0,
            end: 1.0,
        },
        FogFalloff::Exponential { density: 1.0 },
        FogFalloff::ExponentialSquared { density: 1.0 },
        FogFalloff::Atmospheric {
            extinction: Vec3::splat(1.0),
            inscattering: Vec3::splat(1.0),
        },
    ];
    let split = fog(FogFalloff::Linear {
        start: BETWEEN,
        end: BETWEEN + 1.0,
    });
    for path in EVERY_PATH {
        let (clear, impostors) = scene.draw(path, None, &both);
        let all = covered(&clear);
        assert!(
            all.len() > 1000,
            "{path:?}: the crowd covers {} pixels",
            all.len()
        );
        println!(
            "{path:?}: {} crowd pixels, {impostors} impostors",
            all.len()
        );
        for falloff in saturated {
            let (fogged, _) = scene.draw(path, Some(fog(falloff)), &both);
            let (d, at) = worst(&fogged, &all, |_, _| fog_level);
            println!("{path:?} {falloff:?}: worst {d} levels from the fog colour at {at:?}");
            assert!(
                d <= PIXEL_LEVEL_TOLERANCE,
                "{path:?} {falloff:?}: a crowd pixel at {at:?} is {d} levels from the fog colour"
            );
        }

        // The split fog: the near row clear, the far row fogged.
        let (near, _) = scene.draw(path, None, &crowd(&fox, true, false));
        let near = covered(&near);
        let far_only: Vec<_> = {
            let (far, far_impostors) = scene.draw(path, None, &crowd(&fox, false, true));
            assert!(
                far_impostors >= 7,
                "{path:?}: the far row is drawn as impostors ({far_impostors})"
            );
            covered(&far)
                .into_iter()
                .filter(|p| !near.contains(p))
                .collect()
        };
        let (fogged, _) = scene.draw(path, Some(split), &both);
        let (d_near, at_near) = worst(&fogged, &near, |x, y| {
            let p = clear.get_pixel(x, y).0;
            [p[0], p[1], p[2]]
        });
        let (d_far, at_far) = worst(&fogged, &far_only, |_, _| fog_level);
        println!(
            "{path:?} split at {BETWEEN}: near row ({} px) worst {d_near} from clear at {at_near:?}; far row ({} px) worst {d_far} from the fog colour at {at_far:?}",
            near.len(),
            far_only.len()
        );
        assert!(near.len() > 500 && far_only.len() > 100);
        assert!(
            d_near <= PIXEL_LEVEL_TOLERANCE,
            "{path:?}: the near row, nearer than the fog, changed by {d_near} at {at_near:?}"
        );
        assert!(
            d_far <= PIXEL_LEVEL_TOLERANCE,
            "{path:?}: the far row, past the fog's end, is {d_far} from the fog colour at {at_far:?}"
        );
    }
}
