//! Characters as entities: a [`ThrongAgent`] on an entity with a
//! `Transform` is an instance of a Throng crowd. Spawning the entity spawns
//! the instance, a changed `Transform` moves it, changing the component's
//! playback fields plays, cross-fades, pauses or re-times it, hiding it
//! (`Visibility::Hidden`) hides the instance, and
//! despawning the entity (or removing the component) despawns it — each
//! within the frame it happens in, before Bevy's extract. The instance's
//! crowd and id are then on the entity ([`ThrongInstance`]) for anything
//! the component does not say (tints, layers, attachments, motions: the
//! crowd's own API), and [`ThrongAgents`] maps instances back to entities
//! (for events and picking).
//!
//! Only what changed is touched: `Added`/`Changed` filters pick the
//! entities, and each crowd's change log carries the writes to the GPU
//! (one transform per moved entity). Agents are for the characters game
//! code touches; the hundred thousand extras no system looks at stay in a
//! [`ThrongCrowd`] driven in bulk, where an entity each would cost more
//! than their whole draw.
//!
//! An agent's `Transform` is its world transform: agents are top-level
//! entities (a parented agent is moved by its own `Transform` only; give it
//! a [`ThrongInstance`]'s crowd transform from its `GlobalTransform`
//! yourself if it must ride another entity).

use std::collections::HashMap;

use bevy::prelude::*;
use throng_crowd::crowd::{InstanceId, ModelId, Spawn, WrapMode};

use crate::asset::ThrongModel;
use crate::convert;
use crate::crowd::ThrongCrowd;

/// An animated character that is an entity: its model, what it plays and
/// how. Change the fields to change the playback; the entity's
/// `Transform` places it; `Visibility::Hidden` hides its instance (and
/// what hangs from its bones), which keeps playing.
#[derive(Component, Clone, Debug)]
#[require(Transform, Visibility)]
pub struct ThrongAgent {
    /// The model.
    pub model: Handle<ThrongModel>,
    /// The clip it plays (`None`: the rest pose). Changing it cross-fades
    /// over [`Self::fade`] seconds (or cuts, at 0).
    pub clip: Option<usize>,
    /// Seconds of a cross-fade to a new clip (0: a cut).
    pub fade: f32,
    /// Playback speed (1: the clip's own).
    pub speed: f32,
    /// Held at its current time.
    pub paused: bool,
    /// Loop, clamp or ping-pong (at spawn).
    pub wrap: WrapMode,
    /// Where in its clip it starts, seconds (at spawn; staggering agents'
    /// phases).
    pub start: f32,
    /// The crowd entity it joins (`None`: the plugin's agent crowd,
    /// [`ThrongAgents::crowd`], spawned with the first agent that needs
    /// it).
    pub crowd: Option<Entity>,
}

impl ThrongAgent {
    /// An agent of `model` in its rest pose, in the plugin's agent crowd.
    pub fn new(model: Handle<ThrongModel>) -> Self {
        Self {
            model,
            clip: None,
            fade: 0.25,
            speed: 1.0,
            paused: false,
            wrap: WrapMode::Loop,
            start: 0.0,
            crowd: None,
        }
    }

    /// Playing clip `clip` (by index in the model).
    pub fn playing(mut self, clip: usize) -> Self {
        self.clip = Some(clip);
        self
    }

    /// Starting `seconds` into its clip.
    pub fn starting_at(mut self, seconds: f32) -> Self {
        self.start = seconds;
        self
    }

    /// In the crowd of entity `crowd` (one holding a [`ThrongCrowd`]).
    pub fn in_crowd(mut self, crowd: Entity) -> Self {
        self.crowd = Some(crowd);
        self
    }
}

/// The instance an agent is (inserted when it is spawned; read only).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct ThrongInstance {
    /// The entity of its crowd.
    pub crowd: Entity,
    /// Its id in that crowd.
    pub id: InstanceId,
    /// Its model in that crowd.
    pub model: ModelId,
    /// The playback last applied (to tell which fields changed).
    applied: Applied,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Applied {
    model: AssetId<ThrongModel>,
    clip: Option<usize>,
    speed: f32,
    paused: bool,
}

