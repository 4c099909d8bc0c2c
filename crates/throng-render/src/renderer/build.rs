//! Making a [`Renderer`]: its record path from the adapter and the
//! options, its programs, buffers and bind groups, and its colour
//! pipelines, one per [`PipelineKey`] (made when a frame first needs it).

use std::collections::HashMap;

use crate::base::error::RenderError;
use crate::base::options::{PathChoice, RecordPath, RendererOptions};
use crate::base::shader::program::Program;
use crate::impostor::ImpostorPipelines;
use crate::pose_cache::PoseCache;
use crate::program::bind_groups::{self, PACKAGE_BYTES};
use crate::program::pipeline::{ColorPipeline, PipelineKey};
use crate::shadow::Shadows;
use crate::shadow::map::Shadow;

use super::records::Records;
use super::{Renderer, supports_unbounded};
use crate::gpu_driven::{GpuDriven, supports_gpu_driven};

impl Renderer {
    /// A renderer drawing into targets of `color_format`.
    pub fn new(
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        color_format: wgpu::TextureFormat,
        options: RendererOptions,
    ) -> Result<Self, RenderError> {
        let path = choose_path(adapter, device, &options)?;
        check_targets(device, path, &options)?;
        let module = draw_module(device, path, &options)?;
        let packaged = path == RecordPath::Packaged;
        if options.cascades.is_some() && options.shadows.is_some() {
            return Err(RenderError::Unsupported(
                "both Throng's own shadow map and a caller's cascades: the crowd receives one (set `shadows` to None with `cascades`)".into(),
            ));
        }
        let receive = crate::shadow::cascades::receive_of(&options);
        let own = if receive == bind_groups::Receive::OwnMap {
            bind_groups::ShadowBindings::Receive
        } else {
            bind_groups::ShadowBindings::None
        };
        let records_layout = bind_groups::records(device, packaged, own);
        let pipeline_layout = bind_groups::pipeline_layout(device, Program::draw(path), receive);
        let (frame_buffer, mut frame_bind_group) =
            bind_groups::frame_binding(device, "throng frame uniforms");
        let cascades = options
            .cascades
            .map(|depth| crate::shadow::cascades::CascadeReceiver::new(device, depth));
        if let Some(c) = &cascades {
            frame_bind_group = c.frame_group(device, &frame_buffer, None);
        }
        let align = device.limits().min_uniform_buffer_offset_alignment as u64;
        let (options_pose_cache, skinning) = (options.pose_cache, options.skinning);
        let (options_samples, options_depth) = (options.sample_count, options.depth);
        let shadow = match options.shadows {
            Some(o) => Some(Shadow::new(device, packaged, o, options.skinning)?),
            None => None,
        };
        let mut renderer = Self {
            device: device.clone(),
            queue: queue.clone(),
            color_format,
            options,
            path,
            module,
            pipeline_layout,
            pipelines: HashMap::new(),
            frame_buffer,
            frame_bind_group,
            records: Records::new(records_layout, align),
            draw_lists: Vec::new(),
            items: Vec::new(),
            targets: None,
            timer: crate::device::pass_timer::PassTimer::new(device, queue),
            shadows: Shadows::new(shadow, cascades),
            gpu: (path == RecordPath::GpuDriven).then(|| GpuDriven::new(device)),
            occlusion: crate::occlusion::Occlusion::new(
                adapter,
                device,
                path,
                options_samples,
                options_depth,
            ),
            impostors: ImpostorPipelines::new(path),
            layers: super::layers::LayerDraws::new(device),
            // The static floor (no skinning) and the packaged path never
            // cache.
            poses: shared_poses(PoseCache::new(
                device,
                options_pose_cache.filter(|_| skinning),
                path != RecordPath::Packaged,
            )),
            loss: None,
            prepass: None,
        };
        renderer.check_custom_fragment()?;
        Ok(renderer)
    }

