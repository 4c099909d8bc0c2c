//! The browser side: the canvas and its surface, the adapter (WebGPU when
//! the browser gives one, else WebGL2), the model fetched over HTTP, the
//! frame loop on `requestAnimationFrame`, and the statistics line. Input is
//! in [`input`], the title contract and error display in [`report`], the
//! sRGB target of a canvas without an sRGB format in [`srgb`].

mod input;
mod report;
mod srgb;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use throng_examples::AppGpu;
use throng_render::Gpu;

use crate::query::{BackendChoice, PageQuery};

/// The page's entry point, run when the wasm module loads.
#[wasm_bindgen(start)]
pub fn start() {
    report::install_panic_hook();
    wasm_bindgen_futures::spawn_local(async {
        if let Err(e) = run().await {
            report::error(&format!("{e:#}"));
        }
    });
}

/// A JavaScript exception as an error.
fn js(e: JsValue) -> anyhow::Error {
    anyhow!("{}", e.as_string().unwrap_or_else(|| format!("{e:?}")))
}

/// Everything a frame needs.
struct Page {
    canvas: web_sys::HtmlCanvasElement,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Gpu,
    scene: crate::scene::PageScene,
    query: PageQuery,
    backend: &'static str,
    frames: u32,
    last_ms: Option<f64>,
    fps: Rate,
    stats: Option<web_sys::HtmlElement>,
    /// The format the scene draws in (sRGB).
    draw_format: wgpu::TextureFormat,
    /// Where the canvas has no sRGB format: the sRGB texture drawn into
    /// and copied to the canvas ([`srgb`]).
    srgb: Option<srgb::SrgbTarget>,
}

/// Sets the page up: the canvas, the GPU behind it, the model fetched,
/// the surface configured and the scene built, then input attached and
/// the frame loop started.
async fn run() -> Result<()> {
    let window = web_sys::window().context("no window")?;
    let document = window.document().context("no document")?;
    let query = PageQuery::parse(&window.location().search().map_err(js)?)?;
    let canvas: web_sys::HtmlCanvasElement = document
        .get_element_by_id("throng")
        .context("the page has no <canvas id=\"throng\">")?
        .dyn_into()
        .map_err(|_| anyhow!("#throng is not a canvas"))?;
    let size = input::canvas_size(&canvas);
    let (surface, gpu, backend) = open_gpu(&canvas, query.backend).await?;

    let mut files = Vec::with_capacity(query.models.len());
    for url in &query.models {
        let bytes = fetch(url).await?;
        // A body baked with --shared-clips keeps its frames beside it.
        let frames = match throng_core::format::frames_file(&bytes) {
            Ok(Some(name)) => Some(
                fetch(&crate::scene::ModelFile::beside(url, &name))
                    .await
                    .with_context(|| format!("{url} keeps its frames in {name} beside it"))?,
            ),
            _ => None,
        };
        files.push(crate::scene::ModelFile {
            url: url.clone(),
            bytes,
            frames,
        });
    }
    let handles = crate::scene::load_models(&files, &query)?;
    drop(files);

    let (config, view) = configure_surface(&surface, &gpu, size)?;
    let app = AppGpu {
        adapter: &gpu.adapter,
        device: &gpu.device,
        queue: &gpu.queue,
    };
    let mut scene = crate::scene::build(app, view, &handles, &query)?;
    // A lost device ends frames with an error that says so.
    scene.scene.renderer.set_device_loss(gpu.loss.clone());
    if let Some(asked) = query.clamped_from {
        web_sys::console::warn_1(
            &format!("?instances={asked} clamped to {}", query.instances).into(),
        );
    }
    let stats = document
        .get_element_by_id("stats")
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    let page = Rc::new(RefCell::new(Page {
        canvas: canvas.clone(),
        surface,
        config,
        gpu,
        scene,
        query,
        backend,
        frames: 0,
        last_ms: None,
        fps: Rate::default(),
        stats,
        draw_format: view,
        srgb: None,
    }));
    input::attach(&canvas, page.clone())?;
    animate(page);
    Ok(())
}

/// A surface on `canvas` and the GPU behind it, on the backends `choice`
/// allows, with the backend's name for the statistics line ("webgpu" or
/// "webgl2"); the device's uncaptured errors are reported on the page.
async fn open_gpu(
    canvas: &web_sys::HtmlCanvasElement,
    choice: BackendChoice,
) -> Result<(wgpu::Surface<'static>, Gpu, &'static str)> {
    let backends = match choice {
        BackendChoice::Auto => wgpu::Backends::BROWSER_WEBGPU | wgpu::Backends::GL,
        BackendChoice::WebGpu => wgpu::Backends::BROWSER_WEBGPU,
        BackendChoice::WebGl2 => wgpu::Backends::GL,
    };
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    let instance = wgpu::util::new_instance_with_webgpu_detection(desc).await;
    let surface = instance
        .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
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
    // In the browser's WebGPU, errors arrive here (see catch_device_errors).
    gpu.device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
        report::error(&format!("GPU error: {e}"))
    }));
    Ok((surface, gpu, backend))
}

