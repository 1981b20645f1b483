//! This clock against the live peers' before a value is claimed (and, while
//! one is held, to report drift): a worker whose clock is far from the
//! others' would issue IDs out of order with theirs, and after a restart on
//! a clock that went back, below its own earlier IDs if its mark were lost.
//! Each peer writes its clock reading into its worker key at every renewal.

use std::time::Duration;

use crate::error::{Error, LeaseLostReason, Result};

/// Refuses (`LEASE_LOST`, reason `clock_gap`) a clock reading `now_ms` that
/// is further than `max_gap` from the median of the live peers' readings,
/// each a `(description, reading in ms)`. A peer rewrites its reading at
/// every renewal, so a reading is up to one `keep_alive` old: half of one is
/// added to each. A `max_gap` of zero turns the check off; with no peer
/// there is nothing to compare. `under` names where the peers were listed
/// and `variable` the setting of the bound, for the message.
pub fn check_clock_gap(
    now_ms: i64,
    peers: &[(String, i64)],
    max_gap: Duration,
    keep_alive: Duration,
    under: &str,
    variable: &str,
) -> Result<()> {
    let bound = max_gap.as_millis() as i64;
    if bound == 0 || peers.is_empty() {
        return Ok(());
    }
    let age = keep_alive.as_millis() as i64 / 2;
    let mut estimates: Vec<i64> = peers.iter().map(|(_, c)| c + age).collect();
    estimates.sort_unstable();
    let median = estimates[estimates.len() / 2];
    let gap = now_ms - median;
    if gap.abs() <= bound {
        return Ok(());
    }
    let shown: Vec<&str> = peers.iter().take(5).map(|(p, _)| p.as_str()).collect();
    Err(Error::lease_lost(
        LeaseLostReason::ClockGap,
        format!(
            "this clock is {} ms {} the median of {} live peers' under {under} ({}{}); the bound is {bound} ms ({variable}, 0 turns the check off): fix the clock (NTP) before starting",
            gap.abs(),
            if gap > 0 { "ahead of" } else { "behind" },
            peers.len(),
            shown.join(", "),
            if peers.len() > shown.len() { ", …" } else { "" },
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peers(readings: &[i64]) -> Vec<(String, i64)> {
        readings
            .iter()
            .enumerate()
            .map(|(i, &c)| (format!("node {i}"), c))
            .collect()
    }

    const GAP: Duration = Duration::from_millis(1000);
    const KEEP_ALIVE: Duration = Duration::from_millis(3000);

    #[test]
    fn a_clock_within_the_bound_of_the_median_is_accepted_on_either_side() {
        // Readings 10,000 / 20,000 / 30,000 are 1.5 s old on average: the
        // median estimate is 21,500 now.
        let p = peers(&[30_000, 10_000, 20_000]);
        for now in [20_500, 21_500, 22_500] {
            assert!(
                check_clock_gap(now, &p, GAP, KEEP_ALIVE, "/w/", "GAP_MS").is_ok(),
                "{now}"
            );
        }
    }

    #[test]
    fn a_clock_past_the_bound_is_refused_with_the_reason_and_the_side() {
        let p = peers(&[30_000, 10_000, 20_000]);
        let ahead = check_clock_gap(22_501, &p, GAP, KEEP_ALIVE, "/w/", "GAP_MS").unwrap_err();
        assert_eq!(ahead.lease_lost_reason(), Some(LeaseLostReason::ClockGap));
        assert!(
            ahead
                .to_string()
                .contains("1001 ms ahead of the median of 3"),
            "{ahead}"
        );
        let behind = check_clock_gap(20_499, &p, GAP, KEEP_ALIVE, "/w/", "GAP_MS").unwrap_err();
        assert!(behind.to_string().contains("1001 ms behind"), "{behind}");
    }

    #[test]
    fn one_peer_far_off_does_not_move_the_median() {
        // Two sound peers and one a day ahead: the median is a sound one.
        let p = peers(&[100_000, 100_200, 86_400_000]);
        assert!(check_clock_gap(101_600, &p, GAP, KEEP_ALIVE, "/w/", "GAP_MS").is_ok());
    }

    #[test]
    fn no_peer_or_a_zero_bound_checks_nothing() {
        assert!(check_clock_gap(0, &[], GAP, KEEP_ALIVE, "/w/", "GAP_MS").is_ok());
        let p = peers(&[1_000_000_000]);
        assert!(check_clock_gap(0, &p, Duration::ZERO, KEEP_ALIVE, "/w/", "GAP_MS").is_ok());
        assert!(check_clock_gap(0, &p, GAP, KEEP_ALIVE, "/w/", "GAP_MS").is_err());
    }
}
