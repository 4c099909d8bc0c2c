//! Reading a `.throng` file: every check of the module's list, in order, so
//! that a damaged file is an error, never a panic or an allocation beyond
//! its own size. The header, directory and sections are viewed through
//! `directory.rs`, the `PROV` section read by `provenance.rs`.

use std::path::Path;

use glam::{Mat4, Vec3};

use super::directory::{Directory, Strings, one_record, read_texels, records};
use super::frames::{frames_file, frames_ref, referred_texels};
use super::provenance::provenance_section;
use super::{
    BoneRecord, CLIP_ROOT_MOTION, ClipRecord, EventRecord, FootRecord, ImageRecord, ImpostorRecord,
    LodRecord, MaterialRecord, ModelRecord, MorphSlotRecord, SubmeshRecord, opt_index, tags,
};
use crate::error::FormatError;
use crate::impostor::{AtlasPlan, ImpostorAtlas, TextureCodec, ViewGrid};
use crate::limits::{MAX_FILE_SIZE, MAX_IMAGE_SIDE};
use crate::material::{Image, ImageContent};
use crate::math::Aabb;
use crate::model::{
    BakedModel, BakedVertex, Bone, BoneTexture, ClipContacts, ClipError, ClipEvent, ClipInfo,
    FootContacts, Lod, RootMotionKey,
};
use crate::morph::{MorphDelta, MorphSlot, Morphs};
use crate::texture_codec::{mip_levels, mip_size};

/// Reads and validates a model from `path`, and the frames file beside it
/// that it refers to, if it does (`frames.rs`).
pub fn read_file(path: &Path) -> Result<BakedModel, FormatError> {
    let bytes = crate::input_file::read(path, MAX_FILE_SIZE)?;
    match frames_file(&bytes)? {
        None => read_model(&bytes),
        Some(name) => {
            let beside = path.parent().unwrap_or(Path::new("")).join(&name);
            let frames = crate::input_file::read(&beside, MAX_FILE_SIZE)?;
            read_model_with_frames(&bytes, &frames)
        }
    }
}

fn aabb(min: [f32; 3], max: [f32; 3]) -> Aabb {
    Aabb {
        min: Vec3::from(min),
        max: Vec3::from(max),
    }
}

fn range_in(
    what: &str,
    start: u32,
    count: u32,
    len: usize,
) -> Result<std::ops::Range<usize>, FormatError> {
    let end = start as u64 + count as u64;
    if end > len as u64 {
        return Err(FormatError::corrupt(format!(
            "{what} range {start}+{count} exceeds the {len} available"
        )));
    }
    Ok(start as usize..end as usize)
}

/// Parses and validates a model from the bytes of a `.throng` file; a
/// model whose frames are in a frames file is refused
/// ([`FormatError::FramesElsewhere`], naming it).
pub fn read_model(bytes: &[u8]) -> Result<BakedModel, FormatError> {
    read_model_and(bytes, None)
}

/// [`read_model`] for a model whose frames are in a frames file (named by
/// [`frames_file`]), given that file's bytes; they must be the frames the
/// model was baked with. A model with frames of its own ignores them.
pub fn read_model_with_frames(bytes: &[u8], frames: &[u8]) -> Result<BakedModel, FormatError> {
    read_model_and(bytes, Some(frames))
}

