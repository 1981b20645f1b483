//! Where a generator's worker identity (its node field values) comes from:
//! given by the caller, read from the environment, taken from a StatefulSet
//! ordinal, leased on this host, or leased from a registry.
//! `docs/identity.md` states the rules.
//!
//! [`env`] reads variables and decides; [`resolve`] is the one place where
//! files, locks and the network are touched, and hands the builder a
//! [`WorkerIdentity`]. The builder itself does no I/O. What resolution
//! holds: a local lease ([`lease`], re-claimed by [`reclaim`] when its lock
//! is taken away), a remote one through a connector ([`registry`], reported
//! through a [`Tenure`], its safety rules in [`remote`]), the high-water
//! marks ([`mark`]) and the application's check of the values ([`check`]).

pub mod address;
pub mod check;
pub mod env;
pub mod lease;
pub mod mark;
pub mod nodes;
pub mod reclaim;
pub mod registry;
pub mod remote;
pub mod resolve;
pub mod tenure;
pub mod variables;

pub use check::NodeCheck;
pub use env::{choose_from_env, EnvChoice, Environment, ProcessEnvironment};
pub use lease::LocalLease;
pub use mark::{FileMark, MarkStore};
pub use nodes::{field_variable, join_node_number, node_space, split_node_number, Identity};
pub use reclaim::ReclaimingLease;
pub use registry::{LeaseConnector, RegistryDuration, RegistrySettings};
pub use resolve::WorkerIdentity;
pub use tenure::{Claim, LeaseStats, RemoteLease, Tenure};
pub use variables::*;
