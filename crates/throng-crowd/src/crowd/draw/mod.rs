//! Per-frame draw lists: culling each instance's cached sphere against the
//! view's frustum, selecting its LOD (with hysteresis), and grouping the
//! 96-byte records by (model, LOD, cross-fading) for the renderer. This
//! file holds the types a caller sees — [`DrawList`], [`DrawView`],
//! [`DrawGroup`] — and `pass.rs`, above them, [`Crowd::build_draw_list`]
//! and the pass that fills a list, instance by instance.
//!
//! [`Crowd::build_draw_list`]: super::Crowd::build_draw_list

use glam::Vec3;

use super::ModelId;
use crate::camera::{Camera, Frustum};
use throng_core::gpu::{GpuLayerSet, InstanceRecord};
use throng_core::limits::PACKAGE_WIDTH;
use throng_core::math::Aabb;

mod pass;

/// Records of one frame, grouped by (model, LOD).
#[derive(Clone, Debug, Default)]
pub struct DrawList {
    /// One record per visible instance, group after group.
    pub records: Vec<InstanceRecord>,
    /// Groups: contiguous ranges of `records`.
    pub groups: Vec<DrawGroup>,
    /// Instances considered (alive).
    pub instances: u32,
    scratch: Vec<Vec<InstanceRecord>>,
    /// Per dense instance: the LOD it was drawn at last frame (hysteresis
    /// state; per view, which is why it lives here and not in the crowd).
    lod_state: Vec<u8>,
    /// World box of the bounding spheres of the instances drawn.
    pub bounds: Aabb,
    /// The layer sets of the records of [`DrawGroup::layered`] groups (with
    /// [`DrawView::layers`] on): such a record's `frame0` is an index into
    /// this list, and each set's `palette` is 0 until a renderer places its
    /// palette (and then points the record's `frame0` at it).
    pub layer_sets: Vec<GpuLayerSet>,
}

impl DrawList {
    /// Visible instances.
    pub fn visible(&self) -> u32 {
        self.records.len() as u32
    }

    /// Packages of [`PACKAGE_WIDTH`] over all groups.
    pub fn package_count(&self) -> u32 {
        self.groups
            .iter()
            .map(|g| g.count.div_ceil(PACKAGE_WIDTH))
            .sum()
    }
}

/// What a draw list is built for: culling, LOD selection and debugging.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DrawView {
    /// Cull against this frustum (`None`: draw everything).
    pub frustum: Option<Frustum>,
    /// Eye position, for LOD selection.
    pub eye: Vec3,
    /// `1 / tan(fov_y / 2)`: projected screen-height fraction of a sphere of
    /// radius r at distance d is `r · lod_scale / d`. 0 disables LOD
    /// selection (LOD 0 everywhere).
    pub lod_scale: f32,
    /// Tint every record by its LOD ([`LOD_TINTS`](super::LOD_TINTS))
    /// instead of its own tint.
    pub lod_tints: bool,
    /// Put the mesh records of instances with animation layers in groups of
    /// their own ([`DrawGroup::layered`]), for a renderer with the palette
    /// pre-pass. Off: they show their base pose like any other instance.
    pub layers: bool,
    /// Only the instances with animation layers (the GPU-driven path culls
    /// the others on the GPU and these on the CPU).
    pub layered_only: bool,
}

impl DrawView {
    /// Culling and LOD selection for `camera`.
    pub fn from_camera(camera: &Camera, cull: bool) -> Self {
        Self {
            frustum: cull.then(|| camera.frustum()),
            eye: camera.eye,
            lod_scale: 1.0 / (camera.fov_y * 0.5).tan(),
            lod_tints: false,
            layers: false,
            layered_only: false,
        }
    }
}

impl From<Option<&Frustum>> for DrawView {
    fn from(frustum: Option<&Frustum>) -> Self {
        Self {
            frustum: frustum.copied(),
            ..Self::default()
        }
    }
}

