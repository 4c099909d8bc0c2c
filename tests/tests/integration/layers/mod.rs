//! Animation layers on the CPU (`throng_core::layers`) against independent
//! oracles built from the source glTF: a masked override re-attaches the
//! layer clip's subtree to the base's parent (computed from the reference's
//! global matrices, no decomposition), and weighted override and additive
//! layers equal a glam TRS blend of the reference's local transforms. Both at
//! baked frame times, where the palette equals the reference within
//! `BAKED_F32_TOLERANCE`.

use glam::{Mat4, Quat, Vec3};
use throng_bake::sample::PoseEvaluator;
use throng_bake::{BakeOptions, Scene, bake};
use throng_core::baked::blend_matrix;
use throng_core::gpu::FrameBlend;
use throng_core::layers::{
    BoneMask, LayerError, LayerMode, LayerPose, NO_PARENT, Skeleton, layered_palette, validate,
};
use throng_core::layout::FramePair;
use throng_core::math::{Rows3x4, mat4_to_rows, rows_transform_point};
use throng_core::model::BakedModel;
use throng_tests::BAKED_F32_TOLERANCE;

struct Fox {
    scene: Scene,
    model: BakedModel,
    eval: PoseEvaluator,
    skeleton: Skeleton,
}

fn fox() -> Fox {
    let path = throng_tests::asset("khronos_Fox.glb");
    let scene = throng_bake::import_file(&path).unwrap().scene;
    let (model, _) = bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    let eval = PoseEvaluator::new(&scene);
    let skeleton = Skeleton::new(&model);
    Fox {
        scene,
        model,
        eval,
        skeleton,
    }
}

impl Fox {
    /// Clip `name` at its baked frame `k`: its frames and its time.
    fn at(&self, name: &str, k: u32) -> (usize, FramePair, f32) {
        let c = self.model.clip_index(name).unwrap();
        let clip = &self.model.clips[c];
        let t = throng_core::layout::frame_time(k, clip.frame_count, clip.duration);
        (c, FramePair::single(clip.first_frame + k), t)
    }

    /// Reference globals of every node for clip `c` at `t`.
    fn globals(&self, c: usize, t: f32) -> Vec<Mat4> {
        self.eval.globals(Some(&self.scene.clips[c]), t)
    }

    /// Worst distance between LOD 0 skinned by two palettes.
    fn worst(&self, a: &[Rows3x4], b: &[Rows3x4]) -> f32 {
        let mut worst = 0.0f32;
        for v in &self.model.lods[0].vertices {
            let p = Vec3::from(v.position);
            let pa = rows_transform_point(&blend_matrix(v, |j| a[j as usize]), p);
            let pb = rows_transform_point(&blend_matrix(v, |j| b[j as usize]), p);
            worst = worst.max((pa - pb).length());
        }
        worst
    }

    /// Palette of node globals: `G(node of bone) · inverse_bind`.
    fn palette(&self, globals: impl Fn(usize) -> Mat4) -> Vec<Rows3x4> {
        (0..self.model.bones.len())
            .map(|b| mat4_to_rows(&(globals(b) * self.model.bones[b].inverse_bind)))
            .collect()
    }

    fn node(&self, bone: u32) -> usize {
        self.model.bones[bone as usize].node as usize
    }

    /// The CPU's palette of `layers` over `base`.
    fn layered(&self, base: &FrameBlend, layers: &[LayerPose]) -> Vec<Rows3x4> {
        let mut palette = Vec::new();
        layered_palette(&self.model, &self.skeleton, base, layers, &mut palette);
        palette
    }

    /// Asserts that `got` skins LOD 0 within `BAKED_F32_TOLERANCE` × the
    /// bounding radius of `expected`.
    fn assert_skins_as(&self, expected: &[Rows3x4], got: &[Rows3x4]) {
        let radius = self.model.bounding_radius;
        let worst = self.worst(expected, got);
        assert!(
            worst <= BAKED_F32_TOLERANCE * radius,
            "worst vertex {worst} (bound {} = {BAKED_F32_TOLERANCE} × radius {radius})",
            BAKED_F32_TOLERANCE * radius
        );
    }

