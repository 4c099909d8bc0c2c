//! A crowd's instances on the GPU for the GPU-driven path: [`CrowdMirror`]
//! keeps each instance's state ([`GpuInstance`]) and transform
//! ([`GpuTransform`]) in two storage buffers and the crowd's model, clip and
//! LOD tables beside them, and re-uploads only what the crowd's change log
//! names, of a moved instance only its transform. Changes go through a
//! staging belt (mapped buffers reused frame after frame) as runs written in
//! place, or, when scattered, packed with their slots and placed by
//! `shaders/mirror.wgsl`. Instances' analytic motions are a third stream,
//! with the crowd's path points and root-motion keys beside it; after the
//! uploads, the motion pass ([`crate::motion`]) writes the moving instances'
//! transforms of the frame. The cull pass ([`crate::cull`]) reads the
//! mirror.

use throng_core::gpu::{
    GpuInstance, GpuMotion, GpuTransform, MirrorParams, MotionUpdate, StateUpdate, TransformUpdate,
};
use throng_crowd::crowd::{Change, ChangeCursor, Changes, Crowd, GpuTables};
use wgpu::util::StagingBelt;

use crate::cull::{CullPass, Grown, STORAGE, WORKGROUP, dispatch_size, make};
use crate::error::RenderError;

/// Bytes of each staging belt chunk: changes of a frame share chunks of
/// this size (a larger write gets a chunk of its own size, reused later).
const BELT_CHUNK: u64 = 1 << 20;

/// Runs of changed slots a sync writes one by one, per stream (states,
/// transforms); more go through the scattered upload (one buffer write and
/// one dispatch per stream).
const MAX_DIRECT_RUNS: usize = 16;

/// Changed slots less than this far apart are written as one run (the
/// unchanged slots between them are rewritten with what they hold).
const RUN_GAP: u32 = 8;

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
}

/// The changed slots of one stream, sorted and without repeats, and the
/// runs they make.
#[derive(Default)]
struct Slots {
    slots: Vec<u32>,
    runs: Vec<(u32, u32)>,
    /// One bit per slot, for sorting many changes in linear time.
    bits: Vec<u64>,
}

impl Slots {
    fn clear(&mut self) {
        self.slots.clear();
        self.runs.clear();
    }

    /// Takes the slots below `len` of the log entries that `wrote` says
    /// wrote this stream, sorted without repeats, and finds their runs.
    /// Slots logged in rising order (a caller walking its instances in
    /// order) are taken as they are; otherwise many changes (more than one
    /// slot in 16 of `len`) go through a bitset, in time linear in `len /
    /// 64` plus the changes, and fewer are sorted.
    fn collect(&mut self, changes: &[Change], len: usize, wrote: fn(Change) -> bool) {
        self.clear();
        self.slots.extend(
            changes
                .iter()
                .filter(|&&c| wrote(c) && c.slot() < len)
                .map(|c| c.slot() as u32),
        );
        if self.slots.is_sorted_by(|a, b| a < b) {
            // Already sorted and unique.
        } else if self.slots.len() > len / 16 {
            self.bits.clear();
            self.bits.resize(len.div_ceil(64), 0);
            for &d in &self.slots {
                self.bits[d as usize / 64] |= 1 << (d % 64);
            }
            self.slots.clear();
            for (w, &word) in self.bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    self.slots.push(w as u32 * 64 + word.trailing_zeros());
                    word &= word - 1;
                }
            }
        } else {
            self.slots.sort_unstable();
            self.slots.dedup();
        }
        let mut i = 0;
        while i < self.slots.len() {
            let first = self.slots[i];
            let mut last = first;
            while i < self.slots.len() && self.slots[i] <= last + RUN_GAP {
                last = self.slots[i];
                i += 1;
            }
            self.runs.push((first, last));
        }
    }

    fn all(&mut self, len: usize) {
        self.clear();
        self.slots.extend(0..len as u32);
        if len > 0 {
            self.runs.push((0, len as u32 - 1));
        }
    }

    fn direct(&self) -> bool {
        self.runs.len() <= MAX_DIRECT_RUNS
    }
}

