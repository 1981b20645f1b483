//! The generator: lock-free, strictly increasing, never the same ID twice.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::clock::{Clock, ClockSource, MonotonicClock};
use crate::error::{Error, Result};
use crate::identity::{choose_from_env, EnvChoice, ENV_STATE_FILE};
use crate::layout::{Layout, MAX_NODE_FIELDS};
use crate::lease::LocalLease;
use crate::mark::{FileMark, MarkStore, DEFAULT_MARK_LEAD_MS};
use crate::tenure::{etcd_connector, Claim, RemoteLease, Tenure};

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

enum Step {
    Reserved {
        ticks: u64,
        first: u64,
        count: u64,
        node_bits: u64,
    },
    WaitUntil(i64),
}

/// Keeps the hot atomic on a cache line of its own.
#[repr(align(64))]
struct Padded(AtomicU64);

/// No ID issued yet. Unreachable as a real state: a generator needs
/// `time_bits + sequence_bits <= 63`.
const NONE: u64 = u64::MAX;

/// Issues IDs for one worker identity. `Send + Sync`: share it by reference
/// or `Arc`; no lock is taken per ID (one compare-and-swap on a packed
/// `(tick, sequence)` word).
pub struct Generator {
    layout: Layout,
    /// Changes only when a remote lease hands over a new identity.
    node_bits: AtomicU64,
    identity: Mutex<IdentityNote>,
    clock: ClockSource,
    policy: BackwardsPolicy,
    state: Padded,
    mark: Option<Mark>,
    held: Option<Held>,
}

struct IdentityNote {
    nodes: [u64; MAX_NODE_FIELDS],
    source: String,
}

/// The persisted high-water mark: IDs are issued only in ticks below
/// `limit` (0: nothing persisted yet); a later tick persists a new mark first.
/// The mutex holds the store and admits one writer at a time.
struct Mark {
    store: Mutex<Arc<dyn MarkStore>>,
    limit: AtomicU64,
    lead_ms: i64,
}

/// An identity held from a registry that can lapse.
struct Held {
    tenure: Arc<Tenure>,
    switching: Mutex<()>,
    /// Dropped with the generator, which stops the keep-alive and releases.
    _lease: Arc<dyn RemoteLease>,
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
    /// `POLYFLAKE_ORDINAL`, `POLYFLAKE_ETCD_ENDPOINTS` with an etcd
    /// connector registered, else a local lease in the state directory).
    pub fn from_env(layout: Layout) -> Result<Generator> {
        Generator::builder(layout).identity_from_env().build()
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
        GeneratorBuilder {
            layout,
            positional: None,
            named: Vec::new(),
            clock: None,
            policy: BackwardsPolicy::default(),
            after_ms: None,
            mark: None,
            mark_lead_ms: DEFAULT_MARK_LEAD_MS,
            from_env: None,
            remote: None,
        }
    }

