//! A generator backed by `polyflake serve` replicas (#31): IDs fetched in
//! batches over HTTP (`GET /v1/ids?count=N`) into a buffer that a background
//! thread refills before it runs out (Meituan Leaf's double buffer: the next
//! batch is loaded while the current one is handed out), so that `next_id`
//! almost never waits on the network.
//!
//! - The batches rotate over the replicas; a replica that refuses the
//!   connection, times out or answers anything but 200 (a 503 while it has no
//!   identity) is skipped for the next at once.
//! - Each ID is handed out once: the buffer is taken under one lock, in the
//!   order of its batch. A forked child's copy refuses (`LEASE_LOST`, reason
//!   `forked`): the parent's buffer is the parent's.
//! - When no replica answers, `next_id` waits up to the deadline, then fails
//!   with `LEASE_LOST`, reason `unreachable` (retryable), naming what each
//!   replica said; the refill keeps trying and the next call may succeed.
//!
//! IDs from two replicas come from two identities: each batch is increasing,
//! the stream as a whole is unique but not sorted across batches.

mod http;

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use polyflake::{ArgumentKind, Error, LeaseLostReason};

use crate::http::Replica;

/// The service's largest batch (`polyflake serve`'s `count`, from the wire format).
pub const MAX_BATCH: usize = polyflake_wire::MAX_COUNT as usize;

/// How long a replica that failed is tried only after the others.
const REST: Duration = Duration::from_secs(1);

/// What a [`ServiceGenerator`] fetches, from where, and how long it waits.
#[derive(Debug, Clone)]
pub struct ServiceSettings {
    /// The replicas, `http://host:port` each.
    pub urls: Vec<String>,
    /// IDs per request: 1000 by default, at most [`MAX_BATCH`].
    pub batch: usize,
    /// The refill starts when fewer IDs than this remain (at most `batch`):
    /// half a batch when `None`, the default.
    pub low_water: Option<usize>,
    /// The largest batch the refill grows to when the buffer drains faster
    /// than four requests take (and shrinks from, down to `batch`, when a
    /// batch lasts longer than 64 requests): 16 × `batch` (at most
    /// [`MAX_BATCH`]) when `None`; `Some(batch)` keeps the batch fixed.
    pub max_batch: Option<usize>,
    /// One request's limit (connecting, writing, each read): 1 s by default.
    pub request_timeout: Duration,
    /// How long `next_id` waits for IDs before it fails: 10 s by default.
    pub deadline: Duration,
}

impl ServiceSettings {
    /// The defaults, for `urls`.
    pub fn new<U: Into<String>>(urls: impl IntoIterator<Item = U>) -> ServiceSettings {
        ServiceSettings {
            urls: urls.into_iter().map(Into::into).collect(),
            batch: 1000,
            low_water: None,
            max_batch: None,
            request_timeout: Duration::from_secs(1),
            deadline: Duration::from_secs(10),
        }
    }
}

/// Counts since the generator was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServiceStats {
    /// Batches fetched.
    pub batches: u64,
    /// Requests that failed, each followed by a try at the next replica.
    pub failovers: u64,
    /// Calls that found the buffer empty and waited for a refill.
    pub stalls: u64,
    /// The longest of those waits.
    pub longest_stall: Duration,
    /// Calls that waited their whole deadline and failed.
    pub refused: u64,
}

/// IDs from `polyflake serve` replicas, buffered and refilled ahead.
#[derive(Debug)]
pub struct ServiceGenerator {
    shared: Arc<Shared>,
    refiller: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Debug)]
struct Shared {
    replicas: Vec<Replica>,
    settings: ServiceSettings,
    /// `settings.low_water`, or its default: the low-water mark of a batch of
    /// `settings.batch`, scaled with the batch.
    low_water: usize,
    /// `settings.max_batch`, or its default.
    max_batch: usize,
    /// The fork generation of the process the buffer belongs to.
    made_in: u64,
    state: Mutex<State>,
    /// IDs arrived, or the generator closed.
    filled: Condvar,
    /// The buffer fell below the low-water mark, or the generator closed.
    wanted: Condvar,
}

#[derive(Debug, Default)]
struct State {
    ids: VecDeque<u64>,
    /// Callers waiting for IDs beyond those buffered.
    waiting: usize,
    /// What the replicas said in the last round that got no batch.
    failures: Vec<String>,
    next_replica: usize,
    /// Until when each replica is passed over after a failure.
    resting: Vec<Option<Instant>>,
    closed: bool,
    /// The batch asked for now, between `settings.batch` and `max_batch`,
    /// and its low-water mark.
    batch: usize,
    low_water: usize,
    /// The refill thread waits for `wanted`: only then is it signalled
    /// (a signal is a system call; most calls need none).
    refill_idle: bool,
    stats: ServiceStats,
}

