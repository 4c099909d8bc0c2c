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

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use glam::Vec3;
use throng_core::limits::REST_FRAME;
use throng_core::math::Aabb;
use throng_crowd::crowd::{Crowd, InstanceId, ModelHandle, ModelId};
use throng_render::{GpuModel, PathChoice, Renderer, RendererOptions};
use winit::application::ApplicationHandler;
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::keyboard::{KeyCode, NamedKey, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::camera::{CROWD_FILL, CameraController, Mode, shrink_xz};
use crate::capture::CaptureTarget;
use crate::ground::{BlobInstance, Ground, GroundPlacement};
use crate::hud::{self, HudInfo};
use crate::keys::{self, Action, FADE_SECONDS, Key, Mods, RANDOM_FRACTION, Target};
use crate::layout::{Rng, spawn_crowd};
use crate::skeleton::{self, LinePass, LineVertex};

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
    /// `--screenshot`: save the last of `frames` frames here and exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot.
    pub frames: u32,
    /// Start with instances coloured by LOD.
    pub lod_tints: bool,
    /// Start with a prop on every head.
    pub props: bool,
}

/// The CPU side of the viewer. See the module docs.
pub struct Scene {
    handle: ModelHandle,
    crowd: Crowd,
    model: ModelId,
    /// Live instances in spawn order with their own playback speeds.
    instances: Vec<(InstanceId, f32)>,
    /// Clip and time of each instance before the rest pose was shown.
    saved: Vec<Option<(usize, f32)>>,
    bounds: Aabb,
    ground: GroundPlacement,
    /// Blob shadows of the instances, and whether the GPU copy is stale.
    blobs: Vec<BlobInstance>,
    blobs_changed: bool,
    camera: CameraController,
    seed: u64,
    rng: Rng,
    paused: bool,
    speed: f32,
    rest: bool,
    skeletons: bool,
    hud: bool,
    status: String,
    clips: Vec<(String, f32)>,
    nearest: Vec<InstanceId>,
    lines: Vec<LineVertex>,
    /// Save the next frame as a PNG (F12).
    shot_requested: bool,
    /// The head prop's model, its id in the crowd, and where it goes.
    prop: ModelHandle,
    prop_model: ModelId,
    prop_bone: usize,
    prop_offset: glam::Mat4,
    /// Props are on (`P`).
    props: bool,
    /// Instances are coloured by LOD (`L`).
    lod_tints: bool,
}

impl Scene {
    /// A crowd of `count` instances of `handle`, framed for `aspect`.
    pub fn new(handle: ModelHandle, count: u32, seed: u64, aspect: f32, hud: bool) -> Result<Self> {
        let mut crowd = Crowd::new();
        let model = crowd.add_model(&handle);
        let prop = crate::props::hat()?;
        let prop_model = crowd.add_model(&prop);
        let prop_bone = crate::props::head_bone(handle.model());
        let prop_offset = crate::props::hat_offset(handle.model(), prop_bone);
        let clips = handle
            .model()
            .clips
            .iter()
            .map(|c| (c.name.clone(), c.duration))
            .collect();
        let mut scene = Self {
            handle,
            crowd,
            model,
            instances: Vec::new(),
            saved: Vec::new(),
            bounds: Aabb::EMPTY,
            ground: GroundPlacement::under(Vec3::ZERO, 0.0, 1.0, 1.0, &Aabb::EMPTY),
            blobs: Vec::new(),
            blobs_changed: true,
            camera: CameraController::new(
                Vec3::ZERO,
                Vec3::Z,
                1.0,
                FOV_Y_DEGREES.to_radians(),
                1.0,
            ),
            seed,
            rng: Rng::new(seed ^ 0x5EED),
            paused: false,
            speed: 1.0,
            rest: false,
            skeletons: false,
            hud,
            status: String::new(),
            clips,
            nearest: Vec::new(),
            lines: Vec::new(),
            shot_requested: false,
            prop,
            prop_model,
            prop_bone,
            prop_offset,
            props: false,
            lod_tints: false,
        };
        scene.respawn(count)?;
        scene.frame_crowd(aspect);
        Ok(scene)
    }

