//! [`CrowdMirror`]: a crowd's instances and tables on the GPU, synced from
//! the crowd's change log.

use throng_core::gpu::{
    GpuInstance, GpuMotion, GpuTransform, MirrorParams, MotionUpdate, StateUpdate, TransformUpdate,
};
use throng_crowd::crowd::{Change, ChangeCursor, Changes, Crowd, GpuTables};
use wgpu::util::StagingBelt;

use crate::base::error::RenderError;
use crate::device::buffers::{Grown, STORAGE, WORKGROUP, dispatch_size, make};
use crate::passes::mirror::changes::{Slots, SyncStats, Upload, write_tables};
use crate::passes::mirror::ground::MirroredGround;
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
    /// The crowd's ground words (`passes/ground.wgsl`).
    ground: MirroredGround,
    motion_params: wgpu::Buffer,
    params: wgpu::Buffer,
    tables: GpuTables,
    /// Keys of the models the tables were built for: another crowd, or
    /// the same number of other models, rebuilds them.
    model_keys: Vec<u64>,
    /// The crowd and the generation of its look classes the tables were
    /// built for: a new class (new draw groups) rebuilds them.
    look_classes: Option<(u64, u64)>,
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
            ground: MirroredGround::new(device),
            motion_params: crate::passes::motion::MotionPass::params_buffer(device),
            params: make(
                device,
                "throng mirror params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                std::mem::size_of::<MirrorParams>() as u64,
            ),
            tables: GpuTables::default(),
            model_keys: Vec::new(),
            look_classes: None,
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
            self.ground.grown(),
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

    /// The crowd's ground words ([`throng_core::ground`]; the header of
    /// none until the first sync).
    pub fn ground(&self) -> &wgpu::Buffer {
        self.ground.buffer()
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
        let grew = self.reserve(device, crowd)?;
        if self.moving {
            self.sync_motion_tables(device, queue, crowd, &mut stats)?;
        }
        self.ground.sync(device, queue, crowd, &mut stats)?;
        self.sync_model_tables(device, queue, crowd, &mut stats)?;
        self.len = crowd.len() as u32;
        let full = self.collect_changes(crowd, grew);
        stats.states = self.state_slots.slots.len() as u64;
        stats.transforms = self.transform_slots.slots.len() as u64;
        stats.motions = self.motion_slots.slots.len() as u64;
        let params = self.upload_changes(device, queue, encoder, crowd, full, &mut stats)?;
        if self.state_slots.direct() && self.transform_slots.direct() && self.motion_slots.direct()
        {
            self.pose(device, queue, encoder, pass, crowd);
            return Ok(stats);
        }
        self.scatter(device, queue, encoder, pass, &params, &mut stats);
        self.pose(device, queue, encoder, pass, crowd);
        Ok(stats)
    }

    /// Grows the instance streams to `crowd`'s length and notes whether it
    /// has motions (the motion pass runs).
    fn reserve(&mut self, device: &wgpu::Device, crowd: &Crowd) -> Result<Grew, RenderError> {
        let len = crowd.len() as u64;
        let state_size = std::mem::size_of::<GpuInstance>() as u64;
        let transform_size = std::mem::size_of::<GpuTransform>() as u64;
        let motion_size = std::mem::size_of::<GpuMotion>() as u64;
        let streams = self.states.reserve(device, len * state_size)?
            | self.transforms.reserve(device, len * transform_size)?;
        let moving = !crowd.gpu_motions().is_empty();
        // Motions appear (or a buffer grew): all of them once.
        let motions =
            moving && (self.motions.reserve(device, len * motion_size)? || !self.moving || streams);
        self.moving = moving;
        Ok(Grew { streams, motions })
    }

    /// Uploads the crowd's path points and root-motion keys when they are
    /// another crowd's or changed since the last sync.
    fn sync_motion_tables(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        crowd: &Crowd,
        stats: &mut SyncStats,
    ) -> Result<(), RenderError> {
        let tables = (crowd.identity(), crowd.motion_tables_generation());
        if self.motion_tables != Some(tables) {
            let points: &[u8] = bytemuck::cast_slice(crowd.path_points());
            let keys: &[u8] = bytemuck::cast_slice(crowd.root_keys());
            write_tables(
                device,
                queue,
                stats,
                [(&mut self.points, points), (&mut self.root_keys, keys)],
            )?;
            self.motion_tables = Some(tables);
        }
        Ok(())
    }

    /// Uploads the model, clip and LOD tables when the crowd's models, or
    /// their look classes, are not those they were built for.
    fn sync_model_tables(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        crowd: &Crowd,
        stats: &mut SyncStats,
    ) -> Result<(), RenderError> {
        let look_classes = Some((crowd.identity(), crowd.look_classes_generation()));
        if crowd
            .models()
            .map(|m| m.key())
            .eq(self.model_keys.iter().copied())
            && self.look_classes == look_classes
        {
            return Ok(());
        }
        self.model_keys = crowd.models().map(|m| m.key()).collect();
        self.look_classes = look_classes;
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
        write_tables(device, queue, stats, tables)
    }

    /// Collects each stream's slots to write: all of them after a fresh
    /// buffer or when the log says so (a full upload: returns true), else
    /// those the change log names since the mirror's cursor.
    fn collect_changes(&mut self, crowd: &Crowd, grew: Grew) -> bool {
        let len = crowd.len();
        let moving = self.moving;
        let (states, transforms, motions) = (
            &mut self.state_slots,
            &mut self.transform_slots,
            &mut self.motion_slots,
        );
        match crowd.changes(&mut self.cursor) {
            Changes::Slots(changes) if !grew.streams => {
                states.collect(changes, len, Change::has_state);
                transforms.collect(changes, len, Change::has_transform);
                if grew.motions {
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
        }
    }

    /// Writes the collected slots, through the queue for a full upload and
    /// the belt into `encoder` otherwise: a stream with few runs as those
    /// runs in place (transforms and motions straight from the crowd's
    /// storage), one with more packed with their slots into its update
    /// buffer for [`Self::scatter`]. Returns the scatter's params (its
    /// counts per stream).
    fn upload_changes(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        crowd: &Crowd,
        full: bool,
        stats: &mut SyncStats,
    ) -> Result<MirrorParams, RenderError> {
        let all_motions = crowd.gpu_motions();
        let all_transforms = crowd.gpu_transforms();
        let mut upload = if full {
            Upload::Queue(queue)
        } else {
            Upload::Belt(&mut self.belt, encoder)
        };

        // Direct runs.
        if self.state_slots.direct() {
            write_state_runs(
                &mut upload,
                &self.states.buffer,
                &self.state_slots,
                crowd,
                stats,
            );
        }
        if self.transform_slots.direct() {
            let slots = &self.transform_slots;
            upload.runs(&self.transforms.buffer, slots, all_transforms, stats);
        }
        if self.motion_slots.direct() {
            upload.runs(&self.motions.buffer, &self.motion_slots, all_motions, stats);
        }

        // Scattered: the changes, each with its slot, packed in one upload
        // per stream and scattered by one dispatch each.
        let motion_count = pack_updates::<_, { std::mem::size_of::<MotionUpdate>() }>(
            &mut upload,
            device,
            &self.motion_slots,
            &mut self.motion_updates,
            stats,
            |slot| MotionUpdate {
                slot,
                pad: [0; 3],
                motion: all_motions[slot as usize],
            },
        )?;
        let state_count = pack_updates::<_, { std::mem::size_of::<StateUpdate>() }>(
            &mut upload,
            device,
            &self.state_slots,
            &mut self.state_updates,
            stats,
            |slot| StateUpdate {
                slot,
                pad: [0; 3],
                state: crowd.gpu_instance(slot as usize),
            },
        )?;
        let transform_count = pack_updates::<_, { std::mem::size_of::<TransformUpdate>() }>(
            &mut upload,
            device,
            &self.transform_slots,
            &mut self.transform_updates,
            stats,
            |slot| TransformUpdate {
                slot,
                pad: [0; 3],
                transform: all_transforms[slot as usize],
            },
        )?;
        if !full {
            // The belt's chunks are mapped again once this encoder has run.
            self.belt.finish_and_recall_on_submit(encoder);
        }
        Ok(MirrorParams {
            state_count,
            transform_count,
            instance_count: crowd.len() as u32,
            motion_count,
        })
    }

    /// Records the scatter: `params` written, then one dispatch per stream
    /// with packed updates (`passes/mirror/mirror.wgsl`), each placing its
    /// updates at their slots.
    fn scatter(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        pass: &MirrorPipelines,
        params: &MirrorParams,
        stats: &mut SyncStats,
    ) {
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(params));
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
            ground: self.ground.buffer(),
        };
        pass.motion
            .encode(device, queue, encoder, &bindings, crowd.clock(), self.len);
    }
}

