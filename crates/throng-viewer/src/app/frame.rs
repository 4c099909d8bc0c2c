//! One frame: advancing the crowd and the camera, acquiring a target (the
//! surface's texture or a capture texture), preparing the crowd's records,
//! the ground and the skeleton lines, recording the crowd pass and the HUD
//! pass, submitting, then presenting or saving; after a device loss, the
//! GPU side built again on the same window.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use throng_crowd::camera::Camera;
use throng_render::{FrameStats, GpuModel, Offscreen};
use winit::dpi::PhysicalSize;
use winit::event_loop::ActiveEventLoop;

use super::faults::Fault;
use super::gfx::Gfx;
use super::scene::Scene;
use super::{App, MAX_DT, SCREENSHOT_DT, hud_pass, shots};
use crate::camera::Mode;
use crate::skeleton;

/// Where a frame goes.
enum FrameTarget {
    Surface(wgpu::SurfaceTexture, wgpu::TextureView),
    Capture(Offscreen),
}

impl App {
    /// Renders one frame; errors end the viewer.
    pub(super) fn frame(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.try_frame(event_loop) {
            self.fail(event_loop, e);
        }
        if let Some(why) = self.lost.take()
            && let Err(e) = self.recover(event_loop, &why)
        {
            self.fail(event_loop, e);
        }
    }

    /// Builds the GPU side again on the same window after the device was
    /// lost; the crowd, the camera and the HUD's settings are the CPU's and
    /// stay.
    fn recover(&mut self, event_loop: &ActiveEventLoop, why: &str) -> Result<()> {
        let Some(old) = self.gfx.take() else {
            return Ok(());
        };
        eprintln!("throng-viewer: the GPU device was {why}; building it again");
        let window = old.window.clone();
        drop(old);
        let gfx = Gfx::on_window(
            window,
            event_loop,
            &self.opts,
            &self.scene.handles,
            &self.scene.prop,
        )
        .context("recovering from the device loss")?;
        eprintln!("throng-viewer: recovered on {}", gfx.adapter_name);
        self.scene.status = format!("recovered from a device loss ({why})");
        // What was uploaded once goes up again.
        self.scene.blobs_changed = true;
        super::steer::lost(&mut self.scene);
        self.minimized = !gfx.configured;
        gfx.window.request_redraw();
        self.gfx = Some(gfx);
        Ok(())
    }

    /// Does what `fault` stands for (`--faults`).
    fn inject(&mut self, fault: Fault) {
        let Some(gfx) = self.gfx.as_mut() else {
            return;
        };
        match fault {
            Fault::Resize(w, h) => {
                let _ = gfx.window.request_inner_size(PhysicalSize::new(w, h));
            }
            Fault::Zero => self.on_resized(PhysicalSize::new(0, 0)),
            Fault::Restore => {
                let size = gfx.window.inner_size();
                self.on_resized(size);
            }
            Fault::Occluded(hidden) => self.on_occluded(hidden),
            Fault::Acquire(answer) => gfx.forced = Some(answer),
        }
    }