    /// Replaces the crowd by `count` new instances (keeping the rest-pose
    /// toggle; the camera stays where it is).
    fn respawn(&mut self, count: u32) -> Result<()> {
        self.crowd.clear();
        let spawned = spawn_crowd(&mut self.crowd, self.model, count, self.seed)?;
        self.instances = spawned
            .ids
            .iter()
            .copied()
            .zip(spawned.speeds.iter().copied())
            .collect();
        self.bounds = spawned.bounds;
        let m = self.handle.model();
        let extent = m.bounds.max - m.bounds.min;
        let radius = if spawned.bounds.is_empty() {
            m.bounding_radius
        } else {
            spawned.bounds.radius()
        };
        self.ground = GroundPlacement::under(
            spawned.bounds.center(),
            spawned.ground_y,
            radius,
            extent.x.max(extent.z),
            &m.frame_bounds[REST_FRAME as usize],
        );
        self.blobs = spawned
            .placements
            .iter()
            .map(|p| [p.position.x, p.position.z, p.heading, p.scale])
            .collect();
        self.blobs_changed = true;
        self.camera.scene_radius = radius.max(1e-3);
        self.saved = self.current_clips();
        if self.props {
            self.attach_props();
        }
        if self.rest {
            for &(id, _) in &self.instances {
                let _ = self.crowd.play_rest(id);
            }
        }
        Ok(())
    }

    /// Puts a prop on every instance's head (attachments follow the bone).
    fn attach_props(&mut self) {
        for &(id, _) in &self.instances {
            let _ = self
                .crowd
                .attach(id, self.prop_model, self.prop_bone, self.prop_offset);
        }
    }

    /// Takes every prop off.
    fn detach_props(&mut self) {
        let props: Vec<InstanceId> = self
            .instances
            .iter()
            .flat_map(|&(id, _)| {
                self.crowd
                    .attachments(id)
                    .map(|(child, _)| child)
                    .collect::<Vec<_>>()
            })
            .collect();
        for p in props {
            let _ = self.crowd.despawn(p);
        }
    }

    /// Turns props on or off.
    pub fn set_props(&mut self, on: bool) {
        if on != self.props {
            self.props = on;
            if on {
                self.attach_props()
            } else {
                self.detach_props()
            }
        }
    }

    /// Turns LOD colours on or off.
    pub fn set_lod_tints(&mut self, on: bool) {
        self.lod_tints = on;
    }

    fn current_clips(&self) -> Vec<Option<(usize, f32)>> {
        self.instances
            .iter()
            .map(|&(id, _)| self.crowd.state(id).ok().and_then(|s| s.current))
            .collect()
    }

    /// Frames the whole crowd for a viewport of `aspect`.
    pub fn frame_crowd(&mut self, aspect: f32) {
        if self.bounds.is_empty() {
            return;
        }
        // Frame the middle of the herd so that it fills the view edge to
        // edge rather than floating in it.
        let middle = shrink_xz(&self.bounds, CROWD_FILL);
        let mut c = CameraController::framing(&middle, FOV_Y_DEGREES.to_radians(), aspect);
        c.scene_radius = self.bounds.radius().max(1e-3);
        self.camera = c;
    }

    /// Indices into `instances` that `target` addresses.
    fn targets(&mut self, target: Target) -> Vec<usize> {
        let n = self.instances.len();
        match target {
            Target::All => (0..n).collect(),
            Target::RandomFifth => {
                let k = ((n as f32 * RANDOM_FRACTION).round() as usize).clamp(n.min(1), n);
                // Partial Fisher–Yates: the first k of a shuffle.
                let mut all: Vec<usize> = (0..n).collect();
                for i in 0..k {
                    let j = i + self.rng.below(n - i);
                    all.swap(i, j);
                }
                all.truncate(k);
                all
            }
        }
    }

    fn fade(&mut self, which: &[usize], clip_of: &mut dyn FnMut(&mut Rng) -> usize) {
        for &i in which {
            let (id, speed) = self.instances[i];
            let clip = clip_of(&mut self.rng);
            let _ = self.crowd.cross_fade(id, clip, FADE_SECONDS);
            // From the rest pose a fade starts at speed 1: restore the
            // instance's own speed.
            let _ = self.crowd.set_speed(id, speed);
        }
    }

