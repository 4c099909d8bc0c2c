//! The crowd as a Bevy component: [`ThrongCrowd`] holds a Throng
//! [`Crowd`], which game code drives with Throng's own API (spawn, play,
//! cross-fade, layers, transforms, motions). The plugin advances it by
//! Bevy's frame time in `PostUpdate` (unless told not to) and draws it from
//! every 3D camera ([`ThrongCameras`]), with the shadows
//! [`ThrongShadows`] chooses; its change log keeps what the renderer
//! uploads each frame proportional to what changed.

use bevy::prelude::*;
use throng_crowd::crowd::{Crowd, ModelId};

use crate::asset::ThrongModel;

/// A crowd of Throng instances (one entity; any number of them).
#[derive(Component, Default)]
pub struct ThrongCrowd {
    /// The crowd: CPU authority over every instance.
    pub crowd: Crowd,
    /// Don't advance the crowd by Bevy's frame time: the game calls
    /// `crowd.update(dt)` itself.
    pub manual_time: bool,
}

impl ThrongCrowd {
    /// Adds a loaded model to the crowd (`None` while the asset is not
    /// loaded). Adding a model twice gives the same id.
    pub fn add_model(
        &mut self,
        model: &Handle<ThrongModel>,
        assets: &Assets<ThrongModel>,
    ) -> Option<ModelId> {
        assets.get(model).map(|m| self.crowd.add_model(&m.0))
    }
}

/// Marks the cameras that draw crowds when [`ThrongCameras::Marked`] is
/// set (by default every active 3D camera does).
#[derive(Component, Clone, Copy, Default)]
pub struct ThrongCamera;

/// Which 3D cameras draw the crowds.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThrongCameras {
    /// Every active 3D camera.
    #[default]
    All,
    /// Only cameras with a [`ThrongCamera`] component (a minimap or a
    /// reflection camera then costs nothing).
    Marked,
}

/// Which shadows the crowd has, where Bevy's directional light casts
/// them (`shadow_maps_enabled`). Both by default: the crowd casts into
/// Bevy's cascades (a Bevy ground shows its shadow) and is shadowed by
/// Throng's own map (the crowd's own shadows on itself), the one map the
/// crowd's shading samples. Read each frame; a change of `own_map` makes
/// each camera's renderer anew.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrongShadows {
    /// The crowd casts into the cascades of every shadow-casting
    /// directional light (GPU-driven path only).
    pub bevy_cascades: bool,
    /// The crowd is shadowed by Throng's own map, fitted to the crowd in
    /// view along the brightest directional light.
    pub own_map: bool,
}

impl Default for ThrongShadows {
    fn default() -> Self {
        Self {
            bevy_cascades: true,
            own_map: true,
        }
    }
}

/// Advances every crowd not on manual time by the frame's time.
pub fn advance_crowds(time: Res<Time>, mut crowds: Query<&mut ThrongCrowd>) {
    let dt = time.delta_secs();
    for mut c in &mut crowds {
        if !c.manual_time {
            c.crowd.update(dt);
        }
    }
}