    /// Asserts that every bone `b` of `palette` for which `keeps(b)` is
    /// `base`'s bit for bit (no layer moved it).
    fn assert_base_rows(
        &self,
        palette: &[Rows3x4],
        base: &FrameBlend,
        keeps: impl Fn(u32) -> bool,
    ) {
        for (b, rows) in palette.iter().enumerate() {
            let b = b as u32;
            if keeps(b) {
                let plain = throng_core::baked::blended_bone_rows(&self.model, b, base);
                assert_eq!(*rows, plain, "bone {b}");
            }
        }
    }
}

#[test]
fn a_masked_override_reattaches_the_layer_subtree_to_the_base_pose() {
    let fox = fox();
    let (walk, walk_frames, walk_t) = fox.at("Walk", 7);
    let (survey, survey_frames, survey_t) = fox.at("Survey", 11);
    let root = fox.skeleton.bone("b_Spine01_02").unwrap();
    let mask = BoneMask::subtrees(&fox.skeleton, &["b_Spine01_02"]).unwrap();
    let layers = [LayerPose {
        frames: survey_frames,
        weight: 1.0,
        mode: LayerMode::Override,
        mask: Some(&mask),
    }];
    let base = FrameBlend::single(walk_frames);
    let got = fox.layered(&base, &layers);

    // G_walk(parent R) · G_survey(parent R)⁻¹ · G_survey(bone) in the subtree.
    let ga = fox.globals(walk, walk_t);
    let gb = fox.globals(survey, survey_t);
    let parent = fox.node(fox.skeleton.parent(root));
    let attach = ga[parent] * gb[parent].inverse();
    let expected = fox.palette(|b| {
        let n = fox.node(b as u32);
        if fox.skeleton.is_under(b as u32, root) {
            attach * gb[n]
        } else {
            ga[n]
        }
    });
    fox.assert_skins_as(&expected, &got);
    // Bones outside the subtree keep the base palette bit for bit.
    fox.assert_base_rows(&got, &base, |b| !fox.skeleton.is_under(b, root));
    // And the layer moved what it covers: the head is far from the walk's.
    let head = fox.skeleton.bone("b_Head_05").unwrap() as usize;
    let plain = throng_core::baked::blended_bone_rows(&fox.model, head as u32, &base);
    assert!((got[head][0] - plain[0]).abs().max_element() > 1e-2);
}

/// A bone's local TRS in a reference pose: `G(parent)⁻¹ · G`.
fn local(fox: &Fox, g: &[Mat4], bone: u32) -> (Vec3, Quat, Vec3) {
    let n = fox.node(bone);
    let p = fox.skeleton.parent(bone);
    let m = if p == NO_PARENT {
        g[n]
    } else {
        g[fox.node(p)].inverse() * g[n]
    };
    let (s, r, t) = m.to_scale_rotation_translation();
    (t, r, s)
}

#[test]
fn weighted_override_and_masked_additive_layers_equal_a_trs_blend_of_the_reference() {
    let fox = fox();
    let (walk, walk_frames, walk_t) = fox.at("Walk", 3);
    let (survey, survey_frames, survey_t) = fox.at("Survey", 20);
    let (run, run_frames, run_t) = fox.at("Run", 6);
    let (_, run_ref_frames, run_ref_t) = fox.at("Run", 0);
    let neck = BoneMask::subtrees(&fox.skeleton, &["b_Neck_04", "b_LeftLeg01_015"]).unwrap();
    let (w_override, w_additive) = (0.4, 0.7);
    let layers = [
        LayerPose {
            frames: survey_frames,
            weight: w_override,
            mode: LayerMode::Override,
            mask: None,
        },
        LayerPose {
            frames: run_frames,
            weight: w_additive,
            mode: LayerMode::Additive {
                reference: run_ref_frames,
            },
            mask: Some(&neck),
        },
    ];
    let base = FrameBlend::single(walk_frames);
    let got = fox.layered(&base, &layers);

    // The same definition with glam: per bone, parents first.
    let ga = fox.globals(walk, walk_t);
    let gb = fox.globals(survey, survey_t);
    let gc = fox.globals(run, run_t);
    let gr = fox.globals(run, run_ref_t);
    let mut globals = vec![Mat4::IDENTITY; fox.skeleton.bone_count()];
    for &b in fox.skeleton.order() {
        let (mut t, mut r, mut s) = local(&fox, &ga, b);
        let (tb, rb, sb) = local(&fox, &gb, b);
        t = t.lerp(tb, w_override);
        r = r.lerp(rb, w_override); // normalised, shortest arc
        s = s.lerp(sb, w_override);
        let w = w_additive * neck.weight(b);
        if w > 0.0 {
            let (tc, rc, sc) = local(&fox, &gc, b);
            let (tr, rr, sr) = local(&fox, &gr, b);
            t += (tc - tr) * w;
            r = (r * Quat::IDENTITY.lerp(rr.conjugate() * rc, w)).normalize();
            s *= Vec3::ONE + (sc / sr - Vec3::ONE) * w;
        }
        let l = Mat4::from_scale_rotation_translation(s, r, t);
        let p = fox.skeleton.parent(b);
        globals[b as usize] = if p == NO_PARENT {
            l
        } else {
            globals[p as usize] * l
        };
    }
    let expected = fox.palette(|b| globals[b]);
    fox.assert_skins_as(&expected, &got);
    // The additive layer did something: without it the head differs.
    let radius = fox.model.bounding_radius;
    let moved = fox.worst(&fox.layered(&base, &layers[..1]), &got);
    assert!(
        moved > 1e-2 * radius,
        "the additive layer moved vertices by {moved} only"
    );
}

