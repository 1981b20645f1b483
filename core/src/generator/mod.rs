//! The generator: lock-free, strictly increasing, never the same ID twice.
//!
//! This file is the hot path. [`builder`] assembles a generator from a
//! resolved identity, [`marks`] keeps its high-water mark ahead of the IDs,
//! and [`handover`] moves it onto a new identity when a remote lease changes.

mod builder;
mod closing;
mod counts;
mod first_use;
mod follow;
mod handover;
mod marks;
mod request;
mod shared;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::clock::{Clock, ClockSource};
use crate::error::{ArgumentKind, Error, Result};
use crate::id::layout::Layout;
use crate::identity::mark::DEFAULT_MARK_LEAD_MS;
use crate::identity::registry::LeaseConnector;

pub use builder::GeneratorBuilder;
use closing::closed;
use counts::Counters;
pub use counts::GeneratorStats;
pub use first_use::FirstUse;
use handover::Held;
use marks::Mark;
pub use request::{GeneratorRequest, IdentityRequest};
pub use shared::SharedState;
use shared::Words;

/// What a generator does when the clock reads earlier than the last tick it
/// issued IDs for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackwardsPolicy {
    /// Refuse at once with `CLOCK_MOVED_BACKWARDS`, carrying how far.
    Fail,
    /// Wait for the clock to catch up if it is at most `max_ms` behind, else fail.
    Wait {
        /// The longest wait, in milliseconds.
        max_ms: u64,
    },
    /// Keep issuing from the last tick; when its sequence is spent, move to
    /// the next tick without waiting, so IDs run ahead of the clock until it
    /// catches up.
    Logical,
}

impl BackwardsPolicy {
    /// The contract's default bound for [`BackwardsPolicy::Wait`].
    pub const DEFAULT_WAIT_MS: u64 = 5;
    /// The policies' names, as every binding spells them.
    pub const NAMES: [&'static str; 3] = ["fail", "wait", "logical"];

    /// The policy's name, as [`NAMES`](Self::NAMES) spells it.
    pub fn name(self) -> &'static str {
        match self {
            BackwardsPolicy::Fail => Self::NAMES[0],
            BackwardsPolicy::Wait { .. } => Self::NAMES[1],
            BackwardsPolicy::Logical => Self::NAMES[2],
        }
    }

    /// The policy named `name` (`wait` waits up to `max_ms`); `option` is how
    /// the caller's language calls the argument, for the message.
    pub fn parse(name: &str, max_ms: u64, option: &str) -> Result<BackwardsPolicy> {
        match name {
            "fail" => Ok(BackwardsPolicy::Fail),
            "wait" => Ok(BackwardsPolicy::Wait { max_ms }),
            "logical" => Ok(BackwardsPolicy::Logical),
            other => Err(Error::invalid(
                ArgumentKind::UnknownName,
                format!("{option} must be 'fail', 'wait' or 'logical', not {other:?}"),
            )),
        }
    }
}

impl Default for BackwardsPolicy {
    fn default() -> Self {
        BackwardsPolicy::Wait {
            max_ms: Self::DEFAULT_WAIT_MS,
        }
    }
}

/// IDs reserved together: `count` IDs starting at `first`, `stride` apart
/// (the sequence's place value), all in one tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdBlock {
    /// The first ID.
    pub first: u64,
    /// Difference between consecutive IDs of the block.
    pub stride: u64,
    /// How many IDs the block holds (at least 1).
    pub count: u64,
}

impl IdBlock {
    /// The block's IDs in increasing order.
    pub fn ids(self) -> impl Iterator<Item = u64> {
        (0..self.count).map(move |i| self.first + i * self.stride)
    }
}

/// The result of [`Generator::try_next_id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryNext {
    /// An ID was issued.
    Id(u64),
    /// No ID can be issued before this Unix millisecond; wait, then try again.
    WaitUntil(i64),
}

