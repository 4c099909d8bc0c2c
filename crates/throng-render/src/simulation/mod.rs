//! The GPU simulation, a feature in a folder of its own (its WGSL beside
//! its Rust: `simulation.wgsl`, the hook's contract, `simulation_passes.wgsl`,
//! `agent.wgsl`, and the built-in steering's `navigation.wgsl`,
//! `navigate.wgsl`, `steer_seek.wgsl`, `steer_avoid.wgsl`,
//! `goal_exchange.wgsl`).
//!
//! The hook: a compute function of the user's own, in WGSL
//! composed with Throng's modules (`// #import simulation`), that steers
//! the crowd's simulated instances every frame on the GPU-driven path —
//! boids, flow fields, goal seeking — with the previous step's agents in a
//! read-only neighbour grid. See `simulation.wgsl` beside this file for the hook's
//! contract and `examples/flock.wgsl` for one.
//!
//! An instance is handed to the simulation by
//! [`throng_crowd::crowd::Motion::Simulated`]; from then on **the GPU is
//! its authority**. Its agent (position, heading, velocity, four user
//! words) lives only in GPU memory; its transform and, if asked, its clip's
//! playback speed (following its ground speed) are written by the
//! simulation over the mirror's streams before the cull. The CPU's queries
//! of its pose ([`throng_crowd::crowd::Crowd::world_transform`], `state`,
//! `bone_world_transform`) answer an error rather than a stale pose; a
//! [`crate::passes::readback::PoseReadback`] brings chosen instances' poses back,
//! a frame or two late. The CPU paths (packaged, unbounded) cannot draw
//! simulated instances and say so.
//!
//! Each step is five dispatches over the dense slots (see
//! `simulation_passes.wgsl`): resolve (each agent's state at the
//! start of the step, fresh ones from their hand-over), scan and fill (the
//! neighbour grid: [`SIM_CELLS`] hashed buckets of cells
//! [`SimulationHook::cell_size`] wide), the hook's steering, and apply. The
//! agents are double-buffered by stable instance slot, so despawning other
//! instances (which moves dense slots) never mixes agents up.
//!
//! Two things a hook may have besides its own `@group(1)`: a flow field
//! ([`Simulation::set_navigation`], for hooks that import `navigation`,
//! bound in `@group(2)`; see [`crate::simulation::navigation`]) and, per
//! model, gaits chosen by speed ([`Simulation::set_gaits`]; see
//! [`crate::simulation::gaits`]). Throng's own hook, built from the modules
//! any hook can import, is [`crate::simulation::navigate`].

use throng_core::clock::TICKS_PER_SECOND;
use throng_core::simulation::{
    GpuAgent, GpuGait, GpuNeighbour, SIM_CELLS, SIM_MAX_DT, SimulationParams,
};
use throng_crowd::crowd::{Crowd, ModelId};
use throng_crowd::navigation::FlowField;

use crate::base::error::RenderError;
use crate::base::shader::compose::{ShaderError, compose};
use crate::base::shader::program::Program;
use crate::device::buffers::{Grown, STORAGE, WORKGROUP, dispatch_size, make};
use crate::device::context::catch_device_errors;
use crate::device::timer::GpuTimer;
use crate::passes::mirror::crowd_mirror::CrowdMirror;
use crate::program::bind_groups::{SimStage, simulation_entries};
use crate::simulation::gaits::Gaits;
use crate::simulation::navigation::{NavigationBinding, navigation_layout};

pub mod gaits;
pub mod navigate;
pub mod navigation;

/// A simulation hook as the user gives it.
#[derive(Clone, Copy, Debug)]
pub struct SimulationHook<'a> {
    /// Its file name, for messages.
    pub file: &'a str,
    /// Its WGSL: imports `simulation` and defines
    /// `fn steer(agent: Agent, slot: u32) -> Agent`.
    pub source: &'a str,
    /// Side of a neighbour-grid cell, world units: about the radius the
    /// steering looks at, so that the 3 × 3 cells around an agent hold
    /// its neighbours.
    pub cell_size: f32,
    /// The layout of the hook's own `@group(1)` (`None`: it binds nothing
    /// of its own).
    pub layout: Option<&'a wgpu::BindGroupLayout>,
}

