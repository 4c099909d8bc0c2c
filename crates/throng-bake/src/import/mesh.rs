//! Mesh primitives: attributes read through the bounds-checked accessor
//! reader, triangulated indices, joints checked against the skin.

use crate::scene::{Mesh, MorphTarget, Primitive};
use glam::Vec2;

use crate::accessor::{
    Expect, FLOAT_OR_SNORM, FLOAT_OR_UNORM, Norm, QUANTIZED, SMALL_UINTS, UINTS,
};
use crate::error::ImportError;
use crate::gltf_doc::{self, Dimensions, Mode, Semantic};

use super::*;

impl Ctx<'_> {
    pub(super) fn primitive(
        &self,
        m: usize,
        p: usize,
        w: &mut Warnings,
    ) -> Result<Option<Primitive>, ImportError> {
        let prim = self.doc.primitive(m, p)?;
        let at = format!("meshes[{m}].primitives[{p}]");
        let mode = prim.mode;
        if matches!(
            mode,
            Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
        ) {
            w.add(format!(
                "{at}: {mode:?} primitive skipped (only triangles are drawn)"
            ));
            return Ok(None);
        }
        let attr_path = |name: &str| format!("{at}.attributes.{name}");
        // KHR_mesh_quantization's types: positions as any 8- or 16-bit
        // integer (the node's transform dequantizes them), normals as
        // signed normalized ones.
        let position = Expect {
            dims: &[Dimensions::Vec3],
            types: QUANTIZED,
            normalized: Norm::Either,
        };
        let normal = Expect {
            dims: &[Dimensions::Vec3],
            types: FLOAT_OR_SNORM,
            normalized: Norm::Required,
        };
        let pos_acc = prim
            .get(&Semantic::Positions)
            .ok_or_else(|| ImportError::Accessor {
                path: format!("{at}.attributes"),
                msg: "no POSITION attribute".into(),
            })?;
        let positions = to_vec3(
            &self
                .buffers
                .read(&pos_acc, position, &|| attr_path("POSITION"))?
                .to_f32(),
        );
        let n = positions.len();
        let same_count = |name: &str, count: usize| {
            if count != n {
                Err(ImportError::Accessor {
                    path: attr_path(name),
                    msg: format!("has {count} elements, POSITION has {n}"),
                })
            } else {
                Ok(())
            }
        };
        let normals = match prim.get(&Semantic::Normals) {
            Some(acc) => {
                let v = to_vec3(
                    &self
                        .buffers
                        .read(&acc, normal, &|| attr_path("NORMAL"))?
                        .to_f32(),
                );
                same_count("NORMAL", v.len())?;
                Some(v)
            }
            None => None,
        };
        let tangents = match prim.get(&Semantic::Tangents) {
            Some(acc) => {
                let c = self.buffers.read(
                    &acc,
                    Expect {
                        dims: &[Dimensions::Vec4],
                        types: FLOAT_OR_SNORM,
                        normalized: Norm::Required,
                    },
                    &|| attr_path("TANGENT"),
                )?;
                same_count("TANGENT", c.count())?;
                Some(
                    c.to_f32()
                        .chunks_exact(4)
                        .map(glam::Vec4::from_slice)
                        .collect(),
                )
            }
            None => None,
        };
        let uvs = match prim.get(&Semantic::TexCoords(0)) {
            Some(acc) => {
                let c = self.buffers.read(
                    &acc,
                    Expect {
                        dims: &[Dimensions::Vec2],
                        types: QUANTIZED,
                        normalized: Norm::Either,
                    },
                    &|| attr_path("TEXCOORD_0"),
                )?;
                same_count("TEXCOORD_0", c.count())?;
                Some(c.to_f32().chunks_exact(2).map(Vec2::from_slice).collect())
            }
            None => None,
        };
        let mut sets: Vec<(Vec<u32>, Vec<f32>)> = Vec::new();
        for set in 0u32.. {
            let (ja, wa) = (
                prim.get(&Semantic::Joints(set)),
                prim.get(&Semantic::Weights(set)),
            );
            let (ja, wa) = match (ja, wa) {
                (None, None) => break,
                (Some(j), Some(w)) => (j, w),
                _ => {
                    return Err(ImportError::Accessor {
                        path: format!("{at}.attributes"),
                        msg: format!("JOINTS_{set} and WEIGHTS_{set} must come together"),
                    });
                }
            };
            let jn = format!("JOINTS_{set}");
            let wn = format!("WEIGHTS_{set}");
            let j = self.buffers.read(
                &ja,
                Expect {
                    dims: &[Dimensions::Vec4],
                    types: SMALL_UINTS,
                    normalized: Norm::Forbidden,
                },
                &|| attr_path(&jn),
            )?;
            let wt = self.buffers.read(
                &wa,
                Expect {
                    dims: &[Dimensions::Vec4],
                    types: FLOAT_OR_UNORM,
                    normalized: Norm::Required,
                },
                &|| attr_path(&wn),
            )?;
            same_count(&jn, j.count())?;
            same_count(&wn, wt.count())?;
            let weights = wt.to_f32();
            if let Some(i) = weights.iter().position(|&x| x < 0.0) {
                return Err(ImportError::Accessor {
                    path: attr_path(&wn),
                    msg: format!("vertex {} has a negative weight", i / 4),
                });
            }
            sets.push((j.to_u32(), weights));
        }
        let influence_sets = sets.len() as u32;
        let mut joints = Vec::with_capacity(n * 4 * sets.len());
        let mut weights = Vec::with_capacity(n * 4 * sets.len());
        for v in 0..n {
            for (js, ws) in &sets {
                joints.extend(js[v * 4..v * 4 + 4].iter().map(|&j| j as u16));
                weights.extend_from_slice(&ws[v * 4..v * 4 + 4]);
            }
        }
        let raw_indices: Vec<u32> = match prim.indices {
            Some(acc) => {
                let path = || format!("{at}.indices");
                let idx = self
                    .buffers
                    .read(
                        &acc,
                        Expect {
                            dims: &[Dimensions::Scalar],
                            types: UINTS,
                            normalized: Norm::Forbidden,
                        },
                        &path,
                    )?
                    .to_u32();
                if let Some(&bad) = idx.iter().find(|&&i| i as usize >= n) {
                    return Err(ImportError::Accessor {
                        path: path(),
                        msg: format!("index {bad} is beyond the {n} vertices"),
                    });
                }
                idx
            }
            None => (0..n as u32).collect(),
        };
        let indices = match mode {
            Mode::TriangleStrip => (0..raw_indices.len().saturating_sub(2))
                .flat_map(|i| {
                    if i % 2 == 0 {
                        [raw_indices[i], raw_indices[i + 1], raw_indices[i + 2]]
                    } else {
                        [raw_indices[i + 1], raw_indices[i], raw_indices[i + 2]]
                    }
                })
                .collect(),
            Mode::TriangleFan => (1..raw_indices.len().saturating_sub(1))
                .flat_map(|i| [raw_indices[i], raw_indices[i + 1], raw_indices[0]])
                .collect(),
            _ => {
                let mut v = raw_indices;
                if !v.len().is_multiple_of(3) {
                    w.add(format!("{at}: {} indices is not a whole number of triangles; the remainder is dropped", v.len()));
                    v.truncate(v.len() / 3 * 3);
                }
                v
            }
        };
        let targets = self.morph_targets(&prim, &at, n, normal)?;
        if targets.iter().any(|t| t.normals.is_some()) && normals.is_none() {
            w.add(format!(
                "{at}: morph targets move normals the primitive lacks; the generated normals are not morphed"
            ));
        }
        Ok(Some(Primitive {
            index: p as u32,
            targets,
            positions,
            normals,
            tangents,
            uvs,
            influence_sets,
            joints,
            weights,
            indices,
            material: prim.material.map(|i| i as u32),
        }))
    }
}

