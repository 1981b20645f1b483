//! # polyflake-etcd
//!
//! Worker identities leased from etcd. On start a generator grants an etcd
//! lease, claims the lowest free key `<prefix>/<layout>/workers/<n>` with a
//! transaction that succeeds only if the key does not exist, and keeps the
//! lease alive from a thread of its own. If the last successful keep-alive is
//! older than the TTL minus a safety margin, `next_id` fails with
//! `LEASE_LOST` before anyone else can claim the key; when etcd answers
//! again the generator claims an identity anew. The high-water mark of node
//! `n` lives at `<prefix>/<layout>/marks/<n>`, written only while this
//! lease holds `workers/<n>`, so the next holder starts past it.
//!
//! ```no_run
//! use std::sync::Arc;
//! use polyflake::{ArgumentKind, Generator, Layout, LeaseLostReason, WorkerIdentity};
//! use polyflake_etcd::EtcdLease;
//!
//! let lease = EtcdLease::new(["http://127.0.0.1:2379"]).prefix("/ids");
//! let layout = Layout::twitter();
//! let clock: Arc<dyn polyflake::Clock> = Arc::new(polyflake::MonotonicClock::new());
//! let identity = WorkerIdentity::resolve_remote(&layout, Arc::new(lease), clock)?;
//! let generator = Generator::builder(layout).identity(identity).build()?;
//! println!("{} from {}", generator.next_id()?, generator.identity_source());
//! # Ok::<(), polyflake::Error>(())
//! ```
//!
//! With [`EtcdConnector`], `Generator::from_env_with` (and every binding's
//! `from_env`, in builds with the `etcd` feature) follows
//! `POLYFLAKE_ETCD_ENDPOINTS` and `POLYFLAKE_ETCD_PREFIX`:
//!
//! ```no_run
//! use polyflake::{Generator, Layout};
//! let generator = Generator::from_env_with(Layout::twitter(), &[&polyflake_etcd::EtcdConnector])?;
//! # Ok::<(), polyflake::Error>(())
//! ```

mod keeper;
mod mark;
mod owner;

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub use polyflake::identity::registry::{
    DEFAULT_KEEP_ALIVE, DEFAULT_PREFIX, DEFAULT_REQUEST_TIMEOUT, DEFAULT_SAFETY_MARGIN, DEFAULT_TTL,
};
use polyflake::{
    ArgumentKind, Claim, Clock, Error, Layout, LeaseConnector, LeaseLostReason, RegistrySettings,
    RemoteLease, Result, Tenure,
};
use tokio::sync::watch;

pub use mark::EtcdMark;

/// An etcd lease for one generator's worker identity. Configure it, then give
/// it to [`polyflake::WorkerIdentity::resolve_remote`]; dropping the
/// generator stops the keep-alive and revokes the lease, which frees the key.
pub struct EtcdLease {
    settings: RegistrySettings,
    events: Events,
    running: Mutex<Option<Running>>,
}

/// What the keep-alive thread has to say while IDs keep flowing, for the
/// application's log (refusals reach callers as `LEASE_LOST` instead).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// This clock drifted past the bound from its live peers' (their
    /// median); IDs stay unique, their order across processes may not.
    ClockDrifted(String),
    /// This clock is back within the bound.
    ClockBackInBound,
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::ClockDrifted(why) => write!(f, "still issuing IDs, but {why}"),
            Event::ClockBackInBound => {
                f.write_str("this clock is back within the bound of its peers'")
            }
        }
    }
}

/// Where a lease's [`Event`]s go.
pub type Events = Arc<dyn Fn(&Event) + Send + Sync>;

/// The default hook: one line on stderr, `polyflake: …`, as the CLI and the
/// bindings have always said it.
pub fn events_to_stderr() -> Events {
    Arc::new(|event: &Event| eprintln!("polyflake: {event}"))
}

struct Running {
    stop: watch::Sender<bool>,
    thread: JoinHandle<()>,
    layout: Layout,
    refusals: tokio::sync::mpsc::UnboundedSender<u64>,
}

