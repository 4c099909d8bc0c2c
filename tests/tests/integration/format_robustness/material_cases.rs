//! Cases of the surfaces: MATL (images that exist, factors in range,
//! finite transforms, known wrap and alpha modes and flags), IMGS and IMGD
//! (bytes in order inside the image data, known codecs and contents, sizes
//! in range, whole mip chains, whole blocks), and the impostor's IMPO, IMPS
//! and IMPD (images as large as the plan says, a valid plan, spheres).

use std::mem::{offset_of, size_of};

use throng_core::format::{
    ImageRecord, ImpostorRecord, MaterialRecord, SectionEntry, StrRef, TextureSlotRecord, tags,
};
use throng_core::material::TextureSlot;

use super::fixture::{Fixture, put};
use super::table::Expect::*;
use super::table::{Case, case};

const LENGTH: usize = offset_of!(SectionEntry, length);

/// Field `field` of material 0.
fn matl(f: &Fixture, field: usize) -> usize {
    f.rec::<MaterialRecord>(tags::MATERIALS, 0, field)
}

/// Field `field` of texture slot `slot` of material 0.
fn slot(f: &Fixture, slot: TextureSlot, field: usize) -> usize {
    matl(f, offset_of!(MaterialRecord, textures))
        + slot as usize * size_of::<TextureSlotRecord>()
        + field
}

/// Field `field` of image 0.
fn imgs(f: &Fixture, field: usize) -> usize {
    f.rec::<ImageRecord>(tags::IMAGES, 0, field)
}

/// Field `field` of the impostor record.
fn impo(f: &Fixture, field: usize) -> usize {
    f.rec::<ImpostorRecord>(tags::IMPOSTOR, 0, field)
}

/// MATL.
#[rustfmt::skip]
pub static MATERIALS: &[Case] = &[
    case("material image index out of range", Invalid, &["material 0 (Material_001-effect): its baseColorTexture uses image 1 (there are 1)"], |f, b| { let at = slot(f, TextureSlot::BaseColor, offset_of!(TextureSlotRecord, image)); put(b, at, 1u32) }),
    case("normal texture names an image past the last", Invalid, &["material 0 (Material_001-effect): its normalTexture uses image 7 (there are 1)"], |f, b| { put(b, slot(f, TextureSlot::Normal, offset_of!(TextureSlotRecord, image)), 7u32) }),
    case("roughness 2", Invalid, &[ "material 0 (Material_001-effect): metallic 0, roughness 2 and occlusion strength 1 must be within 0..=1", ], |f, b| { put(b, matl(f, offset_of!(MaterialRecord, roughness_factor)), 2.0f32) }),
    case("emissive texture transform NaN", Invalid, &["material 0 (Material_001-effect): its emissiveTexture transform is not finite"], |f, b| { let image = offset_of!(TextureSlotRecord, image); put(b, slot(f, TextureSlot::Emissive, image), 0u32); let rotation = offset_of!(TextureSlotRecord, rotation); put(b, slot(f, TextureSlot::Emissive, rotation), f32::NAN) }),
    case("texture wrap bits past v", Corrupt, &["material 0's baseColorTexture has unknown wrap bits 0x10000"], |f, b| { let wrap = offset_of!(TextureSlotRecord, wrap); put(b, slot(f, TextureSlot::BaseColor, wrap), 0x10000u32) }),
    case("material alpha mode 3", Corrupt, &["material 0 has unknown alpha mode 3"], |f, b| put(b, matl(f, offset_of!(MaterialRecord, alpha_mode)), 3u32)),
    case("material wrap mode 3", Corrupt, &["material 0's baseColorTexture has unknown wrap mode 3"], |f, b| { let wrap = offset_of!(TextureSlotRecord, wrap); put(b, slot(f, TextureSlot::BaseColor, wrap), 3u32 << 8) }),
    case("material flags 2", Corrupt, &["material 0 has unknown flags 0x2"], |f, b| put(b, matl(f, offset_of!(MaterialRecord, flags)), 2u32)),
    case("material colour NaN", Invalid, &["material 0 (Material_001-effect): a factor is not finite"], |f, b| { let alpha = offset_of!(MaterialRecord, base_color_factor) + 12; put(b, matl(f, alpha), f32::NAN) }),
    case("no materials but a submesh uses one", Invalid, &["submesh 0 uses material 0 (there are 0)"], |f, b| put(b, f.entry_field(tags::MATERIALS, LENGTH), 0u64)),
];

