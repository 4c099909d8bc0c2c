//! Clips from other files (docs/RETARGETING.md): the clips of an animation
//! library — a glTF of its own, Mixamo's or a studio's — brought onto the
//! body being baked, joint by joint, and retargeted to the body's
//! proportions.
//!
//! **Matching.** A library node matches the body joint of the same name,
//! where names that differ only by a namespace prefix ending in `:`
//! (Mixamo's `mixamorig:`) are the same; a bone map (`--bone-map`, a JSON
//! object of library name → body name) names the rest. A library joint
//! with no match is ignored and a body joint with no match keeps its rest
//! pose (each listed once, as a warning); a library that matches under
//! half of the body's joints is refused, naming the unmatched ones.
//!
//! **Retargeting.** Each channel is moved onto its body joint relative to
//! the two skeletons' rest poses:
//! - a rotation keeps its change from the library joint's rest rotation,
//!   in the joint's own frame: `body_rest · library_rest⁻¹ · q(t)`;
//! - a translation is scaled: the root-motion joint's (the highest joint
//!   the clip translates) by the ratio of the two skeletons' hip heights
//!   (that joint's rest height above the lowest node below it), every
//!   other one by the ratio of the two joints' rest translation lengths
//!   (its bone's length), so a body with longer legs walks with a longer
//!   stride, and a bone keeps the body's own length;
//! - then the root is grounded: at each key of its translation (a linear
//!   channel first gets [`GROUND_STEPS`] keys per interval, on its own
//!   line), it moves up or down so that the lowest end of the chains below
//!   it (a foot) is as high as the library's, scaled by the ratio of the
//!   root's rest offsets (1 where only the legs differ, the scale where the
//!   whole rig is scaled): the feet touch the ground when the library's do;
//! - a scale keeps its ratio to the library joint's rest scale;
//! - morph weights move to the body node of the same name when its mesh
//!   has as many targets.
//!
//! Nothing more: no IK (a foot's height is met by moving the whole body,
//! not by bending the leg), no limb-length compensation beyond this,
//! no change of a joint's rest direction (a library whose arms rest at
//! another angle moves the body's arms by the same change of angle). The
//! retargeted clips are the body's clips from then on: sampled, measured
//! against the CPU reference under the bake's error bound, given events
//! and root motion as the body's own.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use glam::{Quat, Vec3, Vec4};

use crate::error::BakeError;
use crate::sample::{PoseEvaluator, rest_globals, sample_channel, translation_of};
use crate::scene::{Channel, Clip, Interpolation, Property, Scene, WeightChannel};

/// Library joint names mapped to body joint names (`--bone-map`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoneMap(HashMap<String, String>);

impl BoneMap {
    /// The map in a JSON object of library name → body name.
    pub fn parse(json: &str) -> Result<Self, BakeError> {
        let bad = |why: String| BakeError::ClipLibrary(format!("bone map: {why}"));
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("not a JSON object of library name → body name".into()))?;
        let mut map = HashMap::new();
        for (from, to) in object {
            let to = to
                .as_str()
                .ok_or_else(|| bad(format!("{from:?} maps to {to}, not a name")))?;
            map.insert(from.clone(), to.to_owned());
        }
        Ok(Self(map))
    }

    /// [`Self::parse`] of the file at `path`.
    pub fn read(path: &Path) -> Result<Self, BakeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| BakeError::ClipLibrary(format!("bone map {}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| match e {
            BakeError::ClipLibrary(m) => BakeError::ClipLibrary(format!("{}: {m}", path.display())),
            other => other,
        })
    }
}

/// A name without its namespace prefix (`mixamorig:Hips` → `Hips`).
pub fn bare_name(name: &str) -> &str {
    name.rsplit_once(':').map_or(name, |(_, bare)| bare)
}

/// One library, as read: the file's name for messages, and its scene.
pub struct Library<'a> {
    /// The file, as given.
    pub file: &'a str,
    /// Its scene (its clips, skeleton and rest pose).
    pub scene: &'a Scene,
}

