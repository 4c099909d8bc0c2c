//! Errors of the GPU runtime. Each says what, where, and what to do.

use thiserror::Error;

/// The extensions of the image files Throng writes
/// (`device::image_file::ImageFormat`), for messages.
pub const SUPPORTED_IMAGE_EXTENSIONS: &str = ".png, .jpg, .jpeg";

/// A rendering or upload error.
#[derive(Debug, Error)]
pub enum RenderError {
    /// No GPU adapter (not even a software one) could be found.
    #[error(
        "no GPU adapter found ({0}); on Debian install lavapipe: apt-get install mesa-vulkan-drivers libvulkan1"
    )]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("the adapter refused to create a device: {0}")]
    Device(String),
    /// The device was lost (a driver reset, a removed GPU, `Device::destroy`):
    /// nothing drawn after it reaches the screen. Recover by making a new
    /// device, uploading the models again and drawing the same crowds with
    /// a new renderer (`throng_render::device_loss`).
    #[error(
        "the GPU device was {0}; make a new device, upload the models again and draw the crowds with a new renderer (the crowds on the CPU are intact)"
    )]
    DeviceLost(String),
    /// A model needs more than the device allows.
    #[error(
        "model {model:?} is too big for this device: {what} needs {needed}, the device allows {limit}"
    )]
    TooBig {
        /// Model name.
        model: String,
        /// What exceeded the limit.
        what: String,
        /// Amount needed.
        needed: u64,
        /// Device limit.
        limit: u64,
    },
    /// An embedded image could not be decoded.
    #[error("model {model:?}: image {index} ({name}) cannot be decoded: {msg}")]
    Image {
        /// Model name.
        model: String,
        /// Image index.
        index: usize,
        /// Image name.
        name: String,
        /// Decoder message.
        msg: String,
    },
    /// A crowd uses a model that was not passed to `render`.
    #[error(
        "a crowd draws model {name:?} (key {key}), but no GpuModel with that identity was given to render()"
    )]
    MissingModel {
        /// Model name.
        name: String,
        /// Model key.
        key: u64,
    },
    /// The requested record path is not available on this adapter.
    #[error("{0}")]
    Unsupported(String),
    /// A GPU simulation hook ([`crate::simulation::Simulation`]) cannot run
    /// as set up, or a path that cannot draw simulated instances was asked
    /// to.
    #[error("GPU simulation: {0}")]
    Simulation(String),
    /// Reading back GPU memory failed.
    #[error("GPU readback failed: {0}")]
    Readback(String),
    /// An image output's extension names no format Throng writes.
    #[error(
        "{path}: cannot write an image with the extension {extension}; the supported extensions are {SUPPORTED_IMAGE_EXTENSIONS}"
    )]
    ImageFormat {
        /// Output path.
        path: String,
        /// Its extension, with the dot, or `(none)`.
        extension: String,
    },
    /// An image could not be written (the old file is untouched).
    #[error(transparent)]
    Write(#[from] throng_core::WriteError),
    /// The target size is zero or beyond the device's limits.
    #[error("render target size {width}×{height} is invalid (1..={limit} per side)")]
    TargetSize {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Largest side the device allows.
        limit: u32,
    },
    /// The device raised an error (out of memory, validation, internal)
    /// while doing `what`; caught by an error scope instead of wgpu's
    /// default handler, which panics.
    #[error("the GPU failed while {what}: {message}")]
    Gpu {
        /// What Throng was doing.
        what: String,
        /// wgpu's message.
        message: String,
    },
    /// A custom fragment shader ([`crate::renderer::CustomFragment`]) does
    /// not compose with Throng's modules.
    #[error("custom fragment shader: {0}")]
    Shader(#[from] crate::base::shader::compose::ShaderError),
    /// More memory than the host can give, estimated before allocating.
    #[error(
        "{what} needs about {needed} bytes, but the host has only {available} bytes available{note}"
    )]
    OutOfMemory {
        /// What needs the memory.
        what: String,
        /// Estimated bytes.
        needed: u64,
        /// Bytes the host can still give.
        available: u64,
        /// Why the host's memory counts (empty when it is obvious).
        note: &'static str,
    },
}
