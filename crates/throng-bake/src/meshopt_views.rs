//! Buffer views compressed with meshoptimizer's codecs
//! (`EXT_meshopt_compression`, and its successor `KHR_meshopt_compression`
//! with the newer vertex codec and the colour filter), decoded at import
//! by the `meshopt` crate's bindings of meshoptimizer's own decoders: the
//! vertex codec (`ATTRIBUTES`), the index codecs (`TRIANGLES`, `INDICES`)
//! and the filters (`OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL`, `COLOR`).
//! A decoded view's bytes stand in for the view's own, which lie in a
//! *fallback* buffer that has no data of its own (a buffer whose extension
//! says `"fallback": true`).
//!
//! The compressed bytes are untrusted: every field is checked against the
//! extension's rules, the source range against its buffer, the decoded
//! size against the view's `byteLength` and against a budget for the whole
//! file ([`MAX_DECODED_VIEW_BYTES`]) before anything is allocated, and a
//! stream the decoder refuses is an error naming the view.

use gltf::json;
use serde_json::Value;
use throng_core::limits::MAX_DECODED_VIEW_BYTES;

use crate::error::ImportError;

/// The two names of the extension.
const NAMES: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// True if `buffer` is a fallback buffer of the extension (no data of its
/// own; only compressed views refer to it).
pub(crate) fn is_fallback(buffer: &json::buffer::Buffer) -> bool {
    let Some(ext) = &buffer.extensions else {
        return false;
    };
    NAMES.iter().any(|n| {
        ext.others
            .get(*n)
            .and_then(|e| e.get("fallback"))
            .and_then(Value::as_bool)
            == Some(true)
    })
}

/// The decoded bytes of every compressed view, by view index (`None`: the
/// view is not compressed). `buffers` are the file's loaded buffers.
pub(crate) fn decode_views(
    root: &json::Root,
    buffers: &[Vec<u8>],
) -> Result<Vec<Option<Vec<u8>>>, ImportError> {
    let mut total = 0usize;
    let mut out = Vec::with_capacity(root.buffer_views.len());
    for (i, view) in root.buffer_views.iter().enumerate() {
        let found = view
            .extensions
            .as_ref()
            .and_then(|e| NAMES.iter().find_map(|n| Some((*n, e.others.get(*n)?))));
        let Some((name, ext)) = found else {
            out.push(None);
            continue;
        };
        let path = format!("bufferViews[{i}].extensions.{name}");
        let stream = Stream::parse(ext, name == NAMES[1], &path)?;
        let decoded_len = stream.count.checked_mul(stream.stride);
        let Some(decoded_len) = decoded_len.filter(|&n| n as u64 == view.byte_length.0) else {
            return Err(broken(
                &path,
                format!(
                    "count {} × byteStride {} is not the view's byteLength {}",
                    stream.count, stream.stride, view.byte_length.0
                ),
            ));
        };
        total = total.saturating_add(decoded_len);
        if total > MAX_DECODED_VIEW_BYTES {
            return Err(broken(
                &path,
                format!(
                    "the compressed views decode to more than {MAX_DECODED_VIEW_BYTES} bytes together"
                ),
            ));
        }
        let source = buffers
            .get(stream.buffer)
            .and_then(|b| b.get(stream.offset..stream.offset.checked_add(stream.length)?))
            .ok_or_else(|| {
                broken(
                    &path,
                    format!(
                        "bytes {}..+{} of buffers[{}] are not in the file",
                        stream.offset, stream.length, stream.buffer
                    ),
                )
            })?;
        out.push(Some(stream.decode(source, &path)?));
    }
    Ok(out)
}

fn broken(path: &str, rule: String) -> ImportError {
    ImportError::BrokenRule {
        path: path.to_owned(),
        rule,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
    Color,
}

impl Mode {
    /// As the extension spells it.
    fn name(self) -> &'static str {
        match self {
            Mode::Attributes => "ATTRIBUTES",
            Mode::Triangles => "TRIANGLES",
            Mode::Indices => "INDICES",
        }
    }
}