/// Configures `surface` for a canvas of `size`, presenting in FIFO; returns
/// its configuration and the sRGB format the scene draws in: the surface's
/// own sRGB format (WebGL2), else its first format's sRGB twin, drawn
/// into a texture and copied to the canvas (WebGPU canvases are linear
/// bgra8unorm or rgba8unorm; see [`srgb`]).
fn configure_surface(
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

/// Fetches `url`'s bytes; a failed request or an HTTP error names both.
async fn fetch(url: &str) -> Result<Vec<u8>> {
    let window = web_sys::window().context("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| anyhow!("fetching {url}: {}", js(e)))?
        .dyn_into()
        .map_err(|_| anyhow!("fetching {url}: not a response"))?;
    if !response.ok() {
        bail!(
            "fetching {url}: HTTP {} {}",
            response.status(),
            response.status_text()
        );
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(js)?)
        .await
        .map_err(|e| anyhow!("reading {url}: {}", js(e)))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Runs [`frame`] on every animation frame until an error is reported.
fn animate(page: Rc<RefCell<Page>>) {
    type Tick = Closure<dyn FnMut(f64)>;
    let tick: Rc<RefCell<Option<Tick>>> = Rc::new(RefCell::new(None));
    let again = tick.clone();
    *tick.borrow_mut() = Some(Closure::new(move |now_ms: f64| {
        if let Err(e) = frame(&mut page.borrow_mut(), now_ms) {
            report::error(&format!("{e:#}"));
        }
        if report::failed() {
            return;
        }
        if let (Some(w), Some(f)) = (web_sys::window(), again.borrow().as_ref()) {
            let _ = w.request_animation_frame(f.as_ref().unchecked_ref());
        }
    }));
    if let (Some(w), Some(f)) = (web_sys::window(), tick.borrow().as_ref()) {
        let _ = w.request_animation_frame(f.as_ref().unchecked_ref());
    }
}

/// One frame: advance the crowd (unless its time is fixed), follow the
/// canvas's size, draw, present, and update the statistics.
fn frame(page: &mut Page, now_ms: f64) -> Result<()> {
    page.scene.scene.renderer.check_device()?;
    let dt = page
        .last_ms
        .map_or(0.0, |last| ((now_ms - last) / 1e3) as f32);
    page.last_ms = Some(now_ms);
    if page.query.time.is_none() {
        page.scene.advance(dt.min(0.1))?;
    }
    let size = input::canvas_size(&page.canvas);
    if size != (page.config.width, page.config.height) {
        page.config.width = size.0;
        page.config.height = size.1;
        page.surface.configure(&page.gpu.device, &page.config);
    }
    let texture = match page.surface.get_current_texture() {
        wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
        wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
            page.surface.configure(&page.gpu.device, &page.config);
            return Ok(());
        }
        wgpu::CurrentSurfaceTexture::Validation => bail!("the canvas's surface failed validation"),
        _ => return Ok(()),
    };
    let canvas_view;
    let view = if page.draw_format == page.config.format {
        canvas_view = texture.texture.create_view(&Default::default());
        &canvas_view
    } else {
        match &mut page.srgb {
            Some(target) if target.fits(size) => target.view(),
            slot => slot
                .insert(srgb::SrgbTarget::new(
                    &page.gpu.device,
                    page.draw_format,
                    size,
                )?)
                .view(),
        }
    };
    let stats = page
        .scene
        .scene
        .render(&page.gpu.device, &page.gpu.queue, view, size)?;
    if let Some(target) = &page.srgb {
        target.copy_to(&page.gpu.device, &page.gpu.queue, &texture.texture);
    }
    page.gpu.queue.present(texture);
    page.frames += 1;
    if page.frames == 1 {
        // For tools/web.sh bench: when the first frame was submitted, in ms
        // after navigation.
        if let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        {
            let shown = web_sys::window()
                .and_then(|w| w.performance())
                .map_or(now_ms, |p| p.now());
            let _ = body.set_attribute("data-first-frame-ms", &format!("{shown:.0}"));
        }
    }
    let path = page.scene.scene.renderer.path().name();
    if page.frames >= report::OK_AFTER_FRAMES {
        report::ok(page.backend, path, page.frames);
    }
    if let Some(fps) = page.fps.tick(now_ms)
        && let Some(el) = &page.stats
    {
        let mut line = format!(
            "{fps:.0} fps · {} instances · {} visible · {} · {path}",
            stats.instances, stats.visible, page.backend
        );
        // A mixed crowd: its models, the bone bytes shared, the hidden
        // parts left out of the draws.
        let models = page.scene.scene.models().len();
        if models > 1 || stats.parts_culled > 0 {
            line.push_str(&format!(
                " · {models} models, bone textures {} KiB ({} KiB shared), {} parts culled",
                stats.bone_bytes >> 10,
                stats.shared_bone_bytes >> 10,
                stats.parts_culled
            ));
        }
        el.set_inner_text(&line);
    }
    Ok(())
}

/// Frames per second, counted over half-second windows.
#[derive(Default)]
pub struct Rate {
    start_ms: Option<f64>,
    frames: u32,
}

impl Rate {
    /// Counts a frame at `now_ms`; returns the rate when a window ends.
    pub fn tick(&mut self, now_ms: f64) -> Option<f64> {
        let start = *self.start_ms.get_or_insert(now_ms);
        self.frames += 1;
        let spent = now_ms - start;
        (spent >= 500.0).then(|| {
            let fps = f64::from(self.frames) * 1e3 / spent;
            self.start_ms = Some(now_ms);
            self.frames = 0;
            fps
        })
    }
}
