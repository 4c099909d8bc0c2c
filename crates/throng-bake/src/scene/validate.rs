//! [`Scene::validate`]: the validity rules of the scene model, listed in
//! [`crate::scene`]'s docs, rule 6 (morph targets and weights) included.
//!
//! # Rule 6 in full ([`morph_rules`])
//! Every primitive of a mesh has as many targets as the mesh has target
//! names and default weights; every target has one offset per vertex (and
//! normals, if any, likewise), all finite. A node's `weights` has the
//! count of its mesh's targets. A weight channel names a node that shows
//! a mesh with targets, has strictly increasing finite non-negative key
//! times and `keys × (1 or 3) × targets` finite values.

use throng_core::limits::{MAX_IMAGE_SIDE, MAX_MORPH_SLOTS};

use super::targets::{first_slots, target_count};
use super::{Channel, Clip, Interpolation, LocalTransform, Primitive, Scene, WeightChannel};
use crate::error::SceneError;

impl Scene {
    /// Checks the validity rules in the module docs, in the order written
    /// there: the first broken rule is the one reported.
    pub fn validate(&self) -> Result<(), SceneError> {
        self.validate_nodes()?;
        if self.topological_order().len() != self.nodes.len() {
            return Err(SceneError::Cycle);
        }
        self.validate_skins()?;
        for (m, mesh) in self.meshes.iter().enumerate() {
            for prim in &mesh.primitives {
                validate_primitive(m, prim, self.materials.len())?;
            }
        }
        self.validate_instances()?;
        for (c, clip) in self.clips.iter().enumerate() {
            for (k, ch) in clip.channels.iter().enumerate() {
                validate_channel(c, clip, k, ch, self.nodes.len())?;
            }
        }
        morph_rules(self)?;
        self.validate_events()?;
        for (i, mat) in self.materials.iter().enumerate() {
            mat.check(self.images.len()).map_err(|why| {
                SceneError::Invalid(format!("material {i} ({}): {why}", mat.name))
            })?;
        }
        self.validate_images()
    }

    /// Every node's parent is a node and its rest transform is finite
    /// (the cycle check, which walks the parents, relies on the first).
    fn validate_nodes(&self) -> Result<(), SceneError> {
        let node_count = self.nodes.len();
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some(p) = node.parent
                && p as usize >= node_count
            {
                return Err(SceneError::BadIndex {
                    what: "parent",
                    at: format!("node {i} ({})", node.name),
                    index: p as usize,
                    len: node_count,
                });
            }
            let finite = match &node.rest {
                LocalTransform::Trs(t) => {
                    t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite()
                }
                LocalTransform::Matrix(m) => m.is_finite(),
            };
            if !finite {
                return Err(SceneError::NotFinite(format!(
                    "rest transform of node {i} ({})",
                    node.name
                )));
            }
        }
        Ok(())
    }

    /// Every skin has one finite inverse bind matrix per joint, and its
    /// joints are nodes.
    fn validate_skins(&self) -> Result<(), SceneError> {
        for (s, skin) in self.skins.iter().enumerate() {
            if skin.inverse_binds.len() != skin.joints.len() {
                return Err(SceneError::Length {
                    what: "inverse bind matrices",
                    at: format!("skin {s} ({})", skin.name),
                    expected: skin.joints.len(),
                    found: skin.inverse_binds.len(),
                });
            }
            for &j in &skin.joints {
                check_index(
                    "joint",
                    &format!("skin {s} ({})", skin.name),
                    j,
                    self.nodes.len(),
                )?;
            }
            if skin.inverse_binds.iter().any(|m| !m.is_finite()) {
                return Err(SceneError::NotFinite(format!(
                    "inverse bind matrices of skin {s}"
                )));
            }
        }
        Ok(())
    }

    /// Every mesh instance names a node, a mesh and (if skinned) a skin;
    /// a skinned instance's primitives all carry joints and weights, with
    /// joint indices inside the skin.
    fn validate_instances(&self) -> Result<(), SceneError> {
        for (k, inst) in self.instances.iter().enumerate() {
            let at = format!("mesh instance {k}");
            check_index("node", &at, inst.node, self.nodes.len())?;
            check_index("mesh", &at, inst.mesh, self.meshes.len())?;
            let Some(s) = inst.skin else { continue };
            check_index("skin", &at, s, self.skins.len())?;
            let joints = self.skins[s as usize].joints.len();
            for prim in &self.meshes[inst.mesh as usize].primitives {
                if prim.influence_sets == 0 {
                    return Err(SceneError::Invalid(format!(
                        "{at}: skinned, but mesh {} primitive {} has no joints and weights",
                        inst.mesh, prim.index
                    )));
                }
                if let Some(&bad) = prim.joints.iter().find(|&&j| j as usize >= joints) {
                    return Err(SceneError::BadIndex {
                        what: "joint",
                        at: format!("{at}, mesh {} primitive {}", inst.mesh, prim.index),
                        index: bad as usize,
                        len: joints,
                    });
                }
            }
        }
        Ok(())
    }

    /// Every event names a clip and falls inside its duration.
    fn validate_events(&self) -> Result<(), SceneError> {
        for (i, e) in self.events.iter().enumerate() {
            let Some(clip) = self.clips.get(e.clip as usize) else {
                return Err(SceneError::BadIndex {
                    what: "clip",
                    at: format!("event {i} ({})", e.name),
                    index: e.clip as usize,
                    len: self.clips.len(),
                });
            };
            let d = clip.duration();
            if !(e.time.is_finite() && (0.0..=d).contains(&e.time)) {
                return Err(SceneError::Invalid(format!(
                    "event {i} ({}) at {} s is outside clip {} ({}, 0..={d} s)",
                    e.name, e.time, e.clip, clip.name
                )));
            }
        }
        Ok(())
    }

    /// Every image is 1..=`MAX_IMAGE_SIDE` texels a side with exactly its
    /// RGBA8 texels' bytes.
    fn validate_images(&self) -> Result<(), SceneError> {
        for (i, img) in self.images.iter().enumerate() {
            let (w, h) = (img.width, img.height);
            if w == 0 || h == 0 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
                return Err(SceneError::Invalid(format!(
                    "image {i} ({}): {w}×{h} is outside 1..={MAX_IMAGE_SIDE} texels a side",
                    img.name
                )));
            }
            if img.rgba.len() as u64 != w as u64 * h as u64 * 4 {
                return Err(SceneError::Invalid(format!(
                    "image {i} ({}): {} bytes for {w}×{h} RGBA8 texels",
                    img.name,
                    img.rgba.len()
                )));
            }
        }
        Ok(())
    }
}

