//! The safety rules of a lease held in a registry over the network, as pure
//! functions a connector calls around its own I/O (the registry's keeper does): the
//! order values are claimed in ([`claim`]), a grant's or renewal's deadline on
//! both clocks ([`deadline`]), the check of this clock against the live
//! peers' ([`clock_gap`]) and of its rate against the registry's ([`rate`]).
//! Nothing here touches the network or the clock: each rule takes the
//! readings it judges, so each is unit-tested here.

pub mod claim;
pub mod clock_gap;
pub mod deadline;
pub mod rate;

pub use claim::{claim_range, ClaimOrder};
pub use clock_gap::check_clock_gap;
pub use deadline::Deadline;
pub use rate::{RateCheck, Reading, Verdict, PROBE_TTL_S};
