//! The CPU side of the viewer: the crowd, its per-instance speeds, the
//! camera controller and the viewer's toggles, and the key actions that
//! change them.

use anyhow::Result;
use glam::Vec3;
use throng_core::limits::REST_FRAME;
use throng_core::math::Aabb;
use throng_crowd::crowd::{Crowd, InstanceId, ModelHandle, ModelId};

use super::{FOV_Y_DEGREES, MAX_INSTANCES, SPEED_LIMITS};
use crate::camera::{CROWD_FILL, CameraController, Mode, shrink_xz};
use crate::ground::{BlobInstance, GroundPlacement};
use crate::hud;
use crate::keys::{Action, FADE_SECONDS, RANDOM_FRACTION, Target};
use crate::skeleton::{self, LineVertex};
use throng_demo::herd::{Rng, spawn_mixed_crowd};

/// The CPU side of the viewer. See the module docs.
pub struct Scene {
    /// The first model: its clips, bones and props are the HUD's and the
    /// keys'.
    pub(super) handle: ModelHandle,
    /// Every model of the crowd, the first included (a mixed crowd shares
    /// the first one's clips), and their ids in it.
    pub(super) handles: Vec<ModelHandle>,
    models: Vec<ModelId>,
    pub(super) crowd: Crowd,
    model: ModelId,
    /// Each instance wears one outfit of its model (`--outfits`).
    outfits: bool,
    /// Live instances in spawn order with their own playback speeds.
    instances: Vec<(InstanceId, f32)>,
    /// Clip and time of each instance before the rest pose was shown.
    saved: Vec<Option<(usize, f32)>>,
    bounds: Aabb,
    pub(super) ground: GroundPlacement,
    /// Blob shadows of the instances, and whether the GPU copy is stale.
    pub(super) blobs: Vec<BlobInstance>,
    pub(super) blobs_changed: bool,
    pub(super) camera: CameraController,
    seed: u64,
    rng: Rng,
    pub(super) paused: bool,
    pub(super) speed: f32,
    pub(super) rest: bool,
    pub(super) skeletons: bool,
    pub(super) hud: bool,
    pub(super) status: String,
    pub(super) clips: Vec<(String, f32)>,
    pub(super) nearest: Vec<InstanceId>,
    pub(super) lines: Vec<LineVertex>,
    /// Save the next frame as a PNG (F12).
    pub(super) shot_requested: bool,
    /// The head prop's model, its id in the crowd, and where it goes.
    pub(super) prop: ModelHandle,
    prop_model: ModelId,
    prop_bone: usize,
    prop_offset: glam::Mat4,
    /// Props are on (`P`).
    props: bool,
    /// The upper-body layer (`U`): its mask in the crowd, or `None` when
    /// off.
    upper_body: Option<throng_crowd::crowd::MaskId>,
    /// Instances are coloured by LOD (`L`).
    pub(super) lod_tints: bool,
    /// The walking crowd's re-targeting (`M`; `None`: standing).
    pub(super) walkers: Option<throng_demo::walkers::Walkers>,
    /// What each instance played before it walked.
    pub(super) stand_clips: Vec<Option<(usize, f32)>>,
    /// The crowd steered on the GPU (`M` on a GPU-driven renderer).
    pub(super) steering: Option<super::steering::Steering>,
    /// The renderer can steer on the GPU (its path is GPU-driven): walking
    /// is steering, not analytic loops.
    pub(super) gpu_steering: bool,
    /// The crowd stands on the demo's terrain (`T`; `terrain.rs`).
    pub(super) terrain: super::terrain::SceneTerrain,
}