/// What [`CrowdMirror::reserve`] grew.
#[derive(Clone, Copy)]
struct Grew {
    /// The states or transforms buffer: everything is uploaded again.
    streams: bool,
    /// All motions are uploaded: they appear, or a buffer grew.
    motions: bool,
}

/// Packs one stream's changes as updates (`Update { slot, pad, field }`,
/// `N` bytes each; `update` makes one) into its update buffer for the
/// scatter, unless its runs are few enough to have been written in place.
/// Returns the number of updates (0 for a stream written in place).
fn pack_updates<T: bytemuck::Pod, const N: usize>(
    upload: &mut Upload<'_>,
    device: &wgpu::Device,
    slots: &Slots,
    buffer: &mut Grown,
    stats: &mut SyncStats,
    update: impl Fn(u32) -> T,
) -> Result<u32, RenderError> {
    if slots.direct() {
        return Ok(0);
    }
    upload.updates::<T, N>(device, buffer, &slots.slots, stats, update)
}

/// Writes each run of `slots` of the states stream in place, one write a
/// run: the crowd builds each state ([`Crowd::gpu_instance`]) straight into
/// staging memory, as it keeps none contiguous.
fn write_state_runs(
    upload: &mut Upload<'_>,
    buffer: &wgpu::Buffer,
    slots: &Slots,
    crowd: &Crowd,
    stats: &mut SyncStats,
) {
    let state_size = std::mem::size_of::<GpuInstance>() as u64;
    for &(first, last) in &slots.runs {
        let count = (last - first + 1) as usize;
        stats.bytes += upload.items::<GpuInstance, { std::mem::size_of::<GpuInstance>() }>(
            buffer,
            first as u64 * state_size,
            count,
            (first..=last).map(|d| crowd.gpu_instance(d as usize)),
        );
        stats.writes += 1;
    }
}
