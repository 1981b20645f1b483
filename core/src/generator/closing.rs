//! Giving up the worker identity: `close` while other threads may still hold
//! the generator, and the drop of one never closed. Both settle the mark.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::handover::Held;
use super::{lock, Generator, CLOSED, NONE};
use crate::error::{Error, LeaseLostReason, Result};
use crate::identity::mark::MarkStore;

pub(super) fn closed() -> Error {
    Error::lease_lost(
        LeaseLostReason::Closed,
        "the generator was closed: its worker identity is given up".into(),
    )
}

/// The mark store of a closed generator: its own went with the identity.
#[derive(Debug)]
struct Released;

impl MarkStore for Released {
    fn load(&self) -> Result<Option<i64>> {
        Err(closed())
    }
    fn persist(&self, _until_ms: i64) -> Result<()> {
        Err(closed())
    }
}

impl Generator {
    /// Gives up the worker identity now: settles the high-water mark and
    /// releases the lease, even while other threads still hold this
    /// generator. From then on every call fails with `LEASE_LOST`. The
    /// state word is swapped, so an ID is issued either before `close` (and
    /// its tick is in the settled mark) or not at all. Calling it again does
    /// nothing.
    pub fn close(&self) {
        let last = self.words().state.swap(CLOSED, Ordering::AcqRel);
        if last == CLOSED {
            return;
        }
        self.closed_from.store(last, Ordering::Release);
        self.settle_mark(last);
        if let Some(mark) = &self.mark {
            let released: Arc<dyn MarkStore> = Arc::new(Released);
            drop(std::mem::replace(&mut *lock(&mark.store), released));
        }
        if let Some(held) = &self.held {
            self.stop_followers(held);
            drop(lock(&held.lease).take());
        }
    }

    /// Ends the claim in force before the lease is released, so that the
    /// processes following it on shared words stop first, saying why.
    fn stop_followers(&self, held: &Held) {
        held.tenure.end();
        if let Some(words) = self.words.shared() {
            words.refuse_followers(&closed());
        }
    }

    /// Whether [`close`](Generator::close) was called.
    pub fn is_closed(&self) -> bool {
        self.words().state.load(Ordering::Acquire) == CLOSED
    }

    /// Lowers the mark to the tick of `state`, the last issued, while the
    /// identity is still held. A failed write leaves the higher mark in
    /// place, which is safe.
    fn settle_mark(&self, state: u64) {
        let Some(mark) = &self.mark else {
            return;
        };
        if state == NONE || state == CLOSED {
            return;
        }
        // Nothing persisted: nothing issued (a resumed generator's state is
        // the previous mark's floor), so there is nothing to lower.
        if self.words().mark_limit.load(Ordering::Acquire) == 0 {
            return;
        }
        // Other processes issue on: the mark stays ahead of them.
        if self.words.is_shared() {
            return;
        }
        // A lapsed or lost remote lease: the value (and its mark) may be
        // another process's already.
        if let Some(held) = &self.held {
            if self.clock.now_ms() >= held.tenure.valid_until_ms() {
                return;
            }
        }
        let last_ms = self
            .layout
            .timestamp_of(state >> self.layout.sequence_bits());
        let _ = lock(&mark.store).settle(last_ms);
    }
}

impl Drop for Generator {
    /// A generator dropped without `close` settles its mark here; the lease
    /// is a field, released after this.
    fn drop(&mut self) {
        let state = self.words().state.load(Ordering::Acquire);
        self.settle_mark(state);
        if let Some(held) = &self.held {
            self.stop_followers(held);
        }
    }
}
