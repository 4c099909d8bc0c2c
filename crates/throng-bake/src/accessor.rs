//! Bounds-checked glTF accessor reading.
//!
//! The `gltf` crate's own reader trusts the file (it slices with computed
//! ranges and `debug_assert`s element types), so Throng reads accessors here,
//! as [`crate::gltf_doc`] resolved them (every index already checked):
//! every byte range is checked against its buffer view and buffer, element
//! types are checked against what the semantic allows, sparse accessors are
//! applied with their indices checked, and integers are normalised per the glTF
//! specification. Errors name the accessor's JSON path.
//!
//! An accessor without a `bufferView` is valid glTF: its elements are zeros,
//! then its sparse substitutions (if any) apply. Its size is not bounded by
//! the file's own bytes, so all such accessors of one import share a budget
//! of [`MAX_UNBACKED_COMPONENTS`].

use std::cell::Cell;

use throng_core::limits::MAX_UNBACKED_COMPONENTS;

use crate::error::ImportError;
use crate::gltf_doc::{Accessor, DataType, Dimensions, Sparse, View, to_usize};

/// Loaded buffer contents, indexed like `gltf.buffers`.
pub(crate) struct Buffers {
    /// Each buffer's bytes, `byteLength` long (none for a meshopt fallback
    /// buffer).
    pub data: Vec<Vec<u8>>,
    /// Each compressed buffer view's decoded bytes, by view index
    /// (`crate::meshopt_views`); they stand in for the view's own.
    decoded: Vec<Option<Vec<u8>>>,
    /// Each Draco-compressed primitive's accessors' values, raw and
    /// element-major, by accessor index (`crate::draco_primitives`); they
    /// stand in for the accessor's own (which has no buffer view).
    draco: std::collections::HashMap<usize, Vec<f64>>,
    /// Components allocated so far for accessors without a buffer view.
    unbacked: Cell<usize>,
}

/// What a semantic accepts.
#[derive(Clone, Copy)]
pub(crate) struct Expect {
    pub dims: &'static [Dimensions],
    pub types: &'static [DataType],
    /// Whether integer types are `normalized`.
    pub normalized: Norm,
}

/// Whether a semantic's integer components are `normalized`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Norm {
    /// Must be (float semantics of glTF 2.0's core).
    Required,
    /// Must not be (indices).
    Forbidden,
    /// Either: normalized ones are mapped to [0, 1] or [-1, 1], the others
    /// read as the integers they are (`KHR_mesh_quantization`'s positions
    /// and texture coordinates, dequantized by the node's or the texture
    /// transform's scale).
    Either,
}

pub(crate) const FLOAT_ONLY: &[DataType] = &[DataType::F32];
pub(crate) const UINTS: &[DataType] = &[DataType::U8, DataType::U16, DataType::U32];
pub(crate) const SMALL_UINTS: &[DataType] = &[DataType::U8, DataType::U16];
pub(crate) const FLOAT_OR_UNORM: &[DataType] = &[DataType::F32, DataType::U8, DataType::U16];
/// `KHR_mesh_quantization`'s positions, texture coordinates and morph
/// position offsets: any 8- or 16-bit integer, or float.
pub(crate) const QUANTIZED: &[DataType] = &[
    DataType::F32,
    DataType::I8,
    DataType::U8,
    DataType::I16,
    DataType::U16,
];
/// `KHR_mesh_quantization`'s normals and tangents: signed 8- or 16-bit
/// normalized, or float.
pub(crate) const FLOAT_OR_SNORM: &[DataType] = &[DataType::F32, DataType::I8, DataType::I16];
pub(crate) const FLOAT_OR_NORM: &[DataType] = &[
    DataType::F32,
    DataType::I8,
    DataType::U8,
    DataType::I16,
    DataType::U16,
];

fn type_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

fn dims_count(d: Dimensions) -> usize {
    d.multiplicity()
}

