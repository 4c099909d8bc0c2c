//! Writing a `.throng` file: the string table, the sections in their
//! documented order, the directory, the header and the CRC; written
//! atomically (`crate::fsio`).

use std::path::Path;

use glam::Mat4;

use super::directory::lay_out;
use super::*;
use crate::error::FormatError;
use crate::model::{BakedModel, BakedVertex};

struct StringTable(Vec<u8>);

impl StringTable {
    fn add(&mut self, s: &str) -> StrRef {
        let r = StrRef {
            offset: self.0.len() as u32,
            len: s.len() as u32,
        };
        self.0.extend_from_slice(s.as_bytes());
        r
    }
}

fn mat_cols(m: &Mat4) -> [f32; 16] {
    m.to_cols_array()
}

/// A section of `records` with its tag; the record size is the size of `T`
/// (the sizes themselves are asserted once, next to the record types).
fn section<T: Pod>(tag: [u8; 4], records: &[T]) -> ([u8; 4], u32, &[u8]) {
    (
        tag,
        std::mem::size_of::<T>() as u32,
        bytemuck::cast_slice(records),
    )
}

/// Serialises a model. The model is validated first; an invalid model is
/// refused rather than written.
pub fn write_model(model: &BakedModel) -> Result<Vec<u8>, FormatError> {
    write_model_as(model, None)
}

/// [`write_model`] without the texels: the model refers to the frames file
/// `frames` beside it, which must hold the model's texels
/// ([`super::write_frames`] of its texture; `frames.rs`).
pub fn write_model_referring(model: &BakedModel, frames: &str) -> Result<Vec<u8>, FormatError> {
    super::frames::check_frames_name(frames).map_err(FormatError::Invalid)?;
    write_model_as(model, Some(frames))
}

fn write_model_as(model: &BakedModel, frames: Option<&str>) -> Result<Vec<u8>, FormatError> {
    model.validate()?;
    // The strings are added in the file's order (model, bones, clips,
    // materials, images, events, morph slots, provenance): the bytes of a
    // file do not depend on how this function is cut.
    let mut strings = StringTable(Vec::new());
    let model_rec = ModelRecord {
        name: strings.add(&model.name),
        source: strings.add(&model.source),
        fps: model.fps,
        texel_format: model.texture.texels.format() as u32,
        texture_width: model.texture.width,
        texture_layers: model.texture.layers,
        bounds_min: model.bounds.min.into(),
        bounding_radius: model.bounding_radius,
        bounds_max: model.bounds.max.into(),
        bake_error: model.bake_error,
        reserved: [0; 4],
    };
    let bones = bone_records(model, &mut strings);
    let clips = clip_records(model, &mut strings);
    let frame_bounds: Vec<[f32; 6]> = model
        .frame_bounds
        .iter()
        .map(|b| [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z])
        .collect();
    let mesh = MeshSections::of(model);
    let materials: Vec<MaterialRecord> = model
        .materials
        .iter()
        .map(|m| MaterialRecord::from_material(m, strings.add(&m.name)))
        .collect();
    let (images, image_data) = image_records(model, &mut strings);
    let events = event_records(model, &mut strings);
    let morph_slots = morph_slot_records(model, &mut strings);
    let (impostor, spheres, impostor_data) = impostor_records(model);
    let provenance = provenance_records(model, &mut strings);
    let (feet, phases) = contact_records(model);
    let reference = frames.map(|name| super::frames::FramesRefRecord {
        file: strings.add(name),
        texel_count: model.texture.texels.len() as u64,
        hash: super::frames::frames_hash(&model.texture.texels),
    });
    let texels = match &reference {
        None => (
            tags::TEXELS,
            model.texture.texels.format().texel_size() as u32,
            model.texture.texels.as_bytes(),
        ),
        Some(r) => section(tags::FRAMES_REF, std::slice::from_ref(r)),
    };
    let mut sections: Vec<([u8; 4], u32, &[u8])> = vec![
        section(tags::MODEL, std::slice::from_ref(&model_rec)),
        section(tags::STRINGS, &strings.0),
        // Optional, so not last: a section count one short (the header is
        // outside the checksum) then drops a required section and fails.
        section(tags::PROVENANCE, &provenance),
        section(tags::BONES, &bones),
        section(tags::CLIPS, &clips),
        texels,
        section(tags::FRAME_BOUNDS, &frame_bounds),
        section(tags::LODS, &mesh.lods),
        section(tags::SUBMESHES, &mesh.subs),
        section(tags::VERTICES, &mesh.verts),
        section(tags::INDICES, &mesh.indices),
        section(tags::MATERIALS, &materials),
        section(tags::IMAGES, &images),
        section(tags::IMAGE_DATA, &image_data),
        section(tags::ROOT_MOTION, &model.root_motion),
        section(tags::EVENTS, &events),
        section(tags::IMPOSTOR, &impostor),
        section(tags::IMPOSTOR_SPHERES, spheres),
        section(tags::IMPOSTOR_DATA, &impostor_data),
        section(tags::MORPH_SLOTS, &morph_slots),
        section(tags::MORPH_WEIGHTS, &model.morphs.weights),
        section(tags::MORPH_DELTAS, &model.morphs.deltas),
    ];
    if !model.contacts.is_empty() {
        // Optional, so after the clips rather than last (as `PROV`).
        let after_clips = sections
            .iter()
            .position(|s| s.0 == tags::CLIPS)
            .unwrap_or(0)
            + 1;
        sections.splice(
            after_clips..after_clips,
            [section(tags::FEET, &feet), section(tags::PHASES, &phases)],
        );
    }
    Ok(lay_out(&sections))
}

