//! Getting a GPU: a headless device for tests, the CLI and benchmarks.
//!
//! `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` select the backend and adapter.
//! [`RenderError::NoAdapter`] is a failure, never a reason to skip a test;
//! [`require_gpu`] encodes that rule for tests.

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

/// For tests: a GPU, or a panic that says how to get one.
///
/// A GPU test never passes without having run: with no adapter it fails,
/// in CI and on a developer's machine alike, and the message names the
/// packages that give a software adapter. `WGPU_BACKEND` chooses the
/// backend (the test script runs the GPU tests on Vulkan and on GL); the
/// adapter found is printed so that a test log says what it ran on.
///
/// # Panics
///
/// When no adapter of the requested backend exists or it refuses a device.
pub fn require_gpu(test: &str) -> Gpu {
    match Gpu::headless() {
        Ok(gpu) => {
            eprintln!("{test}: on {}", gpu.adapter_summary());
            gpu
        }
        Err(e) => panic!(
            "{test}: this GPU test needs an adapter and found none ({e}). \
             Run ./tools/test.sh, which installs Mesa's software drivers \
             (mesa-vulkan-drivers libvulkan1 for Vulkan; libegl1 libegl-mesa0 \
             libgl1-mesa-dri for GL), or install them yourself."
        ),
    }
}
