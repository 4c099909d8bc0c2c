//! [`Targets`]: the depth and MSAA colour attachments a renderer owns for
//! one target size, and the pass that draws through them.

use crate::base::error::RenderError;
use crate::base::options::{DEPTH_FORMAT, RendererOptions};

/// Depth (and MSAA colour) attachments of one target size.
pub struct Targets {
    /// Size in pixels.
    pub size: (u32, u32),
    /// Depth attachment ([`DEPTH_FORMAT`]).
    pub depth: wgpu::TextureView,
    /// Multisampled colour that resolves into the target, when MSAA is on.
    pub msaa: Option<wgpu::TextureView>,
    /// Multisampled colour of each further target, when MSAA is on.
    pub extra_msaa: Vec<wgpu::TextureView>,
    /// The depth a pass clears to (1; 0 for reverse Z,
    /// [`crate::base::options::DepthConvention::clear`]).
    pub depth_clear: f32,
    /// The depth can be bound as a texture (occlusion culling's pyramid
    /// reads it).
    pub readable_depth: bool,
}

/// Which of a frame's passes through the same targets a pass is: the
/// first clears, the last resolves MSAA and lets depth go; the ones
/// between keep everything for the next (occlusion culling's early and
/// late passes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassPlace {
    /// Clears colour and depth.
    pub first: bool,
    /// Resolves MSAA and discards the attachments.
    pub last: bool,
}

impl PassPlace {
    /// The frame's only pass.
    pub const ONLY: PassPlace = PassPlace {
        first: true,
        last: true,
    };
}