    /// Applies a key action; returns false when the viewer should quit.
    pub fn apply(&mut self, action: Action, aspect: f32) -> bool {
        let clip_count = self.clips.len();
        let who = |t: Target| match t {
            Target::All => "every instance",
            Target::RandomFifth => "a random 20 %",
        };
        match action {
            Action::FadeToClip { clip, target } => {
                if clip >= clip_count {
                    self.status = format!("no clip {}: the model has {clip_count}", clip + 1);
                } else {
                    let which = self.targets(target);
                    self.fade(&which, &mut |_| clip);
                    if target == Target::All {
                        self.rest = false;
                    }
                    self.status = format!(
                        "{} → {} ({} instances)",
                        who(target),
                        self.clips[clip].0,
                        which.len()
                    );
                }
            }
            Action::FadeToRandomClips { target } => {
                if clip_count > 0 {
                    let which = self.targets(target);
                    self.fade(&which, &mut |rng| rng.below(clip_count));
                    if target == Target::All {
                        self.rest = false;
                    }
                    self.status = format!("{} → random clips", who(target));
                }
            }
            Action::MoreInstances | Action::FewerInstances => {
                let n = self.instances.len() as u32;
                let wanted = if action == Action::MoreInstances {
                    (n.max(1) * 2).min(MAX_INSTANCES)
                } else {
                    (n / 2).max(1)
                };
                match self.respawn(wanted) {
                    Ok(()) => self.status = format!("{} instances", hud::thousands(wanted as u64)),
                    Err(e) => self.status = format!("respawn failed: {e:#}"),
                }
            }
            Action::TogglePause => {
                self.paused = !self.paused;
                self.status = if self.paused { "paused" } else { "playing" }.into();
            }
            Action::SlowerSpeed | Action::FasterSpeed => {
                let f = if action == Action::FasterSpeed {
                    2.0
                } else {
                    0.5
                };
                self.speed = (self.speed * f).clamp(SPEED_LIMITS.0, SPEED_LIMITS.1);
                self.status = format!("speed ×{}", self.speed);
            }
            Action::ToggleSkeletons => {
                self.skeletons = !self.skeletons;
                self.status = if self.skeletons {
                    format!("skeletons on the {} nearest instances", skeleton::NEAREST)
                } else {
                    "skeletons off".into()
                };
            }
            Action::ToggleRestPose => self.toggle_rest(),
            Action::ToggleLodTints => {
                self.lod_tints = !self.lod_tints;
                self.status = if self.lod_tints {
                    "LOD colours: green 0, blue 1, magenta 2, red 3+".into()
                } else {
                    "LOD colours off".into()
                };
            }
            Action::ToggleProps => {
                self.set_props(!self.props);
                self.status = if self.props {
                    "hats on".into()
                } else {
                    "hats off".into()
                };
            }
            Action::ToggleFly => {
                self.camera.toggle_mode();
                self.status = match self.camera.mode {
                    Mode::Fly => "fly camera: WASD, Q/E, drag to look".into(),
                    Mode::Orbit => "orbit camera".into(),
                };
            }
            Action::FrameCrowd => self.frame_crowd(aspect),
            Action::ToggleHud => self.hud = !self.hud,
            Action::Screenshot => self.shot_requested = true,
            Action::Escape => {
                if self.camera.mode == Mode::Fly {
                    self.camera.toggle_mode();
                    self.status = "orbit camera".into();
                } else {
                    return false;
                }
            }
        }
        true
    }

    fn toggle_rest(&mut self) {
        if self.rest {
            for (&(id, speed), saved) in self.instances.iter().zip(&self.saved) {
                if let Some((clip, time)) = *saved {
                    let _ = self.crowd.play(id, clip);
                    let _ = self.crowd.set_time(id, time);
                    let _ = self.crowd.set_speed(id, speed);
                }
            }
            self.rest = false;
            self.status = "clips".into();
        } else {
            self.saved = self.current_clips();
            for &(id, _) in &self.instances {
                let _ = self.crowd.play_rest(id);
            }
            self.rest = true;
            self.status = "rest pose".into();
        }
    }

    /// Advances the crowd by `dt` seconds of wall time (scaled by the
    /// global speed; nothing moves while paused).
    pub fn advance(&mut self, dt: f32) {
        if !self.paused {
            self.crowd.update(dt * self.speed);
        }
    }
}

/// Fly-camera keys held down.
#[derive(Default)]
struct Held {
    keys: HashSet<KeyCode>,
}