impl Ctx<'_> {
    /// A primitive's morph targets: POSITION and NORMAL offsets, one per
    /// vertex (TANGENT offsets are not read: tangents are not baked yet).
    fn morph_targets(
        &self,
        prim: &gltf_doc::Primitive,
        at: &str,
        n: usize,
        normal: Expect,
    ) -> Result<Vec<MorphTarget>, ImportError> {
        // KHR_mesh_quantization: position offsets as signed 8- or 16-bit
        // integers, normalized or not; normal offsets as normalized ones.
        let offset = Expect {
            types: FLOAT_OR_SNORM,
            normalized: Norm::Either,
            ..normal
        };
        let mut out = Vec::new();
        for (t, target) in prim.targets.iter().enumerate() {
            let read = |acc: Option<gltf_doc::Accessor>, name: &str| -> Result<_, ImportError> {
                let Some(acc) = acc else { return Ok(None) };
                let path = || format!("{at}.targets[{t}].{name}");
                let expect = if name == "POSITION" { offset } else { normal };
                let v = to_vec3(&self.buffers.read(&acc, expect, &path)?.to_f32());
                if v.len() != n {
                    return Err(ImportError::Accessor {
                        path: path(),
                        msg: format!("has {} elements, POSITION has {n}", v.len()),
                    });
                }
                Ok(Some(v))
            };
            let positions = read(target.positions, "POSITION")?;
            let normals = read(target.normals, "NORMAL")?;
            out.push(MorphTarget {
                positions: positions.unwrap_or_else(|| vec![glam::Vec3::ZERO; n]),
                normals,
            });
        }
        Ok(out)
    }
}

/// Replaces out-of-range joint indices that carry zero weight by 0 (harmless,
/// and common in exported files); a weighted one is an error.
pub(super) fn sanitize_joints(
    mesh: &mut Mesh,
    node: usize,
    m: usize,
    joint_count: usize,
    w: &mut Warnings,
) -> Result<(), ImportError> {
    for prim in &mut mesh.primitives {
        let mut fixed = 0usize;
        for (k, j) in prim.joints.iter_mut().enumerate() {
            if *j as usize >= joint_count {
                if prim.weights[k] > 0.0 {
                    let sets = prim.influence_sets as usize;
                    let v = k / (4 * sets);
                    let set = (k / 4) % sets;
                    return Err(ImportError::Accessor {
                        path: format!(
                            "meshes[{m}].primitives[{}].attributes.JOINTS_{set}",
                            prim.index
                        ),
                        msg: format!(
                            "vertex {v} uses joint {} with weight {}, but the skin of nodes[{node}] has {joint_count} joints",
                            *j, prim.weights[k]
                        ),
                    });
                }
                *j = 0;
                fixed += 1;
            }
        }
        if fixed > 0 {
            w.add(format!(
                "meshes[{m}].primitives[{}]: {fixed} zero-weight joint indices beyond the skin set to 0",
                prim.index
            ));
        }
    }
    Ok(())
}
