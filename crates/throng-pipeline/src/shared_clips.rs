//! Shared clips ([`crate::Settings::shared_clips`]): bodies baked together
//! get each clip at the same frame count, so that bodies of one build
//! (one skeleton, one set of proportions, one animation library) bake the
//! same frames and share one bone texture on the GPU
//! (`throng_render::SharedFrames`).
//!
//! The error-bounded search picks a clip's frame count from the body's
//! mesh (its vertices' distance from their joints): two bodies of one
//! build can need different counts, and their frames then differ. After
//! the jobs ran, each clip's largest count over every body is its floor;
//! each body below a floor is baked again from there
//! ([`throng_bake::BakeOptions::min_clip_frames`]), which keeps the error
//! bound (the search may still go higher, and then the floor rises for
//! the next round). Rounds repeat until no body is below a floor, at most
//! [`MAX_ROUNDS`] times.

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;

use crate::error::PipelineError;
use crate::observe::Observer;
use crate::one::{Outcome, bake_one};
use crate::outcome::JobResult;
use crate::settings::Settings;

/// Rounds of baking again after the first bake, at most.
pub const MAX_ROUNDS: usize = 3;

/// Each clip's frame count in a job's output, by name: from the model
/// baked, or read from the output found up to date.
fn clip_frames(result: &JobResult) -> Option<Vec<(String, u32)>> {
    let counts = |m: &throng_core::BakedModel| {
        m.clips
            .iter()
            .map(|c| (c.name.clone(), c.frame_count))
            .collect()
    };
    match result.result.as_ref().ok()? {
        Outcome::Baked(b) => Some(counts(&b.model)),
        Outcome::UpToDate { .. } => throng_core::format::read_file(&result.job.output)
            .ok()
            .map(|m| counts(&m)),
    }
}

/// Each clip's largest frame count over `results`.
fn floors(results: &[JobResult]) -> BTreeMap<String, u32> {
    let mut floors = BTreeMap::new();
    for counts in results.iter().filter_map(clip_frames) {
        for (name, n) in counts {
            let f = floors.entry(name).or_insert(0);
            *f = (*f).max(n);
        }
    }
    floors
}

/// Whether a job's output has a clip below its floor.
fn below(result: &JobResult, floors: &BTreeMap<String, u32>) -> bool {
    clip_frames(result).is_some_and(|counts| {
        counts
            .iter()
            .any(|(name, n)| floors.get(name).is_some_and(|f| n < f))
    })
}

/// Bakes again, with the floors, every job of `results` that has a clip
/// below its floor, until none has (or [`MAX_ROUNDS`] rounds ran). A job
/// that fails in a round keeps that failure as its result.
pub(crate) fn even_out(results: &mut [JobResult], settings: &Settings, observer: &dyn Observer) {
    for _ in 0..MAX_ROUNDS {
        let floors = floors(results);
        let again: Vec<usize> = (0..results.len())
            .filter(|&i| below(&results[i], &floors))
            .collect();
        if again.is_empty() {
            return;
        }
        let raised = Settings {
            opts: throng_bake::BakeOptions {
                min_clip_frames: floors.into_iter().collect(),
                ..settings.opts.clone()
            },
            force: true,
            ..settings.clone()
        };
        let redone: Vec<(usize, Result<Outcome, PipelineError>, f64)> = again
            .into_par_iter()
            .map(|i| {
                let job = &results[i].job;
                let started = Instant::now();
                let result = bake_one(job, &raised, observer);
                let seconds = started.elapsed().as_secs_f64();
                observer.finished(job, result.as_ref(), seconds);
                (i, result, seconds)
            })
            .collect();
        for (i, result, seconds) in redone {
            results[i].result = result;
            results[i].seconds += seconds;
        }
    }
}
