// Compute readback of skinned vertices: the same skin() and the same world
// transform as the draw stage, for N instance records of one model, written
// to a storage buffer so tests and `throng sample --source gpu` can compare
// with the CPU reference (records with an identity transform give model
// space).
//
// Vertices are read as raw words of throng_core::model::BakedVertex
// (VERTEX_WORDS u32 each); the prelude gives each field's first word
// (VERTEX_POSITION_WORD, ...), generated from the Rust layout. Joints are
// two u16 per word, little-endian.

// #import prelude
// #import skinning

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
    let p = base + VERTEX_POSITION_WORD;
    let n = base + VERTEX_NORMAL_WORD;
    let w = base + VERTEX_WEIGHTS_WORD;
    let j01 = vertex_words[base + VERTEX_JOINTS_WORD];
    let j23 = vertex_words[base + VERTEX_JOINTS_WORD + 1u];
    let input = SkinInput(
        vec3<f32>(word_f32(p), word_f32(p + 1u), word_f32(p + 2u)),
        vec3<f32>(word_f32(n), word_f32(n + 1u), word_f32(n + 2u)),
        vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u),
        vec4<f32>(word_f32(w), word_f32(w + 1u), word_f32(w + 2u), word_f32(w + 3u)),
    );
    let rec = records[min(instance, arrayLength(&records) - 1u)];
    let s = skin(input, rec);
    let world = world_from_model(rec);
    let out = (instance * params.vertex_count + v) * 2u;
    skinned[out] = vec4<f32>(transform_point(world, s.position), 1.0);
    skinned[out + 1u] = vec4<f32>(transform_normal(world, s.normal), 0.0);
}