impl fmt::Debug for EtcdLease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EtcdLease")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl EtcdLease {
    /// A lease from the etcd cluster at `endpoints` (`http://host:2379`),
    /// under the prefix `/polyflake`, TTL 10 s, keep-alive every 3 s, refusing
    /// 2 s before the lease could expire.
    pub fn new<E: AsRef<str>>(endpoints: impl IntoIterator<Item = E>) -> EtcdLease {
        EtcdLease::with_settings(RegistrySettings::new(endpoints))
    }

    /// A lease held under `settings` (the core's defaults, as every binding builds them).
    pub fn with_settings(settings: RegistrySettings) -> EtcdLease {
        EtcdLease {
            settings,
            events: events_to_stderr(),
            running: Mutex::new(None),
        }
    }

    /// Sends the keep-alive thread's [`Event`]s to `hook` instead of stderr.
    #[must_use]
    pub fn on_event(mut self, hook: impl Fn(&Event) + Send + Sync + 'static) -> Self {
        self.events = Arc::new(hook);
        self
    }
    /// The key prefix (default `/polyflake`).
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.settings.prefix = prefix.into();
        self
    }
    /// The lease's time to live, whole seconds (default 10 s).
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.settings.ttl = ttl;
        self
    }
    /// How often the lease is renewed (default 3 s).
    #[must_use]
    pub fn keep_alive(mut self, every: Duration) -> Self {
        self.settings.keep_alive = every;
        self
    }
    /// How long before the lease could expire IDs are refused (default 2 s).
    #[must_use]
    pub fn safety_margin(mut self, margin: Duration) -> Self {
        self.settings.safety_margin = margin;
        self
    }
    /// The bound on one request to etcd (default 2 s).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.settings.request_timeout = timeout;
        self
    }

    /// The largest gap allowed between this process's clock and the median
    /// of its live peers' when it claims a value (default 10 s; zero turns
    /// the check off). Also `POLYFLAKE_ETCD_MAX_CLOCK_GAP_MS` with `from_env`.
    #[must_use]
    pub fn max_clock_gap(mut self, gap: Duration) -> Self {
        self.settings.max_clock_gap = gap;
        self
    }

    /// Claims only node numbers in `range` (all node fields read as one
    /// number, as `POLYFLAKE_NODE_ID`), leaving the rest to static
    /// identities. Default: the layout's whole node space.
    #[must_use]
    pub fn node_range(mut self, range: Range<u64>) -> Self {
        self.settings.node_range = Some(range);
        self
    }
}

impl RemoteLease for EtcdLease {
    fn start(&self, layout: &Layout, clock: Arc<dyn Clock>, tenure: Arc<Tenure>) -> Result<Claim> {
        self.settings.validate()?;
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.is_some() {
            return Err(Error::invalid(
                ArgumentKind::Usage,
                "an etcd lease serves one generator; make one per generator".into(),
            ));
        }
        let (stop, stopped) = watch::channel(false);
        let (claimed, first) = std::sync::mpsc::channel();
        let (refusals, refused) = tokio::sync::mpsc::unbounded_channel();
        let task = keeper::Keeper::new(
            self.settings.clone(),
            layout.clone(),
            clock,
            tenure,
            Arc::clone(&self.events),
        );
        let thread = std::thread::Builder::new()
            .name("polyflake-etcd".into())
            .spawn(move || task.run(claimed, stopped, refused))
            .map_err(|e| {
                Error::lease_lost(
                    LeaseLostReason::Unreachable,
                    format!("cannot start the etcd keep-alive thread ({e})"),
                )
            })?;
        match first.recv() {
            Ok(Ok(claim)) => {
                *running = Some(Running {
                    stop,
                    thread,
                    layout: layout.clone(),
                    refusals,
                });
                Ok(claim)
            }
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(Error::lease_lost(
                    LeaseLostReason::Unreachable,
                    "the etcd keep-alive thread ended before claiming".into(),
                ))
            }
        }
    }

    fn refused(&self, claim: Claim) -> bool {
        self.refuse(&claim)
    }
}

impl EtcdLease {
    fn refuse(&self, claim: &Claim) -> bool {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let Some(running) = running.as_ref() else {
            return false;
        };
        let number = polyflake::identity::join_node_number(&running.layout, &claim.nodes);
        running.refusals.send(number).is_ok()
    }
}

impl Drop for EtcdLease {
    fn drop(&mut self) {
        let running = self
            .running
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(Running { stop, thread, .. }) = running {
            let _ = stop.send(true);
            let _ = thread.join();
        }
    }
}

/// Opens etcd leases for identity resolution: hand it to
/// [`polyflake::WorkerIdentity::resolve_from_env`] or
/// [`polyflake::Generator::from_env_with`] so that `POLYFLAKE_ETCD_ENDPOINTS`
/// (and `POLYFLAKE_ETCD_PREFIX`) select an etcd lease.
#[derive(Debug, Clone, Copy, Default)]
pub struct EtcdConnector;

impl LeaseConnector for EtcdConnector {
    fn name(&self) -> &str {
        "etcd"
    }
    fn connect(&self, settings: &RegistrySettings) -> Result<Arc<dyn RemoteLease>> {
        Ok(Arc::new(EtcdLease::with_settings(settings.clone())))
    }
}