impl Held {
    fn axis(&self, minus: KeyCode, plus: KeyCode) -> f32 {
        self.keys.contains(&plus) as i32 as f32 - self.keys.contains(&minus) as i32 as f32
    }

    /// (right, up, forward) in −1..1.
    fn fly_input(&self) -> Vec3 {
        Vec3::new(
            self.axis(KeyCode::KeyA, KeyCode::KeyD),
            self.axis(KeyCode::KeyQ, KeyCode::KeyE),
            self.axis(KeyCode::KeyS, KeyCode::KeyW),
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drag {
    Orbit,
    Pan,
}

/// Frame-rate and CPU-time averages.
struct Timing {
    last: Option<Instant>,
    window_start: Instant,
    window_frames: u32,
    fps: f32,
    cpu: Duration,
}

impl Timing {
    fn new() -> Self {
        Self {
            last: None,
            window_start: Instant::now(),
            window_frames: 0,
            fps: 0.0,
            cpu: Duration::ZERO,
        }
    }

    /// Seconds since the previous frame (0 on the first).
    fn tick(&mut self) -> f32 {
        let now = Instant::now();
        let dt = self.last.map_or(0.0, |l| (now - l).as_secs_f32());
        self.last = Some(now);
        self.window_frames += 1;
        let span = now - self.window_start;
        if span >= Duration::from_millis(500) {
            self.fps = self.window_frames as f32 / span.as_secs_f32();
            self.window_frames = 0;
            self.window_start = now;
        }
        dt
    }

    fn record_cpu(&mut self, cpu: Duration) {
        self.cpu = if self.cpu.is_zero() {
            cpu
        } else {
            self.cpu.mul_f32(0.9) + cpu.mul_f32(0.1)
        };
    }
}

/// The GPU side of the viewer. See the module docs.
struct Gfx {
    window: Arc<Window>,
    instance: wgpu::Instance,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    configured: bool,
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
    renderer: Renderer,
    gpu_model: GpuModel,
    prop_model: GpuModel,
    ground: Ground,
    lines: LinePass,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
}

/// Picks the surface format: sRGB 8-bit BGRA or RGBA first, then any sRGB
/// format, then whatever comes first.
pub fn choose_format(formats: &[wgpu::TextureFormat]) -> Option<wgpu::TextureFormat> {
    use wgpu::TextureFormat as F;
    [F::Bgra8UnormSrgb, F::Rgba8UnormSrgb]
        .into_iter()
        .find(|f| formats.contains(f))
        .or_else(|| formats.iter().copied().find(|f| f.is_srgb()))
        .or_else(|| formats.first().copied())
}

static GPU_ERRORS: AtomicU32 = AtomicU32::new(0);

/// Logs uncaptured wgpu errors (the first few in full) instead of
/// panicking.
fn log_gpu_error(e: wgpu::Error) {
    let n = GPU_ERRORS.fetch_add(1, Ordering::Relaxed);
    if n < 5 {
        eprintln!("throng-viewer: wgpu error: {e}");
    } else if n == 5 {
        eprintln!("throng-viewer: more wgpu errors follow; not printing them");
    }
}

impl Gfx {
    fn new(
        event_loop: &ActiveEventLoop,
        opts: &Options,
        handle: &ModelHandle,
        prop: &ModelHandle,
    ) -> Result<Self> {
        let title = format!(
            "Throng viewer: {}",
            opts.model_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        let window = Arc::new(
            event_loop
                .create_window(
                    Window::default_attributes()
                        .with_title(title)
                        .with_inner_size(PhysicalSize::new(opts.size.0, opts.size.1)),
                )
                .context("creating the window")?,
        );
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance
            .create_surface(window.clone())
            .context("creating the window surface")?;
        let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
            &instance,
            Some(&surface),
        ))
        .context("no GPU adapter can draw to this window")?;
        let (device, queue) = pollster::block_on(throng_render::context::request_device(&adapter))?;
        device.on_uncaptured_error(Arc::new(log_gpu_error));
        device.set_device_lost_callback(|reason, message| {
            eprintln!("throng-viewer: GPU device lost ({reason:?}): {message}");
        });
        let caps = surface.get_capabilities(&adapter);
        let format = choose_format(&caps.formats)
            .ok_or_else(|| anyhow!("the window surface offers no formats on this adapter"))?;
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            desired_maximum_frame_latency: 2,
            present_mode: if opts.screenshot.is_some() {
                wgpu::PresentMode::AutoNoVsync
            } else {
                wgpu::PresentMode::AutoVsync
            },
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        let configured = size.width > 0 && size.height > 0;
        if configured {
            surface.configure(&device, &config);
        }
        let renderer = Renderer::new(
            &adapter,
            &device,
            &queue,
            format,
            RendererOptions {
                path: opts.path,
                sample_count: opts.msaa,
                ..RendererOptions::default()
            },
        )?;
        let gpu_model = GpuModel::upload(&device, &queue, handle)
            .with_context(|| format!("uploading {}", handle.model().name))?;
        let prop_model = GpuModel::upload(&device, &queue, prop).context("uploading the prop")?;
        let receiver = renderer
            .shadow_receiver()
            .context("the viewer's renderer was built without shadows")?;
        let ground = Ground::new(&device, format, opts.msaa, receiver.layout);
        let lines = LinePass::new(&device, format, opts.msaa);
        let egui_ctx = egui::Context::default();
        hud::setup_style(&egui_ctx);
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &*window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let egui_renderer =
            egui_wgpu::Renderer::new(&device, format, egui_wgpu::RendererOptions::default());
        Ok(Self {
            adapter_name: throng_render::adapter_summary(&adapter),
            window,
            instance,
            surface,
            config,
            configured,
            device,
            queue,
            renderer,
            gpu_model,
            prop_model,
            ground,
            lines,
            egui_ctx,
            egui_state,
            egui_renderer,
        })
    }

    fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    fn aspect(&self) -> f32 {
        self.config.width as f32 / self.config.height.max(1) as f32
    }

    /// Configures the surface for `size`; a zero size leaves it alone.
    fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width == 0 || size.height == 0 {
            self.configured = false;
            return;
        }
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.device, &self.config);
        self.configured = true;
    }

