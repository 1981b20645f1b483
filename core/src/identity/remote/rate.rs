//! This host's clock rate against the registry's, from a probe lease.
//!
//! The holder's deadline (last renewal's send + TTL − margin) is measured on
//! this host's monotonic clock; the registry expires the lease TTL after it
//! heard the renewal, on its leader's clock. If this clock runs slow by more
//! than the margin's share of the TTL, the holder's deadline falls after the
//! registry's expiry and, cut off from it, the holder would issue under a
//! value the registry has already given away. The keeper grants a lease of
//! its own that it never renews (the probe) and reads its remaining TTL at
//! each renewal: the registry's elapsed time between two readings against
//! this clock's. When a pair of readings *proves* that this clock ran slower
//! than the bound, counting the whole second the registry rounds the TTL down
//! to and the round trips, the holder refuses; a clock within the bound, or
//! one not yet observed long enough, never trips it (`docs/identity.md`,
//! "Clock rate"). The connector does the I/O; this is the rule.

use std::collections::VecDeque;

/// The probe lease's TTL: long, so that one probe spans many renewals.
pub const PROBE_TTL_S: i64 = 3600;
/// Readings kept: with renewals every 3 s, the last 12 minutes.
const KEPT: usize = 240;

/// One reading of the probe: this clock (ms) before the request was sent
/// and after the answer came, and the time left on the registry's clock (ms) when
/// the registry answered: at least `left_lo`, below `left_hi` (exactly `left_lo`
/// when they are equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    pub sent: i64,
    pub answered: i64,
    pub left_lo: i64,
    pub left_hi: i64,
}

impl Reading {
    /// The grant: the registry starts the TTL when it grants, exactly.
    pub fn grant(sent: i64, answered: i64, ttl_s: i64) -> Reading {
        Reading {
            sent,
            answered,
            left_lo: ttl_s * 1000,
            left_hi: ttl_s * 1000,
        }
    }

    /// A TTL answer: the registry gives the time left in whole seconds, rounded down.
    pub fn ttl(sent: i64, answered: i64, ttl_s: i64) -> Reading {
        Reading {
            sent,
            answered,
            left_lo: ttl_s * 1000,
            left_hi: ttl_s * 1000 + 1000,
        }
    }
}

/// What the readings prove about this clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing beyond the bound is proven (yet).
    Sound,
    /// The probe's time went up: a new leader refreshed every lease. The
    /// readings start again from this one.
    Restarted,
    /// This clock ran `local_ms` while the registry's ran more than `registry_ms`:
    /// slower than the bound allows.
    Slow { local_ms: i64, registry_ms: i64 },
}

/// The readings of one probe lease and the bound they are held to.
#[derive(Debug)]
pub struct RateCheck {
    ttl_ms: i64,
    margin_ms: i64,
    readings: VecDeque<Reading>,
}

impl RateCheck {
    /// A check for a lease of `ttl_ms` whose holder stops `margin_ms` early,
    /// starting from the probe's grant.
    pub fn new(ttl_ms: i64, margin_ms: i64, grant: Reading) -> RateCheck {
        RateCheck {
            ttl_ms,
            margin_ms,
            readings: VecDeque::from([grant]),
        }
    }

    /// Takes a reading and says what all readings so far prove. Slow means:
    /// for some earlier reading `a` and this one `b`, the registry's elapsed time
    /// (more than `a.left_lo - b.left_hi`) over this clock's (at most
    /// `b.answered - a.sent`) exceeds TTL / (TTL - margin), the ratio at which
    /// the holder's deadline falls on the registry's expiry.
    pub fn add(&mut self, b: Reading) -> Verdict {
        if self
            .readings
            .back()
            .is_some_and(|last| b.left_hi > last.left_hi)
        {
            self.readings.clear();
            self.readings.push_back(b);
            return Verdict::Restarted;
        }
        let slow = self.readings.iter().find_map(|a| {
            let registry_ms = a.left_lo - b.left_hi;
            let local_ms = b.answered - a.sent;
            let beyond = registry_ms > 0
                && i128::from(registry_ms) * i128::from(self.ttl_ms - self.margin_ms)
                    >= i128::from(local_ms) * i128::from(self.ttl_ms);
            beyond.then_some(Verdict::Slow {
                local_ms,
                registry_ms,
            })
        });
        if self.readings.len() == KEPT {
            // The grant stays: the longest baseline.
            self.readings.remove(1);
        }
        self.readings.push_back(b);
        slow.unwrap_or(Verdict::Sound)
    }

