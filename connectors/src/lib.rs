//! The registries this build can lease worker identities from, declared
//! once: the CLI and each binding forward their `etcd` feature here and hand
//! [`CONNECTORS`] to [`GeneratorRequest::resolve`](polyflake::GeneratorRequest::resolve).
//! The core names no registry (ADR 0006); this crate is where a build does.

use polyflake::LeaseConnector;

/// The connectors of this build: etcd's with the feature `etcd`, else none
/// (a registry asked for is then `INVALID_ARGUMENT`, kind `not_in_build`).
#[cfg(feature = "etcd")]
pub const CONNECTORS: &[&dyn LeaseConnector] = &[&polyflake_etcd::EtcdConnector];
/// The connectors of this build: etcd's with the feature `etcd`, else none
/// (a registry asked for is then `INVALID_ARGUMENT`, kind `not_in_build`).
#[cfg(not(feature = "etcd"))]
pub const CONNECTORS: &[&dyn LeaseConnector] = &[];

/// The etcd connector's name, which `fromEtcd`/`from_etcd` ask for, whether
/// or not this build has it.
pub const ETCD: &str = "etcd";

#[cfg(all(test, feature = "etcd"))]
mod tests {
    #[test]
    fn the_etcd_connector_answers_to_its_name() {
        assert_eq!(super::CONNECTORS[0].name(), super::ETCD);
    }
}
