//! Instances edited in batches, as JavaScript hands them over: flat typed
//! arrays (16 floats of a column-major matrix per instance, as three.js's
//! `Matrix4.elements`; one clip index, time, speed per instance; 4 floats
//! of tint), never one call per instance per frame. Every batch is
//! checked whole before anything changes — lengths, handles, clip
//! indices, finite numbers — and an error names the argument and the
//! index at fault.

use anyhow::{Context, Result, anyhow, bail};
use glam::{Mat4, Vec4};
use throng_core::variety::Look;
use throng_crowd::crowd::{InstanceId, Spawn};

use super::View;

/// No clip: the rest pose (a `clips` entry).
pub const REST: i32 = -1;

/// What [`View::spawn`] places: `n` instances, the per-instance arrays
/// each of length `n` or empty (their default for all).
#[derive(Clone, Copy, Debug, Default)]
pub struct SpawnBatch<'a> {
    /// `world_from_model`, 16 floats (column-major) per instance; its
    /// length sets `n`.
    pub matrices: &'a [f32],
    /// The clip each plays ([`REST`]: the rest pose; empty: clip 0).
    pub clips: &'a [i32],
    /// Each one's start time in its clip, seconds (empty: 0).
    pub times: &'a [f32],
    /// Each one's palette row (empty: row 0).
    pub looks: &'a [u32],
}

/// `matrices` as one matrix per 16 floats; `what` names the argument.
fn matrices(what: &str, m: &[f32]) -> Result<Vec<Mat4>> {
    if !m.len().is_multiple_of(16) {
        bail!(
            "{what}: {} floats is not 16 per instance (a column-major 4×4 matrix each)",
            m.len()
        );
    }
    m.chunks_exact(16)
        .enumerate()
        .map(|(i, c)| {
            let m = Mat4::from_cols_slice(c);
            if m.is_finite() {
                Ok(m)
            } else {
                bail!("{what}: matrix {i} is not finite")
            }
        })
        .collect()
}

/// Checks that `values` has `n` entries, or none when `optional`.
fn per_instance<T>(what: &str, values: &[T], n: usize, optional: bool) -> Result<()> {
    if values.len() == n || (optional && values.is_empty()) {
        return Ok(());
    }
    let or_none = if optional { " (or none)" } else { "" };
    bail!("{what}: {} values for {n} instances{or_none}", values.len())
}

/// Checks that every one of `values` is finite (and ≥ 0 with
/// `non_negative`).
fn finite(what: &str, values: &[f32], non_negative: bool) -> Result<()> {
    match values
        .iter()
        .position(|v| !v.is_finite() || (non_negative && *v < 0.0))
    {
        Some(i) => bail!(
            "{what}[{i}] = {} is not a finite number{}",
            values[i],
            if non_negative { " ≥ 0" } else { "" }
        ),
        None => Ok(()),
    }
}

/// `clip` of a model of `clips` clips: `None` for [`REST`], else its
/// index; out of range, the end of the error saying how many it has.
fn clip_index(clip: i32, clips: usize) -> Result<Option<usize>, String> {
    match usize::try_from(clip) {
        _ if clip == REST => Ok(None),
        Ok(c) if c < clips => Ok(Some(c)),
        _ => Err(format!("has {clips} clips (-1 is the rest pose)")),
    }
}

impl View {
    /// Spawns `batch`'s instances of `model`; returns their handles.
    pub fn spawn(&mut self, model: u32, batch: SpawnBatch<'_>) -> Result<Vec<u32>> {
        let transforms = matrices("spawn: matrices", batch.matrices)?;
        let n = transforms.len();
        per_instance("spawn: clips", batch.clips, n, true)?;
        per_instance("spawn: times", batch.times, n, true)?;
        per_instance("spawn: looks", batch.looks, n, true)?;
        finite("spawn: times", batch.times, false)?;
        let (handle, id, name) = self.model(model)?;
        let clips = handle.model().clips.len();
        let variants = handle.variants();
        for (i, &c) in batch.clips.iter().enumerate() {
            clip_index(c, clips)
                .map_err(|has| anyhow!("spawn: clips[{i}] = {c}, but {name} {has}"))?;
        }
        if let Some(i) = batch.looks.iter().position(|&l| l as usize >= variants) {
            bail!(
                "spawn: looks[{i}] = {}, but {name} has {variants} palette rows",
                batch.looks[i]
            );
        }
        let first = self.instances.len();
        if u32::try_from(first + n).is_err() {
            bail!("spawn: more than 2³² instances spawned over the view's life");
        }
        self.scene
            .crowd
            .try_reserve(n)
            .context("spawn: reserving room for the instances")?;
        let mut handles = Vec::with_capacity(n);
        for (i, transform) in transforms.into_iter().enumerate() {
            let clip = match batch.clips.get(i).copied().unwrap_or(0) {
                REST => None,
                c => Some(c as usize),
            };
            let spawn = Spawn {
                transform,
                clip,
                time: batch.times.get(i).copied().unwrap_or(0.0),
                look: Look {
                    variant: batch.looks.get(i).copied().unwrap_or(0),
                    hidden: 0,
                },
                ..Default::default()
            };
            let instance = self
                .scene
                .crowd
                .spawn(id, spawn)
                .with_context(|| format!("spawn: instance {i}"))?;
            handles.push((first + i) as u32);
            self.instances.push(Some(instance));
        }
        Ok(handles)
    }

