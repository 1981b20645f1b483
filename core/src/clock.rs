//! Clocks: where a generator gets the current Unix millisecond.

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A source of Unix milliseconds. Implementations must be cheap to read; the
/// generator reads the clock once per ID.
pub trait Clock: Any + Send + Sync + fmt::Debug {
    /// The current time in Unix milliseconds.
    fn now_ms(&self) -> i64;

    /// Returns once `now_ms() >= target_ms`. A manual clock jumps there
    /// instead, which is what makes generator tests deterministic.
    fn wait_until(&self, target_ms: i64) {
        let mut spins = 0u32;
        loop {
            let now = self.now_ms();
            if now >= target_ms {
                return;
            }
            let remaining = target_ms - now;
            if remaining > 2 {
                std::thread::sleep(Duration::from_millis((remaining - 1) as u64));
            } else {
                spins += 1;
                if spins.is_multiple_of(64) {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
    }
}

fn wall_ns() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        Err(before) => -(before.duration().as_nanos() as i64),
    }
}

/// Reads system (wall) time on every call: follows NTP steps, forwards and
/// backwards, so pair it with a deliberate backwards policy.
#[derive(Debug, Clone, Copy, Default)]
pub struct WallClock;

impl Clock for WallClock {
    fn now_ms(&self) -> i64 {
        wall_ns().div_euclid(1_000_000)
    }
}

/// The default clock: the OS monotonic clock, anchored to wall time when the
/// clock is created. It never goes backwards, whatever happens to wall time.
///
/// Reading the OS clock costs ~35 ns on our machines, more than the rest of
/// issuing an ID. So each thread remembers, after an exact read, the span of
/// CPU timestamp-counter values for which the millisecond cannot have changed
/// yet (computed with a deliberately low counter frequency), and answers from
/// it while the counter stays inside. Every value is an exact OS reading's
/// millisecond: the counter only says when a fresh reading is due, so its
/// calibration can be off by a couple of percent without an ID's timestamp
/// ever leading or lagging real time.
pub struct MonotonicClock {
    id: u64,
    base: Instant,
    base_wall_ns: i64,
    counter: quanta::Clock,
    raw_per_ns: f64,
}

#[derive(Clone, Copy)]
struct Window {
    clock: u64,
    from: u64,
    until: u64,
    ms: i64,
}

thread_local! {
    static WINDOW: Cell<Window> = const { Cell::new(Window { clock: 0, from: 0, until: 0, ms: 0 }) };
}

static NEXT_CLOCK_ID: AtomicU64 = AtomicU64::new(1);

/// The counter may run this much slower than calibrated before a window
/// could outlive its millisecond.
const CALIBRATION_MARGIN: f64 = 0.98;
/// Slack for the time between the OS read and the counter read after it.
const GUARD_NS: i64 = 2_000;

impl MonotonicClock {
    /// Anchors a new clock to the current wall time.
    pub fn new() -> Self {
        MonotonicClock::on_counter(quanta::Clock::new())
    }

    fn on_counter(counter: quanta::Clock) -> Self {
        let probe = 1u64 << 32;
        let ns = counter.delta_as_nanos(0, probe).max(1);
        MonotonicClock {
            id: NEXT_CLOCK_ID.fetch_add(1, Ordering::Relaxed),
            base: Instant::now(),
            base_wall_ns: wall_ns(),
            counter,
            raw_per_ns: probe as f64 / ns as f64 * CALIBRATION_MARGIN,
        }
    }

    #[cold]
    fn refill(&self) -> i64 {
        self.refill_with(|| self.base_wall_ns + self.base.elapsed().as_nanos() as i64)
    }

    /// Opens this thread's window from an OS reading `os_ns`. The counter is
    /// read first: the window is measured from a counter value no later than
    /// the OS reading, so a thread preempted between the two reads gets a
    /// window that ends early, never one that outlives its millisecond (and
    /// answers a millisecond another thread has already seen pass).
    fn refill_with(&self, os_ns: impl FnOnce() -> i64) -> i64 {
        let from = self.counter.raw();
        let ns = os_ns();
        let ms = ns.div_euclid(1_000_000);
        let safe_ns = (1_000_000 - ns.rem_euclid(1_000_000) - GUARD_NS).max(0);
        let until = from.saturating_add((safe_ns as f64 * self.raw_per_ns) as u64);
        WINDOW.with(|w| {
            w.set(Window {
                clock: self.id,
                from,
                until,
                ms,
            })
        });
        ms
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock::new()
    }
}

impl fmt::Debug for MonotonicClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MonotonicClock")
            .field("anchored_at_ms", &self.base_wall_ns.div_euclid(1_000_000))
            .finish()
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn now_ms(&self) -> i64 {
        let raw = self.counter.raw();
        let w = WINDOW.with(Cell::get);
        if w.clock == self.id && raw >= w.from && raw < w.until {
            return w.ms;
        }
        self.refill()
    }
}

/// A clock set by hand, for deterministic tests in every language. Clones
/// share one time. Waiting on it jumps it forward to the awaited moment.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Arc<AtomicI64>,
}

