//! The renderer's GPU-driven path ([`RecordPath::GpuDriven`]): each crowd is
//! mirrored on the GPU ([`CrowdMirror`], only changed instances uploaded), a
//! compute cull pass per view builds the records and indirect draw
//! arguments ([`CullList`]), and every (model, LOD, fading, submesh) is one
//! `draw_indexed_indirect` whose instance count the GPU wrote. The CPU's
//! work per frame is proportional to the crowd's changes and its number of
//! draws, not to its instances.
//!
//! Shadows: the light is fitted, as on the CPU paths, to the box of the
//! instances the camera sees, which the camera's cull pass writes; the fit
//! runs on the GPU ([`LightFitPass`]) between the camera's and the light's
//! cull passes, in the same submission, so no frame waits for the GPU.
//! [`FrameStats::visible`] and the shadow casters report the newest frame
//! whose counts have come back (one or two frames late), or exactly after
//! [`Renderer::wait_gpu_stats`](crate::Renderer::wait_gpu_stats).
//!
//! The path's owner, [`GpuDriven`], in a folder of its own on the floor
//! above shadows and occlusion: here its state per renderer and per crowd;
//! beside it, a crowd's indirect draws planned (`plan.rs`), a frame's
//! culls (`cull.rs`) and its counts (`stats.rs`). The passes it runs are
//! below it (`passes/cull/`, `passes/mirror/`: shadows' light fit and the
//! simulation use them too); the renderer's side of the frame, the draws
//! of every list, is `renderer/gpu_frame.rs` and `renderer/gpu_draws.rs`.

use throng_crowd::crowd::{Crowd, DrawView};

use crate::base::options::FrameStats;
#[cfg(doc)]
use crate::base::options::RecordPath;
use crate::device::pass_timer::{PassTimer, SpanKind};
use crate::draw::items::DrawItem;
use crate::passes::cull::{CullList, CullPass};
use crate::passes::mirror::crowd_mirror::CrowdMirror;
use crate::passes::mirror::shared::SharedMirrors;
use crate::shadow::light_fit::LightFitPass;
use crate::simulation::Simulation;

pub(crate) mod cull;
pub(crate) mod plan;
pub(crate) mod stats;

pub(crate) use plan::CrowdPlan;

/// True if the adapter and device can run the GPU-driven path: storage
/// buffers in the vertex stage, compute shaders with 8 storage buffers,
/// indirect draws with a first instance.
pub fn supports_gpu_driven(adapter: &wgpu::Adapter, device: &wgpu::Device) -> bool {
    let flags = adapter.get_downlevel_capabilities().flags;
    crate::program::supports_unbounded(adapter, device)
        && flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        && flags.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION)
        && device
            .features()
            .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
        && device.limits().max_storage_buffers_per_shader_stage >= 8
        && device.limits().max_compute_workgroup_size_x >= 64
}

/// The GPU-driven state of a renderer.
pub(crate) struct GpuDriven {
    pub(crate) pass: CullPass,
    pub(crate) crowds: Vec<CrowdGpu>,
    /// Crowds drawn in the frame last prepared.
    pub(crate) used: usize,
    /// Their indirect draws, and per draw the vertices an instance shades
    /// and whether it draws the impostor.
    pub(crate) specs: Vec<CrowdPlan>,
    /// What the CPU's lists of instances with animation layers drew last
    /// frame (added to the GPU's counts).
    pub(crate) layered_stats: FrameStats,
    /// Fits the shadow light on the GPU.
    light_fit: LightFitPass,
    /// Occlusion culling's late phase's draws: opaque first, blended last
    /// (empty for a frame drawn in one phase).
    pub(crate) late_items: Vec<DrawItem>,
    /// Occlusion culling's late phase's shadow casters.
    pub(crate) shadow_late_items: Vec<DrawItem>,
    /// Mirrors shared with other views' renderers, if any
    /// ([`Renderer::share_mirrors`](crate::Renderer::share_mirrors)).
    pub(crate) shared: Option<SharedMirrors>,
    /// The camera's view of the frame last prepared (light views of the
    /// caller's choose their casters' LODs by it).
    pub(crate) view: Option<DrawView>,
}

