//! A crowd instance plays its layers (its palette equals the CPU's layered
//! palette) and answers bone queries with them.

use glam::{Mat4, Vec3};
use throng_core::layers::{BoneMask, LayerError, LayerMode, LayerPose};

use super::fox;

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