fn read_model_and(bytes: &[u8], frames: Option<&[u8]>) -> Result<BakedModel, FormatError> {
    let dir = Directory::parse(bytes)?;
    let strings = Strings(dir.section(bytes, tags::STRINGS)?, Default::default());
    let m: ModelRecord = one_record(&dir, bytes, tags::MODEL)?;
    if m.reserved != [0; 4] {
        return Err(FormatError::corrupt("reserved model fields are not zero"));
    }
    // In the file's order of checks: a file damaged in several places
    // names the same damage as before.
    let texels = match frames_ref(&dir, bytes, &strings)? {
        None => read_texels(&dir, bytes, m.texel_format)?,
        Some((file, _)) if dir.entry(tags::TEXELS).is_some() => {
            return Err(FormatError::corrupt(format!(
                "both a TEXL section and a reference to the frames file {file}"
            )));
        }
        Some((file, _)) if frames.is_none() => return Err(FormatError::FramesElsewhere { file }),
        Some((file, r)) => referred_texels(
            &file,
            &r,
            m.texel_format,
            (m.texture_width, m.texture_layers),
            frames.unwrap_or_default(),
        )?,
    };
    let bones = read_bones(&dir, bytes, &strings)?;
    let clips = read_clips(&dir, bytes, &strings)?;
    let frame_bounds = records::<[f32; 6]>(&dir, bytes, tags::FRAME_BOUNDS)?
        .iter()
        .map(|b| aabb([b[0], b[1], b[2]], [b[3], b[4], b[5]]))
        .collect();
    let lods = read_lods(&dir, bytes)?;
    let materials = records::<MaterialRecord>(&dir, bytes, tags::MATERIALS)?
        .iter()
        .enumerate()
        .map(|(i, r)| r.to_material(i, strings.get(r.name, &|| format!("material {i}"))?))
        .collect::<Result<Vec<_>, FormatError>>()?;
    let images = read_images(&dir, bytes, &strings)?;
    let root_motion: Vec<RootMotionKey> = records(&dir, bytes, tags::ROOT_MOTION)?;
    let events = read_events(&dir, bytes, &strings)?;
    let impostor = read_impostor(&dir, bytes)?;
    let morphs = read_morphs(&dir, bytes, &strings)?;
    let provenance = provenance_section(&dir, bytes, &strings)?;
    let contacts = read_contacts(&dir, bytes)?;
    let model = BakedModel {
        name: strings.get(m.name, &|| "model name".into())?,
        source: strings.get(m.source, &|| "model source".into())?,
        fps: m.fps,
        bake_error: m.bake_error,
        bones,
        clips,
        texture: BoneTexture {
            width: m.texture_width,
            layers: m.texture_layers,
            texels,
        },
        bounds: aabb(m.bounds_min, m.bounds_max),
        bounding_radius: m.bounding_radius,
        frame_bounds,
        lods,
        materials,
        images,
        root_motion,
        events,
        morphs,
        impostor,
        provenance,
        contacts,
    };
    model.validate()?;
    Ok(model)
}

/// The bones (`BONE`).
fn read_bones(dir: &Directory, bytes: &[u8], strings: &Strings) -> Result<Vec<Bone>, FormatError> {
    records::<BoneRecord>(dir, bytes, tags::BONES)?
        .iter()
        .enumerate()
        .map(|(i, b)| {
            Ok(Bone {
                name: strings.get(b.name, &|| format!("bone {i}"))?,
                node: b.node,
                parent: opt_index(b.parent),
                inverse_bind: Mat4::from_cols_array(&b.inverse_bind),
                rest_global: Mat4::from_cols_array(&b.rest_global),
            })
        })
        .collect()
}

/// The clips (`CLIP`).
fn read_clips(
    dir: &Directory,
    bytes: &[u8],
    strings: &Strings,
) -> Result<Vec<ClipInfo>, FormatError> {
    records::<ClipRecord>(dir, bytes, tags::CLIPS)?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if c.flags & !CLIP_ROOT_MOTION != 0 {
                return Err(FormatError::corrupt(format!(
                    "clip {i} has unknown flags {:#x}",
                    c.flags
                )));
            }
            Ok(ClipInfo {
                name: strings.get(c.name, &|| format!("clip {i}"))?,
                duration: c.duration,
                first_frame: c.first_frame,
                frame_count: c.frame_count,
                bounds: aabb(c.bounds_min, c.bounds_max),
                root_motion: c.flags & CLIP_ROOT_MOTION != 0,
                error: ClipError {
                    at_frames: c.error_at_frames,
                    between_frames: c.error_between_frames,
                    max_error: c.max_error,
                },
            })
        })
        .collect()
}

