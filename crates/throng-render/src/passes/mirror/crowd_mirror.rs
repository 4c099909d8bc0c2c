//! [`CrowdMirror`]: a crowd's instances and tables on the GPU, synced from
//! the crowd's change log.

use throng_core::gpu::{
    GpuInstance, GpuMotion, GpuTransform, MirrorParams, MotionUpdate, StateUpdate, TransformUpdate,
};
use throng_crowd::crowd::{Change, ChangeCursor, Changes, Crowd, GpuTables};
use wgpu::util::StagingBelt;

use crate::base::error::RenderError;
use crate::device::buffers::{Grown, STORAGE, WORKGROUP, dispatch_size, make};
use crate::passes::mirror::changes::{Slots, SyncStats, Upload};
use crate::passes::mirror::pipelines::MirrorPipelines;
use crate::passes::mirror::previous::{KeptFrame, PreviousFrame};
use crate::program::bind_groups::entries::bind_group;

/// Bytes of each staging belt chunk: changes of a frame share chunks of
/// this size (a larger write gets a chunk of its own size, reused later).
const BELT_CHUNK: u64 = 1 << 20;

/// A crowd's instances and tables on the GPU: each instance's state
/// ([`GpuInstance`]) and transform ([`GpuTransform`]) in two streams, so a
/// moved instance uploads its 48-byte transform alone.
pub struct CrowdMirror {
    cursor: ChangeCursor,
    states: Grown,
    transforms: Grown,
    models: Grown,
    clips: Grown,
    lod_sizes: Grown,
    state_updates: Grown,
    transform_updates: Grown,
    motions: Grown,
    motion_updates: Grown,
    points: Grown,
    root_keys: Grown,
    /// The crowd key and generation of the path and root-key tables
    /// uploaded.
    motion_tables: Option<(u64, u64)>,
    motion_params: wgpu::Buffer,
    params: wgpu::Buffer,
    tables: GpuTables,
    /// Keys of the models the tables were built for: another crowd, or
    /// the same number of other models, rebuilds them.
    model_keys: Vec<u64>,
    len: u32,
    state_slots: Slots,
    transform_slots: Slots,
    motion_slots: Slots,
    /// The crowd had motions at the last sync (the motion pass runs).
    moving: bool,
    /// Staging for changes: mapped buffers reused frame after frame.
    belt: StagingBelt,
    /// The frame before, once a motion-vector prepass asked for it.
    previous: Option<KeptFrame>,
}

