//! Clips from other files (`BakeOptions::clips_from`, `throng bake
//! --clips-from`; docs/RETARGETING.md): bodies made from the bundled Fox
//! in the test — its clips taken out, its joints renamed under a
//! namespace, the whole rig scaled — take the clips of the untouched Fox
//! and must pose as the clips say: the same frames as the Fox's own bake
//! where the skeletons agree, exactly 1.5 times as far from the origin
//! where the body is the Fox scaled by 1.5. Positions are compared as
//! `throng_core::baked::skin_lod` skins them from the baked frames, every
//! clip at several times.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::Vec3;
use serde_json::Value;
use throng_bake::{BakeError, BakeOptions, bake_file};
use throng_core::baked::{bone_model_transform, skin_lod};
use throng_core::gpu::FrameBlend;
use throng_core::model::BakedModel;
use throng_tests::asset;
use throng_tests::gltf_builder::edit::{edit_floats, position_accessors, scale_accessor};
use throng_tests::gltf_builder::{glb_bytes, glb_parts};

/// Where the skeletons agree, the body's frames are the library's own up
/// to float rounding: no more than this share of the model's radius.
const SAME: f32 = 1e-6;

/// A body scaled by 1.5 poses exactly 1.5 times as far, up to the rounding
/// of its scaled rig and of the ratio of hip heights: this share of the
/// radius.
const SCALED: f32 = 1e-4;

fn bake(path: &Path, opts: &BakeOptions) -> Result<BakedModel, BakeError> {
    bake_file(path, opts, &|_, _| {}).map(|(model, _)| model)
}

fn with_clips_from(library: &Path) -> BakeOptions {
    BakeOptions {
        clips_from: vec![library.to_path_buf()],
        ..BakeOptions::default()
    }
}

