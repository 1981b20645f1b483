//! Identity resolution: the one place where the environment is read, local
//! leases are locked, marks are loaded and remote leases are started. The
//! result, a [`WorkerIdentity`], is handed to
//! `GeneratorBuilder::identity` (in the generator, above), which
//! only validates and assembles.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::check::{NodeCheck, Verdict};
use super::env::{choose_from_env, state_dir, EnvChoice, Environment, ProcessEnvironment};
use super::lease::LocalLease;
use super::mark::{FileMark, MarkStore};
use super::nodes::{join_node_number, Identity};
use super::reclaim::ReclaimingLease;
use super::registry::{check_registry, LeaseConnector, RegistrySettings};
use super::tenure::Claim;
use super::tenure::{RemoteLease, Tenure};
use super::variables::ENV_STATE_FILE;
use crate::clock::Clock;
use crate::error::{ArgumentKind, Error, LeaseLostReason, Result};
use crate::id::layout::Layout;

/// How long [`WorkerIdentity::checked`] waits for a lease to offer another
/// value after a refusal.
const CHECK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A resolved worker identity: node values, where they came from, the
/// high-water mark kept for them (already read), and the lease that holds
/// them, if any. Dropping it unused releases what it holds.
pub struct WorkerIdentity {
    pub(crate) nodes: Vec<u64>,
    pub(crate) source: String,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) mark: Option<Arc<dyn MarkStore>>,
    /// The mark as read when resolved: IDs start past it.
    pub(crate) previous_mark_ms: Option<i64>,
    pub(crate) remote: Option<RemoteHold>,
}

/// A remote lease that is running, and what it reports through.
pub(crate) struct RemoteHold {
    pub(crate) tenure: Arc<Tenure>,
    pub(crate) lease: Arc<dyn RemoteLease>,
    /// Checks the identities the lease offers later, at take-up.
    pub(crate) check: Option<NodeCheck>,
}

impl fmt::Debug for WorkerIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkerIdentity")
            .field("nodes", &self.nodes)
            .field("source", &self.source)
            .field("previous_mark_ms", &self.previous_mark_ms)
            .field("remote", &self.remote.is_some())
            .finish_non_exhaustive()
    }
}

impl WorkerIdentity {
    /// Follows the process environment (`docs/identity.md`): a registry named
    /// by `POLYFLAKE_<NAME>_ENDPOINTS` through one of `connectors`,
    /// `POLYFLAKE_NODE_ID`, per-field variables, `POLYFLAKE_ORDINAL`, else a
    /// local lease in the state directory. `clock` is the generator's.
    pub fn resolve_from_env(
        layout: &Layout,
        clock: Arc<dyn Clock>,
        connectors: &[&dyn LeaseConnector],
    ) -> Result<WorkerIdentity> {
        Self::resolve_from(layout, &ProcessEnvironment, clock, connectors)
    }

    /// [`resolve_from_env`](Self::resolve_from_env) with another source of variables.
    pub fn resolve_from(
        layout: &Layout,
        env: &dyn Environment,
        clock: Arc<dyn Clock>,
        connectors: &[&dyn LeaseConnector],
    ) -> Result<WorkerIdentity> {
        Self::resolve_choice(layout, env, clock, Some(connectors))
    }

    /// [`resolve_from`](Self::resolve_from) for an identity that several
    /// processes will share (a server's forked workers, each building its
    /// generator with `GeneratorBuilder::shared` and [`share`](Self::share)):
    /// the same rules, but a leased value is held as it is, never claimed
    /// again (each process would claim its own), so a deleted lock file makes
    /// `next_id` refuse with `LEASE_LOST`; and a registry is refused, as its
    /// lease needs a thread that outlives the caller.
    pub fn resolve_shared_from(
        layout: &Layout,
        env: &dyn Environment,
        clock: Arc<dyn Clock>,
    ) -> Result<WorkerIdentity> {
        Self::resolve_choice(layout, env, clock, None)
    }

