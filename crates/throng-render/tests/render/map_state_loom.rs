//! CPU-only, under the `loom` model checker: the map-state protocol of
//! [`throng_render::map_state`] (pose readbacks, the cull pass's readback
//! ring) in every interleaving loom explores, with the callback on one
//! thread and pollers on others.
//!
//! - Exactly one of two racing pollers takes a mapped buffer, and what the
//!   callback wrote before completing is what it reads. The mapped bytes
//!   are modelled by a relaxed atomic, whose stale values loom explores:
//!   without the release/acquire edge of the state, the taker could read
//!   the old value.
//! - A ring slot goes round twice — begin, complete on the callback's
//!   thread, take, release — and is never mapped while in use.
//! - The protocol the pose readback had before (load the state, then store
//!   "taken") lets both pollers decode: loom finds it, so these models can
//!   fail.

use loom::sync::Arc;
use loom::sync::atomic::{AtomicU8, AtomicU32, Ordering};
use loom::thread;
use throng_render::map_state::{MapState, StateCell, Take};

/// loom's atomic byte as a [`StateCell`].
struct Cell(AtomicU8);

impl StateCell for Cell {
    fn new(v: u8) -> Self {
        Cell(AtomicU8::new(v))
    }

    fn load(&self, order: Ordering) -> u8 {
        self.0.load(order)
    }

    fn compare_exchange(&self, current: u8, new: u8) -> Result<u8, u8> {
        (self.0).compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire)
    }
}

/// A buffer's mapped bytes, written by the callback, read by the taker.
struct Mapped {
    state: MapState<Cell>,
    data: AtomicU32,
}

fn poll(m: &Mapped) -> Option<u32> {
    match m.state.take() {
        Take::Mapped => Some(m.data.load(Ordering::Relaxed)),
        _ => None,
    }
}

#[test]
fn one_of_two_racing_pollers_takes_the_mapped_buffer() {
    loom::model(|| {
        let m = Arc::new(Mapped {
            state: MapState::pending(),
            data: AtomicU32::new(0),
        });
        let callback = {
            let m = Arc::clone(&m);
            thread::spawn(move || {
                m.data.store(42, Ordering::Relaxed);
                m.state.complete(true);
            })
        };
        let other = {
            let m = Arc::clone(&m);
            thread::spawn(move || poll(&m))
        };
        let here = poll(&m);
        callback.join().unwrap();
        let there = other.join().unwrap();
        let last = poll(&m);
        let got: Vec<u32> = [here, there, last].into_iter().flatten().collect();
        assert_eq!(got, [42], "the mapped buffer was taken {} times", got.len());
    });
}

#[test]
fn a_ring_slot_goes_round_without_being_mapped_in_use() {
    loom::model(|| {
        let m = Arc::new(Mapped {
            state: MapState::idle(),
            data: AtomicU32::new(0),
        });
        for round in 1..=2u32 {
            assert!(m.state.begin(), "round {round}: the slot is idle");
            assert!(!m.state.begin(), "round {round}: begun twice");
            let callback = {
                let m = Arc::clone(&m);
                thread::spawn(move || {
                    m.data.store(round, Ordering::Relaxed);
                    m.state.complete(true);
                })
            };
            let seen = loop {
                if let Some(v) = poll(&m) {
                    break v;
                }
                assert!(!m.state.begin(), "round {round}: mapped while pending");
                thread::yield_now();
            };
            assert_eq!(seen, round);
            assert!(m.state.release());
            callback.join().unwrap();
        }
    });
}

/// The pose readback's protocol before `MapState`: a load, then a store.
struct LoadThenStore {
    state: AtomicU8,
    data: AtomicU32,
}

#[test]
#[should_panic(expected = "decoded twice")]
fn the_load_then_store_protocol_lets_two_pollers_decode() {
    const MAPPED: u8 = 1;
    const TAKEN: u8 = 3;
    loom::model(|| {
        let m = Arc::new(LoadThenStore {
            state: AtomicU8::new(MAPPED),
            data: AtomicU32::new(7),
        });
        let poll = |m: &LoadThenStore| {
            if m.state.load(Ordering::Acquire) == MAPPED {
                m.state.store(TAKEN, Ordering::Release);
                Some(m.data.load(Ordering::Relaxed))
            } else {
                None
            }
        };
        let other = {
            let m = Arc::clone(&m);
            thread::spawn(move || poll(&m))
        };
        let here = poll(&m);
        let there = other.join().unwrap();
        assert!(!(here.is_some() && there.is_some()), "decoded twice");
    });
}
