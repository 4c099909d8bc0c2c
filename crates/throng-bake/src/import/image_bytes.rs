//! An image's bytes to RGBA8, whichever container a pipeline shipped them
//! in: PNG, JPEG and WebP (`EXT_texture_webp`) through the `image` crate,
//! KTX2 with Basis Universal payloads (`KHR_texture_basisu`, ETC1S or
//! UASTC, Zstandard-supercompressed or not) through the pure-Rust `basisu`
//! transcoder. Every size is read from the header and held to
//! `MAX_IMAGE_SIDE` texels a side before a texel is decoded; anything that
//! does not decode comes back as a sentence for the caller's warning.

use crate::scene::SourceImage;
use throng_core::limits::MAX_IMAGE_SIDE;

/// KTX 2.0's file identifier (the KTX 2.0 specification, section 3.1).
const KTX2_MAGIC: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, b'\r', b'\n', 0x1A, b'\n',
];

/// `bytes` decoded to RGBA8 and named `name`, or why not, in a phrase
/// that follows the image's name ("is not a PNG, …", "cannot be decoded
/// (…)", "is 9000×9000, outside …").
pub(super) fn decode(name: String, bytes: &[u8]) -> Result<SourceImage, String> {
    let format = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        image::ImageFormat::Png
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        image::ImageFormat::Jpeg
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        // EXT_texture_webp's images (lossless or lossy).
        image::ImageFormat::WebP
    } else if bytes.starts_with(&KTX2_MAGIC) {
        // A panic in the transcoder (a young port of a C++ one) is a
        // broken image too, as in the Draco decoder.
        return std::panic::catch_unwind(|| ktx2(name, bytes)).unwrap_or_else(|_| {
            Err("cannot be decoded as KTX2 (the transcoder failed on it)".into())
        });
    } else {
        return Err("not a PNG, JPEG, WebP or KTX2 image".into());
    };
    let reader = || image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let (w, h) = reader()
        .into_dimensions()
        .map_err(|e| format!("cannot be decoded ({e})"))?;
    check_side(w, h)?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    // The texels at 16 bits a channel, and the RGBA8 copy.
    limits.max_alloc = Some(w as u64 * h as u64 * 12);
    let mut r = reader();
    r.limits(limits);
    let rgba = r
        .decode()
        .map_err(|e| format!("cannot be decoded ({e})"))?
        .into_rgba8();
    Ok(SourceImage {
        name,
        width: w,
        height: h,
        rgba: rgba.into_raw(),
    })
}

/// A KTX2 image's base level transcoded to RGBA8 (the bake makes its own
/// mip chain from it, in its own codec, as it does for a PNG). Colour
/// stays as the file encodes it: an sRGB-transfer KTX2 gives sRGB bytes,
/// as a PNG does; the material slot says how they are read.
fn ktx2(name: String, bytes: &[u8]) -> Result<SourceImage, String> {
    use basisu::{DecodeFlags, TargetFormat, Transcoder};
    // The transcoder allocates what the header and level index claim
    // (a Zstandard level's uncompressed length, found by fuzzing: 77 GB
    // from a one-word edit), so they are held to the image's size first.
    check_ktx2_header(bytes)?;
    let undecodable = |e: basisu::Error| format!("cannot be decoded as KTX2 ({})", said(&e));
    let texture = Transcoder::new(bytes).map_err(undecodable)?;
    // The sides the header check held to the limit.
    let (w, h) = texture.base_dimensions();
    if texture.is_video() {
        return Err(
            "is a KTX2 video (its frames depend on each other); a texture is one image".into(),
        );
    }
    let rgba = texture
        .transcode(0, TargetFormat::Rgba32, DecodeFlags::NONE)
        .map_err(undecodable)?;
    let expected = w as usize * h as usize * 4;
    if rgba.len() != expected {
        return Err(format!(
            "cannot be decoded as KTX2 (its base level transcoded to {} bytes, not the {expected} of {w}×{h} RGBA)",
            rgba.len()
        ));
    }
    Ok(SourceImage {
        name,
        width: w,
        height: h,
        rgba,
    })
}