/// Reads one component at `bytes[0..size]` as f64, raw (not normalised).
fn read_component(t: DataType, b: &[u8]) -> f64 {
    match t {
        DataType::I8 => b[0] as i8 as f64,
        DataType::U8 => b[0] as f64,
        DataType::I16 => i16::from_le_bytes([b[0], b[1]]) as f64,
        DataType::U16 => u16::from_le_bytes([b[0], b[1]]) as f64,
        DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
    }
}

/// glTF §3.11 normalisation of integer components to floats.
fn normalise(t: DataType, v: f64) -> f64 {
    match t {
        DataType::I8 => (v / 127.0).max(-1.0),
        DataType::U8 => v / 255.0,
        DataType::I16 => (v / 32767.0).max(-1.0),
        DataType::U16 => v / 65535.0,
        DataType::U32 | DataType::F32 => v,
    }
}

/// Components of an accessor, flattened element-major.
pub(crate) struct Components {
    pub data_type: DataType,
    /// Integer components are normalized (glTF §3.11).
    pub normalized: bool,
    pub dims: usize,
    pub values: Vec<f64>,
}

impl Components {
    /// Number of elements.
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.dims).unwrap_or(0)
    }

    /// Values as f32, normalized integer types mapped to [0, 1] or
    /// [-1, 1], the others as the integers they are.
    pub fn to_f32(&self) -> Vec<f32> {
        if !self.normalized {
            return self.values.iter().map(|&v| v as f32).collect();
        }
        self.values
            .iter()
            .map(|&v| normalise(self.data_type, v) as f32)
            .collect()
    }

    /// Values as u32 (integer types only; checked by [`Expect`]).
    pub fn to_u32(&self) -> Vec<u32> {
        self.values.iter().map(|&v| v as u32).collect()
    }
}

impl Buffers {
    /// Wraps loaded buffers and the decoded compressed views.
    pub fn new(data: Vec<Vec<u8>>, decoded: Vec<Option<Vec<u8>>>) -> Self {
        Self {
            data,
            decoded,
            draco: Default::default(),
            unbacked: Cell::new(0),
        }
    }

    /// Sets the Draco-decoded accessors' values.
    pub fn set_draco(&mut self, draco: std::collections::HashMap<usize, Vec<f64>>) {
        self.draco = draco;
    }

    /// Byte slice of a buffer view, checked against its buffer.
    pub(crate) fn view(
        &self,
        view: &View,
        path: &dyn Fn() -> String,
    ) -> Result<&[u8], ImportError> {
        // A decoded view is exactly its byteLength (checked when decoded).
        if let Some(Some(decoded)) = self.decoded.get(view.index) {
            return Ok(decoded);
        }
        let buffer = self
            .data
            .get(view.buffer)
            .ok_or_else(|| ImportError::Accessor {
                path: path(),
                msg: format!("buffer view {} names a missing buffer", view.index),
            })?;
        let range = usize::try_from(view.offset).ok().and_then(|start| {
            let end = start.checked_add(usize::try_from(view.length).ok()?)?;
            (end <= buffer.len()).then_some(start..end)
        });
        let Some(range) = range else {
            return Err(ImportError::Accessor {
                path: path(),
                msg: format!(
                    "bufferViews[{}] spans bytes {}..{} but buffers[{}] has {} bytes",
                    view.index,
                    view.offset,
                    view.offset as u128 + view.length as u128,
                    view.buffer,
                    buffer.len()
                ),
            });
        };
        Ok(&buffer[range])
    }