/// The LODs (`LODS`) with their vertices, indices and submeshes, each
/// LOD's ranges starting where the previous one's end.
fn read_lods(dir: &Directory, bytes: &[u8]) -> Result<Vec<Lod>, FormatError> {
    let verts: Vec<BakedVertex> = records(dir, bytes, tags::VERTICES)?;
    let indices: Vec<u32> = records(dir, bytes, tags::INDICES)?;
    let subs: Vec<SubmeshRecord> = records(dir, bytes, tags::SUBMESHES)?;
    if let Some(i) = subs
        .iter()
        .position(|s| s.reserved != 0 || s.flags & !crate::model::SUBMESH_GENERATED_NORMALS != 0)
    {
        return Err(FormatError::corrupt(format!(
            "submesh {i} has unknown flags {:#x} or a non-zero reserved field",
            subs[i].flags
        )));
    }
    // LOD l's ranges start where LOD l-1's end, so no record is copied twice.
    let mut next = [0u64; 3];
    records::<LodRecord>(dir, bytes, tags::LODS)?
        .iter()
        .enumerate()
        .map(|(l, r)| {
            let at = format!("LOD {l}");
            if r.reserved != 0 {
                return Err(FormatError::corrupt(format!("{at}: reserved field is not zero")));
            }
            let first = [r.first_vertex, r.first_index, r.first_submesh].map(u64::from);
            if first != next {
                return Err(FormatError::corrupt(format!(
                    "{at} starts at vertex {}, index {}, submesh {}; LODs follow each other, so expected {}, {}, {}",
                    first[0], first[1], first[2], next[0], next[1], next[2]
                )));
            }
            let vr = range_in(
                &format!("{at} vertex"),
                r.first_vertex,
                r.vertex_count,
                verts.len(),
            )?;
            let ir = range_in(
                &format!("{at} index"),
                r.first_index,
                r.index_count,
                indices.len(),
            )?;
            let sr = range_in(
                &format!("{at} submesh"),
                r.first_submesh,
                r.submesh_count,
                subs.len(),
            )?;
            next = [vr.end, ir.end, sr.end].map(|end| end as u64);
            Ok(Lod {
                screen_size: r.screen_size,
                vertices: verts[vr].to_vec(),
                indices: indices[ir].to_vec(),
                submeshes: subs[sr].iter().copied().map(SubmeshRecord::to_submesh).collect(),
            })
        })
        .collect()
}

