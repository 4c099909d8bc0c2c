//! Throng crowds inside a Bevy 0.20 app, in Bevy's own cameras, depth,
//! lights and frame. Characters are entities (this is the README's example,
//! kept equal to it):
//!
//! ```no_run
//! use bevy::prelude::*;
//! use throng_bevy::{ThrongAgent, ThrongPlugin};
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     let fox = assets.load("fox.throng"); // `throng bake fox.glb`
//!     for i in 0..10_000 {
//!         let at = Vec3::new((i % 100) as f32 * 60.0, 0.0, (i / 100) as f32 * -60.0);
//!         commands.spawn((ThrongAgent::new(fox.clone()).playing(i % 3), Transform::from_translation(at)));
//!     }
//!     commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 200.0, 600.0).looking_at(Vec3::ZERO, Vec3::Y)));
//!     commands.spawn((DirectionalLight::default(), Transform::default().looking_to(Vec3::new(1.0, -2.0, -1.0), Vec3::Y)));
//! }
//!
//! fn main() {
//!     App::new().add_plugins((DefaultPlugins, ThrongPlugin)).add_systems(Startup, setup).run();
//! }
//! ```
//!
//! The hundred thousand extras no system touches are cheaper without an
//! entity each: a [`ThrongCrowd`] holds a Throng `Crowd` driven in bulk:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use throng_bevy::{ThrongCrowd, ThrongModel, ThrongPlugin};
//! use throng_bevy::throng_crowd::crowd::Spawn;
//!
//! #[derive(Resource)]
//! struct Fox(Handle<ThrongModel>);
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     commands.insert_resource(Fox(assets.load("fox.throng"))); // `throng bake fox.glb`
//!     commands.spawn(ThrongCrowd::default());
//!     commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 200.0, 600.0).looking_at(Vec3::ZERO, Vec3::Y)));
//!     commands.spawn((DirectionalLight::default(), Transform::default().looking_to(Vec3::new(1.0, -2.0, -1.0), Vec3::Y)));
//! }
//!
//! fn populate(fox: Res<Fox>, models: Res<Assets<ThrongModel>>, mut crowd: Single<&mut ThrongCrowd>, mut done: Local<bool>) {
//!     let Some(model) = (!*done).then(|| crowd.add_model(&fox.0, &models)).flatten() else { return };
//!     for i in 0..10_000 {
//!         let at = glam::Vec3::new((i % 100) as f32 * 60.0, 0.0, (i / 100) as f32 * -60.0);
//!         let spawn = Spawn { transform: glam::Mat4::from_translation(at), clip: Some(i % 3), ..Spawn::default() };
//!         crowd.crowd.spawn(model, spawn).unwrap();
//!     }
//!     *done = true;
//! }
//!
//! fn main() {
//!     App::new().add_plugins((DefaultPlugins, ThrongPlugin))
//!         .add_systems(Startup, setup).add_systems(Update, populate).run();
//! }
//! ```
//!
//! - [`asset`]: `.throng` files as assets ([`ThrongModel`]).
//! - [`agent`]: characters as entities ([`ThrongAgent`]: spawned, moved,
//!   replayed and despawned with their entity; [`ThrongInstance`],
//!   [`ThrongAgents`]).
//! - [`bone`]: [`ThrongBone`] children following a named bone.
//! - [`event`]: animation events as [`ThrongEvent`] messages.
//! - [`pick`]: rays against the crowds ([`ThrongPicker`], [`ThrongHit`]).
//! - `picking` (feature `picking`, default): the `bevy_picking` backend,
//!   so `PointerClick` and the rest reach agents.
//! - [`crowd`]: the crowd component ([`ThrongCrowd`]), advanced by Bevy's
//!   time, which cameras draw it ([`ThrongCameras`]: all 3D cameras,
//!   or those marked [`ThrongCamera`]) and which shadows it has
//!   ([`ThrongShadows`]).
//! - [`extract`]: what Bevy's extract copies: the crowds' render-world
//!   replicas, synced by their change logs, and the frame's cameras,
//!   lights and settings.
//! - [`prepare`]: Throng's renderer per camera, prepared in the render
//!   world's `Render` schedule (on the render thread when pipelined).
//! - [`shadow`]: Throng's own shadow map, drawn before Bevy's passes.
//! - [`cascades`]: the crowd in Bevy's directional-light cascades, both
//!   ways: cast into them (Bevy's `Shadow` phase), so Bevy's meshes show
//!   its shadow, and received from them, so their shadows fall on it.
//! - [`draw`]: the crowd drawn in the `Opaque3d` phase (and its blended
//!   materials in `Transparent3d`).
//! - [`prepass`]: the crowd in Bevy's depth, normal and motion-vector
//!   prepasses (`Opaque3dPrepass`), so SSAO, TAA and motion blur see it.
//! - [`convert`]: Bevy's cameras, lights and shadow settings as Throng's.
//! - [`steer`]: crowds steered on the GPU ([`ThrongSteering`]) around
//!   [`ThrongObstacle`]s to [`ThrongGoal`]s, agents walking there
//!   ([`ThrongSteered`]), their poses read back ([`ThrongSteeredPoses`]).
//! - `promote` (feature `promote`, default): agents promoted to Bevy's
//!   own glTF characters and back without a pop (`ThrongPromote`).
//! - [`stats`]: what each camera drew ([`ThrongStats`], a main-world
//!   resource).
//! - [`headless`]: a windowless app rendering into image targets.
//!
//! Transforms and positions in the [`throng_crowd::crowd::Crowd`] API are
//! Throng's glam (0.34); Bevy's is 0.33: convert by value
//! ([`convert::mat4`]).

