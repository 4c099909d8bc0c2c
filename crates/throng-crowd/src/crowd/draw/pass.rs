//! [`Crowd::build_draw_list`] and the draw pass it runs ([`DrawPass`]):
//! what it reads of each instance, the culling, the LOD choice
//! ([`crate::crowd::lod`]'s), the records put into per-(model, LOD, kind)
//! buckets, and the buckets gathered into the [`DrawList`]'s groups.

use glam::{Vec3, Vec4};

use super::super::anim_state::{Anim, blend_of};
use super::super::bounds::{sphere_union, world_sphere};
use super::super::lod::{LOD_TINTS, impostor_fade_level, select_lod};
use super::super::models::ModelRt;
use super::super::{Crowd, ModelId};
use super::{DrawGroup, DrawList, DrawView};
use throng_core::gpu::{FrameBlend, GpuLayer, GpuLayerSet, InstanceRecord, LOD_DITHER_LEVELS};
use throng_core::math::Aabb;
use throng_core::variety::Look;

impl Crowd {
    /// Builds this frame's records: one per instance whose animated bounds
    /// intersect the view's frustum (all instances without one), at the LOD
    /// its projected size selects, grouped by (model, LOD). Reuses `out`'s
    /// allocations and keeps its per-instance LOD hysteresis. An
    /// `Option<&Frustum>` converts into a view with culling and no LOD.
    pub fn build_draw_list(&self, view: impl Into<DrawView>, out: &mut DrawList) {
        let view = view.into();
        let mut pass = DrawPass::new(&self.models, self.anims.len(), &view, self.clock, out);
        if view.layered_only {
            // Only the layered ones, found through their layers' slots
            // and those with foot IK (each once): the cost follows their
            // number, not the crowd's.
            let ik_only = self.foot_ik.iter().filter(|s| !self.layers.contains_key(s));
            for &slot in self.layers.keys().chain(ik_only) {
                let d = self.slots[slot as usize].dense as usize;
                self.visit_instance(&mut pass, d);
            }
        } else {
            for d in 0..self.anims.len() {
                self.visit_instance(&mut pass, d);
            }
        }
        pass.finish(&self.models);
    }
}

/// Kinds of records within a (model, LOD) bucket, in group order.
const KINDS: usize = 3;
/// Not fading, no layers.
const PLAIN: usize = 0;
/// Mid-cross-fade.
const FADING: usize = 1;
/// With animation layers.
const LAYERED: usize = 2;

/// What the draw pass reads of one instance.
pub(super) struct Visited<'a> {
    anim: &'a Anim,
    rows: &'a [Vec4; 3],
    sphere: &'a Vec4,
    tint: u32,
    look: Look,
    /// Its layers, when the view draws them.
    layers: Option<&'a [GpuLayer]>,
    /// Its base clip's ground, when its feet are planted by IK.
    foot_ik: Option<f32>,
}

/// Record building for one frame: culling, LOD selection, then records into
/// per-(model, LOD, kind) buckets. Scratch list `KINDS * bucket + kind`
/// holds a bucket's records; with one (model, LOD) bucket (`single`), plain
/// records go straight into the output and only fading or layered ones take
/// the detour through scratch.
pub(super) struct DrawPass<'a> {
    out: &'a mut DrawList,
    view: DrawView,
    single: bool,
    /// The crowd's clock.
    now: u64,
}

impl Crowd {
    /// Culls instance `d` (dense slot) and, if visible, adds its record to
    /// `pass`.
    pub(super) fn visit_instance(&self, pass: &mut DrawPass<'_>, d: usize) {
        let layers = if pass.view.layers && self.metas[d].layered {
            self.gpu_layers(d)
        } else {
            None
        };
        // A moving instance's transform and sphere are of the frame; after
        // transforms written in place, spheres are computed from them.
        let (rows, sphere);
        let (rows, sphere) = if self.moving(d) {
            rows = self.world_rows(d);
            sphere = self.sphere_at(d, &rows);
            (&rows, &sphere)
        } else if self.spheres_stale() {
            sphere = self.sphere_at(d, &self.rows[d]);
            (&self.rows[d], &sphere)
        } else {
            (&self.rows[d], &self.spheres[d])
        };
        let instance = Visited {
            anim: &self.anims[d],
            rows,
            sphere,
            tint: self.tints[d],
            look: self.looks[d],
            layers: layers.as_deref(),
            foot_ik: layers.as_ref().and_then(|_| self.foot_ik_ground(d)),
        };
        pass.visit(d, &self.models[self.metas[d].model as usize], instance);
    }
}

