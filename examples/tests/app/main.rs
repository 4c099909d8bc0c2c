//! The examples' code paths, headless and under Xvfb: an application's own
//! pass with Throng's crowd in it (embedding) and the GPU-steered flock.

mod embedding;
mod flock;
mod readme;
