//! A frame's culls on the GPU-driven path
//! ([`Renderer::prepare_draws`](crate::Renderer::prepare_draws) there), in
//! one submission: each crowd's mirror synced (and its simulation
//! stepped), its camera culled (occlusion culling's late phase prepared
//! for the frame's passes), then, with shadows, the light fitted on the
//! GPU to what the camera's cull drew and the casters culled against it.
//! The renderer then plans the draws (`renderer/gpu_draws.rs`).

use std::sync::{Arc, Mutex, MutexGuard};

use throng_crowd::camera::Frustum;
use throng_crowd::crowd::{Crowd, DrawView};

use super::plan::{CrowdPlan, plan};
use super::{CrowdGpu, GpuDriven};
use crate::base::error::RenderError;
use crate::base::options::FrameStats;
use crate::base::sync::lock;
use crate::device::pass_timer::{PassTimer, SpanKind};
use crate::model::gpu_model::GpuModel;
use crate::occlusion::{DepthPyramid, LateView};
use crate::passes::cull::{CullList, CullPass, CullPhase, CullRequest};
use crate::passes::mirror::crowd_mirror::CrowdMirror;
use crate::shadow::light_fit::{self, LightFitPass};
use crate::shadow::map::Shadow;

/// Per crowd: its indirect draws (none for an empty crowd).
pub(crate) type Plans = Vec<CrowdPlan>;

impl GpuDriven {
    /// A frame's culls, in one submission: each crowd's mirror synced (and
    /// its simulation stepped), its camera culled (and the late phase
    /// prepared), then, with `light`, the light fitted on the GPU and the
    /// casters culled. Returns each crowd's plan and the frame's counts so
    /// far.
    pub(crate) fn cull(
        &mut self,
        inputs: &CullInputs<'_>,
        light: Option<LightCull<'_>>,
    ) -> Result<(Plans, FrameStats), RenderError> {
        let (device, queue) = (inputs.device, inputs.queue);
        self.begin_frame(device, inputs.view, inputs.crowds.len());
        let mut stats = FrameStats::default();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng cull"),
        });
        // The shared mirrors this frame's crowds use, held until their
        // culls are recorded.
        let held = self.held_mirrors(device, inputs.crowds);
        let mut guards: Vec<_> = held.iter().map(|m| m.as_deref().map(lock)).collect();
        let cull = FrameCull {
            inputs,
            pass: &self.pass,
        };
        let plans = cull.cameras(&mut self.crowds, &mut guards, &mut encoder, &mut stats)?;
        let shadows = light.is_some();
        let shadow_late = light.as_ref().is_some_and(|l| l.shadow_pyramid.is_some());
        if let Some(light) = light {
            let fit = &mut self.light_fit;
            cull.casters(light, fit, &mut self.crowds, &plans, &guards, &mut encoder)?;
        }
        let submitting = web_time::Instant::now();
        queue.submit([encoder.finish()]);
        stats.submit_ms += submitting.elapsed().as_secs_f64() * 1e3;
        drop(guards);
        let late = inputs.occlusion.is_some();
        self.after_submit(device, &plans, late, shadows, shadow_late);
        Ok((plans, stats))
    }

    /// Makes room for `crowds` crowds and notes the frame's camera `view`.
    fn begin_frame(&mut self, device: &wgpu::Device, view: DrawView, crowds: usize) {
        if self.crowds.len() < crowds {
            self.crowds
                .resize_with(crowds, || GpuDriven::crowd_gpu(device));
        }
        self.used = crowds;
        self.view = Some(view);
    }

    /// Per crowd, the shared mirror it uses this frame, if this renderer
    /// shares mirrors and the crowd is not simulated (a simulation steps
    /// its own).
    pub(crate) fn held_mirrors(
        &self,
        device: &wgpu::Device,
        crowds: &[&Crowd],
    ) -> Vec<Option<Arc<Mutex<CrowdMirror>>>> {
        crowds
            .iter()
            .zip(&self.crowds)
            .map(|(crowd, c)| {
                let shared = self.shared.as_ref().filter(|_| c.simulation.is_none())?;
                Some(shared.mirror(device, crowd.identity()))
            })
            .collect()
    }

    /// After the frame's culls were submitted: each list that ran collects
    /// what its cull drew (occlusion culling's late phases: that of frames
    /// before), and the simulations theirs.
    fn after_submit(
        &mut self,
        device: &wgpu::Device,
        plans: &Plans,
        late: bool,
        shadows: bool,
        shadow_late: bool,
    ) {
        for c in &self.crowds {
            if let Some(sim) = &c.simulation {
                sim.after_submit();
            }
        }
        for (c, plan) in self.crowds.iter_mut().zip(plans) {
            if plan.is_empty() {
                continue;
            }
            c.camera.after_submit(device);
            if late {
                c.late.after_submit(device);
            }
            if shadows {
                c.shadow.after_submit(device);
                if shadow_late {
                    c.shadow_late.after_submit(device);
                }
            }
        }
    }
}

