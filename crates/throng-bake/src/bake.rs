//! [`Scene`] → [`BakedModel`]: the driver that runs the bake's stages in
//! order, each in a module of its own with its input and output types, and
//! times each into [`BakeReport::stages`]:
//!
//! | stage | module | output |
//! |---|---|---|
//! | import | `inputs.rs` ([`crate::bake_file`] only) | the scene with its events, the LOD files' scenes |
//! | validate | `validate.rs` | — (the scene's validity rules, the options' ranges) |
//! | clips | `selection.rs` | `Selection`: the clips baked, in order |
//! | meshes | `mesh.rs` | `Meshes`: the palette and LOD 0 |
//! | budget | `budget.rs` | `FramePlan`: base frame counts, the frames the bound may add |
//! | root motion | `root_motion.rs` | the root-motion node |
//! | rest frame | `sampling.rs` | `RestFrame`: frame 0 sampled and measured |
//! | rate | `rate.rs` | `ErrorTarget`: the error bound in model units |
//! | sample and measure | `sampling.rs`, `measure.rs` | `FrameTable`: every frame, its bounds and errors |
//! | texture | `texture.rs` | `PackedTexture`: texels and layout |
//! | images | `images.rs` | the materials' images: mip chains in the codec |
//! | assemble | `assemble.rs` | the model with LOD 0, the report |
//! | LODs | `lod.rs` | LODs from files and by simplification |
//! | check | — | the model's validity rules ([`BakedModel::validate`]) |
//!
//! The impostor and write stages live outside this crate: `throng-impostor`
//! renders the impostor atlas and `throng_core::format` writes the file; the
//! CLI (`throng bake`) chains them after this driver.
//!
//! The options and the types the stages share are in `options.rs`, below
//! every stage, so the arrows inside the crate run one way: the driver
//! imports the stages, a stage imports only what it reads (options, the
//! scene, the output types of the stages before it), and none imports the
//! driver.
//!
//! # Frames
//! Global frame 0 is the rest pose
//! ([`REST_FRAME`](throng_core::limits::REST_FRAME)); each selected clip
//! then adds n uniformly spaced frames from 0 to D: at least
//! `max(2, round(D·F) + 1)` for the base rate F, more where the rate search
//! (`rate.rs`) finds that the error between frames would exceed
//! `max_error`, at most what `max_fps` gives.
//! Every clip is measured against the reference on skinned vertices at its
//! frames and between them; the errors are stored per clip.
//!
//! # Budget
//! Before any frame is sampled, the bake's size at the base rate is estimated
//! from the frame counts, the palette and the meshes, and a bake over
//! [`BakeOptions::max_bake_bytes`] (or over
//! [`MAX_CLIPS`](throng_core::limits::MAX_CLIPS) clips) is refused naming its
//! longest clip: a hostile key time cannot make the baker run for minutes
//! and fill memory. The frames the error bound adds come out of what the
//! budget has left.

use web_time::Instant;

use throng_core::model::BakedModel;

use crate::assemble::{Parts, assemble};
use crate::budget::plan_frames;
use crate::error::BakeError;
use crate::images::bake_images;
use crate::lod::add_lods;
use crate::mesh::Meshes;
use crate::root_motion::root_motion_node;
use crate::sample::PoseEvaluator;
use crate::sampling::Sampler;
use crate::scene::Scene;
use crate::selection::Selection;
use crate::texture::pack_texels;
use crate::validate::validate;

pub use crate::mesh::WEIGHT_SUM_TOLERANCE;
pub use crate::options::{BakeOptions, Progress, RootMotionSource};
pub use crate::report::{BakeReport, ClipSummary, ErrorSite, InfluenceStats, StageTime, clip_rate};

/// Bakes a validated-or-not scene (it is validated first). LOD files are
/// ignored here (see [`bake_with_lods`]); generated LODs are made.
pub fn bake(
    scene: &Scene,
    opts: &BakeOptions,
    progress: Progress,
) -> Result<(BakedModel, BakeReport), BakeError> {
    bake_with_lods(scene, &[], opts, progress)
}