impl Applied {
    fn of(a: &ThrongAgent) -> Self {
        Self {
            model: a.model.id(),
            clip: a.clip,
            speed: a.speed,
            paused: a.paused,
        }
    }
}

/// Agents by instance and instances by agent, and the plugin's own crowd
/// for agents that name none.
#[derive(Resource, Debug, Default)]
pub struct ThrongAgents {
    crowd: Option<Entity>,
    by_entity: HashMap<Entity, (Entity, InstanceId)>,
    by_instance: HashMap<(Entity, InstanceId), Entity>,
}

impl ThrongAgents {
    /// The entity of the plugin's agent crowd: a [`ThrongCrowd`] (marked
    /// [`ThrongAgentCrowd`]) the plugin spawns with the first agent that
    /// names no crowd (`None` until then: an app without agents has only
    /// its own crowds).
    pub fn crowd(&self) -> Option<Entity> {
        self.crowd
    }

    /// The agent that is `instance` of crowd entity `crowd` (`None`: an
    /// instance spawned through the crowd's API, not an agent).
    pub fn agent(&self, crowd: Entity, instance: InstanceId) -> Option<Entity> {
        self.by_instance.get(&(crowd, instance)).copied()
    }

    /// How many agents have instances.
    pub fn len(&self) -> usize {
        self.by_entity.len()
    }

    /// No agent has an instance.
    pub fn is_empty(&self) -> bool {
        self.by_entity.is_empty()
    }

    fn insert(&mut self, agent: Entity, crowd: Entity, id: InstanceId) {
        self.by_entity.insert(agent, (crowd, id));
        self.by_instance.insert((crowd, id), agent);
    }

    fn remove(&mut self, agent: Entity) -> Option<(Entity, InstanceId)> {
        let at = self.by_entity.remove(&agent)?;
        self.by_instance.remove(&at);
        Some(at)
    }
}

impl ThrongInstance {
    /// Records that the instance now plays `clip` at `speed`, unpaused
    /// (set through the crowd's API by the plugin itself), so that the
    /// agent's fields, set to the same, change nothing.
    pub(crate) fn playing(&mut self, clip: Option<usize>, speed: f32) {
        self.applied.clip = clip;
        self.applied.speed = speed;
        self.applied.paused = false;
    }
}

/// Marks the crowd the plugin made for agents that name none.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct ThrongAgentCrowd;

/// The spawn an agent's component and transform ask for.
fn spawn_of(agent: &ThrongAgent, transform: &Transform, visibility: Option<&Visibility>) -> Spawn {
    Spawn {
        transform: placed(transform, visibility),
        clip: agent.clip,
        time: agent.start,
        speed: agent.speed,
        wrap: agent.wrap,
        ..Spawn::default()
    }
}

/// Despawns the instances of agents whose entity was despawned or whose
/// component was removed; agents whose crowd was despawned lose their
/// instance and join a crowd again (their own, if it comes back, or the
/// plugin's).
pub fn despawn_agents(
    mut removed: RemovedComponents<ThrongAgent>,
    mut gone_crowds: RemovedComponents<ThrongCrowd>,
    mut agents: ResMut<ThrongAgents>,
    mut crowds: Query<&mut ThrongCrowd>,
    mut commands: Commands,
) {
    for crowd in gone_crowds.read() {
        let orphans: Vec<Entity> = agents
            .by_entity
            .iter()
            .filter(|(_, (c, _))| *c == crowd)
            .map(|(&a, _)| a)
            .collect();
        for agent in orphans {
            agents.remove(agent);
            if let Ok(mut e) = commands.get_entity(agent) {
                e.remove::<ThrongInstance>();
            }
        }
    }
    for entity in removed.read() {
        let Some((crowd, id)) = agents.remove(entity) else {
            continue;
        };
        if let Ok(mut c) = crowds.get_mut(crowd) {
            // Gone already when the crowd was cleared: nothing to undo.
            let _ = c.crowd.despawn(id);
        }
        if let Ok(mut e) = commands.get_entity(entity) {
            e.remove::<ThrongInstance>();
        }
    }
}