/// A compiled simulation hook and its GPU state for one crowd.
pub struct Simulation {
    file: String,
    cell_size: f32,
    layouts: Vec<wgpu::BindGroupLayout>,
    pipelines: Vec<wgpu::ComputePipeline>,
    wants_group: bool,
    group: Option<wgpu::BindGroup>,
    /// The layout of `@group(2)`, for a hook that imports `navigation`.
    navigation_layout: Option<wgpu::BindGroupLayout>,
    navigation: Option<NavigationBinding>,
    /// Gaits by model index, and whether `gait_buffer` is behind them.
    gaits: Vec<GpuGait>,
    gait_buffer: Grown,
    gaits_dirty: bool,
    params: wgpu::Buffer,
    /// Agents by stable slot, double-buffered: `agents[latest]` holds the
    /// last step's.
    agents: [Grown; 2],
    latest: usize,
    previous: Grown,
    counts: wgpu::Buffer,
    ranks: Grown,
    starts: wgpu::Buffer,
    neighbours: Grown,
    last_tick: Option<u64>,
    step: u32,
    /// Times its passes on the GPU ([`Simulation::time_on_gpu`]).
    timer: Option<GpuTimer>,
}

/// Bytes of `n` elements of `T`.
fn bytes_of<T>(n: usize) -> u64 {
    (n.max(1) * std::mem::size_of::<T>()) as u64
}

impl Simulation {
    /// Compiles `hook` with Throng's passes. A hook that does not compose
    /// (unknown import, no `simulation` import), does not compile, or binds
    /// what its layout does not describe is an error naming its file and
    /// wgpu's words.
    pub fn new(device: &wgpu::Device, hook: &SimulationHook<'_>) -> Result<Self, RenderError> {
        let source = compose_hook(hook)?;
        let navigation = source
            .contains("\n// ---- navigation.wgsl\n")
            .then(|| navigation_layout(device));
        let modules = Modules::compile(device, hook, source)?;
        let mut layouts = Vec::new();
        let mut pipelines = Vec::new();
        for stage in SimStage::ALL {
            let (layout, pipeline) =
                stage_pipeline(device, hook, stage, &modules, navigation.as_ref())?;
            layouts.push(layout);
            pipelines.push(pipeline);
        }
        let rw = STORAGE | wgpu::BufferUsages::COPY_SRC;
        let cells = SIM_CELLS as u64 * 4;
        Ok(Self {
            file: hook.file.to_owned(),
            cell_size: hook.cell_size,
            layouts,
            pipelines,
            wants_group: hook.layout.is_some(),
            group: None,
            navigation_layout: navigation,
            navigation: None,
            gaits: Vec::new(),
            gait_buffer: Grown::new(
                device,
                "throng gaits",
                STORAGE | wgpu::BufferUsages::COPY_DST,
            ),
            gaits_dirty: true,
            params: make(
                device,
                "throng simulation params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                std::mem::size_of::<SimulationParams>() as u64,
            ),
            agents: [
                Grown::new(device, "throng agents (a)", rw),
                Grown::new(device, "throng agents (b)", rw),
            ],
            latest: 0,
            previous: Grown::new(device, "throng agents at the step's start", rw),
            counts: make(device, "throng grid counts", rw, cells),
            ranks: Grown::new(device, "throng grid ranks", STORAGE),
            starts: make(device, "throng grid starts", rw, cells + 4),
            neighbours: Grown::new(device, "throng neighbour grid", STORAGE),
            last_tick: None,
            step: 0,
            timer: None,
        })
    }

    /// The hook's own `@group(1)`, made with the layout its
    /// [`SimulationHook::layout`] gave.
    pub fn set_bind_group(&mut self, group: wgpu::BindGroup) {
        self.group = Some(group);
    }

