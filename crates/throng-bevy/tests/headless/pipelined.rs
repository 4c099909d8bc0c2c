//! The crowd with Bevy's pipelined rendering: the extract copies only what
//! changed into the render world's replicas (an idle crowd nothing, a
//! moved agent one instance), and with the render world on its own thread
//! the crowd's pixels are still Throng's picture of the crowd.

use bevy::prelude::*;
use throng_bevy::{ThrongAgent, ThrongCrowd, ThrongStats};

use super::{
    app_settings, assert_crowd_matches, assets, capture, foxes, settle, standing, throng_picture,
    with_fox,
};

/// Instances the last extract copied (the render world is in the app:
/// its report is this frame's).
fn copied(app: &App) -> usize {
    app.world()
        .resource::<ThrongStats>()
        .frame()
        .extracted_instances
}

#[test]
fn the_extract_copies_only_what_changed() {
    let dir = assets("extract");
    let mut app = super::app(&dir);
    let fox = with_fox(&mut app);
    let agents: Vec<Entity> = (0..40)
        .map(|i| {
            let at = Vec3::new((i % 8) as f32 * 60.0 - 210.0, 0.0, (i / 8) as f32 * -60.0);
            let agent = ThrongAgent::new(fox.clone()).playing(i % 3);
            app.world_mut()
                .spawn((agent, Transform::from_translation(at)))
                .id()
        })
        .collect();
    app.update();
    assert_eq!(copied(&app), 40, "the new crowd is copied whole");
    for frame in 0..5 {
        app.update();
        assert_eq!(
            copied(&app),
            0,
            "idle frame {frame}: the agents play on, nothing changed"
        );
    }
    for &a in &agents[3..5] {
        app.world_mut()
            .get_mut::<Transform>(a)
            .unwrap()
            .translation
            .y += 10.0;
    }
    app.update();
    assert_eq!(copied(&app), 2, "two agents moved: two instances copied");
    {
        // A cut (a cross-fade's end would log the slot again, frames later).
        let mut a = app.world_mut().get_mut::<ThrongAgent>(agents[7]).unwrap();
        a.clip = Some(2);
        a.fade = 0.0;
    }
    app.update();
    let replayed = copied(&app);
    assert!(
        (1..=2).contains(&replayed),
        "one agent replayed: its slot (the cross-fade and the speed both log it), {replayed} copied"
    );
    app.world_mut().despawn(agents[0]);
    app.update();
    // The last instance fills the despawned one's slot: that slot, and the
    // crowd one shorter.
    assert_eq!(copied(&app), 1, "one agent despawned");
    app.update();
    assert_eq!(copied(&app), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pipelined_app_draws_the_crowd_as_throng_does() {
    let dir = assets("pipelined");
    let mut app = throng_bevy::headless::pipelined_app(&dir).unwrap_or_else(|e| panic!("{e}"));
    app_settings(&mut app);
    assert!(
        app.get_sub_app(bevy::render::RenderApp).is_none(),
        "the render world is on a thread of its own"
    );
    let handle = standing(&mut app);
    settle(&mut app);
    let bevy = capture(&mut app);
    let throng = throng_picture(&mut app, &handle, &foxes(), false);
    assert_crowd_matches(&bevy, &throng, &dir, "pipelined");
    let crowd_len = {
        let world = app.world_mut();
        let mut q = world.query::<&ThrongCrowd>();
        q.single(world).unwrap().crowd.len()
    };
    let stats = app.world().resource::<ThrongStats>().frame();
    let drawn: u32 = stats.cameras.values().map(|s| s.instances).sum();
    assert_eq!(
        drawn as usize, crowd_len,
        "the render thread reports the frame"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
