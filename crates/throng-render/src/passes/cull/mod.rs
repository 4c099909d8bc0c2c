//! The GPU-driven path's cull pass: a [`CullList`] is one view's draw list
//! built on the GPU by `passes/cull/cull.wgsl` — records compacted per (model,
//! LOD, fading) group and indirect draw arguments — from a crowd's
//! [`CrowdMirror`] and the crowd clock. [`CullPass`] holds the compute
//! pipelines, the mirror's scattered uploads included.
//!
//! Equivalence with the CPU's [`throng_crowd::crowd::DrawList`] (same
//! visible set, LODs, groups and records) is tested on lavapipe in
//! `tests/render/gpu_driven/cull.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use throng_core::gpu::{
    CullView, DRAWN_WORDS, DrawSpec, GROUPS_WORD, IN_VIEW_WORD, InstanceRecord, OCCLUDED_WORD,
    PLACED_WORD, PreviousRecord,
};
use throng_core::math::Aabb;
use throng_crowd::crowd::DrawView;

use crate::base::error::RenderError;
use crate::base::shader::program::Program;
use crate::device::buffers::{
    Grown, STORAGE, WORKGROUP, dispatch_size, make, readback_buffer, storage_binding_limit,
};
use crate::device::map_state::{MapState, Take};
use crate::passes::entry_pipeline::entry_pipeline;
use crate::passes::mirror::crowd_mirror::CrowdMirror;
use crate::passes::mirror::pipelines::MirrorPipelines;
pub use crate::passes::mirror::previous::PreviousFrame;
use crate::passes::pyramid_layout;
pub use crate::passes::pyramid_layout::PyramidRead;

mod view;
use crate::program::bind_groups::{CullStage, cull_layout};

/// Size of one indirect indexed draw's arguments.
pub const INDIRECT_ARGS_SIZE: u64 = 20;

/// The GPU-driven path's compute pipelines: the cull pass's three stages,
/// and the mirror's ([`MirrorPipelines`]: its scattered uploads and the
/// motion pass), which [`CrowdMirror::sync`] takes from it.
pub struct CullPass {
    stages: Vec<(wgpu::BindGroupLayout, wgpu::ComputePipeline)>,
    mirror: MirrorPipelines,
    /// The pyramid bound where a phase reads none.
    stand_in: wgpu::TextureView,
    /// The previous records bound where a view asks for none.
    no_previous: wgpu::Buffer,
}

impl AsRef<MirrorPipelines> for CullPass {
    fn as_ref(&self) -> &MirrorPipelines {
        &self.mirror
    }
}

impl CullPass {
    /// Compiles the cull pass (and the mirror's pipelines).
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::Cull.label()),
            source: wgpu::ShaderSource::Wgsl(Program::Cull.source().into()),
        });
        let stages = CullStage::ALL
            .iter()
            .map(|&stage| {
                let (group, layout) = cull_layout(device, stage);
                let pipeline = entry_pipeline(device, &module, &layout, stage.entry());
                (group, pipeline)
            })
            .collect();
        Self {
            stages,
            mirror: MirrorPipelines::new(device),
            stand_in: pyramid_layout::stand_in(device),
            no_previous: make(
                device,
                "throng no previous records",
                STORAGE,
                std::mem::size_of::<PreviousRecord>() as u64,
            ),
        }
    }
}

/// What one view's cull pass is asked for.
#[derive(Clone, Copy)]
pub struct CullRequest<'a> {
    /// Culling, LOD selection and LOD tints, as for the CPU's draw list.
    pub view: DrawView,
    /// The crowd clock ([`throng_crowd::crowd::Crowd::clock`]).
    pub now: u64,
    /// Per indirect draw: the group
    /// ([`throng_core::gpu::GpuModelInfo::group`] of a model of
    /// [`throng_crowd::crowd::GpuTables`]) and the submesh it draws.
    pub draws: &'a [DrawSpec],
    /// One pass, or a phase of occlusion culling.
    pub phase: CullPhase<'a>,
    /// Where each record's instance was one frame before is wanted beside
    /// it ([`CullList::previous_records`]; a motion-vector prepass).
    pub previous: Option<PreviousFrame<'a>>,
}

