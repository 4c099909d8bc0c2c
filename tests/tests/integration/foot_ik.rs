//! Feet planted by two-bone IK on the CPU (`throng_core::foot_ik`, the twin
//! of the GPU pass): the baked Fox walking (its Walk clip at every baked
//! frame) standing upright on a 20° slope, and straddling a stair whose
//! riser is 0.3 of its leg: at each foot's contact phases the foot's
//! height above the ground under it is its height above the clip's ground
//! in the clip (what it is on flat ground: a planted sole on the terrain)
//! within [`PLANTED`] of the leg's length (hip, knee, foot) with IK;
//! without IK (the control) the worst is over [`UNPLANTED`]. The knee
//! stays in the leg's plane; 30 s over hills and the stair leave no NaN.

use glam::{Mat4, Vec2, Vec3, Vec4};
use throng_core::contacts::contacts;
use throng_core::foot_ik::{IkSkeleton, plant_feet};
use throng_core::ground::{Ground, Heightfield, Piece};
use throng_core::layout::frame_time;
use throng_core::math::rows_to_mat4;
use throng_core::model::BakedModel;

/// The bar with IK: a contact foot within 2 % of its leg's length.
const PLANTED: f32 = 0.02;
/// The control's: without IK the worst contact foot is off by more.
const UNPLANTED: f32 = 0.10;

fn palette_at(model: &BakedModel, frame: u32) -> Vec<Mat4> {
    (0..model.bones.len() as u32)
        .map(|b| rows_to_mat4(&model.palette_rows(b, frame)))
        .collect()
}

/// The world rows of an upright instance at `at` (scale `s`), facing +x.
fn upright(at: Vec3, s: f32) -> [Vec4; 3] {
    let m = Mat4::from_scale_rotation_translation(
        Vec3::splat(s),
        glam::Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        at,
    );
    let t = m.transpose();
    [t.x_axis, t.y_axis, t.z_axis]
}

/// Worst contact error (share of leg length) of the Walk clip with the
/// Fox at `at` on `ground`, IK on or off; and the worst knee distance from
/// its leg's plane (share of the upper segment).
fn walk_on(model: &BakedModel, ground: &Ground, at: Vec2, ik: bool) -> (f32, f32, String) {
    let skeleton = IkSkeleton::of(model);
    assert_eq!(skeleton.legs.len(), 4, "the Fox has four legs");
    let walk = model.clips.iter().position(|c| c.name == "Walk").unwrap();
    let clip = &model.clips[walk];
    let contact = &contacts(model)[walk];
    let s = 0.01;
    let world = upright(Vec3::new(at.x, ground.height_at(at), at.y), s);
    let w = rows_to_mat4(&world);
    let (mut worst, mut knee_off, mut at_worst) = (0.0f32, 0.0f32, String::new());
    for k in 0..clip.frame_count {
        let t = frame_time(k, clip.frame_count, clip.duration);
        let mut palette = palette_at(model, clip.first_frame + k);
        let before = palette.clone();
        if ik {
            plant_feet(&skeleton, &mut palette, world, contact.ground, ground);
        }
        for (leg, foot) in skeleton.legs.iter().zip(&contact.feet) {
            assert_eq!(leg.foot, foot.bone);
            let length = s
                * (skeleton
                    .joint(&before, leg.hip)
                    .distance(skeleton.joint(&before, leg.knee))
                    + skeleton
                        .joint(&before, leg.knee)
                        .distance(skeleton.joint(&before, leg.foot)));
            if ik {
                // The knee stays in the plane of the hip, the foot and the
                // knee's bend before.
                let (h, k0, f0) = (
                    skeleton.joint(&before, leg.hip),
                    skeleton.joint(&before, leg.knee),
                    skeleton.joint(&before, leg.foot),
                );
                let (h1, k1, f1) = (
                    skeleton.joint(&palette, leg.hip),
                    skeleton.joint(&palette, leg.knee),
                    skeleton.joint(&palette, leg.foot),
                );
                let u = (f0 - h).normalize();
                let bend = (k0 - h) - u * (k0 - h).dot(u);
                let n = (f1 - h1).cross(bend).normalize_or_zero();
                if n != Vec3::ZERO {
                    knee_off = knee_off.max((k1 - h1).dot(n).abs() / h.distance(k0));
                }
            }
            if !foot.phases.iter().any(|&(a, b)| t >= a && t <= b) {
                continue;
            }
            // Where the clip puts it: this high above the clip's ground.
            let want = (skeleton.joint(&before, leg.foot).y - contact.ground) * s;
            let p = w.transform_point3(skeleton.joint(&palette, leg.foot));
            let above = p.y - ground.height_at(Vec2::new(p.x, p.z));
            let error = (above - want).abs() / length;
            if error > worst {
                worst = error;
                at_worst = format!(
                    "{} at {t:.3} s: {above:.4} above the ground, {want:.4} in the clip (lift {:.4})",
                    model.bones[leg.foot as usize].name,
                    foot.lift * s
                );
            }
        }
    }
    (worst, knee_off, at_worst)
}

fn fox() -> throng_core::model::BakedModel {
    throng_tests::bake_asset("khronos_Fox.glb").model().clone()
}

