//! The crowd's shadows in Bevy's frame, as [`crate::ThrongShadows`] chooses:
//! cast into Bevy's directional-light cascades ([`crate::cascades`]), so
//! Bevy's meshes show the crowd's shadow, and shadowed by Throng's own map.
//!
//! The own map's pass: for each camera whose renderer has shadows on and
//! prepared this frame, Throng's shadow map is drawn
//! (`Renderer::encode_shadows`) and submitted in Bevy's `Queue` set,
//! before the render graph's command buffers, so the crowd's draw in the
//! main pass samples this frame's map. One submission for every camera.
//! The map is Throng's own, fitted to the crowd in view along Bevy's
//! light (see [`crate::convert::shadows`]): the crowd shadows itself; it
//! does not receive Bevy's meshes' shadows (docs/BEVY.md says what that
//! takes).

use bevy::prelude::*;
use bevy::render::renderer::{RenderDevice, RenderQueue};

use crate::prepare::ThrongRenderState;

/// Records and submits the shadow pass of every prepared camera.
pub fn encode_shadows(
    state: Res<ThrongRenderState>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    let mut views = state
        .views
        .values()
        .filter(|v| v.prepared && v.renderer.options().shadows.is_some())
        .peekable();
    if views.peek().is_none() {
        return;
    }
    let mut encoder = device.wgpu_device().create_command_encoder(
        &throng_render::wgpu::CommandEncoderDescriptor {
            label: Some("throng-bevy shadow passes"),
        },
    );
    for v in views {
        v.renderer.encode_shadows(&mut encoder);
    }
    queue.submit([encoder.finish()]);
}
