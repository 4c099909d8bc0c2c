//! Cases of the model's own records: MODL (counts, texel format, texture
//! layout, fps, bounds), the string table, BONE (palette and hierarchy),
//! CLIP (frame ranges, durations, flags, errors, bounds), and the texels
//! and frame bounds.

use std::mem::offset_of;

use throng_core::format::{BoneRecord, ClipRecord, ModelRecord, SectionEntry, StrRef, tags};

use super::fixture::{Fixture, get, put};
use super::table::Expect::*;
use super::table::{Case, case};

const LENGTH: usize = offset_of!(SectionEntry, length);

/// Field `field` of the model record.
fn modl(f: &Fixture, field: usize) -> usize {
    f.rec::<ModelRecord>(tags::MODEL, 0, field)
}

/// Field `field` of bone `i`.
fn bone(f: &Fixture, i: usize, field: usize) -> usize {
    f.rec::<BoneRecord>(tags::BONES, i, field)
}

/// Field `field` of clip 0.
fn clip(f: &Fixture, field: usize) -> usize {
    f.rec::<ClipRecord>(tags::CLIPS, 0, field)
}

/// Component `component` of texel `texel` (f32 texels of 16 bytes).
fn texl(f: &Fixture, texel: usize, component: usize) -> usize {
    f.section(tags::TEXELS) + texel * 16 + component * 4
}

/// The string table's length in bytes.
fn strs_len(f: &Fixture) -> u32 {
    f.section_len(tags::STRINGS) as u32
}

/// Sets the model's texture to `width`² × `layers` (the fixture's is 20² × 1,
/// holding 384 texels).
fn texture_layout(f: &Fixture, b: &mut [u8], width: u32, layers: u32) {
    put(b, modl(f, offset_of!(ModelRecord, texture_width)), width);
    put(b, modl(f, offset_of!(ModelRecord, texture_layers)), layers);
}

/// MODL: one record, reserved words zero, a known texel format, a tight
/// texture layout, finite fps, error and bounds, a name in the table.
#[rustfmt::skip]
pub static MODEL: &[Case] = &[
    case("MODL holds no record", Corrupt, &["MODL holds 0 records, expected 1"], |f, b| put(b, f.entry_field(tags::MODEL, LENGTH), 0u64)),
    case("MODL reserved not zero", Corrupt, &["reserved model fields"], |f, b| put(b, modl(f, offset_of!(ModelRecord, reserved) + 8), 1u32)),
    case("unknown texel format code 7", Corrupt, &["unknown texel format code 7"], |f, b| put(b, modl(f, offset_of!(ModelRecord, texel_format)), 7u32)),
    case("texel format f16 with f32 records", Corrupt, &["texel records are 16 bytes", "F16 needs 8"], |f, b| put(b, modl(f, offset_of!(ModelRecord, texel_format)), 1u32)),
    case("texture width 2048 > 1024", Invalid, &["texture layout 2048x2048x1 does not tightly hold 384 texels"], |f, b| texture_layout(f, b, 2048, 1)),
    case("texture width 1025 > 1024", Invalid, &["texture layout 1025x1025x1 does not tightly hold 384 texels"], |f, b| texture_layout(f, b, 1025, 1)),
    case("texture width 0", Invalid, &["texture layout 0x0x1 does not tightly hold 384 texels"], |f, b| texture_layout(f, b, 0, 1)),
    case("texture width 19 (too small)", Invalid, &["texture layout 19x19x1 does not tightly hold 384 texels"], |f, b| texture_layout(f, b, 19, 1)),
    case("texture not tight (a wholly unused layer)", Invalid, &["texture layout 20x20x2 does not tightly hold 384 texels"], |f, b| texture_layout(f, b, 20, 2)),
    case("texture with 0 layers", Invalid, &["texture layout 20x20x0 does not tightly hold 384 texels"], |f, b| texture_layout(f, b, 20, 0)),
    case("fps NaN", Invalid, &["fps NaN is outside"], |f, b| { put(b, modl(f, offset_of!(ModelRecord, fps)), f32::NAN) }),
    case("fps 0", Invalid, &["fps 0 is outside"], |f, b| { put(b, modl(f, offset_of!(ModelRecord, fps)), 0f32) }),
    case("bake error NaN", Invalid, &["bake error"], |f, b| { put(b, modl(f, offset_of!(ModelRecord, bake_error)), f32::NAN) }),
    case("negative bounding radius", Invalid, &["bounding radius"], |f, b| put(b, modl(f, offset_of!(ModelRecord, bounding_radius)), -1f32)),
    case("model bounds min > max", Invalid, &["model bounds"], |f, b| put(b, modl(f, offset_of!(ModelRecord, bounds_min)), 1e30f32)),
    case("model name outside the string table", Corrupt, &["model name", "outside"], |f, b| { put(b, modl(f, offset_of!(ModelRecord, name)), StrRef { offset: strs_len(f) - 5, len: 10, }) }),
];