/// A scratch folder of the test's own, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        // Tests run side by side in one process: each folder its own.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let id = std::process::id();
        let dir = std::env::temp_dir().join(format!("throng-clips-from-{id}-{n}-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The Fox's GLB edited by `edit` (its JSON and binary chunk), written to
/// `name` in a scratch folder that lives as long as the returned guard.
fn fox_edited(name: &str, edit: impl FnOnce(&mut Value, &mut Vec<u8>)) -> (Scratch, PathBuf) {
    let (mut doc, mut bin) = glb_parts(&std::fs::read(asset("khronos_Fox.glb")).unwrap());
    edit(&mut doc, &mut bin);
    let dir = Scratch::new(name);
    let path = dir.path().join(name);
    std::fs::write(&path, glb_bytes(&doc, &bin)).unwrap();
    (dir, path)
}

/// Takes every clip out.
fn without_clips(doc: &mut Value) {
    doc.as_object_mut().unwrap().remove("animations");
}

/// Per clip (by name) and time: LOD 0's skinned positions.
fn poses(model: &BakedModel) -> Vec<(String, f32, Vec<Vec3>)> {
    let mut out = Vec::new();
    for clip in &model.clips {
        for share in [0.0, 0.13, 0.31, 0.5, 0.72, 0.9, 1.0] {
            let time = clip.duration * share;
            let blend = FrameBlend::single(clip.frames_at(time));
            let skinned = skin_lod(model, 0, &blend);
            let positions = skinned.into_iter().flat_map(|p| p.positions).collect();
            out.push((clip.name.clone(), time, positions));
        }
    }
    out
}

/// The largest distance of a rest position from their centre.
fn radius(model: &BakedModel) -> f32 {
    let (_, _, rest) = &poses(model)[0];
    let centre = rest.iter().copied().sum::<Vec3>() / rest.len() as f32;
    rest.iter().map(|p| p.distance(centre)).fold(0.0, f32::max)
}

/// Every pose of `body` against `scale` times the same clip's pose of
/// `reference` at the same time: the worst distance as a share of the
/// reference's radius must be within `tolerance` (printed either way).
fn assert_poses(body: &BakedModel, reference: &BakedModel, scale: f32, tolerance: f32, what: &str) {
    let (a, b) = (poses(body), poses(reference));
    let names = |m: &BakedModel| m.clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(body), names(reference), "{what}: the clips");
    let r = radius(reference);
    let mut worst = (0.0f32, String::new());
    for ((clip, t, p), (_, _, q)) in a.iter().zip(&b) {
        assert_eq!(p.len(), q.len(), "{what}: vertices");
        for (i, (x, y)) in p.iter().zip(q).enumerate() {
            let d = x.distance(*y * scale) / r;
            if d > worst.0 {
                worst = (d, format!("clip {clip:?} at {t:.3} s, vertex {i}"));
            }
        }
    }
    println!("{what}: worst {:.2e} of the radius ({})", worst.0, worst.1);
    assert!(
        worst.0 <= tolerance,
        "{what}: {:.2e} of the radius at {} (tolerance {tolerance:e})",
        worst.0,
        worst.1
    );
}

#[test]
fn a_body_without_clips_takes_its_own_files_clips_frame_for_frame() {
    let fox = asset("khronos_Fox.glb");
    let reference = bake(&fox, &BakeOptions::default()).unwrap();
    let (_dir, body) = fox_edited("body.glb", |doc, _| without_clips(doc));
    let baked = bake(&body, &with_clips_from(&fox)).unwrap();
    assert_poses(&baked, &reference, 1.0, SAME, "the Fox's clips on the Fox");
}

#[test]
fn joints_under_a_namespace_match_the_librarys_by_their_bare_names() {
    let fox = asset("khronos_Fox.glb");
    let reference = bake(&fox, &BakeOptions::default()).unwrap();
    let (_dir, body) = fox_edited("mixamo.glb", |doc, _| {
        without_clips(doc);
        for node in doc["nodes"].as_array_mut().unwrap() {
            if let Some(name) = node["name"].as_str() {
                node["name"] = Value::from(format!("mixamorig:{name}"));
            }
        }
    });
    let baked = bake(&body, &with_clips_from(&fox)).unwrap();
    assert_poses(&baked, &reference, 1.0, SAME, "namespaced joints");
}

#[test]
fn a_body_scaled_by_one_and_a_half_poses_one_and_a_half_times_as_far() {
    let fox = asset("khronos_Fox.glb");
    let reference = bake(&fox, &BakeOptions::default()).unwrap();
    const K: f32 = 1.5;
    let (_dir, body) = fox_edited("big.glb", |doc, bin| {
        without_clips(doc);
        for node in doc["nodes"].as_array_mut().unwrap() {
            if let Some(t) = node["translation"].as_array_mut() {
                for v in t {
                    *v = Value::from(v.as_f64().unwrap() * K as f64);
                }
            }
        }
        let positions: Vec<usize> = position_accessors(doc);
        for a in positions {
            scale_accessor(doc, bin, a, 3, &[0, 1, 2], K);
        }
        let binds: Vec<usize> = doc["skins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["inverseBindMatrices"].as_u64().unwrap() as usize)
            .collect();
        for a in binds {
            // Column-major: the translation is elements 12, 13, 14.
            scale_accessor(doc, bin, a, 16, &[12, 13, 14], K);
        }
    });
    let baked = bake(&body, &with_clips_from(&fox)).unwrap();
    assert_poses(&baked, &reference, K, SCALED, "the Fox scaled by 1.5");
}

#[test]
fn clips_of_one_name_in_two_files_are_refused_naming_both() {
    let fox = asset("khronos_Fox.glb");
    let e = bake(&fox, &with_clips_from(&fox)).unwrap_err().to_string();
    assert!(
        e.contains("two clips named \"Survey\"") && e.matches("khronos_Fox.glb").count() == 2,
        "{e}"
    );
}

#[test]
fn a_library_matching_under_half_the_joints_is_refused_naming_them() {
    let (_dir, library) = fox_edited("stranger.glb", |doc, _| {
        for node in doc["nodes"].as_array_mut().unwrap() {
            if let Some(name) = node["name"].as_str().filter(|n| {
                n.contains("Leg")
                    || n.contains("Spine")
                    || n.contains("Arm")
                    || n.contains("Hand")
                    || n.contains("Tail")
            }) {
                node["name"] = Value::from(format!("other_{name}"));
            }
        }
    });
    let (_dir2, body) = fox_edited("body.glb", |doc, _| without_clips(doc));
    let e = bake(&body, &with_clips_from(&library))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("under half") && e.contains("b_LeftLeg01_015") && e.contains("stranger.glb"),
        "{e}"
    );
}

#[test]
fn a_bone_map_names_the_joints_whose_names_differ() {
    let fox = asset("khronos_Fox.glb");
    let reference = bake(&fox, &BakeOptions::default()).unwrap();
    // The library's joints renamed; the map gives each its body's name.
    let mut map = serde_json::Map::new();
    let (_dir, library) = fox_edited("renamed.glb", |doc, _| {
        for node in doc["nodes"].as_array_mut().unwrap() {
            if let Some(name) = node["name"].as_str().map(str::to_owned) {
                let renamed = format!("Bone {}", name.len() * 31 + map.len());
                map.insert(renamed.clone(), Value::from(name));
                node["name"] = Value::from(renamed);
            }
        }
    });
    let (dir, body) = fox_edited("body.glb", |doc, _| without_clips(doc));
    let map_file = dir.path().join("bones.json");
    std::fs::write(&map_file, serde_json::to_vec(&map).unwrap()).unwrap();
    let opts = BakeOptions {
        bone_map: Some(map_file),
        ..with_clips_from(&library)
    };
    let baked = bake(&body, &opts).unwrap();
    assert_poses(&baked, &reference, 1.0, SAME, "joints through a bone map");
    // Without it, nothing matches.
    let e = bake(&body, &with_clips_from(&library))
        .unwrap_err()
        .to_string();
    assert!(e.contains("under half"), "{e}");
}

/// A library whose joint rests turned differently moves the body's joint by
/// the same change from rest: the library is the Fox with its neck's rest
/// rotation and every key of it turned by 40° about an axis of its own,
/// which describes the same motion relative to rest, so the body (the Fox
/// without clips) must pose as the Fox, up to the rounding of two
/// quaternion products per key. (The neck, not a leg: a turned leg would
/// move the library's feet, which the grounding then follows.)
#[test]
fn rotations_carry_their_change_from_the_librarys_rest_to_the_bodys() {
    /// Two quaternion products per key, in float: this share of the radius.
    const TURNED: f32 = 1e-5;
    let fox = asset("khronos_Fox.glb");
    let reference = bake(&fox, &BakeOptions::default()).unwrap();
    let turn =
        glam::Quat::from_axis_angle(Vec3::new(0.3, -0.8, 0.5).normalize(), 40f32.to_radians());
    let (_dir, library) = fox_edited("turned.glb", |doc, bin| {
        let neck = doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == "b_Neck_04")
            .unwrap();
        let turned = |q: &mut [f32]| {
            let r = turn * glam::Quat::from_xyzw(q[0], q[1], q[2], q[3]);
            q.copy_from_slice(&r.to_array());
        };
        let node = &mut doc["nodes"][neck];
        let mut rest: Vec<f32> = match node["rotation"].as_array() {
            Some(r) => r.iter().map(|v| v.as_f64().unwrap() as f32).collect(),
            None => vec![0.0, 0.0, 0.0, 1.0],
        };
        turned(&mut rest);
        node["rotation"] = Value::from(rest);
        let mut outputs = std::collections::BTreeSet::new();
        for animation in doc["animations"].as_array().unwrap() {
            for channel in animation["channels"].as_array().unwrap() {
                if channel["target"]["node"] == neck && channel["target"]["path"] == "rotation" {
                    let sampler =
                        &animation["samplers"][channel["sampler"].as_u64().unwrap() as usize];
                    assert_eq!(
                        sampler["interpolation"].as_str().unwrap_or("LINEAR"),
                        "LINEAR"
                    );
                    outputs.insert(sampler["output"].as_u64().unwrap() as usize);
                }
            }
        }
        assert!(!outputs.is_empty(), "the neck is animated");
        for output in outputs {
            edit_floats(doc, bin, output, 4, turned);
        }
    });
    let (_dir2, body) = fox_edited("body.glb", |doc, _| without_clips(doc));
    let baked = bake(&body, &with_clips_from(&library)).unwrap();
    assert_poses(&baked, &reference, 1.0, TURNED, "a neck turned at rest");
}

