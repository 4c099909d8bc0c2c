//! Agents promoted to Bevy's own Fox (its glTF scene and
//! `AnimationPlayer`) and back:
//! - at each switch the Fox's silhouette drawn by the crowd and by Bevy
//!   overlap with IoU ≥ [`IOU`], both ways, on Walk and Run mid-stride
//!   (time held still across the switch, so the two pictures are of one
//!   pose);
//! - in every frame across a switch exactly one of them draws the Fox
//!   (the crowd's instance has a size, or Bevy's meshes of the character
//!   were visible), and the picture shows a Fox;
//! - while promoted, with time running, Bevy's clip time is the time the
//!   hidden instance has reached (the two stay in step), and the demoted
//!   instance plays on from the character's clip and time;
//! - a character whose animation the game stopped rejoins at the baked
//!   frame nearest its pose; promoted with time running, it shows the
//!   time its instance reached in that frame.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy::animation::AnimationPlayer;
use bevy::camera::visibility::ViewVisibility;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::time::TimeUpdateStrategy;
use throng_bevy::{
    ThrongAgent, ThrongAgentCrowd, ThrongCrowd, ThrongInstance, ThrongModel, ThrongPromote,
    ThrongPromoted,
};

use super::{SIZE, Target, app, assets, capture, run_until, with_fox};

/// Smallest intersection over union of the crowd's and Bevy's silhouettes
/// of the same pose (the bound).
const IOU: f32 = 0.97;
/// A pixel is the Fox's when its RGB differs from the empty scene's by
/// more than this many levels in sum.
const MASK_LEVELS: i32 = 40;
/// The frame step while time runs.
const STEP: f32 = 1.0 / 30.0;

/// The Fox's pixels: those of `picture` that differ from `empty`.
fn mask(picture: &image::RgbaImage, empty: &image::RgbaImage) -> Vec<bool> {
    picture
        .pixels()
        .zip(empty.pixels())
        .map(|(p, e)| {
            (0..3)
                .map(|c| (p.0[c] as i32 - e.0[c] as i32).abs())
                .sum::<i32>()
                > MASK_LEVELS
        })
        .collect()
}

/// Intersection over union of two masks, and their sizes.
fn iou(a: &[bool], b: &[bool]) -> (f32, usize, usize) {
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    let count = |m: &[bool]| m.iter().filter(|x| **x).count();
    (both as f32 / either.max(1) as f32, count(a), count(b))
}

/// Who drew the Fox this frame: the crowd (the instance the frame's
/// extract copied has a size: a zero transform is culled in every view)
/// and Bevy (a mesh below the character was visible to a view). Stats'
/// counts of what the GPU culled arrive frames late; these are the
/// frame's own.
fn drawers(app: &mut App, agent: Entity) -> (bool, bool) {
    let id = app.world().get::<ThrongInstance>(agent).unwrap().id;
    let placed = agent_crowd(app).crowd.state(id).unwrap().world_from_model;
    let size = [placed.x_axis, placed.y_axis, placed.z_axis].map(|a| a.truncate().length());
    let crowd = size.iter().any(|s| *s > 0.0);
    let world = app.world_mut();
    let character = world.get::<ThrongPromoted>(agent).map(|p| p.character());
    let bevy = character.is_some_and(|c| {
        let mut meshes = world.query_filtered::<(Entity, &ViewVisibility), With<Mesh3d>>();
        let mut parents = world.query::<&ChildOf>();
        meshes.iter(world).any(|(e, v)| {
            v.get() && {
                let mut at = e;
                loop {
                    if at == c {
                        break true;
                    }
                    match parents.get(world, at) {
                        Ok(p) => at = p.parent(),
                        Err(_) => break false,
                    }
                }
            }
        })
    });
    (crowd, bevy)
}

type Shots = Arc<Mutex<Vec<(usize, image::RgbaImage)>>>;

/// Runs frames until `done` (at most 120), asking each for a screenshot
/// and checking that exactly one of crowd and Bevy drew the Fox; then
/// waits for the screenshots and checks each shows a Fox of at least
/// half `fox` pixels. Returns the number of frames run.
fn switch_frames(
    app: &mut App,
    agent: Entity,
    (empty, fox): (&image::RgbaImage, usize),
    what: &str,
    mut done: impl FnMut(&mut App) -> bool,
) -> usize {
    let shots: Shots = Arc::default();
    let target = app.world().resource::<Target>().0.clone();
    let mut frames = 0;
    while frames < 120 {
        let sink = shots.clone();
        let n = frames;
        app.world_mut()
            .spawn(Screenshot::image(target.clone()))
            .observe(move |shot: On<ScreenshotCaptured>| {
                let bytes = shot.image.data.clone().expect("pixels");
                let picture = image::RgbaImage::from_raw(SIZE.0, SIZE.1, bytes).unwrap();
                sink.lock().unwrap().push((n, picture));
            });
        app.update();
        frames += 1;
        let (crowd, bevy) = drawers(app, agent);
        eprintln!("{what} frame {frames}: crowd {crowd} bevy {bevy}");
        assert!(
            crowd != bevy,
            "{what}: frame {frames} of the switch: the crowd drew the Fox: {crowd}, Bevy drew it: {bevy}"
        );
        if done(app) {
            break;
        }
    }
    run_until(app, "the switch's screenshots", |_| {
        shots.lock().unwrap().len() == frames
    });
    for (n, picture) in shots.lock().unwrap().iter() {
        let shown = mask(picture, empty).iter().filter(|x| **x).count();
        assert!(
            shown * 2 >= fox,
            "{what}: frame {} of the switch shows {shown} Fox pixels of {fox}",
            n + 1
        );
    }
    frames
}