/// STRS: references inside the table, UTF-8, no shared bytes.
#[rustfmt::skip]
pub static STRINGS: &[Case] = &[
    case("string offset past the table", Corrupt, &["bone 0: string 10000+4 is outside"], |f, b| { put(b, bone(f, 0, offset_of!(BoneRecord, name)), StrRef { offset: 10_000, len: 4, }) }),
    case("string length u32::MAX", Corrupt, &["bone 1: string", "outside"], |f, b| put(b, bone(f, 1, offset_of!(BoneRecord, name) + 4), u32::MAX)),
    case("invalid UTF-8 in a bone name", Corrupt, &["bone 0: string is not UTF-8"], |f, b| { let name: StrRef = get(&f.bytes, bone(f, 0, offset_of!(BoneRecord, name))); b[f.section(tags::STRINGS) + name.offset as usize] = 0xFF }),
    case("strings sharing bytes", Corrupt, &["may not share bytes"], |f, b| { let source: StrRef = get(b, modl(f, offset_of!(ModelRecord, source))); put(b, bone(f, 0, offset_of!(BoneRecord, name)), source); put(b, bone(f, 1, offset_of!(BoneRecord, name)), source); }),
];

/// BONE: a palette, parents in range, no cycle, finite matrices.
#[rustfmt::skip]
pub static BONES: &[Case] = &[
    case("no bones", Invalid, &["palette has 0 bones"], |f, b| { put(b, f.entry_field(tags::BONES, LENGTH), 0u64) }),
    case("bone parent out of range", Invalid, &["bone 1 (Bone.001) has parent 2 (palette has 2)"], |f, b| put(b, bone(f, 1, offset_of!(BoneRecord, parent)), 2u32)),
    case("bone is its own parent", Invalid, &["bone 0 (Bone) has parent 0"], |f, b| put(b, bone(f, 0, offset_of!(BoneRecord, parent)), 0u32)),
    case("bone-parent cycle", Invalid, &["cycle"], |f, b| { put(b, bone(f, 0, offset_of!(BoneRecord, parent)), 1u32) }),
    case("bone matrix infinite", Invalid, &["bone 1 (Bone.001) has a non-finite matrix"], |f, b| { put(b, bone(f, 1, offset_of!(BoneRecord, rest_global) + 20), f32::INFINITY) }),
];

