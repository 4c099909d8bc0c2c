//! Alpha-blended Foxes sort among Bevy's transparent meshes (the crowd's
//! `Transparent3d` item between a far and a near pane) and show the ground
//! through.

use std::sync::{Arc, Mutex};

use bevy::core_pipeline::core_3d::Transparent3d;
use bevy::prelude::*;
use throng_bevy::ThrongCrowd;
use throng_crowd::crowd::Crowd;
use throng_render::image_diff::diff;

use super::{app, assets, capture, foxes, settle, spawn, standing};

/// The order of each frame's `Transparent3d` items, sorted, as the
/// render world's `Cleanup` finds them: `true` for Throng's crowd item.
#[derive(Resource, Clone, Default)]
struct TransparentOrder(Arc<Mutex<Vec<bool>>>);

fn record_transparent_order(
    order: Res<TransparentOrder>,
    phases: Res<bevy::render::render_phase::ViewSortedRenderPhases<Transparent3d>>,
    functions: Res<bevy::render::render_phase::DrawFunctions<Transparent3d>>,
) {
    let ours = functions
        .read()
        .id::<throng_bevy::draw::DrawThrongBlended>();
    let mut seen = order.0.lock().unwrap();
    seen.clear();
    for phase in phases.values() {
        seen.extend(phase.items.values().map(|item| item.draw_function == ours));
    }
}

#[test]
fn alpha_blended_foxes_sort_among_bevys_transparent_meshes_and_show_the_ground_through() {
    let dir = assets("blend");
    let mut app = app(&dir);
    let order = TransparentOrder::default();
    app.sub_app_mut(bevy::render::RenderApp)
        .insert_resource(order.clone())
        .add_systems(
            bevy::render::Render,
            record_transparent_order.in_set(bevy::render::RenderSystems::Cleanup),
        );
    let handle = standing(&mut app);
    settle(&mut app);
    let opaque = capture(&mut app);
    let mut glassy = handle.model().clone();
    for m in &mut glassy.materials {
        m.alpha_mode = throng_core::material::AlphaMode::Blend;
        m.base_color_factor.w = 0.5;
    }
    let glassy = throng_crowd::crowd::ModelHandle::new(glassy).unwrap();
    let set = |app: &mut App, model: Option<&throng_crowd::crowd::ModelHandle>| {
        let world = app.world_mut();
        let mut q = world.query::<&mut ThrongCrowd>();
        let mut c = q.single_mut(world).unwrap();
        c.crowd = Crowd::new();
        if let Some(model) = model {
            let m = c.crowd.add_model(model);
            for &(at, clip, time) in &foxes() {
                spawn(&mut c.crowd, m, at, clip, time);
            }
            c.crowd.update(0.0);
        }
    };
    set(&mut app, Some(&glassy));
    settle(&mut app);
    let glass = capture(&mut app);
    set(&mut app, None);
    settle(&mut app);
    let ground = capture(&mut app);
    let drawn = diff(&ground, &glass);
    let blended = diff(&opaque, &glass);
    println!(
        "glassy Foxes: {} pixels differ from the ground alone, {} from the opaque Foxes",
        drawn.differing, blended.differing
    );
    let _ = glass.save(dir.join("bevy-glassy.png"));
    // Drawn before the ground, they would vanish under it (blended
    // materials do not write depth).
    assert!(
        drawn.differing > 1000,
        "the glassy Foxes are drawn over Bevy's ground (see {})",
        dir.display()
    );
    assert!(
        blended.differing > 1000,
        "the glassy Foxes show the ground through (see {})",
        dir.display()
    );
    set(&mut app, Some(&glassy));
    // Bevy's own transparent panes, one behind the Foxes and one between
    // them and the camera: the crowd's blended item sorts between them.
    {
        let world = app.world_mut();
        let pane = world
            .resource_mut::<Assets<Mesh>>()
            .add(Rectangle::new(200.0, 100.0));
        let tint = world
            .resource_mut::<Assets<StandardMaterial>>()
            .add(StandardMaterial {
                base_color: Color::srgba(1.0, 0.2, 0.2, 0.5),
                alpha_mode: AlphaMode::Blend,
                unlit: true,
                ..default()
            });
        for at in [Vec3::new(250.0, 50.0, -400.0), Vec3::new(0.0, 80.0, 200.0)] {
            world.spawn((
                Mesh3d(pane.clone()),
                MeshMaterial3d(tint.clone()),
                Transform::from_translation(at),
            ));
        }
    }
    settle(&mut app);
    let sorted = order.0.lock().unwrap().clone();
    println!("Transparent3d, back to front (true: the crowd): {sorted:?}");
    assert_eq!(
        sorted,
        vec![false, true, false],
        "the crowd's blended item sorts between Bevy's far and near panes"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