fn usage(detail: String) -> Error {
    Error::invalid(ArgumentKind::Usage, detail)
}

impl ServiceGenerator {
    /// Checks the settings and starts the refill, which fetches the first
    /// batch at once. No call waits here: a replica that does not answer
    /// shows in the first `next_id`.
    pub fn new(settings: ServiceSettings) -> Result<ServiceGenerator, Error> {
        if settings.urls.is_empty() {
            return Err(usage(
                "a service-backed generator needs at least one replica URL".into(),
            ));
        }
        let replicas = settings
            .urls
            .iter()
            .map(|url| Replica::parse(url).map_err(usage))
            .collect::<Result<Vec<_>, _>>()?;
        if !(1..=MAX_BATCH).contains(&settings.batch) {
            return Err(Error::FieldOutOfRange {
                field: "batch".into(),
                value: settings.batch as u64,
                max: MAX_BATCH as u64,
            });
        }
        let low_water = settings.low_water.unwrap_or(settings.batch / 2);
        if low_water > settings.batch {
            return Err(Error::FieldOutOfRange {
                field: "low_water".into(),
                value: low_water as u64,
                max: settings.batch as u64,
            });
        }
        let max_batch = settings
            .max_batch
            .unwrap_or(MAX_BATCH.min(settings.batch.saturating_mul(16)));
        if !(settings.batch..=MAX_BATCH).contains(&max_batch) {
            return Err(Error::FieldOutOfRange {
                field: "max_batch".into(),
                value: max_batch as u64,
                max: MAX_BATCH as u64,
            });
        }
        if settings.request_timeout.is_zero() || settings.deadline.is_zero() {
            return Err(usage(
                "request_timeout and deadline must be longer than zero".into(),
            ));
        }
        let n = replicas.len();
        let batch = settings.batch;
        let shared = Arc::new(Shared {
            replicas,
            settings,
            low_water,
            max_batch,
            made_in: polyflake::fork::registered(),
            state: Mutex::new(State {
                resting: vec![None; n],
                batch,
                low_water,
                ..State::default()
            }),
            filled: Condvar::new(),
            wanted: Condvar::new(),
        });
        let refill = Arc::clone(&shared);
        let refiller = std::thread::Builder::new()
            .name("polyflake-refill".into())
            .spawn(move || refill.refill())
            .map_err(|e| usage(format!("cannot start the refill thread: {e}")))?;
        Ok(ServiceGenerator {
            shared,
            refiller: Mutex::new(Some(refiller)),
        })
    }

    /// The next ID.
    #[inline]
    pub fn next_id(&self) -> Result<u64, Error> {
        self.same_process()?;
        {
            let mut state = self.shared.lock();
            if !state.closed {
                if let Some(id) = state.ids.pop_front() {
                    self.shared.want_more(&mut state);
                    return Ok(id);
                }
            }
        }
        let mut out = Vec::with_capacity(1);
        self.take(1, &mut out)?;
        Ok(out[0])
    }

    /// Refuses in a forked child, before touching the lock (which a thread
    /// of the parent may have held at the fork).
    #[inline]
    fn same_process(&self) -> Result<(), Error> {
        if polyflake::fork::forked_since(self.shared.made_in) {
            return Err(Error::lease_lost(
                LeaseLostReason::Forked,
                "a forked child's copy of a service-backed generator: its buffer is the parent's; \
                 make a new generator in the child"
                    .into(),
            ));
        }
        Ok(())
    }

    /// `n` IDs, each batch's in its order.
    pub fn next_ids(&self, n: usize) -> Result<Vec<u64>, Error> {
        let mut out = Vec::with_capacity(n);
        self.take(n, &mut out)?;
        Ok(out)
    }

    /// Counts since the generator was made.
    pub fn stats(&self) -> ServiceStats {
        self.shared.lock().stats
    }

    /// The settings it was made with.
    pub fn settings(&self) -> &ServiceSettings {
        &self.shared.settings
    }

    /// The IDs asked for per request now (the refill adapts it to the rate
    /// between `settings.batch` and `max_batch`).
    pub fn batch(&self) -> usize {
        self.shared.lock().batch
    }

