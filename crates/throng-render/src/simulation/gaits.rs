//! Gaits chosen by speed: for a model's simulated instances, which clip
//! plays at which speed — idle below a threshold, walk, run above another —
//! and at what playback rate (the agent's ground speed over the clip's).
//! The simulation's apply pass (`simulation_passes.wgsl`) switches
//! with hysteresis and cross-fades, the new clip starting at the old one's
//! phase so that feet stay in step; see [`Gaits`].

use throng_core::gpu::GpuTrack;
use throng_core::simulation::GpuGait;
use throng_crowd::crowd::{Crowd, ModelId};

use crate::base::error::RenderError;

/// One model's gaits, by clip index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaits {
    /// Clip played standing (`None`: the walk, slowed).
    pub idle: Option<usize>,
    /// Clip played walking.
    pub walk: usize,
    /// Clip played running (`None`: the walk, sped up).
    pub run: Option<usize>,
    /// The walk's ground speed at playback speed 1, world units per second.
    pub walk_speed: f32,
    /// The run's ground speed at playback speed 1.
    pub run_speed: f32,
    /// Below this speed (world units per second) an agent idles.
    pub idle_below: f32,
    /// Above this speed it runs.
    pub run_above: f32,
    /// A threshold is crossed upward at `(1 + hysteresis)` times it and
    /// downward at `(1 - hysteresis)` times it, so an agent near one does
    /// not flicker between gaits (0 to 0.5).
    pub hysteresis: f32,
    /// Seconds a change of gait cross-fades over.
    pub fade: f32,
}

impl Gaits {
    /// The gaits of `model` in `crowd` by its clips' names — idle: the first
    /// named idle, survey or stand; walk: walk; run: run — with the walk
    /// covering `walk_speed` world units a second at playback speed 1 and
    /// the run `run_speed`. Idle below a quarter of the walk's speed, run
    /// above the mean of the two; hysteresis 0.15, fades of 0.25 s.
    pub fn by_name(
        crowd: &Crowd,
        model: ModelId,
        walk_speed: f32,
        run_speed: f32,
    ) -> Result<Self, RenderError> {
        let m = crowd
            .model(model)
            .map_err(|e| RenderError::Simulation(e.to_string()))?;
        let find = |words: &[&str]| {
            m.clips.iter().position(|c| {
                let name = c.name.to_lowercase();
                words.iter().any(|w| name.contains(w))
            })
        };
        let walk = find(&["walk"]).ok_or_else(|| {
            RenderError::Simulation(format!(
                "gaits: model {} has no clip named walk (its clips: {})",
                model.0,
                m.clips
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        Ok(Self {
            idle: find(&["idle", "survey", "stand"]),
            walk,
            run: find(&["run"]),
            walk_speed,
            run_speed,
            idle_below: 0.25 * walk_speed,
            run_above: 0.5 * (walk_speed + run_speed),
            hysteresis: 0.15,
            fade: 0.25,
        })
    }

    /// The GPU record, checked against a model of `clips` clips: every
    /// clip exists, speeds are finite and positive, `0 ≤ idle_below <
    /// run_above`, hysteresis in [0, 0.5], the fade finite and not negative.
    pub fn gpu(&self, clips: usize) -> Result<GpuGait, RenderError> {
        let bad = |what: String| Err(RenderError::Simulation(format!("gaits: {what}")));
        for (name, clip) in [
            ("idle", self.idle),
            ("walk", Some(self.walk)),
            ("run", self.run),
        ] {
            if let Some(c) = clip
                && c >= clips
            {
                return bad(format!(
                    "the {name} clip {c} is not one of the model's {clips}"
                ));
            }
        }
        let speeds = [self.walk_speed, self.run_speed];
        if speeds.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
            return bad(format!(
                "ground speeds must be finite and positive, got walk {} and run {}",
                self.walk_speed, self.run_speed
            ));
        }
        if !(self.idle_below >= 0.0
            && self.idle_below < self.run_above
            && self.run_above.is_finite())
        {
            return bad(format!(
                "thresholds must be 0 ≤ idle_below < run_above, got {} and {}",
                self.idle_below, self.run_above
            ));
        }
        let fade_ok = self.fade >= 0.0 && self.fade.is_finite();
        if !((0.0..=0.5).contains(&self.hysteresis) && fade_ok) {
            return bad(format!(
                "hysteresis must be in [0, 0.5] and the fade finite and ≥ 0, got {} and {}",
                self.hysteresis, self.fade
            ));
        }
        let clip = |c: Option<usize>| c.map_or(GpuTrack::NO_CLIP, |c| c as u32);
        Ok(GpuGait {
            idle_clip: clip(self.idle),
            walk_clip: self.walk as u32,
            run_clip: clip(self.run),
            enabled: 1,
            walk_speed: self.walk_speed,
            run_speed: self.run_speed,
            idle_below: self.idle_below,
            run_above: self.run_above,
            hysteresis: self.hysteresis,
            fade: self.fade,
            pad: [0; 2],
        })
    }
}
