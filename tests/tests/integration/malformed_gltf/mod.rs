//! Malformed glTF (missing buffers, bad accessors, joint index beyond the
//! skin, empty animations, NaN keys, a model with no skin and no animation)
//! gives a clear error or a correct static bake, never a panic.
//!
//! Each case starts from a small valid file built with [`GltfBuilder`] and
//! breaks one thing, usually by editing its JSON. Errors are printed and
//! their messages checked for what was wrong and where (the glTF JSON path).
//! Nothing is wrapped in `catch_unwind`: a panic fails the test.
//!
//! - `buffers`: buffers and buffer views that are short, missing or external;
//! - `accessors`: accessors past their view, of the wrong type or count,
//!   sparse, and indices beyond the vertices or the skin;
//! - `animations`: empty, NaN, non-increasing, single-key and absurdly long
//!   animations, bad samplers, skins and node transforms;
//! - `nodes`: node cycles, and a model with no skin and no animation;
//! - `files`: files that are not glTF, truncated or corrupt GLBs, and error
//!   chains that print each cause once;
//! - `sweeps`: every truncated prefix, every corrupt binary byte and every
//!   replaced JSON value fails cleanly.
//!
//! This file holds the base document, the import helpers and the hand
//! comparison they share.

use glam::Vec3;
use serde_json::Value;
use throng_bake::reference::SkinnedPrimitive;
use throng_bake::{BakeOptions, Imported, bake, import_slice};
use throng_tests::expect_refusal;
use throng_tests::gltf_builder::{GltfBuilder, gltf_bytes, skinned_triangle};

mod accessors;
mod animations;
mod buffers;
mod files;
mod nodes;
mod sweeps;

/// Largest distance between a hand-computed and an evaluated position, in
/// model units (the static model is about 4 units big: f32 rounding only).
const HAND_TOLERANCE: f32 = 1e-5;

/// A valid skinned, animated triangle: node 0 "joint" (animated), node 1
/// "skinned" (mesh 0, skin 0). Accessors: 0 POSITION, 1 JOINTS_0,
/// 2 WEIGHTS_0, 3 indices, 4 inverse binds, 5 key times, 6 key values; each
/// has its own buffer view with the same index.
fn base_builder() -> GltfBuilder {
    base_builder_with(&[0, 1, 2], [[0, 0, 0, 0]; 3], [[1.0, 0.0, 0.0, 0.0]; 3])
}

fn base_builder_with(
    indices: &[u32],
    joints: [[u16; 4]; 3],
    weights: [[f32; 4]; 3],
) -> GltfBuilder {
    skinned_triangle(indices, joints, weights)
}

/// Accessor indices of [`base_builder`].
const POSITION: usize = 0;
const JOINTS: usize = 1;
const INDICES: usize = 3;
const KEY_TIMES: usize = 5;

/// The base document after `edit`, as `.gltf` bytes.
fn edited(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut doc = base_builder().to_json();
    edit(&mut doc);
    gltf_bytes(&doc)
}

/// Imports bytes that must be rejected; prints and returns the message.
fn import_err(case: &str, bytes: &[u8]) -> String {
    expect_refusal(case, import_slice(bytes, None, case))
}

/// Imports bytes that must be accepted, and bakes them.
fn import_and_bake(case: &str, bytes: &[u8]) -> Imported {
    let imported = import_slice(bytes, None, case).unwrap_or_else(|e| panic!("{case}: {e}"));
    bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("{case}: bake: {e}"));
    println!("{case}: warnings {:?}", imported.warnings);
    imported
}

#[test]
fn the_base_file_is_valid() {
    let imported = import_and_bake("base", &base_builder().to_gltf());
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    import_and_bake("base.glb", &base_builder().to_glb());
}

/// Compares positions with [`HAND_TOLERANCE`], printing the worst vertex.
fn assert_hand(what: &str, expected: &[[[f32; 3]; 3]], found: &[SkinnedPrimitive]) {
    assert_eq!(found.len(), expected.len(), "{what}: primitive count");
    let mut worst = (0.0f32, 0, 0, Vec3::ZERO, Vec3::ZERO);
    for (p, (e, f)) in expected.iter().zip(found).enumerate() {
        assert_eq!(f.positions.len(), 3, "{what}: vertex count");
        for (v, (a, b)) in e.iter().zip(&f.positions).enumerate() {
            let a = Vec3::from_array(*a);
            let d = (a - *b).length();
            if d.is_nan() || d > worst.0 {
                worst = (d, p, v, a, *b);
            }
        }
    }
    let (d, p, v, a, b) = worst;
    let msg = format!(
        "{what}: worst vertex {v} of primitive {p} (node {}): expected {a}, found {b}, off by {d:.3e}",
        found[p].node
    );
    println!("{msg}");
    assert!(d <= HAND_TOLERANCE, "{msg}");
}