/// Appends the clips of `library` to `body`'s, each retargeted onto the
/// body's joints (the module docs), and its events with them; `own` names
/// the file each of the body's clips came from (the body's own file for its
/// clips), for the message of a name clash. Returns the warnings.
pub fn add_library(
    body: &mut Scene,
    own: &mut Vec<String>,
    library: &Library<'_>,
    map: &BoneMap,
) -> Result<Vec<String>, BakeError> {
    let lib = library.scene;
    let matching = Matching::of(body, lib, map);
    matching.check(body, library.file)?;
    let mut warnings = matching.warnings(body, lib, library.file);
    let root = RootJoint::of(body, lib, &matching.to_body);
    let rig = Rig::new(body, lib, &matching.to_body, root);
    let ground = root.and_then(|r| Ground::new(body, lib, &matching, r));
    let first = body.clips.len() as u32;
    for clip in &lib.clips {
        if let Some(i) = body.clips.iter().position(|c| c.name == clip.name) {
            return Err(BakeError::ClipLibrary(format!(
                "two clips named {:?}: one in {}, one in {}",
                clip.name, own[i], library.file
            )));
        }
        let (mut retargeted, dropped) = rig.clip(body, clip);
        if let Some(ground) = &ground {
            ground.apply(body, lib, clip, &mut retargeted);
        }
        if dropped > 0 {
            warnings.push(format!(
                "{}: clip {:?}: {dropped} morph weight channel(s) dropped (no body mesh of that name and target count)",
                library.file, clip.name
            ));
        }
        body.clips.push(retargeted);
        own.push(library.file.to_owned());
    }
    body.events.extend(lib.events.iter().map(|e| {
        let mut e = e.clone();
        e.clip += first;
        e
    }));
    Ok(warnings)
}

/// Which body node each library node drives.
struct Matching {
    /// Per library node: its body node, if matched.
    to_body: Vec<Option<u32>>,
    /// The body's joints (its skins' joints; every node without a skin).
    joints: Vec<u32>,
}

impl Matching {
    fn of(body: &Scene, lib: &Scene, map: &BoneMap) -> Self {
        let mut by_name: HashMap<&str, u32> = HashMap::new();
        for (i, n) in body.nodes.iter().enumerate().rev() {
            by_name.insert(bare_name(&n.name), i as u32);
        }
        let to_body = lib
            .nodes
            .iter()
            .map(|n| {
                let named = map
                    .0
                    .get(&n.name)
                    .or_else(|| map.0.get(bare_name(&n.name)))
                    .map_or(bare_name(&n.name), |to| bare_name(to));
                by_name.get(named).copied()
            })
            .collect();
        let mut joints: BTreeSet<u32> = body.skins.iter().flat_map(|s| s.joints.clone()).collect();
        if joints.is_empty() {
            joints = (0..body.nodes.len() as u32).collect();
        }
        Self {
            to_body,
            joints: joints.into_iter().collect(),
        }
    }

    /// The body's joints no library node drives.
    fn unmatched(&self) -> Vec<u32> {
        let driven: BTreeSet<u32> = self.to_body.iter().flatten().copied().collect();
        let mut left = self.joints.clone();
        left.retain(|j| !driven.contains(j));
        left
    }

    /// An error if the library matches under half of the body's joints.
    fn check(&self, body: &Scene, file: &str) -> Result<(), BakeError> {
        let unmatched = self.unmatched();
        let matched = self.joints.len() - unmatched.len();
        if 2 * matched < self.joints.len() {
            return Err(BakeError::ClipLibrary(format!(
                "{file} matches {matched} of the body's {} joints (under half); unmatched: {} (names match without a `prefix:` namespace; --bone-map names the rest)",
                self.joints.len(),
                names(body, &unmatched)
            )));
        }
        Ok(())
    }

    /// The library's animated nodes that drive nothing, and the body's
    /// joints that keep their rest pose, each listed once.
    fn warnings(&self, body: &Scene, lib: &Scene, file: &str) -> Vec<String> {
        let mut out = Vec::new();
        let animated: BTreeSet<u32> = lib
            .clips
            .iter()
            .flat_map(|c| c.channels.iter().map(|ch| ch.node))
            .collect();
        let ignored: Vec<u32> = animated
            .into_iter()
            .filter(|&n| self.to_body.get(n as usize).copied().flatten().is_none())
            .collect();
        if !ignored.is_empty() {
            out.push(format!(
                "{file}: animated joints with no match in the body, ignored: {}",
                names(lib, &ignored)
            ));
        }
        let resting = self.unmatched();
        if !resting.is_empty() {
            out.push(format!(
                "{file}: body joints with no match in the library keep their rest pose: {}",
                names(body, &resting)
            ));
        }
        out
    }
}