/// A contiguous run of records of one model and LOD.
///
/// A (model, LOD) pair yields up to two groups: first the instances that are
/// not cross-fading, then those that are (`cross_fade`). A renderer draws the
/// first kind with a shader specialised to skip the previous clip's texel
/// loads entirely, which a branch on `fade` does not achieve on every GPU
/// (lavapipe pays for a never-taken branch's loads; see docs/design/record-paths.md#draw-grouping).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawGroup {
    /// Model within the crowd.
    pub model: ModelId,
    /// Identity key of the model ([`ModelHandle::key`](super::ModelHandle::key)).
    pub model_key: u64,
    /// LOD index.
    pub lod: u32,
    /// Some record of the group is mid-cross-fade (`fade < 1`). When false,
    /// every record has `fade == 1`.
    pub cross_fade: bool,
    /// The group's instances have animation layers: each record's `frame0`
    /// indexes [`DrawList::layer_sets`] (their palettes come from the
    /// pre-pass, and `cross_fade` is false).
    pub layered: bool,
    /// First record.
    pub first: u32,
    /// Record count.
    pub count: u32,
}

impl DrawGroup {
    /// Packages of at most `width` records: `(first, count)`.
    pub fn packages(&self, width: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let width = width.max(1);
        (0..self.count.div_ceil(width)).map(move |p| {
            let first = self.first + p * width;
            (first, width.min(self.first + self.count - first))
        })
    }
}

#[cfg(test)]
mod tests {
    use glam::Mat4;
    use throng_core::gpu::LOD_DITHER_LEVELS;

    use super::super::fixtures::{at, test_model};
    use super::super::{Crowd, Spawn};
    use super::*;

