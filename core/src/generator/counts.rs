//! What a generator went through on its cold paths, for metrics: waits at
//! the per-tick ceiling and clock-backwards events by outcome. The hot path
//! (a new tick, or the next sequence of the current one) counts nothing.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::identity::tenure::LeaseStats;

/// Counted on a cache line of its own, apart from the hot state.
#[repr(align(64))]
#[derive(Default)]
pub(super) struct Counters {
    pub(super) ceiling_waits: AtomicU64,
    pub(super) backwards_waited: AtomicU64,
    pub(super) backwards_refused: AtomicU64,
    pub(super) backwards_ran_ahead: AtomicU64,
}

impl Counters {
    pub(super) fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn snapshot(&self, lease: Option<LeaseStats>) -> GeneratorStats {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        GeneratorStats {
            ceiling_waits: load(&self.ceiling_waits),
            clock_backwards_waited: load(&self.backwards_waited),
            clock_backwards_refused: load(&self.backwards_refused),
            clock_backwards_ran_ahead: load(&self.backwards_ran_ahead),
            lease,
        }
    }
}

/// Counts since the generator was built ([`Generator::stats`](super::Generator::stats)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GeneratorStats {
    /// Calls that found their tick's sequence spent and waited for the next.
    pub ceiling_waits: u64,
    /// Calls that found the clock behind the last tick and waited for it
    /// (policy `wait`, within its bound).
    pub clock_backwards_waited: u64,
    /// Calls refused with `CLOCK_MOVED_BACKWARDS` (policy `fail`, or `wait`
    /// beyond its bound).
    pub clock_backwards_refused: u64,
    /// IDs issued ahead of a clock that was behind (policy `logical`).
    pub clock_backwards_ran_ahead: u64,
    /// The remote lease's renewals, losses and re-acquisitions, if the
    /// identity is held from a registry.
    pub lease: Option<LeaseStats>,
}