/// What a frame's culls read of the renderer's (the path's owner,
/// [`GpuDriven`], holds the rest).
pub(crate) struct CullInputs<'a> {
    pub(crate) device: &'a wgpu::Device,
    pub(crate) queue: &'a wgpu::Queue,
    /// Each view's cull pass is GPU-timed, where the device can.
    pub(crate) timer: Option<&'a PassTimer>,
    /// The camera's view.
    pub(crate) view: DrawView,
    pub(crate) crowds: &'a [&'a Crowd],
    pub(crate) models: &'a [&'a GpuModel],
    /// Occlusion culling's late phase, when the frame culls in two.
    pub(crate) occlusion: Option<LateView<'a>>,
    /// A prepass wants the frame before's records (motion vectors).
    pub(crate) prepass: bool,
    /// Leave hidden parts out of the look classes' draws
    /// ([`crate::options::RendererOptions::cull_hidden_parts`]).
    pub(crate) cull_hidden_parts: bool,
}

/// The shadow map's part of a frame's culls.
pub(crate) struct LightCull<'a> {
    pub(crate) map: &'a mut Shadow,
    pub(crate) direction: glam::Vec3,
    /// The early shadow pass's depth pyramid, when the light culls in two
    /// phases.
    pub(crate) shadow_pyramid: Option<&'a DepthPyramid>,
}

/// What every cull of the frame records with.
struct FrameCull<'a> {
    inputs: &'a CullInputs<'a>,
    pass: &'a CullPass,
}

