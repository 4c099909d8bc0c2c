//! The `.throng` reader's rules that keep the shaders' indices in range
//! (docs/DESIGN.md, "Bounds on the GPU"), each at its edge: the largest
//! value a valid file may hold loads (written and read back), and one past
//! it is refused with an error naming what and where.
//!
//! The edges: a vertex's joint at the last bone, a clip ending on the
//! table's last frame, a submesh index at its last vertex, a submesh's
//! material the last one, an impostor of one clip (of none, the shader's
//! cells would lie past the atlas), a two-frame clip of the shortest
//! duration whose frame rate is finite. And the time-to-frame map (the
//! CPU twin of `cull.wgsl`'s `frames_at`) keeps both frames inside their
//! clip at every time, finite or not, for clips at those edges.
//!
//! `format_robustness.rs` breaks each rule of `docs/FORMAT.md` in the bytes
//! of a file; this file is about where the edge lies. The rule that the
//! texture holds at most `u32::MAX` texels (the shader's texel index) has no
//! test here: a model at that edge takes 64 GiB.

use std::sync::OnceLock;

use throng_bake::{BakeOptions, bake_file};
use throng_core::format::{read_model, write_model};
use throng_core::impostor::{AtlasPlan, ImpostorAtlas};
use throng_core::layout::FrameMap;
use throng_core::model::BakedModel;

/// `khronos_RiggedSimple.glb` at a fixed 30 fps with a second material and
/// a tiny one-clip impostor (2 × 2 views, 1 frame, 4² texels).
fn fixture() -> &'static BakedModel {
    static FIXTURE: OnceLock<BakedModel> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let name = "khronos_RiggedSimple.glb";
        let fixed = BakeOptions {
            max_fps: throng_core::limits::DEFAULT_FPS,
            ..BakeOptions::default()
        };
        let (mut model, _) = bake_file(&throng_tests::asset(name), &fixed, &|_, _| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut second = model.materials[0].clone();
        second.name = "second".into();
        model.materials.push(second);
        model.impostor = Some(impostor(1));
        assert_eq!(model.clips.len(), 1);
        model.validate().expect("the fixture is valid");
        model
    })
}

/// A tiny impostor of `clips` clips, images sized to its plan.
fn impostor(clips: u32) -> ImpostorAtlas {
    let plan = AtlasPlan::layout(2, 1, 4, clips);
    let bytes = ImpostorAtlas::image_bytes(&plan) as usize;
    ImpostorAtlas {
        plan,
        screen_size: 0.05,
        spheres: vec![[0.0, 0.5, 0.0, 1.5]; clips as usize],
        colour: vec![0x80; bytes],
        normal: vec![0x80; bytes],
        surface: Vec::new(),
    }
}

/// The fixture edited by `edit` loads: it is written and read back equal.
fn loads(case: &str, edit: impl FnOnce(&mut BakedModel)) {
    let mut model = fixture().clone();
    edit(&mut model);
    let bytes = write_model(&model).unwrap_or_else(|e| panic!("{case}: not written: {e}"));
    let read = read_model(&bytes).unwrap_or_else(|e| panic!("{case}: refused: {e}"));
    assert!(read == model, "{case}: read back differs");
}

/// The fixture edited by `edit` is refused, by validation (which the reader
/// and the writer both apply), with a message mentioning every `mentions`.
fn refused(case: &str, mentions: &[&str], edit: impl FnOnce(&mut BakedModel)) {
    let mut model = fixture().clone();
    edit(&mut model);
    let err = match model.validate() {
        Ok(()) => panic!("{case}: accepted"),
        Err(e) => e.to_string(),
    };
    println!("{case}: {err}");
    throng_tests::assert_mentions(case, &err, mentions);
    assert!(write_model(&model).is_err(), "{case}: written");
}

#[test]
fn a_vertex_may_use_the_last_bone_and_no_further() {
    let bones = fixture().bones.len() as u16;
    loads("joint = last bone", |m| {
        m.lods[0].vertices[7].joints[3] = bones - 1;
    });
    refused(
        "joint = bone count",
        &["LOD 0", "vertex 7", &format!("bone {bones}"), "palette has"],
        |m| m.lods[0].vertices[7].joints[3] = bones,
    );
}