    /// An instance inside the band around the impostor's switch is drawn
    /// twice, as its mesh and as its impostor, both records carrying the
    /// same level; outside the band, once.
    #[test]
    fn across_the_band_an_instance_is_both_mesh_and_impostor() {
        use throng_core::impostor::{AtlasPlan, ImpostorAtlas};
        let mut model = test_model(1.0).model().clone();
        let plan = AtlasPlan::layout(2, 1, 4, model.clips.len() as u32);
        let bytes = ImpostorAtlas::image_bytes(&plan) as usize;
        let threshold = 0.1;
        model.impostor = Some(ImpostorAtlas {
            plan,
            screen_size: threshold,
            spheres: vec![[0.0, 0.0, 0.0, 1.0]; model.clips.len()],
            colour: vec![0; bytes],
            normal: vec![0; bytes],
            surface: Vec::new(),
        });
        let handle = super::super::ModelHandle::new(model).unwrap();
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&handle);
        crowd.spawn(m, at(0.0)).unwrap();
        let radius = crowd.spheres[0].w;
        let centre = crowd.spheres[0].truncate();
        let mut list = DrawList::default();
        for (size, records) in [(threshold * 2.0, 1), (threshold, 2), (threshold * 0.5, 1)] {
            let view = DrawView {
                frustum: None,
                eye: centre + Vec3::Z * (radius / size),
                lod_scale: 1.0,
                lod_tints: false,
                layers: false,
                layered_only: false,
            };
            list.lod_state.clear();
            crowd.build_draw_list(view, &mut list);
            assert_eq!(
                list.records.len(),
                records,
                "size {size}: {:?}",
                list.groups
            );
            if records == 2 {
                let lods: Vec<u32> = list.groups.iter().map(|g| g.lod).collect();
                assert_eq!(lods, [0, 1]);
                for r in &list.records {
                    assert_eq!(r.lod_dither(), LOD_DITHER_LEVELS / 2);
                    assert_eq!(r.clip_fade(), 1.0);
                }
            }
        }
    }

    #[test]
    fn packages_split_groups_at_the_width() {
        let g = DrawGroup {
            model: ModelId(0),
            model_key: 1,
            lod: 0,
            cross_fade: false,
            layered: false,
            first: 10,
            count: 450,
        };
        let p: Vec<_> = g.packages(200).collect();
        assert_eq!(p, vec![(10, 200), (210, 200), (410, 50)]);
        let empty = DrawGroup { count: 0, ..g };
        assert_eq!(empty.packages(200).count(), 0);
    }

    #[test]
    fn fading_instances_get_their_own_groups() {
        // One model (the direct path) and two models (the scratch path).
        for models in 1..=2 {
            let mut crowd = Crowd::new();
            let mut ids = Vec::new();
            for _ in 0..models {
                let m = crowd.add_model(&test_model(1.0));
                for i in 0..7 {
                    ids.push(crowd.spawn(m, at(i as f32)).unwrap());
                }
            }
            for (k, id) in ids.iter().enumerate() {
                if k % 3 == 1 {
                    crowd.cross_fade(*id, 0, 1.0).unwrap();
                }
            }
            crowd.update(0.25);
            let mut list = DrawList::default();
            crowd.build_draw_list(None, &mut list);
            assert_eq!(list.visible() as usize, ids.len());
            let mut covered = 0;
            for (i, g) in list.groups.iter().enumerate() {
                assert_eq!(g.first, covered, "groups are contiguous: {:?}", list.groups);
                covered += g.count;
                let recs = &list.records[g.first as usize..(g.first + g.count) as usize];
                for r in recs {
                    assert_eq!(
                        r.fade < 1.0,
                        g.cross_fade,
                        "group {i}: record fade {}",
                        r.fade
                    );
                }
            }
            assert_eq!(covered, list.visible());
            // Per model: 7 instances, of which those with k % 3 == 1 fade.
            let expect: Vec<(u32, bool, u32)> = (0..models as u32)
                .flat_map(|m| {
                    let fading = (0..7).filter(|i| (m * 7 + i) % 3 == 1).count() as u32;
                    [(m, false, 7 - fading), (m, true, fading)]
                })
                .collect();
            let got: Vec<(u32, bool, u32)> = list
                .groups
                .iter()
                .map(|g| (g.model.0, g.cross_fade, g.count))
                .collect();
            assert_eq!(got, expect);
            // Once the fades finish, one group per model again.
            crowd.update(1.0);
            crowd.build_draw_list(None, &mut list);
            assert!(list.groups.iter().all(|g| !g.cross_fade && g.count == 7));
            assert_eq!(list.groups.len(), models);
        }
    }

    /// A camera 10 units up +z looking at the origin: it sees x in about
    /// [-4, 4] there.
    fn looking_at_origin() -> Camera {
        Camera::look_at(
            Vec3::new(0.0, 0.0, 10.0),
            Vec3::ZERO,
            Vec3::Y,
            0.8,
            1.0,
            0.1,
            100.0,
        )
    }

    #[test]
    fn culling_drops_instances_out_of_view_but_keeps_limbs_reaching_in() {
        // The camera looks at x in about [-4, 4]; the triangle reaches 10 units along +x.
        let camera = looking_at_origin();
        let frustum = camera.frustum();
        let h = test_model(10.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let inside = crowd.spawn(m, at(0.0)).unwrap();
        let far_right = crowd.spawn(m, at(30.0)).unwrap();
        // Origin at x = -12 is outside the view, but its triangle reaches to x = -2.
        let reaching = crowd.spawn(m, at(-12.0)).unwrap();
        let behind = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_translation(Vec3::new(0.0, 0.0, 50.0)),
                    ..at(0.0)
                },
            )
            .unwrap();
        let mut list = DrawList::default();
        crowd.build_draw_list(Some(&frustum), &mut list);
        let xs: Vec<f32> = list
            .records
            .iter()
            .map(|r| r.world_from_model[0][3])
            .collect();
        assert_eq!(list.instances, 4);
        assert_eq!(list.visible(), 2, "only two records: {xs:?}");
        assert!(xs.contains(&0.0) && xs.contains(&-12.0), "{xs:?}");
        let _ = (inside, far_right, reaching, behind);
        // A fade unions both clips' bounds; without culling everything is drawn.
        crowd.build_draw_list(None, &mut list);
        assert_eq!(list.visible(), 4);
    }

    #[test]
    fn an_instance_of_zero_scale_is_drawn_in_no_view() {
        // A hidden agent's transform: zero, its sphere a point at the
        // origin, which this camera sees.
        let camera = looking_at_origin();
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        crowd.spawn(m, at(0.0)).unwrap();
        let hidden = crowd.spawn(m, at(0.0)).unwrap();
        crowd.set_transform(hidden, Mat4::ZERO).unwrap();
        crowd.update(0.0);
        let mut list = DrawList::default();
        for frustum in [Some(camera.frustum()), None] {
            crowd.build_draw_list(frustum.as_ref(), &mut list);
            assert_eq!(list.instances, 2);
            assert_eq!(list.visible(), 1, "culling with {frustum:?}");
        }
    }
}