impl<'a> FrameCull<'a> {
    /// A GPU-timed span of the frame's compute passes, where the device
    /// times them.
    fn span(&self, name: &'static str) -> Option<wgpu::ComputePassTimestampWrites<'a>> {
        let t = self.inputs.timer?;
        Some(t.compute_writes(t.span(name, SpanKind::Prepared)?))
    }

    /// Syncs each crowd's mirror (its own, or the shared one `guards`
    /// holds), steps its simulation, plans its draws and prepares and
    /// records its camera's cull (and the late phase's, recorded later with
    /// the frame's passes). Returns the plans.
    fn cameras(
        &self,
        crowd_gpus: &mut [CrowdGpu],
        guards: &mut [Option<MutexGuard<'_, CrowdMirror>>],
        encoder: &mut wgpu::CommandEncoder,
        stats: &mut FrameStats,
    ) -> Result<Plans, RenderError> {
        let (device, queue) = (self.inputs.device, self.inputs.queue);
        let mut plans = Vec::with_capacity(self.inputs.crowds.len());
        for ((crowd, c), guard) in self.inputs.crowds.iter().zip(crowd_gpus).zip(guards) {
            let mirror = match guard {
                Some(g) => &mut **g,
                None => c.mirror.get_or_insert_with(|| CrowdMirror::new(device)),
            };
            if self.inputs.prepass {
                // Before the sync changes them: the frame before's transforms.
                mirror.keep_previous(device, queue, crowd.clock())?;
            }
            let sync = mirror.sync(device, queue, encoder, self.pass, crowd)?;
            if let Some(sim) = &mut c.simulation {
                sim.encode(device, queue, encoder, mirror, crowd)?;
            }
            stats.record_bytes += sync.bytes;
            stats.instances += crowd.len() as u32;
            if crowd.is_empty() {
                // Nothing to cull or draw.
                plans.push(CrowdPlan::default());
                continue;
            }
            let crowd_plan = plan(
                crowd,
                mirror.tables(),
                self.inputs.models,
                self.inputs.cull_hidden_parts,
            )?;
            let request = CullRequest {
                view: self.inputs.view,
                now: crowd.clock(),
                draws: &crowd_plan.specs,
                phase: match self.inputs.occlusion {
                    Some(_) => CullPhase::Early,
                    None => CullPhase::Only,
                },
                previous: self.inputs.prepass.then(|| mirror.previous()).flatten(),
            };
            c.camera
                .prepare(device, queue, self.pass, mirror, &request)?;
            // The late phase is recorded with the frame's passes, after the
            // early phase's draws and the pyramid of their depth.
            if let Some(late) = &self.inputs.occlusion {
                let request = CullRequest {
                    phase: CullPhase::Late {
                        early: &c.camera,
                        pyramid: late.pyramid,
                        clip_from_world: late.clip_from_world,
                        reversed: late.reversed,
                    },
                    ..request
                };
                c.late.prepare(device, queue, self.pass, mirror, &request)?;
            }
            c.camera.encode(encoder, self.pass, self.span("cull"));
            plans.push(crowd_plan);
        }
        Ok(plans)
    }

    /// Shadows: the light is fitted on the GPU to what the camera's cull
    /// drew, then the casters are culled against the light's volume (not
    /// the camera's: an instance out of view still casts into it), all in
    /// this submission. The light view's planes and the shadow uniforms'
    /// matrix are copied from the fit over what the CPU wrote.
    fn casters(
        &self,
        light: LightCull<'_>,
        fit: &mut LightFitPass,
        crowd_gpus: &mut [CrowdGpu],
        plans: &Plans,
        guards: &[Option<MutexGuard<'_, CrowdMirror>>],
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), RenderError> {
        let (device, queue) = (self.inputs.device, self.inputs.queue);
        let sh = light.map;
        sh.light = None;
        sh.write_uniforms(queue, glam::Mat4::IDENTITY);
        let cameras: Vec<&CullList> = crowd_gpus
            .iter()
            .zip(plans)
            .filter(|(_, plan)| !plan.is_empty())
            .map(|(c, _)| &c.camera)
            .collect();
        fit.encode(device, queue, encoder, light.direction, &cameras)?;
        let fit = fit.fit();
        let (at, bytes) = light_fit::MATRIX;
        encoder.copy_buffer_to_buffer(fit, at, &sh.uniform, 0, bytes);
        let light_view = DrawView {
            frustum: Some(Frustum {
                planes: [glam::Vec4::ZERO; 6],
            }),
            lod_tints: false,
            lod_scale: sh.caster_lod_scale(self.inputs.view.lod_scale),
            ..self.inputs.view
        };
        let casters = self
            .inputs
            .crowds
            .iter()
            .zip(crowd_gpus)
            .zip(plans)
            .zip(guards);
        for (((crowd, c), plan), guard) in casters {
            if plan.is_empty() {
                continue;
            }
            let Some(mirror) = guard.as_deref().or(c.mirror.as_ref()) else {
                continue; // synced above: never
            };
            let request = CullRequest {
                view: light_view,
                now: crowd.clock(),
                draws: &plan.specs,
                phase: match light.shadow_pyramid {
                    Some(_) => CullPhase::Early,
                    None => CullPhase::Only,
                },
                previous: None,
            };
            c.shadow
                .prepare(device, queue, self.pass, mirror, &request)?;
            let (at, bytes) = light_fit::PLANES;
            encoder.copy_buffer_to_buffer(fit, at, c.shadow.view_buffer(), 0, bytes);
            // The light's late phase tests against the pyramid of the
            // early shadow pass, in the light's projection: the fitted
            // matrix is copied over the view's `clip_from_world`.
            if let Some(pyramid) = light.shadow_pyramid {
                let request = CullRequest {
                    phase: CullPhase::Late {
                        early: &c.shadow,
                        pyramid: pyramid.read(),
                        clip_from_world: glam::Mat4::IDENTITY,
                        reversed: false,
                    },
                    ..request
                };
                c.shadow_late
                    .prepare(device, queue, self.pass, mirror, &request)?;
                let late = c.shadow_late.view_buffer();
                encoder.copy_buffer_to_buffer(fit, at, late, 0, bytes);
                let (from, bytes) = light_fit::MATRIX;
                let to = std::mem::offset_of!(throng_core::gpu::CullView, clip_from_world);
                encoder.copy_buffer_to_buffer(fit, from, late, to as u64, bytes);
            }
            c.shadow
                .encode(encoder, self.pass, self.span("shadow cull"));
        }
        Ok(())
    }
}
