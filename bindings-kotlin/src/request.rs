//! A constructor's arguments as the core's `GeneratorRequest` (core
//! `generator/request.rs`): the clock, the backwards policy, the identity's
//! source and the check.

use std::sync::Arc;

use polyflake::{BackwardsPolicy, Clock, GeneratorRequest, IdentityRequest, WallClock};

use crate::clock::FfiManualClock;
use crate::error::Result;
use crate::layout::FfiLayout;
use crate::parts::FfiNodeValue;
use crate::registry::FfiRegistrySettings;

/// Which clock a generator reads.
#[derive(uniffi::Enum)]
pub enum FfiClock {
    Monotonic,
    Wall,
    Manual { clock: Arc<FfiManualClock> },
}

/// What to do when the clock goes backwards.
#[derive(uniffi::Enum)]
pub enum FfiBackwards {
    Fail,
    Wait { max_ms: u64 },
    Logical,
}

/// Where the identity comes from.
#[derive(uniffi::Enum)]
pub enum FfiIdentity {
    Given {
        nodes: Vec<FfiNodeValue>,
    },
    Environment,
    /// A lease from etcd (the connector `polyflake_connectors::ETCD`).
    Etcd {
        settings: FfiRegistrySettings,
    },
}

/// The request `FfiGenerator::new` resolves.
pub(crate) fn request(
    layout: &FfiLayout,
    identity: FfiIdentity,
    clock: FfiClock,
    backwards: FfiBackwards,
    check: Option<Arc<dyn crate::check::FfiNodeCheck>>,
) -> Result<GeneratorRequest> {
    let identity = match identity {
        FfiIdentity::Given { nodes } => {
            IdentityRequest::Named(nodes.into_iter().map(|n| (n.name, n.value)).collect())
        }
        FfiIdentity::Environment => IdentityRequest::Environment,
        FfiIdentity::Etcd { settings } => IdentityRequest::Registry {
            name: polyflake_connectors::ETCD.to_owned(),
            settings: settings.into_core()?,
        },
    };
    let mut request = GeneratorRequest::new(layout.inner.clone(), identity);
    request.clock = match clock {
        // The core's default.
        FfiClock::Monotonic => None,
        FfiClock::Wall => Some(Arc::new(WallClock) as Arc<dyn Clock>),
        FfiClock::Manual { clock } => Some(Arc::new(clock.inner.clone())),
    };
    request.policy = match backwards {
        FfiBackwards::Fail => BackwardsPolicy::Fail,
        FfiBackwards::Wait { max_ms } => BackwardsPolicy::Wait { max_ms },
        FfiBackwards::Logical => BackwardsPolicy::Logical,
    };
    request.check = check.map(crate::check::node_check);
    Ok(request)
}