impl Scene {
    /// A crowd of `count` instances of `handles` (instance `i` of model
    /// `i` modulo their number), framed for `aspect`.
    pub fn new(
        handles: Vec<ModelHandle>,
        count: u32,
        seed: u64,
        aspect: f32,
        hud: bool,
    ) -> Result<Self> {
        let mut crowd = Crowd::new();
        let models: Vec<ModelId> = handles.iter().map(|h| crowd.add_model(h)).collect();
        let (Some(handle), Some(&model)) = (handles.first().cloned(), models.first()) else {
            anyhow::bail!("the viewer needs a model");
        };
        let prop = crate::props::hat()?;
        let prop_model = crowd.add_model(&prop);
        let prop_bone = crate::props::head_bone(handle.model());
        let prop_offset = crate::props::hat_offset(handle.model(), prop_bone);
        let clips = handle
            .model()
            .clips
            .iter()
            .map(|c| (c.name.clone(), c.duration))
            .collect();
        let mut scene = Self {
            handle,
            handles,
            models,
            crowd,
            model,
            outfits: false,
            instances: Vec::new(),
            saved: Vec::new(),
            bounds: Aabb::EMPTY,
            ground: GroundPlacement::under(Vec3::ZERO, 0.0, 1.0, 1.0, &Aabb::EMPTY),
            blobs: Vec::new(),
            blobs_changed: true,
            camera: CameraController::new(
                Vec3::ZERO,
                Vec3::Z,
                1.0,
                FOV_Y_DEGREES.to_radians(),
                1.0,
            ),
            seed,
            rng: Rng::new(seed ^ 0x5EED),
            paused: false,
            speed: 1.0,
            rest: false,
            skeletons: false,
            hud,
            status: String::new(),
            clips,
            nearest: Vec::new(),
            lines: Vec::new(),
            shot_requested: false,
            prop,
            prop_model,
            prop_bone,
            prop_offset,
            props: false,
            upper_body: None,
            lod_tints: false,
            walkers: None,
            stand_clips: Vec::new(),
            steering: None,
            gpu_steering: false,
            terrain: super::terrain::SceneTerrain::default(),
        };
        scene.respawn(count)?;
        scene.frame_crowd(aspect);
        Ok(scene)
    }

    /// Replaces the crowd by `count` new instances (keeping the rest-pose
    /// toggle; the camera stays where it is).
    fn respawn(&mut self, count: u32) -> Result<()> {
        self.crowd.clear();
        let spawned = spawn_mixed_crowd(&mut self.crowd, &self.models, count, self.seed)?;
        self.instances = spawned
            .ids
            .iter()
            .copied()
            .zip(spawned.speeds.iter().copied())
            .collect();
        self.bounds = spawned.bounds;
        let m = self.handle.model();
        let extent = m.bounds.max - m.bounds.min;
        let radius = if spawned.bounds.is_empty() {
            m.bounding_radius
        } else {
            spawned.bounds.radius()
        };
        self.ground = GroundPlacement::under(
            spawned.bounds.center(),
            spawned.ground_y,
            radius,
            extent.x.max(extent.z),
            &m.frame_bounds[REST_FRAME as usize],
        );
        self.blobs = spawned
            .placements
            .iter()
            .map(|p| [p.position.x, p.position.z, p.heading, p.scale])
            .collect();
        self.blobs_changed = true;
        self.camera.scene_radius = radius.max(1e-3);
        self.lay_terrain()?;
        self.saved = self.current_clips();
        if self.outfits {
            self.wear_outfits()?;
        }
        if self.props {
            self.attach_props();
        }
        if let Some(mask) = self.upper_body {
            self.layer_upper_body(Some(mask));
        }
        if self.rest {
            for &(id, _) in &self.instances {
                let _ = self.crowd.play_rest(id);
            }
        }
        if self.walking() {
            self.steering = None;
            self.start_walking();
        }
        Ok(())
    }

    /// Each instance wears one outfit of its model, or every submesh.
    pub(super) fn set_outfits(&mut self, on: bool) -> Result<()> {
        self.outfits = on;
        if on {
            self.wear_outfits()?;
        }
        Ok(())
    }

    /// Instance `i` wears outfit `i` of its model (`--outfits`: the models
    /// were worn as outfits when loaded), keeping its palette row.
    fn wear_outfits(&mut self) -> Result<()> {
        let ids: Vec<InstanceId> = self.instances.iter().map(|&(id, _)| id).collect();
        throng_demo::outfits::wear_outfits(&mut self.crowd, &ids, &self.handles)?;
        Ok(())
    }

    /// The crowd's first model.
    pub(super) fn model_id(&self) -> ModelId {
        self.model
    }

    /// The herd's bounds as spawned.
    pub(super) fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// Live instances with their own playback speeds.
    pub(super) fn instances(&self) -> &[(InstanceId, f32)] {
        &self.instances
    }

    /// Props are on.
    pub(super) fn props_on(&self) -> bool {
        self.props
    }

    /// Each instance's clip and time now.
    pub(super) fn clips_now(&self) -> Vec<Option<(usize, f32)>> {
        self.current_clips()
    }

    /// Puts a prop on every instance's head (attachments follow the bone).
    fn attach_props(&mut self) {
        for &(id, _) in &self.instances {
            let _ = self
                .crowd
                .attach(id, self.prop_model, self.prop_bone, self.prop_offset);
        }
    }

    /// Takes every prop off.
    fn detach_props(&mut self) {
        let props: Vec<InstanceId> = self
            .instances
            .iter()
            .flat_map(|&(id, _)| {
                self.crowd
                    .attachments(id)
                    .map(|(child, _)| child)
                    .collect::<Vec<_>>()
            })
            .collect();
        for p in props {
            let _ = self.crowd.despawn(p);
        }
    }

