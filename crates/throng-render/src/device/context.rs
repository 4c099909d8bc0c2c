//! Getting a GPU: a headless device for tests, the CLI and benchmarks.
//!
//! `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` select the backend and adapter.
//! [`RenderError::NoAdapter`] is a failure, never a reason to skip a test;
//! `throng_tests::require_gpu` encodes that rule for tests. Software adapters (lavapipe,
//! llvmpipe GL) and what they need: docs/design/software-gpu.md#software-adapters.

use crate::base::error::RenderError;

/// An adapter, its device and queue.
#[derive(Clone, Debug)]
pub struct Gpu {
    /// The instance.
    pub instance: wgpu::Instance,
    /// The adapter.
    pub adapter: wgpu::Adapter,
    /// The device (all the adapter's limits requested).
    pub device: wgpu::Device,
    /// The queue.
    pub queue: wgpu::Queue,
    /// The device's loss, watched from its creation
    /// ([`crate::device::device_loss`]); [`crate::Renderer::headless`] hands it to
    /// the renderer.
    pub loss: crate::device::device_loss::DeviceLoss,
}

impl Gpu {
    /// A device with no surface, honouring `WGPU_BACKEND` / `WGPU_ADAPTER_NAME`.
    /// Native only: a page cannot block, so the web makes its instance and
    /// adapter with its canvas and awaits [`Self::from_adapter`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn headless() -> Result<Self, RenderError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
            &instance, None,
        ))
        .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
        pollster::block_on(Self::from_adapter(instance, adapter))
    }

    /// A device on `adapter` (of `instance`) with every limit and the
    /// optional features Throng uses ([`request_device`]), its loss watched.
    pub async fn from_adapter(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
    ) -> Result<Self, RenderError> {
        let (device, queue) = request_device(&adapter).await?;
        let loss = crate::device::device_loss::DeviceLoss::watch(&device);
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            loss,
        })
    }

    /// One line naming the adapter: name, backend, device type.
    pub fn adapter_summary(&self) -> String {
        adapter_summary(&self.adapter)
    }
}

/// One line naming an adapter.
pub fn adapter_summary(adapter: &wgpu::Adapter) -> String {
    let i = adapter.get_info();
    format!("{} ({:?}, {:?})", i.name, i.backend, i.device_type)
}

/// Requests a device with every limit and the optional features Throng uses
/// (timestamp queries; indirect draws with a first instance, for the
/// GPU-driven path; BC textures, for impostor atlases stored as BC7;
/// unclipped depth, for casters pancaked into a caller's light views) that
/// the adapter has.
pub async fn request_device(
    adapter: &wgpu::Adapter,
) -> Result<(wgpu::Device, wgpu::Queue), RenderError> {
    let wanted = wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::INDIRECT_FIRST_INSTANCE
        | wgpu::Features::TEXTURE_COMPRESSION_BC
        | wgpu::Features::DEPTH_CLIP_CONTROL;
    let desc = wgpu::DeviceDescriptor {
        label: Some("throng device"),
        required_features: adapter.features() & wanted,
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    };
    adapter
        .request_device(&desc)
        .await
        .map_err(|e| RenderError::Device(e.to_string()))
}

/// Runs `f` and turns any error the device raises meanwhile — out of
/// memory, validation, internal — into [`RenderError::Gpu`] naming `what`,
/// instead of leaving it to wgpu's uncaptured-error handler, which panics.
/// Error scopes are per thread: `f` must do its GPU work on this thread.
///
/// In a browser's WebGPU the scopes answer through promises that a frame
/// cannot wait for: there `f` runs without scopes and errors reach the
/// device's uncaptured-error handler, which the page installs
/// (docs/WEB.md). WebGL2 goes through wgpu's own validation, whose scopes
/// answer at once, so it keeps them.
pub fn catch_device_errors<T>(
    device: &wgpu::Device,
    what: &str,
    f: impl FnOnce() -> T,
) -> Result<T, RenderError> {
    // Only a wasm32 build has the browser's backend: native frames skip
    // the adapter-info query (it copies the adapter's strings).
    #[cfg(target_arch = "wasm32")]
    if device.adapter_info().backend == wgpu::Backend::BrowserWebGpu {
        return Ok(f());
    }
    let out_of_memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let value = f();
    // Popped in reverse order of pushing, as wgpu requires.
    let internal = settle(internal.pop());
    let validation = settle(validation.pop());
    let out_of_memory = settle(out_of_memory.pop());
    // Running out of memory is the cause; validation errors that follow it
    // (using the resource that could not be made) are its consequences.
    match out_of_memory.or(internal).or(validation) {
        None => Ok(value),
        Some(e) => Err(RenderError::Gpu {
            what: what.to_owned(),
            message: describe(&e),
        }),
    }
}

/// A popped scope's error: waited for on native threads.
#[cfg(not(target_arch = "wasm32"))]
fn settle(pop: impl std::future::Future<Output = Option<wgpu::Error>>) -> Option<wgpu::Error> {
    pollster::block_on(pop)
}

/// A popped scope's error on the web, where nothing may block: polled once.
/// Only wgpu's own validation (WebGL2) gets here, and its scopes are ready
/// when popped; one still pending would be reported as no error.
#[cfg(target_arch = "wasm32")]
fn settle(pop: impl std::future::Future<Output = Option<wgpu::Error>>) -> Option<wgpu::Error> {
    let mut pop = std::pin::pin!(pop);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match pop.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(error) => error,
        std::task::Poll::Pending => None,
    }
}

/// wgpu's own words for an error: the description of a validation or
/// internal error (it lists the causes), or "Out of Memory" with its source.
fn describe(e: &wgpu::Error) -> String {
    match e {
        wgpu::Error::Validation { description, .. } | wgpu::Error::Internal { description, .. } => {
            description.trim().to_owned()
        }
        wgpu::Error::OutOfMemory { source } => format!("{e}: {source}"),
    }
}

/// `Ok` unless the adapter draws with host memory (a software adapter such
/// as lavapipe or llvmpipe) and `needed` bytes exceed what the host can
/// still give: then the allocation would end in the kernel's out-of-memory
/// killer, not in an error. Hardware adapters report running out through
/// [`catch_device_errors`].
pub fn check_host_memory(
    device: &wgpu::Device,
    what: &str,
    needed: u64,
) -> Result<(), RenderError> {
    if device.adapter_info().device_type != wgpu::DeviceType::Cpu {
        return Ok(());
    }
    throng_core::host_memory::check(needed).map_err(|available| RenderError::OutOfMemory {
        what: what.to_owned(),
        needed,
        available,
        note: " (this adapter renders in software: its GPU memory is host memory)",
    })
}
