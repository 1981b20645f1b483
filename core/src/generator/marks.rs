//! The high-water mark a generator keeps ahead of the IDs it issues, and the
//! state a generator starts from when it resumes past a mark.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use super::shared::lock_across_processes;
use super::{lock, Generator};
use crate::error::Result;
use crate::id::layout::Layout;
use crate::identity::mark::MarkStore;

/// The persisted high-water mark: IDs are issued only in ticks below the
/// limit in the generator's words (0: nothing persisted yet); a later tick
/// persists a new mark first. The mutex holds the store and admits one
/// writer of this process at a time; `across` (a shared state's) admits
/// one process at a time.
pub(super) struct Mark {
    pub(super) store: Mutex<Arc<dyn MarkStore>>,
    pub(super) lead_ms: i64,
    pub(super) across: Option<PathBuf>,
}

impl Mark {
    pub(super) fn new(store: Arc<dyn MarkStore>, lead_ms: i64, across: Option<PathBuf>) -> Self {
        Mark {
            store: Mutex::new(store),
            lead_ms,
            across,
        }
    }

    /// Persists in `store` that no ID will be issued after `from_ms` plus
    /// the lead (capped at the layout's end) and answers the limit that lets
    /// IDs up to it be issued, for the caller to publish. The caller holds
    /// the store's lock.
    pub(super) fn persist_ahead(
        &self,
        layout: &Layout,
        store: &dyn MarkStore,
        from_ms: i64,
    ) -> Result<u64> {
        let until_ms = from_ms
            .saturating_add(self.lead_ms)
            .min(layout.max_timestamp_ms());
        store.persist(until_ms)?;
        Ok(layout.ticks_at(until_ms)? + 1)
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
        // Another process may persist meanwhile: the limit is read again
        // under the lock, so every write is higher than the one before it.
        let _across = mark
            .across
            .as_deref()
            .map(lock_across_processes)
            .transpose()?;
        let limit = &self.words().mark_limit;
        if ticks < limit.load(Ordering::Acquire) {
            return Ok(());
        }
        let new = mark.persist_ahead(&self.layout, &**store, self.layout.timestamp_of(ticks))?;
        limit.fetch_max(new, Ordering::AcqRel);
        Ok(())
    }
}

impl Generator {
    /// Raises the state to at least `floor`, so that no ID is issued at or
    /// before its tick.
    pub(super) fn raise_state(&self, floor: u64) {
        let state = &self.words().state;
        let mut current = state.load(Ordering::Acquire);
        while current == super::NONE || current < floor {
            match state.compare_exchange_weak(current, floor, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
    }
}
