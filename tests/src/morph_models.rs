//! Models with morph targets for the morph tests (Throng bundles none):
//!
//! * [`morph_bar`]: built with the glTF builder. A skinned strip of 14
//!   vertices on two joints with two sparse targets ("bulge" widens its top,
//!   "lift" pushes its middle forward, both with normal offsets), and a
//!   rigid triangle under a rotated, non-uniformly scaled node with a target
//!   of its own. Clips: "talk" (the tip joint turns while the weights move
//!   linearly), "snap" (the badge's weight steps from 0 to 1 at 0.25 s),
//!   "blink" (cubic-spline weights only) and "hold" (the tip turns, the
//!   weights stay at the mesh's defaults, 0.25 and 0).
//! * [`simple_skin_with_morph`]: the bundled `khronos_SimpleSkin.gltf` with
//!   one target added (its top four vertices move sideways) and a weight
//!   channel on its existing clip's key times, as an exporter would write
//!   them: the bundled model's skinning, animation and file layout, with
//!   morphs on top.
//! * [`morph_waves`]: a skinned strip whose three targets' weights follow
//!   sine waves, for the bake's error bound: "breathe" moves only the
//!   weights (dense LINEAR keys, no bone moves, so only morph displacement
//!   can raise its rate), "talk" moves them faster on CUBICSPLINE keys
//!   while the tip turns, "sway" slower on LINEAR keys at uneven times
//!   while the tip turns back and forth.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::gltf_builder::{Channel, GltfBuilder, Interpolation, Node, Primitive};

