//! A flow field computed off the frame: [`FieldJob`] takes the grid and
//! goals, solves them on a worker thread (its layers on as many more as
//! [`FlowField::compute_with`] uses), and hands the field over when it is
//! done — polled once a frame with [`FieldJob::try_take`], so a field of
//! 1024² cells or more never stalls a frame; the agents keep following the
//! field they have until the new one is set. On wasm32, where a page
//! cannot block its thread on a worker here, the field is computed when
//! the job is made.

use std::sync::mpsc::{self, Receiver, TryRecvError};

use super::distance::FieldOptions;
use super::error::NavigationError;
use super::field::FlowField;
use super::goal::Goal;
use super::grid::ObstacleGrid;

/// What a job ends with.
pub type FieldResult = Result<FlowField, NavigationError>;

/// A flow field being computed (see the module docs).
#[derive(Debug)]
pub struct FieldJob {
    state: State,
}

#[derive(Debug)]
enum State {
    /// On its worker.
    Running(Receiver<FieldResult>),
    /// Done, not yet taken.
    Done(Box<FieldResult>),
    /// Taken.
    Taken,
}

impl FieldJob {
    /// Starts computing the field of `goals` over `grid` weighed by
    /// `options` on a worker thread (where a thread cannot be started,
    /// here and now).
    pub fn spawn(grid: ObstacleGrid, goals: Vec<Goal>, options: FieldOptions) -> Self {
        let work = move || FlowField::compute_with(&grid, &goals, &options);
        if cfg!(target_arch = "wasm32") {
            return Self::done(work());
        }
        let (send, receive) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("throng flow field".into())
            .spawn(move || {
                // The job may have been dropped: then no one listens.
                let _ = send.send(work());
            });
        match spawned {
            Ok(_) => Self {
                state: State::Running(receive),
            },
            Err(e) => Self::done(Err(NavigationError::Worker(e.to_string()))),
        }
    }

    fn done(result: FieldResult) -> Self {
        Self {
            state: State::Done(Box::new(result)),
        }
    }

    /// The field (or why there is none) once the worker is done, `None`
    /// while it works and after it was taken. Never blocks.
    pub fn try_take(&mut self) -> Option<FieldResult> {
        if let State::Running(receive) = &self.state {
            match receive.try_recv() {
                Ok(result) => self.state = State::Done(Box::new(result)),
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    let lost = NavigationError::Worker("the worker ended without a field".into());
                    self.state = State::Done(Box::new(Err(lost)));
                }
            }
        }
        match std::mem::replace(&mut self.state, State::Taken) {
            State::Done(result) => Some(*result),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Waits for the field (blocking this thread): for tools and tests
    /// that have nothing else to do. `None` once taken.
    pub fn wait(mut self) -> Option<FieldResult> {
        if let State::Running(receive) = &self.state {
            let result = receive.recv().unwrap_or_else(|_| {
                Err(NavigationError::Worker(
                    "the worker ended without a field".into(),
                ))
            });
            self.state = State::Done(Box::new(result));
        }
        self.try_take()
    }
}
