//! # throng-examples
//!
//! The user's side of Throng's embedding examples: what an application with
//! a wgpu renderer of its own writes to draw a Throng crowd inside its own
//! render pass. The application owns the targets (colour, depth, MSAA), the
//! camera and a ground mesh with its own pipeline; Throng records its
//! shadow pass into the application's encoder and its crowd draws into the
//! application's pass ([`Scene::render`]). The windowed examples
//! (`embed.rs`, `custom_shading.rs`) and the headless test
//! (`tests/app/embedding.rs`) all draw through [`Scene::render`].

pub mod flock;
pub mod plaza;
mod recorded;
pub mod terrain;
#[cfg(feature = "window")]
pub mod window;

use anyhow::{Context, Result};
use glam::{Mat4, Vec3};
use throng::crowd::camera::Camera;
use throng::crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng::render::DEPTH_FORMAT;
use throng::render::{
    CustomFragment, FrameStats, GpuModel, PassPipeline, Renderer, RendererOptions,
};

/// The application's clear colour (linear RGB).
pub const SKY: wgpu::Color = wgpu::Color {
    r: 0.45,
    g: 0.55,
    b: 0.68,
    a: 1.0,
};

/// MSAA samples of the application's targets (and so of Throng's pipelines).
pub const SAMPLES: u32 = 4;

#[cfg(feature = "bake")]
/// Bakes the bundled Fox (a second or so in release): no `.throng` file to
/// keep in step with the format, and the bake checks itself.
pub fn bake_fox() -> Result<ModelHandle> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/khronos_Fox.glb");
    let (model, _) = throng::bake::bake_file(&path, &Default::default(), &|_, _| {})
        .with_context(|| format!("baking {}", path.display()))?;
    Ok(ModelHandle::new(model)?)
}

/// `side × side` instances on a grid, each on its own clip and phase.
pub fn fox_grid(handle: &ModelHandle, side: u32) -> Result<Crowd> {
    let mut crowd = Crowd::new();
    let id = crowd.add_model(handle);
    let m = handle.model();
    let step = (m.bounds.max - m.bounds.min).max_element() * 0.8;
    for i in 0..side * side {
        let (x, z) = ((i % side) as f32, (i / side) as f32);
        let at = (Vec3::new(x, 0.0, z) - (side - 1) as f32 * 0.5 * Vec3::new(1.0, 0.0, 1.0)) * step;
        let clip = i as usize % m.clips.len();
        let time = m.clips[clip].duration * (i as f32 * 0.37).fract();
        let spawn = Spawn {
            transform: Mat4::from_translation(at),
            clip: Some(clip),
            time,
            ..Default::default()
        };
        crowd.spawn(id, spawn)?;
    }
    Ok(crowd)
}

/// The half side and checker cell of the ground under [`fox_grid`]`(handle, side)`.
pub fn ground_size(handle: &ModelHandle, side: u32) -> (f32, f32) {
    let b = handle.model().bounds;
    let cell = (b.max - b.min).max_element();
    (cell * side as f32 * 4.0, cell)
}

/// The application's own camera: it orbits a target point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at.
    pub target: Vec3,
    /// Distance from the target.
    pub distance: f32,
    /// Angle about +Y, radians.
    pub yaw: f32,
    /// Angle above the horizon, radians.
    pub pitch: f32,
}

impl OrbitCamera {
    /// The camera as Throng takes it (for culling, LOD and projection).
    pub fn camera(&self, aspect: f32) -> Camera {
        let (s, c) = self.yaw.sin_cos();
        let dir = Vec3::new(s * self.pitch.cos(), self.pitch.sin(), c * self.pitch.cos());
        let eye = self.target + dir * self.distance;
        let near = self.distance * 0.01;
        Camera::look_at(
            eye,
            self.target,
            Vec3::Y,
            0.7,
            aspect,
            near,
            self.distance * 10.0,
        )
    }
}

/// The application's ground: a square mesh with its own pipeline, checkered
/// and darkened by the crowd's shadow map (through Throng's
/// `shadow_filter` WGSL and [`Renderer::shadow_receiver`]).
pub struct Ground {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    cell: f32,
}

