//! Identities held from a registry that can lapse (a remote lease).
//!
//! The registry client lives outside the core (its own crate, with its own
//! async runtime, reached through a [`LeaseConnector`](super::registry::LeaseConnector)); it talks to the generator only through a [`Tenure`]: it
//! stamps how long the held identity may still be used, says when it is
//! lost, and offers a new one. The generator checks the stamp on every ID
//! (one atomic load, against the clock reading it takes anyway), so a process
//! that was paused past the deadline refuses before it issues anything.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use super::mark::MarkStore;
use crate::clock::Clock;
use crate::error::{Error, LeaseLostReason, Result};
use crate::id::layout::Layout;

/// One identity held from a registry.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The node values, in layout order.
    pub nodes: Vec<u64>,
    /// The high-water mark kept for this identity; writes to it must fail
    /// once the identity is no longer held.
    pub mark: Arc<dyn MarkStore>,
    /// Where the identity came from, for people (`lease on node 3 …`).
    pub source: String,
    /// Until when, on the generator's clock, IDs may be issued under the
    /// claim unless it is renewed.
    pub valid_until_ms: i64,
}

/// A registry that hands out identities: started once by the generator it
/// serves, stopped when dropped (releasing what it holds).
pub trait RemoteLease: Send + Sync + fmt::Debug {
    /// Claims a first identity for `layout` and keeps it alive from then on,
    /// reporting through `tenure`; deadlines are stamped on `clock`, the
    /// generator's own.
    fn start(&self, layout: &Layout, clock: Arc<dyn Clock>, tenure: Arc<Tenure>) -> Result<Claim>;

    /// The application's [`NodeCheck`](super::check::NodeCheck) refused `claim`
    /// (the one in force or the one offered): release it, never offer its
    /// value again, and offer another. Returns whether another will be
    /// offered; the default cannot, so the refusal stands.
    fn refused(&self, claim: Claim) -> bool {
        drop(claim);
        false
    }
}

/// Numbers the claims of one tenure: the first claim is 0.
pub type Generation = u64;

/// What a [`RemoteLease`] shares with its generator.
pub struct Tenure {
    /// Deadline of the claim in use; `i64::MIN` once it is known lost.
    valid_until_ms: AtomicI64,
    /// Where the deadline is kept once published to other processes (the
    /// words of a generator that leads them): from then on every write goes
    /// there, so that they stop when this process would.
    published: OnceLock<&'static AtomicI64>,
    state: Mutex<State>,
    offered: Condvar,
}

#[derive(Default)]
struct State {
    applied: Generation,
    next: Generation,
    pending: Option<(Generation, Claim)>,
    /// A claim the generator has taken and is putting in force, with the
    /// latest deadline renewed for it meanwhile.
    applying: Option<(Generation, i64)>,
    lost: Option<(LeaseLostReason, String)>,
    /// The registry's latest failure, told when IDs are refused.
    trouble: Option<String>,
    /// How many failures were reported (a waiter for an offer stops at one).
    troubles: u64,
    counts: LeaseStats,
    /// The claim in force was already counted as lost.
    lapse_counted: bool,
    /// The stamp that ran out by the registry's monotonic clock while the
    /// generator's clock said otherwise.
    outrun: Option<i64>,
}

/// What a remote lease went through, counted since the generator started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseStats {
    /// Renewals of the claim in force.
    pub renewals: u64,
    /// Times the claim in force became unusable: the registry said it was
    /// lost, or its deadline passed unrenewed.
    pub losses: u64,
    /// New claims put in force after the first.
    pub reacquisitions: u64,
}

impl State {
    /// The claim in force stopped being usable: counted once per claim.
    fn count_loss(&mut self) {
        if !self.lapse_counted {
            self.lapse_counted = true;
            self.counts.losses += 1;
        }
    }
}

impl fmt::Debug for Tenure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tenure")
            .field("valid_until_ms", &self.valid_until_ms())
            .finish_non_exhaustive()
    }
}

impl Default for Tenure {
    fn default() -> Self {
        Tenure {
            valid_until_ms: AtomicI64::new(i64::MIN),
            published: OnceLock::new(),
            state: Mutex::new(State {
                next: 1,
                ..State::default()
            }),
            offered: Condvar::new(),
        }
    }
}

