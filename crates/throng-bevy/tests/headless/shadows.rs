//! The crowd's shadows in Bevy's own cascades: with `ThrongShadows`'
//! `cast_into_bevy` on, Bevy's ground darkens where the Foxes stand
//! between it and the light, and only there — every darkened ground
//! pixel's ray to the light meets a Fox's posed bounds (`Crowd::pick`) —
//! while with it off Bevy's ground shows no crowd shadow at all. And with
//! `receive` Bevy's cascades, a Bevy cube's shadow falls on the crowd:
//! its pixels darken inside the cube's shadow volume on the screen, and
//! nowhere else.

use bevy::light::{CascadeShadowConfigBuilder, DirectionalLight};
use bevy::prelude::*;
use throng_bevy::{ThrongCrowd, ThrongReceive, ThrongShadows, ThrongStats, convert};
use throng_render::image_diff;

use super::{app, assets, camera, capture, foxes, settle, standing, throng_picture};

/// The ground's height in the scene.
const GROUND: f32 = -0.5;

/// Darkened ground pixels whose ray to the light may miss every Fox's
/// posed box: Bevy's shadow filtering (Gaussian, over a few texels of the
/// cascade) and its normal bias spread a shadow's edge a little past the
/// caster's silhouette.
const EDGE_TOLERANCE: f64 = 0.03;

/// How far outside a shadow volume's outline on the screen, in pixels, a
/// shadowed pixel may be: Bevy's filter (Castaño 13-tap, two texels each
/// way) and its normal bias, at the cascade's texel size on the screen.
const HULL_MARGIN: f32 = 3.0;

/// A pixel's luma, in the integer weights (3, 6, 1) the tests compare by.
fn luma(p: &image::Rgba<u8>) -> i32 {
    p.0[0] as i32 * 3 + p.0[1] as i32 * 6 + p.0[2] as i32
}

/// Turns the scene's directional light's shadows on, its cascades reaching
/// the crowd from the test's camera, and returns its direction towards the
/// light.
fn shadowing_light(app: &mut App) -> Dir3 {
    let world = app.world_mut();
    let (light, toward_light) = world
        .query_filtered::<(Entity, &GlobalTransform), With<DirectionalLight>>()
        .single(world)
        .map(|(e, t)| (e, t.back()))
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
    toward_light
}

/// Bevy's picture of the scene, settled with the crowd's shadows cast
/// into Bevy's cascades or not, and received as `receive`.
fn picture_with(app: &mut App, cast_into_bevy: bool, receive: ThrongReceive) -> image::RgbaImage {
    app.insert_resource(ThrongShadows {
        cast_into_bevy,
        receive,
    });
    settle(app);
    capture(app)
}

/// The test's camera and its transform.
fn camera_view(app: &mut App) -> (Camera, GlobalTransform) {
    let world = app.world_mut();
    world
        .query::<(&Camera, &GlobalTransform)>()
        .single(world)
        .map(|(c, t)| (c.clone(), *t))
        .unwrap()
}