    /// Gives every instance the upper-body layer over `mask`, or none.
    fn layer_upper_body(&mut self, mask: Option<throng_crowd::crowd::MaskId>) {
        let layers: Vec<throng_crowd::crowd::Layer> = mask
            .map(|mask| throng_crowd::crowd::Layer {
                mask: Some(mask),
                ..throng_crowd::crowd::Layer::new(crate::upper_body::clip(self.handle.model()))
            })
            .into_iter()
            .collect();
        for &(id, _) in &self.instances {
            let _ = self.crowd.set_layers(id, &layers);
        }
    }

    /// Turns the upper-body layer on or off; says what it shows.
    fn toggle_upper_body(&mut self) {
        if self.upper_body.take().is_some() {
            self.layer_upper_body(None);
            self.status = "upper-body layer off".into();
            return;
        }
        let model = self.handle.model();
        let root = crate::upper_body::root(model, self.handle.skeleton());
        let name = model.bones[root].name.clone();
        let clip = model.clips[crate::upper_body::clip(model)].name.clone();
        match self.crowd.mask_subtrees(self.model, &[name.as_str()]) {
            Ok(mask) => {
                self.upper_body = Some(mask);
                self.layer_upper_body(Some(mask));
                self.status = format!("upper body (from {name}) plays {clip} over each clip");
            }
            Err(e) => self.status = format!("no upper-body layer: {e}"),
        }
    }

    /// Turns props on or off.
    pub fn set_props(&mut self, on: bool) {
        if on != self.props {
            self.props = on;
            if on {
                self.attach_props()
            } else {
                self.detach_props()
            }
        }
    }

    /// Turns LOD colours on or off.
    pub fn set_lod_tints(&mut self, on: bool) {
        self.lod_tints = on;
    }

    fn current_clips(&self) -> Vec<Option<(usize, f32)>> {
        self.instances
            .iter()
            .map(|&(id, _)| self.crowd.state(id).ok().and_then(|s| s.current))
            .collect()
    }

    /// Frames the whole crowd for a viewport of `aspect`.
    pub fn frame_crowd(&mut self, aspect: f32) {
        if self.bounds.is_empty() {
            return;
        }
        // Frame the middle of the herd so that it fills the view edge to
        // edge rather than floating in it.
        let middle = shrink_xz(&self.bounds, CROWD_FILL);
        let mut c = CameraController::framing(&middle, FOV_Y_DEGREES.to_radians(), aspect);
        c.scene_radius = self.bounds.radius().max(1e-3);
        self.camera = c;
    }

    /// Indices into `instances` that `target` addresses.
    fn targets(&mut self, target: Target) -> Vec<usize> {
        let n = self.instances.len();
        match target {
            Target::All => (0..n).collect(),
            Target::RandomFifth => {
                let k = ((n as f32 * RANDOM_FRACTION).round() as usize).clamp(n.min(1), n);
                // Partial Fisher–Yates: the first k of a shuffle.
                let mut all: Vec<usize> = (0..n).collect();
                for i in 0..k {
                    let j = i + self.rng.below(n - i);
                    all.swap(i, j);
                }
                all.truncate(k);
                all
            }
        }
    }

    fn fade(&mut self, which: &[usize], clip_of: &mut dyn FnMut(&mut Rng) -> usize) {
        for &i in which {
            let (id, speed) = self.instances[i];
            let clip = clip_of(&mut self.rng);
            let _ = self.crowd.cross_fade(id, clip, FADE_SECONDS);
            // From the rest pose a fade starts at speed 1: restore the
            // instance's own speed.
            let _ = self.crowd.set_speed(id, speed);
        }
    }

