//! Mesh primitives: attributes read through the bounds-checked accessor
//! reader, triangulated indices, joints checked against the skin.

use crate::scene::{Mesh, MorphTarget, Primitive};
use glam::{Vec2, Vec3, Vec4};

use crate::accessor::{
    Buffers, Expect, FLOAT_OR_SNORM, FLOAT_OR_UNORM, Norm, QUANTIZED, SMALL_UINTS, UINTS,
};
use crate::error::ImportError;
use crate::gltf_doc::{self, Dimensions, Mode, Semantic};

use super::*;

/// KHR_mesh_quantization's positions: any 8- or 16-bit integer (the
/// node's transform dequantizes them), or float.
const POSITION: Expect = Expect {
    dims: &[Dimensions::Vec3],
    types: QUANTIZED,
    normalized: Norm::Either,
};

/// KHR_mesh_quantization's normals: signed normalized integers, or float.
const NORMAL: Expect = Expect {
    dims: &[Dimensions::Vec3],
    types: FLOAT_OR_SNORM,
    normalized: Norm::Required,
};

impl Ctx<'_> {
    /// Reads primitive `p` of mesh `m`: its vertex attributes, skin
    /// influences, indices as a triangle list and morph targets; `None`
    /// (with a warning) for a point or line primitive.
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
        let positions = read_positions(&self.buffers, &prim, &at)?;
        let n = positions.len();
        let attrs = Attributes {
            buffers: &self.buffers,
            prim: &prim,
            at: &at,
            n,
        };
        let normals = attrs.normals()?;
        let tangents = attrs.tangents()?;
        let uvs = attrs.uvs()?;
        let influences = interleave(&attrs.influence_sets()?, n);
        let indices = triangulate(mode, attrs.indices()?, &at, w);
        let targets = self.morph_targets(&prim, &at, n, NORMAL)?;
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
            influence_sets: influences.sets,
            joints: influences.joints,
            weights: influences.weights,
            indices,
            material: prim.material.map(|i| i as u32),
        }))
    }
}

/// A primitive's POSITION attribute, which every primitive must have: its
/// count is the vertex count every other attribute is checked against.
fn read_positions(
    buffers: &Buffers,
    prim: &gltf_doc::Primitive,
    at: &str,
) -> Result<Vec<Vec3>, ImportError> {
    let pos_acc = prim
        .get(&Semantic::Positions)
        .ok_or_else(|| ImportError::Accessor {
            path: format!("{at}.attributes"),
            msg: "no POSITION attribute".into(),
        })?;
    Ok(to_vec3(
        &buffers
            .read(&pos_acc, POSITION, &|| format!("{at}.attributes.POSITION"))?
            .to_f32(),
    ))
}

/// A primitive's other vertex attributes, read once its positions gave
/// the vertex count `n` that each must match.
struct Attributes<'a> {
    buffers: &'a Buffers,
    prim: &'a gltf_doc::Primitive,
    /// The primitive's JSON path.
    at: &'a str,
    /// The vertex count (POSITION's).
    n: usize,
}

/// One `JOINTS_n`/`WEIGHTS_n` pair as read: four joints and four weights
/// per vertex.
struct InfluenceSet {
    joints: Vec<u32>,
    weights: Vec<f32>,
}

/// A primitive's skin influences, vertex-major: for each vertex, the four
/// joints (and weights) of each influence set in turn.
struct Influences {
    sets: u32,
    joints: Vec<u16>,
    weights: Vec<f32>,
}

