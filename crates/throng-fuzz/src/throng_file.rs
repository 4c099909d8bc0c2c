//! Target `throng_file`: the `.throng` reader, and what a program does with
//! a model it accepted — a crowd plays every clip, the CPU skins every LOD,
//! the impostor atlas and the images' mip levels decode.
//!
//! Frames files and models referring to them are read too (refused as
//! models: their seeds are `reject_frames*`).
//!
//! The first byte is a switch: if its low bit is set, the header's size and
//! checksum are written to fit the rest, so the fuzzer reaches the
//! sections instead of spending itself on the CRC.

use throng_core::format::{HEADER_SIZE, frames_file, read_frames, read_model, read_provenance};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawList, DrawView, ModelHandle, Spawn};

/// Byte offset of `Header::file_size`.
const FILE_SIZE_AT: usize = 16;
/// Byte offset of `Header::checksum`.
const CHECKSUM_AT: usize = 28;

/// The target's body.
pub fn run(data: &[u8]) -> bool {
    let Some((&mode, file)) = data.split_first() else {
        return false;
    };
    let mut bytes = file.to_vec();
    if mode & 1 == 1 && bytes.len() >= HEADER_SIZE {
        let len = bytes.len() as u64;
        bytes[FILE_SIZE_AT..FILE_SIZE_AT + 8].copy_from_slice(&len.to_le_bytes());
        let crc = crc32fast::hash(&bytes[HEADER_SIZE..]);
        bytes[CHECKSUM_AT..CHECKSUM_AT + 4].copy_from_slice(&crc.to_le_bytes());
    }
    let _ = read_provenance(&bytes);
    // A frames file, or a model referring to one (format/frames.rs).
    let _ = read_frames(&bytes);
    let _ = frames_file(&bytes);
    let Ok(model) = read_model(&bytes) else {
        return false;
    };
    use_model(model, f32::from(mode >> 1) / 8.0)
}

/// Does with an accepted model what the runtime does on the CPU; false if
/// the crowd refuses it.
pub fn use_model(model: throng_core::BakedModel, time: f32) -> bool {
    if let Some(atlas) = &model.impostor {
        let colour = atlas.colour_rgba8();
        let normal = atlas.normal_rgba8();
        assert_eq!(colour.len(), normal.len(), "the atlas's images differ");
        let surface = atlas.surface_rgba8();
        let expected = if atlas.plan.surface { colour.len() } else { 0 };
        assert_eq!(surface.len(), expected, "the surface image's size");
        let _ = atlas.cell_rects();
        let _ = throng_core::impostor::surface_emission(&model);
    }
    for lod in 0..model.lods.len() {
        let _ = throng_core::baked::frame_bounds(&model, lod);
    }
    // What an adapter without BC textures does at upload.
    for img in &model.images {
        for l in 0..img.levels.len() as u32 {
            let (w, h) = img.level_size(l);
            let rgba = img.decoded_level(l).expect("a validated level decodes");
            assert_eq!(rgba.len() as u64, w as u64 * h as u64 * 4);
        }
    }
    let Ok(handle) = ModelHandle::new(model) else {
        return false;
    };
    let bones = handle.model().bones.len();
    let clips = handle.model().clips.len();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let (mut palette, mut weights) = (Vec::new(), Vec::new());
    let camera = Camera::framing(&handle.model().bounds, glam::Vec3::ONE, 0.8, 1.5);
    let view = DrawView {
        layers: true,
        ..DrawView::from_camera(&camera, true)
    };
    let mut list = DrawList::default();
    for clip in std::iter::once(None).chain((0..clips).map(Some)) {
        let id = crowd
            .spawn(
                m,
                Spawn {
                    clip,
                    time,
                    ..Spawn::default()
                },
            )
            .expect("an accepted model spawns");
        crowd.tick(0.25, view, &mut list);
        crowd
            .palette(id, &mut palette)
            .expect("a live instance has a palette");
        assert_eq!(palette.len(), bones, "one palette entry a bone");
        crowd
            .morph_weights(id, &mut weights)
            .expect("a live instance has weights");
        assert_eq!(weights.len() as u32, handle.model().morphs.slot_count());
        for lod in 0..handle.model().lods.len() {
            let _ = throng_core::baked::skin_lod_with(handle.model(), lod, &palette, &weights);
        }
    }
    true
}
