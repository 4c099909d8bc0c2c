//! The meshes stage: source meshes to baked vertices, the palette built
//! while converting ([`Meshes`]), 4 influences per vertex (extra ones
//! dropped and counted, weights renormalised), generated normals where the
//! source has none, morph targets as sparse per-vertex deltas. Used by the
//! bake (LOD 0) and by LODs and attachments from files (which drop morph
//! targets).
//!
//! # Palette (docs/design/math.md#palette-matrices)
//! A palette entry is `(node, inverse_bind)`; its matrix at a frame is
//! `G_node · inverse_bind`. Skin joints give entries with their skin's inverse
//! binds; a mesh without a skin gives the entry `(node, G_node(rest)⁻¹)` and
//! its vertices are pre-transformed by `G_node(rest)`, so rigid props under a
//! bone, robot parts and static meshes all become single-bone skinned meshes.
//! Entries are shared only when node and inverse bind are bit-equal.

use std::collections::HashMap;

use crate::scene::{MeshInstance, Primitive, Scene};
use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};
use throng_core::limits::{MAX_BONES, MAX_INFLUENCES};
use throng_core::math::{mat4_to_rows, rows_transform_normal, rows_transform_point};
use throng_core::model::{BakedVertex, Lod, SUBMESH_GENERATED_NORMALS, Submesh, pack_tangent};
use throng_core::morph::{MorphDelta, Morphs};

use crate::error::BakeError;
use crate::report::BakeReport;
use crate::report::InfluenceStats;

/// Weights whose sum differs from 1 by more than this are counted as
/// "renormalised" in the report (all weights are renormalised regardless).
/// 2/255: two steps of an 8-bit normalised weight.
pub const WEIGHT_SUM_TOLERANCE: f32 = 2.0 / 255.0;

/// The meshes stage's output: LOD 0, the palette its vertices index and
/// the morph deltas their ranges index.
pub(crate) struct Meshes {
    /// Palette entries, in the order the conversion met them.
    pub(crate) palette: Palette,
    /// The scene's meshes as LOD 0.
    pub(crate) lod0: Lod,
    /// Morph slots and deltas (no weights yet: the sampling stage adds them).
    pub(crate) morphs: Morphs,
}

impl Meshes {
    /// Converts `scene`'s meshes, with `rest` its rest-pose globals, building
    /// the palette as joints and rigid nodes are met; refused when the scene
    /// draws no triangle.
    pub(crate) fn convert(
        scene: &Scene,
        rest: &[Mat4],
        report: &mut BakeReport,
    ) -> Result<Self, BakeError> {
        let mut palette = Palette::default();
        let mut deltas = Vec::new();
        let lod0 = convert_meshes(
            scene,
            rest,
            &mut |node, ibm| palette.add(node, ibm),
            Some(&mut deltas),
            report,
        )?;
        if lod0.submeshes.is_empty() || lod0.vertices.is_empty() {
            return Err(BakeError::Empty(format!(
                "{}: the default scene draws no triangle mesh; nothing to bake",
                scene.name
            )));
        }
        let morphs = Morphs {
            slots: crate::morph::slots(scene),
            weights: Vec::new(),
            deltas,
        };
        Ok(Self {
            palette,
            lod0,
            morphs,
        })
    }

    /// Palette entries (bones).
    pub(crate) fn bone_count(&self) -> u32 {
        self.palette.entries.len() as u32
    }
}

/// Converts every mesh instance of `scene` to baked vertices: skinned
/// primitives keep their bind-pose vertices with joints mapped through
/// `bind(joint node, inverse bind)`; rigid ones are pre-transformed by their
/// node's rest global and bound to `bind(node, rest⁻¹)`. With `deltas`,
/// each vertex's non-zero morph offsets are appended there (transformed as
/// the vertex is) and its range recorded; without, morph targets are
/// dropped (LOD files: their slots would not be the model's).
pub(crate) fn convert_meshes(
    scene: &Scene,
    rest: &[Mat4],
    bind: &mut dyn FnMut(u32, Mat4) -> Result<u16, BakeError>,
    mut deltas: Option<&mut Vec<MorphDelta>>,
    report: &mut BakeReport,
) -> Result<Lod, BakeError> {
    let (first_slots, _) = crate::morph::first_slots(scene);
    let mut lod = Lod {
        screen_size: 0.0,
        vertices: Vec::new(),
        indices: Vec::new(),
        submeshes: Vec::new(),
    };
    let mut skin_maps: HashMap<u32, Vec<u16>> = HashMap::new();
    for (inst, &first_slot) in scene.instances.iter().zip(&first_slots) {
        let binding = match inst.skin {
            Some(s) => Binding::Skinned(skin_map(scene, s, bind, &mut skin_maps)?),
            None => rigid_binding(scene, rest, inst.node, bind, report)?,
        };
        let instance = InstanceConversion {
            scene,
            inst,
            binding,
            first_slot,
        };
        for prim in &scene.meshes[inst.mesh as usize].primitives {
            instance.convert_primitive(prim, deltas.as_deref_mut(), report, &mut lod);
        }
    }
    Ok(lod)
}

