//! [`SingleSampledEarly`]: occlusion culling's early pass drawn
//! single-sampled, for an adapter whose multisampled attachments do not
//! outlive a pass (docs/design/occlusion.md, "GL with MSAA"). wgpu 30's GL
//! backend attaches a multisampled texture with
//! `glFramebufferTexture2DMultisampleEXT`, whose samples are gone when the
//! pass ends: the early pass's multisampled depth cannot feed the pyramid,
//! nor its colour the late pass. There the early phase's opaque draws are
//! drawn a first time into single-sampled scratch targets of their own
//! (the pyramid reads that depth), and the frame's one multisampled pass
//! draws both phases' lists.

use std::collections::HashMap;

use crate::base::error::RenderError;
use crate::base::options::RendererOptions;
use crate::draw::targets::Targets;
use crate::impostor::ImpostorPipelines;
use crate::program::pipeline::PipelineKey;

/// The single-sampled early pass: its pipelines (the renderer's, at one
/// sample) and its targets (readable depth, scratch colour).
pub(crate) struct SingleSampledEarly {
    /// The renderer's colour pipelines, made for one sample.
    pub(crate) pipelines: HashMap<PipelineKey, wgpu::RenderPipeline>,
    /// The impostors' colour pipeline, made for one sample.
    pub(crate) impostors: ImpostorPipelines,
    /// Depth (readable by the pyramid) of the targets' size.
    pub(crate) targets: Option<Targets>,
    /// One scratch colour view per colour target (the renderer's format,
    /// then its further ones): written, never read.
    colour: Vec<wgpu::TextureView>,
}

impl SingleSampledEarly {
    pub(crate) fn new(path: crate::base::options::RecordPath) -> Self {
        Self {
            pipelines: HashMap::new(),
            impostors: ImpostorPipelines::new(path),
            targets: None,
            colour: Vec::new(),
        }
    }

    /// Keeps the targets when they are of `size`, else makes new ones (an
    /// error for a size the device cannot hold).
    pub(crate) fn ensure(
        &mut self,
        device: &wgpu::Device,
        size: (u32, u32),
        options: &RendererOptions,
        color_format: wgpu::TextureFormat,
    ) -> Result<(), RenderError> {
        if self.targets.as_ref().is_some_and(|t| t.size == size) {
            return Ok(());
        }
        let label = "throng single-sampled early";
        let mut targets = None;
        Targets::ensure_with(
            &mut targets,
            device,
            size,
            1,
            color_format,
            &[],
            label,
            true,
        )?;
        let Some(mut targets) = targets else {
            return Ok(());
        };
        targets.depth_clear = options.depth.clear();
        let formats = std::iter::once(color_format).chain(options.extra_targets.iter().copied());
        let bytes: u64 = formats
            .clone()
            .map(|f| crate::device::offscreen::target_bytes(size, 1, f))
            .sum();
        crate::device::context::check_host_memory(device, &format!("{label} colour"), bytes)?;
        let extent = wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        };
        self.colour = crate::device::context::catch_device_errors(
            device,
            &format!("creating {label} colour targets"),
            || {
                formats
                    .map(|format| {
                        device
                            .create_texture(&wgpu::TextureDescriptor {
                                label: Some(label),
                                size: extent,
                                mip_level_count: 1,
                                sample_count: 1,
                                dimension: wgpu::TextureDimension::D2,
                                format,
                                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                                view_formats: &[],
                            })
                            .create_view(&Default::default())
                    })
                    .collect()
            },
        )?;
        self.targets = Some(targets);
        Ok(())
    }

    /// Begins the pass: clears the scratch colour and the depth, keeps
    /// the depth for the pyramid. `None` before [`Self::ensure`].
    pub(crate) fn begin_pass<'p>(
        &'p self,
        encoder: &'p mut wgpu::CommandEncoder,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'p>>,
    ) -> Option<wgpu::RenderPass<'p>> {
        let targets = self.targets.as_ref()?;
        let views: Vec<&wgpu::TextureView> = self.colour.iter().collect();
        Some(targets.begin_pass_at(
            encoder,
            &views,
            "throng crowd pass (early, single-sampled)",
            wgpu::Color::TRANSPARENT,
            timestamps,
            crate::draw::targets::PassPlace {
                first: true,
                last: false,
            },
        ))
    }

    /// The depth the pyramid is reduced from. `None` before
    /// [`Self::ensure`].
    pub(crate) fn depth(&self) -> Option<&wgpu::TextureView> {
        self.targets.as_ref().map(|t| &t.depth)
    }
}