/// Removes the test's scratch folder, unless `KEEP` is set.
fn remove_unless_kept(dir: &std::path::Path) {
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The ground pixels of `with` that differ from `without` by more than the
/// golden tolerance, off the crowd (`crowd`: Throng's picture of it over a
/// plain background), and how many of them are darker.
fn changed_ground(
    with: &image::RgbaImage,
    without: &image::RgbaImage,
    crowd: &image::RgbaImage,
) -> (Vec<(u32, u32)>, usize) {
    let background = crowd.get_pixel(0, 0).0;
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
    shadowing_light(&mut app);
    let without = picture_with(&mut app, false, ThrongReceive::OwnMap);
    let with = picture_with(&mut app, true, ThrongReceive::OwnMap);
    let cam = camera(&mut app);
    let cast = app.world().resource::<ThrongStats>().frame().cascades[&cam];
    let crowd_picture = throng_picture(&mut app, &handle, &foxes(), true);
    let (changed, darker) = changed_ground(&with, &without, &crowd_picture);
    let _ = with.save(dir.join("bevy-cascades-on.png"));
    let _ = without.save(dir.join("bevy-cascades-off.png"));

    // Each changed ground pixel's ray to the light.
    let (camera, at) = camera_view(&mut app);
    let world = app.world_mut();
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
    remove_unless_kept(&dir);
}

/// Whether `p` lies in the convex hull of `points` grown by `margin`.
fn in_hull(points: &[Vec2], p: Vec2, margin: f32) -> bool {
    // Andrew's monotone chain, counter-clockwise.
    let mut pts = points.to_vec();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<Vec2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Vec2>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &q in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    (0..hull.len()).all(|i| {
        let (a, b) = (hull[i], hull[(i + 1) % hull.len()]);
        let edge = b - a;
        // Inside: left of every edge, within `margin`.
        edge.perp_dot(p - a) / edge.length() >= -margin
    })
}

#[test]
fn a_bevy_cubes_shadow_falls_on_the_crowd_through_bevys_cascades() {
    let dir = assets("receive");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let toward_light = shadowing_light(&mut app);
    let world = app.world_mut();
    // A cube of Bevy's up towards the light from the second Fox.
    let side = 80.0;
    let over = Vec3::new(-70.0, 40.0, -60.0) + *toward_light * 160.0;
    let mesh = world
        .resource_mut::<Assets<Mesh>>()
        .add(Cuboid::from_length(side));
    let material = world
        .resource_mut::<Assets<StandardMaterial>>()
        .add(StandardMaterial::default());
    world.spawn((
        Mesh3d(mesh),
        MeshMaterial3d(material),
        Transform::from_translation(over),
    ));
    let unshadowed = picture_with(&mut app, false, ThrongReceive::None);
    let received = picture_with(&mut app, false, ThrongReceive::BevyCascades);
    let crowd = throng_picture(&mut app, &handle, &foxes(), false);
    let _ = received.save(dir.join("bevy-receive-on.png"));
    let _ = unshadowed.save(dir.join("bevy-receive-off.png"));

    // The crowd's pixels darkened, against the cube's shadow volume on
    // the screen: the cube's corners and their shadows on the ground.
    let background = crowd.get_pixel(0, 0).0;
    let (camera, at) = camera_view(&mut app);
    let mut volume = Vec::new();
    for i in 0..8 {
        let corner = over
            + Vec3::new(
                if i & 1 == 0 { -0.5 } else { 0.5 },
                if i & 2 == 0 { -0.5 } else { 0.5 },
                if i & 4 == 0 { -0.5 } else { 0.5 },
            ) * side;
        let to_ground = (corner.y - GROUND) / toward_light.y;
        for p in [corner, corner - *toward_light * to_ground] {
            volume.push(camera.world_to_viewport(&at, p).unwrap());
        }
    }
    let (mut darkened, mut outside, mut lighter) = (0, 0, 0);
    for (x, y, p) in received.enumerate_pixels() {
        if crowd.get_pixel(x, y).0 == background {
            continue;
        }
        let q = unshadowed.get_pixel(x, y);
        let (a, b) = (luma(p), luma(q));
        if (a - b).abs() <= 10 * image_diff::PIXEL_LEVEL_TOLERANCE as i32 {
            continue;
        }
        if a > b {
            lighter += 1;
            continue;
        }
        darkened += 1;
        if !in_hull(
            &volume,
            Vec2::new(x as f32 + 0.5, y as f32 + 0.5),
            HULL_MARGIN,
        ) {
            outside += 1;
        }
    }
    println!(
        "the cube's shadow on the crowd: {darkened} crowd pixels darkened ({outside} outside the cube's shadow volume on screen), {lighter} lightened"
    );
    assert!(
        darkened >= 40,
        "the cube's shadow falls on the crowd: {darkened} crowd pixels darkened (see {})",
        dir.display()
    );
    assert_eq!(lighter, 0, "receiving only darkens");
    assert_eq!(
        outside, 0,
        "darkened crowd pixels outside the cube's shadow"
    );
    remove_unless_kept(&dir);
}
