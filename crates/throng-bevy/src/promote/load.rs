//! A promotion's first steps: the character's root spawned hidden under
//! the agent, its glTF loaded with everything it depends on, its scene
//! spawned, its `AnimationPlayer` given the graph of the model's clips.

use bevy::animation::AnimationPlayer;
use bevy::animation::graph::AnimationGraphHandle;
use bevy::asset::AssetPath;
use bevy::gltf::Gltf;
use bevy::prelude::*;
use bevy::world_serialization::{WorldAssetRoot, WorldInstanceReady};

use super::clips::ClipNodes;
use super::state::{Stage, ThrongCharacter, ThrongPromote, ThrongPromoted};
use crate::ThrongModel;
use crate::agent::{ThrongAgent, ThrongInstance, ThrongMovedByGpu};

/// Starts the promotions asked for: the character's root spawned hidden
/// under the agent, its glTF loading.
#[allow(clippy::type_complexity)]
pub fn begin_promotions(
    // A steered agent waits until it is no longer steered (the GPU moves
    // its instance; the character would not follow).
    asked: Query<
        (Entity, &ThrongAgent, &ThrongPromote),
        (
            With<ThrongInstance>,
            Without<ThrongPromoted>,
            Without<ThrongMovedByGpu>,
        ),
    >,
    models: Res<Assets<ThrongModel>>,
    assets: Res<AssetServer>,
    mut commands: Commands,
) {
    for (agent, a, promote) in &asked {
        let gltf = match &promote.gltf {
            Some(g) => Ok(g.clone()),
            None => source_of(&a.model, &models, &assets).map(|p| assets.load(p)),
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