/// IMGS and IMGD.
#[rustfmt::skip]
pub static IMAGES: &[Case] = &[
    case("image bytes past IMGD", Corrupt, &["image 0 bytes 0+81 exceed the 80-byte image data"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, data_len)), 81u64)),
    case("image length u64::MAX", Corrupt, &["image 0 bytes 0+18446744073709551615 exceed"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, data_len)), u64::MAX)),
    case("image bytes not where the previous ended", Corrupt, &["image 0 bytes start at 1", "expected 0"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, data_offset)), 1u64)),
    case("image name outside the string table", Corrupt, &["image 0 name: string"], |f, b| { let outside = StrRef { offset: u32::MAX, len: u32::MAX, }; put(b, imgs(f, offset_of!(ImageRecord, name)), outside) }),
    case("image codec unknown", Corrupt, &["image 0 (checker.png): unknown codec 9"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, codec)), 9u32)),
    case("image content unknown", Corrupt, &["image 0 (checker.png): unknown content 3"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, content)), 3u32)),
    case("image of width 0", Corrupt, &["image 0 (checker.png): 0×4 is outside 1..=8192 texels a side"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, width)), 0u32)),
    case("image of width u32::MAX", Corrupt, &["4294967295×4 is outside 1..=8192"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, width)), u32::MAX)),
    case("image missing a mip level", Corrupt, &["image 0 (checker.png): 3 mip levels; a 8×4 image has 4"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, levels)), 3u32)),
    case("image levels u32::MAX", Corrupt, &["4294967295 mip levels; a 8×4 image has 4"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, levels)), u32::MAX)),
    case("image chain longer than its bytes", Corrupt, &["image 0 (checker.png): its mip chain needs more than its 80 bytes"], |f, b| put(b, imgs(f, offset_of!(ImageRecord, width)), 12u32)),
    case(
        "image chain shorter than its bytes",
        Corrupt,
        &["image 0 (checker.png): its mip chain is 60 bytes, not the 80 it declares"],
        |f, b| {
            // 8 × 1 RGBA8: 32 + 16 + 8 + 4 bytes.
            put(b, imgs(f, offset_of!(ImageRecord, codec)), 0u32);
            put(b, imgs(f, offset_of!(ImageRecord, height)), 1u32);
        },
    ),
    case("BC7 image whose sides are not whole blocks", Invalid, &["image 0 (checker.png): 6×4 is not a whole number of 4×4 blocks, which bc7 needs"], |f, b| { put(b, imgs(f, offset_of!(ImageRecord, width)), 6u32); put(b, imgs(f, offset_of!(ImageRecord, levels)), 3u32); put(b, imgs(f, offset_of!(ImageRecord, data_len)), 64u64); }),
    case("no images but a material uses one", Invalid, &["uses image 0 (there are 0)"], |f, b| put(b, f.entry_field(tags::IMAGES, LENGTH), 0u64)),
];

/// IMPO, IMPS and IMPD.
#[rustfmt::skip]
pub static IMPOSTOR: &[Case] = &[
    case("impostor images a record short", Corrupt, &["impostor images hold 764 bytes", "needs 768"], |f, b| put(b, f.entry_field(tags::IMPOSTOR_DATA, LENGTH), 764u64)),
    case("impostor plan of two layers", Corrupt, &["impostor images hold 768 bytes", "needs 1536"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, layers)), 2u32)),
    case("impostor layer of u32::MAX texels", Corrupt, &["impostor images hold 768 bytes"], |f, b| { put(b, impo(f, offset_of!(ImpostorRecord, layer_size)), u32::MAX); put(b, impo(f, offset_of!(ImpostorRecord, layers)), u32::MAX); }),
    case("impostor cell of 0 texels", Invalid, &["impostor plan", "0 texels a cell is out of range"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, cell)), 0u32)),
    case("impostor of 2 clips for 1", Invalid, &["impostor of 2 clips for a model of 1"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, clips)), 2u32)),
    case("impostor layout not its plan's", Invalid, &["is not the layout of its plan"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, views)), 3u32)),
    case("impostor images in an unknown codec", Corrupt, &["impostor images in codec 7"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, codec)), 7u32)),
    case("impostor RGBA8 images read as BC3", Corrupt, &[ "impostor images hold 768 bytes", "3 images in bc3", "needs 192", ], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, codec)), 2u32)),
    case("impostor of 4 images", Corrupt, &["impostor of 4 images, expected 2", "or 3"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, images)), 4u32)),
    case("impostor of 2 images holding 3", Corrupt, &["impostor images hold 768 bytes", "2 images", "needs 512"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, images)), 2u32)),
    case("impostor plan's reserved word set", Corrupt, &["reserved impostor plan fields are not zero"], |f, b| put(b, impo(f, offset_of!(ImpostorRecord, reserved)) + 8, 1u32)),
    case("impostor screen size of infinity", Invalid, &["impostor screen size inf"], |f, b| { let at = impo(f, offset_of!(ImpostorRecord, screen_size)); put(b, at, f32::INFINITY) }),
    case("impostor sphere of radius 0", Invalid, &["impostor sphere of clip 0"], |f, b| put(b, f.section(tags::IMPOSTOR_SPHERES) + 12, 0.0f32)),
    case("impostor sphere of NaN", Invalid, &["impostor sphere of clip 0"], |f, b| put(b, f.section(tags::IMPOSTOR_SPHERES), f32::NAN)),
    case("impostor spheres without a plan", Corrupt, &["without an impostor plan"], |f, b| put(b, f.entry_field(tags::IMPOSTOR, LENGTH), 0u64)),
];