/// The palette entries of skin `s`'s joints, bound through `bind` the first
/// time the skin is met and taken from `skin_maps` after, so instances
/// sharing a skin share its entries.
fn skin_map(
    scene: &Scene,
    s: u32,
    bind: &mut dyn FnMut(u32, Mat4) -> Result<u16, BakeError>,
    skin_maps: &mut HashMap<u32, Vec<u16>>,
) -> Result<Vec<u16>, BakeError> {
    if let Some(m) = skin_maps.get(&s) {
        return Ok(m.clone());
    }
    let skin = &scene.skins[s as usize];
    let mut map = Vec::with_capacity(skin.joints.len());
    for (&j, ibm) in skin.joints.iter().zip(&skin.inverse_binds) {
        map.push(bind(j, *ibm)?);
    }
    skin_maps.insert(s, map.clone());
    Ok(map)
}

/// The binding of an unskinned mesh on `node`: bound to `(node, rest⁻¹)`
/// and pre-transformed by its rest global; a singular rest transform (no
/// inverse) is warned about and bakes the mesh in node space instead.
fn rigid_binding(
    scene: &Scene,
    rest: &[Mat4],
    node: u32,
    bind: &mut dyn FnMut(u32, Mat4) -> Result<u16, BakeError>,
    report: &mut BakeReport,
) -> Result<Binding, BakeError> {
    let g = rest[node as usize];
    let inv = g.inverse();
    if g.determinant().abs() > f32::MIN_POSITIVE && inv.is_finite() {
        return Ok(Binding::Rigid {
            entry: bind(node, inv)?,
            model_from_mesh: g,
        });
    }
    report.warnings.push(format!(
        "node {} ({}) has a singular rest transform; its mesh is baked in node space",
        node, scene.nodes[node as usize].name
    ));
    Ok(Binding::Rigid {
        entry: bind(node, Mat4::IDENTITY)?,
        model_from_mesh: Mat4::IDENTITY,
    })
}

/// One mesh instance while its primitives are converted: where it comes
/// from, how its vertices bind to the palette and its first morph slot.
struct InstanceConversion<'a> {
    /// The source scene.
    scene: &'a Scene,
    /// The instance converted.
    inst: &'a MeshInstance,
    /// How its vertices bind to the palette.
    binding: Binding,
    /// The morph slot of its mesh's first target.
    first_slot: u32,
}

impl InstanceConversion<'_> {
    /// Appends `prim`'s vertices, indices and submesh to `lod`; with
    /// `deltas`, its vertices' morph deltas there too.
    fn convert_primitive(
        &self,
        prim: &Primitive,
        mut deltas: Option<&mut Vec<MorphDelta>>,
        report: &mut BakeReport,
        lod: &mut Lod,
    ) {
        let base_vertex = lod.vertices.len() as u32;
        let generated = prim.normals.is_none();
        let normals = prim.normals.clone().unwrap_or_else(|| smooth_normals(prim));
        let tangents = prim_tangents(self.scene, self.inst.mesh, prim, &normals, report);
        let linear = match &self.binding {
            Binding::Skinned(_) => None,
            Binding::Rigid {
                model_from_mesh, ..
            } => Some(Mat3::from_mat4(*model_from_mesh)),
        };
        for v in 0..prim.vertex_count() {
            let uv = prim.uvs.as_ref().map_or(Vec2::ZERO, |u| u[v]);
            let (position, normal, joints, weights) =
                self.binding
                    .place(prim, v, normals[v], &mut report.influences);
            let morph = match deltas.as_deref_mut() {
                Some(out) => self.morph_range(prim, v, normals[v], !generated, out),
                None => [0, 0],
            };
            let tangent = tangents
                .as_ref()
                .map_or([0; 4], |t| pack_tangent(move_tangent(t[v], linear)));
            lod.vertices.push(BakedVertex {
                position: position.into(),
                normal: normal.into(),
                uv: uv.into(),
                joints,
                weights,
                morph,
                tangent,
            });
        }
        let first_index = lod.indices.len() as u32;
        lod.indices.extend_from_slice(&prim.indices);
        lod.submeshes.push(Submesh {
            material: prim.material,
            flags: if generated {
                SUBMESH_GENERATED_NORMALS
            } else {
                0
            },
            source_node: self.inst.node,
            source_mesh: self.inst.mesh,
            source_primitive: prim.index,
            base_vertex,
            vertex_count: prim.vertex_count() as u32,
            first_index,
            index_count: prim.indices.len() as u32,
        });
    }

    /// Appends vertex `v`'s morph deltas to `out` ([`morph_deltas`]) and
    /// returns the vertex's range of them, `[first, count]`, or `[0, 0]`
    /// when it has none.
    fn morph_range(
        &self,
        prim: &Primitive,
        v: usize,
        normal: Vec3,
        normal_offsets: bool,
        out: &mut Vec<MorphDelta>,
    ) -> [u32; 2] {
        let first = out.len();
        morph_deltas(
            prim,
            v,
            normal,
            normal_offsets,
            self.first_slot,
            &self.binding,
            out,
        );
        let count = (out.len() - first) as u32;
        if count == 0 {
            [0, 0]
        } else {
            [first as u32, count]
        }
    }
}