impl Targets {
    /// Begins a pass that clears and draws into `target` through these
    /// attachments: the MSAA colour (resolved into `target`, then
    /// discarded) when there is one, and the depth (cleared to
    /// [`Self::depth_clear`], discarded at the end).
    pub fn begin_pass<'p>(
        &'p self,
        encoder: &'p mut wgpu::CommandEncoder,
        target: &'p wgpu::TextureView,
        label: &str,
        clear: wgpu::Color,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'p>>,
    ) -> wgpu::RenderPass<'p> {
        self.begin_pass_into(encoder, &[target], label, clear, timestamps)
    }

    /// [`Self::begin_pass`] into `targets`: the first is the renderer's
    /// own, each further one pairs with the renderer's further formats
    /// (through [`Self::extra_msaa`] when MSAA is on); all cleared to
    /// `clear`.
    pub fn begin_pass_into<'p>(
        &'p self,
        encoder: &'p mut wgpu::CommandEncoder,
        targets: &[&'p wgpu::TextureView],
        label: &str,
        clear: wgpu::Color,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'p>>,
    ) -> wgpu::RenderPass<'p> {
        self.begin_pass_at(encoder, targets, label, clear, timestamps, PassPlace::ONLY)
    }

    /// [`Self::begin_pass_into`] as the pass at `place` of several through
    /// these targets: a later pass loads what the one before stored, and
    /// only the last resolves MSAA.
    pub fn begin_pass_at<'p>(
        &'p self,
        encoder: &'p mut wgpu::CommandEncoder,
        targets: &[&'p wgpu::TextureView],
        label: &str,
        clear: wgpu::Color,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'p>>,
        place: PassPlace,
    ) -> wgpu::RenderPass<'p> {
        let msaa = self.msaa.iter().chain(&self.extra_msaa);
        let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'p>>> = targets
            .iter()
            .zip(msaa.map(Some).chain(std::iter::repeat(None)))
            .map(|(&target, msaa)| {
                let (view, resolve) = match msaa {
                    Some(msaa) => (msaa, Some(target).filter(|_| place.last)),
                    None => (target, None),
                };
                Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: resolve,
                    ops: wgpu::Operations {
                        load: if place.first {
                            wgpu::LoadOp::Clear(clear)
                        } else {
                            wgpu::LoadOp::Load
                        },
                        store: if resolve.is_some() {
                            wgpu::StoreOp::Discard
                        } else {
                            wgpu::StoreOp::Store
                        },
                    },
                })
            })
            .collect();
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &attachments,
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth,
                depth_ops: Some(wgpu::Operations {
                    load: if place.first {
                        wgpu::LoadOp::Clear(self.depth_clear)
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: if place.last {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }

    /// Keeps `targets` when they are of `size`, else makes new ones (an
    /// error for a size the device cannot hold), with the sample count,
    /// further colour targets and depth convention of `options`.
    pub fn ensure_for(
        targets: &mut Option<Targets>,
        device: &wgpu::Device,
        size: (u32, u32),
        options: &RendererOptions,
        color_format: wgpu::TextureFormat,
        label: &str,
        readable_depth: bool,
    ) -> Result<(), RenderError> {
        Self::ensure_with(
            targets,
            device,
            size,
            options.sample_count,
            color_format,
            &options.extra_targets,
            label,
            readable_depth,
        )?;
        if let Some(t) = targets {
            t.depth_clear = options.depth.clear();
        }
        Ok(())
    }

    /// Keeps `targets` when they are of `size`, else makes new ones (an
    /// error for a size the device cannot hold).
    pub fn ensure(
        targets: &mut Option<Targets>,
        device: &wgpu::Device,
        size: (u32, u32),
        samples: u32,
        color_format: wgpu::TextureFormat,
        label: &str,
    ) -> Result<(), RenderError> {
        Self::ensure_with(
            targets,
            device,
            size,
            samples,
            color_format,
            &[],
            label,
            false,
        )
    }

    /// Keeps `targets` when they are of `size`, else makes new ones (an
    /// error for a size the device cannot hold) of `samples` and with
    /// further colour formats (their MSAA colour when MSAA is on), the depth
    /// bindable as a texture if `readable_depth`.
    #[allow(clippy::too_many_arguments)]
    pub fn ensure_with(
        targets: &mut Option<Targets>,
        device: &wgpu::Device,
        size: (u32, u32),
        samples: u32,
        color_format: wgpu::TextureFormat,
        extra: &[wgpu::TextureFormat],
        label: &str,
        readable_depth: bool,
    ) -> Result<(), RenderError> {
        crate::device::offscreen::check_target_size(device, size)?;
        if targets
            .as_ref()
            .is_some_and(|t| t.size == size && t.readable_depth == readable_depth)
        {
            return Ok(());
        }
        // Depth, and the multisampled colour that resolves into the target.
        let msaa = if samples > 1 { samples } else { 0 };
        let bytes = crate::device::offscreen::target_bytes(size, samples, DEPTH_FORMAT)
            + std::iter::once(&color_format)
                .chain(extra)
                .map(|&f| crate::device::offscreen::target_bytes(size, msaa, f))
                .sum::<u64>();
        crate::device::context::check_host_memory(
            device,
            &format!("{label} depth and MSAA targets"),
            bytes,
        )?;
        // Drop the old targets first: both sets need not live at once.
        *targets = None;
        let extent = wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        };
        let make = |what: &str, format, usage| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(&format!("{label} {what}")),
                    size: extent,
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        *targets = Some(crate::device::context::catch_device_errors(
            device,
            &format!("creating {label} depth and MSAA targets"),
            || Targets {
                size,
                depth: make(
                    "depth",
                    DEPTH_FORMAT,
                    if readable_depth {
                        wgpu::TextureUsages::TEXTURE_BINDING
                    } else {
                        wgpu::TextureUsages::empty()
                    },
                ),
                msaa: (samples > 1)
                    .then(|| make("msaa colour", color_format, wgpu::TextureUsages::empty())),
                extra_msaa: if samples > 1 {
                    extra
                        .iter()
                        .map(|&f| make("msaa extra colour", f, wgpu::TextureUsages::empty()))
                        .collect()
                } else {
                    Vec::new()
                },
                depth_clear: 1.0,
                readable_depth,
            },
        )?);
        Ok(())
    }
}
