//! The file every case damages — `khronos_RiggedSimple.glb` baked at a fixed
//! 30 fps, plus one BC7 image used by its material, a second LOD and a tiny
//! impostor with its surface image, so that every section holds records and
//! every index kind can be corrupted — and the byte-level tools the cases
//! use: typed reads and writes, byte offsets of sections, directory entries
//! and record fields, the checksum fix-up, and a load that turns a panic
//! into a message.

use std::mem::{offset_of, size_of};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use bytemuck::Pod;
use throng_bake::images::bake_image;
use throng_bake::scene::SourceImage;
use throng_bake::{BakeOptions, bake_file};
use throng_core::FormatError;
use throng_core::format::{
    Directory, HEADER_SIZE, Header, SECTION_ENTRY_SIZE, read_model, write_model,
};
use throng_core::impostor::{AtlasPlan, ImpostorAtlas};
use throng_core::material::{ImageContent, TextureRef, TextureSlot};
use throng_core::model::BakedModel;
use throng_core::texture_codec::TextureCodec;
use throng_tests::{asset, crc32_ieee};

/// Recomputes the header checksum after a test has edited the file, so the
/// edit reaches the structural checks behind the CRC.
pub fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= HEADER_SIZE {
        let crc = crc32_ieee(&bytes[HEADER_SIZE..]);
        put(bytes, offset_of!(Header, checksum), crc);
    }
}

/// Writes `value` at byte `at`.
pub fn put<T: Pod>(bytes: &mut [u8], at: usize, value: T) {
    bytes[at..at + size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&value));
}

/// Reads a `T` at byte `at`.
pub fn get<T: Pod>(bytes: &[u8], at: usize) -> T {
    bytemuck::pod_read_unaligned(&bytes[at..at + size_of::<T>()])
}

/// The valid model, its bytes and their directory.
pub struct Fixture {
    /// The model as baked and dressed.
    pub model: BakedModel,
    /// Its `.throng` bytes.
    pub bytes: Vec<u8>,
    /// Their section directory.
    pub dir: Directory,
}

impl Fixture {
    /// Byte offset of the directory entry of `tag`.
    pub fn entry(&self, tag: [u8; 4]) -> usize {
        let i = self.dir.entries.iter().position(|e| e.tag == tag).unwrap();
        HEADER_SIZE + i * SECTION_ENTRY_SIZE
    }

    /// Byte offset of the directory entry of `tag`'s field `field` (an
    /// `offset_of!` into `SectionEntry`).
    pub fn entry_field(&self, tag: [u8; 4], field: usize) -> usize {
        self.entry(tag) + field
    }

    /// Byte offset of section `tag`.
    pub fn section(&self, tag: [u8; 4]) -> usize {
        self.dir.entry(tag).unwrap().offset as usize
    }

    /// Length in bytes of section `tag`.
    pub fn section_len(&self, tag: [u8; 4]) -> u64 {
        self.dir.entry(tag).unwrap().length
    }

    /// Byte offset of field `field` (an `offset_of!`) of record `index` of `T`s in `tag`.
    pub fn rec<T>(&self, tag: [u8; 4], index: usize, field: usize) -> usize {
        let e = self.dir.entry(tag).unwrap();
        assert_eq!(e.record_size as usize, size_of::<T>());
        assert!(
            (index + 1) * size_of::<T>() <= e.length as usize,
            "no record {index}"
        );
        e.offset as usize + index * size_of::<T>() + field
    }

    /// The file's length in bytes.
    pub fn file_size(&self) -> usize {
        self.bytes.len()
    }
}

/// The fixture, baked once per test binary.
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let name = "khronos_RiggedSimple.glb";
        // At a fixed 30 fps, so the texture keeps the size the cases rely on.
        let fixed = BakeOptions {
            max_fps: throng_core::limits::DEFAULT_FPS,
            ..BakeOptions::default()
        };
        let (mut model, _) =
            bake_file(&asset(name), &fixed, &|_, _| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
        // An 8 × 4 BC7 image: levels of 2, 1, 1 and 1 blocks, 80 bytes.
        let checker = SourceImage {
            name: "checker.png".into(),
            width: 8,
            height: 4,
            rgba: (0..128).map(|i| (i * 37) as u8).collect(),
        };
        model.images.push(bake_image(
            &checker,
            ImageContent::Colour,
            TextureCodec::Bc7,
        ));
        model.materials[0].textures[TextureSlot::BaseColor as usize] = Some(TextureRef::new(0));
        let mut lod1 = model.lods[0].clone();
        model.lods[0].screen_size = 0.25; // sizes never increase from LOD to LOD
        lod1.screen_size = 0.0;
        model.lods.push(lod1);
        // A tiny impostor: 2 × 2 views, 1 frame, 4² texels, one 8² layer,
        // with the surface image (three images of 256 bytes).
        let plan = AtlasPlan::layout(2, 1, 4, 1).with_surface(true);
        let image = ImpostorAtlas::image_bytes(&plan) as usize;
        model.impostor = Some(ImpostorAtlas {
            plan,
            screen_size: 0.05,
            spheres: vec![[0.0, 0.5, 0.0, 1.5]],
            colour: (0..image).map(|i| i as u8).collect(),
            normal: (0..image).map(|i| (i * 7) as u8).collect(),
            surface: (0..image).map(|i| (i * 3) as u8).collect(),
        });
        let bytes = write_model(&model).unwrap();
        let dir = Directory::parse(&bytes).unwrap();
        assert!(read_model(&bytes).unwrap() == model);
        // The cases rely on these.
        assert_eq!(model.bones.len(), 2);
        assert_eq!(model.clips.len(), 1);
        assert_eq!(model.lods[0].vertices.len(), 160);
        assert_eq!(model.lods[0].indices.len(), 564);
        assert_eq!(model.lods[0].submeshes.len(), 1);
        assert_eq!(model.texture.width, 20);
        assert_eq!((plan.layer_size, plan.layers), (8, 1));
        Fixture { model, bytes, dir }
    })
}

/// The name of an error's kind, for the printed tables.
pub fn kind(e: &FormatError) -> &'static str {
    match e {
        FormatError::Io { .. } => "Io",
        FormatError::BadMagic { .. } => "BadMagic",
        FormatError::UnsupportedVersion { .. } => "UnsupportedVersion",
        FormatError::Truncated { .. } => "Truncated",
        FormatError::Checksum { .. } => "Checksum",
        FormatError::Corrupt(_) => "Corrupt",
        FormatError::Invalid(_) => "Invalid",
        FormatError::Input(_) => "Input",
        FormatError::Write(_) => "Write",
        FormatError::FramesElsewhere { .. } => "FramesElsewhere",
    }
}

/// Loads `bytes`, turning a panic into a message.
pub fn load(bytes: &[u8]) -> Result<Result<BakedModel, FormatError>, String> {
    catch_unwind(AssertUnwindSafe(|| read_model(bytes))).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}
