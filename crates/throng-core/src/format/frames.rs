//! Frames baked once for many models: a frames file (`NAME.throng-frames`,
//! the same container as a `.throng`: header, checksum, directory) holds a
//! bone texture's texels, and a model whose `FREF` section names it holds
//! no `TEXL` of its own. Bodies of one build with shared clips bake equal
//! frames (`throng bake … --shared-clips`): twenty of them on disk then
//! take one copy of the frames, as they take one on the GPU.
//!
//! A reference is a plain file name beside the model (no folder, no `..`,
//! ending in [`FRAMES_EXTENSION`]), so a model never makes its reader open
//! a file anywhere else; it carries the BLAKE3 of the texels' bytes and
//! their count, and the frames file must match both (a frames file baked
//! again for other bodies is refused, naming the two files).

use bytemuck::{Pod, Zeroable};

use super::directory::{Directory, Strings, lay_out, one_record, read_texels};
use super::{StrRef, tags};
use crate::error::FormatError;
use crate::model::{BoneTexture, TexelFormat, Texels};

/// The extension of a frames file (after its last dot).
pub const FRAMES_EXTENSION: &str = "throng-frames";
/// The longest frames file name a model may refer to, in bytes.
pub const MAX_FRAMES_NAME: usize = 255;

/// `FRMS`: a frames file's one record (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FramesRecord {
    /// 0 = `Rgba32Float`, 1 = `Rgba16Float` (as `MODL`'s).
    pub texel_format: u32,
    /// Layer side W.
    pub texture_width: u32,
    /// Layer count.
    pub texture_layers: u32,
    /// Reserved, zero.
    pub reserved: u32,
}

/// `FREF`: a model's reference to the frames file holding its texels (48
/// bytes; the texel format and layout are the model record's).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FramesRefRecord {
    /// The frames file's name, beside the model.
    pub file: StrRef,
    /// Texels in it.
    pub texel_count: u64,
    /// BLAKE3 of its `TEXL` section's bytes.
    pub hash: [u8; 32],
}

const _: () = {
    assert!(std::mem::size_of::<FramesRecord>() == 16);
    assert!(std::mem::size_of::<FramesRefRecord>() == 48);
};

/// BLAKE3 of `texels`' bytes, as a `FREF` records it.
pub fn frames_hash(texels: &Texels) -> [u8; 32] {
    *blake3::hash(texels.as_bytes()).as_bytes()
}

/// Checks that `name` is a frames file's plain name: not empty, at most
/// [`MAX_FRAMES_NAME`] bytes, no folder separator, drive, `..` or control
/// character, ending in `.`[`FRAMES_EXTENSION`]; else says why (the reader
/// calls a file naming another corrupt, the writer refuses the name).
pub fn check_frames_name(name: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "frames file name {name:?} {why} (a model names a file beside it)"
        ))
    };
    if name.is_empty() || name.len() > MAX_FRAMES_NAME {
        return bad(&format!("is empty or over {MAX_FRAMES_NAME} bytes"));
    }
    if name
        .chars()
        .any(|c| c == '/' || c == '\\' || c == ':' || c.is_control())
    {
        return bad("holds a folder separator, a drive or a control character");
    }
    let stem = name.strip_suffix(&format!(".{FRAMES_EXTENSION}"));
    if stem.is_none_or(|s| s.is_empty() || s.starts_with('.')) {
        return bad(&format!(
            "does not end in .{FRAMES_EXTENSION} after a name not starting with a dot"
        ));
    }
    Ok(())
}

/// A frames file's bytes for `texture`.
pub fn write_frames(texture: &BoneTexture) -> Vec<u8> {
    let record = FramesRecord {
        texel_format: texture.texels.format() as u32,
        texture_width: texture.width,
        texture_layers: texture.layers,
        reserved: 0,
    };
    let texel_size = texture.texels.format().texel_size() as u32;
    lay_out(&[
        (
            tags::FRAMES,
            std::mem::size_of::<FramesRecord>() as u32,
            bytemuck::bytes_of(&record),
        ),
        (tags::TEXELS, texel_size, texture.texels.as_bytes()),
    ])
}

/// The bone texture in a frames file's bytes, checked as a `.throng` is
/// (header, checksum, directory) and then its record and texels.
pub fn read_frames(bytes: &[u8]) -> Result<BoneTexture, FormatError> {
    let dir = Directory::parse(bytes)?;
    if dir.entry(tags::MODEL).is_some() {
        return Err(FormatError::corrupt(
            "a model, not a frames file (it has a MODL section)",
        ));
    }
    let r: FramesRecord = one_record(&dir, bytes, tags::FRAMES)?;
    if r.reserved != 0 || dir.entries.len() != 2 {
        return Err(FormatError::corrupt(
            "a frames file holds FRMS and TEXL only, with FRMS's reserved field zero",
        ));
    }
    Ok(BoneTexture {
        width: r.texture_width,
        layers: r.texture_layers,
        texels: read_texels(&dir, bytes, r.texel_format)?,
    })
}

/// The frames file a model's bytes refer to (`None`: its frames are its
/// own). Reads the header, directory and string table only: what a loader
/// needs to fetch the frames before [`super::read_model_with_frames`].
pub fn frames_file(model: &[u8]) -> Result<Option<String>, FormatError> {
    let dir = Directory::parse(model)?;
    let strings = Strings(dir.section(model, tags::STRINGS)?, Default::default());
    frames_ref(&dir, model, &strings).map(|r| r.map(|(name, _)| name))
}

/// The `FREF` record and its checked file name, if the model has one.
pub(super) fn frames_ref(
    dir: &Directory,
    bytes: &[u8],
    strings: &Strings,
) -> Result<Option<(String, FramesRefRecord)>, FormatError> {
    if dir.entry(tags::FRAMES_REF).is_none() {
        return Ok(None);
    }
    let r: FramesRefRecord = one_record(dir, bytes, tags::FRAMES_REF)?;
    let name = strings.get(r.file, &|| "frames file name".into())?;
    check_frames_name(&name).map_err(FormatError::Corrupt)?;
    Ok(Some((name, r)))
}

/// The texels of a model that refers to `name` (its `FREF` record `r`,
/// its texel format `format` and layout from `MODL`), from that frames
/// file's bytes: the same format, layout, count and hash, else an error
/// naming the file.
pub(super) fn referred_texels(
    name: &str,
    r: &FramesRefRecord,
    format: u32,
    layout: (u32, u32),
    frames: &[u8],
) -> Result<Texels, FormatError> {
    let in_file = |e: FormatError| FormatError::corrupt(format!("frames file {name}: {e}"));
    let texture = read_frames(frames).map_err(in_file)?;
    let want = TexelFormat::from_code(format);
    if Some(texture.texels.format()) != want || (texture.width, texture.layers) != layout {
        return Err(FormatError::corrupt(format!(
            "frames file {name} holds {:?} texels in {}² × {} layers; the model wants {want:?} in {}² × {}",
            texture.texels.format(),
            texture.width,
            texture.layers,
            layout.0,
            layout.1
        )));
    }
    if texture.texels.len() as u64 != r.texel_count || frames_hash(&texture.texels) != r.hash {
        return Err(FormatError::corrupt(format!(
            "frames file {name} holds {} texels that are not the {} the model was baked with (its BLAKE3 differs): bake the bodies again together",
            texture.texels.len(),
            r.texel_count
        )));
    }
    Ok(texture.texels)
}