impl Tenure {
    /// A tenure whose first claim (generation 0) is not yet in force.
    pub fn new() -> Arc<Tenure> {
        Arc::new(Tenure::default())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The deadline of the claim in use, on the generator's clock.
    #[inline]
    pub fn valid_until_ms(&self) -> i64 {
        self.deadline().load(Ordering::Acquire)
    }

    /// The word the deadline is kept in: this tenure's, or the one it was
    /// published to. Written only under the state's lock.
    #[inline]
    fn deadline(&self) -> &AtomicI64 {
        match self.published.get() {
            Some(word) => word,
            None => &self.valid_until_ms,
        }
    }

    /// Whether the deadline was published ([`publish_to`](Self::publish_to)).
    pub(crate) fn is_published(&self) -> bool {
        self.published.get().is_some()
    }

    /// Keeps the deadline in `word` from now on, where other processes read
    /// it (`SharedState`); it takes the current value at once.
    pub(crate) fn publish_to(&self, word: &'static AtomicI64) {
        let _state = self.state();
        if self.published.get().is_none() {
            word.store(
                self.valid_until_ms.load(Ordering::Acquire),
                Ordering::Release,
            );
            let _ = self.published.set(word);
        }
    }

    /// The claim of `generation` was renewed until `valid_until_ms`.
    /// Deadlines only move forward; a renewal of a lost or replaced claim
    /// is ignored.
    pub fn renewed(&self, generation: Generation, valid_until_ms: i64) {
        let mut state = self.state();
        if let Some((pending, claim)) = &mut state.pending {
            if *pending == generation {
                claim.valid_until_ms = claim.valid_until_ms.max(valid_until_ms);
                return;
            }
        }
        if let Some((applying, until)) = &mut state.applying {
            if *applying == generation {
                *until = (*until).max(valid_until_ms);
                return;
            }
        }
        if state.applied == generation && state.lost.is_none() {
            state.trouble = None;
            state.outrun = None;
            state.counts.renewals += 1;
            state.lapse_counted = false;
            self.deadline().fetch_max(valid_until_ms, Ordering::AcqRel);
        }
    }

    /// The deadline `stamp` of the claim in force ran out on the registry's
    /// monotonic clock: unless the claim was renewed since the registry
    /// counted `renewals` ([`counts`](Tenure::counts)), IDs are refused from
    /// now on, whatever the generator's clock says (it may have gone back, or
    /// stand still, so that stamps repeat). A later renewal puts the claim
    /// back in force.
    pub fn expired(&self, generation: Generation, stamp: i64, renewals: u64) {
        let mut state = self.state();
        if state.applied == generation
            && state.lost.is_none()
            && state.counts.renewals == renewals
            && self
                .deadline()
                .compare_exchange(stamp, i64::MIN, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            state.outrun = Some(stamp);
        }
    }

    /// The claim of `generation` is gone (expired or revoked), for
    /// `reason`: refuse at once.
    pub fn lost(&self, generation: Generation, reason: LeaseLostReason, why: impl Into<String>) {
        let mut state = self.state();
        if state.applied == generation {
            state.count_loss();
            state.lost = Some((reason, why.into()));
            self.deadline().store(i64::MIN, Ordering::Release);
        } else if matches!(&state.pending, Some((g, _)) if *g == generation) {
            state.pending = None;
        } else if matches!(state.applying, Some((g, _)) if g == generation) {
            state.applying = Some((generation, i64::MIN));
        }
    }

    /// Why the registry could not renew lately (told with `LEASE_LOST`, reason
    /// `unreachable`, if the deadline passes before a renewal).
    pub fn trouble(&self, why: impl Into<String>) {
        let mut state = self.state();
        state.trouble = Some(why.into());
        state.troubles += 1;
        self.offered.notify_all();
    }

    /// Offers a new identity, taken up by the generator at its next ID.
    pub fn offer(&self, claim: Claim) -> Generation {
        let mut state = self.state();
        let generation = state.next;
        state.next += 1;
        state.pending = Some((generation, claim));
        self.offered.notify_all();
        generation
    }

    /// Renewals, losses and re-acquisitions so far.
    pub fn counts(&self) -> LeaseStats {
        self.state().counts
    }

    /// Waits up to `within` for an offer and takes it, for an identity that
    /// is being resolved (no generator yet): the refusal of a first claim.
    pub(crate) fn wait_offer(
        &self,
        within: Duration,
    ) -> std::result::Result<(Generation, Claim), String> {
        let mut state = self.state();
        let deadline = std::time::Instant::now() + within;
        let troubles = state.troubles;
        while state.pending.is_none() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if state.troubles != troubles {
                return Err(state.trouble.clone().unwrap_or_default());
            }
            if left.is_zero() {
                return Err(match &state.trouble {
                    Some(trouble) => {
                        format!("no other identity was offered within {within:?} ({trouble})")
                    }
                    None => format!("no other identity was offered within {within:?}"),
                });
            }
            state = self
                .offered
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let (generation, claim) = state.pending.take().expect("an offer");
        state.applying = Some((generation, claim.valid_until_ms));
        Ok((generation, claim))
    }

    /// The claim in force was refused by the application's check: IDs are
    /// refused from now on (until another claim is taken up).
    pub(crate) fn refuse_applied(&self, why: &str) {
        let generation = self.state().applied;
        self.lost(generation, LeaseLostReason::CheckRefused, why);
    }

    /// The generator is gone or closed: the claim in force ends now (not
    /// counted as a loss), and renewals that arrive before the lease is
    /// released are ignored.
    pub(crate) fn end(&self) {
        let mut state = self.state();
        state.pending = None;
        state.lost = Some((
            LeaseLostReason::Closed,
            "the generator was closed: its worker identity is given up".to_owned(),
        ));
        self.deadline().store(i64::MIN, Ordering::Release);
    }

    /// Drops a taken claim that the check refused (it is not put back).
    pub(crate) fn discard(&self, generation: Generation) {
        let mut state = self.state();
        if matches!(state.applying, Some((g, _)) if g == generation) {
            state.applying = None;
        }
    }

    /// Puts the first claim in force.
    pub(crate) fn begin(&self, valid_until_ms: i64) {
        let mut state = self.state();
        state.applied = 0;
        state.lost = None;
        state.outrun = None;
        state.lapse_counted = false;
        self.deadline().store(valid_until_ms, Ordering::Release);
    }

    /// Takes the offered claim, if any, else says why IDs are refused: the
    /// reason the claim was lost, else `unreachable` when the registry
    /// reported trouble before the deadline passed, else `lapsed`.
    pub(crate) fn take_offer(&self, now_ms: i64) -> Result<(Generation, Claim)> {
        let mut state = self.state();
        state.count_loss();
        if let Some((generation, claim)) = state.pending.take() {
            state.applying = Some((generation, claim.valid_until_ms));
            return Ok((generation, claim));
        }
        let (reason, why) = match &state.lost {
            Some((reason, why)) => (*reason, why.clone()),
            None => {
                let reason = match state.trouble {
                    Some(_) => LeaseLostReason::Unreachable,
                    None => LeaseLostReason::Lapsed,
                };
                let why = match state.outrun {
                    Some(stamp) => format!(
                        "the lease was last renewed for use until {stamp} ms on the generator's clock, which now reads {now_ms} ms, but that much time has passed on this host's monotonic clock (the generator's clock went back or stands still); refusing before another process may claim the identity"
                    ),
                    None => format!(
                        "the lease was last renewed for use until {} ms, {} ms ago; refusing before another process may claim the identity",
                        self.valid_until_ms(),
                        now_ms.saturating_sub(self.valid_until_ms())
                    ),
                };
                (reason, why)
            }
        };
        Err(Error::lease_lost(
            reason,
            match &state.trouble {
                Some(trouble) => format!("{why} ({trouble})"),
                None => why,
            },
        ))
    }

    /// Puts the taken claim in force.
    pub(crate) fn apply(&self, generation: Generation) {
        let mut state = self.state();
        if matches!(state.lost, Some((LeaseLostReason::Closed, _))) {
            // Ended meanwhile (`end`): nothing is put in force again.
            state.applying = None;
            return;
        }
        let until = match state.applying.take() {
            Some((g, until)) if g == generation => until,
            _ => i64::MIN,
        };
        state.applied = generation;
        state.outrun = None;
        if until != i64::MIN {
            state.counts.reacquisitions += 1;
            state.lapse_counted = false;
        }
        state.lost = (until == i64::MIN).then(|| {
            (
                LeaseLostReason::Lapsed,
                "the lease was lost while it was being taken up".to_owned(),
            )
        });
        self.deadline().store(until, Ordering::Release);
    }

    /// Hands back a taken claim that could not be put in force, to be tried
    /// again at the next ID.
    pub(crate) fn restore(&self, generation: Generation, mut claim: Claim) {
        let mut state = self.state();
        if let Some((g, until)) = state.applying.take() {
            if g == generation && until != i64::MIN && state.pending.is_none() {
                claim.valid_until_ms = until;
                state.pending = Some((generation, claim));
            }
        }
    }
}
