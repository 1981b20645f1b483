//! A lease's deadline, stamped on two clocks. The registry grants (or
//! renews) a lease for `ttl` counted from when it heard the request; the
//! holder counts from when it sent it, which is earlier, and stops a safety
//! margin before the end. The stamp is on the generator's clock (which it
//! compares each tick with); the same moment on this host's monotonic clock
//! ends the deadline too, for a generator's clock that goes back or stands
//! still (a stepped wall clock, a custom clock) and would otherwise issue
//! past the moment the registry may give the value away.

use std::time::Duration;

/// A deadline of a lease granted or renewed by a request sent at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    /// The last millisecond IDs may carry, on the generator's clock:
    /// `sent_ms + ttl − margin`.
    pub valid_until_ms: i64,
    /// How long after the request was sent the deadline falls, on this host's
    /// monotonic clock: `ttl − margin`, none when the margin is the whole TTL
    /// or more.
    pub after_sent: Duration,
}

impl Deadline {
    /// The deadline of a lease the registry answered with `granted_ttl_s`
    /// (seconds, as registries answer; 0 or less: gone) for a request sent
    /// at `sent_ms` on the generator's clock, ending `margin` early.
    pub fn of_grant(sent_ms: i64, granted_ttl_s: i64, margin: Duration) -> Deadline {
        let ttl = Duration::from_secs(granted_ttl_s.max(0) as u64);
        Deadline {
            valid_until_ms: sent_ms + granted_ttl_s.saturating_mul(1000)
                - margin.as_millis() as i64,
            after_sent: ttl.saturating_sub(margin),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_is_counted_from_the_send_and_ends_a_margin_early_on_both_clocks() {
        // Worked by hand: sent at 1,000,000 ms, 10 s granted, a 2 s margin.
        let d = Deadline::of_grant(1_000_000, 10, Duration::from_secs(2));
        assert_eq!(d.valid_until_ms, 1_008_000);
        assert_eq!(d.after_sent, Duration::from_secs(8));
        // A margin of a part of a second.
        let d = Deadline::of_grant(0, 5, Duration::from_millis(1500));
        assert_eq!(
            (d.valid_until_ms, d.after_sent),
            (3500, Duration::from_millis(3500))
        );
    }

    #[test]
    fn a_lease_shorter_than_its_margin_or_gone_gives_no_time_on_the_monotonic_clock() {
        for (ttl_s, margin_s) in [(2, 2), (1, 3), (0, 1), (-1, 1)] {
            let d = Deadline::of_grant(50_000, ttl_s, Duration::from_secs(margin_s));
            assert_eq!(
                d.after_sent,
                Duration::ZERO,
                "ttl {ttl_s} s, margin {margin_s} s"
            );
            // And the stamp is at or before the send: nothing may be issued.
            assert!(d.valid_until_ms <= 50_000, "{d:?}");
        }
    }
}
