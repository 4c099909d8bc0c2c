// Instance records for the storage paths (unbounded and GPU-driven): every
// record of the frame in one storage buffer; a draw's first_instance
// selects its group, so `instance_index` indexes the buffer directly. Also
// the palettes the palette pre-pass wrote (palette.wgsl), which records of
// instances with animation layers point into, and the pose cache
// (pose_cache.wgsl) that records of cached (model, LOD)s read instead of
// skinning.

// #import skinning
// #import pose_cache

@group(3) @binding(0) var<storage, read> all_records: array<InstanceRecord>;
@group(3) @binding(5) var<storage, read> palettes: array<Rows>;

// true: every record this pipeline draws has a ready palette (animation
// layers, evaluated by the pre-pass); its `frame0` is the palette's first
// matrix. false: skin from the bone texture (skinning.wgsl).
override PALETTES: bool = false;

// true: every record this pipeline draws is of a (model, LOD) whose poses
// are cached (group 1 binds its cache): positions and normals come from the
// cache, interpolated and cross-faded like matrices. Never set together
// with PALETTES (animation layers are not a blend of baked poses).
override POSE_CACHE: bool = false;

fn instance_record(i: u32) -> InstanceRecord {
    return all_records[min(i, arrayLength(&all_records) - 1u)];
}

// Skins vertex `vertex` (`v`) of the LOD for its record: two (or, fading,
// four) cached poses; 4 ready matrices from the palette; or the bone
// texture's frames and cross-fade.
fn skin_record(v: SkinInput, vertex: u32, rec: InstanceRecord) -> Skinned {
    if (POSE_CACHE) {
        return cached_skin(vertex, rec);
    }
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
    return Skinned(transform_point(m, v.position), transform_normal(m, v.normal));
}
