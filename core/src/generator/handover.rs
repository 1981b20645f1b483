//! Taking up a new identity from a remote lease: the cold path that runs
//! when the lease's deadline has passed.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use super::marks::floor_state;
use super::{closed, lock, Generator, CLOSED, NONE};
use crate::error::{Error, LeaseLostReason, Result};
use crate::identity::check::Verdict;
use crate::identity::tenure::{Claim, RemoteLease, Tenure};

/// An identity held from a registry that can lapse.
pub(super) struct Held {
    pub(super) check: Option<crate::identity::check::NodeCheck>,
    /// The last offer the check admitted (it is asked once per offer).
    pub(super) admitted: std::sync::atomic::AtomicU64,
    pub(super) tenure: Arc<Tenure>,
    pub(super) switching: Mutex<()>,
    /// Dropped by `close` or with the generator, which stops the keep-alive
    /// and releases.
    pub(super) lease: Mutex<Option<Arc<dyn RemoteLease>>>,
}

impl Generator {
    /// The lease's deadline has passed: take up the identity its registry
    /// offers, if any, else refuse with `LEASE_LOST`. Never waits: an offered
    /// value whose previous holder's mark is still ahead of the clock is
    /// refused until the clock passes it.
    #[cold]
    pub(super) fn take_up_claim(&self, held: &Held, now_ms: i64) -> Result<()> {
        let _one_switch = lock(&held.switching);
        if now_ms < held.tenure.valid_until_ms() {
            return Ok(());
        }
        let (generation, claim) = held.tenure.take_offer(now_ms)?;
        if let Some(check) = held
            .check
            .as_ref()
            .filter(|_| held.admitted.load(Ordering::Relaxed) != generation)
        {
            match check.judge(&claim.nodes, &claim.source) {
                Ok(()) => held.admitted.store(generation, Ordering::Relaxed),
                Err(Verdict::Failed(failure)) => {
                    // Asked again at the next call; the value is kept meanwhile.
                    held.tenure.restore(generation, claim);
                    return Err(Error::lease_lost(
                        LeaseLostReason::CheckRefused,
                        format!("{failure}; asking again at the next call"),
                    ));
                }
                Err(Verdict::Refused(refusal)) => {
                    held.tenure.discard(generation);
                    let next = if lock(&held.lease)
                        .as_ref()
                        .is_none_or(|lease| lease.refused(claim))
                    {
                        "another is being claimed"
                    } else {
                        "no other will be offered"
                    };
                    return Err(Error::lease_lost(
                        LeaseLostReason::CheckRefused,
                        format!("{refusal}; {next}"),
                    ));
                }
            }
        }
        let taken = claim.mark.load().and_then(|previous_ms| match previous_ms {
            Some(ms) if ms > now_ms => Err(Error::lease_lost(LeaseLostReason::Lapsed, format!(
                "{} is taken up in {} ms, when the clock passes its previous holder's high-water mark",
                claim.source,
                ms - now_ms
            ))),
            _ => self.switch_to(&claim, previous_ms, now_ms),
        });
        match taken {
            Ok(()) => {
                held.tenure.apply(generation);
                Ok(())
            }
            Err(e) => {
                held.tenure.restore(generation, claim);
                Err(e)
            }
        }
    }

    /// Moves the generator onto `claim`'s identity, whose previous holder
    /// issued nothing after `previous_ms` (not ahead of the clock). No ID is
    /// issued meanwhile: the lease's deadline is in the past until `apply`.
    fn switch_to(&self, claim: &Claim, previous_ms: Option<i64>, now_ms: i64) -> Result<()> {
        let layout = &self.layout;
        let node_bits = layout.node_bits(&claim.nodes)?;
        let Some(mark) = &self.mark else {
            return Err(Error::lease_lost(
                LeaseLostReason::StateUnsafe,
                "a remote lease needs a high-water mark".into(),
            ));
        };
        let mut store = lock(&mark.store);
        if self.words().state.load(Ordering::Acquire) == CLOSED {
            return Err(closed());
        }
        // A thread that passed the lease check before it lapsed may still
        // issue one ID at a tick up to its clock reading; the new mark covers
        // it, so the identity's next holder starts past it.
        let state = self.words().state.load(Ordering::Acquire);
        let last_ms = if state == NONE {
            now_ms
        } else {
            layout
                .timestamp_of(state >> layout.sequence_bits())
                .max(now_ms)
        };
        let limit = mark.persist_ahead(
            layout,
            &*claim.mark,
            last_ms.max(previous_ms.unwrap_or(i64::MIN)),
        )?;
        // The new store's mark, even if lower than the old store's.
        self.words().mark_limit.store(limit, Ordering::Release);
        *store = Arc::clone(&claim.mark);
        // Shared words: the processes that follow this one's lease issue
        // under the new bits from its deadline on.
        self.words().node_bits.store(node_bits, Ordering::Release);
        lock(&self.identity).source.clone_from(&claim.source);
        if let Some(previous_ms) = previous_ms.filter(|&ms| ms >= layout.epoch_ms()) {
            self.raise_state(floor_state(layout, previous_ms)?);
        }
        Ok(())
    }
}