/// `bytes` (one of this module's models) imported and baked with the
/// default options, as `throng bake` would without LODs or impostor.
pub fn baked(bytes: &[u8], name: &str) -> throng_core::BakedModel {
    let scene = throng_bake::import_slice(bytes, None, name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .scene;
    throng_bake::bake(&scene, &throng_bake::BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .0
}

/// The builder-made morph model, as `.gltf` bytes.
pub fn morph_bar() -> Vec<u8> {
    morph_bar_builder().to_gltf()
}

/// The skeleton both strips hang on: `root`, and `tip` a unit above it.
fn root_and_tip(b: &mut GltfBuilder) -> (usize, usize) {
    let root = b.node(Node::new("root"));
    let tip = b.node(Node::new("tip").translation([0.0, 1.0, 0.0]));
    b.add_child(root, tip);
    (root, tip)
}

/// A skin `name` of `root` and `tip` as [`root_and_tip`] places them.
fn root_and_tip_skin(b: &mut GltfBuilder, name: &str, (root, tip): (usize, usize)) -> usize {
    b.skin(
        name,
        &[root, tip],
        Some(&[
            glam::Mat4::IDENTITY,
            glam::Mat4::from_translation(glam::Vec3::new(0.0, -1.0, 0.0)),
        ]),
    )
}

/// A strip facing +Z: `rows` rows of two vertices `half_width` either side
/// of x = 0, from y = 0 to y = 2, on joints 0 (root) and 1 (tip), the tip's
/// weight rising from 0 at y = 0.5 to 1 at y = 1.5.
struct Strip {
    positions: Vec<[f32; 3]>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    indices: Vec<u32>,
}

impl Strip {
    fn new(rows: u32, half_width: f32) -> Self {
        let (mut positions, mut joints, mut weights) = (Vec::new(), Vec::new(), Vec::new());
        for r in 0..rows {
            let y = 2.0 * r as f32 / (rows - 1) as f32;
            let w_tip = (y - 0.5).clamp(0.0, 1.0);
            for x in [-half_width, half_width] {
                positions.push([x, y, 0.0]);
                joints.push([0u16, 1, 0, 0]);
                weights.push([1.0 - w_tip, w_tip, 0.0, 0.0]);
            }
        }
        let mut indices = Vec::new();
        for r in 0..rows - 1 {
            let (a, b2, c, d) = (2 * r, 2 * r + 1, 2 * r + 2, 2 * r + 3);
            indices.extend([a, b2, d, a, d, c]);
        }
        Self {
            positions,
            joints,
            weights,
            indices,
        }
    }

    /// A sparse target: `offset(p)` for each position `p` where `moves(p)`,
    /// zero elsewhere.
    fn target(
        &self,
        moves: impl Fn([f32; 3]) -> bool,
        offset: impl Fn([f32; 3]) -> [f32; 3],
    ) -> Vec<[f32; 3]> {
        self.positions
            .iter()
            .map(|&p| if moves(p) { offset(p) } else { [0.0; 3] })
            .collect()
    }

    /// The strip's primitive, normals +Z, skinned; targets to add.
    fn primitive(&self) -> Primitive {
        Primitive::new(&self.positions)
            .normals(&vec![[0.0, 0.0, 1.0]; self.positions.len()])
            .indices(&self.indices)
            .skin_set(&self.joints, &self.weights)
    }
}

/// [`morph_bar`]'s builder, for tests that break it.
pub fn morph_bar_builder() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let (root, tip) = root_and_tip(&mut b);
    // Seven rows of two vertices from y = 0 to y = 2.
    let bar = Strip::new(7, 0.2);
    // "bulge": the top two rows widen; "lift": rows 2..=4 come forward and
    // their normals tilt up. Every other offset is zero (sparse).
    let top = |p: [f32; 3]| p[1] > 1.5;
    let middle = |p: [f32; 3]| (0.6..1.4).contains(&p[1]);
    let bulge = bar.target(top, |p| [p[0] * 1.5, 0.1, 0.0]);
    let bulge_n = bar.target(top, |p| [p[0].signum() * 0.5, 0.0, 0.0]);
    let lift = bar.target(middle, |_| [0.0, 0.0, 0.3]);
    let lift_n = bar.target(middle, |_| [0.0, 0.4, 0.0]);
    let strip = b.mesh(
        "strip",
        vec![
            bar.primitive()
                .target(&bulge, Some(&bulge_n))
                .target(&lift, Some(&lift_n)),
        ],
    );
    b.mesh_weights(strip, &[0.25, 0.0], Some(&["bulge", "lift"]));
    let skin = root_and_tip_skin(&mut b, "bar", (root, tip));
    let body = b.node(Node::new("body").mesh(strip).skin(skin));
    // A rigid badge: rotated, scaled apart per axis, with one target.
    let tri = [[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.0, 0.3, 0.0]];
    let badge_mesh = b.mesh(
        "badge",
        vec![Primitive::new(&tri).normals(&[[0.0, 0.0, 1.0]; 3]).target(
            &[[0.0; 3], [0.2, 0.1, 0.0], [0.0; 3]],
            Some(&[[0.0, 0.3, 0.0]; 3]),
        )],
    );
    let badge = b.node(
        Node::new("badge")
            .translation([0.6, 0.5, 0.1])
            .rotation(glam::Quat::from_rotation_y(0.5).to_array())
            .scale([2.0, 1.0, 0.5])
            .mesh(badge_mesh),
    );
    b.scene(&[root, body, badge]);
    let turn = |deg: f32| glam::Quat::from_rotation_z(deg.to_radians()).to_array();
    b.animation(
        "talk",
        vec![
            Channel::rotation(
                tip,
                Interpolation::Linear,
                &[0.0, 0.5, 1.0],
                &[turn(0.0), turn(35.0), turn(0.0)],
            ),
            Channel::weights(
                body,
                Interpolation::Linear,
                &[0.0, 0.3, 0.7, 1.0],
                &[0.0, 0.0, 1.0, 0.2, 0.1, 1.0, 0.0, 0.0],
            ),
            Channel::weights(badge, Interpolation::Linear, &[0.0, 0.5], &[0.0, 1.0]),
        ],
    );
    // A step: the badge's target snaps on at 0.25 s.
    b.animation(
        "snap",
        vec![Channel::weights(
            badge,
            Interpolation::Step,
            &[0.0, 0.25],
            &[0.0, 1.0],
        )],
    );
    // Cubic spline: (in-tangents, values, out-tangents) per key.
    b.animation(
        "blink",
        vec![Channel::weights(
            body,
            Interpolation::CubicSpline,
            &[0.0, 0.4, 0.8],
            &[
                0.0, 0.0, 0.0, 0.0, 2.0, 0.5, //
                0.0, 0.0, 1.0, 1.0, 0.0, 0.0, //
                -1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ],
        )],
    );
    b.animation(
        "hold",
        vec![Channel::rotation(
            tip,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[turn(-20.0), turn(20.0)],
        )],
    );
    b
}

/// The bundled SimpleSkin with one morph target and a weight channel added
/// (module docs), as `.gltf` bytes.
pub fn simple_skin_with_morph() -> Vec<u8> {
    let path = crate::asset("khronos_SimpleSkin.gltf");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).expect("SimpleSkin"))
        .expect("SimpleSkin is JSON");
    // Its 10 vertices stand in 5 rows of 2 from y = 0 to 2; the top two rows
    // (vertices 6..10) move sideways and forward.
    let offsets: Vec<f32> = (0..10)
        .flat_map(|v| if v >= 6 { [0.4, 0.0, 0.2] } else { [0.0; 3] })
        .collect();
    let key_count = doc["accessors"][5]["count"].as_u64().expect("key count") as usize;
    let weights: Vec<f32> = (0..key_count)
        .map(|k| (k as f32 / (key_count - 1).max(1) as f32 * std::f32::consts::PI).sin())
        .collect();
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&offsets).to_vec();
    let weights_at = bytes.len();
    bytes.extend_from_slice(bytemuck::cast_slice(&weights));
    let buffer = doc["buffers"].as_array().expect("buffers").len();
    doc["buffers"].as_array_mut().unwrap().push(json!({
        "uri": format!(
            "data:application/gltf-buffer;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        ),
        "byteLength": bytes.len(),
    }));
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": buffer, "byteLength": weights_at }));
    views.push(
        json!({ "buffer": buffer, "byteOffset": weights_at, "byteLength": weights.len() * 4 }),
    );
    let (offsets_view, weights_view) = (views.len() - 2, views.len() - 1);
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(json!({
        "bufferView": offsets_view, "componentType": 5126, "count": 10, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [0.4, 0.0, 0.2],
    }));
    accessors.push(json!({
        "bufferView": weights_view, "componentType": 5126, "count": key_count, "type": "SCALAR",
    }));
    let (offsets_acc, weights_acc) = (accessors.len() - 2, accessors.len() - 1);
    doc["meshes"][0]["primitives"][0]["targets"] = json!([{ "POSITION": offsets_acc }]);
    doc["meshes"][0]["extras"] = json!({ "targetNames": ["lean"] });
    let anim = &mut doc["animations"][0];
    let sampler = anim["samplers"].as_array().unwrap().len();
    anim["samplers"].as_array_mut().unwrap().push(json!({
        "input": 5, "interpolation": "LINEAR", "output": weights_acc,
    }));
    anim["channels"].as_array_mut().unwrap().push(json!({
        "sampler": sampler, "target": { "node": 0, "path": "weights" },
    }));
    serde_json::to_vec(&doc).expect("serialise")
}

