//! Agents promoted to full Bevy characters and back. [`ThrongPromote`]
//! on an agent replaces its instance by the character the model was baked
//! from — Bevy's own glTF scene and `AnimationPlayer`, loaded through the
//! asset server — playing the same clips at the same times, speed and
//! cross-fade weight, at the agent's transform; removing it returns the
//! agent to its crowd at the clip and time the character has reached (or,
//! when the game stopped its animation and posed it, at the baked frame
//! nearest its pose, [`pose`]).
//!
//! The switch is one frame: the character is loaded and spawned hidden
//! (a child of the agent, marked [`ThrongCharacter`]), and shown in the
//! frame its instance is hidden, posed by Bevy's animation in that frame
//! (between `advance_animations` and `animate_targets`, after the crowd
//! advanced). Demotion sets the instance's clip and time and despawns
//! the character in one frame too. Until demoted the character is the
//! game's: [`ThrongPromoted::character`] and [`ThrongPromoted::player`]
//! name its entities.
//!
//! The glTF is [`ThrongPromote::gltf`], or the file the model was baked
//! from (`BakedModel::source`, the name `throng bake` records) beside the
//! `.throng` asset. A steered agent (its instance moved by the GPU) is
//! not promoted.

pub mod clips;
pub mod pose;

use bevy::animation::graph::{AnimationGraphHandle, AnimationNodeIndex};
use bevy::animation::{AnimationPlayer, RepeatAnimation};
use bevy::asset::AssetPath;
use bevy::gltf::Gltf;
use bevy::prelude::*;
use bevy::world_serialization::{WorldAssetRoot, WorldInstanceReady};
use throng_crowd::crowd::{InstanceState, WrapMode};

use crate::ThrongModel;
use crate::agent::{ThrongAgent, ThrongInstance, ThrongMovedByGpu, ThrongOutOfCrowd};
use crate::crowd::ThrongCrowd;
use clips::ClipNodes;

/// Asks for an agent to be drawn by a full Bevy character (insert it) and
/// back in its crowd (remove it).
#[derive(Component, Clone, Debug, Default)]
pub struct ThrongPromote {
    /// The glTF the character is made from (`None`: the file the model was
    /// baked from, beside the `.throng` asset).
    pub gltf: Option<Handle<Gltf>>,
}

/// On an agent being promoted or promoted: its character and how far the
/// switch has come (inserted by the plugin; read only).
#[derive(Component, Debug)]
pub struct ThrongPromoted {
    character: Entity,
    stage: Stage,
}

impl ThrongPromoted {
    /// The character's root entity (a child of the agent; its scene hangs
    /// below it).
    pub fn character(&self) -> Entity {
        self.character
    }

    /// The character's `AnimationPlayer` entity, once spawned.
    pub fn player(&self) -> Option<Entity> {
        match &self.stage {
            Stage::Ready { player, .. } | Stage::Shown { player, .. } => Some(*player),
            _ => None,
        }
    }

    /// The character is drawn and the instance hidden.
    pub fn is_shown(&self) -> bool {
        matches!(self.stage, Stage::Shown { .. })
    }

    /// The promotion failed (the glTF did not load, has no player, or
    /// lacks the clip the agent plays); the agent stays in its crowd.
    pub fn failed(&self) -> bool {
        matches!(self.stage, Stage::Failed)
    }
}

/// Marks a promoted agent's character root: the agent it stands for.
#[derive(Component, Clone, Copy, Debug)]
pub struct ThrongCharacter {
    /// The agent.
    pub agent: Entity,
}

#[derive(Debug)]
enum Stage {
    /// The glTF loading, with what it depends on.
    Loading(Handle<Gltf>),
    /// The scene spawning.
    Spawning(ClipNodes),
    /// Spawned and hidden: shown at the next switch.
    Ready { clips: ClipNodes, player: Entity },
    /// Drawn by Bevy; a cross-fade the instance was in finishes here.
    Shown {
        clips: ClipNodes,
        player: Entity,
        fade: Option<Fade>,
    },
    /// Given up (the warning says why).
    Failed,
}

/// A cross-fade carried over from the crowd: `to`'s weight rises at
/// `rate` per second, `from`'s falls.
#[derive(Clone, Copy, Debug)]
struct Fade {
    from: AnimationNodeIndex,
    to: AnimationNodeIndex,
    weight: f32,
    rate: f32,
}

