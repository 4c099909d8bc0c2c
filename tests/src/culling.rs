//! The GPU-driven path's compute work for one crowd seen from one view, as
//! the renderer encodes it each frame — the crowd mirror's upload of what
//! changed, then the cull pass — for the tests and benchmarks that drive
//! those passes without a renderer ([`Culling`]).

use throng_core::gpu::DrawSpec;
use throng_crowd::crowd::{Crowd, DrawView};
use throng_render::cull::{CullList, CullPass, CullPhase, CullRequest};
use throng_render::mirror::{CrowdMirror, SyncStats};
use throng_render::{Gpu, wgpu};

/// A crowd's mirror on the GPU and a cull list over it.
pub struct Culling {
    /// The crowd's states and transforms on the GPU.
    pub mirror: CrowdMirror,
    /// The cull pass's output: counts, records, indirect draws.
    pub list: CullList,
}

impl Culling {
    /// An empty mirror and list on `device`.
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            mirror: CrowdMirror::new(device),
            list: CullList::new(device),
        }
    }

    /// Encodes the mirror's upload of what changed in `crowd`, then `pass`
    /// culling it for `view` into one indirect draw per entry of `draws`;
    /// what the upload wrote.
    pub fn encode(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        pass: &CullPass,
        crowd: &Crowd,
        view: DrawView,
        draws: &[DrawSpec],
    ) -> SyncStats {
        let sync = self
            .mirror
            .sync(&gpu.device, &gpu.queue, encoder, pass, crowd)
            .unwrap_or_else(|e| panic!("the mirror's upload: {e}"));
        let request = CullRequest {
            view,
            now: crowd.clock(),
            draws,
            phase: CullPhase::Only,
            previous: None,
        };
        self.list
            .prepare(&gpu.device, &gpu.queue, pass, &self.mirror, &request)
            .unwrap_or_else(|e| panic!("the cull pass: {e}"));
        self.list.encode(encoder, pass, None);
        sync
    }

    /// [`Culling::encode`] in an encoder of its own, submitted.
    pub fn frame(
        &mut self,
        gpu: &Gpu,
        pass: &CullPass,
        crowd: &Crowd,
        view: DrawView,
        draws: &[DrawSpec],
    ) -> SyncStats {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let sync = self.encode(gpu, &mut encoder, pass, crowd, view, draws);
        gpu.queue.submit([encoder.finish()]);
        sync
    }
}