    /// The environment's choice, held for one process (leases that claim
    /// again, the registries of `connectors`) or, without `connectors`, for
    /// processes that share it.
    fn resolve_choice(
        layout: &Layout,
        env: &dyn Environment,
        clock: Arc<dyn Clock>,
        connectors: Option<&[&dyn LeaseConnector]>,
    ) -> Result<WorkerIdentity> {
        match choose_from_env(layout, env)? {
            EnvChoice::Fixed(identity) => Self::locked(layout, env, identity, clock),
            EnvChoice::HostAndWorker {
                host,
                worker_bits,
                source,
            } => {
                let first = host << worker_bits;
                let numbers = first..first + (1 << worker_bits);
                let source = format!("{source} with {worker_bits} worker bits");
                if connectors.is_none() {
                    let lease = LocalLease::acquire_in(layout, &state_dir(env)?, numbers)?;
                    return Self::pinned(lease, source, clock);
                }
                let lease = ReclaimingLease::new(state_dir(env)?, Some(numbers));
                let mut identity = Self::resolve_remote(layout, Arc::new(lease), clock)?;
                identity.source = format!("{source}: {}", identity.source);
                Ok(identity)
            }
            // Leased values claim again if their lock file is deleted.
            EnvChoice::LocalLease(dir) => match connectors {
                Some(_) => Self::resolve_local_lease(layout, &dir, clock),
                None => Self::pinned(LocalLease::acquire(layout, &dir)?, "no variable set".into(), clock),
            },
            EnvChoice::Registry { name, settings } => match connectors {
                Some(connectors) => Self::resolve_registry(layout, connectors, &name, &settings, clock),
                None => Err(Error::invalid(
                    ArgumentKind::Usage,
                    format!(
                        "POLYFLAKE_{}_ENDPOINTS: a registry's lease cannot be shared between processes here; give the node values (POLYFLAKE_NODE_ID, an ordinal) or let the host's local lease choose",
                        name.to_uppercase()
                    ),
                )),
            },
        }
    }

    /// A local lease held as it is, for processes that share it.
    fn pinned(lease: LocalLease, source: String, clock: Arc<dyn Clock>) -> Result<WorkerIdentity> {
        let source = format!(
            "{source}: local lease {} (high-water mark {})",
            lease.lock_path().display(),
            lease.mark_path().display()
        );
        Self::resolve_with_mark(lease.nodes().to_vec(), source, Arc::new(lease), clock)
    }

    /// One live process per identity, whatever its source: a value from a
    /// variable is locked in the state directory like a leased one.
    fn locked(
        layout: &Layout,
        env: &dyn Environment,
        identity: Identity,
        clock: Arc<dyn Clock>,
    ) -> Result<WorkerIdentity> {
        let dir = state_dir(env)?;
        let number = join_node_number(layout, &identity.nodes);
        let lease = LocalLease::acquire_exactly(layout, &dir, number, &identity.source)?;
        let lease = match env.var(ENV_STATE_FILE).filter(|p| !p.is_empty()) {
            Some(path) => lease.with_mark(FileMark::new(path)),
            None => lease,
        };
        let source = format!(
            "{} (locked at {}, high-water mark {})",
            identity.source,
            lease.lock_path().display(),
            lease.mark_path().display()
        );
        Self::resolve_with_mark(identity.nodes, source, Arc::new(lease), clock)
    }

    /// The same identity for another process that shares its generator's
    /// words: the same values and mark store, the mark read again. Not for a
    /// remote lease, whose handovers each process would make alone.
    pub fn share(&self) -> Result<WorkerIdentity> {
        let (Some(mark), None) = (&self.mark, &self.remote) else {
            return Err(Error::invalid(
                ArgumentKind::Usage,
                "only an identity with a high-water mark and no remote lease can be shared".into(),
            ));
        };
        Self::resolve_with_mark(
            self.nodes.clone(),
            self.source.clone(),
            Arc::clone(mark),
            Arc::clone(&self.clock),
        )
    }

