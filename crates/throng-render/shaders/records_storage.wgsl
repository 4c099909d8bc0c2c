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
// matrix, and its layered morph weights follow its bones' matrices,
// PALETTE_WEIGHTS_PER_MATRIX to a matrix. false: skin from the bone
// texture (skinning.wgsl).
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

// Morph weight `slot` of the layered palette at `palette`: after its bones'
// matrices, PALETTE_WEIGHTS_PER_MATRIX to a matrix (palette.wgsl).
fn palette_weight(palette: u32, slot: u32) -> f32 {
    let r = palettes[min(palette + model.bone_count + slot / PALETTE_WEIGHTS_PER_MATRIX, arrayLength(&palettes) - 1u)];
    let k = slot % PALETTE_WEIGHTS_PER_MATRIX;
    let row = select(select(r.r2, r.r1, k < 8u), r.r0, k < 4u);
    return row[k % 4u];
}

// morph() (skinning.wgsl) with the weights of the layered palette at
// `palette` instead of the record's frames.
fn palette_morph(v: SkinInput, palette: u32) -> SkinInput {
    let range = morph_range(v);
    var out = v;
    for (var k = 0u; k < range.y; k++) {
        let at = model.morph_delta_base + (range.x + k) * MORPH_DELTA_TEXELS;
        let dp = morph_texel(at);
        let w = palette_weight(palette, u32(dp.w));
        out.position += dp.xyz * w;
        out.normal += morph_texel(at + 1u).xyz * w;
    }
    return out;
}

// Skins a vertex for its record: 4 ready matrices from the palette, or the
// bone texture's frames and cross-fade.
fn skin_record(input: SkinInput, rec: InstanceRecord) -> Skinned {
    if (!PALETTES) {
        return skin(input, rec);
    }
    let last = arrayLength(&palettes) - 1u;
    let v = palette_morph(input, rec.frame0);
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
