//! The pose cache: skinning at the static floor.
//!
//! A crowd of a million instances shows at most a few thousand distinct
//! poses — the baked frames of its models — and skinned positions are
//! linear in the bone matrices. So each baked frame of a (model, LOD) is
//! skinned once, by a compute pass (`pose_fill.wgsl` beside this file, the draw
//! stage's own `skin()`), into a storage buffer of cached vertices
//! ([`throng_core::pose_cache`]: 16 bytes each), and the vertex stage of
//! every instance reads two cached poses (four while cross-fading) and
//! blends them with its record's weights (`pose_cache.wgsl`) instead
//! of loading 4 bones × 3 texels × 2 frames and blending matrices. The
//! picture equals per-vertex skinning's up to float rounding in positions
//! and the normal code's precision (docs/design/pose-cache.md).
//!
//! **Fill once, at first use.** A model's caches are filled the first time
//! the renderer meets it (a run-time vertex-animation texture): every frame
//! of every cached mesh LOD, one dispatch each, in one submission that the
//! renderer waits for. Filling only the poses a frame's visible instances
//! need would trade that one-time cost for a per-frame pass and a
//! per-frame "which frames are needed" reduction; at the bundled models'
//! sizes (Fox: 15.2 MiB in all LODs, filled in milliseconds;
//! docs/BENCHMARKS.md, "The pose cache") the
//! whole fill is cheaper than one frame of the crowd it serves.
//!
//! **The budget.** [`PoseCacheOptions::budget`] bounds the bytes of all
//! caches together. A model's mesh LODs are taken coarsest first — they
//! cost the fewest bytes and, in a large crowd, serve most instances — until
//! the next does not fit; a LOD larger than the device's storage-binding
//! limit is never cached. Caches of models not drawn in the current frame
//! are dropped when a new model needs their room (until then a model no
//! longer drawn keeps its cache, within the budget). A (model, LOD) left out is
//! drawn by per-vertex skinning, counted in
//! [`FrameStats::pose_fallback_draws`](crate::FrameStats::pose_fallback_draws).
//!
//! A LOD whose vertices carry tangents (normal-mapped materials) is not
//! cached either: a cached vertex holds no tangent.
//!
//! Only the storage record paths read the cache; the packaged
//! (downlevel) path has no storage buffers in the vertex stage. Instances
//! with animation layers keep the palette pre-pass (their pose is not a
//! blend of baked frames) and impostors their atlas.

use std::collections::HashMap;
use web_time::Instant;

use glam::Vec3;
use throng_core::gpu::PoseCacheParams;
use throng_core::pose_cache::{POSE_VERTEX_BYTES, decode_vertex, lod_bytes};
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::base::options::PoseCacheOptions;
use crate::base::shader::program::Program;
use crate::device::buffers::WORKGROUP;
use crate::device::offscreen::map_read;
use crate::model::gpu_model::GpuModel;
use crate::program::bind_groups;
use crate::program::bind_groups::entries::bind_group;

/// One (model, LOD) as the storage paths' draw and shadow programs bind it.
struct LodPoses {
    /// Group 1 ([`bind_groups::pose_model_entries`]).
    group: wgpu::BindGroup,
    /// The cache, if this LOD is cached.
    cache: Option<wgpu::Buffer>,
}

/// One model's LODs.
struct ModelPoses {
    /// The vertex buffers the caches were filled from: a model re-uploaded
    /// under the same key is filled anew.
    sources: Vec<wgpu::Buffer>,
    lods: Vec<LodPoses>,
    bytes: u64,
    poses: u64,
}

/// The pose caches of the models a renderer draws, and the per-(model,
/// LOD) group-1 bind groups of the storage paths (a one-vertex stand-in
/// where a LOD is not cached). See the module docs.
pub struct PoseCache {
    options: Option<PoseCacheOptions>,
    /// Group 1's layout and stand-ins: storage paths only (a WebGL2-class
    /// device, packaged, has no storage buffers to make them with).
    bindings: Option<Bindings>,
    fill: Option<(wgpu::ComputePipeline, wgpu::BindGroupLayout)>,
    models: HashMap<u64, ModelPoses>,
    binding_limit: u64,
    last_fill_ms: f64,
}