impl Attributes<'_> {
    /// The JSON path of attribute `name`.
    fn attr_path(&self, name: &str) -> String {
        format!("{}.attributes.{name}", self.at)
    }

    /// Checks that attribute `name` has one element per vertex.
    fn same_count(&self, name: &str, count: usize) -> Result<(), ImportError> {
        let n = self.n;
        if count != n {
            Err(ImportError::Accessor {
                path: self.attr_path(name),
                msg: format!("has {count} elements, POSITION has {n}"),
            })
        } else {
            Ok(())
        }
    }

    /// NORMAL, if present.
    fn normals(&self) -> Result<Option<Vec<Vec3>>, ImportError> {
        let Some(acc) = self.prim.get(&Semantic::Normals) else {
            return Ok(None);
        };
        let v = to_vec3(
            &self
                .buffers
                .read(&acc, NORMAL, &|| self.attr_path("NORMAL"))?
                .to_f32(),
        );
        self.same_count("NORMAL", v.len())?;
        Ok(Some(v))
    }

    /// TANGENT, if present (xyz and the bitangent's sign in w).
    fn tangents(&self) -> Result<Option<Vec<Vec4>>, ImportError> {
        let Some(acc) = self.prim.get(&Semantic::Tangents) else {
            return Ok(None);
        };
        let c = self.buffers.read(
            &acc,
            Expect {
                dims: &[Dimensions::Vec4],
                types: FLOAT_OR_SNORM,
                normalized: Norm::Required,
            },
            &|| self.attr_path("TANGENT"),
        )?;
        self.same_count("TANGENT", c.count())?;
        Ok(Some(
            c.to_f32().chunks_exact(4).map(Vec4::from_slice).collect(),
        ))
    }

    /// TEXCOORD_0, if present (the only UV set baked).
    fn uvs(&self) -> Result<Option<Vec<Vec2>>, ImportError> {
        let Some(acc) = self.prim.get(&Semantic::TexCoords(0)) else {
            return Ok(None);
        };
        let c = self.buffers.read(
            &acc,
            Expect {
                dims: &[Dimensions::Vec2],
                types: QUANTIZED,
                normalized: Norm::Either,
            },
            &|| self.attr_path("TEXCOORD_0"),
        )?;
        self.same_count("TEXCOORD_0", c.count())?;
        Ok(Some(
            c.to_f32().chunks_exact(2).map(Vec2::from_slice).collect(),
        ))
    }

    /// Every `JOINTS_n`/`WEIGHTS_n` pair from set 0 up to the first set
    /// that has neither; a set with only one of the two is an error.
    fn influence_sets(&self) -> Result<Vec<InfluenceSet>, ImportError> {
        let mut sets = Vec::new();
        for set in 0u32.. {
            let (ja, wa) = (
                self.prim.get(&Semantic::Joints(set)),
                self.prim.get(&Semantic::Weights(set)),
            );
            let (ja, wa) = match (ja, wa) {
                (None, None) => break,
                (Some(j), Some(w)) => (j, w),
                _ => {
                    return Err(ImportError::Accessor {
                        path: format!("{}.attributes", self.at),
                        msg: format!("JOINTS_{set} and WEIGHTS_{set} must come together"),
                    });
                }
            };
            sets.push(self.influence_set(set, &ja, &wa)?);
        }
        Ok(sets)
    }

    /// One influence set's joints and weights, four per vertex; a
    /// negative weight is an error.
    fn influence_set(
        &self,
        set: u32,
        ja: &gltf_doc::Accessor,
        wa: &gltf_doc::Accessor,
    ) -> Result<InfluenceSet, ImportError> {
        let jn = format!("JOINTS_{set}");
        let wn = format!("WEIGHTS_{set}");
        let j = self.buffers.read(
            ja,
            Expect {
                dims: &[Dimensions::Vec4],
                types: SMALL_UINTS,
                normalized: Norm::Forbidden,
            },
            &|| self.attr_path(&jn),
        )?;
        let wt = self.buffers.read(
            wa,
            Expect {
                dims: &[Dimensions::Vec4],
                types: FLOAT_OR_UNORM,
                normalized: Norm::Required,
            },
            &|| self.attr_path(&wn),
        )?;
        self.same_count(&jn, j.count())?;
        self.same_count(&wn, wt.count())?;
        let weights = wt.to_f32();
        if let Some(i) = weights.iter().position(|&x| x < 0.0) {
            return Err(ImportError::Accessor {
                path: self.attr_path(&wn),
                msg: format!("vertex {} has a negative weight", i / 4),
            });
        }
        Ok(InfluenceSet {
            joints: j.to_u32(),
            weights,
        })
    }

    /// The index list as stored, each index checked against the vertex
    /// count; without an indices accessor, the vertices in order.
    fn indices(&self) -> Result<Vec<u32>, ImportError> {
        let n = self.n;
        let Some(acc) = self.prim.indices else {
            return Ok((0..n as u32).collect());
        };
        let path = || format!("{}.indices", self.at);
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
        Ok(idx)
    }
}

/// The influence sets of `n` vertices laid out vertex-major, the layout
/// [`Primitive`] keeps.
fn interleave(sets: &[InfluenceSet], n: usize) -> Influences {
    let mut joints = Vec::with_capacity(n * 4 * sets.len());
    let mut weights = Vec::with_capacity(n * 4 * sets.len());
    for v in 0..n {
        for set in sets {
            joints.extend(set.joints[v * 4..v * 4 + 4].iter().map(|&j| j as u16));
            weights.extend_from_slice(&set.weights[v * 4..v * 4 + 4]);
        }
    }
    Influences {
        sets: sets.len() as u32,
        joints,
        weights,
    }
}

/// A triangle list from a triangle list, strip or fan's indices (every
/// other strip triangle has its first two indices swapped, so that all keep
/// the first one's winding); a list's incomplete last triangle is dropped
/// with a warning.
fn triangulate(mode: Mode, raw_indices: Vec<u32>, at: &str, w: &mut Warnings) -> Vec<u32> {
    match mode {
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
                w.add(format!(
                    "{at}: {} indices is not a whole number of triangles; the remainder is dropped",
                    v.len()
                ));
                v.truncate(v.len() / 3 * 3);
            }
            v
        }
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
