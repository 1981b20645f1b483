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
//! use polyflake::{Generator, Layout};
//! use polyflake_etcd::EtcdLease;
//!
//! let lease = EtcdLease::new(["http://127.0.0.1:2379"]).prefix("/ids");
//! let generator = Generator::builder(Layout::twitter())
//!     .remote_lease(Arc::new(lease))
//!     .build()?;
//! println!("{} from {}", generator.next_id()?, generator.identity_source());
//! # Ok::<(), polyflake::Error>(())
//! ```
//!
//! `polyflake_etcd::register()` lets `Generator::from_env` follow
//! `POLYFLAKE_ETCD_ENDPOINTS` and `POLYFLAKE_ETCD_PREFIX`.

mod keeper;
mod mark;

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use polyflake::{Claim, Clock, Error, Layout, RemoteLease, Result, Tenure};
use tokio::sync::watch;

pub use mark::EtcdMark;

/// The default lease TTL.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10);
/// The default keep-alive period.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(3);
/// The default safety margin: IDs are refused this long before the lease
/// could expire at etcd.
pub const DEFAULT_MARGIN: Duration = Duration::from_secs(2);
/// The default bound on one request to etcd.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// An etcd lease for one generator's worker identity. Configure it, then give
/// it to [`polyflake::GeneratorBuilder::remote_lease`]; dropping the
/// generator stops the keep-alive and revokes the lease, which frees the key.
pub struct EtcdLease {
    settings: Settings,
    running: Mutex<Option<Running>>,
}

#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) endpoints: Vec<String>,
    pub(crate) prefix: String,
    pub(crate) ttl: Duration,
    pub(crate) keep_alive: Duration,
    pub(crate) margin: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) nodes: Option<Range<u64>>,
}

struct Running {
    stop: watch::Sender<bool>,
    thread: JoinHandle<()>,
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
        EtcdLease {
            settings: Settings {
                endpoints: endpoints
                    .into_iter()
                    .map(|e| e.as_ref().to_owned())
                    .collect(),
                prefix: "/polyflake".to_owned(),
                ttl: DEFAULT_TTL,
                keep_alive: DEFAULT_KEEP_ALIVE,
                margin: DEFAULT_MARGIN,
                request_timeout: DEFAULT_REQUEST_TIMEOUT,
                nodes: None,
            },
            running: Mutex::new(None),
        }
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
        self.settings.margin = margin;
        self
    }
    /// The bound on one request to etcd (default 2 s).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.settings.request_timeout = timeout;
        self
    }

    /// Claims only node numbers in `range` (all node fields read as one
    /// number, as `POLYFLAKE_NODE_ID`), leaving the rest to static
    /// identities. Default: the layout's whole node space.
    #[must_use]
    pub fn node_range(mut self, range: Range<u64>) -> Self {
        self.settings.nodes = Some(range);
        self
    }

    fn validate(&self) -> Result<()> {
        let s = &self.settings;
        let bad = |why: String| Err(Error::InvalidArgument(why));
        if s.endpoints.is_empty() {
            return bad("an etcd lease needs at least one endpoint".into());
        }
        if s.ttl.subsec_nanos() != 0 || s.ttl < Duration::from_secs(2) {
            return bad(format!(
                "the etcd lease TTL must be whole seconds, at least 2 (got {:?})",
                s.ttl
            ));
        }
        if s.margin.is_zero() || s.margin >= s.ttl {
            return bad(format!(
                "the safety margin ({:?}) must be above zero and below the TTL ({:?})",
                s.margin, s.ttl
            ));
        }
        if s.keep_alive.is_zero() || s.keep_alive + s.request_timeout >= s.ttl - s.margin {
            return bad(format!(
                "keep-alive every {:?} plus a request timeout of {:?} must be shorter than the TTL minus the margin ({:?})",
                s.keep_alive,
                s.request_timeout,
                s.ttl - s.margin
            ));
        }
        if matches!(&s.nodes, Some(r) if r.is_empty()) {
            return bad(format!("the node range {:?} is empty", s.nodes));
        }
        if !s.prefix.starts_with('/') {
            return bad(format!(
                "the etcd key prefix {:?} must start with '/'",
                s.prefix
            ));
        }
        Ok(())
    }
}

impl RemoteLease for EtcdLease {
    fn start(&self, layout: &Layout, clock: Arc<dyn Clock>, tenure: Arc<Tenure>) -> Result<Claim> {
        self.validate()?;
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.is_some() {
            return Err(Error::InvalidArgument(
                "an etcd lease serves one generator; make one per generator".into(),
            ));
        }
        let (stop, stopped) = watch::channel(false);
        let (claimed, first) = std::sync::mpsc::channel();
        let task = keeper::Keeper::new(self.settings.clone(), layout.clone(), clock, tenure);
        let thread = std::thread::Builder::new()
            .name("polyflake-etcd".into())
            .spawn(move || task.run(claimed, stopped))
            .map_err(|e| {
                Error::LeaseLost(format!("cannot start the etcd keep-alive thread ({e})"))
            })?;
        match first.recv() {
            Ok(Ok(claim)) => {
                *running = Some(Running { stop, thread });
                Ok(claim)
            }
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(Error::LeaseLost(
                    "the etcd keep-alive thread ended before claiming".into(),
                ))
            }
        }
    }
}

impl Drop for EtcdLease {
    fn drop(&mut self) {
        let running = self
            .running
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(Running { stop, thread }) = running {
            let _ = stop.send(true);
            let _ = thread.join();
        }
    }
}

fn connect_from_env(endpoints: &[String], prefix: &str) -> Result<Arc<dyn RemoteLease>> {
    Ok(Arc::new(EtcdLease::new(endpoints).prefix(prefix)))
}

/// Lets `Generator::from_env` (and every binding's `from_env`) open an etcd
/// lease when `POLYFLAKE_ETCD_ENDPOINTS` is set. Call it once, early.
pub fn register() {
    polyflake::register_etcd_connector(connect_from_env);
}
