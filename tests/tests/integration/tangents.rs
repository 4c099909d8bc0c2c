//! Tangents through import and bake, on the material test model's sphere
//! (`throng_tests::material_models`):
//!
//! - Generated (MikkTSpace, for a primitive whose material has a normal
//!   texture and that has no `TANGENT`): unit, orthogonal to the normal,
//!   along the sphere's analytic tangent (increasing u) with w = +1, so
//!   that glTF's bitangent, cross(n, t) · w, points up the image (north),
//!   where a normal map's +y points.
//! - From the file: kept as given (rigid meshes turn them with the node);
//!   a zero-length one bakes as "none" with a warning naming the primitive
//!   and the count; a NaN one is refused naming the accessor.

use glam::{Vec3, Vec4};
use throng_bake::{BakeOptions, bake, import_slice};
use throng_core::model::{pack_tangent, unpack_tangent};
use throng_tests::gltf_builder::{GltfBuilder, Node, glb_bytes};
use throng_tests::material_models::{bumps, normal_mapped_sphere, sphere};

/// Generated tangents against the analytic ones (unit vectors). MikkTSpace
/// averages the faces around a vertex; a vertex on the texture seam (u = 0
/// or 1, duplicated) has faces on one side only, whose chord along u leans
/// half a segment (7.5° on 24 segments) off the analytic tangent:
/// 2 sin(3.75°) = 0.131.
const ANALYTIC_TOLERANCE: f32 = 0.135;

/// The sphere's tangent at texture coordinates `uv`: d position / d u.
fn analytic(uv: [f32; 2]) -> Vec3 {
    let phi = uv[0] * std::f32::consts::TAU;
    Vec3::new(-phi.sin(), 0.0, -phi.cos())
}

#[test]
fn mikktspace_tangents_follow_the_gltf_convention() {
    let scene = normal_mapped_sphere(&bumps());
    let (model, report) = bake(&scene, &BakeOptions::default(), &|_, _| {}).expect("bake");
    // Only vertices at a pole, where every face around is degenerate, may
    // get none (and the bake says how many).
    let none: Vec<usize> = (0..model.lods[0].vertices.len())
        .filter(|&i| model.lods[0].vertices[i].tangent == [0; 4])
        .collect();
    for &i in &none {
        assert!(
            model.lods[0].vertices[i].normal[1].abs() > 0.99,
            "vertex {i} has no tangent"
        );
    }
    if !none.is_empty() {
        let needle = format!(
            "{} of 425 tangents (MikkTSpace's) have zero length",
            none.len()
        );
        assert!(
            report.warnings.iter().any(|w| w.contains(&needle)),
            "{:?}",
            report.warnings
        );
    }
    let mut worst = (0.0f32, 0usize);
    let mut checked = 0;
    for (i, v) in model.lods[0].vertices.iter().enumerate() {
        let n = Vec3::from(v.normal);
        if n.y.abs() > 0.99 {
            continue; // the poles: u has no direction there
        }
        let t = unpack_tangent(v.tangent);
        assert!(
            (t.truncate().length() - 1.0).abs() < 1e-3,
            "vertex {i}: {t}"
        );
        assert!(
            t.truncate().dot(n).abs() < 1e-2,
            "vertex {i}: not orthogonal"
        );
        assert_eq!(t.w, 1.0, "vertex {i}: bitangent sign");
        // Next to a pole the faces are slivers whose tangents lean off the
        // analytic one; away from the poles they agree.
        let off = if n.y.abs() < 0.95 {
            (t.truncate() - analytic(v.uv)).length()
        } else {
            0.0
        };
        if off > worst.0 {
            worst = (off, i);
        }
        // The bitangent points north (up the image).
        assert!(
            n.cross(t.truncate()).y * t.w > -1e-3,
            "vertex {i}: bitangent points south"
        );
        checked += 1;
    }
    println!(
        "{checked} vertices; worst tangent off the analytic one by {:.4} at vertex {}",
        worst.0, worst.1
    );
    assert!(checked > 300);
    assert!(
        worst.0 < ANALYTIC_TOLERANCE,
        "vertex {}: {}",
        worst.1,
        worst.0
    );
    // Every LOD of the default chain keeps them (they are LOD 0's vertices).
    assert!(
        model
            .lods
            .iter()
            .all(|l| l.vertices.iter().any(|v| v.tangent != [0; 4]))
    );
}

/// The sphere as a glTF with a TANGENT accessor of `tangents`.
fn sphere_with_tangents(tangents: &[[f32; 4]]) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let mesh = b.mesh("sphere", vec![sphere(16, 24)]);
    let joint = b.node(Node::new("joint"));
    let skin = b.skin("skin", &[joint], None);
    b.node(Node::new("sphere").mesh(mesh).skin(skin));
    let flat: Vec<f32> = tangents.iter().flatten().copied().collect();
    let acc = b.accessor_f32("VEC4", 4, &flat);
    let mut doc = b.to_json_glb();
    doc["meshes"][0]["primitives"][0]["attributes"]["TANGENT"] = serde_json::json!(acc);
    glb_bytes(&doc, b.bin())
}

#[test]
fn file_tangents_are_kept_and_a_zero_length_one_falls_back_with_a_warning() {
    let prim = sphere(16, 24);
    let mut tangents: Vec<[f32; 4]> = prim
        .uvs
        .as_ref()
        .unwrap()
        .iter()
        .map(|&uv| analytic(uv).extend(1.0).to_array())
        .collect();
    let zero = 40;
    tangents[zero] = [0.0, 0.0, 0.0, 1.0];
    let imported = import_slice(&sphere_with_tangents(&tangents), None, "sphere").expect("import");
    let (model, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).expect("bake");
    let warning = report
        .warnings
        .iter()
        .find(|w| w.contains("tangent"))
        .expect("a warning about the zero-length tangent");
    assert!(
        warning.contains("meshes[0].primitives[0]")
            && warning.contains(&format!(
                "1 of {} tangents (the file's) have zero length",
                tangents.len()
            )),
        "{warning}"
    );
    let verts = &model.lods[0].vertices;
    assert_eq!(verts[zero].tangent, [0; 4]);
    for (i, v) in verts.iter().enumerate().filter(|(i, _)| *i != zero) {
        assert_eq!(
            v.tangent,
            pack_tangent(Vec4::from(tangents[i])),
            "vertex {i}"
        );
    }
}

#[test]
fn a_nan_tangent_is_refused_naming_its_accessor() {
    let prim = sphere(16, 24);
    let mut tangents = vec![[1.0, 0.0, 0.0, 1.0]; prim.positions.len()];
    tangents[7][1] = f32::NAN;
    let e = import_slice(&sphere_with_tangents(&tangents), None, "sphere")
        .map(|_| ())
        .expect_err("a NaN tangent is refused")
        .to_string();
    assert!(
        e.contains("meshes[0].primitives[0].attributes.TANGENT") && e.contains("NaN"),
        "{e}"
    );
}

#[test]
fn packing_keeps_direction_and_sign_and_refuses_nothing() {
    let t = pack_tangent(Vec4::new(0.0, 3.0, 4.0, -2.0));
    let u = unpack_tangent(t);
    assert!(
        (u.truncate() - Vec3::new(0.0, 0.6, 0.8)).length() < 1e-4 && u.w == -1.0,
        "{u}"
    );
    assert_eq!(pack_tangent(Vec4::new(0.0, 0.0, 0.0, 1.0)), [0; 4]);
    assert_eq!(pack_tangent(Vec4::new(f32::NAN, 0.0, 0.0, 1.0)), [0; 4]);
}
