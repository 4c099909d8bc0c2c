//! What the CPU can say of an instance from the record the GPU read back:
//! an instance handed to the GPU simulation has its transform and clips'
//! times on the GPU (its gaits change clip and playback rate there), so
//! its CPU state is no answer. [`Crowd::bone_world_transform_read`]
//! evaluates a read-back [`GpuInstance`] as the cull pass does — both
//! tracks' phases at a tick, the fade as a line in time — and poses the
//! bone from the baked frames, as [`Crowd::bone_world_transform`] does for
//! a CPU instance.

use glam::Mat4;
use throng_core::clock::{TICKS_PER_SECOND, Track, WrapMode};
use throng_core::gpu::{FrameBlend, GpuInstance, GpuTrack};
use throng_core::layout::{FrameMap, FramePair};
use throng_core::limits::REST_FRAME;
use throng_core::math::rows_to_mat4;

use super::{Crowd, CrowdError, ModelId};

impl Crowd {
    /// World transform of `bone`'s node for an instance of `model` whose
    /// GPU record read back at crowd tick `tick` was `state`, with
    /// transform `world`: `world · P(blended) · bind`, the frames and fade
    /// the GPU showed at that tick.
    pub fn bone_world_transform_read(
        &self,
        model: ModelId,
        bone: usize,
        world: Mat4,
        state: &GpuInstance,
        tick: u64,
    ) -> Result<Mat4, CrowdError> {
        let rt = self
            .models
            .get(model.0 as usize)
            .ok_or(CrowdError::NoSuchModel(model))?;
        let baked = rt.handle.model();
        if bone >= baked.bones.len() {
            return Err(CrowdError::BoneOutOfRange {
                model: baked.name.clone(),
                index: bone,
                count: baked.bones.len(),
            });
        }
        let blend = read_blend(state, &rt.maps, tick)?;
        let rows = throng_core::baked::blended_bone_rows(baked, bone as u32, &blend);
        Ok(world * rows_to_mat4(&rows) * rt.handle.bind_matrices()[bone])
    }
}

/// The frames a read-back record shows at `tick`.
fn read_blend(state: &GpuInstance, maps: &[FrameMap], tick: u64) -> Result<FrameBlend, CrowdError> {
    let anchor = u64::from(state.anchor_lo) | u64::from(state.anchor_hi) << 32;
    let ticks = tick.saturating_sub(anchor);
    let current = frames(&state.current, maps, ticks)?.unwrap_or(FramePair::single(REST_FRAME));
    let Some(previous) = frames(&state.previous, maps, ticks)? else {
        return Ok(FrameBlend::single(current));
    };
    let seconds = ticks as f32 / TICKS_PER_SECOND as f32;
    let fade = (state.fade0 + state.fade_rate * seconds).clamp(0.0, 1.0);
    Ok(if fade < 1.0 {
        FrameBlend {
            current,
            previous,
            fade,
        }
    } else {
        FrameBlend::single(current)
    })
}

/// The frames of one read-back track `ticks` after its anchor (`None`:
/// no clip).
fn frames(
    track: &GpuTrack,
    maps: &[FrameMap],
    ticks: u64,
) -> Result<Option<FramePair>, CrowdError> {
    let clip = track.clip & 0xffff;
    if clip == GpuTrack::NO_CLIP {
        return Ok(None);
    }
    let map = maps.get(clip as usize).ok_or_else(|| {
        CrowdError::Incompatible(format!(
            "a read-back record plays clip {clip}; its model has {}",
            maps.len()
        ))
    })?;
    let wrap = match track.clip >> 16 {
        c if c == WrapMode::Once.code() => WrapMode::Once,
        c if c == WrapMode::PingPong.code() => WrapMode::PingPong,
        _ => WrapMode::Loop,
    };
    let t = Track {
        phase: u64::from(track.phase_lo) | u64::from(track.phase_hi) << 32,
        rate: (u64::from(track.rate_lo) | u64::from(track.rate_hi) << 32) as i64,
    };
    Ok(Some(map.frames_at(t.clip_time(ticks, map.duration, wrap))))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::super::Spawn;
    use super::super::fixtures::{at, test_model};
    use super::*;

    /// A record read back is evaluated as the CPU evaluates its own state:
    /// mid-clip and mid-cross-fade, the bone is where
    /// `bone_world_transform` puts it.
    #[test]
    fn a_read_back_record_poses_a_bone_as_the_cpu_state_does() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let id = crowd
            .spawn(
                m,
                Spawn {
                    time: 0.7,
                    ..at(3.0)
                },
            )
            .unwrap();
        crowd.update(0.4);
        crowd.cross_fade(id, 0, 0.5).unwrap();
        let d = crowd.dense_slot(id).unwrap();
        let record = crowd.gpu_instance(d);
        let world = Mat4::from_translation(Vec3::new(3.0, 0.0, 0.0));
        for _ in 0..4 {
            crowd.update(0.15);
            let cpu = crowd.bone_world_transform(id, 0).unwrap();
            let read = crowd
                .bone_world_transform_read(m, 0, world, &record, crowd.clock())
                .unwrap();
            assert!(
                cpu.abs_diff_eq(read, 1e-5),
                "at tick {}: CPU {cpu} vs read back {read}",
                crowd.clock()
            );
        }
        assert!(
            crowd
                .bone_world_transform_read(m, 1, world, &record, 0)
                .is_err()
        );
    }
}