    /// The flow field a hook that imports `navigation` follows (bound in
    /// its `@group(2)`), replacing the previous one from the next step. A
    /// hook that does not import `navigation` has no use for one: an error.
    pub fn set_navigation(
        &mut self,
        device: &wgpu::Device,
        field: &FlowField,
    ) -> Result<(), RenderError> {
        let Some(layout) = &self.navigation_layout else {
            return Err(RenderError::Simulation(format!(
                "{}: the hook does not import navigation, so it cannot follow a flow field",
                self.file
            )));
        };
        self.navigation = Some(NavigationBinding::new(device, layout, field)?);
        Ok(())
    }

    /// Bytes of the flow field last set (0: none).
    pub fn navigation_bytes(&self) -> u64 {
        self.navigation.as_ref().map_or(0, |n| n.bytes)
    }

    /// `model`'s gaits in `crowd` (`None`: its simulated instances keep
    /// their clip, its playback following their speed over their motion's
    /// ground speed). Checked against the model's clips.
    pub fn set_gaits(
        &mut self,
        crowd: &Crowd,
        model: ModelId,
        gaits: Option<&Gaits>,
    ) -> Result<(), RenderError> {
        let clips = crowd
            .model(model)
            .map_err(|e| RenderError::Simulation(format!("gaits: {e}")))?
            .clips
            .len();
        let record = match gaits {
            Some(g) => g.gpu(clips)?,
            None => GpuGait::default(),
        };
        let i = model.0 as usize;
        if self.gaits.len() <= i {
            self.gaits.resize(i + 1, GpuGait::default());
        }
        self.gaits[i] = record;
        self.gaits_dirty = true;
        Ok(())
    }

    /// Times the simulation's passes (resolve, grid, steering, apply) on
    /// the GPU from now on, where the device has timestamp queries (false
    /// where it has not); read with [`Self::gpu_time`].
    pub fn time_on_gpu(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) -> bool {
        self.timer = GpuTimer::new(device, queue);
        self.timer.is_some()
    }

    /// The GPU time of the latest timed step, waiting for the GPU (for
    /// benchmarks; `None` before one was timed or without
    /// [`Self::time_on_gpu`]).
    pub fn gpu_time(&self, device: &wgpu::Device) -> Option<std::time::Duration> {
        self.timer.as_ref()?.wait(device)
    }

    /// Starts reading back the step's timestamps (the renderer calls this
    /// after the submit that carried the step).
    pub(crate) fn after_submit(&self) {
        if let Some(t) = &self.timer {
            t.after_submit();
        }
    }

    /// The hook's file name.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Steps taken.
    pub fn steps(&self) -> u32 {
        self.step
    }

    /// The agents of the last step, by stable instance slot
    /// ([`GpuAgent`]s; a slot whose serial differs from its instance's
    /// motion is not its agent).
    pub fn agents(&self) -> &wgpu::Buffer {
        &self.agents[self.latest].buffer
    }

