//! [`Observer`]: what a caller sees of jobs in flight — each job's start,
//! frames, phase and end — to draw progress (the CLI's bars) or log it.
//! Every method has an empty default; `()` observes nothing.

use crate::jobs::Job;
use crate::outcome::Outcome;

/// What runs now in a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Hashing the inputs and reading the output's record.
    Checking,
    /// Importing, sampling and measuring the clips, LODs.
    Frames,
    /// Capturing the impostor on a GPU adapter.
    Impostor,
    /// Encoding and writing the `.throng`.
    Writing,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::Checking => "checking",
            Phase::Frames => "frames",
            Phase::Impostor => "impostor",
            Phase::Writing => "writing",
        })
    }
}

/// Sees jobs in flight; called from the threads that run them, so it is
/// `Sync`, and a call must not block for long.
pub trait Observer: Sync {
    /// `job` enters `phase`.
    fn phase(&self, job: &Job, phase: Phase) {
        let _ = (job, phase);
    }

    /// `done` of `total` frames of `job` are sampled and measured.
    fn frames(&self, job: &Job, done: u64, total: u64) {
        let _ = (job, done, total);
    }

    /// `job` ended after `seconds`.
    fn finished(&self, job: &Job, outcome: Result<&Outcome, &crate::PipelineError>, seconds: f64) {
        let _ = (job, outcome, seconds);
    }
}

/// Observes nothing.
impl Observer for () {}
