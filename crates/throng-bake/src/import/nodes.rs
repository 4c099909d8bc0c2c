//! The node hierarchy: nodes and their rest transforms, which of them the
//! default scene reaches, skins, and the check that the hierarchy has no
//! cycle.

use crate::scene::{LocalTransform, SceneNode, Skin};
use glam::{Mat4, Quat, Vec3, Vec4};
use throng_core::math::Trs;

use crate::accessor::{Expect, FLOAT_ONLY, Norm};
use crate::error::ImportError;
use crate::gltf_doc::Dimensions;

use super::*;

impl Ctx<'_> {
    pub(super) fn nodes(&self) -> Result<Vec<SceneNode>, ImportError> {
        let mut out: Vec<SceneNode> = Vec::new();
        for (i, node) in self.doc.json().nodes.iter().enumerate() {
            let rest = match node.matrix {
                Some(m) => {
                    let m = Mat4::from_cols_array(&m);
                    if !m.is_finite() {
                        return Err(bad_value(format!("nodes[{i}].matrix"), "is not finite"));
                    }
                    LocalTransform::Matrix(m)
                }
                None => {
                    let q = Vec4::from_array(node.rotation.unwrap_or_default().0);
                    let t = Vec3::from_array(node.translation.unwrap_or([0.0; 3]));
                    let s = Vec3::from_array(node.scale.unwrap_or([1.0; 3]));
                    if !q.is_finite() || !t.is_finite() || !s.is_finite() {
                        return Err(bad_value(
                            format!("nodes[{i}]"),
                            "translation, rotation or scale is not finite",
                        ));
                    }
                    if q.length() < 1e-6 {
                        return Err(bad_value(
                            format!("nodes[{i}].rotation"),
                            "is a zero quaternion",
                        ));
                    }
                    LocalTransform::Trs(Trs {
                        translation: t,
                        rotation: Quat::from_vec4(q.normalize()),
                        scale: s,
                    })
                }
            };
            out.push(SceneNode {
                name: node.name.clone().unwrap_or_else(|| format!("node{i}")),
                parent: None,
                rest,
                weights: node.weights.clone(),
            });
        }
        for n in 0..out.len() {
            for c in self.doc.children(n)? {
                if out[c].parent.is_some() || c == n {
                    return Err(ImportError::Unsupported {
                        path: format!("nodes[{n}].children"),
                        msg: format!(
                            "node {c} has more than one parent (or is its own child); the hierarchy must be a forest"
                        ),
                    });
                }
                out[c].parent = Some(n as u32);
            }
        }
        check_acyclic(&out)?;
        Ok(out)
    }

    /// Nodes reachable from the default scene (or the first scene; or every
    /// root when the file has no scene).
    pub(super) fn reachable(&self, nodes: &[SceneNode]) -> Result<Vec<bool>, ImportError> {
        let scene = self.doc.scene_roots()?;
        let roots: Vec<usize> = match &scene {
            Some((_, roots)) => roots.clone(),
            None => (0..nodes.len())
                .filter(|&i| nodes[i].parent.is_none())
                .collect(),
        };
        let mut reach = vec![false; nodes.len()];
        let mut stack = Vec::new();
        for r in roots {
            if nodes[r].parent.is_some() {
                return Err(ImportError::Unsupported {
                    path: format!("scenes[{}].nodes", scene.as_ref().map_or(0, |s| s.0)),
                    msg: format!("root node {r} has a parent"),
                });
            }
            stack.push(r);
        }
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut reach[n], true) {
                continue;
            }
            stack.extend(self.doc.children(n)?);
        }
        Ok(reach)
    }

    pub(super) fn skins(&self) -> Result<Vec<Skin>, ImportError> {
        let mut out = Vec::new();
        for (s, json) in self.doc.json().skins.iter().enumerate() {
            let skin = self.doc.skin(s)?;
            let joints: Vec<u32> = skin.joints.iter().map(|&j| j as u32).collect();
            if joints.is_empty() {
                return Err(bad_value(format!("skins[{s}].joints"), "is empty"));
            }
            let inverse_binds = match &skin.inverse_binds {
                None => vec![Mat4::IDENTITY; joints.len()],
                Some(acc) => {
                    let path = || format!("skins[{s}].inverseBindMatrices");
                    let c = self.buffers.read(
                        acc,
                        Expect {
                            dims: &[Dimensions::Mat4],
                            types: FLOAT_ONLY,
                            normalized: Norm::Forbidden,
                        },
                        &path,
                    )?;
                    if c.count() < joints.len() {
                        return Err(bad_value(
                            path(),
                            &format!("has {} matrices for {} joints", c.count(), joints.len()),
                        ));
                    }
                    c.to_f32()
                        .chunks_exact(16)
                        .take(joints.len())
                        .map(Mat4::from_cols_slice)
                        .collect()
                }
            };
            out.push(Skin {
                name: json.name.clone().unwrap_or_else(|| format!("skin{s}")),
                joints,
                inverse_binds,
            });
        }
        Ok(out)
    }
}

/// Rejects a cyclic hierarchy (every node has at most one parent here, so a
/// cycle is a chain of parents that comes back to where it started), naming
/// the nodes on the cycle.
pub(super) fn check_acyclic(nodes: &[SceneNode]) -> Result<(), ImportError> {
    const UNSEEN: usize = usize::MAX;
    // The walk that first reached each node; walks that reach a node seen by
    // an earlier (acyclic) walk stop there, so this is linear.
    let mut walk = vec![UNSEEN; nodes.len()];
    for start in 0..nodes.len() {
        let mut cur = start;
        loop {
            if walk[cur] == start {
                let mut cycle = vec![cur];
                let mut n = cur;
                while let Some(p) = nodes[n].parent {
                    n = p as usize;
                    cycle.push(n);
                    if n == cur {
                        break;
                    }
                }
                let parent = cycle[1];
                let list: Vec<String> = cycle.iter().rev().map(|n| n.to_string()).collect();
                return Err(ImportError::Unsupported {
                    path: format!("nodes[{parent}].children"),
                    msg: format!(
                        "the node hierarchy has a cycle (nodes {}); it must be a forest",
                        list.join(" → ")
                    ),
                });
            }
            if walk[cur] != UNSEEN {
                break;
            }
            walk[cur] = start;
            match nodes[cur].parent {
                Some(p) => cur = p as usize,
                None => break,
            }
        }
    }
    Ok(())
}
