//! The frame's switches: ready characters posed as their instances and
//! shown as the instances hide, shown ones finishing their cross-fades,
//! those no longer asked for returned to their crowds.

use bevy::animation::{AnimationPlayer, RepeatAnimation};
use bevy::prelude::*;
use throng_crowd::crowd::{InstanceState, WrapMode};

use super::clips::ClipNodes;
use super::pose;
use super::state::{Fade, Stage, ThrongPromote, ThrongPromoted};
use crate::agent::{ThrongAgent, ThrongInstance, ThrongOutOfCrowd};
use crate::crowd::ThrongCrowd;

/// The switches of the frame, after the crowds advanced and Bevy's
/// animations did, before Bevy samples them: ready characters are posed
/// as their instances and shown while the instances hide; shown ones
/// finish their cross-fades; those no longer asked for return to their
/// crowds.
#[allow(clippy::type_complexity)]
pub fn switch_characters(
    mut agents: Query<(
        Entity,
        &ThrongAgent,
        &mut ThrongInstance,
        &mut ThrongPromoted,
        Has<ThrongPromote>,
        &Transform,
        Option<&Visibility>,
    )>,
    mut crowds: Query<&mut ThrongCrowd>,
    mut players: Query<&mut AnimationPlayer>,
    mut visibility: Query<&mut Visibility, Without<ThrongInstance>>,
    joints: pose::Joints,
    time: Res<Time>,
    mut commands: Commands,
) {
    for (agent, a, mut instance, mut p, asked, transform, shown_as) in &mut agents {
        let Ok(mut c) = crowds.get_mut(instance.crowd) else {
            continue;
        };
        let crowd = &mut c.crowd;
        if !asked {
            let shown = p.is_shown();
            let reached = reached(&p, &instance, crowd, &players, (&joints, a.speed));
            // A character never shown never hid its instance.
            let at = crate::agent::placed(transform, shown_as);
            if shown && let Err(e) = rejoin(crowd, &mut instance, reached, at) {
                eprintln!("throng-bevy: agent {agent} demoted: {e}");
            }
            commands.entity(p.character).despawn();
            commands
                .entity(agent)
                .remove::<(ThrongPromoted, ThrongOutOfCrowd)>();
            continue;
        }
        match &mut p.stage {
            Stage::Ready { clips, player } => {
                let (clips, player) = (clips.clone(), *player);
                let Ok(mut pl) = players.get_mut(player) else {
                    continue;
                };
                p.stage = match show(crowd, &instance, &mut pl, &clips, a) {
                    Ok(fade) => {
                        if let Ok(mut v) = visibility.get_mut(p.character) {
                            *v = Visibility::Inherited;
                        }
                        commands.entity(agent).insert(ThrongOutOfCrowd);
                        Stage::Shown {
                            clips,
                            player,
                            fade,
                        }
                    }
                    Err(e) => {
                        eprintln!("throng-bevy: agent {agent} not promoted: {e}");
                        Stage::Failed
                    }
                };
            }
            Stage::Shown { player, fade, .. } => {
                if let (Some(f), Ok(mut pl)) = (fade.as_mut(), players.get_mut(*player))
                    && !f.advance(&mut pl, time.delta_secs())
                {
                    *fade = None;
                }
            }
            _ => {}
        }
    }
}

/// Poses `player` as the instance is now and hides the instance; the
/// cross-fade the character carries on, if any.
fn show(
    crowd: &mut throng_crowd::crowd::Crowd,
    instance: &ThrongInstance,
    player: &mut AnimationPlayer,
    clips: &ClipNodes,
    agent: &ThrongAgent,
) -> Result<Option<Fade>, String> {
    let state = crowd.state(instance.id).map_err(|e| e.to_string())?;
    let fade = pose_player(player, clips, &state, agent)?;
    crowd
        .set_transform(instance.id, glam::Mat4::ZERO)
        .map_err(|e| e.to_string())?;
    Ok(fade)
}

