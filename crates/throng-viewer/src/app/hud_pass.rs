//! The HUD's share of a frame: running egui (its input, the
//! [`crate::hud`] panel, its platform output), uploading the textures it
//! changed, recording its pass over the crowd's, and freeing the textures
//! it let go of.

use throng_render::FrameStats;
use winit::event_loop::ActiveEventLoop;

use super::gfx::Gfx;
use super::scene::Scene;
use super::timing::Timing;
use crate::camera::Mode;
use crate::hud::{self, HudInfo, thousands};

/// egui's output for one frame, its textures uploaded: what the HUD pass
/// draws, and the textures to free once the frame is submitted.
pub(super) struct HudFrame {
    primitives: Vec<egui::ClippedPrimitive>,
    textures: egui::TexturesDelta,
    screen: egui_wgpu::ScreenDescriptor,
}

/// Runs egui for this frame (showing the HUD panel when the scene's HUD is
/// on) and uploads the textures it changed.
pub(super) fn run(
    gfx: &mut Gfx,
    event_loop: &ActiveEventLoop,
    scene: &Scene,
    timing: &Timing,
    origin: &str,
    stats: FrameStats,
    msaa: u32,
) -> HudFrame {
    let size = gfx.size();
    let raw = gfx.egui_state.take_egui_input(&gfx.window);
    let mut model_line = format!(
        "{} ({} bones, {} triangles; {})",
        scene.handle.model().name,
        scene.handle.model().bones.len(),
        gfx.gpu_models
            .first()
            .and_then(|m| m.triangles.first().copied())
            .unwrap_or(0),
        origin
    );
    // A mixed crowd: its models, the bone bytes they share, the hidden
    // parts left out of the draws.
    if gfx.gpu_models.len() > 1 || stats.parts_culled > 0 {
        model_line.push_str(&format!(
            "\n{} models: bone textures {} KiB ({} KiB shared), {} parts culled",
            gfx.gpu_models.len(),
            thousands(stats.bone_bytes >> 10),
            thousands(stats.shared_bone_bytes >> 10),
            thousands(stats.parts_culled)
        ));
    }
    let cache = gfx.renderer.pose_cache();
    let pose_cache = if stats.pose_cache_bytes == 0 && stats.pose_fallback_draws == 0 {
        "pose cache off: every vertex skinned".to_owned()
    } else {
        format!(
            "pose cache {} poses, {:.1} MiB, {:.0} ms fill, {} uncached draws",
            thousands(stats.cached_poses),
            stats.pose_cache_bytes as f64 / (1u64 << 20) as f64,
            cache.last_fill_ms(),
            stats.pose_fallback_draws
        )
    };
    let info = HudInfo {
        fps: timing.fps,
        cpu: timing.cpu,
        gpu: gfx.renderer.gpu_time(),
        gpu_timing: gfx.renderer.has_gpu_timing(),
        stats,
        pose_cache: &pose_cache,
        path: gfx.renderer.path(),
        adapter: &gfx.adapter_name,
        model: &model_line,
        clips: &scene.clips,
        speed: scene.speed,
        paused: scene.paused,
        rest: scene.rest,
        walking: scene.walking(),
        skeletons: scene.skeletons,
        fly: scene.camera.mode == Mode::Fly,
        msaa,
        status: &scene.status,
    };
    let show_hud = scene.hud;
    let output = gfx.egui_ctx.run_ui(raw, |ui| {
        if show_hud {
            hud::show(ui.ctx(), &info);
        }
    });
    gfx.egui_state.handle_platform_output_with_event_loop(
        &gfx.window,
        event_loop,
        output.platform_output,
    );
    let primitives = gfx
        .egui_ctx
        .tessellate(output.shapes, output.pixels_per_point);
    let mut textures = output.textures_delta;
    for (id, deltas) in textures.set.drain() {
        for delta in &deltas {
            gfx.egui_renderer
                .update_texture(&gfx.device, &gfx.queue, id, delta);
        }
    }
    let screen = egui_wgpu::ScreenDescriptor {
        size_in_pixels: [size.0, size.1],
        pixels_per_point: output.pixels_per_point,
    };
    HudFrame {
        primitives,
        textures,
        screen,
    }
}

/// Records the HUD pass over `view` into `encoder` (after the crowd pass);
/// returns egui's own command buffers, to be submitted before `encoder`.
pub(super) fn record(
    gfx: &mut Gfx,
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    hud: &HudFrame,
) -> Vec<wgpu::CommandBuffer> {
    let egui_commands = gfx.egui_renderer.update_buffers(
        &gfx.device,
        &gfx.queue,
        encoder,
        &hud.primitives,
        &hud.screen,
    );
    {
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("viewer hud pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            .forget_lifetime();
        gfx.egui_renderer
            .render(&mut pass, &hud.primitives, &hud.screen);
    }
    egui_commands
}

/// Frees the textures egui let go of this frame (once it is submitted).
pub(super) fn free(gfx: &mut Gfx, mut hud: HudFrame) {
    for id in hud.textures.free.drain() {
        gfx.egui_renderer.free_texture(&id);
    }
}
