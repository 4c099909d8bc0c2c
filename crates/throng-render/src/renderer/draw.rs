//! Recording the prepared frame's crowd draws into a render pass the
//! caller began: all of them ([`Renderer::draw`]), or the opaque and the
//! alpha-blended halves apart, for an engine whose opaque and transparent
//! phases are separate passes or sorted apart (Bevy's `Opaque3d` and
//! `Transparent3d`).

use std::collections::HashMap;

use super::Renderer;
use crate::device::pass_timer::SpanKind;
use crate::draw::items::DrawItem;
use crate::program::pipeline::PipelineKey;

impl Renderer {
    /// Records the prepared frame's crowd draws into `pass`, a render pass
    /// the caller began in their own encoder, with their own targets, among
    /// their own draws. The pass must have:
    ///
    /// * one colour attachment of the renderer's colour format (the
    ///   `color_format` given to [`Self::new`]) at location 0;
    /// * a writable depth attachment of [`DEPTH_FORMAT`](super::DEPTH_FORMAT)
    ///   (the crowd's pipelines test with the comparison of
    ///   [`RendererOptions::depth`](crate::RendererOptions::depth) and
    ///   write depth, except for blended materials);
    /// * [`RendererOptions::sample_count`](crate::RendererOptions::sample_count)
    ///   samples per pixel in both.
    ///
    /// [`Self::prepare_draws`] (or [`Self::prepare`]) must have been called
    /// for the frame and, with shadows on, [`Self::encode_shadows`] recorded
    /// before the pass. The viewport is the caller's; the crowd is
    /// projected with the camera given to `prepare_draws`. Opaque
    /// submeshes are drawn first and blended ones last, so draw anything
    /// opaque of your own before this call and blended things after it.
    /// The pass's pipeline and bind groups are left set to the crowd's.
    /// [`Self::draw_opaque`] and [`Self::draw_blended`] draw its two halves
    /// apart, for a caller with an opaque and a sorted transparent phase.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.draw_items(pass, &self.items);
    }

    /// [`Self::draw`]'s opaque draws only (alpha-masked and impostors
    /// included): what belongs in a caller's opaque phase.
    pub fn draw_opaque(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.draw_items(pass, &self.items[..self.first_blended()]);
    }

    /// [`Self::draw`]'s alpha-blended draws only (they test depth and do
    /// not write it): what belongs in a caller's transparent phase, after
    /// every opaque draw.
    pub fn draw_blended(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.draw_items(pass, &self.items[self.first_blended()..]);
    }

    /// The prepared frame has alpha-blended draws.
    pub fn has_blended(&self) -> bool {
        self.first_blended() < self.items.len()
    }

    /// Index of the first blended item: the items are planned opaque
    /// first, blended last.
    pub(super) fn first_blended(&self) -> usize {
        self.items.partition_point(|item| !item.key.blend)
    }

    pub(super) fn draw_items(&self, pass: &mut wgpu::RenderPass<'_>, items: &[DrawItem]) {
        let impostor = self.impostors.colour.as_ref();
        self.draw_items_with(pass, items, &self.pipelines, impostor);
    }

    /// [`Self::draw_items`] with `pipelines` and the `impostor` pipeline
    /// (the single-sampled early pass's, `occlusion/single_early.rs`).
    pub(super) fn draw_items_with(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        items: &[DrawItem],
        pipelines: &HashMap<PipelineKey, wgpu::RenderPipeline>,
        impostor: Option<&wgpu::RenderPipeline>,
    ) {
        if items.is_empty() {
            return;
        }
        let records = self.records.bind_group.as_ref();
        pass.set_bind_group(0, &self.frame_bind_group, &[]);
        let mut bound_key = None;
        // Where the device can, each run of mesh draws and of impostor
        // draws is GPU-timed apart (`meshes`, `impostors`).
        let timer = self.timer.as_ref().filter(|t| t.inside_passes());
        let mut run: Option<(bool, u32)> = None;
        for item in items {
            if let Some(t) = timer
                && run.is_none_or(|(impostor, _)| impostor != item.impostor)
            {
                if let Some((_, k)) = run.take() {
                    t.write_inside(pass, k, true);
                }
                let name = if item.impostor { "impostors" } else { "meshes" };
                run = t.span(name, SpanKind::Frame).map(|k| (item.impostor, k));
                if let Some((_, k)) = run {
                    t.write_inside(pass, k, false);
                }
            }
            let key = (!item.impostor).then_some(item.key);
            if bound_key != Some(key) {
                debug_assert!(
                    key.is_none_or(|k| pipelines.contains_key(&k)),
                    "no pipeline made for {key:?}"
                );
                match key {
                    Some(key) => match pipelines.get(&key) {
                        Some(p) => pass.set_pipeline(p),
                        None => continue,
                    },
                    None => match impostor {
                        Some(p) => pass.set_pipeline(p),
                        None => continue,
                    },
                }
                bound_key = Some(key);
            }
            item.bind_geometry(pass);
            if let Some(material) = &item.material_bind_group {
                pass.set_bind_group(2, material, &[]);
            }
            item.issue(pass, records);
        }
        if let (Some(t), Some((_, k))) = (timer, run) {
            t.write_inside(pass, k, true);
        }
    }
}
