// Instance records for the packaged path: one package of at most
// PACKAGE_WIDTH records in a uniform buffer, bound with a dynamic offset per
// draw. `instance_index` counts from 0 within the package.

// #import prelude
// #import skinning

struct Package {
    records: array<InstanceRecord, PACKAGE_WIDTH>,
}

@group(3) @binding(0) var<uniform> records_package: Package;

fn instance_record(i: u32) -> InstanceRecord {
    return records_package.records[min(i, PACKAGE_WIDTH - 1u)];
}

// The draw stages' record: by instance index from the bound package (the
// storage paths read theirs as instance-rate vertex attributes instead).
struct RecordIn {
    @builtin(instance_index) instance: u32,
}

fn record_in(r: RecordIn) -> InstanceRecord {
    return instance_record(r.instance);
}

// Skins a vertex for its record: the packaged (downlevel) path has no
// palette pre-pass, so always from the bone texture (a cross-fade of two
// clips per vertex; animation layers show their base pose).
fn skin_record(v: SkinInput, rec: InstanceRecord) -> Skinned {
    return skin(v, rec);
}

// The packaged path has no pose cache (no storage buffers in the vertex
// stage): its pipelines never use the cached entry points, which call this.
// It exists so that draw.wgsl composes on every record path; it returns a
// degenerate pose, never drawn.
fn record_pose(vertex: u32, rec: InstanceRecord) -> Skinned {
    return Skinned(vec3<f32>(0.0), vec3<f32>(0.0, 1.0, 0.0), vec4<f32>(0.0));
}
