//! The crowd in Bevy's pass against Throng's own picture: unshadowed and
//! hidden by Bevy's ground where buried, shadowed by a shadow-casting light,
//! and fogged by the camera's distance fog as Bevy's formulas do.

use bevy::light::DirectionalLight;
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use throng_bevy::{ThrongCrowd, ThrongReceive, ThrongShadows};
use throng_crowd::crowd::Crowd;
use throng_render::image_diff::{self, diff};

use super::{
    BURIED, SIZE, app, assert_crowd_matches, assets, camera, capture, composite, foxes, settle,
    spawn, standing, throng_picture,
};

#[test]
fn a_crowd_in_bevys_pass_matches_throngs_picture_and_is_hidden_by_bevys_ground() {
    let dir = assets("pass");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let spots = foxes();
    settle(&mut app);
    let ground = capture(&mut app);
    let throng = throng_picture(&mut app, &handle, &spots, false);
    let background = throng.get_pixel(0, 0).0;
    assert_crowd_matches(&ground, &throng, &dir, "unshadowed");

    // The buried Fox: in view without the ground, hidden by it.
    let buried = throng_picture(&mut app, &handle, &[(BURIED, 0, 0.0)], false);
    let hidden = buried.pixels().filter(|p| p.0 != background).count();
    {
        let world = app.world_mut();
        let mut q = world.query::<&mut ThrongCrowd>();
        let mut c = q.single_mut(world).unwrap();
        let m = c.crowd.add_model(&handle);
        spawn(&mut c.crowd, m, BURIED, 0, 0.0);
        c.crowd.update(0.0);
    }
    let with_buried = capture(&mut app);
    let d = diff(&ground, &with_buried);
    println!(
        "a buried Fox of {hidden} pixels in view: {} pixels of Bevy's picture changed",
        d.differing
    );
    assert!(
        // Twice what the tolerance lets differ: drawn over the ground, it
        // would fail the comparison below.
        hidden as f64 > 2.0 * image_diff::MAX_DIFFERING_FRACTION * (SIZE.0 * SIZE.1) as f64,
        "the buried Fox would cover {hidden} pixels without the ground"
    );
    assert!(
        d.within_tolerance((SIZE.0 * SIZE.1) as usize),
        "the buried Fox shows through Bevy's ground: {} pixels changed",
        d.differing
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_shadow_casting_light_shadows_the_crowd_as_throng_does() {
    let dir = assets("shadow");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let world = app.world_mut();
    let mut lights = world.query::<&mut DirectionalLight>();
    lights.single_mut(world).unwrap().shadow_maps_enabled = true;
    // Throng's own map (the default receives Bevy's cascades: shadows.rs).
    app.insert_resource(ThrongShadows {
        cast_into_bevy: false,
        receive: ThrongReceive::OwnMap,
    });
    settle(&mut app);
    let shadowed = capture(&mut app);
    let spots = foxes();
    let throng = throng_picture(&mut app, &handle, &spots, true);
    assert_crowd_matches(&shadowed, &throng, &dir, "shadowed");
    // The shadows are in Bevy's picture: its crowd is not the unshadowed
    // one (the Foxes shadow their own legs and flanks, and each other).
    let unshadowed = throng_picture(&mut app, &handle, &spots, false);
    let d = diff(&composite(&shadowed, &unshadowed).0, &shadowed);
    println!(
        "Bevy's shadowed crowd vs Throng's unshadowed: {} pixels differ by more than {} levels",
        d.differing,
        image_diff::PIXEL_LEVEL_TOLERANCE
    );
    assert!(
        d.differing >= 50,
        "the crowd in Bevy is not shadowed: only {} pixels differ from the unshadowed crowd",
        d.differing
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_cameras_distance_fog_fogs_the_crowd_as_bevys_formulas_do() {
    let dir = assets("fog");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let spots = foxes();
    settle(&mut app);
    let clear = throng_picture(&mut app, &handle, &spots, false);
    let camera = camera(&mut app);
    let world = app.world_mut();
    // About half the way to the fog's colour at the Foxes' distance, with
    // the sun's glow scattered into it.
    world.entity_mut(camera).insert(DistanceFog {
        color: Color::srgb(0.55, 0.6, 0.7),
        directional_light_color: Color::srgba(1.0, 0.9, 0.7, 0.5),
        directional_light_exponent: 10.0,
        falloff: FogFalloff::Exponential { density: 0.0015 },
    });
    settle(&mut app);
    let fogged = capture(&mut app);
    let throng = throng_picture(&mut app, &handle, &spots, false);
    assert_crowd_matches(&fogged, &throng, &dir, "fogged");
    let d = diff(&composite(&fogged, &clear).0, &fogged);
    println!(
        "Bevy's fogged crowd vs Throng's clear one: {} pixels differ",
        d.differing
    );
    assert!(
        d.differing > 1000,
        "the crowd in Bevy is not fogged: only {} pixels differ from the clear crowd",
        d.differing
    );

    // Against Bevy's own fog: in a fog that is full from the eye on, the
    // crowd vanishes into it exactly as Bevy's ground behind it does (the
    // same colour, the same glow of the sun at each pixel), so the picture
    // with the crowd is the picture without. The sun moves in front of the
    // camera, low, so that its glow shows across the picture.
    let world = app.world_mut();
    let mut lights = world.query_filtered::<&mut Transform, With<DirectionalLight>>();
    *lights.single_mut(world).unwrap() =
        Transform::default().looking_to(Vec3::new(0.0, 0.3, 1.0), Vec3::Y);
    world.entity_mut(camera).insert(DistanceFog {
        color: Color::srgb(0.55, 0.6, 0.7),
        directional_light_color: Color::srgba(1.0, 0.9, 0.7, 0.5),
        directional_light_exponent: 10.0,
        falloff: FogFalloff::Linear {
            start: 0.0,
            end: 1.0,
        },
    });
    settle(&mut app);
    let with_crowd = capture(&mut app);
    {
        let world = app.world_mut();
        let mut q = world.query::<&mut ThrongCrowd>();
        q.single_mut(world).unwrap().crowd = Crowd::new();
    }
    settle(&mut app);
    let without = capture(&mut app);
    let d = diff(&with_crowd, &without);
    println!(
        "in full fog, the crowd vs none: {} pixels differ by more than {} levels, worst {} at ({}, {})",
        d.differing,
        image_diff::PIXEL_LEVEL_TOLERANCE,
        d.worst.2,
        d.worst.0,
        d.worst.1
    );
    let _ = with_crowd.save(dir.join("bevy-full-fog.png"));
    assert!(
        d.within_tolerance((SIZE.0 * SIZE.1) as usize),
        "in full fog the crowd does not vanish as Bevy's ground does (see {})",
        dir.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