impl Filter {
    /// As the extension spells it.
    fn name(self) -> &'static str {
        match self {
            Filter::None => "NONE",
            Filter::Octahedral => "OCTAHEDRAL",
            Filter::Quaternion => "QUATERNION",
            Filter::Exponential => "EXPONENTIAL",
            Filter::Color => "COLOR",
        }
    }
}

/// One view's extension object, checked.
#[derive(Debug)]
struct Stream {
    buffer: usize,
    offset: usize,
    length: usize,
    stride: usize,
    count: usize,
    mode: Mode,
    filter: Filter,
}

impl Stream {
    /// The extension object `ext` (`khr`: the KHR version, which adds the
    /// colour filter), checked against the extension's rules.
    fn parse(ext: &Value, khr: bool, path: &str) -> Result<Self, ImportError> {
        let field = |name: &str| -> Result<Option<usize>, ImportError> {
            match ext.get(name) {
                None => Ok(None),
                Some(v) => v
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .map(Some)
                    .ok_or_else(|| broken(path, format!("{name} {v} is not a whole number"))),
            }
        };
        let required = |name: &str| -> Result<usize, ImportError> {
            field(name)?.ok_or_else(|| broken(path, format!("{name} is missing")))
        };
        let text = |name: &str| {
            ext.get(name)
                .map(|v| v.as_str().unwrap_or("(not a string)"))
        };
        let mode = match text("mode") {
            Some("ATTRIBUTES") => Mode::Attributes,
            Some("TRIANGLES") => Mode::Triangles,
            Some("INDICES") => Mode::Indices,
            Some(other) => return Err(broken(path, format!("unknown mode {other:?}"))),
            None => return Err(broken(path, "mode is missing".into())),
        };
        let filter = match text("filter") {
            None | Some("NONE") => Filter::None,
            Some("OCTAHEDRAL") => Filter::Octahedral,
            Some("QUATERNION") => Filter::Quaternion,
            Some("EXPONENTIAL") => Filter::Exponential,
            Some("COLOR") if khr => Filter::Color,
            Some(other) => return Err(broken(path, format!("unknown filter {other:?}"))),
        };
        let s = Self {
            buffer: required("buffer")?,
            offset: field("byteOffset")?.unwrap_or(0),
            length: required("byteLength")?,
            stride: required("byteStride")?,
            count: required("count")?,
            mode,
            filter,
        };
        s.check(path)?;
        Ok(s)
    }

    /// The extension's rules on stride, count and filter per mode.
    fn check(&self, path: &str) -> Result<(), ImportError> {
        let (stride, count) = (self.stride, self.count);
        let rule = match self.mode {
            Mode::Attributes if stride == 0 || stride % 4 != 0 || stride > 256 => Some(format!(
                "ATTRIBUTES byteStride {stride} is not a multiple of 4 in 4..=256"
            )),
            Mode::Triangles | Mode::Indices if stride != 2 && stride != 4 => Some(format!(
                "{} byteStride {stride} is neither 2 nor 4",
                self.mode.name()
            )),
            Mode::Triangles if count % 3 != 0 => {
                Some(format!("TRIANGLES count {count} is not a multiple of 3"))
            }
            Mode::Triangles | Mode::Indices if self.filter != Filter::None => Some(format!(
                "{} with filter {}",
                self.mode.name(),
                self.filter.name()
            )),
            _ => None,
        };
        let filter_rule = match (self.filter, stride) {
            (Filter::Octahedral | Filter::Color, 4 | 8) | (Filter::Quaternion, 8) => None,
            (Filter::Exponential, _) | (Filter::None, _) => None,
            (f, s) => Some(format!("filter {} with byteStride {s}", f.name())),
        };
        match rule.or(filter_rule) {
            Some(rule) => Err(broken(path, rule)),
            None => Ok(()),
        }
    }