    /// With a custom fragment stage, builds the commonest pipeline now, so
    /// that an entry point that is missing or does not fit the layout is an
    /// error here rather than a panic in the first frame.
    fn check_custom_fragment(&mut self) -> Result<(), RenderError> {
        let Some(custom) = self.options.fragment.as_ref() else {
            return Ok(());
        };
        let what = format!(
            "creating a pipeline with the custom fragment entry point {:?} of {}",
            custom.entry, custom.file
        );
        let device = self.device.clone();
        crate::device::context::catch_device_errors(&device, &what, || {
            self.pipeline(PipelineKey {
                flat: false,
                double_sided: false,
                blend: false,
                cross_fade: false,
                palettes: false,
                pose_cache: false,
            });
        })
    }

    pub(super) fn pipeline(&mut self, key: PipelineKey) -> &wgpu::RenderPipeline {
        if !self.pipelines.contains_key(&key) {
            let pipeline = self.create_pipeline(key, self.options.sample_count);
            self.pipelines.insert(key, pipeline);
        }
        &self.pipelines[&key]
    }

    /// The colour pipeline for `key` at `samples` per pixel.
    fn create_pipeline(&self, key: PipelineKey, samples: u32) -> wgpu::RenderPipeline {
        let mut vertex_constants = vec![
            ("SKINNING", if self.options.skinning { 1.0 } else { 0.0 }),
            ("CROSS_FADE", if key.cross_fade { 1.0 } else { 0.0 }),
        ];
        // Only the storage records module has these.
        if key.palettes {
            vertex_constants.push(("PALETTES", 1.0));
        }
        ColorPipeline {
            label: "throng draw pipeline",
            layout: &self.pipeline_layout,
            module: &self.module,
            vertex_entry: "vs_main",
            vertex_constants: &vertex_constants,
            fragment_entry: match (&self.options.fragment, &self.shadows.map) {
                (Some(custom), _) => &custom.entry,
                (None, _) if self.shadows.cascades.is_some() => "fs_cascaded",
                (None, Some(_)) => "fs_shadowed",
                (None, None) => "fs_main",
            },
            format: self.color_format,
            samples,
            extra_targets: &self.options.extra_targets,
            instance_records: self.path != RecordPath::Packaged,
            depth_compare: self.options.depth.compare(),
        }
        .create(&self.device, key)
    }

    /// The pipeline keys of the planned mesh draws (impostors have their
    /// own pipeline).
    fn mesh_keys(&self) -> Vec<PipelineKey> {
        self.items
            .iter()
            .filter(|i| !i.impostor)
            .map(|i| i.key)
            .collect()
    }

    /// Creates the pipelines the planned draws need.
    pub(super) fn ensure_pipelines(&mut self) {
        let keys = self.mesh_keys();
        for key in keys {
            self.pipeline(key);
        }
        if self.items.iter().any(|i| i.impostor) {
            self.impostors.colour_pipeline(
                &self.device,
                self.color_format,
                self.options.sample_count,
                crate::shadow::cascades::receive_of(&self.options),
                self.options.depth.compare(),
            );
        }
        if let Some(sh) = &self.shadows.map
            && sh.items.iter().any(|i| i.impostor)
        {
            self.impostors.cast_pipeline(&self.device);
        }
    }

    /// Creates the pipelines the single-sampled early pass needs for the
    /// planned draws, where occlusion culling draws one
    /// (`occlusion/single_early.rs`).
    pub(super) fn ensure_single_early_pipelines(&mut self) {
        if self.single_early().is_none() {
            return;
        }
        let keys = self.mesh_keys();
        for key in keys {
            if !self
                .single_early()
                .is_some_and(|s| s.pipelines.contains_key(&key))
            {
                let pipeline = self.create_pipeline(key, 1);
                if let Some(s) = self.single_early_mut() {
                    s.pipelines.insert(key, pipeline);
                }
            }
        }
        let impostors = self.items.iter().any(|i| i.impostor);
        let receive = crate::shadow::cascades::receive_of(&self.options);
        let (compare, device, format) = (
            self.options.depth.compare(),
            self.device.clone(),
            self.color_format,
        );
        if let (true, Some(s)) = (impostors, self.single_early_mut()) {
            s.impostors
                .colour_pipeline(&device, format, 1, receive, compare);
        }
    }
}

