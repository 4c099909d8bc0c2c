//! Input handling: keys held for the fly camera, mouse drags (orbit, pan,
//! look), and key presses turned into [`crate::keys::Action`]s for the
//! scene.

use std::collections::HashSet;

use glam::Vec3;
use winit::dpi::PhysicalPosition;
use winit::event::{ElementState, KeyEvent, MouseButton};
use winit::event_loop::ActiveEventLoop;
use winit::keyboard::{KeyCode, NamedKey, PhysicalKey};

use super::App;
use super::gfx::Gfx;
use crate::camera::Mode;
use crate::keys::{self, Key};

/// Fly-camera keys held down.
#[derive(Default)]
pub(super) struct Held {
    pub(super) keys: HashSet<KeyCode>,
}

impl Held {
    fn axis(&self, minus: KeyCode, plus: KeyCode) -> f32 {
        self.keys.contains(&plus) as i32 as f32 - self.keys.contains(&minus) as i32 as f32
    }

    /// (right, up, forward) in −1..1.
    pub(super) fn fly_input(&self) -> Vec3 {
        Vec3::new(
            self.axis(KeyCode::KeyA, KeyCode::KeyD),
            self.axis(KeyCode::KeyQ, KeyCode::KeyE),
            self.axis(KeyCode::KeyS, KeyCode::KeyW),
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Drag {
    Orbit,
    Pan,
}

impl App {
    pub(super) fn on_key(&mut self, event_loop: &ActiveEventLoop, event: &KeyEvent) {
        if let PhysicalKey::Code(code) = event.physical_key {
            match event.state {
                ElementState::Pressed => self.held.keys.insert(code),
                ElementState::Released => self.held.keys.remove(&code),
            };
        }
        if event.state != ElementState::Pressed || event.repeat {
            return;
        }
        let Some(action) = keys::action_for(key_of(event), self.mods) else {
            return;
        };
        let aspect = self.gfx.as_ref().map_or(1.0, Gfx::aspect);
        if !self.scene.apply(action, aspect) {
            event_loop.exit();
        }
    }

    pub(super) fn on_mouse(&mut self, state: ElementState, button: MouseButton) {
        let over_hud = self.gfx.as_ref().is_some_and(|g| {
            g.egui_ctx.egui_wants_pointer_input() || g.egui_ctx.is_pointer_over_egui()
        });
        let kind = match (button, self.scene.camera.mode) {
            (MouseButton::Left, _) => Drag::Orbit,
            (MouseButton::Right, Mode::Fly) => Drag::Orbit,
            (MouseButton::Right | MouseButton::Middle, _) => Drag::Pan,
            _ => return,
        };
        match state {
            ElementState::Pressed if !over_hud => self.drag = Some(kind),
            ElementState::Released if self.drag == Some(kind) => self.drag = None,
            _ => {}
        }
    }

    pub(super) fn on_cursor(&mut self, position: PhysicalPosition<f64>) {
        let previous = self.cursor.replace(position);
        let (Some(drag), Some(prev)) = (self.drag, previous) else {
            return;
        };
        let (dx, dy) = ((position.x - prev.x) as f32, (position.y - prev.y) as f32);
        let height = self.gfx.as_ref().map_or(1.0, |g| g.config.height as f32);
        let camera = &mut self.scene.camera;
        match (drag, camera.mode) {
            (Drag::Orbit, Mode::Orbit) => camera.orbit(dx, dy),
            (Drag::Orbit, Mode::Fly) => camera.look(dx, dy),
            (Drag::Pan, _) => camera.pan(dx, dy, height),
        }
    }
}

/// The binding-relevant part of a winit key event.
fn key_of(event: &KeyEvent) -> Key {
    use winit::keyboard::Key as Logical;
    if let PhysicalKey::Code(code) = event.physical_key {
        let digit = match code {
            KeyCode::Digit0 | KeyCode::Numpad0 => Some(0),
            KeyCode::Digit1 | KeyCode::Numpad1 => Some(1),
            KeyCode::Digit2 | KeyCode::Numpad2 => Some(2),
            KeyCode::Digit3 | KeyCode::Numpad3 => Some(3),
            KeyCode::Digit4 | KeyCode::Numpad4 => Some(4),
            KeyCode::Digit5 | KeyCode::Numpad5 => Some(5),
            KeyCode::Digit6 | KeyCode::Numpad6 => Some(6),
            KeyCode::Digit7 | KeyCode::Numpad7 => Some(7),
            KeyCode::Digit8 | KeyCode::Numpad8 => Some(8),
            KeyCode::Digit9 | KeyCode::Numpad9 => Some(9),
            _ => None,
        };
        if let Some(d) = digit {
            return Key::Digit(d);
        }
        match code {
            KeyCode::NumpadAdd => return Key::Char('+'),
            KeyCode::NumpadSubtract => return Key::Char('-'),
            _ => {}
        }
    }
    match &event.logical_key {
        Logical::Named(NamedKey::Space) => Key::Space,
        Logical::Named(NamedKey::Escape) => Key::Escape,
        Logical::Named(NamedKey::F1) => Key::F1,
        Logical::Named(NamedKey::F12) => Key::F12,
        Logical::Character(s) => s
            .chars()
            .next()
            .map_or(Key::Other, |c| Key::Char(c.to_ascii_lowercase())),
        _ => Key::Other,
    }
}
