//! The lease worker: a background process of the server that holds the
//! registry lease (etcd) of every layout whose identity comes from one, and
//! leads the layout's words (ADR 0016). The backends follow the words: they
//! issue while the deadline the worker publishes there holds, and refuse
//! from it on, with the reason the worker last met.
//!
//! The postmaster restarts the worker a second after it ends. A worker that
//! dies leaves its last deadline in the words, which is safe: the registry
//! keeps the lease that long. The next worker stops the followers first,
//! claims anew, and starts past the claimed value's mark.

use std::time::{Duration, Instant};

use pgrx::bgworkers::{BackgroundWorker, BackgroundWorkerBuilder, SignalWakeFlags};
use pgrx::prelude::*;
use polyflake_connectors::CONNECTORS;
use polyflake_core::{Error, Generator, WorkerIdentity};

use crate::generator::{self, Lease};
use crate::settings;

/// How often the worker leads its words.
const TICK: Duration = Duration::from_millis(100);
/// How far past the clock the mark is kept written: the followers never
/// reach it between two ticks while the lease is renewed.
const AHEAD_MS: i64 = 2_000;
/// How long after a failed claim the worker claims again.
const RETRY: Duration = Duration::from_secs(1);

/// Registers the worker, in the postmaster while it preloads the library.
pub(crate) fn register() {
    BackgroundWorkerBuilder::new("polyflake lease worker")
        .set_type("polyflake lease worker")
        .set_library("polyflake")
        .set_function("polyflake_lease_worker")
        .enable_shmem_access(None)
        .set_restart_time(Some(Duration::from_secs(1)))
        .load();
}

/// One layout's lease: the generator that leads its words, once claimed.
struct Held {
    lease: Lease<'static>,
    leader: Option<Generator>,
    retry_at: Instant,
    /// What the log last said, so that it says each change once.
    said: String,
}

impl Held {
    fn step(&mut self) {
        let outcome = match &self.leader {
            Some(leader) => leader.lead(AHEAD_MS).map(|()| None),
            None if Instant::now() < self.retry_at => return,
            None => match self.claim() {
                Ok(leader) => {
                    let claimed = leader.identity_source();
                    let led = leader.lead(AHEAD_MS);
                    self.leader = Some(leader);
                    led.map(|()| Some(claimed))
                }
                Err(e) => {
                    generator::words(self.lease.slot).refuse_followers(&e);
                    self.retry_at = Instant::now() + RETRY;
                    Err(e)
                }
            },
        };
        self.tell(outcome);
    }

    /// Claims a value and builds the generator that leads the words.
    fn claim(&self) -> polyflake_core::Result<Generator> {
        let Lease {
            slot,
            layout,
            registry,
            settings,
            ..
        } = &self.lease;
        // The lease's keep-alive thread must not take the server's signals.
        let identity = with_signals_blocked(|| {
            WorkerIdentity::resolve_registry(
                layout,
                CONNECTORS,
                registry,
                settings,
                generator::clock(),
            )
        })?;
        Generator::builder((*layout).clone())
            .identity(identity)
            .on_clock_backwards(settings::policy()?)
            .shared(generator::words(*slot), generator::mark_lock(layout))
            .build()
    }

    /// Logs a claim, and each change between leading and failing.
    fn tell(&mut self, outcome: Result<Option<String>, Error>) {
        let layout = self.lease.name;
        match outcome {
            Ok(Some(claimed)) => {
                log!("polyflake: layout {layout}: next_id issues under {claimed}");
                self.said.clear();
            }
            Ok(None) if !self.said.is_empty() => {
                log!("polyflake: layout {layout}: the lease holds again");
                self.said.clear();
            }
            Ok(None) => {}
            Err(e) => {
                let said = format!("{}: {e}", e.code());
                if said != self.said {
                    warning!("polyflake: layout {layout}: next_id refuses: {said}");
                    self.said = said;
                }
            }
        }
    }
}

/// Runs `f` with every signal blocked on this thread, so that the threads
/// it starts (which inherit the mask) leave the signals to PostgreSQL's
/// handlers on this one.
fn with_signals_blocked<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: plain libc calls on sigset_t values owned here.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut before: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut before);
        let out = f();
        libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
        out
    }
}

/// The worker's main function, which the postmaster calls by name.
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn polyflake_lease_worker(_arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    let mut held: Vec<Held> = generator::leases()
        .map(|lease| Held {
            lease,
            leader: None,
            retry_at: Instant::now(),
            said: String::new(),
        })
        .collect();
    loop {
        for lease in &mut held {
            lease.step();
        }
        if !BackgroundWorker::wait_latch(Some(TICK)) {
            break;
        }
    }
    // Shut down: each leader stops its followers, then revokes its lease.
    drop(held);
}