fn agent_crowd(app: &mut App) -> &ThrongCrowd {
    let world = app.world_mut();
    let mut q = world.query_filtered::<&ThrongCrowd, With<ThrongAgentCrowd>>();
    q.single(world).expect("one agent crowd")
}

/// The agent instance's clip and time now.
fn crowd_time(app: &mut App, agent: Entity) -> (usize, f32) {
    let id = app.world().get::<ThrongInstance>(agent).unwrap().id;
    agent_crowd(app).crowd.state(id).unwrap().current.unwrap()
}

/// The test's scratch folder, with the glTF the Fox was baked from
/// beside `fox.throng` under the name the bake recorded (what promotion
/// loads by default).
fn assets_with_gltf(test: &str) -> std::path::PathBuf {
    let dir = assets(test);
    let fox_glb =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_Fox.glb");
    std::fs::copy(&fox_glb, dir.join("khronos_Fox.glb")).unwrap();
    dir
}

/// The promoted character's `AnimationPlayer` entity.
fn player_of(app: &App, agent: Entity) -> Entity {
    let promoted = app.world().get::<ThrongPromoted>(agent).unwrap();
    promoted.player().expect("the character has its player")
}

/// The promoted character's heaviest clip time.
fn bevy_time(app: &App, agent: Entity) -> f32 {
    let player = player_of(app, agent);
    let player = app.world().get::<AnimationPlayer>(player).unwrap();
    let (_, a) = player
        .playing_animations()
        .max_by(|x, y| x.1.weight().total_cmp(&y.1.weight()))
        .expect("the character plays");
    a.seek_time()
}

/// The scene's ground removed: the silhouettes stand against the clear
/// colour, which no part of the Fox is near (on the ground its dark legs
/// and shadowed flanks came within the mask's threshold of the grass).
fn without_ground(app: &mut App) {
    let world = app.world_mut();
    let meshes: Vec<Entity> = world
        .query_filtered::<Entity, With<Mesh3d>>()
        .iter(world)
        .collect();
    for e in meshes {
        world.despawn(e);
    }
}

fn set_step(app: &mut App, seconds: f32) {
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        seconds,
    )));
}

fn is_shown(app: &App, agent: Entity) -> bool {
    let p = app.world().get::<ThrongPromoted>(agent);
    assert!(
        !p.is_some_and(|p| p.failed()),
        "the promotion failed (see the log)"
    );
    p.is_some_and(|p| p.is_shown())
}