/// The images (`IMGS`) and their mip chains from the image data (`IMGD`),
/// each image's bytes starting where the previous one's end.
fn read_images(
    dir: &Directory,
    bytes: &[u8],
    strings: &Strings,
) -> Result<Vec<Image>, FormatError> {
    let image_data = dir.section(bytes, tags::IMAGE_DATA)?;
    // Image i's bytes start where image i-1's end, so none is copied twice.
    let mut next_data = 0u64;
    records::<ImageRecord>(dir, bytes, tags::IMAGES)?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if r.data_offset != next_data {
                return Err(FormatError::corrupt(format!(
                    "image {i} bytes start at {} in IMGD; images follow each other, so expected {next_data}",
                    r.data_offset
                )));
            }
            let end = r
                .data_offset
                .checked_add(r.data_len)
                .filter(|&e| e <= image_data.len() as u64);
            let Some(end) = end else {
                return Err(FormatError::corrupt(format!(
                    "image {i} bytes {}+{} exceed the {}-byte image data",
                    r.data_offset,
                    r.data_len,
                    image_data.len()
                )));
            };
            next_data = end;
            let name = strings.get(r.name, &|| format!("image {i} name"))?;
            let corrupt = |what: String| FormatError::corrupt(format!("image {i} ({name}): {what}"));
            let codec = TextureCodec::from_u32(r.codec)
                .ok_or_else(|| corrupt(format!("unknown codec {}", r.codec)))?;
            let content = ImageContent::from_code(r.content)
                .ok_or_else(|| corrupt(format!("unknown content {}", r.content)))?;
            // Sizes beyond the limit are refused before any level's size is
            // worked out from them.
            if r.width == 0 || r.height == 0 || r.width > MAX_IMAGE_SIDE || r.height > MAX_IMAGE_SIDE {
                return Err(corrupt(format!(
                    "{}×{} is outside 1..={MAX_IMAGE_SIDE} texels a side",
                    r.width, r.height
                )));
            }
            if r.levels != mip_levels(r.width, r.height) {
                return Err(corrupt(format!(
                    "{} mip levels; a {}×{} image has {}",
                    r.levels,
                    r.width,
                    r.height,
                    mip_levels(r.width, r.height)
                )));
            }
            let mut at = r.data_offset as usize;
            let levels: Vec<Vec<u8>> = (0..r.levels)
                .map(|l| {
                    let (w, h) = mip_size(r.width, r.height, l);
                    let n = codec.level_bytes(w, h) as usize;
                    at += n;
                    image_data.get(at - n..at).filter(|_| at as u64 <= end).map(<[u8]>::to_vec)
                })
                .collect::<Option<_>>()
                .ok_or_else(|| corrupt(format!("its mip chain needs more than its {} bytes", r.data_len)))?;
            if at as u64 != end {
                return Err(corrupt(format!(
                    "its mip chain is {} bytes, not the {} it declares",
                    at as u64 - r.data_offset,
                    r.data_len
                )));
            }
            Ok(Image {
                name,
                width: r.width,
                height: r.height,
                codec,
                content,
                levels,
            })
        })
        .collect()
}

/// The events (`EVNT`).
fn read_events(
    dir: &Directory,
    bytes: &[u8],
    strings: &Strings,
) -> Result<Vec<ClipEvent>, FormatError> {
    records::<EventRecord>(dir, bytes, tags::EVENTS)?
        .iter()
        .enumerate()
        .map(|(i, e)| {
            Ok(ClipEvent {
                clip: e.clip,
                time: e.time,
                name: strings.get(e.name, &|| format!("event {i} name"))?,
                data: strings.get(e.data, &|| format!("event {i} data"))?,
            })
        })
        .collect()
}

