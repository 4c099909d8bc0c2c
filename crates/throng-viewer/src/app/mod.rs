//! The window application: winit's [`ApplicationHandler`] driving the
//! crowd, the camera, the GPU and the HUD.
//!
//! * [`Scene`] is the CPU side: the crowd, its per-instance speeds, the
//!   camera controller and the viewer's toggles. Key actions apply to it.
//! * `Gfx` is the GPU side: window, surface, device, the crowd
//!   [`Renderer`], the ground and line pipelines, and egui.
//! * A frame: advance the crowd, acquire the surface texture (or, for the
//!   last frame of a `--screenshot` run or after F12, a capture texture),
//!   prepare the crowd's records, run the HUD, record the crowd pass with
//!   the ground, blob shadows and skeleton lines inside it, then the egui
//!   pass, submit and present.
//!
//! Robustness: a zero-size (minimised) window is not rendered and its
//! surface never configured at 0×0; `Outdated`/`Suboptimal` reconfigure,
//! `Lost` recreates the surface, `Timeout`/`Occluded`/`Validation` skip the
//! frame; wgpu errors are logged by an uncaptured-error handler instead of
//! panicking.
//!
//! # Files
//! One job per file:
//! * `mod.rs`: the [`Options`], the [`App`] and its winit event loop.
//! * `scene.rs`: the CPU side ([`Scene`]) and the key actions on it.
//! * `gfx.rs`: the GPU side (`Gfx`): window, surface, device, pipelines.
//! * `input.rs`: held keys, mouse drags and key presses.
//! * `timing.rs`: frame time steps and the frame-rate and CPU-time averages.
//! * `frame.rs`: one frame, from advancing the crowd to presenting.
//! * `hud_pass.rs`: egui's share of a frame.
//! * `shots.rs`: saving captured frames (`--screenshot`, F12).
//! * `walk.rs`: the walking crowd (`M`, on by default).
//! * `steer.rs`: the walking crowd steered on the GPU (GPU-driven renderers);
//!   `steering.rs`: its plaza, field and settings.
//! * `faults.rs`: injected window and surface faults (`--faults`, tests).
//!
//! [`Renderer`]: throng_render::Renderer

pub mod faults;
mod frame;
mod gfx;
mod ground_scene;
mod hud_pass;
mod input;
mod scene;
mod shots;
mod steer;
mod steering;
mod terrain;
mod timing;
mod walk;

use std::path::PathBuf;

use anyhow::Result;
use throng_crowd::crowd::ModelHandle;
use throng_render::PathChoice;
use winit::application::ApplicationHandler;
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::window::WindowId;

use crate::keys::Mods;
use gfx::Gfx;
use input::{Drag, Held};
use scene::Scene;
use timing::Timing;

/// Vertical field of view of the camera.
pub const FOV_Y_DEGREES: f32 = 45.0;

/// Time step of `--screenshot` runs, so that images are reproducible.
pub const SCREENSHOT_DT: f32 = 1.0 / 30.0;

/// Longest time step of an interactive frame (after a stall, the crowd
/// jumps at most this far).
pub const MAX_DT: f32 = 0.1;

/// Most instances `+` will make.
pub const MAX_INSTANCES: u32 = 1 << 20;

/// Global speed limits of `[` and `]`.
pub const SPEED_LIMITS: (f32, f32) = (1.0 / 64.0, 64.0);

/// What the viewer was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// Model file shown (for the title).
    pub model_path: PathBuf,
    /// Where the model came from (for the HUD).
    pub origin: String,
    /// Instances at start.
    pub instances: u32,
    /// Seed of the crowd layout.
    pub seed: u64,
    /// Window size at start.
    pub size: (u32, u32),
    /// MSAA samples (1 or 4).
    pub msaa: u32,
    /// Record path.
    pub path: PathChoice,
    /// Show the HUD at start.
    pub hud: bool,
    /// The crowd walks (steered on the GPU on a GPU-driven renderer,
    /// wandering loops otherwise; speed-matched playback) rather
    /// than stands.
    pub walking: bool,
    /// Walking is steering on the GPU where the renderer's path allows
    /// (`false`: analytic loops always, `--loops`).
    pub steer: bool,
    /// Start on the terrain (`false`: the flat plaza, `--flat`).
    pub terrain: bool,
    /// The terrain's heights from this image (`--heightmap`).
    pub heightmap: Option<PathBuf>,
    /// `--screenshot`: save the last of `frames` frames here and exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot.
    pub frames: u32,
    /// Start with instances coloured by LOD.
    pub lod_tints: bool,
    /// Start with a prop on every head.
    pub props: bool,
    /// Each model is worn as outfits, every instance wearing one
    /// (`throng_bench::demo::outfitted`).
    pub outfits: bool,
    /// Destroy the device after this frame (tests of the recovery).
    pub lose_device_after: Option<u32>,
    /// Window and surface faults to inject (tests of the recovery).
    pub faults: faults::Schedule,
}

