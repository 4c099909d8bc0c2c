//! A Bevy app without a window, rendering into image targets: what the
//! plugin's tests and the side-by-side bench run, and what an offline
//! render or a CI check of a game's crowd would use.

use std::path::Path;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::window::{ExitCondition, WindowPlugin};

use throng_crowd::crowd::ModelHandle;

use crate::{ThrongModel, ThrongPlugin};

/// Bevy's default plugins with no window, assets read from `assets`,
/// pipelines compiled as they are asked for (the first frame draws), the
/// render world kept in the app (no pipelined rendering, which a build
/// with Bevy's `multi_threaded` feature would add: it moves the render
/// world to a thread of its own) and [`ThrongPlugin`]; its plugins
/// finished, as `App::run` would before its first update. Drive it with
/// `App::update`. In a build with Bevy's `bevy_winit`, enable this
/// crate's `winit` feature too: winit's plugin is then left out (it opens
/// an event loop, which needs a display and, in a process, one thread:
/// tests run several apps on threads of their own).
///
/// # Errors
/// Bevy found no graphics adapter (its error names the backend asked
/// for with `WGPU_BACKEND`).
pub fn app(assets: &Path) -> Result<App, String> {
    build(assets, false)
}

/// [`app`] with Bevy's pipelined rendering kept: the render world runs on
/// a thread of its own, drawing frame N while `App::update` simulates
/// frame N+1 (what a game built with Bevy's `multi_threaded` feature
/// does). The render world is then out of the app's reach
/// (`App::sub_app(RenderApp)` panics); read what it reports through
/// [`crate::ThrongStats`].
///
/// # Errors
/// As [`app`], and Bevy was built without `multi_threaded` (no
/// pipelined rendering to keep).
pub fn pipelined_app(assets: &Path) -> Result<App, String> {
    build(assets, true)
}

fn build(assets: &Path, pipelined: bool) -> Result<App, String> {
    let mut plugins = DefaultPlugins.build();
    let has_pipelining = plugins.contains::<PipelinedRenderingPlugin>();
    if pipelined && !has_pipelining {
        return Err("pipelined rendering needs Bevy's `multi_threaded` feature".into());
    }
    if has_pipelining && !pipelined {
        plugins = plugins.disable::<PipelinedRenderingPlugin>();
    }
    #[cfg(feature = "winit")]
    if plugins.contains::<bevy::winit::WinitPlugin>() {
        plugins = plugins.disable::<bevy::winit::WinitPlugin>();
    }
    let mut app = App::new();
    app.add_plugins(
        plugins
            .set(AssetPlugin {
                file_path: assets.to_string_lossy().into_owned(),
                ..default()
            })
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                close_when_requested: false,
                ..default()
            })
            .set(bevy::render::RenderPlugin {
                synchronous_pipeline_compilation: true,
                ..default()
            }),
    )
    .add_plugins(ThrongPlugin);
    // The renderer's device is made asynchronously: wait for the plugins,
    // then finish them.
    while app.plugins_state() == bevy::app::PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();
    // Bevy hands its device to the main world too (the render world may
    // be on its thread by now).
    let found = app
        .world()
        .contains_resource::<bevy::render::renderer::RenderDevice>();
    if !found {
        return Err(format!(
            "Bevy found no graphics adapter (WGPU_BACKEND={:?})",
            std::env::var("WGPU_BACKEND").ok()
        ));
    }
    Ok(app)
}

/// The Throng model of the `.throng` asset `model`, once Bevy has loaded
/// it (`None` before): what a headless run waits for, updating the app,
/// before it adds the model to a crowd.
pub fn loaded_model(app: &App, model: &Handle<ThrongModel>) -> Option<ModelHandle> {
    let models = app.world().resource::<Assets<ThrongModel>>();
    models.get(model).map(|m| m.0.clone())
}
