//! Frames files and the models that refer to them (`frames.rs`): written
//! and read back to the same model, and every way a reference can be wrong
//! refused with the file named.

use super::tests::sample;
use super::*;
use crate::error::FormatError;

const NAME: &str = "bodies.throng-frames";

/// The error of `r`, which must be one (without printing a whole model
/// or file when it is not).
fn refused<T>(r: Result<T, FormatError>, what: &str) -> String {
    match r {
        Ok(_) => panic!("{what}: accepted"),
        Err(e) => e.to_string(),
    }
}

fn model() -> crate::BakedModel {
    read_model(&sample()).unwrap()
}

#[test]
fn a_model_referring_to_its_frames_reads_back_the_same_model() {
    let m = model();
    let frames = write_frames(&m.texture);
    let bytes = write_model_referring(&m, NAME).unwrap();
    let own = write_model(&m).unwrap();
    let texel_bytes = m.texture.texels.as_bytes().len();
    assert!(
        bytes.len() + texel_bytes <= own.len() + 128,
        "the referring model ({} bytes) holds no texels ({} bytes in the model's own file)",
        bytes.len(),
        own.len()
    );
    assert_eq!(frames_file(&bytes).unwrap().as_deref(), Some(NAME));
    assert_eq!(frames_file(&own).unwrap(), None);
    assert!(
        read_model_with_frames(&bytes, &frames).unwrap() == m,
        "read back with its frames"
    );
    assert!(
        read_frames(&frames).unwrap() == m.texture,
        "the frames file's texture"
    );
    match read_model(&bytes) {
        Err(FormatError::FramesElsewhere { file }) => assert_eq!(file, NAME),
        other => panic!("read_model of a referring model: {other:?}"),
    }
}

#[test]
fn read_file_takes_the_frames_file_beside_the_model() {
    let m = model();
    let dir = std::env::temp_dir().join(format!("throng-frames-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("body.throng");
    std::fs::write(&path, write_model_referring(&m, NAME).unwrap()).unwrap();
    let missing = refused(read_file(&path), "without the frames file");
    assert!(missing.contains(NAME), "without the frames file: {missing}");
    std::fs::write(dir.join(NAME), write_frames(&m.texture)).unwrap();
    let read = read_file(&path);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(read.unwrap() == m, "read_file with the frames file beside");
}

#[test]
fn other_frames_a_model_instead_of_frames_and_damaged_frames_are_refused() {
    let m = model();
    let bytes = write_model_referring(&m, NAME).unwrap();
    let mut other = m.texture.clone();
    match &mut other.texels {
        crate::model::Texels::F32(t) => t[5][1] += 1.0,
        crate::model::Texels::F16(t) => t[5][1] = half::f16::from_f32(t[5][1].to_f32() + 1.0),
    }
    let cases = [
        (
            "frames baked for other bodies",
            write_frames(&other),
            "BLAKE3",
        ),
        ("a model", write_model(&m).unwrap(), "MODL"),
        (
            "half a frames file",
            write_frames(&m.texture)[..100].to_vec(),
            "truncated",
        ),
    ];
    for (what, frames, says) in cases {
        let e = refused(read_model_with_frames(&bytes, &frames), what);
        assert!(e.contains(NAME) && e.contains(says), "{what}: {e}");
    }
}

#[test]
fn names_outside_the_model_s_folder_are_refused_on_write_and_on_read() {
    let m = model();
    for name in [
        "",
        "../up.throng-frames",
        "/etc/passwd.throng-frames",
        "sub/dir.throng-frames",
        "c:drive.throng-frames",
        "..throng-frames",
        ".throng-frames",
        "frames.bin",
        "line\nbreak.throng-frames",
    ] {
        let e = refused(write_model_referring(&m, name), name);
        assert!(e.contains("frames file name"), "{name:?} written: {e}");
    }
    // Written under a good name of the same length, then renamed in place
    // (string table and checksum): the reader refuses it as well.
    let good = "aaaaaaaaaaaaaaaaaaa.throng-frames";
    let hostile = "../../../../../../a.throng-frames";
    assert_eq!(good.len(), hostile.len());
    let mut bytes = write_model_referring(&m, good).unwrap();
    let at = bytes
        .windows(good.len())
        .position(|w| w == good.as_bytes())
        .unwrap();
    bytes[at..at + good.len()].copy_from_slice(hostile.as_bytes());
    let sum = crc32fast::hash(&bytes[HEADER_SIZE..]);
    bytes[28..32].copy_from_slice(&sum.to_le_bytes());
    let e = refused(frames_file(&bytes), hostile);
    assert!(e.contains("folder separator"), "read: {e}");
}