    /// The generator's layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The worker identity, in layout order. Under a remote lease it can
    /// change when the lease is lost and a new identity is claimed.
    pub fn node_values(&self) -> Vec<u64> {
        lock(&self.identity).nodes[..self.layout.node_fields().len()].to_vec()
    }
    /// The backwards policy.
    pub fn policy(&self) -> BackwardsPolicy {
        self.policy
    }
    /// The clock.
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.clock.shared()
    }

    /// The Unix millisecond of the tick of the last issued ID, if any.
    pub fn last_timestamp_ms(&self) -> Option<i64> {
        let state = self.state.0.load(Ordering::Acquire);
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

    /// `n` increasing IDs.
    pub fn next_ids(&self, n: usize) -> Result<Vec<u64>> {
        let mut ids = vec![0; n];
        self.fill(&mut ids)?;
        Ok(ids)
    }

    /// The core step: read the state, then the clock (in that order, so a
    /// clock reading is never older than the state it is compared with),
    /// decide, and publish with one compare-and-swap.
    #[inline]
    fn reserve(&self, want: u64) -> Result<Step> {
        let layout = &self.layout;
        let seq_bits = layout.sequence_bits();
        let max_seq = layout.max_sequence();
        let mut current = self.state.0.load(Ordering::Acquire);
        loop {
            let now_ms = self.clock.now_ms();
            if let Some(held) = &self.held {
                if now_ms >= held.tenure.valid_until_ms() {
                    if let Some(wait_ms) = self.take_up_claim(held, now_ms)? {
                        return Ok(Step::WaitUntil(wait_ms));
                    }
                    current = self.state.0.load(Ordering::Acquire);
                    continue;
                }
            }
            let now = layout.ticks_at(now_ms)?;
            let (ticks, first) = if current == NONE {
                (now, 0)
            } else {
                let last = current >> seq_bits;
                let seq = current & max_seq;
                if now > last {
                    (now, 0)
                } else if seq < max_seq && (now == last || self.policy == BackwardsPolicy::Logical)
                {
                    (last, seq + 1)
                } else if now == last {
                    return self.after_tick(last).map(Step::WaitUntil);
                } else {
                    let behind_ms = (layout.timestamp_of(last) - now_ms) as u64;
                    match self.policy {
                        BackwardsPolicy::Fail => {
                            return Err(Error::ClockMovedBackwards {
                                behind_ms,
                                allowed_ms: 0,
                            })
                        }
                        BackwardsPolicy::Wait { max_ms } if behind_ms <= max_ms => {
                            return Ok(Step::WaitUntil(layout.timestamp_of(last)))
                        }
                        BackwardsPolicy::Wait { max_ms } => {
                            return Err(Error::ClockMovedBackwards {
                                behind_ms,
                                allowed_ms: max_ms,
                            })
                        }
                        BackwardsPolicy::Logical => {
                            self.after_tick(last)?;
                            (last + 1, 0)
                        }
                    }
                }
            };
            if let Some(mark) = &self.mark {
                if ticks >= mark.limit.load(Ordering::Acquire) {
                    self.extend_mark(mark, ticks)?;
                    current = self.state.0.load(Ordering::Acquire);
                    continue;
                }
            }
            let count = want.min(max_seq - first + 1);
            let next = (ticks << seq_bits) | (first + count - 1);
            // Read after the lease check: a new identity's bits are published
            // before its deadline.
            let node_bits = self.node_bits.load(Ordering::Acquire);
            match self.state.0.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    return Ok(Step::Reserved {
                        ticks,
                        first,
                        count,
                        node_bits,
                    })
                }
                Err(actual) => current = actual,
            }
        }
    }

    /// Persists a mark `lead_ms` past `ticks` before any ID is issued there.
    #[cold]
    fn extend_mark(&self, mark: &Mark, ticks: u64) -> Result<()> {
        let store = lock(&mark.store);
        if ticks < mark.limit.load(Ordering::Acquire) {
            return Ok(());
        }
        let layout = &self.layout;
        let until_ms = layout
            .timestamp_of(ticks)
            .saturating_add(mark.lead_ms)
            .min(layout.max_timestamp_ms());
        store.persist(until_ms)?;
        mark.limit
            .store(layout.ticks_at(until_ms)? + 1, Ordering::Release);
        Ok(())
    }

    /// The lease's deadline has passed: take up the identity its registry
    /// offers, if any, else refuse with `LEASE_LOST`. Returns a moment to
    /// wait for when the new identity's previous holder used time up to it.
    #[cold]
    fn take_up_claim(&self, held: &Held, now_ms: i64) -> Result<Option<i64>> {
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
        let until_ms = last_ms
            .max(previous_ms.unwrap_or(i64::MIN))
            .saturating_add(mark.lead_ms)
            .min(layout.max_timestamp_ms());
        claim.mark.persist(until_ms)?;
        *store = Arc::clone(&claim.mark);
        mark.limit
            .store(layout.ticks_at(until_ms)? + 1, Ordering::Release);
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
        let floor =
            (layout.ticks_at(previous_ms)? << layout.sequence_bits()) | layout.max_sequence();
        let mut current = self.state.0.load(Ordering::Acquire);
        while current == NONE || current < floor {
            match self.state.0.compare_exchange_weak(
                current,
                floor,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
        // The previous holder ran at most a mark's lead ahead: wait that out
        // rather than meet the backwards policy.
        let resume_ms = self.after_tick(layout.ticks_at(previous_ms)?)?;
        Ok((resume_ms > now_ms && resume_ms - now_ms <= mark.lead_ms + 1).then_some(resume_ms))
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

/// Configures a [`Generator`].
#[must_use]
pub struct GeneratorBuilder {
    layout: Layout,
    positional: Option<Vec<u64>>,
    named: Vec<(String, u64)>,
    clock: Option<Arc<dyn Clock>>,
    policy: BackwardsPolicy,
    after_ms: Option<i64>,
    mark: Option<Arc<dyn MarkStore>>,
    mark_lead_ms: i64,
    from_env: Option<EnvReader>,
    remote: Option<Arc<dyn RemoteLease>>,
}

type EnvReader = Box<dyn Fn(&str) -> Option<String> + Send>;

impl fmt::Debug for GeneratorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratorBuilder")
            .field("layout", &self.layout.name())
            .field("positional", &self.positional)
            .field("named", &self.named)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl GeneratorBuilder {
    /// The worker identity as values in layout order.
    pub fn nodes(mut self, values: &[u64]) -> Self {
        self.positional = Some(values.to_vec());
        self
    }
    /// One node field of the worker identity, by name.
    pub fn node(mut self, name: impl Into<String>, value: u64) -> Self {
        self.named.push((name.into(), value));
        self
    }
    /// The clock (default: [`MonotonicClock`]).
    pub fn clock(self, clock: impl Clock + 'static) -> Self {
        self.shared_clock(Arc::new(clock))
    }
    /// A clock shared with other owners.
    pub fn shared_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
    /// What to do when time goes backwards (default: wait up to 5 ms).
    pub fn on_clock_backwards(mut self, policy: BackwardsPolicy) -> Self {
        self.policy = policy;
        self
    }
    /// Issue no ID in a tick at or before the one holding `timestamp_ms`
    /// (a high-water mark left by a previous run with the same identity).
    pub fn after(mut self, timestamp_ms: i64) -> Self {
        self.after_ms = Some(timestamp_ms);
        self
    }

    /// Persists a high-water mark in `store`: the generator starts past the
    /// stored mark and never issues IDs past a mark it has not persisted.
    pub fn high_water_mark(mut self, store: Arc<dyn MarkStore>) -> Self {
        self.mark = Some(store);
        self
    }
    /// How far ahead of the clock marks are written (default 1 s): the
    /// longest a restart with the same identity waits.
    pub fn mark_lead_ms(mut self, lead_ms: i64) -> Self {
        self.mark_lead_ms = lead_ms.max(1);
        self
    }
    /// Takes the identity (and its high-water mark) from the process
    /// environment when built.
    pub fn identity_from_env(self) -> Self {
        self.identity_from(|name| std::env::var(name).ok())
    }
    /// Holds the identity from a registry (an etcd lease): the generator
    /// refuses with `LEASE_LOST` once the lease may have lapsed, and takes
    /// up the next identity the registry claims.
    pub fn remote_lease(mut self, lease: Arc<dyn RemoteLease>) -> Self {
        self.remote = Some(lease);
        self
    }
    /// [`identity_from_env`](Self::identity_from_env) with another source of variables.
    pub fn identity_from(mut self, get: impl Fn(&str) -> Option<String> + Send + 'static) -> Self {
        self.from_env = Some(Box::new(get));
        self
    }

    /// Validates the identity against the layout and builds.
    pub fn build(mut self) -> Result<Generator> {
        let mut source = "given by the caller".to_owned();
        if let Some(get) = self.from_env.take() {
            if self.positional.is_some() || !self.named.is_empty() {
                return Err(Error::InvalidArgument(
                    "the identity is taken from the environment; give no node fields".into(),
                ));
            }
            match choose_from_env(&self.layout, &get)? {
                EnvChoice::Fixed(identity) => {
                    if let Some(path) = get(ENV_STATE_FILE).filter(|p| !p.is_empty()) {
                        source = format!("{} (high-water mark {path})", identity.source);
                        self.mark = Some(Arc::new(FileMark::new(path)));
                    } else {
                        source = identity.source;
                    }
                    self.positional = Some(identity.nodes);
                }
                EnvChoice::LocalLease(dir) => {
                    let lease = LocalLease::acquire(&self.layout, &dir)?;
                    source = format!(
                        "local lease on node {} ({})",
                        lease.number(),
                        lease.lock_path().display()
                    );
                    self.positional = Some(lease.nodes().to_vec());
                    self.mark = Some(Arc::new(lease));
                }
                EnvChoice::Etcd { endpoints, prefix } => {
                    let Some(connect) = etcd_connector() else {
                        return Err(Error::InvalidArgument(
                            "POLYFLAKE_ETCD_ENDPOINTS is set, but this build has no etcd lease"
                                .into(),
                        ));
                    };
                    self.remote = Some(connect(&endpoints, &prefix)?);
                }
            }
        }
        let clock = match self.clock.take() {
            Some(clock) => ClockSource::new(clock),
            None => ClockSource::Monotonic(Arc::new(MonotonicClock::new())),
        };
        let mut held = None;
        if let Some(lease) = self.remote.take() {
            if self.positional.is_some() || !self.named.is_empty() || self.mark.is_some() {
                return Err(Error::InvalidArgument(
                    "a remote lease gives the identity and its high-water mark; give neither"
                        .into(),
                ));
            }
            let tenure = Tenure::new();
            let claim = lease.start(&self.layout, clock.shared(), Arc::clone(&tenure))?;
            tenure.begin(claim.valid_until_ms);
            source = claim.source;
            self.positional = Some(claim.nodes);
            self.mark = Some(claim.mark);
            held = Some(Held {
                tenure,
                switching: Mutex::new(()),
                _lease: lease,
            });
        }
        let layout = self.layout;
        if u32::from(layout.time_bits()) + u32::from(layout.sequence_bits()) > 63 {
            return Err(Error::InvalidLayout(
                "a generator needs time_bits + sequence_bits <= 63".into(),
            ));
        }
        let nodes = match (self.positional, self.named.is_empty()) {
            (Some(_), false) => {
                return Err(Error::InvalidArgument(
                    "give the node fields either by position or by name, not both".into(),
                ))
            }
            (Some(values), true) => {
                layout.node_bits(&values)?;
                let mut nodes = [0; MAX_NODE_FIELDS];
                nodes[..values.len()].copy_from_slice(&values);
                nodes
            }
            (None, _) => layout.node_values(self.named.iter().map(|(n, v)| (n.as_str(), *v)))?,
        };
        let node_bits = layout.node_bits(&nodes[..layout.node_fields().len()])?;
        let mut after_ms = self.after_ms;
        if let Some(store) = &self.mark {
            if let Some(stored) = store.load()? {
                // A restart within the lead waits it out here; a clock further
                // behind meets the backwards policy on the first ID.
                let behind = stored.saturating_sub(clock.now_ms());
                if behind > 0 && behind <= self.mark_lead_ms {
                    clock.wait_until(stored.saturating_add(1));
                }
                after_ms = Some(after_ms.map_or(stored, |a| a.max(stored)));
            }
        }
        let state = match after_ms {
            None => NONE,
            Some(ms) if ms < layout.epoch_ms() => NONE,
            Some(ms) => {
                let ticks = layout.ticks_at(ms)?;
                (ticks << layout.sequence_bits()) | layout.max_sequence()
            }
        };
        Ok(Generator {
            node_bits: AtomicU64::new(node_bits),
            identity: Mutex::new(IdentityNote { nodes, source }),
            clock,
            policy: self.policy,
            state: Padded(AtomicU64::new(state)),
            mark: self.mark.map(|store| Mark {
                store: Mutex::new(store),
                limit: AtomicU64::new(0),
                lead_ms: self.mark_lead_ms,
            }),
            held,
            layout,
        })
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

        let (g, clock) = manual(t.clone(), BackwardsPolicy::default(), at);
        let first = g.next_id().unwrap();
        clock.set(at - 5);
        let second = g.next_id().unwrap();
        assert!(second > first);
        assert_eq!(clock.now_ms(), at);
        clock.set(at - 6);
        assert_eq!(g.next_id().unwrap_err().code(), "CLOCK_MOVED_BACKWARDS");

        let (g, clock) = manual(t.clone(), BackwardsPolicy::Logical, at);
        let first = g.next_id().unwrap();
        clock.set(at - 100);
        let second = g.next_id().unwrap();
        assert_eq!(second, first + 1);
        assert_eq!(clock.now_ms(), at - 100);
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