/// Which pass of a view's cull a [`CullList`] is.
#[derive(Clone, Copy)]
pub enum CullPhase<'a> {
    /// The only one: every instance in view is drawn.
    Only,
    /// Occlusion culling's early phase: the instances in view that were
    /// visible last frame.
    Early,
    /// Occlusion culling's late phase, after the early phase's list was
    /// drawn and `pyramid` built from its depth: the instances in view that
    /// the early phase did not draw and the pyramid does not hide. Shares
    /// the early list's LOD and visibility state.
    Late {
        /// The same view's early list.
        early: &'a CullList,
        /// The pyramid of the early phase's depth.
        pyramid: PyramidRead<'a>,
        /// The view's `clip_from_world`.
        clip_from_world: glam::Mat4,
        /// The view's depth is reversed.
        reversed: bool,
    },
}

/// One view's draw list, built on the GPU.
pub struct CullList {
    view: wgpu::Buffer,
    lod_state: Grown,
    /// The LOD state buffer before it last grew, to copy into the new one
    /// before the next cull (LOD hysteresis survives the crowd growing).
    lod_state_was: Option<wgpu::Buffer>,
    placement: Grown,
    counts: Grown,
    group_first: Grown,
    draws: Grown,
    indirect: Grown,
    records: Grown,
    /// Beside `records`, slot for slot, when the view asks for them.
    previous: Option<Grown>,
    /// The view asked for previous records this frame.
    wants_previous: bool,
    readbacks: Vec<Readback>,
    frame: AtomicUsize,
    latest: Option<Drawn>,
    draw_count: u32,
    group_count: u32,
    instances: u32,
    groups: Vec<Option<wgpu::BindGroup>>,
}

/// What a view's cull found, read back from the GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    /// Box of the bounding spheres of the instances in view (unset by a
    /// late phase).
    pub bounds: Aabb,
    /// Instances in view, occluded or not (0 from a late phase).
    pub visible: u32,
    /// Instances the late phase found occluded (and did not draw).
    pub occluded: u32,
    /// Instances this list drew.
    pub placed: u32,
    /// Instances per draw group.
    pub groups: Vec<u32>,
}

/// Bytes before the per-group counts in the counter buffer ([`DRAWN_WORDS`]:
/// six bounds words, the count of drawn instances, the group count).
const DRAWN_BYTES: u64 = DRAWN_WORDS as u64 * 4;

/// One slot of the readback ring: idle, copied and being mapped, or mapped.
struct Readback {
    buffer: wgpu::Buffer,
    state: Arc<MapState>,
}

/// Readback slots: a frame's result is read up to this many frames later
/// without ever waiting for the GPU.
const READBACK_RING: usize = 3;

fn unordered(u: u32) -> f32 {
    f32::from_bits(if u & 0x8000_0000 != 0 {
        u & 0x7fff_ffff
    } else {
        !u
    })
}

impl CullList {
    /// An empty list.
    pub fn new(device: &wgpu::Device) -> Self {
        let rw = STORAGE | wgpu::BufferUsages::COPY_SRC;
        Self {
            view: make(
                device,
                "throng cull view",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                std::mem::size_of::<CullView>() as u64,
            ),
            lod_state: Grown::new(device, "throng cull LOD state", rw),
            lod_state_was: None,
            placement: Grown::new(device, "throng cull placement", rw),
            counts: Grown::new(device, "throng cull counts", rw),
            group_first: Grown::new(device, "throng cull group offsets", rw),
            draws: Grown::new(device, "throng cull draws", STORAGE),
            indirect: Grown::new(
                device,
                "throng indirect draws",
                rw | wgpu::BufferUsages::INDIRECT,
            ),
            // Also the draws' instance-rate vertex buffer.
            records: Grown::new(
                device,
                "throng culled records",
                rw | wgpu::BufferUsages::VERTEX,
            ),
            previous: None,
            wants_previous: false,
            readbacks: (0..READBACK_RING)
                .map(|_| Readback {
                    buffer: readback_buffer(device, DRAWN_BYTES),
                    state: Arc::new(MapState::idle()),
                })
                .collect(),
            frame: AtomicUsize::new(0),
            latest: None,
            draw_count: 0,
            group_count: 0,
            instances: 0,
            groups: vec![None; CullStage::ALL.len()],
        }
    }

