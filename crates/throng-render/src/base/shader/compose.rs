//! Composition by declared imports: the imports a source states
//! ([`imports`]), the virtual `records` module's choice
//! ([`records_module`]), and [`compose`], which emits every module once,
//! dependencies first, or names the file and line of an unknown import or a
//! cycle ([`ShaderError`]).

use std::collections::BTreeSet;

use thiserror::Error;

use crate::base::options::RecordPath;
use crate::base::shader::prelude::prelude;
use crate::base::shader::sources::{MODULES, module_source};

/// The import directive, after `//` and optional spaces.
const IMPORT: &str = "#import";

/// The module that provides `instance_record()` for a record path: the one
/// place where the uniform-versus-storage choice of the WGSL is made.
pub fn records_module(path: RecordPath) -> &'static str {
    match path {
        RecordPath::Packaged => "records_uniform",
        RecordPath::Unbounded | RecordPath::GpuDriven => "records_storage",
    }
}

/// A shader could not be composed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ShaderError {
    /// An import names no module.
    #[error(
        "{file}:{line}: imports {name:?}, which is not a Throng shader module (known: {known})"
    )]
    UnknownModule {
        /// The importing file.
        file: String,
        /// 1-based line.
        line: usize,
        /// The name imported.
        name: String,
        /// The names that exist.
        known: String,
    },
    /// `records` is imported but the composition has no record path.
    #[error(
        "{file}:{line}: imports \"records\", but no record path was given (compose with Some(RecordPath))"
    )]
    NoRecordPath {
        /// The importing file.
        file: String,
        /// 1-based line.
        line: usize,
    },
    /// A source lacks an import it must have (a custom fragment shader
    /// without `draw`, which holds the vertex stage it is paired with).
    #[error(
        "{file}: imports neither {name:?} nor a module that imports it (add a line `// #import {name}`)"
    )]
    MissingImport {
        /// The source.
        file: String,
        /// The module it must import.
        name: String,
    },
    /// Modules import each other in a circle.
    #[error("import cycle: {0}")]
    Cycle(String),
}

/// The imports a source declares: `(line, name)`, 1-based lines.
pub fn imports(source: &str) -> Vec<(usize, &str)> {
    source
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let rest = line.trim_start().strip_prefix("//")?.trim_start();
            let name = rest.strip_prefix(IMPORT)?.trim();
            Some((i + 1, name))
        })
        .collect()
}

/// Composes `source` (named `file` in errors) with the modules it imports,
/// transitively: the prelude if anything imports it, every module once,
/// dependencies first, then `source`. `records` resolves the virtual
/// `records` module.
pub fn compose(
    file: &str,
    source: &str,
    records: Option<RecordPath>,
) -> Result<String, ShaderError> {
    let mut out = String::new();
    let mut done = BTreeSet::new();
    let mut stack = vec![file.to_owned()];
    emit_imports(file, source, records, &mut stack, &mut done, &mut out)?;
    out.push_str(&format!("\n// ---- {file}\n"));
    out.push_str(source);
    Ok(out)
}

fn emit_imports(
    file: &str,
    source: &str,
    records: Option<RecordPath>,
    stack: &mut Vec<String>,
    done: &mut BTreeSet<&'static str>,
    out: &mut String,
) -> Result<(), ShaderError> {
    for (line, name) in imports(source) {
        let name: &'static str = match name {
            "prelude" => "prelude",
            "records" => records_module(records.ok_or_else(|| ShaderError::NoRecordPath {
                file: file.to_owned(),
                line,
            })?),
            other => MODULES
                .iter()
                .find(|(n, _)| *n == other)
                .map(|(n, _)| *n)
                .ok_or_else(|| ShaderError::UnknownModule {
                    file: file.to_owned(),
                    line,
                    name: other.to_owned(),
                    known: std::iter::once("prelude")
                        .chain(std::iter::once("records"))
                        .chain(MODULES.iter().map(|(n, _)| *n))
                        .collect::<Vec<_>>()
                        .join(", "),
                })?,
        };
        if stack.iter().any(|s| s == name) {
            let mut cycle = stack.clone();
            cycle.push(name.to_owned());
            return Err(ShaderError::Cycle(cycle.join(" → ")));
        }
        if done.contains(name) {
            continue;
        }
        if name == "prelude" {
            out.push_str(&prelude());
        } else {
            let text = module_source(name).expect("resolved above");
            stack.push(name.to_owned());
            emit_imports(name, text, records, stack, done, out)?;
            stack.pop();
            out.push_str(&format!("\n// ---- {name}.wgsl\n"));
            out.push_str(text);
        }
        done.insert(name);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_read_from_comment_lines() {
        let src = "// #import skinning\n  //#import records\nfn f() {}\n// not an import\n";
        assert_eq!(imports(src), vec![(1, "skinning"), (2, "records")]);
    }

    #[test]
    fn each_module_is_emitted_once_dependencies_first() {
        let src = "// #import draw\n// #import skinning\nfn user() {}\n";
        let out = compose("user.wgsl", src, Some(RecordPath::Unbounded)).unwrap();
        let order: Vec<&str> = out
            .lines()
            .filter_map(|l| l.strip_prefix("// ---- "))
            .collect();
        assert_eq!(
            order,
            [
                "instance_record.wgsl",
                "skinning.wgsl",
                "octahedral.wgsl",
                "pose_cache.wgsl",
                "records_storage.wgsl",
                "fog.wgsl",
                "pbr.wgsl",
                "material.wgsl",
                "draw.wgsl",
                "user.wgsl"
            ]
        );
        assert_eq!(out.matches("const PACKAGE_WIDTH").count(), 1, "{out}");
    }

    #[test]
    fn the_record_path_picks_the_records_module() {
        let src = "// #import records\n";
        let packaged = compose("a.wgsl", src, Some(RecordPath::Packaged)).unwrap();
        assert!(packaged.contains("// ---- records_uniform.wgsl"));
        assert!(!packaged.contains("records_storage"));
        let err = compose("a.wgsl", src, None).unwrap_err();
        assert_eq!(
            err,
            ShaderError::NoRecordPath {
                file: "a.wgsl".into(),
                line: 1
            }
        );
    }

    #[test]
    fn an_unknown_import_names_file_line_and_name() {
        let err = compose("mine.wgsl", "\n// #import skinnning\n", None).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("mine.wgsl:2: imports \"skinnning\""),
            "{msg}"
        );
        assert!(msg.contains("skinning"), "lists the known modules: {msg}");
    }

    #[test]
    fn a_self_import_is_a_cycle() {
        // A user file cannot import itself by name, but a module that did
        // would be caught: simulate with the entry's own name on the stack.
        let mut done = BTreeSet::new();
        let mut out = String::new();
        let mut stack = vec!["skinning".to_owned()];
        let err = emit_imports(
            "x.wgsl",
            "// #import skinning\n",
            None,
            &mut stack,
            &mut done,
            &mut out,
        )
        .unwrap_err();
        assert_eq!(err, ShaderError::Cycle("skinning → skinning".into()));
    }
}
