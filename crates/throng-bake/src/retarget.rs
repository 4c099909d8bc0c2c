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
//!   (that joint's rest height above the lowest joint), every other one by
//!   the ratio of the two joints' rest translation lengths (its bone's
//!   length), so a body with longer legs walks with a longer stride, and
//!   a bone keeps the body's own length;
//! - a scale keeps its ratio to the library joint's rest scale;
//! - morph weights move to the body node of the same name when its mesh
//!   has as many targets.
//!
//! Nothing more: no IK, no limb-length compensation beyond this scaling,
//! no change of a joint's rest direction (a library whose arms rest at
//! another angle moves the body's arms by the same change of angle). The
//! retargeted clips are the body's clips from then on: sampled, measured
//! against the CPU reference under the bake's error bound, given events
//! and root motion as the body's own.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use glam::{Quat, Vec3, Vec4};

use crate::error::BakeError;
use crate::scene::{Channel, Clip, Property, Scene, WeightChannel};

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
    let rig = Rig::new(body, lib, &matching.to_body);
    let first = body.clips.len() as u32;
    for clip in &lib.clips {
        if let Some(i) = body.clips.iter().position(|c| c.name == clip.name) {
            return Err(BakeError::ClipLibrary(format!(
                "two clips named {:?}: one in {}, one in {}",
                clip.name, own[i], library.file
            )));
        }
        let (retargeted, dropped) = rig.clip(body, clip);
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
    fn new(body: &Scene, lib: &Scene, to_body: &'a [Option<u32>]) -> Self {
        let root = root_motion_joint(lib);
        let hips = root
            .and_then(|r| Some((hip_height(lib, r)?, hip_height(body, to_body[r as usize]?)?)))
            .map(|(l, b)| b / l);
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
        let map: Box<dyn Fn(Vec4) -> Vec4> = match ch.property {
            Property::Rotation if self.rotate[l] == Quat::IDENTITY => Box::new(|v| v),
            Property::Rotation => {
                let r = self.rotate[l];
                Box::new(move |v| Vec4::from(r * Quat::from_vec4(v)))
            }
            Property::Translation => {
                let k = self.translate[l];
                Box::new(move |v| v * k)
            }
            Property::Scale => {
                let s = self.scale[l].extend(1.0);
                Box::new(move |v| v * s)
            }
        };
        Channel {
            node,
            values: ch.values.iter().map(|&v| map(v)).collect(),
            ..ch.clone()
        }
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

/// `joint`'s rest height above the lowest joint of its skeleton (the
/// scene's skins' joints, or every node), in model space; `None` where it
/// is not above it.
fn hip_height(scene: &Scene, joint: u32) -> Option<f32> {
    let globals = rest_globals(scene);
    let joints: Vec<u32> = match scene
        .skins
        .iter()
        .flat_map(|s| s.joints.clone())
        .collect::<Vec<_>>()
    {
        j if j.is_empty() => (0..scene.nodes.len() as u32).collect(),
        j => j,
    };
    let lowest = joints
        .iter()
        .map(|&j| globals[j as usize].y)
        .fold(f32::INFINITY, f32::min);
    let height = globals.get(joint as usize)?.y - lowest;
    (height > 1e-6).then_some(height)
}

/// Every node's rest position in model space.
fn rest_globals(scene: &Scene) -> Vec<Vec3> {
    let mut world = vec![glam::Mat4::IDENTITY; scene.nodes.len()];
    for n in scene.topological_order() {
        let node = &scene.nodes[n as usize];
        let local = node.rest.to_mat4();
        world[n as usize] = match node.parent {
            Some(p) => world[p as usize] * local,
            None => local,
        };
    }
    world.iter().map(|m| m.w_axis.truncate()).collect()
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