/// Group 1 of the storage paths and the one-vertex stand-in bound where a
/// LOD is not cached.
#[derive(Clone)]
struct Bindings {
    layout: wgpu::BindGroupLayout,
    stand_in: wgpu::Buffer,
    stand_in_params: wgpu::Buffer,
}

impl PoseCache {
    /// An empty cache; `None` caches nothing (every LOD gets the
    /// stand-in). `storage`: the renderer draws on a storage path, which
    /// binds group 1 from here; the packaged path does not, and makes no
    /// storage objects.
    pub fn new(device: &wgpu::Device, options: Option<PoseCacheOptions>, storage: bool) -> Self {
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let stand_in_params = PoseCacheParams {
            vertex_count: 1,
            frame_count: 1,
            pad: [0; 2],
        };
        let bindings = storage.then(|| Bindings {
            layout: bind_groups::pose_model(device),
            stand_in: init(
                "throng pose cache stand-in",
                &[0u8; POSE_VERTEX_BYTES as usize],
                wgpu::BufferUsages::STORAGE,
            ),
            stand_in_params: init(
                "throng pose cache stand-in params",
                bytemuck::bytes_of(&stand_in_params),
                wgpu::BufferUsages::UNIFORM,
            ),
        });
        Self {
            options: options.filter(|_| storage),
            bindings,
            fill: None,
            models: HashMap::new(),
            binding_limit: crate::device::buffers::storage_binding_limit(device),
            last_fill_ms: 0.0,
        }
    }

