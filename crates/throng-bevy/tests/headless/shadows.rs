//! The crowd's shadows in Bevy's own cascades: with `ThrongShadows`'
//! `bevy_cascades` on, Bevy's ground darkens where the Foxes stand
//! between it and the light, and only there — every darkened ground
//! pixel's ray to the light meets a Fox's posed bounds (`Crowd::pick`) —
//! while with it off Bevy's ground shows no crowd shadow at all.

use bevy::light::{CascadeShadowConfigBuilder, DirectionalLight};
use bevy::prelude::*;
use throng_bevy::{ThrongCrowd, ThrongShadows, ThrongStats, convert};
use throng_render::image_diff;

use super::{app, assets, camera, capture, foxes, settle, standing, throng_picture};

/// The ground's height in the scene.
const GROUND: f32 = -0.5;

/// Darkened ground pixels whose ray to the light may miss every Fox's
/// posed box: Bevy's shadow filtering (Gaussian, over a few texels of the
/// cascade) and its normal bias spread a shadow's edge a little past the
/// caster's silhouette.
const EDGE_TOLERANCE: f64 = 0.03;

/// The ground pixels of `with` that differ from `without` by more than the
/// golden tolerance, off the crowd (`crowd`: Throng's picture of it over a
/// plain background), and how many of them are darker.
fn changed_ground(
    with: &image::RgbaImage,
    without: &image::RgbaImage,
    crowd: &image::RgbaImage,
) -> (Vec<(u32, u32)>, usize) {
    let background = crowd.get_pixel(0, 0).0;
    let luma = |p: &image::Rgba<u8>| p.0[0] as i32 * 3 + p.0[1] as i32 * 6 + p.0[2] as i32;
    let mut changed = Vec::new();
    let mut darker = 0;
    for (x, y, p) in with.enumerate_pixels() {
        let q = without.get_pixel(x, y);
        let differs = p.0.iter().zip(q.0).any(|(a, b)| {
            (*a as i32 - b as i32).unsigned_abs() > image_diff::PIXEL_LEVEL_TOLERANCE as u32
        });
        if differs && crowd.get_pixel(x, y).0 == background {
            changed.push((x, y));
            darker += (luma(p) < luma(q)) as usize;
        }
    }
    (changed, darker)
}

#[test]
fn the_crowd_casts_into_bevys_cascades_and_bevys_ground_shows_it() {
    let dir = assets("cascades");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    // Shadows on, the cascades reaching the crowd from the test's camera.
    let world = app.world_mut();
    let light = world
        .query_filtered::<Entity, With<DirectionalLight>>()
        .single(world)
        .unwrap();
    let mut l = world.entity_mut(light);
    l.get_mut::<DirectionalLight>().unwrap().shadow_maps_enabled = true;
    l.insert(
        CascadeShadowConfigBuilder {
            first_cascade_far_bound: 450.0,
            maximum_distance: 2000.0,
            ..default()
        }
        .build(),
    );
    let set = |app: &mut App, bevy_cascades: bool| {
        app.insert_resource(ThrongShadows {
            bevy_cascades,
            own_map: true,
        });
        settle(app);
        capture(app)
    };
    let without = set(&mut app, false);
    let with = set(&mut app, true);
    let cam = camera(&mut app);
    let cast = app.world().resource::<ThrongStats>().frame().cascades[&cam];
    let crowd_picture = throng_picture(&mut app, &handle, &foxes(), true);
    let (changed, darker) = changed_ground(&with, &without, &crowd_picture);
    let _ = with.save(dir.join("bevy-cascades-on.png"));
    let _ = without.save(dir.join("bevy-cascades-off.png"));

    // Each changed ground pixel's ray to the light.
    let world = app.world_mut();
    let (camera, at) = world
        .query::<(&Camera, &GlobalTransform)>()
        .single(world)
        .map(|(c, t)| (c.clone(), *t))
        .unwrap();
    let toward_light = world
        .query::<(&DirectionalLight, &GlobalTransform)>()
        .single(world)
        .unwrap()
        .1
        .back();
    let crowd = &world.query::<&ThrongCrowd>().single(world).unwrap().crowd;
    let mut missed = Vec::new();
    for &(x, y) in &changed {
        let ray = camera
            .viewport_to_world(&at, Vec2::new(x as f32 + 0.5, y as f32 + 0.5))
            .unwrap();
        let t = (GROUND - ray.origin.y) / ray.direction.y;
        let ground = ray.origin + ray.direction * t;
        let hit = crowd.pick(convert::vec3(ground), convert::vec3(*toward_light));
        if hit.is_none() {
            missed.push((x, y));
        }
    }
    println!(
        "{} cascades, {} draws, {} casters; {} ground pixels changed by the crowd's cast ({} darker); {} of them off every Fox's shadow ray, first {:?}",
        cast.views,
        cast.draws,
        cast.casters,
        changed.len(),
        darker,
        missed.len(),
        missed.first()
    );
    assert_eq!(cast.views, 4, "the light's four cascades of the camera");
    assert!(cast.draws > 0, "the crowd is drawn into them");
    assert!(
        changed.len() >= 300,
        "Bevy's ground shows the crowd's shadow: only {} pixels changed (see {})",
        changed.len(),
        dir.display()
    );
    assert_eq!(darker, changed.len(), "the crowd's shadow darkens");
    assert!(
        missed.len() as f64 <= EDGE_TOLERANCE * changed.len() as f64,
        "{} of {} darkened ground pixels are off every Fox's shadow",
        missed.len(),
        changed.len()
    );
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
