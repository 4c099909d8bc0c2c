//! `--layer` end to end through the `throng` binary (`throng sample
//! --source baked`, no GPU): a full-weight layer samples as its clip alone,
//! a weightless one as the base clip, a masked one as neither, and bad
//! specs are refused with what is wrong.

use std::process::{Command, Output};

use serde_json::Value;

use crate::common::worst_distance;

fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("running the throng binary")
}

/// `throng sample`'s positions for `args`.
fn positions(args: &[&str]) -> Vec<[f64; 3]> {
    let out = throng(args);
    assert!(
        out.status.success(),
        "throng {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::common::positions(&serde_json::from_slice::<Value>(&out.stdout).unwrap())
}

/// Half the largest extent of the points: the scale tolerances are
/// relative to.
fn radius(p: &[[f64; 3]]) -> f64 {
    (0..3)
        .map(|i| {
            let (lo, hi) = p.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| {
                (lo.min(v[i]), hi.max(v[i]))
            });
            hi - lo
        })
        .fold(0.0, f64::max)
        * 0.5
}

#[test]
fn sample_with_layers() {
    let fox = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_Fox.glb");
    let fox = fox.to_str().unwrap();
    let base = [
        "sample", fox, "--source", "baked", "--clip", "Walk", "--times", "0.3",
    ];
    let with = |layer: &str| {
        let mut args = base.to_vec();
        args.extend(["--layer", layer]);
        positions(&args)
    };
    let walk = positions(&base);
    let survey = positions(&[
        "sample", fox, "--source", "baked", "--clip", "Survey", "--times", "1.7",
    ]);
    let r = radius(&walk);
    // At a baked frame (time 0) a full layer is its clip, but for f32
    // rounding; between frames the layer blends the interpolated matrix's
    // rotation and scale (its shear is dropped), within the bake's bound.
    let at_frame = positions(&[
        "sample", fox, "--source", "baked", "--clip", "Survey", "--times", "0",
    ]);
    let d = worst_distance(&at_frame, &with("Survey,time=0"));
    assert!(
        d <= 1e-5 * r,
        "a full layer is {d} from its clip (radius {r})"
    );
    let d = worst_distance(&survey, &with("Survey,time=1.7"));
    assert!(
        d <= 1e-3 * r,
        "between frames a full layer is {d} from its clip (radius {r})"
    );
    let none = with("Survey,time=1.7,weight=0");
    assert_eq!(worst_distance(&walk, &none), 0.0);
    let masked = with("Survey,time=1.7,mask=b_Spine01_02");
    assert!(
        worst_distance(&walk, &masked) > 1e-2 * r && worst_distance(&survey, &masked) > 1e-2 * r
    );

    for (layer, says) in [
        ("Survey,mask=Spine", "no bone named \"Spine\""),
        ("Dance", "no clip named \"Dance\""),
        ("Survey,weight=2", "weight 2 is not in [0, 1]"),
    ] {
        let mut args = base.to_vec();
        args.extend(["--layer", layer]);
        let out = throng(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{layer}: {err}"
        );
    }
    let out = throng(&[
        "sample", fox, "--clip", "Walk", "--times", "0.3", "--layer", "Survey",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--layer needs --source baked"));
}
