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

/// The crowd's shadows, where Bevy's directional light casts them
/// (`shadow_maps_enabled`). By default the crowd is part of Bevy's
/// shadows both ways: it casts into Bevy's cascades (a Bevy ground shows
/// its shadow) and receives Bevy's cascades (a Bevy cube's shadow falls on
/// it; the crowd's own shadows on itself come back through them too).
/// Throng's own map, fitted to the crowd in view, is the other way to
/// receive: sharper where Bevy's cascades are coarse, but blind to Bevy's
/// meshes. Read each frame; a change of `receive` makes each camera's
/// renderer anew.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrongShadows {
    /// The crowd casts into the cascades of every shadow-casting
    /// directional light (GPU-driven path only).
    pub cast_into_bevy: bool,
    /// Where the crowd's shading takes its shadows from.
    pub receive: ThrongReceive,
}

impl Default for ThrongShadows {
    fn default() -> Self {
        Self {
            cast_into_bevy: true,
            receive: ThrongReceive::BevyCascades,
        }
    }
}

/// Where the crowd's shading takes its shadows from ([`ThrongShadows`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThrongReceive {
    /// The brightest directional light's cascades, as Bevy's meshes
    /// sample them: Bevy's meshes' shadows and (with
    /// [`ThrongShadows::cast_into_bevy`]) the crowd's own.
    #[default]
    BevyCascades,
    /// Throng's own shadow map, fitted to the crowd in view along the
    /// brightest directional light: the crowd's shadows on itself only.
    OwnMap,
    /// None.
    None,
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