    /// `count` elements of `elem` bytes at `offset` with `stride` inside `view`.
    fn elements(
        &self,
        view: &View,
        offset: u64,
        count: usize,
        elem: usize,
        path: &dyn Fn() -> String,
    ) -> Result<(Vec<&[u8]>, usize), ImportError> {
        let data = self.view(view, path)?;
        let offset = to_usize(offset);
        let stride = view.stride.unwrap_or(elem);
        if stride < elem {
            return Err(ImportError::Accessor {
                path: path(),
                msg: format!("byteStride {stride} is smaller than the {elem}-byte element"),
            });
        }
        let needed = count
            .checked_sub(1)
            .and_then(|c| c.checked_mul(stride))
            .and_then(|x| x.checked_add(elem))
            .and_then(|x| x.checked_add(offset));
        match needed {
            Some(n) if n <= data.len() => {}
            _ => {
                return Err(ImportError::Accessor {
                    path: path(),
                    msg: format!(
                        "{count} elements of {elem} bytes (stride {stride}) at offset {offset} do not fit in the {}-byte bufferViews[{}]",
                        data.len(),
                        view.index
                    ),
                });
            }
        }
        Ok((
            (0..count)
                .map(|i| &data[offset + i * stride..offset + i * stride + elem])
                .collect(),
            stride,
        ))
    }

    /// Reads an accessor, checking it against `expect`: its elements from
    /// their Draco stream, buffer view or zeros, then its sparse
    /// substitutions; floats must be finite.
    pub(crate) fn read(
        &self,
        acc: &Accessor,
        expect: Expect,
        path: &dyn Fn() -> String,
    ) -> Result<Components, ImportError> {
        let layout = checked_layout(acc, expect, path)?;
        let draco = self.draco.get(&acc.index);
        let mut values = match (&acc.view, draco) {
            (_, Some(values)) => draco_values(acc, layout, values, path)?,
            (Some(view), None) => self.view_values(acc, view, layout, path)?,
            (None, None) => self.zero_values(acc, layout, path)?,
        };
        if let Some(sparse) = &acc.sparse {
            self.apply_sparse(sparse, layout, &mut values, path)?;
        }
        let data_type = layout.data_type;
        if data_type == DataType::F32 && values.iter().any(|v| !v.is_finite()) {
            return Err(ImportError::Accessor {
                path: path(),
                msg: format!("accessors[{}] contains NaN or infinity", acc.index),
            });
        }
        Ok(Components {
            data_type,
            normalized: acc.normalized && data_type != DataType::F32,
            dims: layout.n,
            values,
        })
    }

    /// The components of an accessor stored in a buffer view, read
    /// element by element (the view's stride and bounds checked).
    fn view_values(
        &self,
        acc: &Accessor,
        view: &View,
        layout: Layout,
        path: &dyn Fn() -> String,
    ) -> Result<Vec<f64>, ImportError> {
        let Layout { n, elem, count, .. } = layout;
        let (elems, _) = self.elements(view, acc.offset, count, elem, path)?;
        let mut out = Vec::with_capacity(count * n);
        for e in elems {
            for c in 0..n {
                out.push(layout.component(e, c));
            }
        }
        Ok(out)
    }

    /// The zeros an accessor without a buffer view starts from (glTF 2.0
    /// §5.1.1), charged to the import's budget of
    /// [`MAX_UNBACKED_COMPONENTS`] (such an accessor's size is not bounded
    /// by the file's bytes).
    fn zero_values(
        &self,
        acc: &Accessor,
        layout: Layout,
        path: &dyn Fn() -> String,
    ) -> Result<Vec<f64>, ImportError> {
        let Layout { n, count, .. } = layout;
        let before = self.unbacked.get();
        let total = count
            .checked_mul(n)
            .and_then(|c| c.checked_add(before))
            .filter(|&t| t <= MAX_UNBACKED_COMPONENTS);
        let Some(total) = total else {
            return Err(ImportError::Accessor {
                path: path(),
                msg: format!(
                    "{}accessors[{}] without a bufferView declares {count} elements of {n} components; with the {before} components of such accessors read before it, that is over the limit of {MAX_UNBACKED_COMPONENTS} zero-filled components per file",
                    if acc.sparse.is_some() { "sparse " } else { "" },
                    acc.index
                ),
            });
        };
        self.unbacked.set(total);
        Ok(vec![0.0; count * n])
    }

