//! What the `throng` binary's tests share: running it for its output,
//! reading `throng sample`'s positions and comparing two samplings.

// Each test binary uses some of these.
#![allow(dead_code)]

use serde_json::Value;

/// The positions of a `throng sample` document's first frame, every mesh
/// in order.
pub fn positions(doc: &Value) -> Vec<[f64; 3]> {
    doc["frames"][0]["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["positions"].as_array().unwrap().clone())
        .map(|x| x.as_f64().unwrap())
        .collect::<Vec<_>>()
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect()
}

/// The stdout of a `throng` run that must succeed (its stderr in the
/// panic otherwise).
pub fn throng_stdout(args: &[&str]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("running the throng binary");
    assert!(
        output.status.success(),
        "throng {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The JSON a successful `throng` run prints.
pub fn throng_json(args: &[&str]) -> Value {
    serde_json::from_str(&throng_stdout(args)).unwrap_or_else(|e| panic!("throng {args:?}: {e}"))
}

/// The largest distance between corresponding points.
pub fn worst_distance(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(p, q)| (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>().sqrt())
        .fold(0.0, f64::max)
}
