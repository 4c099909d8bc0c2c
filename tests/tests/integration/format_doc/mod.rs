//! `docs/FORMAT.md` against the code, so the documentation of the `.throng`
//! file cannot drift from what `throng_core::format` writes and reads.
//!
//! The field tables of the doc (header, directory entry, string reference and
//! every record) are parsed and compared with the Rust structs through
//! `offset_of!`/`size_of`; the header of a real file is then read at the
//! documented offsets from raw bytes, the checksum recomputed with a CRC-32
//! written from the doc's description, and the whole file rebuilt by a writer
//! that follows only the doc's layout rules, which must give the same bytes.
//! Finally the bulk sections (`VERT`, `INDX`, `TEXL`) are viewed in place
//! without copying, and the texel addressing and frame-table rules of the doc
//! are checked against the CPU pose evaluator.
//!
//! - `tables`: the documented field tables and section table against the
//!   structs and the writer;
//! - `bytes`: the header at its documented offsets, and a writer built from
//!   the doc that gives the same bytes;
//! - `bulk`: the bulk sections viewed in place, and the texel addressing and
//!   frame table.
//!
//! This file holds the doc's table parser, the bake of the test model and the
//! little-endian readers the modules share.

use throng_bake::{BakeOptions, bake_file};
use throng_core::model::BakedModel;
use throng_tests::{asset, repo_root};

mod bulk;
mod bytes;
mod tables;

const MODEL: &str = "khronos_RiggedSimple.glb";

fn bake(name: &str, opts: &BakeOptions) -> BakedModel {
    bake_file(&asset(name), opts, &|_, _| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .0
}

fn doc() -> String {
    let path = repo_root().join("docs/FORMAT.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cells of the first markdown table after the first heading that
/// `is_heading` accepts, header and separator rows included.
fn table_after(doc: &str, what: &str, is_heading: impl Fn(&str) -> bool) -> Vec<Vec<String>> {
    let mut lines = doc
        .lines()
        .skip_while(|l| !(l.starts_with('#') && is_heading(l)));
    assert!(
        lines.next().is_some(),
        "docs/FORMAT.md has no heading for {what}"
    );
    let rows: Vec<Vec<String>> = lines
        .skip_while(|l| !l.starts_with('|') && !l.starts_with('#'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().replace('`', ""))
                .collect()
        })
        .collect();
    assert!(
        rows.len() > 2,
        "docs/FORMAT.md: no table under the heading of {what}"
    );
    rows
}

/// One row of a documented field table.
#[derive(Debug)]
struct Row {
    offset: usize,
    size: usize,
    ty: String,
    field: String,
}

/// The field table under the heading that names `key` in backticks.
fn field_table(doc: &str, key: &str) -> Vec<Row> {
    let needle = format!("`{key}`");
    table_after(doc, key, |h| h.contains(&needle))
        .into_iter()
        .filter_map(|cells| {
            let offset = cells.first()?.parse().ok()?; // skips header and separator rows
            assert!(cells.len() >= 4, "{key}: short row {cells:?}");
            Some(Row {
                offset,
                size: cells[1]
                    .parse()
                    .unwrap_or_else(|_| panic!("{key}: bad size in {cells:?}")),
                ty: cells[2].clone(),
                field: cells[3].clone(),
            })
        })
        .collect()
}

/// Size in bytes of a documented type: `u32`, `f32[3]`, `StrRef`, ...
fn type_size(ty: &str) -> usize {
    let (base, count) = match ty.split_once('[') {
        Some((base, n)) => (base, n.trim_end_matches(']').parse::<usize>().unwrap()),
        None => (ty, 1),
    };
    let base = match base {
        "u8" => 1,
        "u16" | "i16" | "f16" => 2,
        "u32" | "f32" => 4,
        "u64" | "StrRef" => 8,
        "TextureSlotRecord" => 32,
        other => panic!("docs/FORMAT.md uses an undocumented type {other:?}"),
    };
    base * count
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