impl Ground {
    /// A ground of half side `half` at height 0, checkered in cells of
    /// `cell`, for passes of `format` and [`SAMPLES`] samples with a depth
    /// buffer of Throng's [`DEPTH_FORMAT`]. `renderer` must have shadows on.
    pub fn new(
        device: &wgpu::Device,
        renderer: &Renderer,
        format: wgpu::TextureFormat,
        half: f32,
        cell: f32,
    ) -> Result<Self> {
        let shadows = renderer
            .shadow_receiver()
            .context("the ground needs the crowd's shadows")?;
        let source = throng::render::shader::compose("ground.wgsl", GROUND_WGSL, None)?;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ground"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let corners = [
            [-half, 0.0, -half],
            [-half, 0.0, half],
            [half, 0.0, -half],
            [half, 0.0, half],
        ];
        let vertices = buffer(
            device,
            bytemuck::cast_slice(&corners),
            wgpu::BufferUsages::VERTEX,
        );
        let uniforms = buffer(
            device,
            &[0; 80],
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ground"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ground"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniforms.as_entire_binding(),
            }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ground"),
            bind_group_layouts: &[Some(&layout), Some(shadows.layout)],
            immediate_size: 0,
        });
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: 12,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3],
        })];
        let pipeline = PassPipeline {
            vertex_entry: "vs_ground",
            fragment_entry: "fs_ground",
            buffers: &buffers,
            topology: wgpu::PrimitiveTopology::TriangleStrip,
            ..PassPipeline::opaque("ground", &layout, &module, format, SAMPLES)
        }
        .create(device);
        Ok(Self {
            pipeline,
            vertices,
            uniforms,
            bind_group,
            cell,
        })
    }

    /// Uploads the frame's camera.
    pub fn prepare(&self, queue: &wgpu::Queue, camera: &Camera) {
        let mut uniforms = camera.clip_from_world().to_cols_array().to_vec();
        uniforms.extend([self.cell, 0.0, 0.0, 0.0]);
        queue.write_buffer(&self.uniforms, 0, bytemuck::cast_slice(&uniforms));
    }

    /// Draws the ground into `pass`, with the crowd's shadows of `renderer`.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, renderer: &Renderer) {
        let Some(shadows) = renderer.shadow_receiver() else {
            return;
        };
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_bind_group(1, shadows.bind_group, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..4, 0..1);
    }
}

/// `handle` uploaded to `gpu` through `frames`.
fn upload(
    gpu: AppGpu,
    handle: &ModelHandle,
    frames: &throng::render::SharedFrames,
) -> Result<GpuModel, throng::render::RenderError> {
    let textures = throng::render::TextureUpload::Auto;
    GpuModel::upload_sharing(gpu.device, gpu.queue, handle, textures, frames)
}

/// The ground's WGSL: it imports Throng's `shadow_receiver` module.
const GROUND_WGSL: &str = include_str!("ground.wgsl");

fn buffer(device: &wgpu::Device, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents,
        usage,
    })
}

/// The application's depth buffer and MSAA colour target, of one size.
struct Targets {
    size: (u32, u32),
    depth: wgpu::TextureView,
    msaa: wgpu::TextureView,
}

impl Targets {
    fn new(device: &wgpu::Device, format: wgpu::TextureFormat, size: (u32, u32)) -> Self {
        let make = |format| {
            let size = wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            };
            let usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
            let desc = wgpu::TextureDescriptor {
                label: None,
                size,
                mip_level_count: 1,
                sample_count: SAMPLES,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            };
            device
                .create_texture(&desc)
                .create_view(&Default::default())
        };
        Self {
            size,
            depth: make(DEPTH_FORMAT),
            msaa: make(format),
        }
    }
}

/// The options of a scene steered on the GPU: its simulated instances exist
/// only there, so the GPU-driven path, with the application's sample count.
fn gpu_driven_options() -> RendererOptions {
    RendererOptions {
        sample_count: SAMPLES,
        path: throng::render::PathChoice::GpuDriven,
        ..Default::default()
    }
}

/// Everything the application draws: its ground and camera, and Throng's
/// renderer, model and crowd.
pub struct Scene {
    /// Throng's renderer.
    pub renderer: Renderer,
    /// The crowd (advance it with `crowd.update(dt)`).
    pub crowd: Crowd,
    /// The application's camera.
    pub camera: OrbitCamera,
    /// Draw the ground (the headless test also compares without it).
    pub show_ground: bool,
    /// The crowd's models (bone textures shared where frames are equal).
    models: Vec<GpuModel>,
    ground: Ground,
    format: wgpu::TextureFormat,
    targets: Option<Targets>,
    /// Obstacles drawn as cylinders (the plaza's; none elsewhere).
    pillars: Option<throng_demo::pillars::Pillars>,
    /// Real ground drawn in place of the flat one ([`Self::set_terrain`]).
    terrain: Option<terrain::Terrain>,
    /// The store every model's bone texture is uploaded through, so that
    /// a model added later ([`Self::add_model`]) shares frames too.
    frames: throng::render::SharedFrames,
}