    /// The refill starts when fewer IDs than this remain (now: it scales
    /// with the batch).
    pub fn low_water(&self) -> usize {
        self.shared.lock().low_water
    }

    /// IDs buffered now (fetched, not yet handed out).
    pub fn buffered(&self) -> usize {
        self.shared.lock().ids.len()
    }

    /// Stops the refill and drops the buffer; later calls fail with
    /// `LEASE_LOST`, reason `closed`.
    pub fn close(&self) {
        if polyflake::fork::forked_since(self.shared.made_in) {
            // A forked child's copy: the buffer and the refill thread are the
            // parent's. Nothing here may touch them: a lock a parent's thread
            // held at the fork stays held, and the thread is not in this
            // process (joining or detaching it would be undefined).
            if let Ok(mut refiller) = self.refiller.try_lock() {
                std::mem::forget(refiller.take());
            }
            return;
        }
        {
            let mut state = self.shared.lock();
            state.closed = true;
            state.ids.clear();
        }
        self.shared.filled.notify_all();
        self.shared.wanted.notify_all();
        let refiller = self
            .refiller
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(thread) = refiller {
            // The refill ends within one request's timeout.
            let _ = thread.join();
        }
    }

    fn take(&self, n: usize, out: &mut Vec<u64>) -> Result<(), Error> {
        let shared = &*self.shared;
        self.same_process()?;
        let mut state = shared.lock();
        let mut stalled: Option<Instant> = None;
        let deadline = Instant::now() + shared.settings.deadline;
        loop {
            if state.closed {
                return Err(Error::lease_lost(
                    LeaseLostReason::Closed,
                    "this service-backed generator is closed".into(),
                ));
            }
            let wanted = n - out.len();
            let now = state.ids.len().min(wanted);
            out.extend(state.ids.drain(..now));
            shared.want_more(&mut state);
            if out.len() == n {
                if let Some(began) = stalled {
                    let waited = began.elapsed();
                    let stats = &mut state.stats;
                    stats.stalls += 1;
                    stats.longest_stall = stats.longest_stall.max(waited);
                }
                return Ok(());
            }
            let began = *stalled.get_or_insert_with(Instant::now);
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                state.stats.refused += 1;
                // What was taken goes back, in order, for the next caller.
                for id in out.drain(..).rev() {
                    state.ids.push_front(id);
                }
                let said = if state.failures.is_empty() {
                    "no answer yet".to_owned()
                } else {
                    state.failures.join("; ")
                };
                return Err(Error::lease_lost(
                    LeaseLostReason::Unreachable,
                    format!(
                        "no polyflake service replica answered within {:?} ({:?} waited): {said}",
                        shared.settings.deadline,
                        began.elapsed()
                    ),
                ));
            }
            state.waiting += 1;
            shared.want_more(&mut state);
            state = shared
                .filled
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            state.waiting -= 1;
        }
    }
}