/// One crowd's mirror and its views' lists.
pub(crate) struct CrowdGpu {
    /// Its own mirror (made when first synced): none while the renderer
    /// shares mirrors, unless it is simulated (a simulation steps its own).
    pub(crate) mirror: Option<CrowdMirror>,
    /// The camera's list: its only one, or occlusion culling's early phase.
    pub(crate) camera: CullList,
    /// Occlusion culling's late phase of the camera (unused without it).
    pub(crate) late: CullList,
    /// The light's list: its only one, or occlusion culling's early phase.
    pub(crate) shadow: CullList,
    /// Occlusion culling's late phase of the light (unused without it).
    pub(crate) shadow_late: CullList,
    /// The GPU simulation stepped over it, if any.
    pub(crate) simulation: Option<Simulation>,
}

impl GpuDriven {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        Self {
            pass: CullPass::new(device),
            crowds: Vec::new(),
            used: 0,
            specs: Vec::new(),
            layered_stats: FrameStats::default(),
            light_fit: LightFitPass::new(device),
            late_items: Vec::new(),
            shadow_late_items: Vec::new(),
            shared: None,
            view: None,
        }
    }

    fn crowd_gpu(device: &wgpu::Device) -> CrowdGpu {
        CrowdGpu {
            mirror: None,
            camera: CullList::new(device),
            late: CullList::new(device),
            shadow: CullList::new(device),
            shadow_late: CullList::new(device),
            simulation: None,
        }
    }

    /// Sets the simulation of crowd `index`.
    pub(crate) fn set_simulation(
        &mut self,
        device: &wgpu::Device,
        index: usize,
        simulation: Option<Simulation>,
    ) {
        if self.crowds.len() <= index {
            self.crowds
                .resize_with(index + 1, || Self::crowd_gpu(device));
        }
        self.crowds[index].simulation = simulation;
    }

    /// The simulation of crowd `index`.
    pub(crate) fn simulation_mut(&mut self, index: usize) -> Option<&mut Simulation> {
        self.crowds.get_mut(index)?.simulation.as_mut()
    }

    /// Uses `mirrors` from the next prepare on (the own mirrors are let go).
    pub(crate) fn share(&mut self, mirrors: SharedMirrors) {
        self.shared = Some(mirrors);
        for c in &mut self.crowds {
            if c.simulation.is_none() {
                c.mirror = None;
            }
        }
    }

    /// Bytes of the crowds' own mirrors.
    pub(crate) fn own_mirror_bytes(&self) -> u64 {
        self.crowds
            .iter()
            .filter_map(|c| c.mirror.as_ref())
            .map(CrowdMirror::gpu_bytes)
            .sum()
    }

    /// The shared mirror of `crowd`, when this renderer shares mirrors and
    /// one was made for it.
    pub(crate) fn shared_mirror(
        &self,
        crowd: &Crowd,
    ) -> Option<std::sync::Arc<std::sync::Mutex<CrowdMirror>>> {
        self.shared.as_ref()?.get(crowd.identity())
    }

    /// The mirror of crowd `index` and its simulation.
    pub(crate) fn mirror_of(&self, index: usize) -> Option<(&CrowdMirror, Option<&Simulation>)> {
        let c = self.crowds.get(index)?;
        Some((c.mirror.as_ref()?, c.simulation.as_ref()))
    }
}

impl GpuDriven {
    /// Records every used crowd's late phase of the camera (`shadow`
    /// false) or of the light (the early phase's depth pyramid built), each
    /// GPU-timed as `late cull` or `shadow late cull` where `timer` can.
    pub(crate) fn encode_late(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timer: Option<&PassTimer>,
        shadow: bool,
    ) {
        let name = if shadow {
            "shadow late cull"
        } else {
            "late cull"
        };
        for (c, plan) in self.crowds.iter().zip(&self.specs).take(self.used) {
            if !plan.is_empty() {
                let span =
                    timer.and_then(|t| Some(t.compute_writes(t.span(name, SpanKind::Frame)?)));
                let list = if shadow { &c.shadow_late } else { &c.late };
                list.encode_phase(encoder, &self.pass, span);
            }
        }
    }
}