/// The application's GPU, as it made it for its window: the adapter, the
/// device and its queue.
#[derive(Clone, Copy)]
pub struct AppGpu<'a> {
    /// The adapter.
    pub adapter: &'a wgpu::Adapter,
    /// The device.
    pub device: &'a wgpu::Device,
    /// Its queue.
    pub queue: &'a wgpu::Queue,
}

impl Scene {
    /// A `side × side` grid of `handle` on a ground, drawn into targets of
    /// `format` with Throng's shading or the `fragment` given.
    pub fn new(
        gpu: AppGpu,
        format: wgpu::TextureFormat,
        handle: &ModelHandle,
        side: u32,
        fragment: Option<CustomFragment>,
    ) -> Result<Self> {
        // Throng's pipelines must match the application's pass: its colour
        // format (given to Renderer::new) and sample count.
        let options = RendererOptions {
            sample_count: SAMPLES,
            fragment,
            ..Default::default()
        };
        let crowd = fox_grid(handle, side)?;
        let (half, cell) = ground_size(handle, side);
        Self::with_crowd(gpu, format, handle, crowd, half, cell, options)
    }

    /// A flock of `agents` Foxes steered on the GPU by `flock.wgsl`
    /// ([`flock`]), drawn like [`Self::new`]'s grid.
    pub fn flock(
        gpu: AppGpu,
        format: wgpu::TextureFormat,
        handle: &ModelHandle,
        agents: u32,
    ) -> Result<Self> {
        let flock::Flock { crowd, params, .. } = flock::flock_crowd(handle, agents)?;
        let cell = params.reach / 1.5;
        let half = params.world_radius * 1.4;
        let mut scene =
            Self::with_crowd(gpu, format, handle, crowd, half, cell, gpu_driven_options())?;
        scene.camera.distance = params.world_radius * 0.5 + 8.0 * cell;
        scene.camera.pitch = 0.35;
        let simulation = flock::flock_simulation(gpu.device, &params)?;
        scene.renderer.set_simulation(0, Some(simulation))?;
        Ok(scene)
    }

    /// A plaza of `agents` Foxes walking between goals around pillars and
    /// a fountain, steered on the GPU by Throng's built-in hook
    /// ([`plaza`]), drawn like [`Self::new`]'s grid.
    pub fn plaza(
        gpu: AppGpu,
        format: wgpu::TextureFormat,
        handle: &ModelHandle,
        agents: u32,
    ) -> Result<Self> {
        let (crowd, steered) = plaza::plaza_crowd(handle, agents)?;
        let simulation = plaza::plaza_simulation(gpu.device, &crowd, &steered)?;
        let cell = steered.plaza.agent_radius * 2.5;
        let half = steered.plaza.half * 1.3;
        let mut scene =
            Self::with_crowd(gpu, format, handle, crowd, half, cell, gpu_driven_options())?;
        scene.camera.distance = steered.plaza.half * 1.8;
        scene.camera.pitch = 0.6;
        scene.renderer.set_simulation(0, Some(simulation))?;
        scene.set_pillars(gpu.device, gpu.queue, &steered.plaza.pillars);
        Ok(scene)
    }

    /// Any `crowd` of `handle`, drawn like [`Self::new`]'s grid with
    /// `options` over a ground of half side `half` and checker `cell`.
    #[allow(clippy::too_many_arguments)]
    pub fn with_crowd(
        gpu: AppGpu,
        format: wgpu::TextureFormat,
        handle: &ModelHandle,
        crowd: Crowd,
        half: f32,
        cell: f32,
        options: RendererOptions,
    ) -> Result<Self> {
        let handles = std::slice::from_ref(handle);
        Self::with_mixed_crowd(gpu, format, handles, crowd, half, cell, options)
    }

    /// [`Self::with_crowd`] of a crowd of several models (`handles`, the
    /// first framed), uploaded with one [`throng::render::SharedFrames`] so
    /// that bodies of equal frames bind one bone texture.
    #[allow(clippy::too_many_arguments)]
    pub fn with_mixed_crowd(
        gpu: AppGpu,
        format: wgpu::TextureFormat,
        handles: &[ModelHandle],
        crowd: Crowd,
        half: f32,
        cell: f32,
        options: RendererOptions,
    ) -> Result<Self> {
        let AppGpu {
            adapter,
            device,
            queue,
        } = gpu;
        let first = handles.first();
        let renderer = Renderer::new(adapter, device, queue, format, options)?;
        let frames = throng::render::SharedFrames::new();
        let models = handles
            .iter()
            .map(|h| upload(gpu, h, &frames))
            .collect::<Result<Vec<_>, _>>()?;
        let ground = Ground::new(device, &renderer, format, half, cell)?;
        let target = Vec3::new(0.0, first.map_or(0.0, |h| h.model().bounds.center().y), 0.0);
        let camera = OrbitCamera {
            target,
            distance: half * 0.36,
            yaw: 0.5,
            pitch: 0.55,
        };
        Ok(Self {
            renderer,
            crowd,
            camera,
            show_ground: true,
            models,
            ground,
            format,
            targets: None,
            pillars: None,
            terrain: None,
            frames,
        })
    }

