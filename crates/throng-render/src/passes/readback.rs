//! Chosen instances' poses back from the GPU, asynchronously: what the CPU
//! asks of instances whose authority is the GPU (simulated ones, see
//! [`crate::simulation`]), or to check what the GPU-driven path drew.
//!
//! [`PoseReadback::request`] records copies of the instances' transforms
//! and states from a crowd's mirror (and their agents, with a simulation)
//! into a staging buffer and submits them; they hold what the frame last
//! prepared wrote. [`PoseReadback::poll`] answers `None` until the GPU has
//! finished that frame and the copy — typically one or two frames later
//! (the latency of any GPU readback; never a silently stale answer: each
//! [`ReadPose`] carries the tick it was taken at) — and
//! [`PoseReadback::wait`] blocks until then.

use std::sync::Arc;

use glam::{Mat4, Vec4};
use throng_core::gpu::{GpuInstance, GpuTransform};
use throng_core::motion::MotionKind;
use throng_core::simulation::GpuAgent;
use throng_crowd::crowd::{Crowd, InstanceId};

use crate::base::error::RenderError;
use crate::device::map_state::{MapState, Take};
use crate::passes::mirror::crowd_mirror::CrowdMirror;
use crate::simulation::Simulation;

/// Most instances one readback carries (one copy each per stream).
pub const MAX_READBACK: usize = 1 << 16;

/// One instance's pose as the GPU had it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadPose {
    /// The instance.
    pub id: InstanceId,
    /// `world_from_model`.
    pub world: Mat4,
    /// Its animation state (a simulated instance's playback speed is the
    /// GPU's).
    pub state: GpuInstance,
    /// Its agent, for an instance the simulation has stepped.
    pub agent: Option<GpuAgent>,
    /// The crowd clock of the frame it was taken from.
    pub tick: u64,
}

/// Bytes of one instance in the staging buffer.
const TRANSFORM: u64 = std::mem::size_of::<GpuTransform>() as u64;
const STATE: u64 = std::mem::size_of::<GpuInstance>() as u64;
const AGENT: u64 = std::mem::size_of::<GpuAgent>() as u64;
const STRIDE: u64 = TRANSFORM + STATE + AGENT;

/// A readback on its way ([`PoseReadback::request`]).
pub struct PoseReadback {
    buffer: wgpu::Buffer,
    /// Per instance: its id and the serial its agent must carry (`None`:
    /// not simulated).
    ids: Vec<(InstanceId, Option<u32>)>,
    tick: u64,
    status: Arc<MapState>,
}

impl PoseReadback {
    /// Copies `ids`' poses out of `mirror` (synced from `crowd` by the
    /// frame last prepared), and their agents out of `simulation`, and
    /// submits the copies. Unknown ids, and more than [`MAX_READBACK`], are
    /// errors.
    pub fn request(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mirror: &CrowdMirror,
        simulation: Option<&Simulation>,
        crowd: &Crowd,
        ids: &[InstanceId],
    ) -> Result<Self, RenderError> {
        if ids.len() > MAX_READBACK {
            return Err(RenderError::Readback(format!(
                "{} instances asked for; one readback carries at most {MAX_READBACK}",
                ids.len()
            )));
        }
        if mirror.len() as usize != crowd.len() {
            return Err(RenderError::Readback(format!(
                "the mirror holds {} instances and the crowd {}: prepare a frame of this crowd first",
                mirror.len(),
                crowd.len()
            )));
        }
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng pose readback"),
            size: (ids.len().max(1) as u64) * STRIDE,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng pose readback"),
        });
        let mut out = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            let d = crowd
                .dense_slot(id)
                .map_err(|e| RenderError::Readback(format!("instance {i} of the request: {e}")))?
                as u64;
            let at = i as u64 * STRIDE;
            encoder.copy_buffer_to_buffer(
                mirror.transforms(),
                d * TRANSFORM,
                &buffer,
                at,
                TRANSFORM,
            );
            encoder.copy_buffer_to_buffer(
                mirror.states(),
                d * STATE,
                &buffer,
                at + TRANSFORM,
                STATE,
            );
            let motion = crowd.gpu_motions().get(d as usize);
            let serial = match (motion, simulation) {
                (Some(m), Some(sim)) if m.motion_kind() == MotionKind::Simulated => {
                    let k = m.base as u64;
                    if (k + 1) * AGENT <= sim.agents().size() {
                        encoder.copy_buffer_to_buffer(
                            sim.agents(),
                            k * AGENT,
                            &buffer,
                            at + TRANSFORM + STATE,
                            AGENT,
                        );
                        Some(m.b[0])
                    } else {
                        None
                    }
                }
                _ => None,
            };
            out.push((id, serial));
        }
        queue.submit([encoder.finish()]);
        let status = Arc::new(MapState::pending());
        let flag = status.clone();
        buffer
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| flag.complete(r.is_ok()));
        Ok(Self {
            buffer,
            ids: out,
            tick: crowd.clock(),
            status,
        })
    }

    /// The poses once the GPU has them (`None`: not yet; polls the device
    /// without blocking).
    pub fn poll(&self, device: &wgpu::Device) -> Option<Result<Vec<ReadPose>, RenderError>> {
        let _ = device.poll(wgpu::PollType::Poll);
        match self.status.take() {
            Take::Pending => None,
            Take::Mapped => Some(self.decode()),
            Take::Taken => Some(Err(RenderError::Readback(
                "the poses of this readback were already taken".into(),
            ))),
            Take::Failed | Take::Idle => Some(Err(RenderError::Readback(
                "mapping the pose readback failed".into(),
            ))),
        }
    }

    /// The poses, waiting for the GPU.
    pub fn wait(self, device: &wgpu::Device) -> Result<Vec<ReadPose>, RenderError> {
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        match self.poll(device) {
            Some(r) => r,
            None => Err(RenderError::Readback(
                "the pose readback was not mapped after the device went idle".into(),
            )),
        }
    }

    fn decode(&self) -> Result<Vec<ReadPose>, RenderError> {
        let data = self
            .buffer
            .slice(..)
            .get_mapped_range()
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        let poses = self
            .ids
            .iter()
            .enumerate()
            .map(|(i, &(id, serial))| {
                let at = i * STRIDE as usize;
                let t: GpuTransform =
                    bytemuck::pod_read_unaligned(&data[at..at + TRANSFORM as usize]);
                let s = at + TRANSFORM as usize;
                let state: GpuInstance = bytemuck::pod_read_unaligned(&data[s..s + STATE as usize]);
                let a = s + STATE as usize;
                let agent: GpuAgent = bytemuck::pod_read_unaligned(&data[a..a + AGENT as usize]);
                let [r0, r1, r2] = t.rows.map(Vec4::from);
                let world = Mat4::from_cols(r0, r1, r2, Vec4::W).transpose();
                ReadPose {
                    id,
                    world,
                    state,
                    agent: serial.filter(|&s| s == agent.serial).map(|_| agent),
                    tick: self.tick,
                }
            })
            .collect();
        drop(data);
        self.buffer.unmap();
        Ok(poses)
    }
}