/// Poses `player` as the instance's `state`: its clip (and the one it
/// fades from) at their times, weights, the agent's speed and wrap.
fn pose_player(
    player: &mut AnimationPlayer,
    clips: &ClipNodes,
    state: &InstanceState,
    agent: &ThrongAgent,
) -> Result<Option<Fade>, String> {
    let node = |clip: usize| {
        clips
            .node(clip)
            .ok_or_else(|| format!("its glTF has no animation for clip {clip}"))
    };
    let current = state
        .current
        .map(|(c, t)| Ok::<_, String>((node(c)?, t)))
        .transpose()?;
    let previous = state
        .previous
        .map(|(c, t)| Ok::<_, String>((node(c)?, t)))
        .transpose()?;
    player.stop_all();
    let repeat = match agent.wrap {
        WrapMode::Once => RepeatAnimation::Never,
        // Bevy has no ping-pong: the clip runs on forwards.
        WrapMode::Loop | WrapMode::PingPong => RepeatAnimation::Forever,
    };
    for (at, weight) in [(current, state.fade), (previous, 1.0 - state.fade)] {
        let Some((n, t)) = at else { continue };
        let active = player.play(n);
        active
            .set_repeat(repeat)
            .set_seek_time(t)
            .set_speed(agent.speed)
            .set_weight(weight);
        if state.paused {
            active.pause();
        }
    }
    Ok(match (current, previous) {
        (Some((to, _)), Some((from, _))) if agent.fade > 0.0 && !state.paused => Some(Fade {
            from,
            to,
            weight: state.fade,
            rate: 1.0 / agent.fade,
        }),
        _ => None,
    })
}

/// Where a shown character's agent rejoins its crowd: the clip, time and
/// speed of the character's heaviest animation, or, when none plays, the
/// baked frame nearest its pose at the agent's speed (`None`: never
/// shown, or nothing found; the instance keeps what it played).
fn reached(
    p: &ThrongPromoted,
    instance: &ThrongInstance,
    crowd: &throng_crowd::crowd::Crowd,
    players: &Query<&mut AnimationPlayer>,
    (joints, speed): (&pose::Joints, f32),
) -> Option<(usize, f32, f32)> {
    let Stage::Shown { clips, player, .. } = &p.stage else {
        return None;
    };
    let playing = players.get(*player).ok().and_then(|pl| heaviest(pl, clips));
    playing.or_else(|| {
        let handle = crowd.model_handle(instance.model).ok()?;
        let at = joints.model_space(p.character, handle.model())?;
        pose::nearest_clip_time(handle.model(), handle.bind_matrices(), &at)
            .map(|(c, t)| (c, t, speed))
    })
}

/// The instance plays `reached` (clip, time, speed) and stands at `at`.
fn rejoin(
    crowd: &mut throng_crowd::crowd::Crowd,
    instance: &mut ThrongInstance,
    reached: Option<(usize, f32, f32)>,
    at: glam::Mat4,
) -> Result<(), throng_crowd::crowd::CrowdError> {
    let id = instance.id;
    if let Some((clip, time, speed)) = reached {
        crowd.play(id, clip)?;
        crowd.set_time(id, time)?;
        crowd.set_speed(id, speed)?;
        instance.playing(Some(clip), speed);
    }
    crowd.set_transform(id, at)
}

/// The clip, time and speed of the heaviest animation `player` plays.
fn heaviest(player: &AnimationPlayer, clips: &ClipNodes) -> Option<(usize, f32, f32)> {
    player
        .playing_animations()
        .filter(|(_, a)| a.weight() > 0.0)
        .filter_map(|(n, a)| Some((clips.clip(*n)?, a)))
        .max_by(|x, y| x.1.weight().total_cmp(&y.1.weight()))
        .map(|(c, a)| (c, a.seek_time(), a.speed()))
}