    /// Replaces the checkered ground with one of half side `half` about
    /// the origin and checker `cell`.
    pub fn set_ground(&mut self, device: &wgpu::Device, half: f32, cell: f32) -> Result<()> {
        self.ground = Ground::new(device, &self.renderer, self.format, half, cell)?;
        Ok(())
    }

    /// Uploads `handle` as the scene's next GPU model (its frames shared
    /// with the models before it where equal): the crowd's model added
    /// after the scene was made must be given here too, in the crowd's
    /// order.
    pub fn add_model(&mut self, gpu: AppGpu, handle: &ModelHandle) -> Result<()> {
        let model = upload(gpu, handle, &self.frames)?;
        self.models.push(model);
        Ok(())
    }

    /// The camera of a frame of `size`.
    pub fn frame_camera(&self, size: (u32, u32)) -> Camera {
        self.camera.camera(size.0 as f32 / size.1.max(1) as f32)
    }

    /// The (first) GPU model.
    pub fn model(&self) -> &GpuModel {
        &self.models[0]
    }

    /// Every GPU model of the crowd.
    pub fn models(&self) -> &[GpuModel] {
        &self.models
    }

    /// Draws `pillars` (centre x, centre z, radius, height; none: nothing)
    /// in the application's pass: a plaza's obstacles.
    pub fn set_pillars(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pillars: &[throng_demo::pillars::Pillar],
    ) {
        let p = self.pillars.get_or_insert_with(|| {
            throng_demo::pillars::Pillars::new(device, self.format, SAMPLES)
        });
        p.set(device, queue, pillars);
    }

    /// Draws a frame into `view` (of `size`, the format given to
    /// [`Self::new`]) and submits it: Throng prepares its records and
    /// records its shadow pass; the application begins its own pass over
    /// its own targets, draws its ground and asks Throng to draw the crowd.
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view: &wgpu::TextureView,
        size: (u32, u32),
    ) -> Result<FrameStats> {
        if self.targets.as_ref().is_none_or(|t| t.size != size) {
            self.targets = Some(Targets::new(device, self.format, size));
        }
        let camera = self.frame_camera(size);
        let models: Vec<&GpuModel> = self.models.iter().collect();
        let stats = self
            .renderer
            .prepare_draws(&camera, &[&self.crowd], &models)?;
        self.prepare_scenery(queue, &camera);
        let mut encoder = device.create_command_encoder(&Default::default());
        self.renderer.encode_shadows(&mut encoder);
        let targets = self.targets.as_ref().expect("made above");
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("application pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &targets.msaa,
                depth_slice: None,
                resolve_target: Some(view),
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(SKY),
                    store: wgpu::StoreOp::Discard,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &targets.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        self.draw_scenery(&mut pass, &self.renderer);
        self.renderer.draw(&mut pass);
        drop(pass);
        queue.submit([encoder.finish()]);
        Ok(stats)
    }

    /// Uploads the ground (or terrain) and pillars' uniforms for `camera`.
    fn prepare_scenery(&self, queue: &wgpu::Queue, camera: &Camera) {
        self.ground.prepare(queue, camera);
        if let Some(t) = &self.terrain {
            t.prepare(queue, self, camera);
        }
        if let Some(p) = &self.pillars {
            let lighting = &self.renderer.options().lighting;
            p.prepare(queue, &camera.clip_from_world(), lighting);
        }
    }

    /// Draws the ground (or terrain, when shown) and the pillars into
    /// `pass`, lit by `renderer`'s lights.
    fn draw_scenery(&self, pass: &mut wgpu::RenderPass<'_>, renderer: &Renderer) {
        match (&self.terrain, self.show_ground) {
            (Some(t), true) => t.draw(pass, renderer),
            (None, true) => self.ground.draw(pass, renderer),
            _ => {}
        }
        if let Some(p) = &self.pillars {
            p.draw(pass);
        }
    }

    /// Waits for the GPU and makes `stats` (of the frame last rendered)
    /// exact: on the GPU-driven path the counts of what was drawn come back
    /// a frame or two late, which an interactive loop does not wait for.
    pub fn wait_stats(&mut self, stats: &mut FrameStats) -> Result<()> {
        Ok(self.renderer.wait_gpu_stats(stats)?)
    }
}