impl CrowdMirror {
    /// An empty mirror; the first [`Self::sync`] uploads everything.
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            cursor: ChangeCursor::default(),
            // COPY_SRC: states and positions are read back from them
            // (crate::passes::readback, tests).
            states: Grown::new(
                device,
                "throng instance states",
                STORAGE | wgpu::BufferUsages::COPY_SRC,
            ),
            transforms: Grown::new(
                device,
                "throng instance transforms",
                STORAGE | wgpu::BufferUsages::COPY_SRC,
            ),
            models: Grown::new(device, "throng cull models", STORAGE),
            clips: Grown::new(device, "throng cull clips", STORAGE),
            lod_sizes: Grown::new(device, "throng cull LOD sizes", STORAGE),
            state_updates: Grown::new(device, "throng instance state updates", STORAGE),
            transform_updates: Grown::new(device, "throng instance transform updates", STORAGE),
            motions: Grown::new(device, "throng instance motions", STORAGE),
            motion_updates: Grown::new(device, "throng instance motion updates", STORAGE),
            points: Grown::new(device, "throng path points", STORAGE),
            root_keys: Grown::new(device, "throng root-motion keys", STORAGE),
            motion_tables: None,
            motion_params: crate::passes::motion::MotionPass::params_buffer(device),
            params: make(
                device,
                "throng mirror params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                std::mem::size_of::<MirrorParams>() as u64,
            ),
            tables: GpuTables::default(),
            model_keys: Vec::new(),
            len: 0,
            state_slots: Slots::default(),
            transform_slots: Slots::default(),
            motion_slots: Slots::default(),
            moving: false,
            belt: StagingBelt::new(device.clone(), BELT_CHUNK),
            previous: None,
        }
    }

    /// Keeps the frame before from now on (for a motion-vector prepass):
    /// call before each [`Self::sync`] with the crowd clock being synced.
    /// The first call knows no frame before: its frame's previous is
    /// itself.
    pub fn keep_previous(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        now: u64,
    ) -> Result<(), RenderError> {
        match &mut self.previous {
            Some(kept) => kept.keep(device, queue, &self.transforms.buffer, now),
            None => {
                self.previous = Some(KeptFrame::new(device, now));
                Ok(())
            }
        }
    }

    /// The frame before the latest sync, if kept ([`Self::keep_previous`]).
    pub fn previous(&self) -> Option<PreviousFrame<'_>> {
        self.previous.as_ref().map(KeptFrame::frame)
    }

    /// Instances mirrored.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Bytes its buffers hold on the GPU (instances, tables, motions and
    /// the update streams; not its staging belt).
    pub fn gpu_bytes(&self) -> u64 {
        [
            &self.states,
            &self.transforms,
            &self.models,
            &self.clips,
            &self.lod_sizes,
            &self.state_updates,
            &self.transform_updates,
            &self.motions,
            &self.motion_updates,
            &self.points,
            &self.root_keys,
        ]
        .iter()
        .map(|g| g.buffer.size())
        .sum::<u64>()
            + self.motion_params.size()
            + self.params.size()
            + self.previous.as_ref().map_or(0, KeptFrame::gpu_bytes)
    }

    /// True if no instance is mirrored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The crowd's tables as last uploaded.
    pub fn tables(&self) -> &GpuTables {
        &self.tables
    }

    /// Instance states, [`GpuInstance`] per dense slot.
    pub fn states(&self) -> &wgpu::Buffer {
        &self.states.buffer
    }

    /// Instance transforms, [`GpuTransform`] per dense slot.
    pub fn transforms(&self) -> &wgpu::Buffer {
        &self.transforms.buffer
    }

    /// Instance motions, [`GpuMotion`] per dense slot (meaningful while
    /// the crowd has motions).
    pub fn motions(&self) -> &wgpu::Buffer {
        &self.motions.buffer
    }

    /// The models table (`GpuModelInfo`).
    pub fn models(&self) -> &wgpu::Buffer {
        &self.models.buffer
    }

    /// The clips table (`GpuClip`).
    pub fn clips(&self) -> &wgpu::Buffer {
        &self.clips.buffer
    }

    /// The LOD screen sizes table (`f32`).
    pub fn lod_sizes(&self) -> &wgpu::Buffer {
        &self.lod_sizes.buffer
    }

    /// Brings the mirror up to `crowd`: the tables when its models changed,
    /// and the states and transforms its change log names (all of them the
    /// first time, or when a buffer grew). Per stream, changed slots less
    /// than 8 apart make one run; up to 16 runs are copied in place (a run
    /// of transforms straight from the crowd's storage), more go packed
    /// with their slots into one buffer that a compute dispatch scatters.
    /// Changes are staged in the mirror's belt and copied by commands
    /// recorded into `encoder`, which must be submitted before the cull
    /// pass, and its device polled now and then (the renderer's
    /// [`crate::passes::cull::CullList::after_submit`] does) so the belt's buffers
    /// come back; a full upload goes through the queue.
    pub fn sync(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        pipelines: &impl AsRef<MirrorPipelines>,
        crowd: &Crowd,
    ) -> Result<SyncStats, RenderError> {
        let pass = pipelines.as_ref();
        let mut stats = SyncStats::default();
        let len = crowd.len();
        let state_size = std::mem::size_of::<GpuInstance>() as u64;
        let transform_size = std::mem::size_of::<GpuTransform>() as u64;
        let motion_size = std::mem::size_of::<GpuMotion>() as u64;
        let grew = self.states.reserve(device, len as u64 * state_size)?
            | self
                .transforms
                .reserve(device, len as u64 * transform_size)?;
        let all_motions = crowd.gpu_motions();
        let moving = !all_motions.is_empty();
        // Motions appear (or a buffer grew): all of them once.
        let motions_grew = moving
            && (self.motions.reserve(device, len as u64 * motion_size)? || !self.moving || grew);
        self.moving = moving;
        if moving {
            let tables = (crowd.identity(), crowd.motion_tables_generation());
            if self.motion_tables != Some(tables) {
                let points: &[u8] = bytemuck::cast_slice(crowd.path_points());
                let keys: &[u8] = bytemuck::cast_slice(crowd.root_keys());
                write_tables(
                    device,
                    queue,
                    &mut stats,
                    [(&mut self.points, points), (&mut self.root_keys, keys)],
                )?;
                self.motion_tables = Some(tables);
            }
        }
        if !crowd
            .models()
            .map(|m| m.key())
            .eq(self.model_keys.iter().copied())
        {
            self.model_keys = crowd.models().map(|m| m.key()).collect();
            self.tables = crowd.gpu_tables();
            let t = &self.tables;
            let (models, clips, sizes): (&[u8], &[u8], &[u8]) = (
                bytemuck::cast_slice(&t.models),
                bytemuck::cast_slice(&t.clips),
                bytemuck::cast_slice(&t.lod_sizes),
            );
            let tables = [
                (&mut self.models, models),
                (&mut self.clips, clips),
                (&mut self.lod_sizes, sizes),
            ];
            write_tables(device, queue, &mut stats, tables)?;
        }
        self.len = len as u32;
        // Everything after a fresh buffer or when the log says so.
        let (states, transforms, motions) = (
            &mut self.state_slots,
            &mut self.transform_slots,
            &mut self.motion_slots,
        );
        let full = match crowd.changes(&mut self.cursor) {
            Changes::Slots(changes) if !grew => {
                states.collect(changes, len, Change::has_state);
                transforms.collect(changes, len, Change::has_transform);
                if motions_grew {
                    motions.all(len);
                } else if moving {
                    motions.collect(changes, len, Change::has_motion);
                } else {
                    motions.clear();
                }
                false
            }
            _ => {
                states.all(len);
                transforms.all(len);
                if moving {
                    motions.all(len);
                } else {
                    motions.clear();
                }
                true
            }
        };
        stats.states = states.slots.len() as u64;
        stats.transforms = transforms.slots.len() as u64;
        stats.motions = motions.slots.len() as u64;
        let mut upload = if full {
            Upload::Queue(queue)
        } else {
            Upload::Belt(&mut self.belt, encoder)
        };

        // Direct runs.
        if states.direct() {
            for &(first, last) in &states.runs {
                let count = (last - first + 1) as usize;
                stats.bytes += upload.items::<GpuInstance, { std::mem::size_of::<GpuInstance>() }>(
                    &self.states.buffer,
                    first as u64 * state_size,
                    count,
                    (first..=last).map(|d| crowd.gpu_instance(d as usize)),
                );
                stats.writes += 1;
            }
        }
        if transforms.direct() {
            let all = crowd.gpu_transforms();
            upload.runs(&self.transforms.buffer, transforms, all, &mut stats);
        }
        if motions.direct() {
            upload.runs(&self.motions.buffer, motions, all_motions, &mut stats);
        }

        // Scattered: the changes, each with its slot, packed in one upload
        // per stream and scattered by one dispatch each.
        let mut params = MirrorParams {
            state_count: 0,
            transform_count: 0,
            instance_count: len as u32,
            motion_count: 0,
        };
        // Each stream: its changes packed as `Update { slot, pad, field }`.
        macro_rules! scatter {
            ($slots:expr, $buffer:expr, $update:ident, $field:ident) => {
                if !$slots.direct() {
                    const N: usize = std::mem::size_of::<$update>();
                    let make = |slot: u32| $update {
                        slot,
                        pad: [0; 3],
                        $field: $field(slot),
                    };
                    upload.updates::<_, N>(device, &mut $buffer, &$slots.slots, &mut stats, make)?
                } else {
                    0
                }
            };
        }
        let all = crowd.gpu_transforms();
        let motion = |s: u32| all_motions[s as usize];
        let state = |s: u32| crowd.gpu_instance(s as usize);
        let transform = |s: u32| all[s as usize];
        params.motion_count = scatter!(motions, self.motion_updates, MotionUpdate, motion);
        params.state_count = scatter!(states, self.state_updates, StateUpdate, state);
        params.transform_count = scatter!(
            transforms,
            self.transform_updates,
            TransformUpdate,
            transform
        );
        if !full {
            // The belt's chunks are mapped again once this encoder has run.
            self.belt.finish_and_recall_on_submit(encoder);
        }
        if states.direct() && transforms.direct() && motions.direct() {
            self.pose(device, queue, encoder, pass, crowd);
            return Ok(stats);
        }
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        stats.writes += 1;
        let group = bind_group(
            device,
            "throng mirror upload",
            &pass.apply,
            &[
                (0, self.params.as_entire_binding()),
                (1, self.state_updates.buffer.as_entire_binding()),
                (2, self.states.buffer.as_entire_binding()),
                (3, self.transform_updates.buffer.as_entire_binding()),
                (4, self.transforms.buffer.as_entire_binding()),
                (5, self.motion_updates.buffer.as_entire_binding()),
                (6, self.motions.buffer.as_entire_binding()),
            ],
        );
        let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng mirror upload"),
            timestamp_writes: None,
        });
        cpass.set_bind_group(0, &group, &[]);
        for (count, pipeline) in [
            (params.state_count, &pass.apply_states),
            (params.transform_count, &pass.apply_transforms),
            (params.motion_count, &pass.apply_motions),
        ] {
            if count > 0 {
                let (x, y) = dispatch_size(count.div_ceil(WORKGROUP));
                cpass.set_pipeline(pipeline);
                cpass.dispatch_workgroups(x, y, 1);
            }
        }
        drop(cpass);
        stats.bytes += std::mem::size_of::<MirrorParams>() as u64;
        stats.scattered = true;
        self.pose(device, queue, encoder, pass, crowd);
        Ok(stats)
    }

    /// Records the motion pass: the moving instances' transforms at the
    /// crowd's clock, over what the uploads wrote.
    fn pose(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        pass: &MirrorPipelines,
        crowd: &Crowd,
    ) {
        if !self.moving {
            return;
        }
        let bindings = crate::passes::motion::MotionBindings {
            params: &self.motion_params,
            motions: &self.motions.buffer,
            points: &self.points.buffer,
            keys: &self.root_keys.buffer,
            transforms: &self.transforms.buffer,
        };
        pass.motion
            .encode(device, queue, encoder, &bindings, crowd.clock(), self.len);
    }
}

/// Writes each table whole through the queue, each buffer grown to fit.
fn write_tables<const N: usize>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    stats: &mut SyncStats,
    tables: [(&mut Grown, &[u8]); N],
) -> Result<(), RenderError> {
    for (buffer, bytes) in tables {
        buffer.reserve(device, bytes.len() as u64)?;
        if !bytes.is_empty() {
            queue.write_buffer(&buffer.buffer, 0, bytes);
            stats.bytes += bytes.len() as u64;
            stats.writes += 1;
        }
    }
    Ok(())
}