impl ManualClock {
    /// A manual clock reading `now_ms`.
    pub fn new(now_ms: i64) -> Self {
        ManualClock {
            now: Arc::new(AtomicI64::new(now_ms)),
        }
    }
    /// Sets the time, backwards or forwards.
    pub fn set(&self, now_ms: i64) {
        self.now.store(now_ms, Ordering::SeqCst);
    }
    /// Moves the time by `delta_ms` (negative goes back).
    pub fn advance(&self, delta_ms: i64) {
        self.now.fetch_add(delta_ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
    fn wait_until(&self, target_ms: i64) {
        self.now.fetch_max(target_ms, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_clock_tracks_the_os_clock_to_the_millisecond() {
        let clock = MonotonicClock::new();
        let start = Instant::now();
        let mut last = clock.now_ms();
        let anchor = last;
        while start.elapsed() < Duration::from_millis(300) {
            let before = start.elapsed();
            let now = clock.now_ms();
            let after = start.elapsed();
            assert!(now >= last, "went backwards: {last} -> {now}");
            // Within the millisecond of a reading taken around it, plus anchoring.
            let lo = anchor + before.as_millis() as i64 - 2;
            let hi = anchor + after.as_millis() as i64 + 2;
            assert!((lo..=hi).contains(&now), "{now} outside {lo}..={hi}");
            last = now;
        }
    }

    #[test]
    fn monotonic_clock_is_anchored_to_wall_time() {
        // Bracketed by wall readings: creating the clock may itself take a
        // while (its first calibration, on a loaded machine).
        let before = WallClock.now_ms();
        let mono = MonotonicClock::new().now_ms();
        let after = WallClock.now_ms();
        assert!(
            (before - 2..=after + 2).contains(&mono),
            "{mono} outside {before}..={after}"
        );
    }

    /// A thread preempted between its two reads must not keep answering a
    /// millisecond that has passed: other threads have seen the next one,
    /// and a generator would take the stale answer for the clock going
    /// backwards. The counter is mocked so that simulated time (its value, in
    /// nanoseconds) moves only where the test says.
    #[test]
    fn a_window_never_outlives_its_millisecond_when_preempted_between_reads() {
        let (counter, time) = quanta::Clock::mock();
        let clock = MonotonicClock::on_counter(counter);
        time.increment(10_500_000u64);
        let ms = clock.refill_with(|| {
            let ns = time.value() as i64;
            time.increment(5_000_000u64); // preempted for 5 ms after the OS read
            ns
        });
        assert_eq!(ms, 10);
        let window = WINDOW.with(Cell::get);
        // The window ends before millisecond 11 begins, though 15.5 ms of
        // simulated time have passed: a window measured from the counter
        // value after the preemption would still answer 10 here...
        assert!(window.until <= 11_000_000, "{}", window.until);
        assert!(!(window.from..window.until).contains(&time.value()));
        // ...and it holds the moment of the OS read.
        assert!((window.from..window.until).contains(&10_500_000));
    }

    #[test]
    fn manual_clock_waits_by_jumping() {
        let clock = ManualClock::new(10);
        clock.wait_until(15);
        assert_eq!(clock.now_ms(), 15);
        clock.wait_until(12);
        assert_eq!(clock.now_ms(), 15);
        clock.advance(-20);
        assert_eq!(clock.now_ms(), -5);
    }
}

/// The clock a generator holds: the built-in clocks dispatched statically
/// (the monotonic clock is read once per ID, so its read must inline), any
/// other through its vtable.
#[derive(Debug, Clone)]
pub(crate) enum ClockSource {
    Monotonic(Arc<MonotonicClock>),
    Manual(ManualClock),
    Wall,
    Other(Arc<dyn Clock>),
}

impl ClockSource {
    pub(crate) fn new(clock: Arc<dyn Clock>) -> Self {
        let any: Arc<dyn Any + Send + Sync> = clock.clone();
        if let Ok(monotonic) = Arc::clone(&any).downcast::<MonotonicClock>() {
            return ClockSource::Monotonic(monotonic);
        }
        if let Some(manual) = (*any).downcast_ref::<ManualClock>() {
            return ClockSource::Manual(manual.clone());
        }
        if any.is::<WallClock>() {
            return ClockSource::Wall;
        }
        ClockSource::Other(clock)
    }

    pub(crate) fn shared(&self) -> Arc<dyn Clock> {
        match self {
            ClockSource::Monotonic(c) => c.clone(),
            ClockSource::Manual(c) => Arc::new(c.clone()),
            ClockSource::Wall => Arc::new(WallClock),
            ClockSource::Other(c) => c.clone(),
        }
    }

    #[inline(always)]
    pub(crate) fn now_ms(&self) -> i64 {
        match self {
            ClockSource::Monotonic(c) => c.now_ms(),
            ClockSource::Manual(c) => c.now_ms(),
            ClockSource::Wall => WallClock.now_ms(),
            ClockSource::Other(c) => c.now_ms(),
        }
    }

    pub(crate) fn wait_until(&self, target_ms: i64) {
        match self {
            ClockSource::Monotonic(c) => c.wait_until(target_ms),
            ClockSource::Manual(c) => c.wait_until(target_ms),
            ClockSource::Wall => WallClock.wait_until(target_ms),
            ClockSource::Other(c) => c.wait_until(target_ms),
        }
    }
}

/// A built-in clock by name: `monotonic` (the default) or `wall`. Manual
/// clocks are objects, not names. `option` names the argument in messages.
pub fn named_clock(name: &str, option: &str) -> crate::error::Result<Arc<dyn Clock>> {
    match name {
        "monotonic" => Ok(Arc::new(MonotonicClock::new())),
        "wall" => Ok(Arc::new(WallClock)),
        other => Err(crate::error::Error::invalid(
            crate::error::ArgumentKind::UnknownName,
            format!("{option} must be 'monotonic', 'wall' or a ManualClock, not {other:?}"),
        )),
    }
}