/// The bones' records.
fn bone_records(model: &BakedModel, strings: &mut StringTable) -> Vec<BoneRecord> {
    model
        .bones
        .iter()
        .map(|b| BoneRecord {
            name: strings.add(&b.name),
            node: b.node,
            parent: b.parent.unwrap_or(NONE),
            inverse_bind: mat_cols(&b.inverse_bind),
            rest_global: mat_cols(&b.rest_global),
        })
        .collect()
}

/// The clips' records.
fn clip_records(model: &BakedModel, strings: &mut StringTable) -> Vec<ClipRecord> {
    model
        .clips
        .iter()
        .enumerate()
        .map(|(i, c)| ClipRecord {
            name: strings.add(&c.name),
            first_frame: c.first_frame,
            frame_count: c.frame_count,
            duration: c.duration,
            flags: if c.root_motion { CLIP_ROOT_MOTION } else { 0 },
            bounds_min: c.bounds.min.into(),
            bounds_max: c.bounds.max.into(),
            error_at_frames: c.error.at_frames,
            error_between_frames: c.error.between_frames,
            max_error: c.error.max_error,
            ground: model.contacts.get(i).map_or(0.0, |k| k.ground),
        })
        .collect()
}

/// The contacts' `FEET` and `PHAS` records (none when not measured).
fn contact_records(model: &BakedModel) -> (Vec<FootRecord>, Vec<[f32; 2]>) {
    let mut feet = Vec::new();
    let mut phases = Vec::new();
    for (clip, c) in model.contacts.iter().enumerate() {
        for f in &c.feet {
            feet.push(FootRecord {
                clip: clip as u32,
                bone: f.bone,
                lift: f.lift,
                phases: f.phases.len() as u32,
            });
            phases.extend(f.phases.iter().map(|&(s, e)| [s, e]));
        }
    }
    (feet, phases)
}

/// The LODs' records and the vertices, indices and submeshes they range
/// over, each LOD's after the previous one's.
struct MeshSections {
    lods: Vec<LodRecord>,
    subs: Vec<SubmeshRecord>,
    verts: Vec<BakedVertex>,
    indices: Vec<u32>,
}