    /// Writes a sparse accessor's substitutions over `values`: its indices
    /// must be in range and strictly increasing.
    fn apply_sparse(
        &self,
        sparse: &Sparse,
        layout: Layout,
        values: &mut [f64],
        path: &dyn Fn() -> String,
    ) -> Result<(), ImportError> {
        let Layout { n, elem, count, .. } = layout;
        let k = to_usize(sparse.count);
        if k == 0 || k > count {
            return Err(ImportError::Accessor {
                path: path(),
                msg: format!("sparse count {k} is outside 1..={count}"),
            });
        }
        let itype = sparse.index_type;
        let (ielems, _) = self.elements(
            &sparse.indices,
            sparse.indices_offset,
            k,
            type_size(itype),
            path,
        )?;
        let (velems, _) = self.elements(&sparse.values, sparse.values_offset, k, elem, path)?;
        let mut last: Option<usize> = None;
        for (ib, vb) in ielems.iter().zip(velems) {
            let i = read_component(itype, ib) as usize;
            if i >= count || last.is_some_and(|l| i <= l) {
                return Err(ImportError::Accessor {
                    path: path(),
                    msg: format!(
                        "sparse index {i} is out of range or not increasing (count {count})"
                    ),
                });
            }
            last = Some(i);
            for c in 0..n {
                values[i * n + c] = layout.component(vb, c);
            }
        }
        Ok(())
    }
}

/// An accessor's element shape, as [`Buffers::read`] walks it.
#[derive(Clone, Copy)]
struct Layout {
    data_type: DataType,
    /// Components per element.
    n: usize,
    /// Bytes per component.
    csize: usize,
    /// Bytes per element.
    elem: usize,
    /// Element count (at least 1).
    count: usize,
}

impl Layout {
    /// Component `c` of the element at `e`, raw (not normalised).
    fn component(&self, e: &[u8], c: usize) -> f64 {
        read_component(self.data_type, &e[c * self.csize..])
    }
}

/// Checks an accessor's element and component types, its `normalized`
/// flag and its count against `expect`, and gives its element shape.
fn checked_layout(
    acc: &Accessor,
    expect: Expect,
    path: &dyn Fn() -> String,
) -> Result<Layout, ImportError> {
    let (dims, data_type) = (acc.dims, acc.data_type);
    if !expect.dims.contains(&dims) || !expect.types.contains(&data_type) {
        return Err(ImportError::Accessor {
            path: path(),
            msg: format!(
                "accessors[{}] is {dims:?} of {data_type:?}; expected {:?} of {:?}",
                acc.index, expect.dims, expect.types
            ),
        });
    }
    let wrong = match expect.normalized {
        Norm::Required => !acc.normalized,
        Norm::Forbidden => acc.normalized,
        Norm::Either => false,
    };
    if data_type != DataType::F32 && wrong {
        return Err(ImportError::Accessor {
            path: path(),
            msg: format!(
                "accessors[{}] must {}be normalized",
                acc.index,
                if acc.normalized { "not " } else { "" }
            ),
        });
    }
    let n = dims_count(dims);
    let csize = type_size(data_type);
    let count = to_usize(acc.count);
    if count == 0 {
        return Err(ImportError::Accessor {
            path: path(),
            msg: format!(
                "accessors[{}] has count 0 (glTF requires at least 1)",
                acc.index
            ),
        });
    }
    Ok(Layout {
        data_type,
        n,
        csize,
        elem: n * csize,
        count,
    })
}

/// A Draco-compressed accessor's components, decoded from its
/// primitive's stream (the counts were checked against the accessor's
/// when decoded; checked again here).
fn draco_values(
    acc: &Accessor,
    layout: Layout,
    values: &[f64],
    path: &dyn Fn() -> String,
) -> Result<Vec<f64>, ImportError> {
    let Layout { n, count, .. } = layout;
    if values.len() != count * n {
        return Err(ImportError::Accessor {
            path: path(),
            msg: format!(
                "accessors[{}] decodes from Draco to {} components, not {count} × {n}",
                acc.index,
                values.len()
            ),
        });
    }
    Ok(values.to_vec())
}
