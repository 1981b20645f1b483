//! The environment variables of the identity rules (`docs/identity.md`);
//! a registry's own are named by [`registry`](super::registry).

/// A single node number over all node fields (`POLYFLAKE_NODE_ID`).
pub const ENV_NODE_ID: &str = "POLYFLAKE_NODE_ID";
/// A StatefulSet ordinal, or `hostname` to take the hostname's trailing number.
pub const ENV_ORDINAL: &str = "POLYFLAKE_ORDINAL";
/// The directory of local leases and high-water marks.
pub const ENV_STATE_DIR: &str = "POLYFLAKE_STATE_DIR";
/// A high-water-mark file for an identity given by the environment, in place
/// of the one beside its lock in the state directory.
pub const ENV_STATE_FILE: &str = "POLYFLAKE_STATE_FILE";
/// The low node bits each process of a host leases locally, under a host part
/// from `POLYFLAKE_NODE_ID` or `POLYFLAKE_ORDINAL` (pre-forked workers).
pub const ENV_WORKER_BITS: &str = "POLYFLAKE_WORKER_BITS";