    /// Makes sure every model of `models` has its bind groups, filling the
    /// caches of those met for the first time (within the budget) and
    /// waiting for the fill. Returns the milliseconds spent filling (0 when
    /// nothing was new).
    pub fn ensure(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        models: &[&GpuModel],
    ) -> Result<f64, RenderError> {
        let mut fresh: Vec<&GpuModel> = models
            .iter()
            .copied()
            .filter(|m| !self.is_current(m))
            .collect();
        fresh.sort_by_key(|m| m.key());
        fresh.dedup_by_key(|m| m.key());
        if fresh.is_empty() {
            return Ok(0.0);
        }
        // The packaged path binds nothing from here.
        let Some(bindings) = self.bindings.clone() else {
            return Ok(0.0);
        };
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng pose-cache fill"),
        });
        for model in fresh {
            self.models.remove(&model.key());
            let chosen = self.choose(model, models);
            let entry = crate::device::context::catch_device_errors(
                device,
                &format!("filling the pose cache of model {:?}", model.name()),
                || self.build(device, &mut encoder, model, &chosen, &bindings),
            )?;
            self.models.insert(model.key(), entry);
        }
        queue.submit([encoder.finish()]);
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        self.last_fill_ms = start.elapsed().as_secs_f64() * 1e3;
        Ok(self.last_fill_ms)
    }

    /// What it was made for: its options (`None`: it caches nothing) and
    /// whether it binds for a storage path. Two renderers can share a
    /// cache made alike.
    pub(crate) fn setup(&self) -> (Option<crate::base::options::PoseCacheOptions>, bool) {
        (self.options, self.bindings.is_some())
    }

    /// Milliseconds the latest fill took (0 before any).
    pub fn last_fill_ms(&self) -> f64 {
        self.last_fill_ms
    }

    /// True if `model` has an entry built from its current buffers.
    fn is_current(&self, model: &GpuModel) -> bool {
        self.models.get(&model.key()).is_some_and(|e| {
            e.sources.len() == model.lods.len()
                && e.sources
                    .iter()
                    .zip(&model.lods)
                    .all(|(a, l)| *a == l.vertex_buffer)
        })
    }

    /// The LODs of `model` to cache: mesh LODs within the device's binding
    /// limit, coarsest first while they fit the budget left, after dropping
    /// the caches of models not in `drawn` if that makes room.
    fn choose(&mut self, model: &GpuModel, drawn: &[&GpuModel]) -> Vec<bool> {
        let mut chosen = vec![false; model.lods.len()];
        let Some(options) = self.options else {
            return chosen;
        };
        let sizes: Vec<Option<u64>> = (0..model.lods.len())
            .map(|l| {
                let lod = &model.lods[l];
                lod_bytes(lod.vertex_count, model.frame_count).filter(|&b| {
                    model.impostor_at(l).is_none()
                        && !lod.has_tangents
                        && b > 0
                        && b <= self.binding_limit
                })
            })
            .collect();
        let wanted: u64 = sizes.iter().flatten().sum();
        if self.bytes() + wanted > options.budget {
            self.models
                .retain(|key, _| drawn.iter().any(|m| m.key() == *key));
        }
        let mut left = options.budget.saturating_sub(self.bytes());
        for l in (0..model.lods.len()).rev() {
            match sizes[l] {
                Some(b) if b <= left => {
                    chosen[l] = true;
                    left -= b;
                }
                Some(_) => break,
                None => {}
            }
        }
        chosen
    }

    /// Allocates the chosen LODs' caches, records their fill into
    /// `encoder`, and makes every LOD's group.
    fn build(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        model: &GpuModel,
        chosen: &[bool],
        bindings: &Bindings,
    ) -> ModelPoses {
        let name = model.name();
        let mut entry = ModelPoses {
            sources: model.lods.iter().map(|l| l.vertex_buffer.clone()).collect(),
            lods: Vec::with_capacity(model.lods.len()),
            bytes: 0,
            poses: 0,
        };
        for (l, (lod, &cached)) in model.lods.iter().zip(chosen).enumerate() {
            let cache = cached.then(|| {
                let size = lod_bytes(lod.vertex_count, model.frame_count).unwrap_or(0);
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("{name} LOD {l} pose cache")),
                    size,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let params = PoseCacheParams {
                    vertex_count: lod.vertex_count,
                    frame_count: model.frame_count,
                    pad: [0; 2],
                };
                // One uniform for the fill and the draws: the same numbers.
                let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(&format!("{name} LOD {l} pose cache params")),
                    contents: bytemuck::bytes_of(&params),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                self.record_fill(device, encoder, model, l, &buffer, &params);
                entry.bytes += size;
                entry.poses += model.frame_count as u64;
                (buffer, params)
            });
            let (cache, params_buffer) = cache.unzip();
            let group = bind_group(
                device,
                &format!("{name} LOD {l} model + pose cache"),
                &bindings.layout,
                &[
                    (0, wgpu::BindingResource::TextureView(&model.bone_view)),
                    (1, model.params_buffer.as_entire_binding()),
                    (
                        crate::program::bind_groups::MORPH_TEXTURE_BINDING,
                        wgpu::BindingResource::TextureView(&model.morph_view),
                    ),
                    (
                        2,
                        cache
                            .as_ref()
                            .unwrap_or(&bindings.stand_in)
                            .as_entire_binding(),
                    ),
                    (
                        3,
                        params_buffer
                            .as_ref()
                            .unwrap_or(&bindings.stand_in_params)
                            .as_entire_binding(),
                    ),
                ],
            );
            entry.lods.push(LodPoses { group, cache });
        }
        entry
    }

    /// Records the fill of LOD `lod` of `model` into `cache`, whose
    /// `PoseCacheParams` uniform is `params`.
    fn record_fill(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        model: &GpuModel,
        lod: usize,
        cache: &wgpu::Buffer,
        params: &wgpu::Buffer,
    ) {
        let (pipeline, layout) = self.fill.get_or_insert_with(|| fill_pipeline(device));
        let gl = &model.lods[lod];
        let io = bind_group(
            device,
            "throng pose fill io",
            layout,
            &[
                (0, gl.vertex_buffer.as_entire_binding()),
                (1, cache.as_entire_binding()),
                (2, params.as_entire_binding()),
            ],
        );
        let invocations = gl.vertex_count as u64 * model.frame_count as u64;
        let (x, y) = fill_grid(
            invocations,
            device.limits().max_compute_workgroups_per_dimension,
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng pose fill"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &io, &[]);
        pass.set_bind_group(1, &model.bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Group 1 of the storage paths' programs for LOD `lod` of `model`,
    /// and whether that LOD is cached. `None` if [`Self::ensure`] has not
    /// seen the model.
    pub fn group(&self, model: &GpuModel, lod: usize) -> Option<(&wgpu::BindGroup, bool)> {
        let entry = self.models.get(&model.key())?;
        let lod = entry
            .lods
            .get(lod.min(entry.lods.len().saturating_sub(1)))?;
        Some((&lod.group, lod.cache.is_some()))
    }

    /// True if the cache is on (whatever fits in it).
    pub fn enabled(&self) -> bool {
        self.options.is_some()
    }

    /// Bytes held by all caches.
    pub fn bytes(&self) -> u64 {
        self.models.values().map(|m| m.bytes).sum()
    }

    /// Poses held: one per baked frame of each cached (model, LOD).
    pub fn poses(&self) -> u64 {
        self.models.values().map(|m| m.poses).sum()
    }

    /// Reads back the cached poses of LOD `lod` of `model`, decoded: pose
    /// `f`'s vertex `v` (position, unit normal, model space) at
    /// `f * vertex_count + v`. `None` if that LOD is not cached. For tests
    /// and tools; waits for the GPU.
    pub fn read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        lod: usize,
    ) -> Result<Option<Vec<(Vec3, Vec3)>>, RenderError> {
        let Some(cache) = self
            .models
            .get(&model.key())
            .and_then(|e| e.lods.get(lod))
            .and_then(|l| l.cache.as_ref())
        else {
            return Ok(None);
        };
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng pose cache readback"),
            size: cache.size(),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(cache, 0, &readback, 0, cache.size());
        queue.submit([encoder.finish()]);
        let bytes = map_read(device, &readback)?;
        let words: Vec<[u32; 4]> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(Some(words.into_iter().map(decode_vertex).collect()))
    }
}

/// The fill's compute pipeline and its group-0 layout.
fn fill_pipeline(device: &wgpu::Device) -> (wgpu::ComputePipeline, wgpu::BindGroupLayout) {
    let program = Program::PoseFill;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(program.label()),
        source: wgpu::ShaderSource::Wgsl(program.source().into()),
    });
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng pose fill group 0"),
        entries: &bind_groups::pose_fill_entries(),
    });
    let pipeline_layout = bind_groups::pipeline_layout(device, program, bind_groups::Receive::None);
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(program.label()),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some("fill_poses"),
        compilation_options: Default::default(),
        cache: None,
    });
    (pipeline, layout)
}

/// Workgroups `(x, y)` covering `invocations` fill invocations with `x` at
/// most `max_per_dimension` (the shader's linear index is
/// `id.x + id.y * x * 64`).
fn fill_grid(invocations: u64, max_per_dimension: u32) -> (u32, u32) {
    let groups = invocations.div_ceil(WORKGROUP as u64).max(1);
    let x = groups.min(max_per_dimension.max(1) as u64);
    (x as u32, groups.div_ceil(x) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fill_grid_covers_every_invocation_within_the_limits() {
        for (n, max) in [
            (1u64, 65535u32),
            (64, 65535),
            (65, 65535),
            (10_000_000, 65535),
            (1000, 3),
        ] {
            let (x, y) = fill_grid(n, max);
            assert!(x <= max, "{n} {max}: x {x}");
            let covered = x as u64 * y as u64 * WORKGROUP as u64;
            assert!(covered >= n, "{n} {max}: {x}×{y} covers {covered}");
            assert!(
                covered - n < x as u64 * WORKGROUP as u64,
                "{n} {max}: one row too many"
            );
        }
    }
}
