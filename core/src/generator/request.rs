//! One way to build a generator from everything a constructor can say. The
//! bindings and the CLI turn their own arguments into a [`GeneratorRequest`]
//! and call [`resolve`](GeneratorRequest::resolve) with the connectors of
//! their build; no default, no order of steps and no rule is restated
//! outside the core.

use std::fmt;
use std::sync::Arc;

use super::{BackwardsPolicy, Generator};
use crate::clock::{Clock, MonotonicClock};
use crate::error::Result;
use crate::id::layout::Layout;
use crate::identity::check::NodeCheck;
use crate::identity::registry::{LeaseConnector, RegistrySettings};
use crate::identity::resolve::WorkerIdentity;

/// Where a generator's worker identity comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityRequest {
    /// Node values given by the caller, by field name (every field once).
    Named(Vec<(String, u64)>),
    /// Node values given by the caller, in the layout's order.
    Nodes(Vec<u64>),
    /// The process environment's rules (`docs/identity.md`).
    Environment,
    /// A lease from the registry `name` (a connector's name) under `settings`.
    Registry {
        /// The name its connector answers to ([`LeaseConnector::name`]).
        name: String,
        /// Endpoints, prefix, timings, node range, clock gap.
        settings: RegistrySettings,
    },
}

/// Everything a generator is made of, as a caller says it; defaults are the
/// core's (the monotonic clock, [`BackwardsPolicy::default`], no check).
#[derive(Clone)]
pub struct GeneratorRequest {
    /// The layout IDs are issued in.
    pub layout: Layout,
    /// Where the worker identity comes from.
    pub identity: IdentityRequest,
    /// The clock; `None` for a new [`MonotonicClock`].
    pub clock: Option<Arc<dyn Clock>>,
    /// What to do when the clock reads earlier than the last tick issued.
    pub policy: BackwardsPolicy,
    /// The application's veto on the node values (also on those a lease
    /// offers later); a value given outright that it refuses is an error.
    pub check: Option<NodeCheck>,
}

impl fmt::Debug for GeneratorRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratorRequest")
            .field("layout", &self.layout.name())
            .field("identity", &self.identity)
            .field("clock", &self.clock.is_some())
            .field("policy", &self.policy)
            .field("check", &self.check.is_some())
            .finish()
    }
}

impl GeneratorRequest {
    /// A request with the core's defaults for everything but the layout and
    /// the identity.
    pub fn new(layout: Layout, identity: IdentityRequest) -> Self {
        GeneratorRequest {
            layout,
            identity,
            clock: None,
            policy: BackwardsPolicy::default(),
            check: None,
        }
    }

    /// Resolves the identity (reads the environment, locks the value in the
    /// state directory, reads its mark, starts a lease through one of
    /// `connectors`), submits it to the check, and builds the generator. The
    /// one path from a constructor's arguments to a generator.
    pub fn resolve(self, connectors: &[&dyn LeaseConnector]) -> Result<Generator> {
        let GeneratorRequest {
            layout,
            identity,
            clock,
            policy,
            check,
        } = self;
        let clock = clock.unwrap_or_else(|| Arc::new(MonotonicClock::new()));
        let builder = Generator::builder(layout.clone()).on_clock_backwards(policy);
        let resolved = match identity {
            IdentityRequest::Named(values) => {
                let nodes = layout.node_values(values.iter().map(|(n, v)| (n.as_str(), *v)))?;
                return given(builder, clock, &nodes[..layout.node_fields().len()], check);
            }
            IdentityRequest::Nodes(nodes) => return given(builder, clock, &nodes, check),
            IdentityRequest::Environment => {
                WorkerIdentity::resolve_from_env(&layout, clock, connectors)?
            }
            IdentityRequest::Registry { name, settings } => {
                WorkerIdentity::resolve_registry(&layout, connectors, &name, &settings, clock)?
            }
        };
        let resolved = match check {
            Some(check) => resolved.checked(check)?,
            None => resolved,
        };
        builder.identity(resolved).build()
    }
}

/// Node values given outright: checked if asked, then built on `clock`.
fn given(
    builder: super::GeneratorBuilder,
    clock: Arc<dyn Clock>,
    nodes: &[u64],
    check: Option<NodeCheck>,
) -> Result<Generator> {
    if let Some(check) = check {
        check.verify(nodes, "given by the caller")?;
    }
    builder.shared_clock(clock).nodes(nodes).build()
}
