//! The renderer's side of the GPU simulation hook
//! ([`crate::simulation`]): a [`Simulation`] per crowd index on the
//! GPU-driven path, stepped after the crowd's mirror is synced and before
//! its cull; readbacks of chosen instances' poses; and the refusal of the
//! CPU paths, which cannot draw instances whose pose only the GPU knows.

use throng_crowd::crowd::{Crowd, InstanceId};

use super::{RecordPath, Renderer};
use crate::base::error::RenderError;
use crate::passes::readback::PoseReadback;
use crate::simulation::Simulation;

impl Renderer {
    /// Steps `simulation` every frame over the crowd at `crowd_index` of
    /// [`Self::prepare_draws`]'s crowds (`None` stops it). Only the
    /// GPU-driven path simulates; the others refuse.
    pub fn set_simulation(
        &mut self,
        crowd_index: usize,
        simulation: Option<Simulation>,
    ) -> Result<(), RenderError> {
        let Some(gd) = self.gpu.as_mut() else {
            return Err(RenderError::Simulation(format!(
                "the {:?} record path builds its draw lists on the CPU and cannot run a GPU simulation; use the GPU-driven path",
                self.path
            )));
        };
        gd.set_simulation(&self.device, crowd_index, simulation);
        Ok(())
    }

    /// The simulation stepped over the crowd at `crowd_index`, to bind its
    /// resources ([`Simulation::set_bind_group`]).
    pub fn simulation_mut(&mut self, crowd_index: usize) -> Option<&mut Simulation> {
        self.gpu.as_mut()?.simulation_mut(crowd_index)
    }

    /// Starts reading back `ids`' poses (transform, animation state, agent)
    /// as the GPU-driven path's frame last prepared left them, for the
    /// crowd at `crowd_index` (which must be `crowd`); see
    /// [`crate::passes::readback`] for the latency.
    pub fn read_poses(
        &self,
        crowd_index: usize,
        crowd: &Crowd,
        ids: &[InstanceId],
    ) -> Result<PoseReadback, RenderError> {
        let none = || {
            RenderError::Readback(format!(
                "no GPU-driven mirror for crowd {crowd_index}: the path is {:?}, or no frame of it was prepared",
                self.path
            ))
        };
        let gd = self.gpu.as_ref().ok_or_else(none)?;
        if let Some((mirror, simulation)) = gd.mirror_of(crowd_index) {
            return PoseReadback::request(
                &self.device,
                &self.queue,
                mirror,
                simulation,
                crowd,
                ids,
            );
        }
        // Shared with other views' renderers (never simulated).
        let shared = gd.shared_mirror(crowd).ok_or_else(none)?;
        let mirror = crate::base::sync::lock(&shared);
        PoseReadback::request(&self.device, &self.queue, &mirror, None, crowd, ids)
    }
}

/// The CPU paths' refusal of crowds with simulated instances.
pub(super) fn refuse_simulated(path: RecordPath, crowds: &[&Crowd]) -> Result<(), RenderError> {
    match crowds.iter().position(|c| c.simulated_count() > 0) {
        None => Ok(()),
        Some(i) => Err(RenderError::Simulation(format!(
            "crowd {i} has {} instances simulated on the GPU; the {path:?} record path builds its draw lists on the CPU, which does not know where they are (use the GPU-driven path)",
            crowds[i].simulated_count()
        ))),
    }
}