impl MeshSections {
    fn of(model: &BakedModel) -> Self {
        let mut lods = Vec::new();
        let mut subs = Vec::new();
        let mut verts: Vec<BakedVertex> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        for lod in &model.lods {
            lods.push(LodRecord {
                first_vertex: verts.len() as u32,
                vertex_count: lod.vertices.len() as u32,
                first_index: indices.len() as u32,
                index_count: lod.indices.len() as u32,
                first_submesh: subs.len() as u32,
                submesh_count: lod.submeshes.len() as u32,
                screen_size: lod.screen_size,
                reserved: 0,
            });
            verts.extend_from_slice(&lod.vertices);
            indices.extend_from_slice(&lod.indices);
            subs.extend(lod.submeshes.iter().map(SubmeshRecord::from_submesh));
        }
        Self {
            lods,
            subs,
            verts,
            indices,
        }
    }
}

/// The images' records and their mip chains, one after the other.
fn image_records(model: &BakedModel, strings: &mut StringTable) -> (Vec<ImageRecord>, Vec<u8>) {
    let mut image_data = Vec::new();
    let images: Vec<ImageRecord> = model
        .images
        .iter()
        .map(|img| {
            let rec = ImageRecord {
                name: strings.add(&img.name),
                width: img.width,
                height: img.height,
                levels: img.levels.len() as u32,
                codec: img.codec.to_u32(),
                content: img.content as u32,
                reserved: 0,
                data_offset: image_data.len() as u64,
                data_len: img.bytes(),
            };
            for level in &img.levels {
                image_data.extend_from_slice(level);
            }
            rec
        })
        .collect();
    (images, image_data)
}

/// The events' records.
fn event_records(model: &BakedModel, strings: &mut StringTable) -> Vec<EventRecord> {
    model
        .events
        .iter()
        .map(|e| EventRecord {
            clip: e.clip,
            time: e.time,
            name: strings.add(&e.name),
            data: strings.add(&e.data),
        })
        .collect()
}

/// The morph slots' records.
fn morph_slot_records(model: &BakedModel, strings: &mut StringTable) -> Vec<MorphSlotRecord> {
    model
        .morphs
        .slots
        .iter()
        .map(|m| MorphSlotRecord {
            name: strings.add(&m.name),
            node: m.node,
            mesh: m.mesh,
            target: m.target,
        })
        .collect()
}

/// The impostor's record (none without one), its bounding spheres and its
/// atlas's bytes (colour, normal, surface).
fn impostor_records(model: &BakedModel) -> (Vec<ImpostorRecord>, &[[f32; 4]], Vec<u8>) {
    match &model.impostor {
        Some(a) => (
            vec![ImpostorRecord {
                views: a.plan.views.side,
                frames: a.plan.frames,
                cell: a.plan.cell,
                layer_size: a.plan.layer_size,
                layers: a.plan.layers,
                clips: a.plan.clips,
                screen_size: a.screen_size,
                codec: a.plan.codec.to_u32(),
                images: a.plan.images(),
                reserved: [0; 3],
            }],
            &a.spheres,
            [a.colour.as_slice(), &a.normal, &a.surface].concat(),
        ),
        None => (Vec::new(), &[], Vec::new()),
    }
}

/// The provenance records.
fn provenance_records(model: &BakedModel, strings: &mut StringTable) -> Vec<ProvenanceRecord> {
    model
        .provenance
        .iter()
        .map(|p| ProvenanceRecord {
            inputs: p.inputs,
            options: strings.add(&p.options),
            baker: strings.add(&p.baker),
            files: p.files,
            reserved: [0; 3],
        })
        .collect()
}

/// Writes a model to `path` atomically ([`crate::fsio::write_atomic`]): on
/// any failure an existing file there is untouched.
pub fn write_file(model: &BakedModel, path: &Path) -> Result<(), FormatError> {
    let bytes = write_model(model)?;
    Ok(crate::fsio::write_atomic(path, &bytes)?)
}

// ---------------------------------------------------------------- reading
