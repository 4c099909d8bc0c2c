//! Layers of the bone palette against the reference: a masked override
//! re-attaches its subtree, weighted override and masked additive layers
//! equal a TRS blend, weightless layers change nothing, and wrong masks and
//! layers are refused with what was wrong.

use glam::{Mat4, Quat, Vec3};
use throng_core::gpu::FrameBlend;
use throng_core::layers::{BoneMask, LayerError, LayerMode, LayerPose, NO_PARENT, validate};
use throng_core::layout::FramePair;

use super::{Fox, fox};

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
