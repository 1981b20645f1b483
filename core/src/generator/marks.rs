//! The high-water mark a generator keeps ahead of the IDs it issues, and the
//! state a generator starts from when it resumes past a mark.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{lock, Generator};
use crate::error::Result;
use crate::id::layout::Layout;
use crate::identity::mark::MarkStore;

/// The persisted high-water mark: IDs are issued only in ticks below
/// `limit` (0: nothing persisted yet); a later tick persists a new mark first.
/// The mutex holds the store and admits one writer at a time.
pub(super) struct Mark {
    pub(super) store: Mutex<Arc<dyn MarkStore>>,
    pub(super) limit: AtomicU64,
    pub(super) lead_ms: i64,
}

impl Mark {
    pub(super) fn new(store: Arc<dyn MarkStore>, lead_ms: i64) -> Self {
        Mark {
            store: Mutex::new(store),
            limit: AtomicU64::new(0),
            lead_ms,
        }
    }

    /// Persists in `store` that no ID will be issued after `from_ms` plus
    /// the lead (capped at the layout's end), then lets IDs up to it be
    /// issued. The caller holds the store's lock.
    pub(super) fn persist_ahead(
        &self,
        layout: &Layout,
        store: &dyn MarkStore,
        from_ms: i64,
    ) -> Result<()> {
        let until_ms = from_ms
            .saturating_add(self.lead_ms)
            .min(layout.max_timestamp_ms());
        store.persist(until_ms)?;
        self.limit
            .store(layout.ticks_at(until_ms)? + 1, Ordering::Release);
        Ok(())
    }
}

/// The state of a generator that has issued the last ID of the tick holding
/// `ms`: the next ID comes from a later tick.
pub(super) fn floor_state(layout: &Layout, ms: i64) -> Result<u64> {
    Ok((layout.ticks_at(ms)? << layout.sequence_bits()) | layout.max_sequence())
}

impl Generator {
    /// Persists a mark `lead_ms` past `ticks` before any ID is issued there.
    #[cold]
    pub(super) fn extend_mark(&self, mark: &Mark, ticks: u64) -> Result<()> {
        let store = lock(&mark.store);
        if ticks < mark.limit.load(Ordering::Acquire) {
            return Ok(());
        }
        mark.persist_ahead(&self.layout, &**store, self.layout.timestamp_of(ticks))
    }
}

impl Generator {
    /// Raises the state to at least `floor`, so that no ID is issued at or
    /// before its tick.
    pub(super) fn raise_state(&self, floor: u64) {
        let state = &self.state.0;
        let mut current = state.load(Ordering::Acquire);
        while current == super::NONE || current < floor {
            match state.compare_exchange_weak(current, floor, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
    }
}