/// What one [`CrowdMirror::sync`] uploaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Instance states written (changed ones; more slots may be rewritten
    /// where runs join).
    pub states: u64,
    /// Instance transforms written (likewise).
    pub transforms: u64,
    /// Instance motions written (likewise).
    pub motions: u64,
    /// Bytes written (states, transforms and tables).
    pub bytes: u64,
    /// `write_buffer` calls.
    pub writes: u32,
    /// True if some changes went through a scattered upload.
    pub scattered: bool,
}

/// Where a sync's bytes go: the queue's own staging for a full upload (a
/// one-off, not worth keeping mapped memory for), the mirror's staging belt
/// for changes.
enum Upload<'a> {
    Queue(&'a wgpu::Queue),
    Belt(&'a mut StagingBelt, &'a mut wgpu::CommandEncoder),
}

impl Upload<'_> {
    /// Writes `items` (`count` of them, each `N` bytes: `T`'s size) into
    /// `buffer` at `offset`, straight into staging memory. Returns the bytes.
    fn items<T: bytemuck::Pod, const N: usize>(
        &mut self,
        buffer: &wgpu::Buffer,
        offset: u64,
        count: usize,
        items: impl Iterator<Item = T>,
    ) -> u64 {
        const { assert!(N.is_multiple_of(4)) };
        assert_eq!(std::mem::size_of::<T>(), N, "N is the item's size");
        let Some(size) = wgpu::BufferSize::new((count * N) as u64) else {
            return 0;
        };
        let fill = |mut view: wgpu::WriteOnly<'_, [u8]>| {
            let (chunks, _) = view.slice(..).into_chunks::<N>();
            chunks.write_iter(items.map(|item| bytemuck::cast::<T, [u8; N]>(item)));
        };
        match self {
            Upload::Queue(queue) => {
                if let Some(mut view) = queue.write_buffer_with(buffer, offset, size) {
                    fill(view.slice(..));
                }
            }
            Upload::Belt(belt, encoder) => {
                let mut view = belt.write_buffer(encoder, buffer, offset, size);
                fill(view.slice(..));
            }
        }
        size.get()
    }

    /// Writes `bytes` into `buffer` at `offset`. Returns the bytes.
    fn bytes(&mut self, buffer: &wgpu::Buffer, offset: u64, bytes: &[u8]) -> u64 {
        let Some(size) = wgpu::BufferSize::new(bytes.len() as u64) else {
            return 0;
        };
        match self {
            Upload::Queue(queue) => queue.write_buffer(buffer, offset, bytes),
            Upload::Belt(belt, encoder) => belt
                .write_buffer(encoder, buffer, offset, size)
                .copy_from_slice(bytes),
        }
        size.get()
    }
}

