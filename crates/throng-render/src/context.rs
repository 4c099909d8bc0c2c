//! Getting a GPU: a headless device for tests, the CLI and benchmarks.
//!
//! `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` select the backend and adapter. In
//! CI (`CI=true`) callers must treat [`RenderError::NoAdapter`] as a failure,
//! never as a reason to skip; [`require_gpu_in_ci`] encodes that rule for
//! tests.

use crate::error::RenderError;

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
}

impl Gpu {
    /// A device with no surface, honouring `WGPU_BACKEND` / `WGPU_ADAPTER_NAME`.
    pub fn headless() -> Result<Self, RenderError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
            &instance, None,
        ))
        .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
        let (device, queue) = pollster::block_on(request_device(&adapter))?;
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
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
/// (timestamp queries) that the adapter has.
pub async fn request_device(
    adapter: &wgpu::Adapter,
) -> Result<(wgpu::Device, wgpu::Queue), RenderError> {
    let wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
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

/// For tests: a GPU, or `None` to skip when running outside CI. In CI
/// (`CI` set to anything but `false`/`0`) a missing adapter panics, so GPU
/// tests fail rather than skip silently.
pub fn require_gpu_in_ci(test: &str) -> Option<Gpu> {
    match Gpu::headless() {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            let ci = std::env::var("CI")
                .map(|v| v != "false" && v != "0" && !v.is_empty())
                .unwrap_or(false);
            if ci {
                panic!("{test}: CI requires a GPU adapter (lavapipe is enough): {e}");
            }
            eprintln!("{test}: SKIPPED, no GPU adapter: {e}");
            None
        }
    }
}