    /// One frame, in its steps: advance the world, acquire a target,
    /// prepare the crowd and the scenery, run the HUD, record and submit,
    /// then present or save. A device lost before or while preparing is
    /// noted in `self.lost` and ends the frame.
    fn try_frame(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let Some(gfx) = self.gfx.as_mut() else {
            return Ok(());
        };
        // A device lost since the last frame: build it again before this
        // frame advances anything.
        if let Err(throng_render::RenderError::DeviceLost(why)) = gfx.renderer.check_device() {
            self.lost = Some(why);
            return Ok(());
        }
        let start = Instant::now();
        self.advance();
        let Some(gfx) = self.gfx.as_mut() else {
            return Ok(());
        };
        let screenshot = self.opts.screenshot.clone();
        let last_frame = screenshot.is_some() && self.frames >= self.opts.frames;
        let capture = last_frame || self.scene.shot_requested;
        self.scene.shot_requested = false;

        if !capture && !gfx.configured {
            return Ok(()); // minimised: nothing to draw into
        }
        let Some((target, waited)) = gfx.acquire(capture)? else {
            return Ok(());
        };
        let view = match &target {
            FrameTarget::Surface(_, view) => view,
            FrameTarget::Capture(c) => &c.view,
        };

        let camera = self.scene.camera.camera(gfx.aspect());
        let stats = match gfx.prepare_crowd(&mut self.scene, &camera) {
            Ok(s) => s,
            Err(throng_render::RenderError::DeviceLost(why)) => {
                self.lost = Some(why);
                return Ok(());
            }
            Err(e) if screenshot.is_none() => {
                self.scene.status = format!("frame skipped: {e}");
                return Ok(());
            }
            Err(e) => return Err(e).context("preparing the frame"),
        };
        gfx.prepare_scenery(&mut self.scene, &camera);

        let samples = gfx.renderer.options().sample_count;
        let hud = hud_pass::run(
            gfx,
            event_loop,
            &self.scene,
            &self.timing,
            &self.opts.origin,
            stats,
            samples,
        );
        gfx.record_and_submit(view, hud);
        self.timing
            .record_cpu(start.elapsed().saturating_sub(waited));

        match target {
            FrameTarget::Surface(texture, view) => gfx.present(texture, view),
            FrameTarget::Capture(capture) => {
                let run_path = screenshot.as_deref().filter(|_| last_frame);
                shots::save(
                    gfx,
                    &capture,
                    run_path,
                    self.frames,
                    &stats,
                    &mut self.scene.status,
                    event_loop,
                )?;
            }
        }
        Ok(())
    }

    /// Advances the world one frame: the crowd (by the fixed screenshot
    /// step, or the wall time capped), the flying camera and the frame
    /// count, then the device loss and faults a test asked for at this
    /// frame.
    fn advance(&mut self) {
        let wall_dt = self.timing.tick();
        let dt = if self.opts.screenshot.is_some() {
            SCREENSHOT_DT
        } else {
            wall_dt.min(MAX_DT)
        };
        // Frame k (from 1) shows the crowd after k − 1 steps.
        if self.frames > 0 {
            self.scene.advance(dt);
        }
        if self.scene.camera.mode == Mode::Fly {
            let fast = self.mods.shift;
            self.scene.camera.fly(self.held.fly_input(), dt, fast);
        }
        self.frames += 1;
        if self.opts.lose_device_after == Some(self.frames)
            && let Some(gfx) = &self.gfx
        {
            // A test's stand-in for a driver reset.
            gfx.device.destroy();
        }
        let faults: Vec<Fault> = self.opts.faults.at(self.frames).collect();
        for fault in faults {
            eprintln!("throng-viewer: frame {}: injected {fault}", self.frames);
            self.inject(fault);
        }
    }
}

impl Gfx {
    /// Prepares the crowd's records for `camera`: the scene's LOD tints and
    /// steering handed to the renderer first (a steering that fails is
    /// dropped, said in the status line).
    fn prepare_crowd(
        &mut self,
        scene: &mut Scene,
        camera: &Camera,
    ) -> Result<FrameStats, throng_render::RenderError> {
        let size = self.size();
        self.renderer.set_lod_tints(scene.lod_tints);
        if let Err(e) = super::steer::sync(self, scene) {
            scene.status = format!("steering: {e:#}");
            scene.steering = None;
        }
        let mut models: Vec<&GpuModel> = self.gpu_models.iter().collect();
        models.push(&self.prop_model);
        self.renderer
            .prepare(size, camera, &[&scene.crowd], &models)
    }