impl CrowdMirror {
    /// An empty mirror; the first [`Self::sync`] uploads everything.
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            cursor: ChangeCursor::default(),
            // COPY_SRC: states and positions are read back from them
            // (crate::readback, tests).
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
            motion_params: crate::motion::MotionPass::params_buffer(device),
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
        }
    }

    /// Instances mirrored.
    pub fn len(&self) -> u32 {
        self.len
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
    /// [`crate::cull::CullList::after_submit`] does) so the belt's buffers
    /// come back; a full upload goes through the queue.
    pub fn sync(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        pass: &CullPass,
        crowd: &Crowd,
    ) -> Result<SyncStats, RenderError> {
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
                for (buf, bytes) in [
                    (&mut self.points, bytemuck::cast_slice(crowd.path_points())),
                    (&mut self.root_keys, bytemuck::cast_slice(crowd.root_keys())),
                ] {
                    let bytes: &[u8] = bytes;
                    buf.reserve(device, bytes.len() as u64)?;
                    if !bytes.is_empty() {
                        queue.write_buffer(&buf.buffer, 0, bytes);
                        stats.bytes += bytes.len() as u64;
                        stats.writes += 1;
                    }
                }
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
            for (buf, bytes) in [
                (&mut self.models, bytemuck::cast_slice(&self.tables.models)),
                (&mut self.clips, bytemuck::cast_slice(&self.tables.clips)),
                (
                    &mut self.lod_sizes,
                    bytemuck::cast_slice(&self.tables.lod_sizes),
                ),
            ] {
                let bytes: &[u8] = bytes;
                buf.reserve(device, bytes.len() as u64)?;
                if !bytes.is_empty() {
                    queue.write_buffer(&buf.buffer, 0, bytes);
                    stats.bytes += bytes.len() as u64;
                    stats.writes += 1;
                }
            }
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
            for &(first, last) in &transforms.runs {
                let run = &all[first as usize..=last as usize];
                stats.bytes += upload.bytes(
                    &self.transforms.buffer,
                    first as u64 * transform_size,
                    bytemuck::cast_slice(run),
                );
                stats.writes += 1;
            }
        }

        if motions.direct() {
            for &(first, last) in &motions.runs {
                let run = &all_motions[first as usize..=last as usize];
                stats.bytes += upload.bytes(
                    &self.motions.buffer,
                    first as u64 * motion_size,
                    bytemuck::cast_slice(run),
                );
                stats.writes += 1;
            }
        }

        // Scattered: the changes, each with its slot, packed in one upload
        // per stream and scattered by one dispatch each.
        let mut params = MirrorParams {
            state_count: 0,
            transform_count: 0,
            instance_count: len as u32,
            motion_count: 0,
        };
        if !motions.direct() {
            let n = motions.slots.len();
            self.motion_updates
                .reserve(device, (n * std::mem::size_of::<MotionUpdate>()) as u64)?;
            stats.bytes += upload.items::<MotionUpdate, { std::mem::size_of::<MotionUpdate>() }>(
                &self.motion_updates.buffer,
                0,
                n,
                motions.slots.iter().map(|&d| MotionUpdate {
                    slot: d,
                    pad: [0; 3],
                    motion: all_motions[d as usize],
                }),
            );
            stats.writes += 1;
            params.motion_count = n as u32;
        }
        if !states.direct() {
            let n = states.slots.len();
            self.state_updates
                .reserve(device, (n * std::mem::size_of::<StateUpdate>()) as u64)?;
            stats.bytes += upload.items::<StateUpdate, { std::mem::size_of::<StateUpdate>() }>(
                &self.state_updates.buffer,
                0,
                n,
                states.slots.iter().map(|&d| StateUpdate {
                    slot: d,
                    pad: [0; 3],
                    state: crowd.gpu_instance(d as usize),
                }),
            );
            stats.writes += 1;
            params.state_count = n as u32;
        }
        if !transforms.direct() {
            let n = transforms.slots.len();
            let all = crowd.gpu_transforms();
            self.transform_updates
                .reserve(device, (n * std::mem::size_of::<TransformUpdate>()) as u64)?;
            stats.bytes += upload
                .items::<TransformUpdate, { std::mem::size_of::<TransformUpdate>() }>(
                    &self.transform_updates.buffer,
                    0,
                    n,
                    transforms.slots.iter().map(|&d| TransformUpdate {
                        slot: d,
                        pad: [0; 3],
                        transform: all[d as usize],
                    }),
                );
            stats.writes += 1;
            params.transform_count = n as u32;
        }
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
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng mirror upload"),
            layout: pass.apply_layout(),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.state_updates.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: self.states.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: self.transform_updates.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: self.transforms.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: self.motion_updates.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 6,
                    resource: self.motions.buffer.as_entire_binding(),
                },
            ],
        });
        let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng mirror upload"),
            timestamp_writes: None,
        });
        cpass.set_bind_group(0, &group, &[]);
        for (count, pipeline) in [
            (params.state_count, pass.apply_states()),
            (params.transform_count, pass.apply_transforms()),
            (params.motion_count, pass.apply_motions()),
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
        pass: &CullPass,
        crowd: &Crowd,
    ) {
        if !self.moving {
            return;
        }
        let bindings = crate::motion::MotionBindings {
            params: &self.motion_params,
            motions: &self.motions.buffer,
            points: &self.points.buffer,
            keys: &self.root_keys.buffer,
            transforms: &self.transforms.buffer,
        };
        pass.motion()
            .encode(device, queue, encoder, &bindings, crowd.clock(), self.len);
    }
}