/// The Fox's feet: the last joint of each leg, hind and front.
const FEET: [&str; 4] = [
    "b_LeftFoot02_018",
    "b_RightFoot02_022",
    "b_LeftHand_011",
    "b_RightHand_08",
];

/// Poses of a clip the feet are compared at, evenly spread.
const TIMES: u32 = 96;

/// The height of the lowest foot of each pose (clip, time, height), from
/// the baked frames (`bone_model_transform`).
fn lowest_foot(model: &BakedModel) -> Vec<(String, f32, f32)> {
    let feet: Vec<u32> = FEET
        .iter()
        .map(|f| model.bones.iter().position(|b| b.name == *f).unwrap() as u32)
        .collect();
    let mut out = Vec::new();
    for clip in &model.clips {
        // Four times the source's 24 keys a second: between its frames too.
        for i in 0..=TIMES {
            let time = clip.duration * i as f32 / TIMES as f32;
            let blend = FrameBlend::single(clip.frames_at(time));
            let y = feet
                .iter()
                .map(|&f| bone_model_transform(model, f, &blend).w_axis.y)
                .fold(f32::INFINITY, f32::min);
            out.push((clip.name.clone(), time, y));
        }
    }
    out
}

/// The Fox's hind legs, lengthened by 1.3 (each bone's rest translation
/// from its parent), walk on the ground where the Fox does: the lowest
/// point of every pose stays within 1 % of the leg's length of the
/// Fox's, at 97 times of every clip (the grounding of the root; the
/// hip-height ratio alone leaves up to 26 % in the run's flight phases,
/// docs/RETARGETING.md).
#[test]
fn longer_legs_touch_the_ground_when_the_librarys_do() {
    /// A share of the leg's length.
    const CONTACT: f32 = 0.01;
    const LEGS: [&str; 6] = [
        "b_LeftLeg02_016",
        "b_LeftFoot01_017",
        "b_LeftFoot02_018",
        "b_RightLeg02_020",
        "b_RightFoot01_021",
        "b_RightFoot02_022",
    ];
    let fox = asset("khronos_Fox.glb");
    let reference = bake(&fox, &BakeOptions::default()).unwrap();
    let scene = throng_bake::import_file(&fox).unwrap().scene;
    let at: Vec<Vec3> = throng_bake::sample::rest_globals(&scene)
        .iter()
        .map(throng_bake::sample::translation_of)
        .collect();
    let joint = |name: &str| at[scene.nodes.iter().position(|n| n.name == name).unwrap()];
    let chain = [
        "b_LeftLeg01_015",
        "b_LeftLeg02_016",
        "b_LeftFoot01_017",
        "b_LeftFoot02_018",
    ];
    let leg: f32 = chain
        .windows(2)
        .map(|w| joint(w[0]).distance(joint(w[1])))
        .sum();
    let (_dir, body) = fox_edited("legs.glb", |doc, _| {
        without_clips(doc);
        for node in doc["nodes"].as_array_mut().unwrap() {
            if LEGS.iter().any(|l| node["name"] == *l) {
                for v in node["translation"].as_array_mut().unwrap() {
                    *v = Value::from(v.as_f64().unwrap() * 1.3);
                }
            }
        }
    });
    let baked = bake(&body, &with_clips_from(&fox)).unwrap();
    let mut worst = (0.0f32, String::new());
    for ((clip, t, y), (_, _, y0)) in lowest_foot(&baked).iter().zip(&lowest_foot(&reference)) {
        let d = (y - y0).abs() / leg;
        if d > worst.0 {
            worst = (
                d,
                format!("clip {clip:?} at {t:.3} s: {y:.3} against {y0:.3}"),
            );
        }
    }
    println!(
        "longer legs: worst {:.3} % of the leg ({leg:.2}) at {}",
        worst.0 * 100.0,
        worst.1
    );
    assert!(
        worst.0 <= CONTACT,
        "{:.3} % of the leg at {}",
        worst.0 * 100.0,
        worst.1
    );
}

