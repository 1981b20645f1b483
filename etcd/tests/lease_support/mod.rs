//! What the etcd crate's suites share beyond a running etcd (`support/`,
//! which the CLI's tests include too): the short lease they hold, and the
//! proxy that cuts a holder off (`proxy.rs`).

#![allow(dead_code)]

pub mod proxy;

use std::time::Duration;

use polyflake_etcd::EtcdLease;

/// Short leases keep the suites quick; the defaults (10 s / 3 s / 2 s) are
/// exercised through the CLI.
pub const TTL: Duration = Duration::from_secs(4);
pub const MARGIN: Duration = Duration::from_secs(1);

/// A lease of the suites' settings: TTL 4 s, renewals every 1 s, margin 1 s.
pub fn lease(endpoint: &str, prefix: &str) -> EtcdLease {
    lease_on(&[endpoint], prefix)
}

/// [`lease`] on several members.
pub fn lease_on(endpoints: &[&str], prefix: &str) -> EtcdLease {
    EtcdLease::new(endpoints)
        .prefix(prefix)
        .ttl(TTL)
        .keep_alive(Duration::from_secs(1))
        .safety_margin(MARGIN)
        .request_timeout(Duration::from_millis(900))
}