/// What the backwards policy makes of a clock behind the last issued tick.
enum Behind {
    /// A restart within the high-water mark's lead: wait, uncounted.
    Resume(i64),
    /// Wait until this Unix millisecond (policy `wait`, within its bound).
    Wait(i64),
    /// Keep issuing from the last tick (policy `logical`).
    RunAhead,
    /// Refuse (policy `fail`, or `wait` beyond its bound).
    Refuse(Error),
}

enum Step {
    Reserved {
        ticks: u64,
        first: u64,
        count: u64,
        node_bits: u64,
    },
    WaitUntil(i64),
}

/// No ID issued yet. Unreachable as a real state: a generator needs
/// `time_bits + sequence_bits <= 63`.
const NONE: u64 = u64::MAX;

/// Closed: the identity is given up. Swapped into the state word, so that
/// every issue after it fails its compare-and-swap and sees this value.
const CLOSED: u64 = u64::MAX - 1;

/// Issues IDs for one worker identity. `Send + Sync`: share it by reference
/// or `Arc`; no lock is taken per ID (one compare-and-swap on a packed
/// `(tick, sequence)` word).
pub struct Generator {
    layout: Layout,
    identity: Mutex<IdentityNote>,
    clock: ClockSource,
    policy: BackwardsPolicy,
    /// The state word, the mark's limit and the tick resumed from: the
    /// generator's own, or shared with other processes ([`SharedState`]).
    /// A clock at most `resume_grace_ms` behind the resumed tick is waited
    /// out, not met with the backwards policy (a restart within the mark's
    /// lead).
    words: Words,
    mark: Option<Mark>,
    held: Option<Held>,
    /// Issues under the lease another process holds for the shared words
    /// (`follow.rs`): refuses once the deadline it publishes there passes.
    following: bool,
    resume_grace_ms: u64,
    counters: Counters,
    /// The state `close` replaced (NONE until then): the last issued tick.
    closed_from: AtomicU64,
}

struct IdentityNote {
    source: String,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Generator")
            .field("layout", &self.layout.name())
            .field("nodes", &self.node_values())
            .field("policy", &self.policy)
            .field("clock", &self.clock)
            .field("identity", &self.identity_source())
            .finish()
    }
}

impl Generator {
    /// A generator whose identity follows the environment rules of
    /// `docs/identity.md` (`POLYFLAKE_NODE_ID`, per-field variables,
    /// `POLYFLAKE_ORDINAL`, else a local lease in the state directory), on
    /// the monotonic clock. Resolving the identity touches files (and the
    /// network, for a registry): see [`WorkerIdentity`](crate::WorkerIdentity).
    pub fn from_env(layout: Layout) -> Result<Generator> {
        Generator::from_env_with(layout, &[])
    }

    /// [`from_env`](Self::from_env) that may also lease from the registries
    /// of `connectors` (each registry's crate provides its connector).
    pub fn from_env_with(layout: Layout, connectors: &[&dyn LeaseConnector]) -> Result<Generator> {
        GeneratorRequest::new(layout, IdentityRequest::Environment).resolve(connectors)
    }

    /// Where the worker identity came from, for people (`local lease 3 in …`).
    pub fn identity_source(&self) -> String {
        lock(&self.identity).source.clone()
    }

    /// A generator with node values in layout order, the monotonic clock and
    /// the default backwards policy.
    pub fn new(layout: Layout, nodes: &[u64]) -> Result<Generator> {
        Generator::builder(layout).nodes(nodes).build()
    }

    /// Starts configuring a generator.
    pub fn builder(layout: Layout) -> GeneratorBuilder {
        GeneratorBuilder::new(layout, DEFAULT_MARK_LEAD_MS)
    }

    #[inline]
    fn words(&self) -> &SharedState {
        self.words.get()
    }