impl<'a> DrawPass<'a> {
    pub(super) fn new(
        models: &[ModelRt],
        instances: usize,
        view: &DrawView,
        now: u64,
        out: &'a mut DrawList,
    ) -> Self {
        out.records.clear();
        out.groups.clear();
        out.layer_sets.clear();
        out.instances = instances as u32;
        out.bounds = Aabb::EMPTY;
        let buckets = models
            .last()
            .map_or(0, |m| m.bucket as usize + m.lod_sizes.len());
        let single = buckets <= 1;
        if single {
            out.records.reserve(instances);
        }
        out.scratch.resize_with(KINDS * buckets.max(1), Vec::new);
        for s in &mut out.scratch {
            s.clear();
        }
        out.lod_state.resize(instances, 0);
        Self {
            out,
            view: *view,
            single,
            now,
        }
    }

    /// Culls one instance against the view and, if it is visible, widens
    /// the list's bounds and pushes its records: one at the LOD its
    /// projected size selects or, within the band around the switch to the
    /// impostor, a mesh record and an impostor record dithered against
    /// each other.
    #[inline]
    pub(super) fn visit(&mut self, d: usize, rt: &ModelRt, instance: Visited<'_>) {
        let blend = blend_of(instance.anim, &rt.maps, self.now);
        let sphere = visible_sphere(rt, &instance, &blend);
        if self.culled(&sphere) {
            return;
        }
        self.widen_bounds(&sphere);
        let (lod, cross_fade) = self.choose_lod(d, rt, &sphere);
        let lod_tints = self.view.lod_tints;
        let tint_of = |lod: usize| {
            if lod_tints {
                LOD_TINTS[lod.min(LOD_TINTS.len() - 1)]
            } else {
                instance.tint
            }
        };
        let rec =
            InstanceRecord::from_rows(instance.rows, &blend, tint_of(lod)).with_look(instance.look);
        let kind = if rec.fade < 1.0 { FADING } else { PLAIN };
        let placement = Placement {
            rt,
            blend: &blend,
            layers: instance.layers,
            foot_ik: instance.foot_ik,
            kind,
        };
        if let Some(fade) = cross_fade {
            let mesh = InstanceRecord {
                tint: tint_of(fade.mesh_lod),
                ..rec
            };
            self.push_mesh(&placement, fade.mesh_lod, mesh, fade.level);
            let impostor = InstanceRecord {
                tint: tint_of(fade.impostor),
                ..rec
            }
            .with_lod_dither(fade.level);
            self.push(rt, fade.impostor, kind, impostor);
        } else {
            self.push_mesh(&placement, lod, rec, 0);
        }
    }

    /// True if `sphere` lies wholly outside the view's frustum (never
    /// without one), or has no size: an instance of zero scale (a hidden
    /// agent's `Mat4::ZERO`) covers no pixel, in any view.
    #[inline]
    fn culled(&self, sphere: &Vec4) -> bool {
        if sphere.w <= 0.0 {
            return true;
        }
        let Some(f) = &self.view.frustum else {
            return false;
        };
        // Branch-free: the smallest signed distance over the six planes.
        let c = sphere.truncate().extend(1.0);
        let p = &f.planes;
        let d = p[0]
            .dot(c)
            .min(p[1].dot(c))
            .min(p[2].dot(c))
            .min(p[3].dot(c))
            .min(p[4].dot(c))
            .min(p[5].dot(c));
        d < -sphere.w
    }

    /// Grows the list's world box over a drawn instance's sphere.
    #[inline]
    fn widen_bounds(&mut self, sphere: &Vec4) {
        let r = Vec3::splat(sphere.w);
        self.out.bounds.min = self.out.bounds.min.min(sphere.truncate() - r);
        self.out.bounds.max = self.out.bounds.max.max(sphere.truncate() + r);
    }