/// Tangent `t` as the baked vertex carries it: under a rigid binding's
/// `linear` part it is a direction in the surface that moves with the
/// vertex, and a mirroring transform flips the bitangent.
fn move_tangent(t: Vec4, linear: Option<Mat3>) -> Vec4 {
    match linear {
        Some(m) => (m * t.truncate()).extend(t.w * m.determinant().signum()),
        None => t,
    }
}

/// A primitive's tangents ([`crate::tangents`]): the file's, else
/// MikkTSpace's where a normal map needs them, else none; zero-length ones
/// are counted in the report's warnings (they bake as "none").
fn prim_tangents(
    scene: &Scene,
    mesh: u32,
    prim: &Primitive,
    normals: &[Vec3],
    report: &mut BakeReport,
) -> Option<Vec<glam::Vec4>> {
    let (tangents, whose) = match &prim.tangents {
        Some(t) => (t.clone(), "the file's"),
        None if crate::tangents::needed(scene, prim) => {
            (crate::tangents::generate(prim, normals), "MikkTSpace's")
        }
        None => return None,
    };
    let zero = crate::tangents::zero_length(&tangents);
    if zero > 0 {
        report.warnings.push(format!(
            "meshes[{mesh}].primitives[{}]: {zero} of {} tangents ({whose}) have zero length; those vertices use the shader's derivative frame",
            prim.index,
            tangents.len()
        ));
    }
    Some(tangents)
}

/// Appends vertex `v`'s non-zero morph offsets to `out`, tagged with slot
/// `first_slot + target`. A rigid binding pre-transforms them as the vertex:
/// positions by the linear part of `model_from_mesh`, normals by its normal
/// matrix scaled by `1 / |N n|`, so that the baked normal (`N n`
/// normalised) plus the offsets is `N (n + Σ w Δn) / |N n|`, the direction
/// the reference gets. `normal_offsets`: the source has normals (generated
/// ones are not morphed).
fn morph_deltas(
    prim: &Primitive,
    v: usize,
    normal: Vec3,
    normal_offsets: bool,
    first_slot: u32,
    binding: &Binding,
    out: &mut Vec<MorphDelta>,
) {
    let transform: Option<(Mat3, Mat3)> = match binding {
        Binding::Skinned(_) => None,
        Binding::Rigid {
            model_from_mesh, ..
        } => {
            let m = Mat3::from_mat4(*model_from_mesh);
            let n = m.inverse().transpose();
            let scale = (n * normal).length();
            let n = if scale > 0.0 && scale.is_finite() {
                n * (1.0 / scale)
            } else {
                n
            };
            Some((m, n))
        }
    };
    for (t, target) in prim.targets.iter().enumerate() {
        let mut dp = target.positions[v];
        let mut dn = match (&target.normals, normal_offsets) {
            (Some(n), true) => n[v],
            _ => Vec3::ZERO,
        };
        if dp == Vec3::ZERO && dn == Vec3::ZERO {
            continue;
        }
        if let Some((m, n)) = transform {
            dp = m * dp;
            dn = n * dn;
        }
        out.push(MorphDelta {
            position: dp.into(),
            slot: first_slot + t as u32,
            normal: dn.into(),
            pad: 0,
        });
    }
}

/// How a mesh instance's vertices bind to the palette.
pub(crate) enum Binding {
    /// Skinned: the palette entry of each of the skin's joints.
    Skinned(Vec<u16>),
    /// Rigid: every vertex on `entry`, pre-transformed by `model_from_mesh`.
    Rigid { entry: u16, model_from_mesh: Mat4 },
}