/// The morph sections (`MSLT`, `MWGT`, `MDLT`); their consistency with the
/// frames and vertices is [`Morphs::validate`]'s.
fn read_morphs(dir: &Directory, bytes: &[u8], strings: &Strings) -> Result<Morphs, FormatError> {
    let slots = records::<MorphSlotRecord>(dir, bytes, tags::MORPH_SLOTS)?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Ok(MorphSlot {
                name: strings.get(r.name, &|| format!("morph slot {i} name"))?,
                node: r.node,
                mesh: r.mesh,
                target: r.target,
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    Ok(Morphs {
        slots,
        weights: records(dir, bytes, tags::MORPH_WEIGHTS)?,
        deltas: records::<MorphDelta>(dir, bytes, tags::MORPH_DELTAS)?,
    })
}

/// The impostor sections: none, or a plan whose images are exactly the
/// bytes its layout needs (checked against the section's actual length
/// before anything is copied); the rest is `ImpostorAtlas::check`'s.
fn read_impostor(dir: &Directory, bytes: &[u8]) -> Result<Option<ImpostorAtlas>, FormatError> {
    let plans: Vec<ImpostorRecord> = records(dir, bytes, tags::IMPOSTOR)?;
    let spheres: Vec<[f32; 4]> = records(dir, bytes, tags::IMPOSTOR_SPHERES)?;
    let data = dir.section(bytes, tags::IMPOSTOR_DATA)?;
    let r = match plans.as_slice() {
        [] if spheres.is_empty() && data.is_empty() => return Ok(None),
        [] => {
            return Err(FormatError::corrupt(
                "impostor spheres or images without an impostor plan (IMPO is empty)",
            ));
        }
        [r] => *r,
        more => {
            return Err(FormatError::corrupt(format!(
                "section IMPO holds {} records, expected 0 or 1",
                more.len()
            )));
        }
    };
    let codec = TextureCodec::from_u32(r.codec).ok_or_else(|| {
        FormatError::corrupt(format!(
            "impostor images in codec {}, known are 0 (RGBA8), 1 (BC7) and 2 (BC3)",
            r.codec
        ))
    })?;
    if r.reserved != [0; 3] {
        return Err(FormatError::corrupt(
            "reserved impostor plan fields are not zero",
        ));
    }
    let plan = AtlasPlan {
        views: ViewGrid { side: r.views },
        frames: r.frames,
        cell: r.cell,
        clips: r.clips,
        layer_size: r.layer_size,
        layers: r.layers,
        codec,
        surface: match r.images {
            2 => false,
            3 => true,
            n => {
                return Err(FormatError::corrupt(format!(
                    "impostor of {n} images, expected 2 (colour, normal) or 3 (and the surface)"
                )));
            }
        },
    };
    let image = ImpostorAtlas::image_bytes(&plan);
    let images = plan.images();
    if data.len() as u64 != image.saturating_mul(images as u64) {
        return Err(FormatError::corrupt(format!(
            "impostor images hold {} bytes, the plan ({}² texels × {} layers, {images} images in {}) needs {}",
            data.len(),
            r.layer_size,
            r.layers,
            codec.name(),
            image.saturating_mul(images as u64)
        )));
    }
    let (colour, rest) = data.split_at(image as usize);
    let (normal, surface) = rest.split_at(image as usize);
    Ok(Some(ImpostorAtlas {
        plan,
        screen_size: r.screen_size,
        spheres,
        colour: colour.to_vec(),
        normal: normal.to_vec(),
        surface: surface.to_vec(),
    }))
}

/// The clips' contacts (`FEET`, `PHAS`, each clip's ground in `CLIP`):
/// none without `FEET`; else each foot record of a clip not before the
/// previous one's, taking the next phases of `PHAS`, all of them used.
fn read_contacts(dir: &Directory, bytes: &[u8]) -> Result<Vec<ClipContacts>, FormatError> {
    if dir.entry(tags::FEET).is_none() {
        return Ok(Vec::new());
    }
    let feet: Vec<FootRecord> = records(dir, bytes, tags::FEET)?;
    let phases: Vec<[f32; 2]> = records(dir, bytes, tags::PHASES)?;
    let mut contacts: Vec<ClipContacts> = records::<ClipRecord>(dir, bytes, tags::CLIPS)?
        .iter()
        .map(|c| ClipContacts {
            ground: c.ground,
            feet: Vec::new(),
        })
        .collect();
    let mut next = 0usize;
    let mut clip = 0u32;
    for (i, f) in feet.iter().enumerate() {
        let range = range_in("foot phases", next as u32, f.phases, phases.len())?;
        if f.clip < clip || f.clip as usize >= contacts.len() {
            return Err(FormatError::corrupt(format!(
                "foot record {i} is of clip {} (after clip {clip}, of {} clips)",
                f.clip,
                contacts.len()
            )));
        }
        clip = f.clip;
        next = range.end;
        contacts[f.clip as usize].feet.push(FootContacts {
            bone: f.bone,
            lift: f.lift,
            phases: phases[range].iter().map(|p| (p[0], p[1])).collect(),
        });
    }
    if next != phases.len() {
        return Err(FormatError::corrupt(format!(
            "{} phases, the foot records take {next}",
            phases.len()
        )));
    }
    Ok(contacts)
}