fn check_index(what: &'static str, at: &str, index: u32, len: usize) -> Result<(), SceneError> {
    if index as usize >= len {
        Err(SceneError::BadIndex {
            what,
            at: at.to_owned(),
            index: index as usize,
            len,
        })
    } else {
        Ok(())
    }
}

fn validate_primitive(m: usize, prim: &Primitive, materials: usize) -> Result<(), SceneError> {
    let at = || format!("mesh {m} primitive {}", prim.index);
    let n = prim.positions.len();
    let len_check = |what: &'static str, found: usize, expected: usize| {
        if found != expected {
            Err(SceneError::Length {
                what,
                at: at(),
                expected,
                found,
            })
        } else {
            Ok(())
        }
    };
    if let Some(normals) = &prim.normals {
        len_check("normals", normals.len(), n)?;
        if normals.iter().any(|v| !v.is_finite()) {
            return Err(SceneError::NotFinite(format!("normals of {}", at())));
        }
    }
    if let Some(tangents) = &prim.tangents {
        len_check("tangents", tangents.len(), n)?;
        if tangents.iter().any(|v| !v.is_finite()) {
            return Err(SceneError::NotFinite(format!("tangents of {}", at())));
        }
    }
    if let Some(uvs) = &prim.uvs {
        len_check("texture coordinates", uvs.len(), n)?;
        if uvs.iter().any(|v| !v.is_finite()) {
            return Err(SceneError::NotFinite(format!(
                "texture coordinates of {}",
                at()
            )));
        }
    }
    let influences = n * prim.influence_sets as usize * 4;
    len_check("joints", prim.joints.len(), influences)?;
    len_check("weights", prim.weights.len(), influences)?;
    if prim.positions.iter().any(|v| !v.is_finite()) {
        return Err(SceneError::NotFinite(format!("positions of {}", at())));
    }
    if prim.weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
        return Err(SceneError::Invalid(format!(
            "{}: a weight is negative or not finite",
            at()
        )));
    }
    if !prim.indices.len().is_multiple_of(3) {
        return Err(SceneError::Invalid(format!(
            "{}: {} indices is not a whole number of triangles",
            at(),
            prim.indices.len()
        )));
    }
    if let Some(&bad) = prim.indices.iter().find(|&&i| i as usize >= n) {
        return Err(SceneError::BadIndex {
            what: "vertex",
            at: at(),
            index: bad as usize,
            len: n,
        });
    }
    if let Some(mat) = prim.material {
        check_index("material", &at(), mat, materials)?;
    }
    Ok(())
}

/// A channel's key times (transform or morph weights, rule 5): at least
/// one, finite, non-negative and strictly increasing; `at` names the
/// channel.
pub(crate) fn validate_key_times(times: &[f32], at: &dyn Fn() -> String) -> Result<(), SceneError> {
    if times.is_empty() {
        return Err(SceneError::Invalid(format!("{}: no keys", at())));
    }
    if times.iter().any(|t| !t.is_finite() || *t < 0.0) {
        return Err(SceneError::NotFinite(format!(
            "key times of {} (or negative)",
            at()
        )));
    }
    if let Some(w) = times.windows(2).position(|w| w[1] <= w[0]) {
        return Err(SceneError::Invalid(format!(
            "{}: key times not strictly increasing at key {} ({} then {})",
            at(),
            w + 1,
            times[w],
            times[w + 1]
        )));
    }
    Ok(())
}