impl Drop for ServiceGenerator {
    fn drop(&mut self) {
        self.close();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere leaves the buffer consistent (every change is one step).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes the refill if it waits and the buffer is below the low-water
    /// mark or a caller waits for more than it holds.
    #[inline]
    fn want_more(&self, state: &mut State) {
        if state.refill_idle && (state.ids.len() < state.low_water || state.waiting > 0) {
            state.refill_idle = false;
            self.wanted.notify_one();
        }
    }

    /// Leaf's adaptive step, measured in requests rather than minutes: a
    /// batch used up (down to the low-water mark) within four requests' time,
    /// or a caller waiting, doubles the next batch; one that lasted longer
    /// than 64 requests halves it. Between `settings.batch` and `max_batch`,
    /// the low-water mark in the same proportion.
    fn adapt(&self, state: &mut State, lasted: Duration, took: Duration) {
        let batch = if state.waiting > 0 || lasted < took * 4 {
            (state.batch * 2).min(self.max_batch)
        } else if lasted > took * 64 {
            (state.batch / 2).max(self.settings.batch)
        } else {
            return;
        };
        state.batch = batch;
        state.low_water =
            (batch as u128 * self.low_water as u128 / self.settings.batch as u128) as usize;
    }

    /// The refill thread: a batch whenever the buffer is below the low-water
    /// mark or a caller waits, from the replicas in turn.
    fn refill(&self) {
        let n = self.replicas.len();
        let mut pause = Duration::from_millis(20);
        // When the last batch arrived, and how long its request took.
        let mut last: Option<(Instant, Duration)> = None;
        loop {
            let (first, resting, batch) = {
                let mut state = self.lock();
                while !state.closed && state.ids.len() >= state.low_water && state.waiting == 0 {
                    state.refill_idle = true;
                    state = self.wanted.wait(state).unwrap_or_else(|e| e.into_inner());
                    state.refill_idle = false;
                }
                if state.closed {
                    return;
                }
                if let Some((arrived, took)) = last.take() {
                    self.adapt(&mut state, arrived.elapsed(), took);
                }
                (state.next_replica, state.resting.clone(), state.batch)
            };
            // One round: each replica once, from the one after the last that
            // answered; those that failed in the last second go last.
            let now = Instant::now();
            let mut order: Vec<usize> = (0..n).map(|turn| (first + turn) % n).collect();
            order.sort_by_key(|&i| resting[i].is_some_and(|until| until > now));
            let mut failures = Vec::new();
            let mut failed = Vec::new();
            let mut answered = None;
            for i in order {
                let asked = Instant::now();
                match self.replicas[i].fetch(batch, self.settings.request_timeout) {
                    Ok(ids) => {
                        last = Some((Instant::now(), asked.elapsed()));
                        answered = Some(((i + 1) % n, i, ids));
                        break;
                    }
                    Err(why) => {
                        failures.push(why);
                        failed.push(i);
                    }
                }
                if self.lock().closed {
                    return;
                }
            }
            let mut state = self.lock();
            state.stats.failovers += failures.len() as u64;
            let rest_until = Instant::now() + REST;
            for i in failed {
                state.resting[i] = Some(rest_until);
            }
            match answered {
                Some((next, answered_by, ids)) => {
                    if state.closed {
                        return;
                    }
                    state.next_replica = next;
                    state.resting[answered_by] = None;
                    state.ids.extend(ids);
                    state.stats.batches += 1;
                    state.failures.clear();
                    pause = Duration::from_millis(20);
                    drop(state);
                    self.filled.notify_all();
                }
                None => {
                    state.failures = failures;
                    drop(state);
                    // Every replica failed: a pause before the next round, longer each time.
                    let closed = self.lock();
                    let (closed, _) = self
                        .wanted
                        .wait_timeout_while(closed, pause, |s| !s.closed)
                        .unwrap_or_else(|e| e.into_inner());
                    if closed.closed {
                        return;
                    }
                    pause = (pause * 2).min(Duration::from_millis(500));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked() {
        let bad = |f: &dyn Fn(&mut ServiceSettings)| {
            let mut s = ServiceSettings::new(["http://127.0.0.1:9"]);
            f(&mut s);
            ServiceGenerator::new(s).unwrap_err()
        };
        assert_eq!(bad(&|s| s.urls.clear()).code(), "INVALID_ARGUMENT");
        assert_eq!(
            bad(&|s| s.urls[0] = "https://x:1".into()).code(),
            "INVALID_ARGUMENT"
        );
        assert_eq!(bad(&|s| s.batch = 0).code(), "FIELD_OUT_OF_RANGE");
        assert_eq!(
            bad(&|s| s.batch = MAX_BATCH + 1).code(),
            "FIELD_OUT_OF_RANGE"
        );
        assert_eq!(
            bad(&|s| s.low_water = Some(1001)).code(),
            "FIELD_OUT_OF_RANGE"
        );
        // A smaller batch alone is sound: the low-water mark follows it.
        let mut small = ServiceSettings::new(["http://127.0.0.1:9"]);
        small.batch = 10;
        assert_eq!(ServiceGenerator::new(small).unwrap().low_water(), 5);
        assert_eq!(
            bad(&|s| s.deadline = Duration::ZERO).code(),
            "INVALID_ARGUMENT"
        );
    }

    #[test]
    fn nobody_answering_is_a_typed_error_after_the_deadline() {
        // A port nobody listens on: each request is refused at once.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut settings = ServiceSettings::new([format!("http://127.0.0.1:{port}")]);
        settings.deadline = Duration::from_millis(300);
        let service = ServiceGenerator::new(settings).unwrap();
        let began = Instant::now();
        let err = service.next_id().unwrap_err();
        assert!(began.elapsed() >= Duration::from_millis(300));
        assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::Unreachable));
        assert!(err.retryable());
        assert!(
            err.to_string().contains(&format!("127.0.0.1:{port}")),
            "{err}"
        );
        assert_eq!(service.stats().refused, 1);
        service.close();
        assert_eq!(
            service.next_id().unwrap_err().lease_lost_reason(),
            Some(LeaseLostReason::Closed)
        );
    }
}