    /// The records of the visible instances, group after group (bind as
    /// the unbounded path's records; a draw's first instance selects its
    /// group).
    pub fn records(&self) -> &wgpu::Buffer {
        &self.records.buffer
    }

    /// Where each record's instance was one frame before, slot for slot
    /// with [`Self::records`]: written when the list was last prepared
    /// with [`CullRequest::previous`], else `None`.
    pub fn previous_records(&self) -> Option<&wgpu::Buffer> {
        self.previous
            .as_ref()
            .filter(|_| self.wants_previous)
            .map(|p| &p.buffer)
    }

    /// Indirect draw arguments, one per [`DrawSpec`] given to
    /// [`Self::prepare`], [`INDIRECT_ARGS_SIZE`] bytes apart.
    pub fn indirect(&self) -> &wgpu::Buffer {
        &self.indirect.buffer
    }

    /// The view's `CullView` uniform (the GPU-driven light fit copies the
    /// shadow view's planes over it).
    pub(crate) fn view_buffer(&self) -> &wgpu::Buffer {
        &self.view
    }

    /// The counter buffer (read back in tests): [`DRAWN_WORDS`] words of
    /// what the view drew, then per group how many instances it holds.
    pub fn counts(&self) -> &wgpu::Buffer {
        &self.counts.buffer
    }

