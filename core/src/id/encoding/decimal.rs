//! Decimal text: eight digits a pair at a time, no division.

use super::digits::{digit_count, fixed_point, lengths, Lengths};
use super::Encoded;

/// "00" to "99": decimal text two digits per step.
static DIGIT_PAIRS: [[u8; 2]; 100] = {
    let mut pairs = [[0; 2]; 100];
    let mut i = 0;
    while i < 100 {
        pairs[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    pairs
};

pub(super) static DECIMAL_LENGTHS: Lengths = lengths(10);

/// The decimal digits of `id`, right-aligned in `out`; returns where they
/// start. All 20 places are written without a branch, in groups of 4, 8 and
/// 8 digits whose arithmetic fits 32 bits; the leading zeros are then cut.
#[inline(always)]
fn write_decimal(id: u64, out: &mut [u8; 20]) -> usize {
    let rest = id / 100_000_000;
    let top = (rest / 100_000_000) as u32;
    write8(&mut out[12..], (id % 100_000_000) as u32);
    write8(&mut out[4..12], (rest % 100_000_000) as u32);
    write4(&mut out[..4], top);
    if top > 0 {
        // 17 to 20 digits, as every preset's IDs of this century: the
        // leading zeros all lie in the top group.
        3 - usize::from(top >= 10) - usize::from(top >= 100) - usize::from(top >= 1000)
    } else {
        20 - digit_count(id, &DECIMAL_LENGTHS)
    }
}

/// Four decimal places of `v` (below 10,000) into `out`.
#[inline(always)]
fn write4(out: &mut [u8], v: u32) {
    out[..2].copy_from_slice(&DIGIT_PAIRS[(v / 100) as usize]);
    out[2..4].copy_from_slice(&DIGIT_PAIRS[(v % 100) as usize]);
}

/// Eight decimal places of `v` (below 100,000,000) into `out`, a pair at a
/// time from `v / 10^6` in fixed point (see [`fixed_point`]).
#[inline(always)]
fn write8(out: &mut [u8], v: u32) {
    let (multiplier, shift) = const { fixed_point(10, 8) };
    let mut fixed = ((u64::from(v) * multiplier) >> shift) + 1;
    for pair in out[..8].chunks_exact_mut(2) {
        pair.copy_from_slice(&DIGIT_PAIRS[(fixed >> 32) as usize]);
        fixed = (fixed & 0xffff_ffff) * 100;
    }
}

impl Encoded {
    #[inline(always)]
    pub(super) fn decimal(&mut self, id: u64) {
        let start = write_decimal(id, (&mut self.buf[44..]).try_into().expect("20 bytes"));
        self.start = 44 + start as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed-point pairs, against std's formatting, where their error is
    /// largest (the top million values, whose over-estimate is greatest),
    /// where a wrong borrow would show first (the first million, and each
    /// side of every multiple of 10^4), and at every length of the ID.
    #[test]
    fn eight_digits_in_fixed_point_are_exact() {
        let edges = (0..10_000u32).flat_map(|k| {
            let m = k * 10_000;
            [m, m + 1, m.saturating_sub(1), m + 9_999]
        });
        let mut out = [0u8; 8];
        for v in (0..1_000_000).chain(99_000_000..100_000_000).chain(edges) {
            write8(&mut out, v);
            assert_eq!(out, format!("{v:08}").as_bytes(), "{v}");
        }
    }
}
