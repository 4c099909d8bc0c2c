// Compute readback of skinned vertices: the same skin() and the same world
// transform as the draw stage, for N instance records of one model, written
// to a storage buffer so tests and `throng sample --source gpu` can compare
// with the CPU reference (records with an identity transform give model
// space).
//
// Vertices come from vertex_words.wgsl (the LOD's vertex buffer as raw
// words).

// #import prelude
// #import skinning
// #import vertex_words

struct ComputeParams {
    first_vertex: u32,
    vertex_count: u32,
    instance_count: u32,
    _pad: u32,
}

@group(0) @binding(1) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> params: ComputeParams;
@group(3) @binding(0) var<storage, read> records: array<InstanceRecord>;

@compute @workgroup_size(WORKGROUP)
fn skin_vertices(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let instance = id.y;
    if (v >= params.vertex_count || instance >= params.instance_count) {
        return;
    }
    let input = read_vertex(params.first_vertex + v);
    let rec = records[min(instance, arrayLength(&records) - 1u)];
    let s = skin(input, rec);
    let world = world_from_model(rec);
    let out = (instance * params.vertex_count + v) * 2u;
    // The output holds vertex_count × instance_count pairs (crate::compute
    // sizes it); a product that wraps writes nothing.
    if (out + 1u >= arrayLength(&skinned)) {
        return;
    }
    skinned[out] = vec4<f32>(transform_point(world, s.position), 1.0);
    skinned[out + 1u] = vec4<f32>(transform_normal(world, s.normal), 0.0);
}