/// Imported clips are the body's own for root motion and events: the
/// body's sidecar events file may name a library's clip, and root motion
/// baked from imported clips equals the Fox's own.
#[test]
fn imported_clips_take_root_motion_and_the_bodys_events() {
    let fox = asset("khronos_Fox.glb");
    let root_motion = BakeOptions {
        root_motion: Some(throng_bake::RootMotionSource::SkeletonRoot),
        ..BakeOptions::default()
    };
    let reference = bake(&fox, &root_motion).unwrap();
    let (dir, body) = fox_edited("body.glb", |doc, _| without_clips(doc));
    std::fs::write(
        dir.path().join("body.events.json"),
        r#"{"Walk": [{"time": 0.25, "name": "footstep"}]}"#,
    )
    .unwrap();
    let opts = BakeOptions {
        clips_from: vec![fox.clone()],
        ..root_motion
    };
    let baked = bake(&body, &opts).unwrap();
    assert_poses(
        &baked,
        &reference,
        1.0,
        SAME,
        "root motion from imported clips",
    );
    assert_eq!(
        baked.root_motion.len(),
        reference.root_motion.len(),
        "root motion keys"
    );
    for (a, b) in baked.root_motion.iter().zip(&reference.root_motion) {
        assert_eq!(
            (a.translation, a.yaw),
            (b.translation, b.yaw),
            "root motion"
        );
    }
    let walk = baked.clips.iter().position(|c| c.name == "Walk").unwrap() as u32;
    assert!(
        baked
            .events
            .iter()
            .any(|e| e.clip == walk && e.name == "footstep" && (e.time - 0.25).abs() < 1e-6),
        "{:?}",
        baked.events
    );
}
