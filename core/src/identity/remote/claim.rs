//! The order a node value is claimed in. A pass lists what is held, then
//! tries the free values until one is won: lowest free first, so that a
//! fleet keeps to the low values, but each race lost widens the window the
//! next try is drawn from, so that many claimants starting at once spread
//! out instead of all racing for the same lowest key. The connector runs
//! the passes (a listing, then one compare-and-put per try) and reports the
//! exhaustion only when a listing shows every value held.

use std::collections::HashSet;
use std::ops::Range;

use crate::id::layout::Layout;
use crate::identity::nodes::node_space;

/// The node numbers a claim may take: the layout's whole space, or the
/// configured `node_range` cut to it.
pub fn claim_range(layout: &Layout, node_range: Option<&Range<u64>>) -> Range<u64> {
    let space = node_space(layout).min(u128::from(u64::MAX)) as u64;
    match node_range {
        Some(r) => r.start..r.end.min(space),
        None => 0..space,
    }
}

/// One pass's order of tries over the free values.
#[derive(Debug)]
pub struct ClaimOrder {
    /// The values not tried yet, lowest first.
    free: Vec<u64>,
    window: usize,
    jitter: Jitter,
}

impl ClaimOrder {
    /// A pass over the values of `range` that no worker holds (`taken`, from
    /// the listing) and the application's check has not refused (`excluded`).
    pub fn new(range: Range<u64>, taken: &HashSet<u64>, excluded: &HashSet<u64>) -> ClaimOrder {
        ClaimOrder::seeded(range, taken, excluded, Jitter::seed())
    }

    /// The same, drawing from `seed` (tests; two claimants with one seed draw alike).
    pub fn seeded(
        range: Range<u64>,
        taken: &HashSet<u64>,
        excluded: &HashSet<u64>,
        seed: u64,
    ) -> ClaimOrder {
        ClaimOrder {
            free: range
                .filter(|n| !taken.contains(n) && !excluded.contains(n))
                .collect(),
            window: 1,
            jitter: Jitter(seed | 1),
        }
    }

    /// Whether the listing left nothing to try: every value is held or refused.
    pub fn is_exhausted(&self) -> bool {
        self.free.is_empty()
    }

    /// The next value to try, drawn from the lowest `window` of those left;
    /// `None` once every one was tried (a new listing comes next).
    pub fn next_value(&mut self) -> Option<u64> {
        if self.free.is_empty() {
            return None;
        }
        let pick = self.jitter.below(self.window.min(self.free.len()));
        Some(self.free.remove(pick))
    }

    /// The last value tried was taken by another claimant first: the next is
    /// drawn from twice as many.
    pub fn lost_race(&mut self) {
        self.window = self.window.saturating_mul(2);
    }
}

/// A small xorshift generator: claimants draw different values after a lost
/// race. Not for secrets; seeded from the clock, the process and the hasher's
/// random keys.
#[derive(Debug)]
struct Jitter(u64);

impl Jitter {
    fn seed() -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        hasher.finish()
    }

    /// A number in `0..n` (`n` at least 1).
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(values: &[u64]) -> HashSet<u64> {
        values.iter().copied().collect()
    }

    #[test]
    fn the_range_is_the_layouts_space_or_the_setting_cut_to_it() {
        // twitter: 5 + 5 node bits, 1,024 values.
        let twitter = Layout::twitter();
        assert_eq!(claim_range(&twitter, None), 0..1024);
        assert_eq!(claim_range(&twitter, Some(&(20..24))), 20..24);
        assert_eq!(claim_range(&twitter, Some(&(1000..5000))), 1000..1024);
    }

    #[test]
    fn without_contention_the_lowest_free_value_is_tried_first_and_each_once() {
        for seed in 0..50 {
            let mut order = ClaimOrder::seeded(0..8, &set(&[0, 2]), &set(&[3]), seed);
            let mut tried = Vec::new();
            while let Some(n) = order.next_value() {
                tried.push(n);
            }
            // Never lost a race: always the lowest left.
            assert_eq!(tried, [1, 4, 5, 6, 7], "seed {seed}");
        }
    }

    #[test]
    fn each_lost_race_doubles_the_window_the_next_try_is_drawn_from() {
        let mut seen_beyond_lowest = false;
        for seed in 0..200 {
            let mut order = ClaimOrder::seeded(0..64, &HashSet::new(), &HashSet::new(), seed);
            assert_eq!(order.next_value(), Some(0));
            let mut left: Vec<u64> = (1..64).collect();
            for lost in 1..=4u32 {
                order.lost_race();
                let n = order.next_value().unwrap();
                let window = &left[..(1usize << lost).min(left.len())];
                assert!(window.contains(&n), "seed {seed}: {n} outside {window:?}");
                seen_beyond_lowest |= n != left[0];
                left.retain(|&v| v != n);
            }
        }
        // The window is used: some tries after a lost race are not the lowest.
        assert!(seen_beyond_lowest);
    }

    #[test]
    fn a_pass_offers_every_free_value_once_and_never_a_held_or_refused_one() {
        let taken = set(&[0, 5, 9]);
        let excluded = set(&[1, 7]);
        for seed in 0..50 {
            let mut order = ClaimOrder::seeded(0..12, &taken, &excluded, seed);
            let mut tried = Vec::new();
            while let Some(n) = order.next_value() {
                tried.push(n);
                order.lost_race();
            }
            tried.sort_unstable();
            assert_eq!(tried, [2, 3, 4, 6, 8, 10, 11], "seed {seed}");
        }
        let all_held = ClaimOrder::seeded(0..3, &set(&[0, 1]), &set(&[2]), 1);
        assert!(all_held.is_exhausted());
    }

    #[test]
    fn claimants_starting_together_spread_out_after_losing_races() {
        // 16 claimants, one listing, each losing to those that already won:
        // with the window they win 16 different values in fewer tries than
        // if all kept trying the lowest free one (16 × 17 / 2 = 136 tries).
        let mut won = HashSet::new();
        let mut tries = 0;
        let mut orders: Vec<ClaimOrder> = (0..16)
            .map(|i| ClaimOrder::seeded(0..1024, &HashSet::new(), &HashSet::new(), 7919 * i + 1))
            .collect();
        for order in &mut orders {
            loop {
                let n = order.next_value().expect("1,024 values for 16 claimants");
                tries += 1;
                if won.insert(n) {
                    break;
                }
                order.lost_race();
            }
        }
        assert_eq!(won.len(), 16);
        assert!(tries < 136, "{tries} tries");
    }
}
