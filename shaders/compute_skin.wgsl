// Compute readback of skinned vertices: the same skin() and the same world
// transform as the draw stage, for N instance records of one model, written
// to a storage buffer so tests and `throng sample --source gpu` can compare
// with the CPU reference (records with an identity transform give model
// space).
//
// Vertices are read as raw words of throng_core::model::BakedVertex
// (VERTEX_WORDS u32 each): position 0..3, normal 3..6, uv 6..8,
// joints 8..10 (two u16 per word, little-endian), weights 10..14.

struct ComputeParams {
    first_vertex: u32,
    vertex_count: u32,
    instance_count: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> vertex_words: array<u32>;
@group(0) @binding(1) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> params: ComputeParams;
@group(3) @binding(0) var<storage, read> records: array<InstanceRecord>;

fn word_f32(i: u32) -> f32 {
    return bitcast<f32>(vertex_words[i]);
}

@compute @workgroup_size(64)
fn skin_vertices(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let instance = id.y;
    if (v >= params.vertex_count || instance >= params.instance_count) {
        return;
    }
    let base = (params.first_vertex + v) * VERTEX_WORDS;
    let j01 = vertex_words[base + 8u];
    let j23 = vertex_words[base + 9u];
    let input = SkinInput(
        vec3<f32>(word_f32(base), word_f32(base + 1u), word_f32(base + 2u)),
        vec3<f32>(word_f32(base + 3u), word_f32(base + 4u), word_f32(base + 5u)),
        vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u),
        vec4<f32>(word_f32(base + 10u), word_f32(base + 11u), word_f32(base + 12u), word_f32(base + 13u)),
    );
    let rec = records[min(instance, arrayLength(&records) - 1u)];
    let s = skin(input, rec);
    let world = world_from_model(rec);
    let out = (instance * params.vertex_count + v) * 2u;
    skinned[out] = vec4<f32>(transform_point(world, s.position), 1.0);
    skinned[out + 1u] = vec4<f32>(transform_normal(world, s.normal), 0.0);
}
