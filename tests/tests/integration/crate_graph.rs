//! The crate graph is part of the design (ARCHITECTURE.md): the runtime —
//! the contract crate, the crowd simulation and the renderer — never
//! depends on the offline side (glTF import, the source `Scene`, baking)
//! or on the demos' scenery (`throng-demo`).
//! The compiler enforces it only as long as nobody adds the dependency; this
//! test fails when someone does, naming the path through the graph.
//!
//! Inside each crate, imports between files run down too: no two files
//! reach each other, and none climbs a floor ARCHITECTURE.md declares
//! (`tools/floors.py`, which this test runs; it names the files).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Crates that run in a user's application: the runtime's three and the
/// façade `throng` with its default features (its offline crates are
/// optional, behind its `bake` feature).
const RUNTIME: [&str; 4] = ["throng-core", "throng-crowd", "throng-render", "throng"];

/// What the runtime must never link: the offline side, and the demos'
/// scenery (herds, walkers, the plaza and its pillars), which a game that
/// depends on the runtime must not compile.
const OFFLINE: [&str; 3] = ["throng-bake", "gltf", "throng-demo"];

/// Normal (not dev, not build, not optional: what default features link)
/// dependencies declared by every workspace package, by package name. Third-party crates appear as leaves: the rule is
/// about what the workspace's own crates pull in, and `--no-deps` needs no
/// registry (a full resolve would want every platform's crates downloaded).
fn normal_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(throng_tests::repo_root())
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata JSON");
    let mut graph = BTreeMap::new();
    for package in meta["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("package name").to_owned();
        let deps: BTreeSet<String> = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null() && d["optional"] != Value::Bool(true))
            .map(|d| d["name"].as_str().expect("dependency name").to_owned())
            .collect();
        graph.insert(name, deps);
    }
    graph
}

/// A dependency path from `from` to `to`, if there is one.
fn path(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from.to_owned()]);
    let mut seen = BTreeSet::from([from.to_owned()]);
    while let Some(n) = queue.pop_front() {
        if n == to {
            let mut p = vec![n.clone()];
            let mut cur = n;
            while let Some(up) = parent.get(&cur) {
                p.push(up.clone());
                cur = up.clone();
            }
            p.reverse();
            return Some(p);
        }
        for d in graph.get(&n).into_iter().flatten() {
            if seen.insert(d.clone()) {
                parent.insert(d.clone(), n.clone());
                queue.push_back(d.clone());
            }
        }
    }
    None
}

#[test]
fn the_runtime_never_depends_on_the_offline_side() {
    let graph = normal_dependencies();
    for krate in RUNTIME {
        assert!(graph.contains_key(krate), "{krate} is not in the workspace");
        for banned in OFFLINE {
            if let Some(p) = path(&graph, krate, banned) {
                panic!(
                    "{krate} depends on {banned}: {}; the runtime must not link the offline side or the demos' scenery (ARCHITECTURE.md)",
                    p.join(" → ")
                );
            }
        }
    }
}

#[test]
fn the_path_finder_finds_a_known_dependency() {
    // The check above is only as good as its graph walk: the offline crate
    // does reach gltf, and the CLI reaches everything.
    let graph = normal_dependencies();
    assert!(path(&graph, "throng-bake", "gltf").is_some());
    assert!(path(&graph, "throng-viewer", "throng-demo").is_some());
    let p = path(&graph, "throng-cli", "throng-core").expect("cli → core");
    assert_eq!(p.first().map(String::as_str), Some("throng-cli"));
}

/// `tools/floors.py` finds no import circle between the files of a crate
/// and no import that climbs a declared floor.
#[test]
fn imports_between_files_run_down_their_floors() {
    let root = throng_tests::repo_root();
    let floors = |arg: &std::path::Path| {
        Command::new("python3")
            .arg(root.join("tools/floors.py"))
            .arg(arg)
            .output()
            .expect("python3 runs tools/floors.py (Debian: apt-get install python3)")
    };
    // The checker finds the circle and the climbing import it plants in a
    // made-up tree, so a pass below means something.
    let planted = floors(std::path::Path::new("--self-test"));
    assert!(
        planted.status.success(),
        "tools/floors.py --self-test: {}",
        String::from_utf8_lossy(&planted.stderr)
    );
    let out = floors(&root);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "tools/floors.py failed:\n{text}");
}