impl Binding {
    /// Vertex `v`'s baked position, normal (`normal` is its source normal),
    /// joints and weights: skinned, the bind-pose position and normal with
    /// its influences converted ([`convert_influences`], counted in
    /// `stats`); rigid, position and normal moved by `model_from_mesh` and
    /// the whole weight on the entry.
    fn place(
        &self,
        prim: &Primitive,
        v: usize,
        normal: Vec3,
        stats: &mut InfluenceStats,
    ) -> (Vec3, Vec3, [u16; 4], [f32; 4]) {
        match self {
            Binding::Skinned(map) => {
                let (j, w) = convert_influences(prim, v, map, stats);
                (prim.positions[v], normal, j, w)
            }
            Binding::Rigid {
                entry,
                model_from_mesh,
            } => {
                let rows = mat4_to_rows(model_from_mesh);
                (
                    rows_transform_point(&rows, prim.positions[v]),
                    rows_transform_normal(&rows, normal),
                    [*entry, 0, 0, 0],
                    [1.0, 0.0, 0.0, 0.0],
                )
            }
        }
    }
}

#[derive(Default)]
pub(crate) struct Palette {
    pub(crate) entries: Vec<(u32, Mat4)>,
    pub(crate) index: HashMap<(u32, [u32; 16]), u16>,
}

impl Palette {
    pub(crate) fn add(&mut self, node: u32, ibm: Mat4) -> Result<u16, BakeError> {
        let key = (node, ibm.to_cols_array().map(f32::to_bits));
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        if self.entries.len() >= MAX_BONES as usize {
            return Err(BakeError::TooBig(format!(
                "more than {MAX_BONES} palette entries"
            )));
        }
        let i = self.entries.len() as u16;
        self.entries.push((node, ibm));
        self.index.insert(key, i);
        Ok(i)
    }

    /// Node names, made unique when several entries share a node.
    pub(crate) fn names(&self, scene: &Scene) -> Vec<String> {
        let mut seen: HashMap<u32, usize> = HashMap::new();
        self.entries
            .iter()
            .map(|(node, _)| {
                let n = seen.entry(*node).or_insert(0);
                *n += 1;
                let base = &scene.nodes[*node as usize].name;
                if *n == 1 {
                    base.clone()
                } else {
                    format!("{base}#{n}")
                }
            })
            .collect()
    }

    /// First palette entry of the nearest proper ancestor of `node`.
    pub(crate) fn parent_of(&self, scene: &Scene, node: u32) -> Option<u32> {
        let mut cur = scene.nodes[node as usize].parent;
        while let Some(p) = cur {
            if let Some(i) = self.entries.iter().position(|(n, _)| *n == p) {
                return Some(i as u32);
            }
            cur = scene.nodes[p as usize].parent;
        }
        None
    }
}

/// Converts a vertex's influences to palette indices: merges repeated joints,
/// keeps the 4 largest, renormalises, binds zero-sum vertices to joint 0.
pub(crate) fn convert_influences(
    prim: &Primitive,
    v: usize,
    map: &[u16],
    stats: &mut InfluenceStats,
) -> ([u16; 4], [f32; 4]) {
    let mut infl: Vec<(u16, f32)> = Vec::with_capacity(4);
    for (j, w) in prim.influences(v) {
        if w <= 0.0 {
            continue;
        }
        let p = map[j as usize];
        match infl.iter_mut().find(|(q, _)| *q == p) {
            Some(slot) => slot.1 += w,
            None => infl.push((p, w)),
        }
    }
    let total: f32 = infl.iter().map(|x| x.1).sum();
    if total <= 0.0 {
        stats.vertices_zero_weight += 1;
        return ([map[0], 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
    }
    if (total - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
        stats.vertices_renormalised += 1;
    }
    // Stable sort by weight, largest first; ties keep source order.
    infl.sort_by(|a, b| b.1.total_cmp(&a.1));
    if infl.len() > MAX_INFLUENCES {
        stats.vertices_truncated += 1;
        let dropped = infl[MAX_INFLUENCES..]
            .iter()
            .map(|x| x.1)
            .fold(0.0, f32::max)
            / total;
        stats.max_dropped_weight = stats.max_dropped_weight.max(dropped);
        infl.truncate(MAX_INFLUENCES);
    }
    let kept: f32 = infl.iter().map(|x| x.1).sum();
    let mut joints = [0u16; 4];
    let mut weights = [0f32; 4];
    for (k, (j, w)) in infl.iter().enumerate() {
        joints[k] = *j;
        weights[k] = w / kept;
    }
    (joints, weights)
}

/// Area-weighted vertex normals, for primitives that have none.
pub(crate) fn smooth_normals(prim: &Primitive) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; prim.vertex_count()];
    for tri in prim.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let p = &prim.positions;
        let face = (p[b] - p[a]).cross(p[c] - p[a]);
        n[a] += face;
        n[b] += face;
        n[c] += face;
    }
    n.into_iter()
        .map(|v| v.try_normalize().unwrap_or(Vec3::Y))
        .collect()
}