    /// Records one step over `crowd` at its clock, after `mirror`'s sync
    /// (which this reads and writes) and before the cull.
    pub(crate) fn encode(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        mirror: &CrowdMirror,
        crowd: &Crowd,
    ) -> Result<(), RenderError> {
        let now = crowd.clock();
        let dt = self.advance_clock(now);
        if crowd.simulated_count() == 0 {
            return Ok(());
        }
        self.check_bindings()?;
        let len = crowd.len();
        let capacity = crowd.slot_capacity();
        self.reserve(device, encoder, len, capacity)?;
        self.upload_gaits(device, queue)?;
        let params = SimulationParams {
            now_lo: now as u32,
            now_hi: (now >> 32) as u32,
            dt,
            instance_count: len as u32,
            cell_size: self.cell_size,
            agent_capacity: capacity as u32,
            seconds: throng_core::motion::seconds_f32(now),
            step: self.step,
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        encoder.clear_buffer(&self.counts, 0, None);
        let groups = self.bind_groups(device, mirror);
        self.dispatch(encoder, &groups, len);
        self.latest = 1 - self.latest;
        self.step = self.step.wrapping_add(1);
        Ok(())
    }

    /// Seconds since the last step (0 for the first, or after the clock
    /// went back), at most [`SIM_MAX_DT`]; `now` becomes the last step's
    /// tick.
    fn advance_clock(&mut self, now: u64) -> f32 {
        let dt = match self.last_tick {
            Some(last) if now >= last => {
                ((now - last) as f64 / TICKS_PER_SECOND as f64).min(SIM_MAX_DT as f64) as f32
            }
            _ => 0.0,
        };
        self.last_tick = Some(now);
        dt
    }

    /// The bindings the hook declared are set: a flow field for a hook that
    /// imports `navigation`, a bind group for one with a group 1 layout.
    fn check_bindings(&self) -> Result<(), RenderError> {
        if self.navigation_layout.is_some() && self.navigation.is_none() {
            return Err(RenderError::Simulation(format!(
                "{}: the hook imports navigation but no flow field was set (Simulation::set_navigation)",
                self.file
            )));
        }
        if self.wants_group && self.group.is_none() {
            return Err(RenderError::Simulation(format!(
                "{}: the hook has a group 1 layout but no bind group was set (Simulation::set_bind_group)",
                self.file
            )));
        }
        Ok(())
    }

    /// Grows the agents to the crowd's slot `capacity` (their contents
    /// copied over in `encoder`: agents survive growth) and the step's
    /// scratch (agents at its start, grid ranks, neighbours) to its `len`
    /// instances.
    fn reserve(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        len: usize,
        capacity: usize,
    ) -> Result<(), RenderError> {
        // Agents survive growth: the old buffers' contents are carried over.
        for agents in &mut self.agents {
            if let Some(old) = agents.reserve_keeping(device, bytes_of::<GpuAgent>(capacity))? {
                encoder.copy_buffer_to_buffer(&old, 0, &agents.buffer, 0, old.size());
            }
        }
        self.previous.reserve(device, bytes_of::<GpuAgent>(len))?;
        self.ranks.reserve(device, bytes_of::<u32>(len))?;
        self.neighbours
            .reserve(device, bytes_of::<GpuNeighbour>(len))?;
        Ok(())
    }

    /// Writes the gaits by model index (one default record when none was
    /// set) if they changed since the last step.
    fn upload_gaits(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<(), RenderError> {
        if !self.gaits_dirty {
            return Ok(());
        }
        let records = if self.gaits.is_empty() {
            vec![GpuGait::default()]
        } else {
            self.gaits.clone()
        };
        let bytes: &[u8] = bytemuck::cast_slice(&records);
        self.gait_buffer.reserve(device, bytes.len() as u64)?;
        queue.write_buffer(&self.gait_buffer.buffer, 0, bytes);
        self.gaits_dirty = false;
        Ok(())
    }

    /// Each stage's group 0, binding the buffers its entry point uses: the
    /// agents of the last step are read (`before`) and this step's written
    /// to the other buffer (`after`).
    fn bind_groups(&self, device: &wgpu::Device, mirror: &CrowdMirror) -> Vec<wgpu::BindGroup> {
        let (before, after) = (self.latest, 1 - self.latest);
        let buffer = |b: u32| -> &wgpu::Buffer {
            match b {
                0 => &self.params,
                1 => mirror.motions(),
                2 => &self.agents[before].buffer,
                3 => &self.previous.buffer,
                4 => &self.counts,
                5 => &self.ranks.buffer,
                6 => &self.starts,
                7 => &self.neighbours.buffer,
                8 => &self.agents[after].buffer,
                9 => mirror.transforms(),
                10 => mirror.states(),
                11 => mirror.models(),
                12 => mirror.clips(),
                13 => &self.gait_buffer.buffer,
                _ => mirror.ground(),
            }
        };
        SimStage::ALL
            .iter()
            .zip(&self.layouts)
            .map(|(stage, layout)| {
                let entries: Vec<wgpu::BindGroupEntry> = stage
                    .bindings()
                    .iter()
                    .map(|&b| wgpu::BindGroupEntry {
                        binding: b,
                        resource: buffer(b).as_entire_binding(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(stage.entry()),
                    layout,
                    entries: &entries,
                })
            })
            .collect()
    }

    /// Records the step's compute pass (timed when the timer is idle): each
    /// stage's pipeline over the `len` dense slots (the scan in one
    /// workgroup), the steering with the hook's own group 1 and the flow
    /// field's group 2.
    fn dispatch(&self, encoder: &mut wgpu::CommandEncoder, groups: &[wgpu::BindGroup], len: usize) {
        let timed = self.timer.as_ref().filter(|t| t.idle());
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng simulation"),
            timestamp_writes: timed.map(|t| t.compute_writes(true, true)),
        });
        let (x, y) = dispatch_size((len as u32).div_ceil(WORKGROUP));
        for ((stage, pipeline), group) in SimStage::ALL.iter().zip(&self.pipelines).zip(groups) {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            if *stage == SimStage::Steer {
                if let Some(user) = &self.group {
                    pass.set_bind_group(1, user, &[]);
                }
                if let Some(n) = &self.navigation {
                    pass.set_bind_group(2, &n.group, &[]);
                }
            }
            if *stage == SimStage::Scan {
                pass.dispatch_workgroups(1, 1, 1);
            } else {
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        drop(pass);
        if let Some(t) = timed {
            t.resolve(encoder);
        }
    }
}

/// Checks the hook's cell size and composes its WGSL with Throng's
/// modules; it must import `simulation`.
fn compose_hook(hook: &SimulationHook<'_>) -> Result<String, RenderError> {
    if !(hook.cell_size.is_finite() && hook.cell_size > 0.0) {
        return Err(RenderError::Simulation(format!(
            "{}: the neighbour grid's cell size must be finite and positive, got {}",
            hook.file, hook.cell_size
        )));
    }
    let source = compose(hook.file, hook.source, None)?;
    if !source.contains("\n// ---- simulation.wgsl\n") {
        return Err(ShaderError::MissingImport {
            file: hook.file.to_owned(),
            name: "simulation".into(),
        }
        .into());
    }
    Ok(source)
}

/// The two shader modules a simulation's pipelines come from.
struct Modules {
    /// Throng's passes (resolve, scan, fill, apply).
    passes: wgpu::ShaderModule,
    /// The hook's composed source, with its `steer`.
    user: wgpu::ShaderModule,
}

impl Modules {
    /// Compiles Throng's passes and the hook's composed `source`; a hook
    /// that does not compile is an error naming its file.
    fn compile(
        device: &wgpu::Device,
        hook: &SimulationHook<'_>,
        source: String,
    ) -> Result<Self, RenderError> {
        let passes = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::Simulation.label()),
            source: wgpu::ShaderSource::Wgsl(Program::Simulation.source().into()),
        });
        let user = catch_device_errors(
            device,
            &format!("compiling the simulation hook {}", hook.file),
            || {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(hook.file),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                })
            },
        )?;
        Ok(Self { passes, user })
    }
}

