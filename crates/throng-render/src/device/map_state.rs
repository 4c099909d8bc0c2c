//! The state of a buffer being mapped for reading, shared by the thread
//! that asks for the map and reads it and wgpu's map callback, which runs
//! on whichever thread polls the device (a user may poll from another
//! thread than the one that renders).
//!
//! Every transition is one atomic compare-and-exchange, so of two threads
//! that race to take a mapped buffer exactly one gets it, and a take that
//! sees [`Take::Mapped`] happens after everything the callback did
//! (release/acquire). [`crate::passes::readback::PoseReadback`] and the cull pass's
//! readback ring ([`crate::passes::cull`]) use it; `tests/render/map_state_loom.rs`
//! checks the protocol under every interleaving `loom` explores. The cell
//! is generic ([`StateCell`]) only so that `loom`'s atomic can stand in
//! for the standard one there.

use std::sync::atomic::{AtomicU8, Ordering};

/// An atomic byte: the standard one, or a model checker's.
pub trait StateCell: Send + Sync {
    /// A cell holding `v`.
    fn new(v: u8) -> Self;
    /// The value.
    fn load(&self, order: Ordering) -> u8;
    /// Replaces `current` with `new` if it holds `current` (`AcqRel` on
    /// success, `Acquire` on failure: every step of the protocol publishes
    /// what it did and sees what the previous one published); the value
    /// found either way.
    fn compare_exchange(&self, current: u8, new: u8) -> Result<u8, u8>;
}

impl StateCell for AtomicU8 {
    fn new(v: u8) -> Self {
        AtomicU8::new(v)
    }

    fn load(&self, order: Ordering) -> u8 {
        AtomicU8::load(self, order)
    }

    fn compare_exchange(&self, current: u8, new: u8) -> Result<u8, u8> {
        AtomicU8::compare_exchange(self, current, new, Ordering::AcqRel, Ordering::Acquire)
    }
}

/// No map asked for: the buffer may be written and mapped again.
const IDLE: u8 = 0;
/// A map was asked for; the callback has not run.
const PENDING: u8 = 1;
/// Mapped, not yet taken.
const MAPPED: u8 = 2;
/// The map failed (the buffer is not mapped).
const FAILED: u8 = 3;
/// Taken by one reader, who unmaps it and then [`MapState::release`]s.
const TAKEN: u8 = 4;

/// What [`MapState::take`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Take {
    /// No map was asked for.
    Idle,
    /// The callback has not run yet.
    Pending,
    /// The buffer is mapped and the caller now owns the reading of it.
    Mapped,
    /// The map failed.
    Failed,
    /// Another caller took it before.
    Taken,
}

/// A map's state (see the module docs).
#[derive(Debug)]
pub struct MapState<C: StateCell = AtomicU8>(C);

impl<C: StateCell> MapState<C> {
    /// Idle: no map asked for.
    pub fn idle() -> Self {
        Self(C::new(IDLE))
    }

    /// Pending: for a map asked for at once.
    pub fn pending() -> Self {
        Self(C::new(PENDING))
    }

    /// Idle → pending, before a map is asked for; false if the buffer is
    /// still in use (pending, mapped or taken), and then no map may be
    /// asked for.
    pub fn begin(&self) -> bool {
        self.0.compare_exchange(IDLE, PENDING).is_ok()
    }

    /// The map callback: pending → mapped (`ok`) or failed. A callback for
    /// a state that is not pending changes nothing.
    pub fn complete(&self, ok: bool) {
        let to = if ok { MAPPED } else { FAILED };
        let _ = self.0.compare_exchange(PENDING, to);
    }

    /// Mapped → taken for exactly one caller, who gets [`Take::Mapped`];
    /// anything else is reported as found.
    pub fn take(&self) -> Take {
        match self.0.compare_exchange(MAPPED, TAKEN) {
            Ok(_) => Take::Mapped,
            Err(IDLE) => Take::Idle,
            Err(PENDING) => Take::Pending,
            Err(FAILED) => Take::Failed,
            Err(_) => Take::Taken,
        }
    }

    /// Taken or failed → idle, once the taker has unmapped the buffer (or
    /// the failure was seen), so that [`Self::begin`] may map it again.
    /// True if it was released.
    pub fn release(&self) -> bool {
        [TAKEN, FAILED]
            .into_iter()
            .any(|from| self.0.compare_exchange(from, IDLE).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_goes_round_and_is_taken_once() {
        let s: MapState = MapState::idle();
        assert_eq!(s.take(), Take::Idle);
        assert!(s.begin());
        assert!(!s.begin(), "a pending buffer is not mapped twice");
        assert_eq!(s.take(), Take::Pending);
        s.complete(true);
        s.complete(false);
        assert_eq!(s.take(), Take::Mapped);
        assert_eq!(s.take(), Take::Taken);
        assert!(
            !s.begin(),
            "a taken buffer is not mapped again before release"
        );
        assert!(s.release());
        assert!(!s.release());
        assert!(s.begin());
        s.complete(false);
        assert_eq!(s.take(), Take::Failed);
        assert!(s.release());
        assert_eq!(s.take(), Take::Idle);
    }
}