#[test]
fn weightless_layers_leave_the_base_palette_bit_for_bit() {
    let fox = fox();
    let (_, walk_frames, _) = fox.at("Walk", 3);
    let (_, survey_frames, _) = fox.at("Survey", 20);
    let (_, run_frames, _) = fox.at("Run", 6);
    let base = FrameBlend {
        current: walk_frames,
        previous: run_frames,
        fade: 0.3,
    };
    let layers = [
        LayerPose {
            frames: survey_frames,
            weight: 0.0,
            mode: LayerMode::Override,
            mask: None,
        },
        LayerPose {
            frames: run_frames,
            weight: 0.0,
            mode: LayerMode::Additive {
                reference: survey_frames,
            },
            mask: None,
        },
    ];
    fox.assert_base_rows(&fox.layered(&base, &layers), &base, |_| true);
}

#[test]
fn masks_and_layers_refuse_what_is_wrong_and_say_what() {
    let fox = fox();
    let err = BoneMask::subtrees(&fox.skeleton, &["Spine"]).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, LayerError::UnknownBone { .. }) && msg.contains("b_Spine01_02"),
        "{msg}"
    );
    let err = BoneMask::from_weights(&fox.skeleton, vec![1.0; 3]).unwrap_err();
    assert!(
        matches!(
            err,
            LayerError::MaskLength {
                expected: 24,
                got: 3
            }
        ),
        "{err}"
    );
    let mut weights = vec![0.0; 24];
    weights[5] = f32::NAN;
    let err = BoneMask::from_weights(&fox.skeleton, weights).unwrap_err();
    assert!(err.to_string().contains("bone 5"), "{err}");

    let layer = LayerPose {
        frames: FramePair::single(0),
        weight: 1.5,
        mode: LayerMode::Override,
        mask: None,
    };
    assert!(validate(&[layer]).unwrap_err().to_string().contains("1.5"));
    let ok = LayerPose {
        weight: 1.0,
        ..layer
    };
    assert!(matches!(
        validate(&[ok; 4]),
        Err(LayerError::TooManyLayers { got: 4 })
    ));
    validate(&[ok; 3]).unwrap();
}