#[test]
fn contact_feet_meet_a_20_degree_slope_and_a_stair_with_ik_and_not_without() {
    let model = fox();
    let rise = 20f32.to_radians().tan();
    let slope = Ground::new(
        Some(Heightfield::from_fn(Vec2::splat(-10.0), 0.1, 201, 201, |p| rise * p.x).unwrap()),
        vec![],
    )
    .unwrap();
    // A stair under the Fox's front half: its riser 0.3 of a hind leg.
    let skeleton = IkSkeleton::of(&model);
    let rest: Vec<Mat4> = model
        .bones
        .iter()
        .map(|b| b.rest_global * b.inverse_bind)
        .collect();
    let leg = skeleton.legs[2];
    let leg_length = 0.01
        * (skeleton
            .joint(&rest, leg.hip)
            .distance(skeleton.joint(&rest, leg.knee))
            + skeleton
                .joint(&rest, leg.knee)
                .distance(skeleton.joint(&rest, leg.foot)));
    let stair = Ground::new(
        None,
        vec![Piece::step(
            Vec2::new(0.0, -5.0),
            Vec2::new(5.0, 5.0),
            0.3 * leg_length,
        )],
    )
    .unwrap();
    for (name, ground) in [("20° slope", &slope), ("stair", &stair)] {
        let (with, knee, at) = walk_on(&model, ground, Vec2::ZERO, true);
        let (without, _, at_off) = walk_on(&model, ground, Vec2::ZERO, false);
        eprintln!(
            "{name}: worst contact foot off the ground by {:.2} % of its leg with IK ({at}), {:.1} % without ({at_off}); knee off its plane {:.1e}",
            100.0 * with,
            100.0 * without,
            knee
        );
        assert!(
            with <= PLANTED,
            "{name}: {:.2} % > {:.0} % with IK: {at}",
            100.0 * with,
            100.0 * PLANTED
        );
        assert!(
            without > UNPLANTED,
            "{name}: the control is off by only {:.1} %",
            100.0 * without
        );
        assert!(
            knee < 1e-3,
            "{name}: the knee left its plane by {knee:.2e} of the thigh"
        );
    }
}

#[test]
fn thirty_seconds_over_hills_and_a_stair_leave_no_nan() {
    let model = fox();
    let skeleton = IkSkeleton::of(&model);
    let grounds = contacts(&model);
    let hills = Heightfield::from_fn(Vec2::splat(-20.0), 0.25, 161, 161, |p| {
        0.6 * (p.x * 0.7).sin() * (p.y * 0.5).cos()
    })
    .unwrap();
    let ground = Ground::new(
        Some(hills),
        Piece::stairs_along_x(Vec2::new(-1.0, -2.0), 0.6, 4, 0.3, 0.12, 4.0, 1.0),
    )
    .unwrap();
    for (clip, contact) in model.clips.iter().zip(&grounds) {
        for step in 0..900u32 {
            let t = step as f32 / 30.0;
            let x = -15.0 + t;
            let world = upright(Vec3::new(x, ground.height_at(Vec2::new(x, 0.3)), 0.3), 0.01);
            let frame = clip.first_frame + (step % clip.frame_count);
            let mut palette = palette_at(&model, frame);
            plant_feet(&skeleton, &mut palette, world, contact.ground, &ground);
            assert!(
                palette.iter().all(|m| m.is_finite()),
                "clip {} at {t:.2} s: a NaN in the palette",
                clip.name
            );
        }
    }
}

#[test]
fn a_crowd_s_legs_are_found_or_configured_and_bad_chains_refused() {
    use throng_core::foot_ik::Leg;
    use throng_crowd::crowd::Crowd;
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let found = crowd.legs(m).unwrap().to_vec();
    assert_eq!(
        found,
        IkSkeleton::of(handle.model()).legs,
        "found from the skeleton"
    );
    let hind: Vec<Leg> = found[2..].to_vec();
    crowd.set_legs(m, &hind).unwrap();
    assert_eq!(crowd.legs(m).unwrap(), &hind[..]);
    let bone = |name: &str| {
        handle
            .model()
            .bones
            .iter()
            .position(|b| b.name == name)
            .unwrap() as u32
    };
    // Upside down: the hip below the foot.
    let reversed = Leg {
        hip: bone("b_LeftFoot02_018"),
        knee: bone("b_LeftFoot01_017"),
        foot: bone("b_LeftLeg02_016"),
    };
    let e = crowd.set_legs(m, &[reversed]).unwrap_err().to_string();
    assert!(
        e.contains("b_LeftFoot02_018 → b_LeftFoot01_017 → b_LeftLeg02_016 is not a chain"),
        "{e}"
    );
    let e = crowd
        .set_legs(
            m,
            &[Leg {
                hip: 0,
                knee: 1,
                foot: 99,
            }],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("bone 99 is not one of the model's 24"), "{e}");
    let e = crowd.set_legs(m, &[found[0]; 5]).unwrap_err().to_string();
    assert!(e.contains("5 legs"), "{e}");
    assert_eq!(
        crowd.legs(m).unwrap(),
        &hind[..],
        "a refused list changes nothing"
    );
}