/// The viewer application.
pub struct App {
    opts: Options,
    scene: Scene,
    gfx: Option<Gfx>,
    held: Held,
    mods: Mods,
    drag: Option<Drag>,
    cursor: Option<PhysicalPosition<f64>>,
    timing: Timing,
    frames: u32,
    minimized: bool,
    occluded: bool,
    framed_for_window: bool,
    error: Option<anyhow::Error>,
    /// The device was lost this frame (why): build the GPU side again.
    lost: Option<String>,
}

impl App {
    /// An application showing a crowd of `handles` (mixed: they share the
    /// first one's clips) as `opts` says.
    pub fn new(opts: Options, handles: Vec<ModelHandle>) -> Result<Self> {
        let aspect = opts.size.0 as f32 / opts.size.1.max(1) as f32;
        let mut scene = Scene::new(handles, opts.instances, opts.seed, aspect, opts.hud)?;
        scene.set_outfits(opts.outfits)?;
        let heightmap = opts
            .heightmap
            .as_deref()
            .map(ground_scene::HeightImage::read)
            .transpose()?;
        scene.set_terrain_source(opts.terrain, heightmap)?;
        scene.set_walking(opts.walking);
        scene.set_props(opts.props);
        scene.set_lod_tints(opts.lod_tints);
        Ok(Self {
            opts,
            scene,
            gfx: None,
            held: Held::default(),
            mods: Mods::default(),
            drag: None,
            cursor: None,
            timing: Timing::new(),
            frames: 0,
            minimized: false,
            occluded: false,
            framed_for_window: false,
            error: None,
            lost: None,
        })
    }

    /// The error that ended the event loop, if any.
    pub fn take_error(&mut self) -> Option<anyhow::Error> {
        self.error.take()
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.error = Some(e);
        event_loop.exit();
    }

    fn screenshot_mode(&self) -> bool {
        self.opts.screenshot.is_some()
    }
}

impl App {
    /// The window's new size (0 × 0 when minimised on some systems).
    fn on_resized(&mut self, size: PhysicalSize<u32>) {
        let Some(gfx) = self.gfx.as_mut() else {
            return;
        };
        gfx.resize(size);
        self.minimized = !gfx.configured;
        gfx.say(&if gfx.configured {
            format!("surface configured at {}x{}", size.width, size.height)
        } else {
            format!(
                "a {}x{} window: surface left unconfigured",
                size.width, size.height
            )
        });
        if gfx.configured && !self.framed_for_window {
            self.scene.frame_crowd(gfx.aspect());
            self.framed_for_window = true;
        }
        gfx.window.request_redraw();
    }

    /// The window was hidden or shown.
    fn on_occluded(&mut self, occluded: bool) {
        self.occluded = occluded;
        if let Some(gfx) = &self.gfx
            && !occluded
        {
            gfx.window.request_redraw();
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        match Gfx::new(
            event_loop,
            &self.opts,
            &self.scene.handles,
            &self.scene.prop,
        ) {
            Ok(gfx) => {
                if gfx.configured {
                    self.scene.frame_crowd(gfx.aspect());
                    self.framed_for_window = true;
                }
                gfx.window.request_redraw();
                let steer =
                    self.opts.steer && gfx.renderer.path() == throng_render::RecordPath::GpuDriven;
                if steer != self.scene.gpu_steering && self.scene.walking() {
                    // Walk the way this renderer can.
                    self.scene.set_walking(false);
                    self.scene.gpu_steering = steer;
                    self.scene.set_walking(true);
                }
                self.scene.gpu_steering = steer;
                self.gfx = Some(gfx);
                if self.screenshot_mode() {
                    event_loop.set_control_flow(ControlFlow::Poll);
                }
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(gfx) = self.gfx.as_mut() else {
            return;
        };
        let consumed = gfx.egui_state.on_window_event(&gfx.window, &event).consumed;
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.on_resized(size),
            WindowEvent::Occluded(occluded) => self.on_occluded(occluded),
            WindowEvent::Focused(false) => {
                self.held.keys.clear();
                self.drag = None;
            }
            WindowEvent::ModifiersChanged(m) => {
                let s = m.state();
                self.mods = Mods {
                    shift: s.shift_key(),
                    ctrl: s.control_key() || s.super_key(),
                    alt: s.alt_key(),
                };
            }
            WindowEvent::KeyboardInput { event, .. }
                if !consumed || event.state == ElementState::Released =>
            {
                self.on_key(event_loop, &event);
            }
            WindowEvent::MouseInput { state, button, .. } => self.on_mouse(state, button),
            WindowEvent::CursorMoved { position, .. } => self.on_cursor(position),
            WindowEvent::CursorLeft { .. } => self.cursor = None,
            WindowEvent::MouseWheel { delta, .. } if !gfx.egui_ctx.is_pointer_over_egui() => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.scene.camera.zoom(steps);
            }
            // Screenshot runs draw from `about_to_wait` instead.
            WindowEvent::RedrawRequested if !self.screenshot_mode() => {
                self.frame(event_loop);
                if let Some(gfx) = &self.gfx
                    && !self.minimized
                    && !self.occluded
                {
                    gfx.window.request_redraw();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        // Screenshot runs draw as fast as they can, whatever the window
        // system says about redraws.
        if self.screenshot_mode() && self.gfx.is_some() && !event_loop.exiting() {
            self.frame(event_loop);
        }
    }
}