/// [`bake`], with the meshes of `lod_scenes` (name, scene) as LODs 1, 2, …
/// before the generated ones.
pub fn bake_with_lods(
    scene: &Scene,
    lod_scenes: &[(String, Scene)],
    opts: &BakeOptions,
    progress: Progress,
) -> Result<(BakedModel, BakeReport), BakeError> {
    let mut report = BakeReport::default();
    let mut clock = StageClock::start();
    validate(scene, opts)?;
    clock.lap("validate");
    let selection = Selection::of(scene, opts)?;
    clock.lap("clips");
    let eval = PoseEvaluator::new(scene);
    let rest = eval.globals(None, 0.0);
    let meshes = Meshes::convert(scene, &rest, &mut report)?;
    clock.lap("meshes");
    let plan = plan_frames(scene, &selection, &meshes, opts)?;
    report.estimated_bytes = plan.estimate.total();
    clock.lap("budget");
    let root = match &opts.root_motion {
        Some(src) => Some(root_motion_node(scene, src)?),
        None => None,
    };
    clock.lap("root motion");
    let sampler = Sampler {
        scene,
        eval: &eval,
        meshes: &meshes,
        selection: &selection,
        plan: &plan,
        root,
    };
    let rest_frame = sampler.rest_frame(&rest, opts.precision);
    clock.lap("rest frame");
    let target = sampler.error_target(&rest_frame, opts.max_error);
    clock.lap("rate");
    let mut frames = sampler.sample_and_measure(rest_frame, &target, opts, progress);
    clock.lap("sample and measure");
    let rows = std::mem::take(&mut frames.rows);
    let texture = pack_texels(rows, scene, &meshes.palette, opts)?;
    clock.lap("texture");
    let images = bake_images(&scene.images, &scene.materials, opts.texture_codec);
    clock.lap("images");
    let parts = Parts {
        scene,
        rest: &rest,
        selection: &selection,
        base_frames: &plan.base_frames,
        root,
        meshes,
        frames,
        texture,
        images,
    };
    let mut model = assemble(parts, opts, &mut report);
    clock.lap("assemble");
    add_lods(&mut model, lod_scenes, opts, &mut report)?;
    clock.lap("LODs");
    model.validate()?;
    clock.lap("check");
    report.stages = clock.laps;
    Ok((model, report))
}

/// The driver's stopwatch: each lap closes a stage.
struct StageClock {
    /// When the current stage began.
    since: Instant,
    /// The stages closed so far.
    laps: Vec<StageTime>,
}

impl StageClock {
    fn start() -> Self {
        Self {
            since: Instant::now(),
            laps: Vec::new(),
        }
    }

    /// Closes `stage`, which ran from the last lap until now.
    fn lap(&mut self, stage: &'static str) {
        let now = Instant::now();
        self.laps.push(StageTime {
            stage,
            time: now - self.since,
        });
        self.since = now;
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use web_time::Instant;

    use super::*;

    #[test]
    fn every_stage_is_timed_in_order() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_SimpleSkin.gltf");
        let start = Instant::now();
        let (_, report) = crate::bake_file(&path, &BakeOptions::default(), &|_, _| {}).unwrap();
        let elapsed = start.elapsed();
        let names: Vec<&str> = report.stages.iter().map(|s| s.stage).collect();
        assert_eq!(
            names,
            [
                "import",
                "validate",
                "clips",
                "meshes",
                "budget",
                "root motion",
                "rest frame",
                "rate",
                "sample and measure",
                "texture",
                "images",
                "assemble",
                "LODs",
                "check"
            ]
        );
        let timed: std::time::Duration = report.stages.iter().map(|s| s.time).sum();
        assert!(timed <= elapsed, "{timed:?} timed, {elapsed:?} elapsed");
    }
}
