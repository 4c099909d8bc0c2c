// Instance records for the unbounded path: every record of the frame in one
// storage buffer; a draw's first_instance selects its group, so
// `instance_index` indexes the buffer directly.

// #import skinning

@group(3) @binding(0) var<storage, read> all_records: array<InstanceRecord>;

fn instance_record(i: u32) -> InstanceRecord {
    return all_records[min(i, arrayLength(&all_records) - 1u)];
}
