//! Locking the crate's mutexes. A poisoned lock's data is used as it is:
//! every mutex here guards state that stays valid when a holder panics —
//! a pose cache (a fill that panicked left its model out, and the next
//! `ensure` fills it), a crowd's mirror (its next sync uploads what the
//! change log says), the map of shared mirrors, a device's loss — so one
//! panicking thread does not take every later frame down with it.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, poisoned or not (see the module docs).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
