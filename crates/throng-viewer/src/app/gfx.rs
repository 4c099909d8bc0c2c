//! The GPU side of the viewer: the window, its surface, the device, the
//! crowd [`Renderer`], the ground, pillar and line pipelines and egui's state;
//! creating them (again on the same window after a device loss), and
//! keeping the surface configured as the window changes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, Result, anyhow};
use throng_crowd::crowd::ModelHandle;
use throng_render::{GpuModel, Renderer, RendererOptions};
use winit::dpi::PhysicalSize;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use super::Options;
use crate::ground::Ground;
use crate::hud;
use crate::skeleton::LinePass;
use throng_demo::pillars::Pillars;

/// The GPU side of the viewer. See the module docs.
pub(super) struct Gfx {
    pub(super) window: Arc<Window>,
    instance: wgpu::Instance,
    pub(super) surface: wgpu::Surface<'static>,
    pub(super) config: wgpu::SurfaceConfiguration,
    pub(super) configured: bool,
    /// What the next acquire answers instead of asking the surface
    /// (`--faults`).
    pub(super) forced: Option<super::faults::Acquire>,
    /// Say on standard error how surface faults were handled (a run with
    /// `--faults`).
    tell: bool,
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    pub(super) adapter_name: String,
    pub(super) renderer: Renderer,
    /// The crowd's models (the first the HUD's), their bone textures
    /// shared where their frames are equal.
    pub(super) gpu_models: Vec<GpuModel>,
    pub(super) prop_model: GpuModel,
    pub(super) ground: Ground,
    pub(super) pillars: Pillars,
    /// The terrain, when the scene has one (drawn for the flat ground).
    pub(super) terrain: super::terrain::TerrainGfx,
    pub(super) lines: LinePass,
    pub(super) egui_ctx: egui::Context,
    pub(super) egui_state: egui_winit::State,
    pub(super) egui_renderer: egui_wgpu::Renderer,
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
    pub(super) fn new(
        event_loop: &ActiveEventLoop,
        opts: &Options,
        handles: &[ModelHandle],
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
        Self::on_window(window, event_loop, opts, handles, prop)
    }

    /// Everything but the window: the instance, surface, device, renderer,
    /// uploads and passes, on `window`. After a device loss the viewer
    /// builds them again on the same window.
    pub(super) fn on_window(
        window: Arc<Window>,
        event_loop: &ActiveEventLoop,
        opts: &Options,
        handles: &[ModelHandle],
        prop: &ModelHandle,
    ) -> Result<Self> {
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
        // The renderer answers frames after a loss with `DeviceLost`; the
        // app then builds everything again (`App::recover`).
        let loss = throng_render::device_loss::DeviceLoss::watch(&device);
        let caps = surface.get_capabilities(&adapter);
        let format = choose_format(&caps.formats)
            .ok_or_else(|| anyhow!("the window surface offers no formats on this adapter"))?;
        let size = window.inner_size();
        let config = surface_config(&caps, format, size, opts);
        let configured = size.width > 0 && size.height > 0;
        if configured {
            surface.configure(&device, &config);
        }
        let mut renderer = Renderer::new(
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
        renderer.set_device_loss(loss);
        let frames = throng_render::SharedFrames::new();
        let gpu_models = handles
            .iter()
            .map(|h| {
                let textures = throng_render::TextureUpload::Auto;
                GpuModel::upload_sharing(&device, &queue, h, textures, &frames)
                    .with_context(|| format!("uploading {}", h.model().name))
            })
            .collect::<Result<Vec<_>>>()?;
        let prop_model = GpuModel::upload(&device, &queue, prop).context("uploading the prop")?;
        let receiver = renderer
            .shadow_receiver()
            .context("the viewer's renderer was built without shadows")?;
        let ground = Ground::new(&device, format, opts.msaa, receiver.layout);
        let pillars = Pillars::new(&device, format, opts.msaa);
        let lines = LinePass::new(&device, format, opts.msaa);
        let (egui_ctx, egui_state, egui_renderer) = egui_parts(&window, &device, format);
        Ok(Self {
            adapter_name: throng_render::adapter_summary(&adapter),
            window,
            instance,
            surface,
            config,
            configured,
            forced: None,
            tell: !opts.faults.is_empty(),
            device,
            queue,
            renderer,
            gpu_models,
            prop_model,
            ground,
            pillars,
            terrain: Default::default(),
            lines,
            egui_ctx,
            egui_state,
            egui_renderer,
        })
    }

    pub(super) fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    pub(super) fn aspect(&self) -> f32 {
        self.config.width as f32 / self.config.height.max(1) as f32
    }

    /// Configures the surface for `size`; a zero size leaves it alone.
    pub(super) fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width == 0 || size.height == 0 {
            self.configured = false;
            return;
        }
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.device, &self.config);
        self.configured = true;
    }

    /// Says `what` happened to the surface, in a run with `--faults`.
    pub(super) fn say(&self, what: &str) {
        if self.tell {
            eprintln!("throng-viewer: {what}");
        }
    }

    /// Recreates a lost surface.
    pub(super) fn recreate_surface(&mut self) -> Result<()> {
        self.surface = self
            .instance
            .create_surface(self.window.clone())
            .context("recreating the lost window surface")?;
        self.resize(self.window.inner_size());
        Ok(())
    }
}

/// The surface's configuration for a window of `size`: drawn into in
/// `format`, at least 1×1, two frames in flight, without vsync for a
/// screenshot run, in the surface's first alpha mode.
fn surface_config(
    caps: &wgpu::SurfaceCapabilities,
    format: wgpu::TextureFormat,
    size: PhysicalSize<u32>,
    opts: &Options,
) -> wgpu::SurfaceConfiguration {
    wgpu::SurfaceConfiguration {
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
    }
}

/// egui's context (in the HUD's style), its window state and its renderer
/// drawing into `format`.
fn egui_parts(
    window: &Window,
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
) -> (egui::Context, egui_winit::State, egui_wgpu::Renderer) {
    let egui_ctx = egui::Context::default();
    hud::setup_style(&egui_ctx);
    let egui_state = egui_winit::State::new(
        egui_ctx.clone(),
        egui::ViewportId::ROOT,
        window,
        Some(window.scale_factor() as f32),
        window.theme(),
        Some(device.limits().max_texture_dimension_2d as usize),
    );
    let egui_renderer =
        egui_wgpu::Renderer::new(device, format, egui_wgpu::RendererOptions::default());
    (egui_ctx, egui_state, egui_renderer)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