    /// The bound as a share of the rate, in percent (20 for TTL 10 s, margin 2 s).
    pub fn bound_percent(&self) -> i64 {
        self.margin_ms * 100 / self.ttl_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry's clock is real time; this host's runs at `rate` of it. Renewals
    /// every `every_ms` of real time, each answer `rtt_ms` after its request;
    /// the registry answers half way. Returns the first real time at which the check
    /// proved the clock slow.
    fn simulate(rate: f64, every_ms: i64, rtt_ms: i64, for_ms: i64) -> Option<i64> {
        let local = |real: i64| (real as f64 * rate) as i64;
        // The registry's time left at real time `t`, in whole seconds rounded down.
        let left_s = |t: i64| (PROBE_TTL_S * 1000 - t).div_euclid(1000);
        let mut check = RateCheck::new(
            10_000,
            2000,
            Reading::grant(local(0), local(rtt_ms), PROBE_TTL_S),
        );
        let mut t = every_ms;
        while t < for_ms {
            let reading = Reading::ttl(local(t), local(t + rtt_ms), left_s(t + rtt_ms / 2));
            if let Verdict::Slow { .. } = check.add(reading) {
                return Some(t);
            }
            t += every_ms;
        }
        None
    }

    #[test]
    fn a_clock_within_the_bound_never_trips_it() {
        // 20% is the bound for TTL 10 s and margin 2 s: 0.8 is at it.
        for rate in [1.0, 0.99, 0.9, 0.85, 0.8, 1.01, 1.1, 1.5] {
            for rtt in [0, 1, 40, 900] {
                assert_eq!(
                    simulate(rate, 3000, rtt, 3_600_000),
                    None,
                    "rate {rate}, rtt {rtt}"
                );
            }
        }
    }

    #[test]
    fn a_clock_beyond_the_bound_trips_it_once_observed_long_enough() {
        let at = simulate(0.75, 3000, 2, 600_000).expect("25% slow is found");
        assert!(at <= 20_000, "found only after {at} ms");
        let at = simulate(0.5, 3000, 2, 600_000).expect("50% slow is found");
        assert!(at <= 6000, "found only after {at} ms");
        assert!(
            simulate(0.78, 3000, 2, 600_000).is_some(),
            "22% slow is found"
        );
    }

    #[test]
    fn a_clock_that_turns_slow_later_is_found_by_recent_pairs() {
        // Sound for an hour, then 30% slow: a recent pair proves it long
        // before the average since the grant would.
        let mut check = RateCheck::new(10_000, 2000, Reading::grant(0, 1, 100_000));
        let left = |t: i64| (100_000_000 - t).div_euclid(1000);
        let mut real = 0;
        let mut local = 0;
        while real < 3_600_000 {
            real += 3000;
            local += 3000;
            assert_eq!(
                check.add(Reading::ttl(local, local + 1, left(real))),
                Verdict::Sound
            );
        }
        let turned = real;
        let found = loop {
            real += 3000;
            local += 2100;
            if let Verdict::Slow { .. } = check.add(Reading::ttl(local, local + 1, left(real))) {
                break real;
            }
            assert!(real - turned < 120_000, "not found within 2 minutes");
        };
        assert!(
            found - turned <= 30_000,
            "found after {} ms",
            found - turned
        );
    }

    #[test]
    fn a_new_leader_refreshing_the_lease_restarts_the_readings() {
        let mut check = RateCheck::new(10_000, 2000, Reading::grant(0, 1, 60));
        assert_eq!(check.add(Reading::ttl(3000, 3001, 56)), Verdict::Sound);
        // The new leader gave every lease its whole TTL again (and more).
        assert_eq!(check.add(Reading::ttl(6000, 6001, 61)), Verdict::Restarted);
        // From there on, a sound clock stays sound.
        assert_eq!(check.add(Reading::ttl(9000, 9001, 58)), Verdict::Sound);
        assert_eq!(check.bound_percent(), 20);
    }

    #[test]
    fn the_rounding_and_the_round_trip_are_held_against_the_proof() {
        // The registry's readings say 12 s (60 -> 48) while this clock ran 9 s:
        // 12/9 = 1.33 > 1.25, but the registry rounds the time left down, so all
        // that is certain is more than 11 s: 11/9 = 1.22, not proven. Over
        // 8 s of this clock, 11/8 = 1.375 is.
        let mut check = RateCheck::new(10_000, 2000, Reading::ttl(0, 0, 60));
        assert_eq!(check.add(Reading::ttl(9000, 9000, 48)), Verdict::Sound);
        let mut check = RateCheck::new(10_000, 2000, Reading::ttl(0, 0, 60));
        assert_eq!(
            check.add(Reading::ttl(8000, 8000, 48)),
            Verdict::Slow {
                local_ms: 8000,
                registry_ms: 11_000
            }
        );
    }
}
