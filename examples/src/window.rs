//! The application shell the windowed examples share: a winit 0.30 app
//! that owns its window, surface and device, and each frame advances the
//! crowd, orbits the camera and draws [`Scene::render`] into the surface.
//! When the device is lost it builds surface, device and scene again on the
//! same window and keeps the crowd and camera (Throng's `DeviceLost`
//! recovery, `throng::render::device_loss`). Nothing else in it is Throng's;
//! it is what any wgpu application already has.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use throng::crowd::crowd::ModelHandle;
use throng::render::device_loss::DeviceLoss;
use throng::render::{CustomFragment, RenderError};

/// Makes the scene a window draws, once its device exists.
pub type MakeScene = Box<dyn Fn(AppGpu, wgpu::TextureFormat, &ModelHandle) -> Result<Scene>>;

use crate::{AppGpu, Scene, bake_fox};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// The window, its surface and device, and what is drawn.
struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    device: wgpu::Device,
    queue: wgpu::Queue,
    scene: Scene,
}

impl Gfx {
    fn new(
        event_loop: &ActiveEventLoop,
        fox: &ModelHandle,
        title: &str,
        make: &MakeScene,
    ) -> Result<Self> {
        let window =
            Arc::new(event_loop.create_window(Window::default_attributes().with_title(title))?);
        Self::on_window(window, event_loop, fox, make)
    }

    /// Surface, device and scene on `window` (again, after a device loss).
    fn on_window(
        window: Arc<Window>,
        event_loop: &ActiveEventLoop,
        fox: &ModelHandle,
        make: &MakeScene,
    ) -> Result<Self> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance.create_surface(window.clone())?;
        let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
            &instance,
            Some(&surface),
        ))?;
        let limits = adapter.limits();
        // Throng's GPU-driven path draws with a first instance; ask for it
        // where the adapter has it (without it Throng uses a CPU path).
        let desc = wgpu::DeviceDescriptor {
            required_limits: limits,
            required_features: adapter.features()
                & (wgpu::Features::INDIRECT_FIRST_INSTANCE
                    | wgpu::Features::TEXTURE_COMPRESSION_BC),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))?;
        let format = surface
            .get_capabilities(&adapter)
            .formats
            .into_iter()
            .find(|f| f.is_srgb())
            .context("no sRGB surface format")?;
        let size = window.inner_size();
        let config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .context("surface unsupported")?;
        let config = wgpu::SurfaceConfiguration { format, ..config };
        surface.configure(&device, &config);
        let gpu = AppGpu {
            adapter: &adapter,
            device: &device,
            queue: &queue,
        };
        let mut scene = make(gpu, format, fox)?;
        // Frames after a loss are `RenderError::DeviceLost` (see `App::recover`).
        scene.renderer.set_device_loss(DeviceLoss::watch(&device));
        Ok(Self {
            window,
            surface,
            config,
            device,
            queue,
            scene,
        })
    }

    fn redraw(&mut self, dt: f32) -> Result<()> {
        // Lost since the last frame: say so before advancing anything.
        self.scene.renderer.check_device()?;
        self.scene.crowd.update(dt);
        self.scene.camera.yaw += dt * 0.1;
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Ok(());
            }
            _ => return Ok(()),
        };
        let view = frame.texture.create_view(&Default::default());
        let size = (self.config.width, self.config.height);
        self.scene.render(&self.device, &self.queue, &view, size)?;
        self.window.pre_present_notify();
        self.queue.present(frame);
        Ok(())
    }
}

/// The application: bakes the Fox, then opens its window when resumed.
struct App {
    title: String,
    make: MakeScene,
    /// Frames left before it quits by itself (`None`: until closed).
    frames: Option<u32>,
    /// Destroy the device after this many frames (tests of the recovery).
    lose_device_after: Option<u32>,
    /// Frames drawn.
    drawn: u32,
    fox: ModelHandle,
    gfx: Option<Gfx>,
    last: Instant,
    error: Option<anyhow::Error>,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.error = Some(e);
        event_loop.exit();
    }

    /// Builds surface, device and scene again on the same window after a
    /// device loss, and moves the crowd and camera (the CPU's) into the new
    /// scene.
    fn recover(&mut self, event_loop: &ActiveEventLoop, why: &str) -> Result<()> {
        let Some(old) = self.gfx.take() else {
            return Ok(());
        };
        eprintln!("the GPU device was {why}; building it again");
        let Gfx {
            window,
            scene,
            surface,
            device,
            ..
        } = old;
        // The old surface goes before the new one is made: a window has one
        // (GL's EGL surfaces insist).
        drop(surface);
        drop(device);
        let mut gfx = Gfx::on_window(window, event_loop, &self.fox, &self.make)?;
        gfx.scene.crowd = scene.crowd;
        gfx.scene.camera = scene.camera;
        eprintln!("recovered on a new device");
        gfx.window.request_redraw();
        self.gfx = Some(gfx);
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_none() {
            match Gfx::new(event_loop, &self.fox, &self.title, &self.make) {
                Ok(gfx) => self.gfx = Some(gfx),
                Err(e) => self.fail(event_loop, e),
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(gfx) = self.gfx.as_mut() else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                (gfx.config.width, gfx.config.height) = (size.width, size.height);
                gfx.surface.configure(&gfx.device, &gfx.config);
            }
            WindowEvent::RedrawRequested => {
                let now = Instant::now();
                let dt = (now - self.last).as_secs_f32();
                self.last = now;
                self.drawn += 1;
                if self.lose_device_after == Some(self.drawn) {
                    gfx.device.destroy();
                }
                match gfx.redraw(dt) {
                    Ok(()) => gfx.window.request_redraw(),
                    Err(e) => match e.downcast_ref::<RenderError>() {
                        Some(RenderError::DeviceLost(why)) => {
                            let why = why.clone();
                            if let Err(e) = self.recover(event_loop, &why) {
                                self.fail(event_loop, e);
                            }
                        }
                        _ => self.fail(event_loop, e),
                    },
                }
                if let Some(n) = &mut self.frames {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        event_loop.exit();
                    }
                }
            }
            _ => {}
        }
    }
}

/// Bakes the Fox and runs the windowed example titled `title`, the crowd
/// shaded by `fragment` (or Throng's own shading), until the window closes.
pub fn run(title: &str, fragment: Option<CustomFragment>) -> Result<()> {
    let make: MakeScene =
        Box::new(move |gpu, format, fox| Scene::new(gpu, format, fox, 8, fragment.clone()));
    run_scene(title, RunOptions::default(), make)
}

/// How long a window runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Quit after this many frames (`None`: when the window closes).
    pub frames: Option<u32>,
    /// Destroy the device after this many frames, to see the recovery.
    pub lose_device_after: Option<u32>,
}

/// Bakes the Fox and runs a window titled `title` drawing the scene `make`
/// makes, until the window closes or `run.frames` frames were drawn.
pub fn run_scene(title: &str, run: RunOptions, make: MakeScene) -> Result<()> {
    let fox = bake_fox()?;
    let mut app = App {
        title: title.to_owned(),
        make,
        frames: run.frames,
        lose_device_after: run.lose_device_after,
        drawn: 0,
        fox,
        gfx: None,
        last: Instant::now(),
        error: None,
    };
    EventLoop::new()?.run_app(&mut app)?;
    app.error.map_or(Ok(()), Err)
}