/// The record path `options` ask for, where the adapter and device can
/// take it.
fn choose_path(
    adapter: &wgpu::Adapter,
    device: &wgpu::Device,
    options: &RendererOptions,
) -> Result<RecordPath, RenderError> {
    let unbounded_ok = supports_unbounded(adapter, device);
    let gpu_driven_ok = supports_gpu_driven(adapter, device);
    Ok(match options.path {
        PathChoice::Auto if gpu_driven_ok => RecordPath::GpuDriven,
        PathChoice::GpuDriven if gpu_driven_ok => RecordPath::GpuDriven,
        PathChoice::GpuDriven => {
            return Err(RenderError::Unsupported(format!(
                "the GPU-driven path needs compute shaders, indirect draws with a first instance and vertex-stage storage buffers; {} lacks one",
                crate::device::context::adapter_summary(adapter)
            )));
        }
        PathChoice::Auto if unbounded_ok => RecordPath::Unbounded,
        PathChoice::Auto | PathChoice::Packaged => RecordPath::Packaged,
        PathChoice::Unbounded if unbounded_ok => RecordPath::Unbounded,
        PathChoice::Unbounded => {
            return Err(RenderError::Unsupported(format!(
                "the unbounded record path needs vertex-stage storage buffers, which {} lacks",
                crate::device::context::adapter_summary(adapter)
            )));
        }
    })
}

/// The options' colour targets, samples and (on the packaged path)
/// package size, against what the device takes.
fn check_targets(
    device: &wgpu::Device,
    path: RecordPath,
    options: &RendererOptions,
) -> Result<(), RenderError> {
    if !options.extra_targets.is_empty() {
        let most = device.limits().max_color_attachments as usize;
        if options.fragment.is_none() {
            return Err(RenderError::Unsupported(
                "extra colour targets need a custom fragment stage to write them".into(),
            ));
        }
        if options.extra_targets.len() + 1 > most {
            return Err(RenderError::Unsupported(format!(
                "{} colour targets; the device takes at most {most}",
                options.extra_targets.len() + 1
            )));
        }
    }
    if !matches!(options.sample_count, 1 | 4) {
        return Err(RenderError::Unsupported(format!(
            "MSAA sample count {} (1 or 4)",
            options.sample_count
        )));
    }
    if path == RecordPath::Packaged
        && (device.limits().max_uniform_buffer_binding_size as usize) < PACKAGE_BYTES
    {
        return Err(RenderError::Unsupported(format!(
            "uniform bindings of {} bytes are too small for a package of {PACKAGE_BYTES}",
            device.limits().max_uniform_buffer_binding_size
        )));
    }
    Ok(())
}

/// The draw program's module for `path`: Throng's, or composed with the
/// caller's fragment stage (which must import `draw`), compiled with the
/// device's errors caught.
fn draw_module(
    device: &wgpu::Device,
    path: RecordPath,
    options: &RendererOptions,
) -> Result<wgpu::ShaderModule, RenderError> {
    let program = Program::draw(path);
    let Some(custom) = &options.fragment else {
        return Ok(device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(program.label()),
            source: wgpu::ShaderSource::Wgsl(program.source().into()),
        }));
    };
    let source = crate::base::shader::compose::compose(&custom.file, &custom.source, Some(path))?;
    if !source.contains("\n// ---- draw.wgsl\n") {
        return Err(RenderError::Shader(
            crate::base::shader::compose::ShaderError::MissingImport {
                file: custom.file.clone(),
                name: "draw".into(),
            },
        ));
    }
    crate::device::context::catch_device_errors(
        device,
        &format!("compiling the custom fragment shader {}", custom.file),
        || {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&custom.file),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        },
    )
}

/// A pose cache that renderers of other views may share
/// (`Renderer::share_pose_cache_with`).
// On wasm32 wgpu's objects are neither Send nor Sync: there the cache is
// shared on the page's one thread; natively the Arc is Send + Sync.
#[allow(clippy::arc_with_non_send_sync)]
fn shared_poses(cache: PoseCache) -> std::sync::Arc<std::sync::Mutex<PoseCache>> {
    std::sync::Arc::new(std::sync::Mutex::new(cache))
}