    /// Applies a key action; returns false when the viewer should quit.
    pub fn apply(&mut self, action: Action, aspect: f32) -> bool {
        match action {
            Action::FadeToClip { clip, target } => self.fade_to_clip(clip, target),
            Action::FadeToRandomClips { target } => self.fade_to_random_clips(target),
            Action::MoreInstances => self.scale_instances(true),
            Action::FewerInstances => self.scale_instances(false),
            Action::TogglePause => {
                self.paused = !self.paused;
                self.status = if self.paused { "paused" } else { "playing" }.into();
            }
            Action::SlowerSpeed => self.scale_speed(0.5),
            Action::FasterSpeed => self.scale_speed(2.0),
            Action::ToggleSkeletons => {
                self.skeletons = !self.skeletons;
                self.status = if self.skeletons {
                    format!("skeletons on the {} nearest instances", skeleton::NEAREST)
                } else {
                    "skeletons off".into()
                };
            }
            Action::ToggleRestPose => self.toggle_rest(),
            Action::ToggleLodTints => {
                self.lod_tints = !self.lod_tints;
                self.status = if self.lod_tints {
                    "LOD colours: green 0, blue 1, magenta 2, red 3+".into()
                } else {
                    "LOD colours off".into()
                };
            }
            Action::ToggleProps => {
                self.set_props(!self.props);
                self.status = if self.props {
                    "hats on".into()
                } else {
                    "hats off".into()
                };
            }
            Action::ToggleUpperBody => self.toggle_upper_body(),
            Action::ToggleWalking => self.set_walking(!self.walking()),
            Action::ToggleTerrain => self.toggle_terrain(),
            Action::ToggleFly => {
                self.camera.toggle_mode();
                self.status = match self.camera.mode {
                    Mode::Fly => "fly camera: WASD, Q/E, drag to look".into(),
                    Mode::Orbit => "orbit camera".into(),
                };
            }
            Action::FrameCrowd => self.frame_crowd(aspect),
            Action::ToggleHud => self.hud = !self.hud,
            Action::Screenshot => self.shot_requested = true,
            Action::Escape => {
                if self.camera.mode == Mode::Fly {
                    self.camera.toggle_mode();
                    self.status = "orbit camera".into();
                } else {
                    return false;
                }
            }
        }
        true
    }

    /// Cross-fades the instances `target` addresses to clip `clip` (a
    /// clip the model lacks is said in the status line); fading every
    /// instance leaves the rest pose.
    fn fade_to_clip(&mut self, clip: usize, target: Target) {
        let clip_count = self.clips.len();
        if clip >= clip_count {
            self.status = format!("no clip {}: the model has {clip_count}", clip + 1);
            return;
        }
        let which = self.targets(target);
        self.fade(&which, &mut |_| clip);
        if target == Target::All {
            self.rest = false;
        }
        self.status = format!(
            "{} → {} ({} instances)",
            target_name(target),
            self.clips[clip].0,
            which.len()
        );
    }

    /// Cross-fades the instances `target` addresses each to a random clip
    /// (nothing for a model without clips); fading every instance leaves
    /// the rest pose.
    fn fade_to_random_clips(&mut self, target: Target) {
        let clip_count = self.clips.len();
        if clip_count == 0 {
            return;
        }
        let which = self.targets(target);
        self.fade(&which, &mut |rng| rng.below(clip_count));
        if target == Target::All {
            self.rest = false;
        }
        self.status = format!("{} → random clips", target_name(target));
    }

    /// Respawns the crowd with twice as many instances (`more`, up to
    /// [`MAX_INSTANCES`]) or half as many (at least one).
    fn scale_instances(&mut self, more: bool) {
        let n = self.instances.len() as u32;
        let wanted = if more {
            (n.max(1) * 2).min(MAX_INSTANCES)
        } else {
            (n / 2).max(1)
        };
        match self.respawn(wanted) {
            Ok(()) => self.status = format!("{} instances", hud::thousands(wanted as u64)),
            Err(e) => self.status = format!("respawn failed: {e:#}"),
        }
    }

    /// Multiplies the global playback speed by `factor`, kept within
    /// [`SPEED_LIMITS`].
    fn scale_speed(&mut self, factor: f32) {
        self.speed = (self.speed * factor).clamp(SPEED_LIMITS.0, SPEED_LIMITS.1);
        self.status = format!("speed ×{}", self.speed);
    }

    fn toggle_rest(&mut self) {
        if self.rest {
            for (&(id, speed), saved) in self.instances.iter().zip(&self.saved) {
                if let Some((clip, time)) = *saved {
                    let _ = self.crowd.play(id, clip);
                    let _ = self.crowd.set_time(id, time);
                    let _ = self.crowd.set_speed(id, speed);
                }
            }
            self.rest = false;
            self.status = "clips".into();
        } else {
            self.saved = self.current_clips();
            for &(id, _) in &self.instances {
                let _ = self.crowd.play_rest(id);
            }
            self.rest = true;
            self.status = "rest pose".into();
        }
    }

    /// Advances the crowd by `dt` seconds of wall time (scaled by the
    /// global speed; nothing moves while paused).
    pub fn advance(&mut self, dt: f32) {
        if !self.paused {
            self.crowd.update(dt * self.speed);
            self.step_walkers(dt * self.speed);
        }
    }
}

/// How the status line names the instances `target` addresses.
fn target_name(target: Target) -> &'static str {
    match target {
        Target::All => "every instance",
        Target::RandomFifth => "a random 20 %",
    }
}

#[cfg(test)]
mod tests;