    /// The LOD instance `d`'s projected size selects (0 where the model has
    /// one LOD or the view selects none), remembered for next frame's
    /// hysteresis, and the cross-fade with the impostor when its size lies
    /// in the band around the switch.
    #[inline]
    fn choose_lod(&mut self, d: usize, rt: &ModelRt, sphere: &Vec4) -> (usize, Option<CrossFade>) {
        if !(rt.lod_sizes.len() > 1 && self.view.lod_scale > 0.0) {
            return (0, None);
        }
        let dist = (sphere.truncate() - self.view.eye)
            .length()
            .max(sphere.w)
            .max(f32::MIN_POSITIVE);
        let size = sphere.w * self.view.lod_scale / dist;
        let lod = select_lod(size, &rt.lod_sizes, self.out.lod_state[d] as usize);
        self.out.lod_state[d] = lod as u8;
        // Within the band around the switch to the impostor, both.
        let mut cross_fade = None;
        if let Some(imp) = rt.impostor
            && lod >= imp.mesh_lod as usize
        {
            let level = impostor_fade_level(size, imp.size);
            if level > 0 && level < LOD_DITHER_LEVELS {
                cross_fade = Some(CrossFade {
                    mesh_lod: imp.mesh_lod as usize,
                    impostor: imp.lod as usize,
                    level,
                });
            }
        }
        (lod, cross_fade)
    }

    /// Pushes a mesh record at `lod`, dithered at `level`. A mesh record
    /// of an instance with layers takes its pose from the pre-pass: its
    /// layer set is added and `frame0` names it, in the LAYERED kind.
    #[inline]
    fn push_mesh(&mut self, to: &Placement<'_>, lod: usize, rec: InstanceRecord, level: u32) {
        let is_impostor = to.rt.impostor.is_some_and(|i| i.lod as usize == lod);
        match to.layers {
            Some(layers) if !is_impostor => {
                let index = self.out.layer_sets.len() as u32;
                let set = GpuLayerSet::new(to.blend, layers, 0);
                self.out.layer_sets.push(match to.foot_ik {
                    Some(ground) => set.with_foot_ik(ground),
                    None => set,
                });
                let layered = InstanceRecord {
                    frame0: index,
                    fade: 1.0,
                    ..rec
                }
                .with_lod_dither(level);
                self.push(to.rt, lod, LAYERED, layered);
            }
            _ => self.push(to.rt, lod, to.kind, rec.with_lod_dither(level)),
        }
    }

    #[inline]
    fn push(&mut self, rt: &ModelRt, lod: usize, kind: usize, rec: InstanceRecord) {
        if self.single && kind == PLAIN {
            self.out.records.push(rec);
        } else {
            self.out.scratch[KINDS * (rt.bucket as usize + lod) + kind].push(rec);
        }
    }

    pub(super) fn finish(self, models: &[ModelRt]) {
        let out = self.out;
        // Records already in the output (single bucket, not fading).
        let mut direct = out.records.len() as u32;
        for (m, model) in models.iter().enumerate() {
            for lod in 0..model.lod_sizes.len() {
                let bucket = model.bucket as usize + lod;
                for kind in [PLAIN, FADING, LAYERED] {
                    let first = out.records.len() as u32 - std::mem::take(&mut direct);
                    out.records
                        .extend_from_slice(&out.scratch[KINDS * bucket + kind]);
                    let count = out.records.len() as u32 - first;
                    if count == 0 {
                        continue;
                    }
                    out.groups.push(DrawGroup {
                        model: ModelId(m as u32),
                        model_key: model.handle.key(),
                        lod: lod as u32,
                        cross_fade: kind == FADING,
                        layered: kind == LAYERED,
                        first,
                        count,
                    });
                }
            }
        }
    }
}

/// The sphere an instance is culled and its LOD chosen by: its cached one
/// or, while it fades between clips, the union of both clips' bounds (rare:
/// computed here rather than cached), with the cached sphere too when it
/// has layers (which holds their clips).
#[inline]
fn visible_sphere(rt: &ModelRt, instance: &Visited<'_>, blend: &FrameBlend) -> Vec4 {
    if blend.fade < 1.0 {
        let both = world_sphere(rt, instance.anim, instance.rows, true);
        match instance.layers {
            Some(_) => sphere_union(both, *instance.sphere),
            None => both,
        }
    } else {
        *instance.sphere
    }
}

/// An instance in the band around its model's switch to the impostor:
/// drawn at both levels, dithered against each other.
struct CrossFade {
    /// The mesh LOD it fades from.
    mesh_lod: usize,
    /// The impostor's level.
    impostor: usize,
    /// Dither level, between 0 and [`LOD_DITHER_LEVELS`] (both exclusive).
    level: u32,
}

/// Where a visited instance's mesh records go ([`DrawPass::push_mesh`]):
/// its model's buckets, in its kind, or with layers in the LAYERED kind
/// with a layer set of its pose.
struct Placement<'r> {
    rt: &'r ModelRt,
    blend: &'r FrameBlend,
    layers: Option<&'r [GpuLayer]>,
    foot_ik: Option<f32>,
    kind: usize,
}
