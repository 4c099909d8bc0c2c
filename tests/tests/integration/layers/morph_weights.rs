//! Morph weights layered as bones are, against the source glTF's weights
//! blended by hand, and morph preset layers set the weights game code asks
//! for.

use throng_bake::{BakeOptions, bake};
use throng_core::gpu::FrameBlend;
use throng_core::layers::{BoneMask, LayerMode, LayerPose, Skeleton, layered_palette, validate};
use throng_tests::BAKED_F32_TOLERANCE;

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