    /// Node values given by the caller, with a high-water mark in `store`:
    /// reads it now, so that the generator starts past it.
    pub fn resolve_with_mark(
        nodes: Vec<u64>,
        source: impl Into<String>,
        store: Arc<dyn MarkStore>,
        clock: Arc<dyn Clock>,
    ) -> Result<WorkerIdentity> {
        let previous_mark_ms = store.load()?;
        Ok(WorkerIdentity {
            nodes,
            source: source.into(),
            clock,
            mark: Some(store),
            previous_mark_ms,
            remote: None,
        })
    }

    /// Leases the lowest free node value of `layout` under `state_dir` and
    /// reads its mark; if its lock file is deleted, another value is claimed
    /// ([`ReclaimingLease`]), as for an identity from the environment.
    pub fn resolve_local_lease(
        layout: &Layout,
        state_dir: &Path,
        clock: Arc<dyn Clock>,
    ) -> Result<WorkerIdentity> {
        Self::resolve_remote(
            layout,
            Arc::new(ReclaimingLease::new(state_dir, None)),
            clock,
        )
    }

    /// Starts `lease` and holds the identity it claims; its deadlines are
    /// stamped on `clock`.
    pub fn resolve_remote(
        layout: &Layout,
        lease: Arc<dyn RemoteLease>,
        clock: Arc<dyn Clock>,
    ) -> Result<WorkerIdentity> {
        let tenure = Tenure::new();
        let claim = lease.start(layout, Arc::clone(&clock), Arc::clone(&tenure))?;
        tenure.begin(claim.valid_until_ms);
        let previous_mark_ms = claim.mark.load()?;
        Ok(WorkerIdentity {
            nodes: claim.nodes,
            source: claim.source,
            clock,
            mark: Some(claim.mark),
            previous_mark_ms,
            remote: Some(RemoteHold {
                tenure,
                lease,
                check: None,
            }),
        })
    }

    /// Submits the identity to the application's `check`, on this thread.
    /// A refused leased value is released and the lease's next offer is
    /// checked in turn (and so are the values it offers later, when the
    /// generator takes them up); anything else refused, and a check that
    /// fails or panics, is `INVALID_ARGUMENT`.
    pub fn checked(mut self, check: NodeCheck) -> Result<WorkerIdentity> {
        loop {
            let refusal = match check.judge(&self.nodes, &self.source) {
                Ok(()) => {
                    if let Some(remote) = &mut self.remote {
                        remote.check = Some(check);
                    }
                    return Ok(self);
                }
                // The check itself failed: another value would fare alike.
                // Dropping the identity releases what it holds.
                Err(Verdict::Failed(failure)) => return Err(failure),
                Err(Verdict::Refused(refusal)) => refusal,
            };
            let (Some(remote), Some(mark)) = (&self.remote, &self.mark) else {
                return Err(refusal);
            };
            remote.tenure.refuse_applied(&refusal.to_string());
            let refused = Claim {
                nodes: self.nodes.clone(),
                mark: Arc::clone(mark),
                source: self.source.clone(),
                valid_until_ms: i64::MIN,
            };
            if !remote.lease.refused(refused) {
                return Err(refusal);
            }
            let (generation, claim) = remote.tenure.wait_offer(CHECK_WAIT).map_err(|why| {
                Error::lease_lost(LeaseLostReason::CheckRefused, format!("{refusal}; {why}"))
            })?;
            self.previous_mark_ms = claim.mark.load()?;
            remote.tenure.apply(generation);
            self.nodes = claim.nodes;
            self.source = claim.source;
            self.mark = Some(claim.mark);
        }
    }

    /// Leases from the registry named `name` through one of `connectors`
    /// (refused, with how to get a build that has it, when none is named so).
    pub fn resolve_registry(
        layout: &Layout,
        connectors: &[&dyn LeaseConnector],
        name: &str,
        settings: &RegistrySettings,
        clock: Arc<dyn Clock>,
    ) -> Result<WorkerIdentity> {
        let connector = check_registry(connectors, name, settings)?;
        Self::resolve_remote(layout, connector.connect(settings)?, clock)
    }

    /// The node values, in layout order.
    pub fn nodes(&self) -> &[u64] {
        &self.nodes
    }
    /// Where they came from, for people.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The clock the identity was resolved against (the generator's).
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}