    /// Recreates a lost surface.
    fn recreate_surface(&mut self) -> Result<()> {
        self.surface = self
            .instance
            .create_surface(self.window.clone())
            .context("recreating the lost window surface")?;
        self.resize(self.window.inner_size());
        Ok(())
    }
}

/// Where a frame goes.
enum FrameTarget {
    Surface(wgpu::SurfaceTexture, wgpu::TextureView),
    Capture(CaptureTarget),
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
}

impl App {
    /// An application showing `handle` as `opts` says.
    pub fn new(opts: Options, handle: ModelHandle) -> Result<Self> {
        let aspect = opts.size.0 as f32 / opts.size.1.max(1) as f32;
        let mut scene = Scene::new(handle, opts.instances, opts.seed, aspect, opts.hud)?;
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

    fn on_key(&mut self, event_loop: &ActiveEventLoop, event: &KeyEvent) {
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

    fn on_mouse(&mut self, state: ElementState, button: MouseButton) {
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

    fn on_cursor(&mut self, position: PhysicalPosition<f64>) {
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

    /// Renders one frame; errors end the viewer.
    fn frame(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.try_frame(event_loop) {
            self.fail(event_loop, e);
        }
    }

    fn try_frame(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let Some(gfx) = self.gfx.as_mut() else {
            return Ok(());
        };
        let start = Instant::now();
        let wall_dt = self.timing.tick();
        let screenshot = self.opts.screenshot.clone();
        let dt = if screenshot.is_some() {
            SCREENSHOT_DT
        } else {
            wall_dt.min(MAX_DT)
        };
        // Frame k (from 1) shows the crowd after k − 1 steps.
        if self.frames > 0 {
            self.scene.advance(dt);
        }
        if self.scene.camera.mode == Mode::Fly {
            let fast = self.mods.shift;
            self.scene.camera.fly(self.held.fly_input(), dt, fast);
        }
        self.frames += 1;
        let last_frame = screenshot.is_some() && self.frames >= self.opts.frames;
        let capture = last_frame || self.scene.shot_requested;
        self.scene.shot_requested = false;

        if !capture && !gfx.configured {
            return Ok(()); // minimised: nothing to draw into
        }
        let mut waited = Duration::ZERO;
        let target = if capture {
            FrameTarget::Capture(CaptureTarget::new(
                &gfx.device,
                gfx.config.format,
                gfx.size(),
            )?)
        } else {
            let t0 = Instant::now();
            let acquired = gfx.surface.get_current_texture();
            waited = t0.elapsed();
            match acquired {
                wgpu::CurrentSurfaceTexture::Success(t) => {
                    let view = t.texture.create_view(&Default::default());
                    FrameTarget::Surface(t, view)
                }
                wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                    // Draw this one, reconfigure for the next.
                    let view = t.texture.create_view(&Default::default());
                    gfx.configured = false;
                    FrameTarget::Surface(t, view)
                }
                wgpu::CurrentSurfaceTexture::Outdated => {
                    gfx.resize(gfx.window.inner_size());
                    return Ok(());
                }
                wgpu::CurrentSurfaceTexture::Lost => {
                    gfx.recreate_surface()?;
                    return Ok(());
                }
                wgpu::CurrentSurfaceTexture::Timeout
                | wgpu::CurrentSurfaceTexture::Occluded
                | wgpu::CurrentSurfaceTexture::Validation => return Ok(()),
            }
        };
        let view = match &target {
            FrameTarget::Surface(_, view) => view,
            FrameTarget::Capture(c) => &c.view,
        };

        let size = gfx.size();
        let aspect = gfx.aspect();
        let camera = self.scene.camera.camera(aspect);
        gfx.renderer.set_lod_tints(self.scene.lod_tints);
        let stats = match gfx.renderer.prepare(
            size,
            &camera,
            &[&self.scene.crowd],
            &[&gfx.gpu_model, &gfx.prop_model],
        ) {
            Ok(s) => s,
            Err(e) if screenshot.is_none() => {
                self.scene.status = format!("frame skipped: {e}");
                return Ok(());
            }
            Err(e) => return Err(e).context("preparing the frame"),
        };
        if self.scene.blobs_changed {
            gfx.ground
                .set_blobs(&gfx.device, &gfx.queue, &self.scene.blobs);
            self.scene.blobs_changed = false;
        }
        let options = *gfx.renderer.options();
        let (_, far) = self.scene.camera.clip_planes();
        let eye_to_ground = camera.eye.distance(self.scene.ground.center);
        gfx.ground.prepare(
            &gfx.queue,
            &camera.clip_from_world(),
            &self.scene.ground,
            &options.lighting,
            options.clear_color,
            (far - eye_to_ground) * 0.95,
        );
        self.scene.lines.clear();
        if self.scene.skeletons {
            skeleton::nearest_instances(
                &self.scene.crowd,
                camera.eye,
                &camera.frustum(),
                skeleton::NEAREST,
                &mut self.scene.nearest,
            );
            skeleton::skeleton_lines(
                &self.scene.crowd,
                &self.scene.nearest,
                &mut self.scene.lines,
            );
        }
        gfx.lines.prepare(
            &gfx.device,
            &gfx.queue,
            &camera.clip_from_world(),
            &self.scene.lines,
        );

        // The HUD.
        let raw = gfx.egui_state.take_egui_input(&gfx.window);
        let model_line = format!(
            "{} ({} bones, {} triangles; {})",
            self.scene.handle.model().name,
            self.scene.handle.model().bones.len(),
            gfx.gpu_model.triangles.first().copied().unwrap_or(0),
            self.opts.origin
        );
        let info = HudInfo {
            fps: self.timing.fps,
            cpu: self.timing.cpu,
            gpu: gfx.renderer.gpu_time(),
            gpu_timing: gfx.renderer.has_gpu_timing(),
            stats,
            path: gfx.renderer.path(),
            adapter: &gfx.adapter_name,
            model: &model_line,
            clips: &self.scene.clips,
            speed: self.scene.speed,
            paused: self.scene.paused,
            rest: self.scene.rest,
            skeletons: self.scene.skeletons,
            fly: self.scene.camera.mode == Mode::Fly,
            msaa: options.sample_count,
            status: &self.scene.status,
        };
        let show_hud = self.scene.hud;
        let output = gfx.egui_ctx.run_ui(raw, |ui| {
            if show_hud {
                hud::show(ui.ctx(), &info);
            }
        });
        gfx.egui_state.handle_platform_output_with_event_loop(
            &gfx.window,
            event_loop,
            output.platform_output,
        );
        let primitives = gfx
            .egui_ctx
            .tessellate(output.shapes, output.pixels_per_point);
        let mut textures = output.textures_delta;
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                gfx.egui_renderer
                    .update_texture(&gfx.device, &gfx.queue, id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [size.0, size.1],
            pixels_per_point: output.pixels_per_point,
        };

        let mut encoder = gfx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("viewer frame"),
            });
        let (ground, lines) = (&gfx.ground, &gfx.lines);
        let shadows = gfx.renderer.shadow_receiver().map(|r| r.bind_group.clone());
        gfx.renderer.encode_with(&mut encoder, view, |pass| {
            if let Some(shadows) = &shadows {
                ground.draw(pass, shadows);
            }
            lines.draw(pass);
        });
        let egui_commands = gfx.egui_renderer.update_buffers(
            &gfx.device,
            &gfx.queue,
            &mut encoder,
            &primitives,
            &screen,
        );
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("viewer hud pass"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Load,
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            gfx.egui_renderer.render(&mut pass, &primitives, &screen);
        }
        gfx.queue
            .submit(egui_commands.into_iter().chain([encoder.finish()]));
        gfx.renderer.after_submit();
        for id in textures.free.drain() {
            gfx.egui_renderer.free_texture(&id);
        }
        self.timing
            .record_cpu(start.elapsed().saturating_sub(waited));

        match target {
            FrameTarget::Surface(texture, view) => {
                drop(view);
                gfx.window.pre_present_notify();
                gfx.queue.present(texture);
                if !gfx.configured {
                    gfx.resize(gfx.window.inner_size());
                }
            }
            FrameTarget::Capture(capture) => {
                let path = match (&screenshot, last_frame) {
                    (Some(path), true) => path.clone(),
                    _ => next_shot_path(),
                };
                let saved = capture
                    .read(&gfx.device, &gfx.queue)
                    .and_then(|image| Ok(throng_render::image_file::save(&path, &image)?));
                let line = format!(
                    "wrote {} ({}×{}, frame {}, {} instances, {} visible, adapter {})",
                    path.display(),
                    size.0,
                    size.1,
                    self.frames,
                    stats.instances,
                    stats.visible,
                    gfx.adapter_name
                );
                if last_frame {
                    saved?;
                    println!("{line}");
                    event_loop.exit();
                } else {
                    // An interactive screenshot: report, keep running.
                    self.scene.status = match saved {
                        Ok(()) => format!("saved {}", path.display()),
                        Err(e) => format!("screenshot failed: {e:#}"),
                    };
                    eprintln!("throng-viewer: {}", self.scene.status);
                }
            }
        }
        Ok(())
    }
}

/// A new file name in the working directory for an interactive screenshot.
fn next_shot_path() -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (0..)
        .map(|n| PathBuf::from(format!("throng-{stamp}-{n}.png")))
        .find(|p| !p.exists())
        .expect("some name is free")
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

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        match Gfx::new(event_loop, &self.opts, &self.scene.handle, &self.scene.prop) {
            Ok(gfx) => {
                if gfx.configured {
                    self.scene.frame_crowd(gfx.aspect());
                    self.framed_for_window = true;
                }
                gfx.window.request_redraw();
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
            WindowEvent::Resized(size) => {
                gfx.resize(size);
                self.minimized = !gfx.configured;
                if gfx.configured && !self.framed_for_window {
                    self.scene.frame_crowd(gfx.aspect());
                    self.framed_for_window = true;
                }
                gfx.window.request_redraw();
            }
            WindowEvent::Occluded(occluded) => {
                self.occluded = occluded;
                if !occluded {
                    gfx.window.request_redraw();
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::tests::fox;

    #[test]
    fn surface_format_prefers_srgb() {
        use wgpu::TextureFormat as F;
        assert_eq!(
            choose_format(&[F::Bgra8Unorm, F::Bgra8UnormSrgb]),
            Some(F::Bgra8UnormSrgb)
        );
        assert_eq!(
            choose_format(&[F::Rgba16Float, F::Rgba8UnormSrgb]),
            Some(F::Rgba8UnormSrgb)
        );
        assert_eq!(choose_format(&[F::Rgb10a2Unorm]), Some(F::Rgb10a2Unorm));
        assert_eq!(choose_format(&[]), None);
    }

    fn scene(n: u32) -> Scene {
        Scene::new(fox(), n, 3, 16.0 / 9.0, true).unwrap()
    }

    #[test]
    fn actions_change_the_crowd() {
        let mut s = scene(100);
        assert!(s.apply(
            Action::FadeToClip {
                clip: 1,
                target: Target::All
            },
            1.0
        ));
        for &(id, _) in &s.instances {
            assert_eq!(s.crowd.state(id).unwrap().current.unwrap().0, 1);
        }
        s.apply(
            Action::FadeToClip {
                clip: 2,
                target: Target::RandomFifth,
            },
            1.0,
        );
        let on_two = s
            .instances
            .iter()
            .filter(|&&(id, _)| s.crowd.state(id).unwrap().current.unwrap().0 == 2)
            .count();
        assert_eq!(on_two, 20);
        s.apply(
            Action::FadeToClip {
                clip: 8,
                target: Target::All,
            },
            1.0,
        );
        assert!(s.status.contains("has 3"), "{}", s.status);

        s.apply(Action::MoreInstances, 1.0);
        assert_eq!(s.crowd.len(), 200);
        s.apply(Action::FewerInstances, 1.0);
        s.apply(Action::FewerInstances, 1.0);
        assert_eq!(s.crowd.len(), 50);

        s.apply(Action::FasterSpeed, 1.0);
        assert_eq!(s.speed, 2.0);
        s.apply(Action::SlowerSpeed, 1.0);
        s.apply(Action::SlowerSpeed, 1.0);
        assert_eq!(s.speed, 0.5);

        s.apply(Action::TogglePause, 1.0);
        let id = s.instances[0].0;
        let before = s.crowd.state(id).unwrap().current;
        s.advance(0.5);
        assert_eq!(s.crowd.state(id).unwrap().current, before, "paused");
        s.apply(Action::TogglePause, 1.0);
        s.advance(0.1);
        assert_ne!(s.crowd.state(id).unwrap().current, before, "playing");

        s.apply(Action::ToggleFly, 1.0);
        assert_eq!(s.camera.mode, Mode::Fly);
        assert!(s.apply(Action::Escape, 1.0), "Esc leaves fly mode first");
        assert_eq!(s.camera.mode, Mode::Orbit);
        assert!(!s.apply(Action::Escape, 1.0), "then quits");
    }

    #[test]
    fn rest_pose_and_back_keeps_clips_and_speeds() {
        let mut s = scene(30);
        let before: Vec<_> = s
            .instances
            .iter()
            .map(|&(id, _)| s.crowd.state(id).unwrap().current)
            .collect();
        s.apply(Action::ToggleRestPose, 1.0);
        assert!(s.rest);
        assert!(
            s.instances
                .iter()
                .all(|&(id, _)| s.crowd.state(id).unwrap().current.is_none())
        );
        s.apply(Action::ToggleRestPose, 1.0);
        assert!(!s.rest);
        let after: Vec<_> = s
            .instances
            .iter()
            .map(|&(id, _)| s.crowd.state(id).unwrap().current)
            .collect();
        assert_eq!(before, after);
        // Speeds survive: two instances with different speeds drift apart
        // the same way before and after.
        let (a, sa) = s.instances[0];
        let t0 = s.crowd.state(a).unwrap().current.unwrap().1;
        s.advance(0.01);
        let t1 = s.crowd.state(a).unwrap().current.unwrap().1;
        assert!(
            ((t1 - t0) - 0.01 * sa).abs() < 1e-4 || t1 < t0,
            "speed {sa}"
        );
    }

    #[test]
    fn skeleton_toggle_and_lines() {
        let mut s = scene(40);
        s.apply(Action::ToggleSkeletons, 1.0);
        assert!(s.skeletons);
        let camera = s.camera.camera(16.0 / 9.0);
        skeleton::nearest_instances(
            &s.crowd,
            camera.eye,
            &camera.frustum(),
            skeleton::NEAREST,
            &mut s.nearest,
        );
        assert_eq!(
            s.nearest.len(),
            skeleton::NEAREST,
            "the framed crowd is in view"
        );
        skeleton::skeleton_lines(&s.crowd, &s.nearest, &mut s.lines);
        assert!(!s.lines.is_empty());
    }
}
