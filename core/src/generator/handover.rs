//! Taking up a new identity from a remote lease: the cold path that runs
//! when the lease's deadline has passed.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use super::marks::floor_state;
use super::{lock, Generator, NONE};
use crate::error::{Error, Result};
use crate::layout::MAX_NODE_FIELDS;
use crate::tenure::{Claim, RemoteLease, Tenure};

/// An identity held from a registry that can lapse.
pub(super) struct Held {
    pub(super) tenure: Arc<Tenure>,
    pub(super) switching: Mutex<()>,
    /// Dropped with the generator, which stops the keep-alive and releases.
    pub(super) _lease: Arc<dyn RemoteLease>,
}

impl Generator {
    /// The lease's deadline has passed: take up the identity its registry
    /// offers, if any, else refuse with `LEASE_LOST`. Returns a moment to
    /// wait for when the new identity's previous holder used time up to it.
    #[cold]
    pub(super) fn take_up_claim(&self, held: &Held, now_ms: i64) -> Result<Option<i64>> {
        let _one_switch = lock(&held.switching);
        if now_ms < held.tenure.valid_until_ms() {
            return Ok(None);
        }
        let (generation, claim) = held.tenure.take_offer(now_ms).map_err(Error::LeaseLost)?;
        match self.switch_to(&claim, now_ms) {
            Ok(wait) => {
                held.tenure.apply(generation);
                Ok(wait)
            }
            Err(e) => {
                held.tenure.restore(generation, claim);
                Err(e)
            }
        }
    }

    /// Moves the generator onto `claim`'s identity. No ID is issued
    /// meanwhile: the lease's deadline is in the past until `apply`.
    fn switch_to(&self, claim: &Claim, now_ms: i64) -> Result<Option<i64>> {
        let layout = &self.layout;
        let node_bits = layout.node_bits(&claim.nodes)?;
        let Some(mark) = &self.mark else {
            return Err(Error::LeaseLost(
                "a remote lease needs a high-water mark".into(),
            ));
        };
        let previous_ms = claim.mark.load()?;
        let mut store = lock(&mark.store);
        // A thread that passed the lease check before it lapsed may still
        // issue one ID at a tick up to its clock reading; the new mark covers
        // it, so the identity's next holder starts past it.
        let state = self.state.0.load(Ordering::Acquire);
        let last_ms = if state == NONE {
            now_ms
        } else {
            layout
                .timestamp_of(state >> layout.sequence_bits())
                .max(now_ms)
        };
        mark.persist_ahead(
            layout,
            &*claim.mark,
            last_ms.max(previous_ms.unwrap_or(i64::MIN)),
        )?;
        *store = Arc::clone(&claim.mark);
        self.node_bits.store(node_bits, Ordering::Release);
        {
            let mut note = lock(&self.identity);
            note.nodes = [0; MAX_NODE_FIELDS];
            note.nodes[..claim.nodes.len()].copy_from_slice(&claim.nodes);
            note.source.clone_from(&claim.source);
        }
        let Some(previous_ms) = previous_ms.filter(|&ms| ms >= layout.epoch_ms()) else {
            return Ok(None);
        };
        self.raise_state(floor_state(layout, previous_ms)?);
        // The previous holder ran at most a mark's lead ahead: wait that out
        // rather than meet the backwards policy.
        let resume_ms = self.after_tick(layout.ticks_at(previous_ms)?)?;
        Ok((resume_ms > now_ms && resume_ms - now_ms <= mark.lead_ms + 1).then_some(resume_ms))
    }
}