/// The sine-wave morph model (module docs), as `.gltf` bytes.
pub fn morph_waves() -> Vec<u8> {
    use std::f32::consts::TAU;
    let mut b = GltfBuilder::new();
    let (root, tip) = root_and_tip(&mut b);
    // Nine rows of two vertices from y = 0 to y = 2.
    let waves = Strip::new(9, 0.25);
    // Three targets of comparable size to the strip: the top widens, the
    // middle comes forward, the bottom leans sideways.
    let widen = waves.target(|p| p[1] > 1.2, |p| [p[0] * 2.0, 0.0, 0.0]);
    let forward = waves.target(|p| (0.5..1.5).contains(&p[1]), |_| [0.0, 0.0, 0.6]);
    let lean = waves.target(|p| p[1] < 0.8, |_| [0.5, 0.0, 0.0]);
    let strip = b.mesh(
        "strip",
        vec![
            waves
                .primitive()
                .target(&widen, None)
                .target(&forward, None)
                .target(&lean, None),
        ],
    );
    b.mesh_weights(strip, &[0.0; 3], Some(&["widen", "forward", "lean"]));
    let skin = root_and_tip_skin(&mut b, "strip", (root, tip));
    let body = b.node(Node::new("body").mesh(strip).skin(skin));
    b.scene(&[root, body]);
    // Target t's weight at time x: a sine of `cycles` per second, phased
    // apart per target, between 0 and 1.
    let wave = |cycles: f32, x: f32, t: usize| 0.5 - 0.5 * (TAU * cycles * x + t as f32).cos();
    let turn = |deg: f32| glam::Quat::from_rotation_z(deg.to_radians()).to_array();
    // "breathe": 1.5 s, 61 LINEAR keys (40 a second, off the 30 fps base
    // rate's grid) of a 1.5 Hz wave; the bones never move.
    let times: Vec<f32> = (0..61).map(|k| k as f32 * 1.5 / 60.0).collect();
    let values: Vec<f32> = times
        .iter()
        .flat_map(|&x| (0..3).map(move |t| wave(1.5, x, t)))
        .collect();
    b.animation(
        "breathe",
        vec![Channel::weights(
            body,
            Interpolation::Linear,
            &times,
            &values,
        )],
    );
    // "talk": 1 s, a 3 Hz wave on CUBICSPLINE keys every 1/12 s with the
    // wave's own slopes as tangents (in-tangents, values, out-tangents per
    // key, each three targets wide), while the tip turns.
    let times: Vec<f32> = (0..13).map(|k| k as f32 / 12.0).collect();
    let dt = 1.0 / 12.0;
    let slope = |x: f32, t: usize| 0.5 * TAU * 3.0 * (TAU * 3.0 * x + t as f32).sin() * dt;
    let mut values = Vec::new();
    for &x in &times {
        values.extend((0..3).map(|t| slope(x, t)));
        values.extend((0..3).map(|t| wave(3.0, x, t)));
        values.extend((0..3).map(|t| slope(x, t)));
    }
    b.animation(
        "talk",
        vec![
            Channel::weights(body, Interpolation::CubicSpline, &times, &values),
            Channel::rotation(
                tip,
                Interpolation::Linear,
                &[0.0, 0.5, 1.0],
                &[turn(0.0), turn(25.0), turn(0.0)],
            ),
        ],
    );
    // "sway": 2 s, LINEAR keys of a 0.75 Hz wave at uneven times (a grid no
    // frame count lands on: the curve kinks between frames), while the tip
    // turns back and forth.
    let times: Vec<f32> = (0..40)
        .map(|k| {
            let u = k as f32 / 39.0;
            2.0 * (u + 0.03 * (TAU * 3.0 * u).sin())
        })
        .collect();
    let values: Vec<f32> = times
        .iter()
        .flat_map(|&x| (0..3).map(move |t| wave(0.75, x, t)))
        .collect();
    b.animation(
        "sway",
        vec![
            Channel::weights(body, Interpolation::Linear, &times, &values),
            Channel::rotation(
                tip,
                Interpolation::Linear,
                &[0.0, 1.0, 2.0],
                &[turn(-20.0), turn(20.0), turn(-20.0)],
            ),
        ],
    );
    b.to_gltf()
}
