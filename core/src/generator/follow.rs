//! One remote lease for processes that share a generator's words: a server
//! whose workers are processes (PostgreSQL's backends) cannot give each a
//! lease of its own, nor share one process's keep-alive thread. One process,
//! the leader, holds the lease on the words
//! ([`GeneratorBuilder::shared`](super::GeneratorBuilder::shared) with a
//! remote identity) and calls [`Generator::lead`] often; it publishes the
//! node bits, the deadline and the high-water mark's limit there. The others
//! follow ([`GeneratorBuilder::follow`](super::GeneratorBuilder::follow)):
//! they issue on the same compare-and-swap and refuse once the published
//! deadline passes, so no process issues under a value the lease may have
//! lost.

use std::sync::atomic::Ordering;

use super::{Generator, SharedState};
use crate::error::{ArgumentKind, Error, LeaseLostReason, Result};
use crate::identity::mark::MarkStore;

/// `lease_refusal` for an error that carries no lease reason.
const OTHER_ERROR: u64 = u64::MAX;

fn refusal_code(error: &Error) -> u64 {
    error
        .lease_lost_reason()
        .and_then(|reason| LeaseLostReason::ALL.iter().position(|r| *r == reason))
        .map_or(OTHER_ERROR, |i| i as u64 + 1)
}

/// The mark store of a follower: the leader writes the mark ahead; a
/// follower that reaches its limit is refused, never writes.
#[derive(Debug)]
pub(super) struct LeadersMark;

impl MarkStore for LeadersMark {
    fn load(&self) -> Result<Option<i64>> {
        Ok(None)
    }
    fn persist(&self, until_ms: i64) -> Result<()> {
        Err(Error::lease_lost(
            LeaseLostReason::Unreachable,
            format!(
                "the high-water mark is written ahead by the process that holds the lease for these words, and it has not covered {until_ms} ms yet; try again"
            ),
        ))
    }
}

impl Generator {
    /// For the process that holds the remote lease of shared words, called
    /// often (every 100 ms, say): takes up a new identity the lease offers,
    /// writes the high-water mark at least `ahead_ms` past the clock (so the
    /// followers never reach it while the lease is renewed), and publishes
    /// the lease's deadline to the words (from the first call on; until then
    /// the followers refuse). A failure is also published, as the reason the
    /// followers give.
    pub fn lead(&self, ahead_ms: i64) -> Result<()> {
        let (Some(held), Some(mark), Some(words)) = (&self.held, &self.mark, self.words.shared())
        else {
            return Err(Error::invalid(
                ArgumentKind::Usage,
                "only a generator that holds a remote lease on shared words leads them".into(),
            ));
        };
        let now_ms = self.clock.now_ms();
        let led = (|| {
            if now_ms >= held.tenure.valid_until_ms() {
                self.take_up_claim(held, now_ms)?;
            }
            let until_ms = now_ms
                .saturating_add(ahead_ms.max(0))
                .min(self.layout.max_timestamp_ms());
            self.extend_mark(mark, self.layout.ticks_at(until_ms)?)?;
            if !held.tenure.is_published() {
                // A new leader starts past its value's previous holder's
                // mark: its followers wait for the clock to pass it.
                if let Some(last_ms) = self.last_timestamp_ms().filter(|&ms| ms > now_ms) {
                    return Err(Error::lease_lost(
                        LeaseLostReason::Lapsed,
                        format!(
                            "{} is taken up in {} ms, when the clock passes its previous holder's high-water mark",
                            self.identity_source(),
                            last_ms - now_ms
                        ),
                    ));
                }
            }
            held.tenure.publish_to(&words.lease_deadline);
            Ok(())
        })();
        let code = match &led {
            Ok(()) => 0,
            Err(e) => refusal_code(e),
        };
        words.lease_refusal.store(code, Ordering::Release);
        led
    }

    /// A follower's deadline has passed: unless the leader renewed it
    /// meanwhile, refuse with the leader's reason.
    #[cold]
    pub(super) fn follow_deadline(&self, now_ms: i64) -> Result<()> {
        let words = self.words();
        let deadline = words.lease_deadline.load(Ordering::Acquire);
        if now_ms < deadline {
            return Ok(());
        }
        let code = words.lease_refusal.load(Ordering::Acquire);
        let reason = match code {
            0 => LeaseLostReason::Lapsed,
            OTHER_ERROR => LeaseLostReason::Unreachable,
            i => LeaseLostReason::ALL
                .get(i as usize - 1)
                .copied()
                .unwrap_or(LeaseLostReason::Unreachable),
        };
        let why = if deadline == i64::MIN {
            "the process that holds the lease for these words has not published a usable one"
                .to_owned()
        } else {
            format!(
                "the lease held for these words by another process was last renewed for use until {deadline} ms, {} ms ago",
                now_ms.saturating_sub(deadline)
            )
        };
        Err(Error::lease_lost(
            reason,
            format!("{why} ({}); its log says why", self.identity_source()),
        ))
    }
}

impl SharedState {
    /// For the process meant to lead these words when it cannot (its lease
    /// could not be claimed, say): the followers refuse from now on, giving
    /// `error`'s reason.
    pub fn refuse_followers(&self, error: &Error) {
        self.lease_deadline.store(i64::MIN, Ordering::Release);
        self.lease_refusal
            .store(refusal_code(error), Ordering::Release);
    }
}
