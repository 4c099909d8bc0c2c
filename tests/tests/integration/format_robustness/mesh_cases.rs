//! Cases of the meshes: LODS (ranges that tile VERT, INDX and SUBM in
//! order, a submesh each, finite screen sizes), the vertices and indices
//! (bones in the palette, finite non-negative values, indices inside their
//! submesh) and SUBM (flags, ranges inside their LOD, whole triangles,
//! materials that exist).

use std::mem::offset_of;

use throng_core::format::{LodRecord, SectionEntry, SubmeshRecord, tags};
use throng_core::model::BakedVertex;

use super::fixture::{Fixture, put};
use super::table::Expect::*;
use super::table::{Case, case};

const LENGTH: usize = offset_of!(SectionEntry, length);

/// Field `field` of LOD `i`.
fn lod(f: &Fixture, i: usize, field: usize) -> usize {
    f.rec::<LodRecord>(tags::LODS, i, field)
}

/// Field `field` of vertex `i` of VERT (LOD 1's start at 160).
fn vert(f: &Fixture, i: usize, field: usize) -> usize {
    f.rec::<BakedVertex>(tags::VERTICES, i, field)
}

/// Index `i` of INDX (LOD 1's start at 564).
fn indx(f: &Fixture, i: usize) -> usize {
    f.section(tags::INDICES) + 4 * i
}

/// Field `field` of submesh `i`.
fn subm(f: &Fixture, i: usize, field: usize) -> usize {
    f.rec::<SubmeshRecord>(tags::SUBMESHES, i, field)
}

/// LODS.
#[rustfmt::skip]
pub static LODS: &[Case] = &[
    case("LOD vertex range past VERT", Corrupt, &["LOD 1 vertex range 160+161 exceeds the 320 available"], |f, b| put(b, lod(f, 1, offset_of!(LodRecord, vertex_count)), 161u32)),
    case("LOD index range past INDX", Corrupt, &["LOD 1 index range 564+567 exceeds the 1128 available"], |f, b| put(b, lod(f, 1, offset_of!(LodRecord, index_count)), 567u32)),
    case("LOD submesh range past SUBM", Corrupt, &["LOD 1 submesh range 1+5 exceeds the 2 available"], |f, b| put(b, lod(f, 1, offset_of!(LodRecord, submesh_count)), 5u32)),
    case("LOD ranges overlapping the previous LOD", Corrupt, &["LOD 1 starts at vertex 0", "expected 160, 564, 1"], |f, b| put(b, lod(f, 1, offset_of!(LodRecord, first_vertex)), 0u32)),
    case("LOD ranges with a gap", Corrupt, &["LOD 0 starts at vertex 0, index 3, submesh 0"], |f, b| put(b, lod(f, 0, offset_of!(LodRecord, first_index)), 3u32)),
    case("LOD without submesh", Invalid, &["LOD 1: no submesh"], |f, b| put(b, lod(f, 1, offset_of!(LodRecord, submesh_count)), 0u32)),
    case("no LOD", Invalid, &["no LOD"], |f, b| { put(b, f.entry_field(tags::LODS, LENGTH), 0u64) }),
    case("LOD screen size NaN", Invalid, &["LOD 0: screen size not finite"], |f, b| put(b, lod(f, 0, offset_of!(LodRecord, screen_size)), f32::NAN)),
    case("LOD reserved field not zero", Corrupt, &["LOD 0", "reserved"], |f, b| put(b, lod(f, 0, offset_of!(LodRecord, reserved)), 1u32)),
];

/// VERT and INDX.
#[rustfmt::skip]
pub static VERTICES: &[Case] = &[
    case("vertex bone index = bone count", Invalid, &["LOD 0: vertex 0 uses bone 2, the palette has 2"], |f, b| put(b, vert(f, 0, offset_of!(BakedVertex, joints)), 2u16)),
    case("vertex bone index u16::MAX (unused influence)", Invalid, &["LOD 1: vertex 5 uses bone 65535"], |f, b| { put(b, vert(f, 165, offset_of!(BakedVertex, joints) + 6), u16::MAX) }),
    case("vertex position NaN", Invalid, &["LOD 0: vertex 7 has a non-finite or negative value"], |f, b| { put(b, vert(f, 7, offset_of!(BakedVertex, position) + 4), f32::NAN) }),
    case("vertex weight negative", Invalid, &["LOD 0: vertex 9 has a non-finite or negative value"], |f, b| put(b, vert(f, 9, offset_of!(BakedVertex, weights) + 8), -0.5f32)),
    case("submesh index = its vertex count", Invalid, &["LOD 0: submesh 0 index 160 is beyond its 160 vertices"], |f, b| put(b, indx(f, 0), 160u32)),
    case("submesh index u32::MAX", Invalid, &["LOD 1: submesh 0 index 4294967295 is beyond"], |f, b| put(b, indx(f, 1127), u32::MAX)),
];

/// SUBM.
#[rustfmt::skip]
pub static SUBMESHES: &[Case] = &[
    case("submesh unknown flag", Corrupt, &["submesh 0", "unknown flags"], |f, b| put(b, subm(f, 0, offset_of!(SubmeshRecord, flags)), 0x80u32)),
    case("submesh reserved field not zero", Corrupt, &["submesh 0", "reserved"], |f, b| put(b, subm(f, 0, offset_of!(SubmeshRecord, reserved)), 7u32)),
    case("submesh vertex range past its LOD", Invalid, &["LOD 0: submesh 0 spans vertices ..161 of 160"], |f, b| { put(b, subm(f, 0, offset_of!(SubmeshRecord, vertex_count)), 161u32) }),
    case("submesh base vertex past its LOD", Invalid, &["LOD 1: submesh 0 spans vertices ..4294967455 of 160"], |f, b| { put(b, subm(f, 1, offset_of!(SubmeshRecord, base_vertex)), u32::MAX) }),
    case("submesh index range past its LOD", Invalid, &["LOD 0: submesh 0", "indices ..567 of 564"], |f, b| put(b, subm(f, 0, offset_of!(SubmeshRecord, first_index)), 3u32)),
    case("submesh index count not triangles", Invalid, &["LOD 0: submesh 0 has 563 indices, not triangles"], |f, b| { put(b, subm(f, 0, offset_of!(SubmeshRecord, index_count)), 563u32) }),
    case("submesh material out of range", Invalid, &["LOD 1: submesh 0 uses material 1 (there are 1)"], |f, b| put(b, subm(f, 1, offset_of!(SubmeshRecord, material)), 1u32)),
];
