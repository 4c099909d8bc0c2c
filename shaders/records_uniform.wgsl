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

// Skins a vertex for its record: the packaged (downlevel) path has no
// palette pre-pass and no pose cache, so always from the bone texture (a
// cross-fade of two clips per vertex; animation layers show their base
// pose). `vertex` is unused here.
fn skin_record(v: SkinInput, vertex: u32, rec: InstanceRecord) -> Skinned {
    return skin(v, rec);
}