    /// The crowd's ids of `handles` (`what` names the call).
    fn ids(&self, what: &str, handles: &[u32]) -> Result<Vec<InstanceId>> {
        handles
            .iter()
            .enumerate()
            .map(|(i, &h)| {
                self.instances
                    .get(h as usize)
                    .copied()
                    .flatten()
                    .with_context(|| format!("{what}: ids[{i}] = {h} is not a live instance"))
            })
            .collect()
    }

    /// Sets each of `handles`' `world_from_model` (16 floats each).
    pub fn set_transforms(&mut self, handles: &[u32], matrices_: &[f32]) -> Result<()> {
        let ids = self.ids("set_transforms", handles)?;
        let m = matrices("set_transforms: matrices", matrices_)?;
        per_instance("set_transforms: matrices", &m, ids.len(), false)?;
        Ok(self.scene.crowd.set_transforms(&ids, &m)?)
    }

    /// `clips[i]` for `ids[i]` (as many), checked against its model's
    /// clips ([`REST`]: `None`); `what` names the call.
    fn clips_of(
        &self,
        what: &str,
        ids: &[InstanceId],
        clips: &[i32],
    ) -> Result<Vec<Option<usize>>> {
        ids.iter()
            .zip(clips)
            .enumerate()
            .map(|(i, (&id, &c))| {
                let model = self.scene.crowd.state(id)?.model;
                let count = self.scene.crowd.model(model)?.clips.len();
                clip_index(c, count)
                    .map_err(|has| anyhow!("{what}: clips[{i}] = {c}, but its model {has}"))
            })
            .collect()
    }

    /// Plays `clips[i]` on `handles[i]` from `times[i]` (empty: from 0).
    pub fn play(&mut self, handles: &[u32], clips: &[i32], times: &[f32]) -> Result<()> {
        let ids = self.ids("play", handles)?;
        per_instance("play: clips", clips, ids.len(), false)?;
        per_instance("play: times", times, ids.len(), true)?;
        finite("play: times", times, false)?;
        let chosen = self.clips_of("play", &ids, clips)?;
        let crowd = &mut self.scene.crowd;
        for (i, (&id, clip)) in ids.iter().zip(chosen).enumerate() {
            match clip {
                Some(c) => crowd.play(id, c)?,
                None => crowd.play_rest(id)?,
            }
            if let Some(&t) = times.get(i) {
                crowd.set_time(id, t)?;
            }
        }
        Ok(())
    }

    /// Cross-fades `handles[i]` to `clips[i]` over `seconds[i]` (a fade
    /// of 0 plays the clip at once; to the rest pose: at once).
    pub fn cross_fade(&mut self, handles: &[u32], clips: &[i32], seconds: &[f32]) -> Result<()> {
        let ids = self.ids("cross_fade", handles)?;
        per_instance("cross_fade: clips", clips, ids.len(), false)?;
        per_instance("cross_fade: seconds", seconds, ids.len(), false)?;
        finite("cross_fade: seconds", seconds, true)?;
        let chosen = self.clips_of("cross_fade", &ids, clips)?;
        let crowd = &mut self.scene.crowd;
        for ((&id, clip), &s) in ids.iter().zip(chosen).zip(seconds) {
            match clip {
                Some(c) => crowd.cross_fade(id, c, s)?,
                None => crowd.play_rest(id)?,
            }
        }
        Ok(())
    }

    /// Sets each of `handles`' playback speed.
    pub fn set_speeds(&mut self, handles: &[u32], speeds: &[f32]) -> Result<()> {
        let ids = self.ids("set_speeds", handles)?;
        per_instance("set_speeds: speeds", speeds, ids.len(), false)?;
        finite("set_speeds: speeds", speeds, false)?;
        Ok(self.scene.crowd.set_speeds(&ids, speeds)?)
    }

    /// Sets each of `handles`' linear RGBA tint (4 floats each).
    pub fn set_tints(&mut self, handles: &[u32], rgba: &[f32]) -> Result<()> {
        let ids = self.ids("set_tints", handles)?;
        per_instance("set_tints: rgba", rgba, 4 * ids.len(), false)?;
        finite("set_tints: rgba", rgba, true)?;
        for (&id, c) in ids.iter().zip(rgba.chunks_exact(4)) {
            self.scene.crowd.set_tint(id, Vec4::from_slice(c))?;
        }
        Ok(())
    }

    /// Removes `handles`' instances; their handles are not used again.
    pub fn despawn(&mut self, handles: &[u32]) -> Result<()> {
        let ids = self.ids("despawn", handles)?;
        let mut seen = std::collections::HashSet::with_capacity(ids.len());
        if let Some(i) = handles.iter().position(|h| !seen.insert(*h)) {
            bail!("despawn: ids[{i}] = {} is given twice", handles[i]);
        }
        for (&h, id) in handles.iter().zip(ids) {
            self.scene.crowd.despawn(id)?;
            self.instances[h as usize] = None;
        }
        Ok(())
    }
}