/// Promotes an agent playing `clip` from `start`, checks the switch, lets
/// the character run `frames` frames, demotes it and checks that switch.
fn promote_and_back(clip: usize, start: f32, frames: usize) {
    let dir = assets_with_gltf(&format!("promote-{clip}"));
    let mut app = app(&dir);
    set_step(&mut app, 0.0);
    let fox = with_fox(&mut app);
    without_ground(&mut app);
    let empty = capture(&mut app);
    let place = Transform::from_xyz(10.0, 0.0, 40.0)
        .with_rotation(Quat::from_rotation_y(1.4))
        .with_scale(Vec3::splat(2.2));
    let agent = app
        .world_mut()
        .spawn((
            ThrongAgent::new(fox.clone())
                .playing(clip)
                .starting_at(start),
            place,
        ))
        .id();
    run_until(&mut app, "the agent drawn", |app| drawers(app, agent).0);
    let crowd_before = capture(&mut app);
    let fox_pixels = mask(&crowd_before, &empty).iter().filter(|x| **x).count();
    assert!(
        fox_pixels > 1500,
        "the crowd's Fox covers {fox_pixels} pixels"
    );

    // Crowd to Bevy, time held.
    app.world_mut()
        .entity_mut(agent)
        .insert(ThrongPromote::default());
    let n = switch_frames(&mut app, agent, (&empty, fox_pixels), "promotion", |app| {
        is_shown(app, agent)
    });
    let bevy_at_switch = capture(&mut app);
    let what = format!("clip {clip} at {start} s");
    check_iou(
        &crowd_before,
        &bevy_at_switch,
        &empty,
        &dir,
        &format!("{what}, crowd to Bevy"),
    );
    println!("{what}: promoted in {n} frames (loading the glTF)");

    // Running: Bevy's clip time is the hidden instance's.
    set_step(&mut app, STEP);
    let mut worst = 0.0f32;
    for _ in 0..frames {
        app.update();
        assert!(is_shown(&app, agent));
        let (c, t) = crowd_time(&mut app, agent);
        assert_eq!(c, clip);
        worst = worst.max((bevy_time(&app, agent) - t).abs());
    }
    println!(
        "{what}: over {frames} running frames Bevy's clip time is the instance's within {worst:.2e} s"
    );
    assert!(
        worst < 1e-3,
        "Bevy's clip time strays {worst} s from the instance's"
    );

    // Bevy to crowd, time held.
    set_step(&mut app, 0.0);
    app.update();
    let bevy_before = capture(&mut app);
    let reached = bevy_time(&app, agent);
    app.world_mut().entity_mut(agent).remove::<ThrongPromote>();
    switch_frames(&mut app, agent, (&empty, fox_pixels), "demotion", |app| {
        app.world().get::<ThrongPromoted>(agent).is_none()
    });
    let crowd_after = capture(&mut app);
    check_iou(
        &bevy_before,
        &crowd_after,
        &empty,
        &dir,
        &format!("{what}, Bevy to crowd"),
    );
    let (c, t) = crowd_time(&mut app, agent);
    assert_eq!(c, clip, "the demoted instance plays the character's clip");
    assert!(
        (t - reached).abs() < 1e-3,
        "the demoted instance is at {t} s, the character was at {reached} s"
    );
    assert_eq!(
        app.world().get::<ThrongAgent>(agent).unwrap().clip,
        Some(clip)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn check_iou(
    a: &image::RgbaImage,
    b: &image::RgbaImage,
    empty: &image::RgbaImage,
    dir: &std::path::Path,
    what: &str,
) {
    let (ratio, na, nb) = iou(&mask(a, empty), &mask(b, empty));
    println!("{what}: silhouettes of {na} and {nb} pixels, IoU {ratio:.4} (bound {IOU})");
    if ratio < IOU {
        let name = what.replace([' ', ','], "_");
        let _ = a.save(dir.join(format!("{name}-before.png")));
        let _ = b.save(dir.join(format!("{name}-after.png")));
        panic!(
            "{what}: IoU {ratio:.4} < {IOU} (pictures in {})",
            dir.display()
        );
    }
}

#[test]
fn walk_mid_stride_promotes_to_bevy_and_back_without_a_pop() {
    promote_and_back(1, 0.37, 20);
}

#[test]
fn run_mid_stride_promotes_to_bevy_and_back_without_a_pop() {
    promote_and_back(2, 0.21, 14);
}

#[test]
fn a_character_the_game_posed_rejoins_at_the_nearest_baked_frame() {
    let dir = assets_with_gltf("promote-posed");
    let mut app = app(&dir);
    set_step(&mut app, STEP);
    let fox = with_fox(&mut app);
    let agent = app
        .world_mut()
        .spawn((
            ThrongAgent::new(fox.clone()).playing(1).starting_at(0.1),
            Transform::default(),
        ))
        .id();
    app.world_mut()
        .entity_mut(agent)
        .insert(ThrongPromote::default());
    // Promoted with time running: in the switch frame Bevy samples the
    // time the instance reached in that frame.
    run_until(&mut app, "the promotion", |app| is_shown(app, agent));
    let (_, t) = crowd_time(&mut app, agent);
    let at_switch = bevy_time(&app, agent);
    assert!(
        (at_switch - t).abs() < 1e-4,
        "switched with time running, Bevy shows {at_switch} s, the instance was at {t} s"
    );
    for _ in 0..9 {
        app.update();
    }
    // The game stops the animation: the bones keep the pose last sampled.
    let held = bevy_time(&app, agent);
    let player = player_of(&app, agent);
    app.world_mut()
        .get_mut::<AnimationPlayer>(player)
        .unwrap()
        .stop_all();
    app.update();
    app.world_mut().entity_mut(agent).remove::<ThrongPromote>();
    app.update();
    let walk = app
        .world()
        .resource::<Assets<ThrongModel>>()
        .get(&fox)
        .unwrap()
        .0
        .model()
        .clips[1]
        .clone();
    // The spacing of Walk's baked frames.
    let frame = walk.duration / (walk.frame_count - 1) as f32;
    let (c, t) = crowd_time(&mut app, agent);
    println!(
        "posed at Walk {held:.4} s, rejoined at clip {c} {t:.4} s (baked frames {frame:.4} s apart)"
    );
    assert_eq!(c, 1, "the nearest baked pose is Walk's");
    assert!(
        (t - held).abs() <= 0.5 * frame + 1e-4,
        "rejoined at {t} s, the pose was Walk at {held} s (half a frame {})",
        0.5 * frame
    );
    let _ = std::fs::remove_dir_all(&dir);
}