/// CLIP: frames inside the table, durations that agree with the frame
/// count, no unknown flags, finite errors and bounds, a name in the table.
#[rustfmt::skip]
pub static CLIPS: &[Case] = &[
    case("clip frames past the table", Invalid, &["clip 0 (animation0) spans frames 2..65, the table has 64"], |f, b| put(b, clip(f, offset_of!(ClipRecord, first_frame)), 2u32)),
    case("clip first frame u32::MAX", Invalid, &["clip 0 (animation0) spans frames 4294967295.."], |f, b| put(b, clip(f, offset_of!(ClipRecord, first_frame)), u32::MAX)),
    case("clip with 0 frames", Invalid, &["clip 0 (animation0) spans frames 1..1"], |f, b| put(b, clip(f, offset_of!(ClipRecord, frame_count)), 0u32)),
    case("clip duration > 0 with 1 frame", Invalid, &["clip 0 (animation0) has duration 2.08", "with 1 frames"], |f, b| put(b, clip(f, offset_of!(ClipRecord, frame_count)), 1u32)),
    case("clip duration 0 with 63 frames", Invalid, &["has duration 0 with 63 frames"], |f, b| put(b, clip(f, offset_of!(ClipRecord, duration)), 0f32)),
    case("clip duration negative", Invalid, &["has duration -1 with 63 frames"], |f, b| put(b, clip(f, offset_of!(ClipRecord, duration)), -1f32)),
    case("clip duration NaN", Invalid, &["has duration NaN"], |f, b| put(b, clip(f, offset_of!(ClipRecord, duration)), f32::NAN)),
    case("clip flags not zero", Corrupt, &["clip 0 has unknown flags 0x4"], |f, b| put(b, clip(f, offset_of!(ClipRecord, flags)), 4u32)),
    case("clip ground NaN", Invalid, &["clip 0 (animation0): ground NaN"], |f, b| put(b, clip(f, offset_of!(ClipRecord, ground)), f32::NAN)),
    case("clip error at_frames: NaN", Invalid, &["clip 0 (animation0) has errors", "at_frames: NaN"], |f, b| { put(b, clip(f, offset_of!(ClipRecord, error_at_frames)), f32::NAN) }),
    case("clip error between_frames: NaN", Invalid, &["clip 0 (animation0) has errors", "between_frames: NaN"], |f, b| { put(b, clip(f, offset_of!(ClipRecord, error_between_frames)), f32::NAN) }),
    case("clip error max_error: NaN", Invalid, &["clip 0 (animation0) has errors", "max_error: NaN"], |f, b| put(b, clip(f, offset_of!(ClipRecord, max_error)), f32::NAN)),
    case("clip error between frames negative", Invalid, &["clip 0 (animation0) has errors", "between_frames: -1.0"], |f, b| { put(b, clip(f, offset_of!(ClipRecord, error_between_frames)), -1f32) }),
    case("clip bounds min > max", Invalid, &["clip 0 (animation0) has invalid bounds"], |f, b| put(b, clip(f, offset_of!(ClipRecord, bounds_max) + 4), -1e30f32)),
    case("clip name outside the string table", Corrupt, &["clip 0: string"], |f, b| { put(b, clip(f, offset_of!(ClipRecord, name)), StrRef { offset: strs_len(f), len: 1, }) }),
];

/// TEXL and FBND: finite texels, whole frames, a bound per frame.
#[rustfmt::skip]
pub static TEXELS: &[Case] = &[
    case("texel NaN", Invalid, &["texture holds a NaN or infinite value"], |f, b| put(b, texl(f, 200, 2), f32::NAN)),
    case("texel infinite", Invalid, &["texture holds a NaN or infinite value"], |f, b| put(b, texl(f, 383, 3), f32::NEG_INFINITY)),
    case("texel count not whole frames", Invalid, &["381 texels, not a positive multiple of 6"], |f, b| put(b, f.entry_field(tags::TEXELS, LENGTH), 381u64 * 16)),
    case("no texels", Invalid, &["0 texels"], |f, b| { put(b, f.entry_field(tags::TEXELS, LENGTH), 0u64) }),
    case("frame bounds missing a frame", Invalid, &["63 frame bounds for 64 frames"], |f, b| put(b, f.entry_field(tags::FRAME_BOUNDS, LENGTH), 63u64 * 24)),
    case("frame bounds infinite", Invalid, &["bounds of frame 3 are invalid"], |f, b| { put(b, f.section(tags::FRAME_BOUNDS) + 3 * 24 + 16, f32::INFINITY) }),
];