#[test]
fn a_crowd_instance_plays_its_layers_and_answers_bone_queries_with_them() {
    use throng_crowd::crowd::{Crowd, CrowdError, Layer, LayerBlend, ModelHandle, Spawn};
    let fox = fox();
    let handle = ModelHandle::new(fox.model.clone()).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let walk = fox.model.clip_index("Walk").unwrap();
    let survey = fox.model.clip_index("Survey").unwrap();
    let world = Mat4::from_translation(Vec3::new(3.0, 0.0, -1.0));
    let id = crowd
        .spawn(
            m,
            Spawn {
                transform: world,
                clip: Some(walk),
                ..Spawn::default()
            },
        )
        .unwrap();
    let upper = crowd.mask_subtrees(m, &["b_Spine01_02"]).unwrap();
    let layer = Layer {
        time: 0.5,
        speed: 2.0,
        mask: Some(upper),
        ..Layer::new(survey)
    };
    crowd.set_layers(id, &[layer]).unwrap();
    crowd.update(0.25);
    let layers = crowd.layers(id).unwrap();
    assert!((layers[0].1 - 1.0).abs() < 1e-4, "{layers:?}");

    // The palette is the CPU twin's, at the frames the clock gives.
    let mut got = Vec::new();
    crowd.palette(id, &mut got).unwrap();
    let mask = BoneMask::subtrees(&fox.skeleton, &["b_Spine01_02"]).unwrap();
    let poses = [LayerPose {
        frames: fox.model.clips[survey].frames_at(1.0),
        weight: 1.0,
        mode: LayerMode::Override,
        mask: Some(&mask),
    }];
    let base = crowd.frame_blend(id).unwrap();
    let expected = fox.layered(&base, &poses);
    let radius = fox.model.bounding_radius;
    let worst = fox.worst(&expected, &got);
    assert!(worst <= 1e-4 * radius, "palette differs by {worst}");
    // Bone queries follow the layers.
    let head = fox.skeleton.bone("b_Head_05").unwrap() as usize;
    let q = crowd.bone_world_transform(id, head).unwrap();
    let want = world
        * throng_core::math::rows_to_mat4(&got[head])
        * fox.model.bones[head].inverse_bind.inverse();
    assert!((q.w_axis - want.w_axis).length() < 1e-4 * radius);

    // Pausing stops the layers; weight 0 shows the base pose.
    crowd.pause(id).unwrap();
    crowd.update(0.5);
    assert!((crowd.layers(id).unwrap()[0].1 - 1.0).abs() < 1e-4);
    crowd.set_layer_weight(id, 0, 0.0).unwrap();
    crowd.palette(id, &mut got).unwrap();
    let base = crowd.frame_blend(id).unwrap();
    fox.assert_base_rows(&got, &base, |_| true);

    // What is refused, and why.
    let err = crowd.mask_subtrees(m, &["Spine"]).unwrap_err();
    assert!(err.to_string().contains("b_Spine01_02"), "{err}");
    let err = crowd.set_layers(id, &[Layer::new(survey); 4]).unwrap_err();
    assert!(matches!(
        err,
        CrowdError::Layer(LayerError::TooManyLayers { got: 4 })
    ));
    let err = crowd
        .set_layers(
            id,
            &[Layer {
                weight: 1.5,
                ..Layer::new(survey)
            }],
        )
        .unwrap_err();
    assert!(err.to_string().contains("1.5"), "{err}");
    let err = crowd.set_layers(id, &[Layer::new(99)]).unwrap_err();
    assert!(matches!(err, CrowdError::ClipOutOfRange { .. }), "{err}");
    let err = crowd
        .set_layers(
            id,
            &[Layer {
                blend: LayerBlend::Additive {
                    reference_time: f32::NAN,
                },
                ..Layer::new(survey)
            }],
        )
        .unwrap_err();
    assert!(matches!(err, CrowdError::NotFinite(_)), "{err}");
    let other = crowd.add_model(&ModelHandle::new(fox.model.clone()).unwrap());
    let foreign = crowd.mask_subtrees(other, &["b_Spine01_02"]).unwrap();
    let err = crowd
        .set_layers(
            id,
            &[Layer {
                mask: Some(foreign),
                ..Layer::new(survey)
            }],
        )
        .unwrap_err();
    assert!(err.to_string().contains("not a mask of"), "{err}");
    // Despawned instances lose their layers with their id.
    crowd.despawn(id).unwrap();
    assert!(crowd.layers(id).is_err());
}

