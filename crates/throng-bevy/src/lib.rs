//! Throng crowds inside a Bevy 0.20 app, in Bevy's own cameras, depth,
//! lights and frame. This is the README's example (kept equal to it):
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
//! - [`crowd`]: the crowd component ([`ThrongCrowd`]), advanced by Bevy's
//!   time, and which cameras draw it ([`ThrongCameras`]: all 3D cameras,
//!   or those marked [`ThrongCamera`]).
//! - [`prepare`]: Throng's renderer per camera, prepared in the extract
//!   schedule against the main world's crowds.
//! - [`shadow`]: the crowd's shadow map, drawn before Bevy's passes.
//! - [`draw`]: the crowd drawn in the `Opaque3d` phase (and its blended
//!   materials in `Transparent3d`).
//! - [`convert`]: Bevy's cameras, lights and shadow settings as Throng's.
//! - [`stats`]: what each camera drew ([`ThrongStats`], a main-world
//!   resource).
//! - [`headless`]: a windowless app rendering into image targets.
//!
//! Transforms and positions in the [`throng_crowd::crowd::Crowd`] API are
//! Throng's glam (0.34); Bevy's is 0.33: convert by value
//! ([`convert::mat4`]).

pub mod asset;
pub mod convert;
pub mod crowd;
pub mod draw;
pub mod headless;
pub mod prepare;
pub mod shadow;
pub mod stats;

use bevy::core_pipeline::core_3d::{Opaque3d, Transparent3d};
use bevy::prelude::*;
use bevy::render::render_phase::AddRenderCommand;
use bevy::render::{ExtractSchedule, Render, RenderApp, RenderSystems};

pub use asset::{ThrongAssetError, ThrongModel, ThrongModelLoader};
pub use crowd::{ThrongCamera, ThrongCameras, ThrongCrowd};
pub use stats::ThrongStats;
pub use throng_crowd;

/// Loads `.throng` assets, advances [`ThrongCrowd`]s, draws them from
/// every 3D camera and reports what each drew in [`ThrongStats`].
pub struct ThrongPlugin;

impl Plugin for ThrongPlugin {
    fn build(&self, app: &mut App) {
        let stats = ThrongStats::default();
        app.init_asset::<ThrongModel>()
            .init_asset_loader::<ThrongModelLoader>()
            .insert_resource(stats)
            .add_systems(PostUpdate, crowd::advance_crowds);
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else {
            return;
        };
        render_app
            .init_resource::<prepare::ThrongRenderState>()
            .add_render_command::<Opaque3d, draw::DrawThrongCrowd>()
            .add_render_command::<Transparent3d, draw::DrawThrongBlended>()
            .add_systems(ExtractSchedule, prepare::prepare_crowds)
            .add_systems(
                Render,
                (draw::queue_crowds, shadow::encode_shadows).in_set(RenderSystems::Queue),
            );
    }
}