#[test]
fn a_clip_may_end_on_the_last_frame_and_no_further() {
    let m = fixture();
    let frames = m.frame_count();
    let clip = &m.clips[0];
    assert_eq!(
        clip.first_frame + clip.frame_count,
        frames,
        "the fixture's clip ends on the table's last frame"
    );
    loads("clip ending on the last frame", |_| {});
    refused(
        "clip one frame past the table",
        &["clip 0", "spans frames", &format!("table has {frames}")],
        |m| m.clips[0].first_frame += 1,
    );
}

#[test]
fn a_submesh_may_index_its_last_vertex_and_material_and_no_further() {
    let sub = fixture().lods[0].submeshes[0].clone();
    let at = sub.first_index as usize;
    loads("index = last vertex, material = last", |m| {
        m.lods[0].indices[at] = sub.vertex_count - 1;
        m.lods[0].submeshes[0].material = Some(1);
    });
    refused(
        "index = vertex count",
        &["LOD 0", "submesh 0", &format!("index {}", sub.vertex_count)],
        |m| m.lods[0].indices[at] = sub.vertex_count,
    );
    refused(
        "material = material count",
        &["LOD 0", "submesh 0", "material 2", "there are 2"],
        |m| m.lods[0].submeshes[0].material = Some(2),
    );
}

#[test]
fn an_impostor_needs_a_clip() {
    loads("impostor of the model's one clip", |_| {});
    // A model of no clips whose impostor agrees with it in every other way.
    refused("impostor of 0 clips", &["impostor of 0 clips"], |m| {
        m.clips.clear();
        m.contacts.clear();
        m.impostor = Some(impostor(0));
    });
}

/// The shortest duration of an `n`-frame clip whose rate `(n − 1) / D` is
/// finite in f32.
fn shortest_duration(n: u32) -> f32 {
    let mut d = f32::from_bits(1);
    while !((n - 1) as f32 / d).is_finite() {
        d = f32::from_bits(d.to_bits() + 1);
    }
    d
}

#[test]
fn a_clip_rate_must_be_finite() {
    let frames = fixture().clips[0].frame_count;
    let shortest = shortest_duration(frames);
    loads("the shortest duration with a finite rate", |m| {
        m.clips[0].duration = shortest;
    });
    let below = f32::from_bits(shortest.to_bits() - 1);
    refused(
        "a duration whose rate overflows",
        &["clip 0", "frame rate", "overflows"],
        |m| m.clips[0].duration = below,
    );
}

/// Frames and weight of `map` at every extreme time stay inside the clip,
/// the weight in `[0, 1]` for any time that is a number.
fn check_map(what: &str, map: FrameMap) {
    let times = [
        0.0,
        -0.0,
        map.duration,
        map.duration * (1.0 + f32::EPSILON),
        f32::from_bits(1),
        f32::MAX,
        f32::INFINITY,
        -f32::MAX,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let end = map.first_frame + map.frame_count;
    for time in times {
        let f = map.frames_at(time);
        assert!(
            (map.first_frame..end).contains(&f.frame0)
                && (map.first_frame..end).contains(&f.frame1),
            "{what} at {time}: frames {}, {} outside {}..{end}",
            f.frame0,
            f.frame1,
            map.first_frame
        );
        if !time.is_nan() {
            assert!(
                (0.0..=1.0).contains(&f.t),
                "{what} at {time}: weight {}",
                f.t
            );
        }
    }
}

#[test]
fn clip_times_at_their_extremes_map_to_frames_of_the_clip() {
    let last = u32::MAX;
    for (what, first, n, duration) in [
        ("one frame at the table's end", last - 1, 1, 0.0),
        ("two frames at the table's end", last - 2, 2, 1.0),
        ("two frames, shortest duration", 0, 2, shortest_duration(2)),
        (
            "1,000 frames, shortest duration",
            7,
            1000,
            shortest_duration(1000),
        ),
        ("two frames, longest duration", 0, 2, f32::MAX),
        ("many frames at the table's end", 1, last - 1, 3600.0),
    ] {
        check_map(what, FrameMap::new(first, n, duration));
    }
}