/// Morph weights are layered as bones are (`layered_weights`), against the
/// source glTF's weights (`throng_bake::morph::weights_at`) blended by hand,
/// at baked frame times of `morph_bar` (where the baked weights equal the
/// source's within `BAKED_F32_TOLERANCE`): an override moves each weight
/// toward the layer's, an additive layer adds its difference from the
/// reference, and a mask applies through each slot's bone.
#[test]
fn layered_morph_weights_equal_a_blend_of_the_source_weights() {
    let bytes = throng_tests::morph_models::morph_bar();
    let scene = throng_bake::import_slice(&bytes, None, "morph_bar")
        .unwrap()
        .scene;
    let (model, _) = bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    let skeleton = Skeleton::new(&model);
    let clip = |name: &str| {
        let c = model.clip_index(name).unwrap();
        (
            &model.clips[c],
            &scene.clips[scene.clips.iter().position(|s| s.name == name).unwrap()],
        )
    };
    // A baked frame's time and its frames, exactly on it.
    let at = |name: &str, frame: u32| {
        let (baked, _) = clip(name);
        let t = baked.duration * frame as f32 / (baked.frame_count - 1) as f32;
        (t, baked.frames_at(t))
    };
    let source = |name: &str, t: f32| {
        let mut w = Vec::new();
        throng_bake::morph::weights_at(&scene, Some(clip(name).1), t, &mut w);
        w
    };
    let (talk_t, talk) = at("talk", 3);
    let (blink_t, blink) = at("blink", 5);
    let (ref_t, reference) = at("blink", 1);
    let (base_w, blink_w, ref_w) = (
        source("talk", talk_t),
        source("blink", blink_t),
        source("blink", ref_t),
    );
    let slots = model.morphs.slot_count() as usize;
    assert_eq!(base_w.len(), slots);
    // One mask on the bone of slot 0, one on every bone but it.
    let bone = skeleton.slot_bone(0);
    let n = skeleton.bone_count();
    let only = BoneMask::from_weights(
        &skeleton,
        (0..n).map(|b| (b as u32 == bone) as u8 as f32).collect(),
    )
    .unwrap();
    let others = BoneMask::from_weights(
        &skeleton,
        (0..n).map(|b| (b as u32 != bone) as u8 as f32).collect(),
    )
    .unwrap();
    let override_layer = |weight, mask| LayerPose {
        frames: blink,
        weight,
        mode: LayerMode::Override,
        mask,
    };
    let additive = LayerPose {
        frames: blink,
        weight: 0.5,
        mode: LayerMode::Additive { reference },
        mask: None,
    };
    let base = FrameBlend::single(talk);
    let mut got = Vec::new();
    let mut check = |what: &str, layers: &[LayerPose], expected: &dyn Fn(usize) -> f32| {
        throng_core::layers::layered_weights(&model, &skeleton, &base, layers, &mut got);
        for (s, w) in got.iter().enumerate() {
            let e = expected(s);
            assert!(
                (w - e).abs() <= BAKED_F32_TOLERANCE,
                "{what}: slot {s} weighs {w}, the source blend {e}"
            );
        }
    };
    check("no layer", &[], &|s| base_w[s]);
    check("override 0.7", &[override_layer(0.7, None)], &|s| {
        base_w[s] + (blink_w[s] - base_w[s]) * 0.7
    });
    check("additive 0.5", &[additive], &|s| {
        base_w[s] + (blink_w[s] - ref_w[s]) * 0.5
    });
    check(
        "override masked to slot 0's bone",
        &[override_layer(1.0, Some(&only))],
        &|s| {
            if skeleton.slot_bone(s as u32) == bone {
                blink_w[s]
            } else {
                base_w[s]
            }
        },
    );
    check(
        "override masked off slot 0's bone",
        &[override_layer(1.0, Some(&others))],
        &|s| {
            if skeleton.slot_bone(s as u32) == bone {
                base_w[s]
            } else {
                blink_w[s]
            }
        },
    );
    // The layers moved something, so the checks above say something.
    assert!(
        (0..slots).any(|s| (blink_w[s] - base_w[s]).abs() > 0.1),
        "blink and talk weigh alike: {blink_w:?} against {base_w:?}"
    );
}