/// Starts the promotions asked for: the character's root spawned hidden
/// under the agent, its glTF loading.
#[allow(clippy::type_complexity)]
pub fn begin_promotions(
    asked: Query<
        (Entity, &ThrongAgent, &ThrongPromote, Has<ThrongMovedByGpu>),
        (With<ThrongInstance>, Without<ThrongPromoted>),
    >,
    models: Res<Assets<ThrongModel>>,
    assets: Res<AssetServer>,
    mut commands: Commands,
) {
    for (agent, a, promote, steered) in &asked {
        let gltf = match (&promote.gltf, steered) {
            (_, true) => Err("a steered agent (the GPU moves it) is not promoted".to_string()),
            (Some(g), _) => Ok(g.clone()),
            (None, _) => source_of(&a.model, &models, &assets).map(|p| assets.load(p)),
        };
        let stage = match gltf {
            Ok(g) => Stage::Loading(g),
            Err(e) => {
                eprintln!("throng-bevy: agent {agent} not promoted: {e}");
                Stage::Failed
            }
        };
        let character = commands
            .spawn((
                ThrongCharacter { agent },
                Transform::IDENTITY,
                Visibility::Hidden,
                ChildOf(agent),
            ))
            .id();
        commands
            .entity(agent)
            .insert(ThrongPromoted { character, stage });
    }
}

/// The asset path of the glTF `model` was baked from: its source's file
/// name beside the `.throng` asset.
fn source_of(
    model: &Handle<ThrongModel>,
    models: &Assets<ThrongModel>,
    assets: &AssetServer,
) -> Result<AssetPath<'static>, String> {
    let baked = models.get(model).ok_or("its model is not loaded")?;
    let source = &baked.0.model().source;
    let name = std::path::Path::new(source)
        .file_name()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("its model records no source file ({source:?})"))?;
    let at = assets
        .get_path(model.id())
        .ok_or("its model has no asset path (give ThrongPromote::gltf)")?;
    let dir = at.path().parent().unwrap_or(std::path::Path::new(""));
    Ok(AssetPath::from(dir.join(name)).with_source(at.source().clone_owned()))
}

/// Spawns the scene of each character whose glTF (and all it depends on)
/// has loaded, with the graph of its model's clips; gives up on one that
/// failed to load.
pub fn spawn_characters(
    mut promoted: Query<(Entity, &ThrongAgent, &mut ThrongPromoted)>,
    models: Res<Assets<ThrongModel>>,
    gltfs: Res<Assets<Gltf>>,
    mut graphs: ResMut<Assets<bevy::animation::graph::AnimationGraph>>,
    assets: Res<AssetServer>,
    mut commands: Commands,
) {
    for (agent, a, mut p) in &mut promoted {
        let Stage::Loading(handle) = &p.stage else {
            continue;
        };
        if let bevy::asset::LoadState::Failed(e) = assets.load_state(handle) {
            eprintln!("throng-bevy: agent {agent} not promoted: its glTF: {e}");
            p.stage = Stage::Failed;
            continue;
        }
        if !assets.is_loaded_with_dependencies(handle) {
            continue;
        }
        let (Some(gltf), Some(model)) = (gltfs.get(handle), models.get(&a.model)) else {
            continue;
        };
        let Some(scene) = gltf.default_scene.clone().or(gltf.scenes.first().cloned()) else {
            eprintln!("throng-bevy: agent {agent} not promoted: its glTF has no scene");
            p.stage = Stage::Failed;
            continue;
        };
        let clips = ClipNodes::new(model.0.model(), gltf, &mut graphs);
        commands.entity(p.character).insert(WorldAssetRoot(scene));
        p.stage = Stage::Spawning(clips);
    }
}

/// When a character's scene is in the world: its `AnimationPlayer` gets
/// the clips' graph, and the character waits for the switch.
pub fn character_ready(
    ready: On<WorldInstanceReady>,
    characters: Query<&ThrongCharacter>,
    mut promoted: Query<&mut ThrongPromoted>,
    children: Query<&Children>,
    players: Query<(), With<AnimationPlayer>>,
    mut commands: Commands,
) {
    let Ok(c) = characters.get(ready.entity) else {
        return;
    };
    let Ok(mut p) = promoted.get_mut(c.agent) else {
        return;
    };
    let Stage::Spawning(clips) = &p.stage else {
        return;
    };
    let player = children
        .iter_descendants(ready.entity)
        .find(|&e| players.contains(e));
    p.stage = match player {
        Some(player) => {
            commands
                .entity(player)
                .insert(AnimationGraphHandle(clips.graph.clone()));
            Stage::Ready {
                clips: clips.clone(),
                player,
            }
        }
        None => {
            eprintln!(
                "throng-bevy: agent {} not promoted: its scene has no AnimationPlayer",
                c.agent
            );
            Stage::Failed
        }
    };
}

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

impl Fade {
    /// Moves the weights on by `dt`; false once the fade is over (and
    /// the outgoing clip stopped).
    fn advance(&mut self, player: &mut AnimationPlayer, dt: f32) -> bool {
        self.weight = (self.weight + dt * self.rate).min(1.0);
        if let Some(a) = player.animation_mut(self.to) {
            a.set_weight(self.weight);
        }
        if self.weight >= 1.0 {
            player.stop(self.from);
            return false;
        }
        if let Some(a) = player.animation_mut(self.from) {
            a.set_weight(1.0 - self.weight);
        }
        true
    }
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
