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
use throng_core::gpu::{GpuLayer, GpuLayerSet, InstanceRecord, LOD_DITHER_LEVELS};
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
            // Only the layered ones, found through their layers' slots:
            // the cost follows their number, not the crowd's.
            for &slot in self.layers.keys() {
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

    #[inline]
    pub(super) fn visit(&mut self, d: usize, rt: &ModelRt, instance: Visited<'_>) {
        let Visited {
            anim: a,
            rows,
            sphere,
            tint,
            look,
            layers,
        } = instance;
        let blend = blend_of(a, &rt.maps, self.now);
        // While fading, the bounds are the union of both clips' (rare:
        // computed here rather than cached).
        let fading_sphere;
        let sphere = if blend.fade < 1.0 {
            // With layers, the cached sphere holds their clips too.
            let both = world_sphere(rt, a, rows, true);
            fading_sphere = match layers {
                Some(_) => sphere_union(both, *sphere),
                None => both,
            };
            &fading_sphere
        } else {
            sphere
        };
        if let Some(f) = &self.view.frustum {
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
            if d < -sphere.w {
                return;
            }
        }
        let r = Vec3::splat(sphere.w);
        self.out.bounds.min = self.out.bounds.min.min(sphere.truncate() - r);
        self.out.bounds.max = self.out.bounds.max.max(sphere.truncate() + r);
        let mut lod = 0;
        let mut cross_fade = None;
        if rt.lod_sizes.len() > 1 && self.view.lod_scale > 0.0 {
            let dist = (sphere.truncate() - self.view.eye)
                .length()
                .max(sphere.w)
                .max(f32::MIN_POSITIVE);
            let size = sphere.w * self.view.lod_scale / dist;
            lod = select_lod(size, &rt.lod_sizes, self.out.lod_state[d] as usize);
            self.out.lod_state[d] = lod as u8;
            // Within the band around the switch to the impostor, both.
            if let Some(imp) = rt.impostor
                && lod >= imp.mesh_lod as usize
            {
                let level = impostor_fade_level(size, imp.size);
                if level > 0 && level < LOD_DITHER_LEVELS {
                    cross_fade = Some((imp.mesh_lod as usize, imp.lod as usize, level));
                }
            }
        }
        let lod_tints = self.view.lod_tints;
        let tint_of = |lod: usize| {
            if lod_tints {
                LOD_TINTS[lod.min(LOD_TINTS.len() - 1)]
            } else {
                tint
            }
        };
        let mut rec = InstanceRecord::from_rows(rows, &blend, tint_of(lod)).with_look(look);
        let kind = if rec.fade < 1.0 { FADING } else { PLAIN };
        // A mesh record of an instance with layers: its pose comes from the
        // pre-pass; `frame0` names its layer set.
        let is_impostor = |lod: usize| rt.impostor.is_some_and(|i| i.lod as usize == lod);
        let mesh_record =
            |pass: &mut Self, lod: usize, rec: InstanceRecord, level: u32| match layers {
                Some(layers) if !is_impostor(lod) => {
                    let index = pass.out.layer_sets.len() as u32;
                    pass.out
                        .layer_sets
                        .push(GpuLayerSet::new(&blend, layers, 0));
                    let layered = InstanceRecord {
                        frame0: index,
                        fade: 1.0,
                        ..rec
                    }
                    .with_lod_dither(level);
                    pass.push(rt, lod, LAYERED, layered);
                }
                _ => pass.push(rt, lod, kind, rec.with_lod_dither(level)),
            };
        if let Some((mesh_lod, imp, level)) = cross_fade {
            let mesh = InstanceRecord {
                tint: tint_of(mesh_lod),
                ..rec
            };
            mesh_record(self, mesh_lod, mesh, level);
            rec = InstanceRecord {
                tint: tint_of(imp),
                ..rec
            }
            .with_lod_dither(level);
            lod = imp;
            self.push(rt, lod, kind, rec);
        } else {
            mesh_record(self, lod, rec, 0);
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