/// A weights layer moves the slots its morph preset sets toward the
/// preset's weights by the layer's weight, leaves the other slots and every
/// bone as they were, and is refused without a preset (or a preset on
/// another layer), for a slot past the model's and for a weight that is
/// not finite — on the CPU (`layered_weights`) and through a crowd
/// instance (`Crowd::morph_weights`, `Crowd::palette`).
#[test]
fn a_morph_preset_layer_sets_the_weights_game_code_asks_for() {
    use throng_core::layers::{LayerError, layered_weights};
    use throng_crowd::crowd::{Crowd, CrowdError, Layer, ModelHandle, Spawn};
    let model =
        throng_tests::morph_models::baked(&throng_tests::morph_models::morph_bar(), "morph_bar");
    let skeleton = Skeleton::new(&model);
    let slots = model.morphs.slot_count();
    assert!(slots >= 2, "morph_bar has {slots} slots");
    let preset = BoneMask::morph_preset(&skeleton, &[(0, 1.5), (slots - 1, -0.25)]).unwrap();
    let talk = &model.clips[model.clip_index("talk").unwrap()];
    let base = FrameBlend::single(talk.frames_at(0.4 * talk.duration));
    let layer = |weight, mask| LayerPose {
        frames: talk.frames_at(0.0),
        weight,
        mode: LayerMode::Weights,
        mask,
    };
    let (mut plain, mut got) = (Vec::new(), Vec::new());
    layered_weights(&model, &skeleton, &base, &[], &mut plain);
    layered_weights(
        &model,
        &skeleton,
        &base,
        &[layer(0.5, Some(&preset))],
        &mut got,
    );
    let last = slots as usize - 1;
    for (s, (&w, &p)) in got.iter().zip(&plain).enumerate() {
        let expected = match s {
            0 => p + (1.5 - p) * 0.5,
            s if s == last => p + (-0.25 - p) * 0.5,
            _ => p,
        };
        assert_eq!(w, expected, "slot {s}");
    }
    // No bone moves.
    let (mut bones, mut layered_bones) = (Vec::new(), Vec::new());
    layered_palette(&model, &skeleton, &base, &[], &mut bones);
    layered_palette(
        &model,
        &skeleton,
        &base,
        &[layer(1.0, Some(&preset))],
        &mut layered_bones,
    );
    assert_eq!(bones, layered_bones, "a weights layer moved a bone");
    // What is refused, and says so.
    assert!(matches!(
        validate(&[layer(1.0, None)]),
        Err(LayerError::Preset { layer: 0, .. })
    ));
    let over = LayerPose {
        mode: LayerMode::Override,
        ..layer(1.0, Some(&preset))
    };
    assert!(matches!(validate(&[over]), Err(LayerError::Preset { .. })));
    let past = BoneMask::morph_preset(&skeleton, &[(slots, 1.0)]).unwrap_err();
    assert!(
        past.to_string().contains(&format!("no morph slot {slots}")),
        "{past}"
    );
    let nan = BoneMask::morph_preset(&skeleton, &[(0, f32::NAN)]).unwrap_err();
    assert!(nan.to_string().contains("morph slot 0's preset"), "{nan}");

    // Through a crowd instance, as game code sets it.
    let handle = ModelHandle::new(model.clone()).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let id = crowd
        .spawn(
            m,
            Spawn {
                clip: Some(model.clip_index("talk").unwrap()),
                time: 0.4 * talk.duration,
                ..Spawn::default()
            },
        )
        .unwrap();
    // Slots by their targets' names, as game code knows them.
    let first = crowd.morph_slot(m, &model.morphs.slots[0].name).unwrap();
    assert_eq!(first, 0);
    let unknown = crowd.morph_slot(m, "frown").unwrap_err().to_string();
    assert!(
        unknown.contains("no morph target named \"frown\"")
            && unknown.contains(&model.morphs.slots[0].name),
        "{unknown}"
    );
    let smile = crowd
        .add_morph_preset(m, &[(first, 1.5), (slots - 1, -0.25)])
        .unwrap();
    let mut before = Vec::new();
    crowd.morph_weights(id, &mut before).unwrap();
    crowd.set_layers(id, &[Layer::weights(smile, 0.5)]).unwrap();
    let mut after = Vec::new();
    crowd.morph_weights(id, &mut after).unwrap();
    assert_eq!(after[0], before[0] + (1.5 - before[0]) * 0.5);
    let upper = crowd.mask_subtrees(m, &[&model.bones[0].name]).unwrap();
    let wrong = crowd.set_layers(id, &[Layer::weights(upper, 1.0)]);
    assert!(
        matches!(wrong, Err(CrowdError::Layer(LayerError::Preset { .. }))),
        "{wrong:?}"
    );
}