/// `stage`'s group 0 layout and its pipeline: the steering's from the
/// hook's module, with the hook's group 1 layout and the flow field's
/// group 2 (for a hook that imports `navigation`), the other stages' from
/// Throng's passes. A pipeline the device refuses is an error saying which.
fn stage_pipeline(
    device: &wgpu::Device,
    hook: &SimulationHook<'_>,
    stage: SimStage,
    modules: &Modules,
    navigation: Option<&wgpu::BindGroupLayout>,
) -> Result<(wgpu::BindGroupLayout, wgpu::ComputePipeline), RenderError> {
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(stage.entry()),
        entries: &simulation_entries(Some(stage)),
    });
    let steer = stage == SimStage::Steer;
    let mut groups = vec![Some(&layout)];
    if steer {
        groups.push(hook.layout);
        if let Some(n) = navigation {
            groups.push(Some(n));
        }
    }
    let what = if steer {
        format!(
            "creating the pipeline of the simulation hook {} (its steer(), and its bindings against Throng's group 0 and the layout given for group 1)",
            hook.file
        )
    } else {
        format!("creating the simulation pass {}", stage.entry())
    };
    let pipeline = catch_device_errors(device, &what, || {
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(stage.entry()),
            bind_group_layouts: &groups,
            immediate_size: 0,
        });
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(stage.entry()),
            layout: Some(&pipeline_layout),
            module: if steer {
                &modules.user
            } else {
                &modules.passes
            },
            entry_point: Some(stage.entry()),
            compilation_options: Default::default(),
            cache: None,
        })
    })?;
    Ok((layout, pipeline))
}
