//! The examples' code paths, headless and under Xvfb: an application's own
//! pass with Throng's crowd in it (embedding), the GPU-steered flock and
//! the plaza steered by Throng's built-in hook.

mod embedding;
mod flock;
mod frames;
mod pillars;
mod plaza;
mod readme;
mod terrain;
