//! [`Outcome`]: how a job ended when it did not fail, [`Baked`], what
//! a bake that ran made, and [`JobResult`], a job with how it ended. Below both the job ([`crate::one`]) and the
//! observer ([`crate::observe`]), which shows it to the caller, so the
//! observer need not reach up into the job.

use throng_bake::BakeReport;
use throng_core::BakedModel;

use crate::error::PipelineError;
use crate::jobs::Job;

/// A bake that ran.
#[derive(Debug)]
pub struct Baked {
    /// The model written.
    pub model: BakedModel,
    /// Its report.
    pub report: BakeReport,
    /// Bytes written.
    pub file_bytes: u64,
    /// Seconds from start to written.
    pub seconds: f64,
    /// Seconds the impostor capture took, if one was captured.
    pub impostor_seconds: Option<f64>,
}

impl Baked {
    /// The worst measured error, relative to the bounding radius: at the
    /// frames or between them.
    pub fn worst_error(&self) -> f32 {
        self.report.error.rel.max(self.report.error_between.rel)
    }
}

/// How a job ended, when it did not fail.
#[derive(Debug)]
pub enum Outcome {
    /// Baked and written.
    Baked(Box<Baked>),
    /// The output is up to date: nothing baked or written.
    UpToDate {
        /// Size of the existing output.
        file_bytes: u64,
    },
}

/// How one job ended.
#[derive(Debug)]
pub struct JobResult {
    /// The job.
    pub job: Job,
    /// Its outcome, or why it failed.
    pub result: Result<Outcome, PipelineError>,
    /// Seconds it ran.
    pub seconds: f64,
    /// The frames file its output refers to, shared with other bodies
    /// (`None`: the output holds its own frames; [`crate::shared_files`]).
    pub frames_file: Option<std::path::PathBuf>,
}