/// KTX 2.0's header and level index (the specification's section 3), read
/// before the transcoder sees the file: a 2D image 1..=`MAX_IMAGE_SIDE`
/// texels a side, one layer and one face, at most a full mip chain, and
/// every level inside the file and no larger, uncompressed, than 16 bytes
/// per 4×4 block of its size (UASTC's rate, the largest of the Basis
/// payloads; BasisLZ levels claim 0).
fn check_ktx2_header(bytes: &[u8]) -> Result<(), String> {
    let word = |at: usize| -> Result<u64, String> {
        bytes
            .get(at..at + 4)
            .map(|b| u64::from(u32::from_le_bytes(b.try_into().unwrap_or_default())))
            .ok_or_else(|| "cannot be decoded as KTX2 (cut short in its header)".to_string())
    };
    let long = |at: usize| -> Result<u64, String> {
        bytes
            .get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
            .ok_or_else(|| "cannot be decoded as KTX2 (cut short in its level index)".to_string())
    };
    let (w, h) = (word(20)?, word(24)?);
    let (depth, layers, faces, levels) = (word(28)?, word(32)?, word(36)?, word(40)?);
    let side = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    check_side(side(w), side(h))?;
    if depth > 1 {
        return Err(format!(
            "is a KTX2 3D texture ({depth} deep); a glTF texture is one 2D image"
        ));
    }
    if faces > 1 {
        return Err(format!(
            "is a KTX2 cube map ({faces} faces); a glTF texture is one 2D image"
        ));
    }
    if layers > 1 {
        return Err(format!(
            "is a KTX2 texture array ({layers} layers); a glTF texture is one 2D image"
        ));
    }
    let full_chain = u64::from(64 - w.max(h).leading_zeros());
    if levels > full_chain {
        return Err(format!(
            "cannot be decoded as KTX2 (it claims {levels} mip levels; a {w}×{h} image has at most {full_chain})"
        ));
    }
    let file = bytes.len() as u64;
    for level in 0..levels.max(1) {
        let at = 80 + 24 * level as usize;
        let (offset, length, unpacked) = (long(at)?, long(at + 8)?, long(at + 16)?);
        if offset.checked_add(length).is_none_or(|end| end > file) {
            return Err(format!(
                "cannot be decoded as KTX2 (level {level}, {length} bytes at {offset}, runs past the file's {file})"
            ));
        }
        let blocks = |v: u64| (v >> level).max(1).div_ceil(4);
        let most = blocks(w) * blocks(h) * 16;
        if unpacked > most {
            return Err(format!(
                "cannot be decoded as KTX2 (level {level} claims {unpacked} bytes uncompressed, more than the {most} of its size)"
            ));
        }
    }
    Ok(())
}

/// The transcoder's error in words.
fn said(e: &basisu::Error) -> String {
    use basisu::Error;
    match e {
        Error::InvalidData => "not a Basis Universal KTX2 file, or corrupt".into(),
        Error::Truncated => "cut short, or an offset points outside the file".into(),
        Error::Unsupported { source, .. } => {
            format!("its {source:?} payload does not transcode to RGBA")
        }
        Error::UnsupportedFeature(what) => {
            format!("uses what the transcoder does not read: {what}")
        }
        Error::VideoRequiresState => "a video".into(),
        Error::InvalidImageOrLevel => "has no base level".into(),
        Error::ZstdRequired => "Zstandard-supercompressed, and Zstandard is not built in".into(),
        other => format!("{other:?}"),
    }
}

/// `w`×`h` is 1..=`MAX_IMAGE_SIDE` a side, or the sentence saying it is not.
fn check_side(w: u32, h: u32) -> Result<(), String> {
    if w == 0 || h == 0 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
        return Err(format!(
            "is {w}×{h}, outside the 1..={MAX_IMAGE_SIDE} texels a side an image may have"
        ));
    }
    Ok(())
}