/// Spawns the instances of new agents (and of agents whose model changed
/// or whose instance is gone), once their model is loaded; an agent whose
/// model is still loading is spawned the frame it arrives.
#[allow(clippy::type_complexity)]
pub fn spawn_agents(
    new: Query<
        (
            Entity,
            &ThrongAgent,
            &Transform,
            Option<&Visibility>,
            Option<&ThrongInstance>,
        ),
        Or<(Without<ThrongInstance>, Changed<ThrongAgent>)>,
    >,
    mut agents: ResMut<ThrongAgents>,
    mut crowds: Query<&mut ThrongCrowd>,
    models: Res<Assets<ThrongModel>>,
    mut commands: Commands,
    mut warned: Local<std::collections::HashSet<Entity>>,
) {
    // The agent crowd, made here with its first agents and spawned after
    // them (the entity's id is known at once, so they name it already).
    let mut made: Option<(Entity, ThrongCrowd)> = None;
    for (entity, agent, transform, visibility, instance) in &new {
        if !needs_instance(agent, instance, &crowds) {
            continue;
        }
        if let Some((old_crowd, old)) = agents.remove(entity)
            && let Ok(mut c) = crowds.get_mut(old_crowd)
        {
            let _ = c.crowd.despawn(old);
        }
        if instance.is_some() {
            // Stale: until a new one is spawned (maybe frames later, its new
            // model loading), the agent has none, and is retried each frame.
            commands.entity(entity).remove::<ThrongInstance>();
        }
        let Some(model) = models.get(&agent.model) else {
            continue; // loading (or failed: the asset server says why)
        };
        let crowd = agent_crowd(agent, &mut agents, &crowds, &mut made, &mut commands);
        let mut held;
        let c = match made.as_mut() {
            Some((e, c)) if *e == crowd => c,
            _ => {
                let Ok(c) = crowds.get_mut(crowd) else {
                    if warned.insert(entity) {
                        eprintln!(
                            "throng-bevy: agent {entity}: its crowd {crowd} has no ThrongCrowd"
                        );
                    }
                    continue;
                };
                held = c;
                &mut *held
            }
        };
        match spawn_instance(c, model, agent, spawn_of(agent, transform, visibility)) {
            Ok((m, id)) => {
                agents.insert(entity, crowd, id);
                let made = ThrongInstance {
                    crowd,
                    id,
                    model: m,
                    applied: Applied::of(agent),
                };
                commands.entity(entity).insert(made);
            }
            Err(e) => {
                if warned.insert(entity) {
                    eprintln!("throng-bevy: agent {entity}: {e}");
                }
            }
        }
    }
    if let Some((e, c)) = made {
        commands.entity(e).insert((c, ThrongAgentCrowd));
    }
}

/// An agent needs a new instance: it has none, its model changed, or its
/// instance is gone from its crowd (despawned through the crowd's API, or
/// the crowd with it).
fn needs_instance(
    agent: &ThrongAgent,
    instance: Option<&ThrongInstance>,
    crowds: &Query<&mut ThrongCrowd>,
) -> bool {
    match instance {
        None => true,
        Some(i) => {
            i.applied.model != agent.model.id()
                || crowds
                    .get(i.crowd)
                    .map_or(true, |c| !c.crowd.contains(i.id))
        }
    }
}

/// The crowd entity an agent joins: the one it names, else the plugin's,
/// made here (into `made`, spawned by the caller after its agents) when
/// there is none yet or the game despawned it.
fn agent_crowd(
    agent: &ThrongAgent,
    agents: &mut ThrongAgents,
    crowds: &Query<&mut ThrongCrowd>,
    made: &mut Option<(Entity, ThrongCrowd)>,
    commands: &mut Commands,
) -> Entity {
    // The plugin's crowd, unless the game despawned it (then a new one).
    let plugins = agents
        .crowd
        .filter(|&e| crowds.contains(e) || made.as_ref().is_some_and(|(m, _)| *m == e));
    match agent.crowd.or(plugins) {
        Some(e) => e,
        None => {
            let e = commands.spawn_empty().id();
            agents.crowd = Some(e);
            *made = Some((e, ThrongCrowd::default()));
            e
        }
    }
}

/// Spawns an agent's instance into crowd `c` (adding its model to the
/// crowd if new), paused if the agent is: its model's id in the crowd and
/// the instance's id.
fn spawn_instance(
    c: &mut ThrongCrowd,
    model: &ThrongModel,
    agent: &ThrongAgent,
    spawn: Spawn,
) -> Result<(ModelId, InstanceId), throng_crowd::crowd::CrowdError> {
    let m = c.crowd.add_model(&model.0);
    let id = c.crowd.spawn(m, spawn)?;
    if agent.paused {
        c.crowd.pause(id)?;
    }
    Ok((m, id))
}