    /// The generator's layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The worker identity, in layout order. Under a remote lease it can
    /// change when the lease is lost and a new identity is claimed.
    pub fn node_values(&self) -> Vec<u64> {
        let bits = self.words().node_bits.load(Ordering::Acquire);
        self.layout
            .decode(bits)
            .map(|parts| parts.nodes().to_vec())
            .unwrap_or_default()
    }
    /// The backwards policy.
    pub fn policy(&self) -> BackwardsPolicy {
        self.policy
    }
    /// The clock.
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.clock.shared()
    }

    /// Whether an ID could be issued now without refusing: the lease (if
    /// any) holds, taking up a new identity offered meanwhile, and the clock
    /// is not further behind the last issued tick than the backwards policy
    /// allows. For readiness probes; `next_id` checks the same on every call.
    pub fn ready(&self) -> Result<()> {
        if self.words().state.load(Ordering::Acquire) == CLOSED {
            return Err(closed());
        }
        let now_ms = self.clock.now_ms();
        if let Some(held) = &self.held {
            if now_ms >= held.tenure.valid_until_ms() {
                self.take_up_claim(held, now_ms)?;
            }
        } else if self.following {
            self.follow_deadline(now_ms)?;
        }
        let state = self.words().state.load(Ordering::Acquire);
        if state == NONE {
            return Ok(());
        }
        let last = state >> self.layout.sequence_bits();
        if self.layout.timestamp_of(last) <= now_ms {
            return Ok(());
        }
        match self.behind(last, now_ms) {
            Behind::Refuse(e) => Err(e),
            Behind::Resume(_) | Behind::Wait(_) | Behind::RunAhead => Ok(()),
        }
    }

    /// Counts since the generator was built: waits at the per-tick ceiling,
    /// clock-backwards events by outcome, and the remote lease's renewals,
    /// losses and re-acquisitions (if any). For metrics.
    pub fn stats(&self) -> GeneratorStats {
        self.counters
            .snapshot(self.held.as_ref().map(|held| held.tenure.counts()))
    }

    /// The policy's verdict on a clock reading `now_ms` that lies before the
    /// tick `last` (one rule for `next_id` and `ready`).
    #[cold]
    fn behind(&self, last: u64, now_ms: i64) -> Behind {
        let until = self.layout.timestamp_of(last);
        let behind_ms = until.saturating_sub(now_ms).max(0) as u64;
        if last == self.words().resume_ticks.load(Ordering::Acquire)
            && behind_ms <= self.resume_grace_ms
        {
            return Behind::Resume(until);
        }
        match self.policy {
            BackwardsPolicy::Logical => Behind::RunAhead,
            BackwardsPolicy::Wait { max_ms } if behind_ms <= max_ms => Behind::Wait(until),
            BackwardsPolicy::Wait { max_ms } => Behind::Refuse(Error::ClockMovedBackwards {
                behind_ms,
                allowed_ms: max_ms,
            }),
            BackwardsPolicy::Fail => Behind::Refuse(Error::ClockMovedBackwards {
                behind_ms,
                allowed_ms: 0,
            }),
        }
    }

    /// The Unix millisecond of the tick of the last issued ID, if any.
    pub fn last_timestamp_ms(&self) -> Option<i64> {
        let mut state = self.words().state.load(Ordering::Acquire);
        if state == CLOSED {
            state = self.closed_from.load(Ordering::Acquire);
        }
        (state != NONE).then(|| {
            self.layout
                .timestamp_of(state >> self.layout.sequence_bits())
        })
    }

    /// The next ID, waiting for the next tick when this one's sequence is spent.
    #[inline]
    pub fn next_id(&self) -> Result<u64> {
        loop {
            match self.reserve(1)? {
                Step::Reserved {
                    ticks,
                    first,
                    node_bits,
                    ..
                } => return Ok(self.layout.assemble(ticks, first, node_bits)),
                Step::WaitUntil(ms) => self.clock.wait_until(ms),
            }
        }
    }

    /// The next ID if one can be issued now, else the moment to wait for.
    /// Bindings use it to wait without holding their interpreter's lock.
    #[inline]
    pub fn try_next_id(&self) -> Result<TryNext> {
        Ok(match self.reserve(1)? {
            Step::Reserved {
                ticks,
                first,
                node_bits,
                ..
            } => TryNext::Id(self.layout.assemble(ticks, first, node_bits)),
            Step::WaitUntil(ms) => TryNext::WaitUntil(ms),
        })
    }

    /// Waits on the generator's clock until `target_ms`.
    pub fn wait_until(&self, target_ms: i64) {
        self.clock.wait_until(target_ms);
    }

    /// Reserves up to `max` consecutive IDs of one tick in one step, waiting
    /// if none is available yet.
    pub fn next_block(&self, max: u64) -> Result<IdBlock> {
        let max = max.max(1);
        loop {
            match self.reserve(max)? {
                Step::Reserved {
                    ticks,
                    first,
                    count,
                    node_bits,
                } => {
                    return Ok(IdBlock {
                        first: self.layout.assemble(ticks, first, node_bits),
                        stride: 1 << self.layout.sequence_shift(),
                        count,
                    })
                }
                Step::WaitUntil(ms) => self.clock.wait_until(ms),
            }
        }
    }

    /// Fills `out` with increasing IDs, a tick's worth per step.
    pub fn fill(&self, out: &mut [u64]) -> Result<()> {
        let mut filled = 0;
        while filled < out.len() {
            let block = self.next_block((out.len() - filled) as u64)?;
            for (slot, id) in out[filled..].iter_mut().zip(block.ids()) {
                *slot = id;
            }
            filled += block.count as usize;
        }
        Ok(())
    }

    /// The largest batch [`next_ids`](Self::next_ids) (and every binding's
    /// `next_ids`/`nextIds`) hands out in one call: 2^24 IDs, 128 MiB, about
    /// four seconds of a 4,096-per-millisecond layout's output.
    pub const MAX_BATCH: u64 = 1 << 24;

    /// Checks a batch size given by a caller: at most [`MAX_BATCH`](Self::MAX_BATCH).
    pub fn batch_size(n: u64) -> Result<usize> {
        if n > Self::MAX_BATCH {
            return Err(Error::FieldOutOfRange {
                field: "n".into(),
                value: n,
                max: Self::MAX_BATCH,
            });
        }
        Ok(n as usize)
    }

    /// `n` increasing IDs (at most [`MAX_BATCH`](Self::MAX_BATCH)).
    pub fn next_ids(&self, n: usize) -> Result<Vec<u64>> {
        let n = Self::batch_size(n as u64)?;
        let mut ids = vec![0; n];
        self.fill(&mut ids)?;
        Ok(ids)
    }

    /// The core step: read the state, then the clock (in that order, so a
    /// clock reading is never older than the state it is compared with, or
    /// the state's tick is not past it), decide, and publish with one
    /// compare-and-swap.
    #[inline]
    fn reserve(&self, want: u64) -> Result<Step> {
        let layout = &self.layout;
        let seq_bits = layout.sequence_bits();
        let max_seq = layout.max_sequence();
        let mut current = self.words().state.load(Ordering::Acquire);
        let mut now_ms = self.clock.now_ms();
        loop {
            if current == CLOSED {
                return Err(closed());
            }
            if let Some(held) = &self.held {
                if now_ms >= held.tenure.valid_until_ms() {
                    self.take_up_claim(held, now_ms)?;
                    current = self.words().state.load(Ordering::Acquire);
                    now_ms = self.clock.now_ms();
                    continue;
                }
            } else if self.following
                && now_ms >= self.words().lease_deadline.load(Ordering::Acquire)
            {
                self.follow_deadline(now_ms)?;
                current = self.words().state.load(Ordering::Acquire);
                now_ms = self.clock.now_ms();
                continue;
            }
            let now = layout.ticks_at(now_ms)?;
            let mut ran_ahead = false;
            let (ticks, first) = if current == NONE {
                (now, 0)
            } else {
                let last = current >> seq_bits;
                let seq = current & max_seq;
                if now > last {
                    (now, 0)
                } else if now == last {
                    if seq < max_seq {
                        (last, seq + 1)
                    } else {
                        Counters::add(&self.counters.ceiling_waits);
                        return self.after_tick(last).map(Step::WaitUntil);
                    }
                } else {
                    match self.behind(last, now_ms) {
                        Behind::Resume(until) => return Ok(Step::WaitUntil(until)),
                        Behind::Wait(until) => {
                            Counters::add(&self.counters.backwards_waited);
                            return Ok(Step::WaitUntil(until));
                        }
                        Behind::Refuse(e) => {
                            Counters::add(&self.counters.backwards_refused);
                            return Err(e);
                        }
                        Behind::RunAhead => {
                            ran_ahead = true;
                            if seq < max_seq {
                                (last, seq + 1)
                            } else {
                                self.after_tick(last)?;
                                (last + 1, 0)
                            }
                        }
                    }
                }
            };
            if let Some(mark) = &self.mark {
                if ticks >= self.words().mark_limit.load(Ordering::Acquire) {
                    self.extend_mark(mark, ticks)?;
                    current = self.words().state.load(Ordering::Acquire);
                    now_ms = self.clock.now_ms();
                    continue;
                }
            }
            let count = want.min(max_seq - first + 1);
            let next = (ticks << seq_bits) | (first + count - 1);
            // Read after the lease check: a new identity's bits are published
            // before its deadline.
            let node_bits = self.words().node_bits.load(Ordering::Acquire);
            match self.words().state.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    if ran_ahead {
                        Counters::add(&self.counters.backwards_ran_ahead);
                    }
                    return Ok(Step::Reserved {
                        ticks,
                        first,
                        count,
                        node_bits,
                    });
                }
                Err(actual) => {
                    // Another thread won. Its tick, if not past this reading,
                    // leaves the reading valid to compare with: the retry
                    // skips a clock read, which keeps its window to the next
                    // compare-and-swap short. A later tick needs a reading at
                    // least as new, or the race would look like the clock
                    // going backwards.
                    current = actual;
                    if actual >> seq_bits > now {
                        now_ms = self.clock.now_ms();
                    }
                }
            }
        }
    }

    /// The first millisecond of the tick after `last`, if the layout has one.
    fn after_tick(&self, last: u64) -> Result<i64> {
        let layout = &self.layout;
        if last >= layout.max_ticks() {
            let end = layout.max_timestamp_ms();
            return Err(Error::TimestampOverflow {
                timestamp_ms: end.saturating_add(1),
                max_timestamp_ms: end,
            });
        }
        Ok(layout.timestamp_of(last + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    fn manual(layout: Layout, policy: BackwardsPolicy, at: i64) -> (Generator, ManualClock) {
        let clock = ManualClock::new(at);
        let nodes = vec![1; layout.node_fields().len()];
        let generator = Generator::builder(layout)
            .nodes(&nodes)
            .clock(clock.clone())
            .on_clock_backwards(policy)
            .build()
            .unwrap();
        (generator, clock)
    }

    #[test]
    fn same_tick_counts_then_waits_for_the_next() {
        let layout = Layout::custom(0, 41)
            .node("n", 2)
            .sequence_bits(2)
            .build()
            .unwrap();
        let (g, clock) = manual(layout.clone(), BackwardsPolicy::Fail, 100);
        let seqs: Vec<_> = (0..5)
            .map(|_| layout.decode(g.next_id().unwrap()).unwrap())
            .collect();
        assert_eq!(
            seqs.iter().map(|p| p.sequence).collect::<Vec<_>>(),
            [0, 1, 2, 3, 0]
        );
        assert_eq!(seqs[4].timestamp_ms, 101);
        assert_eq!(clock.now_ms(), 101);
        let stats = g.stats();
        assert_eq!(stats.ceiling_waits, 1, "{stats:?}");
        assert_eq!(stats.lease, None);
        // A block asks for more than a tick holds: one wait per tick crossed.
        g.next_ids(3 + 4 + 4).unwrap();
        assert_eq!(g.stats().ceiling_waits, 3);
        assert_eq!(clock.now_ms(), 103);
    }

    #[test]
    fn policy_names_round_trip() {
        for name in BackwardsPolicy::NAMES {
            assert_eq!(
                BackwardsPolicy::parse(name, 5, "policy").unwrap().name(),
                name
            );
        }
    }

    #[test]
    fn backwards_policies() {
        let t = Layout::twitter();
        let at = t.epoch_ms() + 1000;
        let (g, clock) = manual(t.clone(), BackwardsPolicy::Fail, at);
        g.next_id().unwrap();
        clock.set(at - 3);
        assert_eq!(
            g.next_id().unwrap_err(),
            Error::ClockMovedBackwards {
                behind_ms: 3,
                allowed_ms: 0
            }
        );
        assert_eq!(g.ready().unwrap_err().code(), "CLOCK_MOVED_BACKWARDS");
        assert_eq!(g.stats().clock_backwards_refused, 1, "ready counts nothing");

        let (g, clock) = manual(t.clone(), BackwardsPolicy::default(), at);
        let first = g.next_id().unwrap();
        clock.set(at - 5);
        let second = g.next_id().unwrap();
        assert!(second > first);
        assert_eq!(clock.now_ms(), at);
        clock.set(at - 6);
        assert_eq!(g.next_id().unwrap_err().code(), "CLOCK_MOVED_BACKWARDS");
        let stats = g.stats();
        assert_eq!(
            (stats.clock_backwards_waited, stats.clock_backwards_refused),
            (1, 1)
        );

        let (g, clock) = manual(t.clone(), BackwardsPolicy::Logical, at);
        let first = g.next_id().unwrap();
        clock.set(at - 100);
        let second = g.next_id().unwrap();
        assert_eq!(second, first + 1);
        assert_eq!(clock.now_ms(), at - 100);
        g.next_id().unwrap();
        assert!(g.ready().is_ok());
        let stats = g.stats();
        assert_eq!(
            (
                stats.clock_backwards_ran_ahead,
                stats.clock_backwards_refused,
                stats.ceiling_waits
            ),
            (2, 0, 0)
        );
    }

    #[test]
    fn high_water_mark_is_respected() {
        let t = Layout::twitter();
        let at = t.epoch_ms() + 1000;
        let clock = ManualClock::new(at - 2);
        let g = Generator::builder(t.clone())
            .nodes(&[0, 0])
            .clock(clock.clone())
            .after(at)
            .build()
            .unwrap();
        let id = g.next_id().unwrap();
        assert_eq!(t.decode(id).unwrap().timestamp_ms, at + 1);
    }

    #[test]
    fn blocks_stay_in_one_tick_and_fill_crosses_ticks() {
        let s = Layout::sonyflake();
        let (g, _clock) = manual(s.clone(), BackwardsPolicy::Fail, s.epoch_ms() + 50);
        let block = g.next_block(1000).unwrap();
        assert_eq!(block.count, 256);
        assert_eq!(block.stride, 1 << 16);
        let ids = g.next_ids(600).unwrap();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(ids[0] > block.ids().last().unwrap());
    }

    #[test]
    fn batches_have_a_maximum() {
        let (g, _clock) = manual(Layout::twitter(), BackwardsPolicy::Fail, 1_700_000_000_000);
        let err = g.next_ids(1 << 40).unwrap_err();
        assert_eq!(err.code(), "FIELD_OUT_OF_RANGE");
        assert!(err.to_string().contains("16777216"), "{err}");
        assert_eq!(
            Generator::batch_size(Generator::MAX_BATCH).unwrap(),
            1 << 24
        );
    }

    #[test]
    fn identity_is_validated() {
        let t = Layout::twitter();
        assert_eq!(
            Generator::new(t.clone(), &[32, 0]).unwrap_err().code(),
            "FIELD_OUT_OF_RANGE"
        );
        assert_eq!(
            Generator::new(t.clone(), &[1]).unwrap_err().code(),
            "INVALID_ARGUMENT"
        );
        assert_eq!(
            Generator::builder(t)
                .node("datacenter_id", 1)
                .build()
                .unwrap_err()
                .code(),
            "INVALID_ARGUMENT"
        );
    }
}
