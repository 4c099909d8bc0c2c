// Instance records for the storage paths (unbounded and GPU-driven): every
// record of the frame in one buffer, which the draw stages read as
// instance-rate vertex attributes (RecordIn below); a draw's first_instance
// selects its group. (The records group still binds the same buffer as
// storage at binding 0, which no draw stage reads any more.) Also
// the palettes the palette pre-pass wrote (palette.wgsl), which records of
// instances with animation layers point into, and the pose cache
// (pose_cache.wgsl) that the cached entry points read instead of skinning.

// #import skinning
// #import pose_cache

@group(3) @binding(5) var<storage, read> palettes: array<Rows>;

// true: every record this pipeline draws has a ready palette (animation
// layers, evaluated by the pre-pass); its `frame0` is the palette's first
// matrix. false: skin from the bone texture (skinning.wgsl).
override PALETTES: bool = false;

// The draw stages' record: the records buffer bound again as vertex buffer
// RECORDS_SLOT, stepped per instance (throng_render::pipeline::
// RECORD_ATTRIBUTES, locations 8 to 13), so the vertex fetch reads it once
// per instance instead of every vertex loading 96 bytes from storage (on
// lavapipe that load was a third of the GPU-driven path's vertex stage).
// A draw's first_instance selects its group, as for the storage read.
struct RecordIn {
    @location(8) row0: vec4<f32>,
    @location(9) row1: vec4<f32>,
    @location(10) row2: vec4<f32>,
    // frame0, frame1, t's bits, prev0.
    @location(11) words0: vec4<u32>,
    // prev1, prev_t's bits, fade's bits, tint.
    @location(12) words1: vec4<u32>,
    // The look (variant, hidden).
    @location(13) look: vec2<u32>,
}

fn record_in(r: RecordIn) -> InstanceRecord {
    return InstanceRecord(
        r.row0,
        r.row1,
        r.row2,
        r.words0.x,
        r.words0.y,
        bitcast<f32>(r.words0.z),
        r.words0.w,
        r.words1.x,
        bitcast<f32>(r.words1.y),
        bitcast<f32>(r.words1.z),
        r.words1.w,
        r.look,
        vec2<u32>(0u),
    );
}

// The pose of vertex `vertex` of the LOD for its record, from the pose
// cache group 1 binds (pose_cache.wgsl): what the cached entry points
// (draw.wgsl's vs_cached, shadow_cast.wgsl's vs_shadow_cached) draw.
fn record_pose(vertex: u32, rec: InstanceRecord) -> Skinned {
    return cached_skin(vertex, rec);
}

// Skins a vertex for its record: 4 ready matrices from the palette, or the
// bone texture's frames and cross-fade.
fn skin_record(v: SkinInput, rec: InstanceRecord) -> Skinned {
    if (!PALETTES) {
        return skin(v, rec);
    }
    let last = arrayLength(&palettes) - 1u;
    var m = Rows(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < MAX_INFLUENCES; k++) {
        let w = v.weights[k];
        if (w != 0.0) {
            let b = palettes[min(rec.frame0 + min(v.joints[k], model.bone_count - 1u), last)];
            m.r0 += b.r0 * w;
            m.r1 += b.r1 * w;
            m.r2 += b.r2 * w;
        }
    }
    return Skinned(transform_point(m, v.position), transform_normal(m, v.normal), transform_tangent(m, v.tangent));
}