/// The nodes' names, comma-separated.
fn names(scene: &Scene, nodes: &[u32]) -> String {
    nodes
        .iter()
        .map(|&n| scene.nodes[n as usize].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The library's root-motion joint matched to the body's, with both hip
/// heights: found once per library, read by the translation ratios and the
/// grounding.
#[derive(Clone, Copy)]
struct RootJoint {
    lib: u32,
    body: u32,
    lib_hips: Option<f32>,
    body_hips: Option<f32>,
}

impl RootJoint {
    /// `None` where the clips translate no joint, or one the body lacks.
    fn of(body: &Scene, lib: &Scene, to_body: &[Option<u32>]) -> Option<Self> {
        let lib_root = root_motion_joint(lib)?;
        let body_root = to_body[lib_root as usize]?;
        Some(Self {
            lib: lib_root,
            body: body_root,
            lib_hips: hip_height(lib, lib_root),
            body_hips: hip_height(body, body_root),
        })
    }
}

/// How each library node's channels become its body node's.
struct Rig<'a> {
    to_body: &'a [Option<u32>],
    /// Per library node: its body node's rest rotation times the inverse
    /// of its own.
    rotate: Vec<Quat>,
    /// Per library node: the factor of its translations.
    translate: Vec<f32>,
    /// Per library node: the factor of its scales, per axis.
    scale: Vec<Vec3>,
}

impl<'a> Rig<'a> {
    fn new(body: &Scene, lib: &Scene, to_body: &'a [Option<u32>], root: Option<RootJoint>) -> Self {
        let hips = root.and_then(|r| Some(r.body_hips? / r.lib_hips?));
        let root = root.map(|r| r.lib);
        let n = lib.nodes.len();
        let (mut rotate, mut translate, mut scale) =
            (vec![Quat::IDENTITY; n], vec![1.0; n], vec![Vec3::ONE; n]);
        for (l, b) in to_body.iter().enumerate() {
            let Some(b) = b else { continue };
            let from = lib.nodes[l].rest.to_trs();
            let to = body.nodes[*b as usize].rest.to_trs();
            // Equal rests (the same skeleton) keep the library's values bit
            // for bit.
            if to.rotation != from.rotation {
                rotate[l] = to.rotation * from.rotation.inverse();
            }
            let length = from.translation.length();
            translate[l] = match hips {
                Some(ratio) if root == Some(l as u32) => ratio,
                _ if length > 1e-6 => to.translation.length() / length,
                _ => 1.0,
            };
            let ratio = |t: f32, f: f32| if f.abs() > 1e-6 { t / f } else { 1.0 };
            scale[l] = Vec3::new(
                ratio(to.scale.x, from.scale.x),
                ratio(to.scale.y, from.scale.y),
                ratio(to.scale.z, from.scale.z),
            );
        }
        Self {
            to_body,
            rotate,
            translate,
            scale,
        }
    }

    /// `clip` on the body's joints, and how many morph channels had no
    /// body mesh to go to.
    fn clip(&self, body: &Scene, clip: &Clip) -> (Clip, usize) {
        let channels = clip
            .channels
            .iter()
            .filter_map(|ch| {
                let node = self.to_body.get(ch.node as usize).copied().flatten()?;
                Some(self.channel(ch, node))
            })
            .collect();
        let weights: Vec<WeightChannel> = clip
            .weights
            .iter()
            .filter_map(|w| {
                let node = self.to_body.get(w.node as usize).copied().flatten()?;
                let targets = body
                    .instances
                    .iter()
                    .find(|i| i.node == node)
                    .map(|i| body.meshes[i.mesh as usize].target_names.len());
                (targets == Some(w.targets as usize)).then(|| WeightChannel { node, ..w.clone() })
            })
            .collect();
        let dropped = clip.weights.len() - weights.len();
        let clip = Clip {
            name: clip.name.clone(),
            channels,
            weights,
        };
        (clip, dropped)
    }

    /// Library channel `ch` on body node `node`. Every value (and a cubic
    /// spline's tangents, which transform as the values do: each map here
    /// is linear in the value) is mapped.
    fn channel(&self, ch: &Channel, node: u32) -> Channel {
        let l = ch.node as usize;
        let map = |v: Vec4| match ch.property {
            Property::Rotation if self.rotate[l] == Quat::IDENTITY => v,
            Property::Rotation => Vec4::from(self.rotate[l] * Quat::from_vec4(v)),
            Property::Translation => v * self.translate[l],
            Property::Scale => v * self.scale[l].extend(1.0),
        };
        Channel {
            node,
            values: ch.values.iter().map(|&v| map(v)).collect(),
            ..ch.clone()
        }
    }
}

/// The grounding of a retargeted clip: at each key of the root-motion
/// joint's translation, the body's lowest matched joint below the root is
/// put at the
/// library's lowest one's height times the ratio of the root's rest
/// offsets (1 where only the legs differ, the scale where the whole rig is
/// scaled) by moving the root vertically; the feet touch the ground when
/// the library's do, whatever the legs' proportions.
struct Ground {
    /// The library's root-motion joint and its body joint.
    root: (u32, u32),
    /// Matched (library, body) nodes below the root: the feet are among
    /// them.
    pairs: Vec<(u32, u32)>,
    /// The scale of heights above the ground.
    k: f32,
    /// Offsets up to this are rounding, not a foot off the ground: a
    /// millionth of the body's hip height.
    still: f32,
}

impl Ground {
    fn new(body: &Scene, lib: &Scene, matching: &Matching, joint: RootJoint) -> Option<Self> {
        let (root, root_body) = (joint.lib, joint.body);
        // The ends of the chains that move with the root — the feet among
        // them —, not the joints above it, which stand still at the ground,
        // nor knees and ankles, which a longer leg holds at other heights.
        let leaf = |scene: &Scene, n: u32| !scene.nodes.iter().any(|c| c.parent == Some(n));
        let pairs: Vec<(u32, u32)> = matching
            .to_body
            .iter()
            .enumerate()
            .filter_map(|(l, b)| Some((l as u32, (*b)?)))
            .filter(|&(l, b)| under(lib, l, root) && under(body, b, root_body))
            .filter(|&(l, b)| leaf(lib, l) && leaf(body, b))
            .collect();
        let from = lib.nodes[root as usize].rest.to_trs().translation.length();
        let to = body.nodes[root_body as usize]
            .rest
            .to_trs()
            .translation
            .length();
        let k = if from > 1e-6 { to / from } else { 1.0 };
        let still = 1e-6 * joint.body_hips.unwrap_or(0.0);
        (!pairs.is_empty()).then_some(Self {
            root: (root, root_body),
            pairs,
            k,
            still,
        })
    }

    /// Moves `clip`'s root keys (the body's, retargeted from `lib_clip`)
    /// so the lowest chain end meets the library's at each key's time.
    /// Where that moves anything, a linear root channel first gets
    /// [`GROUND_STEPS`] keys per key interval (on its own line, so the
    /// motion is the same), so that between keys the root follows the
    /// feet more closely than its linear interpolation would.
    fn apply(&self, body: &Scene, lib: &Scene, lib_clip: &Clip, clip: &mut Clip) {
        let root = self.root.1;
        let Some(c) = clip
            .channels
            .iter()
            .position(|ch| ch.node == root && ch.property == Property::Translation)
        else {
            return;
        };
        let (library, rig) = (PoseEvaluator::new(lib), PoseEvaluator::new(body));
        let offsets = |clip: &Clip| -> Vec<(Vec3, usize)> {
            let channel = &clip.channels[c];
            let parent = body.nodes[root as usize].parent;
            let mut out = Vec::with_capacity(channel.times.len());
            for (i, &t) in channel.times.iter().enumerate() {
                let want = self.k * self.lowest(&library.globals(Some(lib_clip), t), false);
                let globals = rig.globals(Some(clip), t);
                let delta = want - self.lowest(&globals, true);
                // Rounding (a rig the same but for scale) moves nothing.
                if delta.abs() <= self.still || !delta.is_finite() {
                    continue;
                }
                let up = Vec3::Y * delta;
                let local = match parent {
                    Some(p) => globals[p as usize].inverse().transform_vector3(up),
                    None => up,
                };
                let at = match channel.interpolation {
                    Interpolation::CubicSpline => 3 * i + 1,
                    _ => i,
                };
                out.push((local, at));
            }
            out
        };
        if offsets(clip).is_empty() {
            return;
        }
        if clip.channels[c].interpolation == Interpolation::Linear {
            clip.channels[c] = densified(&clip.channels[c]);
        }
        for (local, at) in offsets(clip) {
            if let Some(v) = clip.channels[c].values.get_mut(at) {
                *v += local.extend(0.0);
            }
        }
    }

    /// The height of the lowest of the pairs' joints in `globals`, the
    /// library's or (`body_side`) the body's.
    fn lowest(&self, globals: &[glam::Mat4], body_side: bool) -> f32 {
        self.pairs
            .iter()
            .map(|&(l, b)| globals[if body_side { b } else { l } as usize].w_axis.y)
            .fold(f32::INFINITY, f32::min)
    }
}

/// Keys a grounded root gets per key interval of its library channel.
pub const GROUND_STEPS: usize = 8;

/// A linear channel with [`GROUND_STEPS`] keys per interval, each on the
/// channel's own line: the same motion, more keys to move.
fn densified(channel: &Channel) -> Channel {
    let mut times = Vec::with_capacity(channel.times.len() * GROUND_STEPS);
    for pair in channel.times.windows(2) {
        for s in 0..GROUND_STEPS {
            times.push(pair[0] + (pair[1] - pair[0]) * s as f32 / GROUND_STEPS as f32);
        }
    }
    times.extend(channel.times.last());
    let values = times.iter().map(|&t| sample_channel(channel, t)).collect();
    Channel {
        times,
        values,
        ..channel.clone()
    }
}

/// The root-motion joint of `scene`'s clips: the highest node (fewest
/// ancestors) that a clip translates.
fn root_motion_joint(scene: &Scene) -> Option<u32> {
    let depth = |mut n: u32| {
        let mut d = 0;
        while let Some(p) = scene.nodes[n as usize].parent {
            n = p;
            d += 1;
            if d > scene.nodes.len() {
                break;
            }
        }
        d
    };
    scene
        .clips
        .iter()
        .flat_map(|c| c.channels.iter())
        .filter(|ch| ch.property == Property::Translation)
        .map(|ch| ch.node)
        .min_by_key(|&n| (depth(n), n))
}

/// Whether `node` is `ancestor` or below it.
fn under(scene: &Scene, mut node: u32, ancestor: u32) -> bool {
    for _ in 0..=scene.nodes.len() {
        if node == ancestor {
            return true;
        }
        match scene.nodes[node as usize].parent {
            Some(p) => node = p,
            None => return false,
        }
    }
    false
}

/// `joint`'s rest height above the lowest node below it (the feet, for
/// the hips), in model space; `None` where it is not above it.
fn hip_height(scene: &Scene, joint: u32) -> Option<f32> {
    let globals: Vec<Vec3> = rest_globals(scene).iter().map(translation_of).collect();
    let lowest = (0..scene.nodes.len() as u32)
        .filter(|&n| under(scene, n, joint))
        .map(|n| globals[n as usize].y)
        .fold(f32::INFINITY, f32::min);
    let height = globals.get(joint as usize)?.y - lowest;
    (height > 1e-6).then_some(height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_prefix_is_not_part_of_the_name() {
        assert_eq!(bare_name("mixamorig:Hips"), "Hips");
        assert_eq!(bare_name("a:b:Spine"), "Spine");
        assert_eq!(bare_name("Hips"), "Hips");
    }

    #[test]
    fn a_bone_map_is_an_object_of_names() {
        let map = BoneMap::parse(r#"{"Bip01 Pelvis": "Hips"}"#).unwrap();
        assert_eq!(map.0["Bip01 Pelvis"], "Hips");
        for bad in ["[]", r#"{"a": 1}"#, "{"] {
            let e = BoneMap::parse(bad).unwrap_err().to_string();
            assert!(e.contains("bone map"), "{bad}: {e}");
        }
    }
}
