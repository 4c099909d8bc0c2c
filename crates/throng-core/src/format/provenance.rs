//! A `.throng` file's provenance without the rest of the model: from its
//! bytes ([`read_provenance`]) or from its path, reading only the header,
//! directory, `STRS` and `PROV` ([`peek_provenance`]; and likewise the
//! frames file it refers to, [`peek_frames_file`]); and the `PROV` section
//! as the model reader reads it too.

use std::path::Path;

use super::directory::{Directory, Strings, records};
use super::{HEADER_SIZE, Header, MAX_SECTIONS, ProvenanceRecord, SECTION_ENTRY_SIZE, tags};
use crate::error::FormatError;
use crate::limits::MAX_FILE_SIZE;
use crate::provenance::{MAX_PROVENANCE_TEXT, Provenance};

/// The provenance of the `.throng` file `bytes` (`None`: the file has no
/// `PROV` section), with the header, checksum and directory checked but no
/// other section read: what `throng bake` reads to decide whether an
/// output is up to date, without decoding the model.
pub fn read_provenance(bytes: &[u8]) -> Result<Option<Provenance>, FormatError> {
    let dir = Directory::parse(bytes)?;
    let strings = Strings(dir.section(bytes, tags::STRINGS)?, Default::default());
    provenance_section(&dir, bytes, &strings)
}

/// The provenance of the `.throng` file at `path`, reading only its header,
/// directory, `STRS` and `PROV` (a few kilobytes of a file of tens of
/// megabytes): the header, the directory and those sections are checked
/// as [`read_provenance`] checks them, but not the checksum over the rest,
/// which would mean reading it all. What `throng bake` uses to skip an up-to-date
/// output: a file damaged elsewhere is still refused when it is loaded
/// (and `--force` re-bakes it).
pub fn peek_provenance(path: &Path) -> Result<Option<Provenance>, FormatError> {
    let (dir, bytes) = peek(path, tags::PROVENANCE)?;
    let strings = Strings(dir.section(&bytes, tags::STRINGS)?, Default::default());
    provenance_section(&dir, &bytes, &strings)
}

/// The frames file the `.throng` at `path` refers to (`None`: its frames
/// are its own; `frames.rs`), reading only its header, directory, `STRS`
/// and `FREF`, checked as [`peek_provenance`] checks its sections.
pub fn peek_frames_file(path: &Path) -> Result<Option<String>, FormatError> {
    let (dir, bytes) = peek(path, tags::FRAMES_REF)?;
    let strings = Strings(dir.section(&bytes, tags::STRINGS)?, Default::default());
    Ok(super::frames::frames_ref(&dir, &bytes, &strings)?.map(|(name, _)| name))
}

/// The file at `path` as zeroes but for its header, directory, `STRS` and
/// the section `tag`, with its directory checked (not its checksum).
fn peek(path: &Path, tag: [u8; 4]) -> Result<(Directory, Vec<u8>), FormatError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |source| FormatError::Io {
        path: path.display().to_string(),
        source,
    };
    let crate::input_file::InputFile { mut file, len } =
        crate::input_file::open(path, MAX_FILE_SIZE)?;
    // Zeroed (untouched pages), with only what is read filled in.
    let mut bytes = vec![0u8; len as usize];
    let mut fill = |at: u64, n: u64, bytes: &mut [u8]| -> Result<(), FormatError> {
        let end = at.checked_add(n).filter(|&e| e <= len).ok_or_else(|| {
            FormatError::corrupt(format!(
                "a section at {at}+{n} runs past the {len}-byte file"
            ))
        })?;
        file.seek(SeekFrom::Start(at)).map_err(io)?;
        file.read_exact(&mut bytes[at as usize..end as usize])
            .map_err(io)
    };
    fill(0, (HEADER_SIZE as u64).min(len), &mut bytes)?;
    if bytes.len() >= HEADER_SIZE {
        let header: Header = bytemuck::pod_read_unaligned(&bytes[..HEADER_SIZE]);
        let dir = (header.section_count.min(MAX_SECTIONS) as u64) * SECTION_ENTRY_SIZE as u64;
        fill(
            HEADER_SIZE as u64,
            dir.min(len - HEADER_SIZE as u64),
            &mut bytes,
        )?;
    }
    let dir = Directory::parse_with(&bytes, false)?;
    for tag in [tags::STRINGS, tag] {
        if let Some(e) = dir.entry(tag) {
            fill(e.offset, e.length, &mut bytes)?;
        }
    }
    Ok((dir, bytes))
}

/// The optional `PROV` section: absent or empty, or one record.
pub(super) fn provenance_section(
    dir: &Directory,
    bytes: &[u8],
    strings: &Strings,
) -> Result<Option<Provenance>, FormatError> {
    if dir.entry(tags::PROVENANCE).is_none() {
        return Ok(None);
    }
    let records: Vec<ProvenanceRecord> = records(dir, bytes, tags::PROVENANCE)?;
    let r = match records.as_slice() {
        [] => return Ok(None),
        [r] => r,
        more => {
            return Err(FormatError::corrupt(format!(
                "section PROV holds {} records, expected 0 or 1",
                more.len()
            )));
        }
    };
    if r.reserved != [0; 3] {
        return Err(FormatError::corrupt(
            "reserved provenance fields are not zero",
        ));
    }
    for (what, s) in [("options", r.options), ("baker", r.baker)] {
        if s.len as usize > MAX_PROVENANCE_TEXT {
            return Err(FormatError::corrupt(format!(
                "provenance {what} text is {} bytes, more than {MAX_PROVENANCE_TEXT}",
                s.len
            )));
        }
    }
    Ok(Some(Provenance {
        inputs: r.inputs,
        files: r.files,
        options: strings.get(r.options, &|| "provenance options".into())?,
        baker: strings.get(r.baker, &|| "provenance baker".into())?,
    }))
}