pub mod agent;
pub mod asset;
pub mod bone;
pub mod cascades;
pub mod convert;
pub mod crowd;
pub mod draw;
pub mod event;
pub mod extract;
pub mod headless;
pub mod pick;
#[cfg(feature = "picking")]
pub mod picking;
pub mod prepare;
pub mod prepass;
#[cfg(feature = "promote")]
pub mod promote;
pub mod shadow;
pub mod stats;
pub mod steer;

use bevy::core_pipeline::core_3d::{Opaque3d, Transparent3d};
use bevy::prelude::*;
use bevy::render::render_phase::AddRenderCommand;
use bevy::render::{ExtractSchedule, Render, RenderApp, RenderSystems};

pub use agent::{
    ThrongAgent, ThrongAgentCrowd, ThrongAgents, ThrongInstance, ThrongMovedByGpu, ThrongOutOfCrowd,
};
pub use asset::{ThrongAssetError, ThrongModel, ThrongModelLoader};
pub use bone::ThrongBone;
pub use crowd::{ThrongCamera, ThrongCameras, ThrongCrowd, ThrongReceive, ThrongShadows};
pub use event::ThrongEvent;
pub use pick::{ThrongHit, ThrongPicker};
#[cfg(feature = "promote")]
pub use promote::{ThrongCharacter, ThrongPromote, ThrongPromoted};
pub use stats::ThrongStats;
pub use steer::{
    ThrongGoal, ThrongNavigation, ThrongObstacle, ThrongSteered, ThrongSteeredPoses, ThrongSteering,
};
pub use throng_crowd;

/// The plugin's `PostUpdate` work, in this order, before Bevy propagates
/// transforms: game code that moves agents or drives crowds in `Update`
/// is drawn the same frame.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThrongSystems {
    /// Agents spawned, moved, replayed and despawned ([`agent`]).
    Agents,
    /// Crowds advanced by the frame's time, their events sent
    /// ([`ThrongEvent`]).
    Advance,
    /// [`ThrongBone`]s set to their bones.
    Follow,
}

/// Loads `.throng` assets, advances [`ThrongCrowd`]s, draws them from
/// every 3D camera and reports what each drew in [`ThrongStats`].
pub struct ThrongPlugin;

impl Plugin for ThrongPlugin {
    fn build(&self, app: &mut App) {
        main_world(app);
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_world(render_app);
        }
    }
}

