// The pose cache's fill: skins every vertex of one LOD at every baked frame
// once, with the draw stage's own skin() (a record at frame f with t = 0,
// no fade), and stores it in pose_cache.wgsl's encoding. One invocation per
// (frame, vertex), linear index f * vertex_count + v, spread over x and y
// workgroups so that large LODs stay within the dispatch limits.

// #import prelude
// #import skinning
// #import vertex_words
// #import pose_cache

@group(0) @binding(1) var<storage, read_write> poses: array<vec4<u32>>;
// The LOD's vertex count and the frames to skin (from frame 0): the cache's
// own parameters.
@group(0) @binding(2) var<uniform> fill: PoseCacheParams;

@compute @workgroup_size(WORKGROUP)
fn fill_poses(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = id.x + id.y * groups.x * WORKGROUP;
    if (i >= fill.vertex_count * fill.frame_count || i >= arrayLength(&poses)) {
        return;
    }
    let frame = i / fill.vertex_count;
    let rec = InstanceRecord(
        vec4<f32>(1.0, 0.0, 0.0, 0.0),
        vec4<f32>(0.0, 1.0, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, 1.0, 0.0),
        frame,
        frame,
        0.0,
        frame,
        frame,
        0.0,
        1.0,
        0u,
        vec2<u32>(0u),
        vec2<u32>(0u),
    );
    poses[i] = encode_pose_vertex(skin(read_vertex(i % fill.vertex_count), rec));
}
