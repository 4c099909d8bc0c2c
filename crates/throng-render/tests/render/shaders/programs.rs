//! Every WGSL program parses and validates, every WGSL file of the crate
//! (in `shaders/`, or beside its feature's Rust in `src/`) is part
//! of a program and matches what was built in, every import names a module
//! and each program lists its modules once, the packaged path validates
//! without capabilities and storage buffers, and the storage paths need
//! three vertex storage buffers.

use std::collections::{BTreeMap, BTreeSet};

use throng_render::bind_groups;
use throng_render::shader::{MODULES, Program, imports};
use throng_tests::wgsl::validate;

use super::parse;

#[test]
fn every_program_parses_and_validates() {
    for p in Program::ALL {
        parse(p);
    }
}

/// Every `.wgsl` file under `dir`, by module name (its file stem), with
/// its path; a name found twice fails.
fn wgsl_files(dir: &std::path::Path, found: &mut BTreeMap<String, std::path::PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            wgsl_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if let Some(other) = found.insert(name.clone(), path.clone()) {
                panic!(
                    "two modules named {name}: {} and {}",
                    other.display(),
                    path.display()
                );
            }
        }
    }
}

#[test]
fn every_shader_file_is_known_and_used() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeMap::new();
    wgsl_files(&root.join("shaders"), &mut files);
    wgsl_files(&root.join("src"), &mut files);
    let on_disk: BTreeSet<String> = files.keys().cloned().collect();
    assert!(!on_disk.is_empty(), "no shader found in {}", root.display());
    let known: BTreeSet<String> = MODULES.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        on_disk, known,
        "the crate's .wgsl files and throng_render::shader::MODULES disagree"
    );
    // simulation.wgsl is validated composed with a hook, the steering
    // modules composed into Throng's own hook (navigate.wgsl), and
    // shadow_receiver.wgsl with a receiving fragment stage (bindings.rs).
    let used: BTreeSet<&str> = Program::ALL
        .iter()
        .flat_map(|p| p.modules())
        .chain([
            "simulation",
            "navigate",
            "navigation",
            "steer_seek",
            "steer_avoid",
            "goal_exchange",
            "shadow_receiver",
        ])
        .collect();
    for (name, text) in MODULES {
        assert!(
            used.contains(name),
            "{name}.wgsl is in no program, so nothing validates it"
        );
        let on_disk = std::fs::read_to_string(&files[*name]).unwrap();
        assert_eq!(&on_disk, text, "{name}.wgsl changed on disk; rebuild");
    }
}

#[test]
fn every_import_names_a_module_and_programs_list_their_modules_once() {
    for (name, text) in MODULES {
        for (line, import) in imports(text) {
            assert!(
                ["prelude", "records"].contains(&import)
                    || MODULES.iter().any(|(m, _)| *m == import),
                "{name}.wgsl:{line}: imports unknown module {import:?}"
            );
        }
    }
    for p in Program::ALL {
        let modules = p.modules();
        let unique: BTreeSet<_> = modules.iter().collect();
        assert_eq!(unique.len(), modules.len(), "{p:?}: {modules:?}");
        assert_eq!(modules.last(), Some(&p.entry()), "{p:?}: entry last");
        assert_eq!(
            p.source().matches("const PACKAGE_WIDTH").count(),
            1,
            "{p:?}: one prelude"
        );
    }
}

/// The packaged path is the downlevel one (GL / WebGL2-class adapters): its
/// programs must validate without the capabilities such adapters lack and
/// must not read storage buffers, which those adapters cannot bind in the
/// vertex stage.
#[test]
fn the_packaged_path_needs_no_storage_buffers() {
    for p in [
        Program::DrawPackaged,
        Program::ShadowPackaged,
        Program::ImpostorPackaged,
        Program::ImpostorCastPackaged,
    ] {
        let module = validate(
            &format!("{p:?} (no capabilities)"),
            &p.source(),
            naga::valid::Capabilities::empty(),
        );
        for (_, var) in module.global_variables.iter() {
            assert!(
                !matches!(var.space, naga::AddressSpace::Storage { .. }),
                "{p:?}: global {:?} is a storage buffer",
                var.name
            );
        }
    }
}

#[test]
fn the_storage_paths_need_three_vertex_storage_buffers() {
    // Records, palettes, pose cache: an adapter with fewer per stage gets
    // the packaged path (supports_unbounded), not a failed pipeline.
    assert_eq!(bind_groups::vertex_storage_buffers(), 3);
}