    #[cfg(feature = "meshopt")]
    /// Decodes `source` (the stream's bytes) and applies the filter.
    fn decode(&self, source: &[u8], path: &str) -> Result<Vec<u8>, ImportError> {
        use meshopt::encoding as codec;
        let refused = |e: meshopt::Error| {
            broken(
                path,
                format!(
                    "the {} stream of {} bytes does not decode to {} elements of {} bytes ({e})",
                    self.mode.name(),
                    self.length,
                    self.count,
                    self.stride
                ),
            )
        };
        let bytes = match (self.mode, self.stride) {
            (Mode::Attributes, _) => {
                let mut words =
                    decode_vertices(source, self.count, self.stride).map_err(refused)?;
                self.filter_words(&mut words);
                words.iter().flat_map(|w| w.to_le_bytes()).collect()
            }
            (Mode::Triangles, 2) => le_bytes_u16(
                &codec::decode_index_buffer::<u16>(source, self.count).map_err(refused)?,
            ),
            (Mode::Triangles, _) => le_bytes_u32(
                &codec::decode_index_buffer::<u32>(source, self.count).map_err(refused)?,
            ),
            (Mode::Indices, 2) => le_bytes_u16(
                &codec::decode_index_sequence::<u16>(source, self.count).map_err(refused)?,
            ),
            (Mode::Indices, _) => le_bytes_u32(
                &codec::decode_index_sequence::<u32>(source, self.count).map_err(refused)?,
            ),
        };
        Ok(bytes)
    }

    /// Without meshoptimizer in this build (the web's bake): refused.
    #[cfg(not(feature = "meshopt"))]
    fn decode(&self, _source: &[u8], path: &str) -> Result<Vec<u8>, ImportError> {
        Err(broken(
            path,
            "its EXT_meshopt_compression streams need meshoptimizer, which this build of the bake (the web's) leaves out: bake it natively, or export it without meshopt compression".into(),
        ))
    }

    #[cfg(feature = "meshopt")]
    /// Applies the filter to decoded vertices (`self.stride / 4` words
    /// each, checked by [`Self::check`]).
    fn filter_words(&self, words: &mut [u32]) {
        use meshopt::encoding as codec;
        match (self.filter, self.stride) {
            (Filter::None, _) => {}
            (Filter::Octahedral, 4) => {
                codec::decode_filter_oct::<i8>(bytemuck::cast_slice_mut(words))
            }
            (Filter::Octahedral, _) => {
                codec::decode_filter_oct::<i16>(bytemuck::cast_slice_mut(words))
            }
            (Filter::Quaternion, _) => codec::decode_filter_quat(bytemuck::cast_slice_mut(words)),
            (Filter::Color, 4) => codec::decode_filter_color::<i8>(bytemuck::cast_slice_mut(words)),
            (Filter::Color, _) => {
                codec::decode_filter_color::<i16>(bytemuck::cast_slice_mut(words))
            }
            // Each 32-bit word decodes alone: one word per element is the
            // same as the element's words.
            (Filter::Exponential, _) => {
                codec::decode_filter_exp::<1>(bytemuck::cast_slice_mut(words))
            }
        }
    }
}

#[cfg(feature = "meshopt")]
fn le_bytes_u16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[cfg(feature = "meshopt")]
fn le_bytes_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One decoded vertex of `N` words (the codec's vertex size is the type's).
#[cfg(feature = "meshopt")]
#[derive(Clone, Copy)]
struct Vertex<const N: usize>([u32; N]);

#[cfg(feature = "meshopt")]
impl<const N: usize> Default for Vertex<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

#[cfg(feature = "meshopt")]
fn decode_as<const N: usize>(source: &[u8], count: usize) -> meshopt::Result<Vec<u32>> {
    let v: Vec<Vertex<N>> = meshopt::encoding::decode_vertex_buffer(source, count)?;
    Ok(v.iter().flat_map(|x| x.0).collect())
}

/// `count` vertices of `stride` bytes (a multiple of 4 up to 256), as
/// words: the codec's vertex size must be the stride, so each stride has
/// its own instance.
#[cfg(feature = "meshopt")]
fn decode_vertices(source: &[u8], count: usize, stride: usize) -> meshopt::Result<Vec<u32>> {
    macro_rules! by_words {
        ($($n:literal)*) => {
            match stride / 4 {
                $($n => decode_as::<$n>(source, count),)*
                _ => Err(meshopt::Error::Memory("a stride beyond 256 bytes".into())),
            }
        };
    }
    by_words!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
        31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
        61 62 63 64)
}