/// Marks an agent whose instance the GPU moves (a steered agent,
/// `crate::steer::ThrongSteered` requires it): its `Transform` follows the
/// GPU and no longer moves the instance.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct ThrongMovedByGpu;

/// Marks an agent drawn by something other than its crowd (a promoted
/// agent, `crate::promote`): its instance is hidden, and neither its
/// `Transform`, its `Visibility` nor its playback fields reach the
/// instance until the marker goes.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct ThrongOutOfCrowd;

/// One crowd's moved instances and their new transforms.
type Moves = (Vec<InstanceId>, Vec<glam::Mat4>);

/// Where an agent's instance is drawn: at its `Transform`, or nowhere
/// (a zero transform: culled, never picked) while its `Visibility` is
/// `Hidden`.
pub(crate) fn placed(transform: &Transform, visibility: Option<&Visibility>) -> glam::Mat4 {
    if visibility == Some(&Visibility::Hidden) {
        glam::Mat4::ZERO
    } else {
        convert::mat4(transform.to_matrix())
    }
}

/// Moves the instances of agents whose `Transform` (or `Visibility`)
/// changed, one batch per crowd (not agents the GPU moves,
/// [`ThrongMovedByGpu`]).
#[allow(clippy::type_complexity)]
pub fn move_agents(
    moved: Query<
        (&Transform, Option<&Visibility>, &ThrongInstance),
        (
            Or<(Changed<Transform>, Changed<Visibility>)>,
            // The GPU moves those; their Transform follows it.
            Without<ThrongMovedByGpu>,
            // Hidden while promoted; placed again when demoted.
            Without<ThrongOutOfCrowd>,
        ),
    >,
    mut crowds: Query<&mut ThrongCrowd>,
    mut batch: Local<HashMap<Entity, Moves>>,
) {
    for (transform, visibility, instance) in &moved {
        let (ids, mats) = batch.entry(instance.crowd).or_default();
        ids.push(instance.id);
        mats.push(placed(transform, visibility));
    }
    for (crowd, (ids, mats)) in batch.iter_mut() {
        if ids.is_empty() {
            continue;
        }
        if let Ok(mut c) = crowds.get_mut(*crowd)
            && c.crowd.set_transforms(ids, mats).is_err()
        {
            // One bad transform (not finite) or a stale id: the rest still
            // move, one by one.
            for (id, m) in ids.iter().zip(mats.iter()) {
                let _ = c.crowd.set_transform(*id, *m);
            }
        }
        ids.clear();
        mats.clear();
    }
}

/// Applies changed playback fields: a new clip cross-fades (or cuts), a
/// new speed or pause state takes effect now.
#[allow(clippy::type_complexity)]
pub fn play_agents(
    mut changed: Query<
        (&ThrongAgent, &mut ThrongInstance),
        (Changed<ThrongAgent>, Without<ThrongOutOfCrowd>),
    >,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    for (agent, mut instance) in &mut changed {
        let now = Applied::of(agent);
        if now == instance.applied || now.model != instance.applied.model {
            continue;
        }
        let Ok(mut c) = crowds.get_mut(instance.crowd) else {
            continue;
        };
        let (crowd, id, was) = (&mut c.crowd, instance.id, instance.applied);
        let result = (|| {
            if now.clip != was.clip {
                match now.clip {
                    Some(clip) => crowd.cross_fade(id, clip, agent.fade)?,
                    None => crowd.play_rest(id)?,
                }
            }
            if now.speed != was.speed || now.clip != was.clip {
                crowd.set_speed(id, now.speed)?;
            }
            if now.paused != was.paused {
                if now.paused {
                    crowd.pause(id)?;
                } else {
                    crowd.resume(id)?;
                }
            }
            Ok::<(), throng_crowd::crowd::CrowdError>(())
        })();
        match result {
            Ok(()) => instance.applied = now,
            Err(e) => eprintln!("throng-bevy: agent playback: {e}"),
        }
    }
}