    /// Writes the view and the draws for this frame and makes room for
    /// `mirror`'s instances.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pass: &CullPass,
        mirror: &CrowdMirror,
        request: &CullRequest<'_>,
    ) -> Result<(), RenderError> {
        let draws = request.draws;
        let groups = mirror.tables().group_count.max(1);
        self.reserve(device, mirror, request, groups)?;
        if !draws.is_empty() {
            queue.write_buffer(&self.draws.buffer, 0, bytemuck::cast_slice(draws));
        }
        let uniform = view::uniform(request, mirror.len(), groups);
        queue.write_buffer(&self.view, 0, bytemuck::bytes_of(&uniform));
        self.reset_counts(device, queue, groups);
        self.draw_count = draws.len() as u32;
        self.group_count = groups;
        self.instances = mirror.len();
        self.bind(device, pass, mirror, request);
        Ok(())
    }

    /// Makes room in every buffer for `mirror`'s instances, `groups` draw
    /// groups and the request's draws (and its previous records).
    fn reserve(
        &mut self,
        device: &wgpu::Device,
        mirror: &CrowdMirror,
        request: &CullRequest<'_>,
        groups: u32,
    ) -> Result<(), RenderError> {
        let draws = request.draws;
        let n = mirror.len() as u64;
        // A new buffer is zeroed by wgpu: new instances start at LOD 0, as
        // on the CPU, and not visible; the others keep theirs (copied over
        // in `encode`). A late phase uses its early phase's.
        if !matches!(request.phase, CullPhase::Late { .. })
            && let Some(old) = self.lod_state.reserve_keeping(device, n * 4)?
        {
            // Of two growths before an encode, the first buffer holds the state.
            self.lod_state_was.get_or_insert(old);
        }
        self.placement.reserve(device, n * 16)?;
        self.counts
            .reserve(device, DRAWN_BYTES + groups as u64 * 4)?;
        self.group_first.reserve(device, groups as u64 * 4)?;
        self.draws
            .reserve(device, (draws.len().max(1) * 16) as u64)?;
        self.indirect
            .reserve(device, draws.len().max(1) as u64 * INDIRECT_ARGS_SIZE)?;
        if groups >= 1 << 24 {
            return Err(RenderError::TooBig {
                model: "the crowd".into(),
                what: "draw groups (models × LODs × 2 × look classes) of one crowd".into(),
                needed: groups as u64,
                limit: (1 << 24) - 1,
            });
        }
        // Across the cross-fade to an impostor an instance has two records:
        // room for two per instance where the device allows it, else as
        // many as it does (past that, the last groups' extra records are
        // dropped by the scatter, and the offsets pass shortens their draws to
        // the records that fit).
        let record = std::mem::size_of::<InstanceRecord>() as u64;
        let fades = mirror
            .tables()
            .models
            .iter()
            .any(|m| m.impostor_lod != throng_core::gpu::NO_IMPOSTOR);
        let limit = storage_binding_limit(device);
        let one = n.max(1) * record;
        let records = if fades {
            (2 * one).min(limit / record * record).max(one)
        } else {
            one
        };
        self.records.reserve(device, records)?;
        self.wants_previous = request.previous.is_some();
        if request.previous.is_some() {
            let p = self
                .previous
                .get_or_insert_with(|| Grown::new(device, "throng previous records", STORAGE));
            let previous = std::mem::size_of::<PreviousRecord>() as u64;
            p.reserve(device, records / record * previous)?;
        }
        Ok(())
    }

    /// Clears the counts the cull adds to (its header names `groups`) and
    /// makes every readback slot hold them.
    fn reset_counts(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, groups: u32) {
        let mut empty = [0u32; DRAWN_WORDS as usize];
        empty[..3].fill(u32::MAX);
        empty[GROUPS_WORD as usize] = groups;
        queue.write_buffer(&self.counts.buffer, 0, bytemuck::cast_slice(&empty));
        // Every readback slot holds the header and the groups' counts (a
        // slot still mapping is dropped with its buffer: its frame's counts
        // are not needed once the groups changed).
        let bytes = DRAWN_BYTES + groups as u64 * 4;
        if self.readbacks.iter().any(|r| r.buffer.size() < bytes) {
            for r in &mut self.readbacks {
                *r = Readback {
                    buffer: readback_buffer(device, bytes.next_power_of_two()),
                    state: Arc::new(MapState::idle()),
                };
            }
        }
    }

    /// The stages' bind groups over this list's buffers, `mirror`'s and
    /// the request's phase (its LOD state and depth pyramid) and previous
    /// frame. They follow the buffers, which change when they grow or the
    /// mirror's do; rebuilding them each frame is cheap.
    fn bind(
        &mut self,
        device: &wgpu::Device,
        pass: &CullPass,
        mirror: &CrowdMirror,
        request: &CullRequest<'_>,
    ) {
        let previous = request.previous;
        let stand_in = [&pass.stand_in, &pass.stand_in];
        let (lod_state, pyramid_views) = match request.phase {
            CullPhase::Only | CullPhase::Early => (&self.lod_state.buffer, stand_in),
            CullPhase::Late { early, pyramid, .. } => (&early.lod_state.buffer, pyramid.views),
        };
        let previous_records = match (&self.previous, previous) {
            (Some(p), Some(_)) => &p.buffer,
            _ => &pass.no_previous,
        };
        let previous_transforms = previous.map_or(mirror.transforms(), |p| p.transforms);
        let buffers: [&wgpu::Buffer; 13] = [
            &self.view,
            mirror.states(),
            mirror.models(),
            mirror.clips(),
            mirror.lod_sizes(),
            lod_state,
            &self.placement.buffer,
            &self.counts.buffer,
            &self.group_first.buffer,
            &self.draws.buffer,
            &self.indirect.buffer,
            &self.records.buffer,
            mirror.transforms(),
        ];
        for (slot, (stage, (layout, _))) in self
            .groups
            .iter_mut()
            .zip(CullStage::ALL.iter().zip(&pass.stages))
        {
            let entries: Vec<wgpu::BindGroupEntry> = stage
                .bindings()
                .iter()
                .map(|&b| wgpu::BindGroupEntry {
                    binding: b,
                    resource: match b {
                        13 | 14 => {
                            wgpu::BindingResource::TextureView(pyramid_views[b as usize - 13])
                        }
                        15 => previous_records.as_entire_binding(),
                        16 => previous_transforms.as_entire_binding(),
                        _ => buffers[b as usize].as_entire_binding(),
                    },
                })
                .collect();
            *slot = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(stage.entry()),
                layout,
                entries: &entries,
            }));
        }
    }

    /// What the view drew in the latest frame whose result has come back
    /// (a frame or two behind; see [`Self::after_submit`] and
    /// [`Self::wait_drawn`]).
    pub fn latest_drawn(&self) -> Option<&Drawn> {
        self.latest.as_ref()
    }

    /// Collects finished readbacks without waiting (call once per frame,
    /// after submitting the encoder [`Self::encode`] wrote into): starts
    /// mapping this frame's slot and reads any slot that has mapped.
    pub fn after_submit(&mut self, device: &wgpu::Device) {
        let _ = device.poll(wgpu::PollType::Poll);
        self.collect();
    }

    /// Waits for the GPU and returns what the frame last encoded drew.
    pub fn wait_drawn(&mut self, device: &wgpu::Device) -> Result<Option<&Drawn>, RenderError> {
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Device(format!("waiting for the cull pass: {e}")))?;
        self.collect();
        Ok(self.latest.as_ref())
    }

    fn collect(&mut self) {
        // Oldest first, so `latest` ends on the newest frame read.
        let frame = self.frame.load(Ordering::Relaxed);
        for k in 1..=READBACK_RING {
            let slot = &self.readbacks[(frame + k) % READBACK_RING];
            match slot.state.take() {
                Take::Mapped => {}
                Take::Failed => {
                    slot.state.release();
                    continue;
                }
                Take::Idle | Take::Pending | Take::Taken => continue,
            }
            {
                let view = slot.buffer.slice(..).get_mapped_range();
                if let Ok(view) = view {
                    let w: &[u32] = bytemuck::cast_slice(&view);
                    let min = glam::Vec3::new(unordered(w[0]), unordered(w[1]), unordered(w[2]));
                    let max = glam::Vec3::new(unordered(w[3]), unordered(w[4]), unordered(w[5]));
                    let header = DRAWN_WORDS as usize;
                    let groups = (w[GROUPS_WORD as usize] as usize).min(w.len() - header);
                    let in_view = w[IN_VIEW_WORD as usize];
                    self.latest = Some(Drawn {
                        bounds: if in_view == 0 {
                            Aabb::EMPTY
                        } else {
                            Aabb { min, max }
                        },
                        visible: in_view,
                        occluded: w[OCCLUDED_WORD as usize],
                        placed: w[PLACED_WORD as usize],
                        groups: w[header..header + groups].to_vec(),
                    });
                }
            }
            slot.buffer.unmap();
            slot.state.release();
        }
    }

    /// Records the cull pass: clear the counters, classify, lay out, scatter;
    /// then copies what was drawn into the next free readback slot (and
    /// starts mapping it: call [`Self::after_submit`] once submitted).
    /// `timestamps`, if given, are written by the compute pass.
    pub fn encode(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        pass: &CullPass,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        if let Some(old) = self.lod_state_was.take() {
            let bytes = old.size().min(self.lod_state.buffer.size());
            encoder.copy_buffer_to_buffer(&old, 0, &self.lod_state.buffer, 0, bytes);
        }
        self.encode_phase(encoder, pass, timestamps);
    }

    /// [`Self::encode`] for a list whose LOD state did not grow since it was
    /// prepared: a late phase (which uses its early phase's), recorded
    /// while the renderer records its passes.
    pub fn encode_phase(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pass: &CullPass,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        self.encode_pass(encoder, pass, timestamps);
        let frame = (self.frame.load(Ordering::Relaxed) + 1) % READBACK_RING;
        self.frame.store(frame, Ordering::Relaxed);
        let bytes = DRAWN_BYTES + self.group_count as u64 * 4;
        let slot = &self.readbacks[frame];
        // Slots are sized by `prepare`.
        if slot.buffer.size() >= bytes && slot.state.begin() {
            encoder.copy_buffer_to_buffer(&self.counts.buffer, 0, &slot.buffer, 0, bytes);
            let state = slot.state.clone();
            encoder.map_buffer_on_submit(&slot.buffer, wgpu::MapMode::Read, .., move |r| {
                state.complete(r.is_ok());
            });
        }
    }

    fn encode_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pass: &CullPass,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        // The header was written by `prepare`; the group counters start at 0.
        encoder.clear_buffer(
            &self.counts.buffer,
            DRAWN_BYTES,
            Some(self.group_count as u64 * 4),
        );
        let (x, y) = dispatch_size(self.instances.div_ceil(WORKGROUP));
        let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng cull"),
            timestamp_writes: timestamps,
        });
        for (i, (_, pipeline)) in pass.stages.iter().enumerate() {
            cpass.set_pipeline(pipeline);
            cpass.set_bind_group(0, self.groups[i].as_ref(), &[]);
            match CullStage::ALL[i] {
                CullStage::Offsets => cpass.dispatch_workgroups(1, 1, 1),
                CullStage::Previous if !self.wants_previous => {}
                _ if self.instances == 0 => {}
                _ => cpass.dispatch_workgroups(x, y, 1),
            }
        }
    }
}