fn validate_channel(
    c: usize,
    clip: &Clip,
    k: usize,
    ch: &Channel,
    nodes: usize,
) -> Result<(), SceneError> {
    let at = || format!("clip {c} ({}) channel {k}", clip.name);
    check_index("node", &at(), ch.node, nodes)?;
    validate_key_times(&ch.times, &at)?;
    let per_key = if ch.interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    if ch.values.len() != ch.times.len() * per_key {
        return Err(SceneError::Length {
            what: "key values",
            at: at(),
            expected: ch.times.len() * per_key,
            found: ch.values.len(),
        });
    }
    if ch.values.iter().any(|v| !v.is_finite()) {
        return Err(SceneError::NotFinite(format!("key values of {}", at())));
    }
    Ok(())
}

/// Rule 6 of [`Scene::validate`], morph targets and weights (module
/// docs of [`crate::scene`]); `throng_bake::morph::validate`.
pub fn morph_rules(scene: &Scene) -> Result<(), SceneError> {
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let n = target_count(mesh);
        let at = || format!("mesh {m} ({})", mesh.name);
        if mesh.weights.len() != n {
            return Err(SceneError::Length {
                what: "default morph weights",
                at: at(),
                expected: n,
                found: mesh.weights.len(),
            });
        }
        if mesh.weights.iter().any(|w| !w.is_finite()) {
            return Err(SceneError::NotFinite(format!(
                "default morph weights of {}",
                at()
            )));
        }
        for prim in &mesh.primitives {
            let at = || format!("mesh {m} primitive {}", prim.index);
            if prim.targets.len() != n {
                return Err(SceneError::Length {
                    what: "morph targets",
                    at: at(),
                    expected: n,
                    found: prim.targets.len(),
                });
            }
            let verts = prim.vertex_count();
            for (t, target) in prim.targets.iter().enumerate() {
                let what = |x: &str| format!("{x} of morph target {t} of {}", at());
                if target.positions.len() != verts
                    || target.normals.as_ref().is_some_and(|v| v.len() != verts)
                {
                    return Err(SceneError::Invalid(format!(
                        "{}: {} position and {} normal offsets for {verts} vertices",
                        what("offsets"),
                        target.positions.len(),
                        target.normals.as_ref().map_or(0, Vec::len)
                    )));
                }
                let finite = target.positions.iter().all(|v| v.is_finite())
                    && target
                        .normals
                        .as_ref()
                        .is_none_or(|n| n.iter().all(|v| v.is_finite()));
                if !finite {
                    return Err(SceneError::NotFinite(what("offsets")));
                }
            }
        }
    }
    let (_, total) = first_slots(scene);
    if total > MAX_MORPH_SLOTS {
        return Err(SceneError::Invalid(format!(
            "{total} morph slots (targets over mesh instances), more than {MAX_MORPH_SLOTS}"
        )));
    }
    for (i, node) in scene.nodes.iter().enumerate() {
        let Some(w) = &node.weights else { continue };
        let at = format!("node {i} ({})", node.name);
        if w.iter().any(|x| !x.is_finite()) {
            return Err(SceneError::NotFinite(format!("morph weights of {at}")));
        }
        for inst in scene.instances.iter().filter(|x| x.node as usize == i) {
            let n = target_count(&scene.meshes[inst.mesh as usize]);
            if w.len() != n {
                return Err(SceneError::Length {
                    what: "morph weights",
                    at,
                    expected: n,
                    found: w.len(),
                });
            }
        }
    }
    for (c, clip) in scene.clips.iter().enumerate() {
        for (k, ch) in clip.weights.iter().enumerate() {
            validate_weight_channel(scene, c, clip, k, ch)?;
        }
    }
    Ok(())
}

fn validate_weight_channel(
    scene: &Scene,
    c: usize,
    clip: &Clip,
    k: usize,
    ch: &WeightChannel,
) -> Result<(), SceneError> {
    let at = || format!("clip {c} ({}) weight channel {k}", clip.name);
    let Some(inst) = scene.instances.iter().find(|i| i.node == ch.node) else {
        return Err(SceneError::Invalid(format!(
            "{}: node {} shows no mesh",
            at(),
            ch.node
        )));
    };
    let n = target_count(&scene.meshes[inst.mesh as usize]);
    if n == 0 || ch.targets as usize != n {
        return Err(SceneError::Length {
            what: "morph weights per key",
            at: at(),
            expected: n,
            found: ch.targets as usize,
        });
    }
    validate_key_times(&ch.times, &at)?;
    let per_key = if ch.interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let expected = ch.times.len() * per_key * n;
    if ch.values.len() != expected {
        return Err(SceneError::Length {
            what: "morph weight values",
            at: at(),
            expected,
            found: ch.values.len(),
        });
    }
    if let Some(i) = ch.values.iter().position(|v| !v.is_finite()) {
        return Err(SceneError::NotFinite(format!(
            "morph weight {} of key {} of {}",
            i % n,
            i / (per_key * n),
            at()
        )));
    }
    Ok(())
}