/// The main world's assets, resources and systems.
fn main_world(app: &mut App) {
    let stats = ThrongStats::default();
    app.init_asset::<ThrongModel>()
        .init_asset_loader::<ThrongModelLoader>()
        .insert_resource(stats)
        .insert_resource(agent::ThrongAgents::default())
        .init_resource::<steer::ThrongSteeredPoses>()
        .add_message::<ThrongEvent>()
        .configure_sets(
            PostUpdate,
            (
                ThrongSystems::Agents,
                ThrongSystems::Advance,
                ThrongSystems::Follow,
            )
                .chain()
                .before(bevy::transform::TransformSystems::Propagate),
        )
        .add_systems(
            PostUpdate,
            (
                (
                    steer::agents::follow_poses,
                    agent::despawn_agents,
                    agent::spawn_agents,
                    steer::agents::hand_over_agents,
                    agent::move_agents,
                    agent::play_agents,
                )
                    .chain()
                    .in_set(ThrongSystems::Agents),
                (crowd::advance_crowds, event::send_events)
                    .chain()
                    .in_set(ThrongSystems::Advance),
                bone::follow_bones.in_set(ThrongSystems::Follow),
                // Obstacles and goals where Bevy has just placed them.
                steer::field::build_fields.after(bevy::transform::TransformSystems::Propagate),
            ),
        );
    // Pointer events for agents, when the app picks (its RayMap is
    // Bevy's picking plugin's).
    #[cfg(feature = "promote")]
    promotions(app);
    #[cfg(feature = "picking")]
    app.add_systems(
        PreUpdate,
        picking::crowd_hits
            .in_set(bevy::picking::PickingSystems::Backend)
            .run_if(resource_exists::<bevy::picking::backend::ray::RayMap>),
    );
}

/// Promotions and demotions: started and loaded with the agents, switched
/// after the crowds advanced and Bevy's animations did, before Bevy
/// samples them.
#[cfg(feature = "promote")]
fn promotions(app: &mut App) {
    use bevy::animation::{advance_animations, animate_targets};
    app.add_observer(promote::character_ready).add_systems(
        PostUpdate,
        (
            (promote::begin_promotions, promote::spawn_characters)
                .chain()
                .after(agent::spawn_agents)
                .in_set(ThrongSystems::Agents),
            promote::switch_characters
                .after(ThrongSystems::Advance)
                .before(ThrongSystems::Follow)
                .after(advance_animations)
                .before(animate_targets),
        ),
    );
}

/// The render world's resources, draw commands and systems: the extract,
/// the preparation, the queues.
fn render_world(render_app: &mut SubApp) {
    render_app
            .init_resource::<prepare::ThrongRenderState>()
            .init_resource::<prepare::PreparedFrame>()
            .init_resource::<extract::ThrongReplicas>()
            .init_resource::<extract::ThrongFrame>()
            .init_resource::<steer::gpu::SteeringFrame>()
            .init_resource::<steer::gpu::SteeringState>()
            .add_render_command::<Opaque3d, draw::DrawThrongCrowd>()
            .add_render_command::<Transparent3d, draw::DrawThrongBlended>()
            .add_render_command::<bevy::pbr::Shadow, cascades::DrawThrongCaster>()
            .add_render_command::<bevy::core_pipeline::prepass::Opaque3dPrepass, prepass::DrawThrongPrepass>()
            .add_systems(
                ExtractSchedule,
                (
                    extract::extract_crowds,
                    extract::extract_frame,
                    steer::gpu::extract_steering,
                ),
            )
            .add_systems(
                Render,
                (
                    prepare::upload_models.in_set(RenderSystems::PrepareAssets),
                    (
                        prepare::fit_views,
                        steer::gpu::install_simulations,
                        prepare::prepare_draws,
                        prepare::cast_cascades,
                        steer::gpu::read_back,
                    )
                        .chain()
                        .after(prepare::upload_models)
                        .in_set(RenderSystems::PrepareViews),
                    prepare::report_frame
                        .after(steer::gpu::read_back)
                        .in_set(RenderSystems::Prepare),
                ),
            )
            .add_systems(
                Render,
                (
                    draw::queue_crowds,
                    cascades::queue_casters,
                    prepass::queue_prepass,
                    cascades::receive_cascades,
                    shadow::encode_shadows,
                )
                    .in_set(RenderSystems::Queue),
            );
}
