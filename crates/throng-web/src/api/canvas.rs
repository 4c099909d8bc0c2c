//! A canvas and the GPU behind it: the adapter (WebGPU when the browser
//! gives one, else WebGL2), the surface configured in FIFO, its size
//! followed every frame, and the sRGB target of a canvas without an sRGB
//! format ([`super::srgb`]).

use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use throng_render::{FrameStats, Gpu};

use super::srgb::SrgbTarget;
use crate::query::BackendChoice;

/// A canvas's surface and GPU.
pub struct Canvas {
    /// The element.
    pub element: web_sys::HtmlCanvasElement,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The GPU drawing into it.
    pub gpu: Gpu,
    /// "webgpu" or "webgl2".
    pub backend: &'static str,
    /// The format the crowd draws in (sRGB).
    pub draw_format: wgpu::TextureFormat,
    /// Where the canvas has no sRGB format: the sRGB texture drawn into
    /// and copied to the canvas.
    srgb: Option<SrgbTarget>,
}

impl Canvas {
    /// A surface on `element` and the GPU behind it, on the backends
    /// `choice` allows; the device's uncaptured errors go to `on_error`.
    pub async fn open(
        element: web_sys::HtmlCanvasElement,
        choice: BackendChoice,
        on_error: impl Fn(String) + Send + Sync + 'static,
    ) -> Result<Self> {
        let backends = match choice {
            BackendChoice::Auto => wgpu::Backends::BROWSER_WEBGPU | wgpu::Backends::GL,
            BackendChoice::WebGpu => wgpu::Backends::BROWSER_WEBGPU,
            BackendChoice::WebGl2 => wgpu::Backends::GL,
        };
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        let instance = wgpu::util::new_instance_with_webgpu_detection(desc).await;
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(element.clone()))
            .context("making a surface on the canvas (no WebGPU and no WebGL2?)")?;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                compatible_surface: Some(&surface),
                ..Default::default()
            })
            .await
            .map_err(|e| anyhow!("no adapter for {backends:?}: {e}"))?;
        let backend = match adapter.get_info().backend {
            wgpu::Backend::BrowserWebGpu => "webgpu",
            _ => "webgl2",
        };
        let gpu = Gpu::from_adapter(instance, adapter).await?;
        // In the browser's WebGPU, errors arrive here.
        gpu.device
            .on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
                on_error(format!("GPU error: {e}"))
            }));
        let size = canvas_size(&element);
        let (config, draw_format) = configure(&surface, &gpu, size)?;
        Ok(Self {
            element,
            surface,
            config,
            gpu,
            backend,
            draw_format,
            srgb: None,
        })
    }

    /// The GPU as the view takes it.
    pub fn app(&self) -> throng_examples::AppGpu<'_> {
        throng_examples::AppGpu {
            adapter: &self.gpu.adapter,
            device: &self.gpu.device,
            queue: &self.gpu.queue,
        }
    }

    /// Follows the canvas's size, lets `draw` draw into a view of it and
    /// presents; `Ok(None)` when the surface gave no texture this time
    /// (reconfigured, tried again next frame).
    pub fn present(
        &mut self,
        draw: impl FnOnce(&Gpu, &wgpu::TextureView, (u32, u32)) -> Result<FrameStats>,
    ) -> Result<Option<FrameStats>> {
        let size = canvas_size(&self.element);
        if size != (self.config.width, self.config.height) {
            self.config.width = size.0;
            self.config.height = size.1;
            self.surface.configure(&self.gpu.device, &self.config);
        }
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                bail!("the canvas's surface failed validation")
            }
            _ => return Ok(None),
        };
        let canvas_view;
        let view = if self.draw_format == self.config.format {
            canvas_view = texture.texture.create_view(&Default::default());
            &canvas_view
        } else {
            match &mut self.srgb {
                Some(target) if target.fits(size) => target.view(),
                slot => slot
                    .insert(SrgbTarget::new(&self.gpu.device, self.draw_format, size)?)
                    .view(),
            }
        };
        let stats = draw(&self.gpu, view, size)?;
        if let Some(target) = &self.srgb {
            target.copy_to(&self.gpu.device, &self.gpu.queue, &texture.texture);
        }
        self.gpu.queue.present(texture);
        Ok(Some(stats))
    }
}

/// The canvas's size in device pixels (at least 1 × 1), its drawing
/// buffer set to match.
pub fn canvas_size(canvas: &web_sys::HtmlCanvasElement) -> (u32, u32) {
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let w = ((canvas.client_width() as f64 * ratio).round() as u32).clamp(1, 8192);
    let h = ((canvas.client_height() as f64 * ratio).round() as u32).clamp(1, 8192);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    (w, h)
}

/// Configures `surface` for a canvas of `size`, presenting in FIFO; returns
/// its configuration and the sRGB format the crowd draws in: the
/// surface's own sRGB format (WebGL2), else its first format's sRGB twin,
/// drawn into a texture and copied to the canvas (WebGPU canvases are
/// linear bgra8unorm or rgba8unorm; see [`super::srgb`]).
fn configure(
    surface: &wgpu::Surface<'static>,
    gpu: &Gpu,
    size: (u32, u32),
) -> Result<(wgpu::SurfaceConfiguration, wgpu::TextureFormat)> {
    let caps = surface.get_capabilities(&gpu.adapter);
    let (format, view) = match caps.formats.iter().find(|f| f.is_srgb()) {
        Some(&f) => (f, f),
        None => {
            let f = *caps
                .formats
                .first()
                .context("the surface offers no format")?;
            (f, f.add_srgb_suffix())
        }
    };
    let config = surface
        .get_default_config(&gpu.adapter, size.0, size.1)
        .context("the canvas's surface is not supported by this adapter")?;
    let config = wgpu::SurfaceConfiguration {
        format,
        // The sRGB target is copied in where the canvas has no sRGB format.
        usage: if view == format {
            wgpu::TextureUsages::RENDER_ATTACHMENT
        } else {
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_DST
        },
        present_mode: wgpu::PresentMode::Fifo,
        ..config
    };
    surface.configure(&gpu.device, &config);
    Ok((config, view))
}