    /// Prepares what is drawn beside the crowd for `camera`: the ground
    /// (its blob shadows uploaded again when they changed, faded out
    /// before the far plane), the steering's pillars, and the skeleton
    /// lines of the nearest instances when skeletons are shown.
    fn prepare_scenery(&mut self, scene: &mut Scene, camera: &Camera) {
        if scene.blobs_changed {
            self.ground
                .set_blobs(&self.device, &self.queue, &scene.blobs);
            scene.blobs_changed = false;
        }
        let options = self.renderer.options();
        let (_, far) = scene.camera.clip_planes();
        let eye_to_ground = camera.eye.distance(scene.ground.center);
        self.ground.prepare(
            &self.queue,
            &camera.clip_from_world(),
            &scene.ground,
            &options.lighting,
            options.clear_color,
            (far - eye_to_ground) * 0.95,
        );
        super::ground_scene::prepare(self, scene, camera, far);
        scene.plant_nearest_feet(camera);
        super::steer::prepare(self, &camera.clip_from_world());
        scene.lines.clear();
        if scene.skeletons {
            skeleton::nearest_instances(
                &scene.crowd,
                camera.eye,
                &camera.frustum(),
                skeleton::NEAREST,
                &mut scene.nearest,
            );
            skeleton::skeleton_lines(&scene.crowd, &scene.nearest, &mut scene.lines);
        }
        self.lines.prepare(
            &self.device,
            &self.queue,
            &camera.clip_from_world(),
            &scene.lines,
        );
    }

    /// Records the crowd pass (with the ground, the pillars and the lines
    /// drawn inside it) and the HUD pass into `view`, submits them (the
    /// HUD's buffer updates first), and frees the HUD's spent textures.
    fn record_and_submit(&mut self, view: &wgpu::TextureView, hud: hud_pass::HudFrame) {
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("viewer frame"),
            });
        let (ground, pillars, lines) = (&self.ground, &self.pillars, &self.lines);
        let terrain = &self.terrain;
        let shadows = self
            .renderer
            .shadow_receiver()
            .map(|r| r.bind_group.clone());
        self.renderer.encode_with(&mut encoder, view, |pass| {
            if let Some(shadows) = &shadows {
                if terrain.shown() {
                    terrain.draw(pass, shadows);
                } else {
                    ground.draw(pass, shadows);
                }
            }
            pillars.draw(pass);
            lines.draw(pass);
        });
        let egui_commands = hud_pass::record(self, &mut encoder, view, &hud);
        self.queue
            .submit(egui_commands.into_iter().chain([encoder.finish()]));
        self.renderer.after_submit();
        hud_pass::free(self, hud);
    }

    /// Presents the surface texture drawn into, then reconfigures the
    /// surface if acquiring it asked for that (a suboptimal texture).
    fn present(&mut self, texture: wgpu::SurfaceTexture, view: wgpu::TextureView) {
        drop(view);
        self.window.pre_present_notify();
        self.queue.present(texture);
        if !self.configured {
            self.resize(self.window.inner_size());
        }
    }

    /// The frame's target: a capture texture when `capture`, else the
    /// surface's next texture, with how long acquiring it waited. `None`
    /// skips the frame: the surface was reconfigured or recreated, or has
    /// nothing to give now.
    fn acquire(&mut self, capture: bool) -> Result<Option<(FrameTarget, Duration)>> {
        if capture {
            let target = Offscreen::with_format(&self.device, self.size(), self.config.format)?;
            return Ok(Some((FrameTarget::Capture(target), Duration::ZERO)));
        }
        let t0 = Instant::now();
        let acquired = match self.forced.take() {
            Some(fault) => fault.answer(),
            None => self.surface.get_current_texture(),
        };
        let waited = t0.elapsed();
        let target = match acquired {
            wgpu::CurrentSurfaceTexture::Success(t) => {
                let view = t.texture.create_view(&Default::default());
                FrameTarget::Surface(t, view)
            }
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                // Draw this one, reconfigure for the next.
                let view = t.texture.create_view(&Default::default());
                self.configured = false;
                FrameTarget::Surface(t, view)
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.resize(self.window.inner_size());
                self.say("the surface was outdated: reconfigured");
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.recreate_surface()?;
                self.say("the surface was lost: recreated");
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Timeout
            | wgpu::CurrentSurfaceTexture::Occluded
            | wgpu::CurrentSurfaceTexture::Validation => {
                self.say("no surface texture this frame: skipped");
                return Ok(None);
            }
        };
        Ok(Some((target, waited)))
    }
}
