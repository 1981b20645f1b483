//! Base 32 (bwmarrin's alphabet), 36 and 58: three independent chunks, two
//! digits per step.

use super::digits::{digit_count, fixed_point, lengths, pairs, Lengths, BASE32, BASE36, BASE58};
use super::Encoded;

pub(super) static BASE32_PAIRS: [[u8; 2]; 32 * 32] = pairs(BASE32);
pub(super) static BASE36_PAIRS: [[u8; 2]; 36 * 36] = pairs(BASE36);
pub(super) static BASE58_PAIRS: [[u8; 2]; 58 * 58] = pairs(BASE58);

pub(super) static BASE32_LENGTHS: Lengths = lengths(32);
pub(super) static BASE36_LENGTHS: Lengths = lengths(36);
pub(super) static BASE58_LENGTHS: Lengths = lengths(58);

/// How many digits of `base` fit 32 bits. Three such chunks cover 64 bits
/// for every base [`Encoded::radix`] is given (32, 36 and 58).
const fn chunk_digits(base: u64) -> usize {
    let mut k = 0;
    let mut power = 1u64;
    while power * base <= u32::MAX as u64 {
        power *= base;
        k += 1;
    }
    k
}

impl Encoded {
    /// Three chunks of `K` digits each, `BASE^K` fitting 32 bits: the chunks
    /// are independent, so their divisions overlap instead of waiting on
    /// one another as a digit-by-digit loop's do, and each division yields
    /// two digits from the base's table of pairs. Leading zeros are then
    /// cut, their count read from the ID's bit length.
    #[inline(always)]
    pub(super) fn radix<const BASE: u64>(&mut self, id: u64, pairs: &[[u8; 2]], lengths: &Lengths) {
        let k = const { chunk_digits(BASE) };
        let chunk = BASE.pow(k as u32);
        let rest = id / chunk;
        let chunks = [
            (rest / chunk) as u32,
            (rest % chunk) as u32,
            (id % chunk) as u32,
        ];
        let (multiplier, shift) = const { fixed_point(BASE, chunk_digits(BASE) as u32) };
        let first = 64 - 3 * k;
        for (c, value) in chunks.into_iter().enumerate() {
            let mut at = first + c * k;
            // The chunk over BASE^(k-2) in fixed point (see `fixed_point`).
            let mut fixed = ((u64::from(value) * multiplier) >> shift) + 1;
            self.buf[at..at + 2].copy_from_slice(&pairs[(fixed >> 32) as usize]);
            at += 2;
            for _ in 0..(k - 2) / 2 {
                fixed = (fixed & 0xffff_ffff) * (BASE * BASE);
                self.buf[at..at + 2].copy_from_slice(&pairs[(fixed >> 32) as usize]);
                at += 2;
            }
            if k % 2 == 1 {
                // The last digit, below the base: the second of its pair.
                fixed = (fixed & 0xffff_ffff) * BASE;
                self.buf[at] = pairs[(fixed >> 32) as usize][1];
            }
        }
        self.start = (64 - digit_count(id, lengths)) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::encoding::Encoding;

    /// The length read from the bit length is the count of digits, found
    /// here by division, at each side of every power of the base and of 2.
    #[test]
    pub(super) fn radix_texts_are_as_long_as_their_digits() {
        for (encoding, base) in [
            (Encoding::Base32, 32u64),
            (Encoding::Base36, 36),
            (Encoding::Base58, 58),
        ] {
            let mut ids = vec![0, 1, u64::MAX];
            for k in 1..64 {
                ids.extend([(1u64 << k) - 1, 1 << k, (1 << k) + 1]);
            }
            let mut power = base;
            while let Some(next) = power.checked_mul(base) {
                ids.extend([power - 1, power, power + 1]);
                power = next;
            }
            ids.extend([power - 1, power, power + 1]);
            for id in ids {
                let mut digits = 1;
                let mut rest = id / base;
                while rest > 0 {
                    digits += 1;
                    rest /= base;
                }
                assert_eq!(
                    encoding.encode(id).as_bytes().len(),
                    digits,
                    "{encoding} {id}"
                );
            }
        }
    }

    /// Each chunk's digits from the fixed point, against digits found by
    /// division, where the fixed point's error is largest (the top of a
    /// chunk's range) and smallest, in the low and the middle chunk.
    #[test]
    pub(super) fn radix_chunks_in_fixed_point_are_exact() {
        for (encoding, alphabet) in [
            (Encoding::Base32, &BASE32[..]),
            (Encoding::Base36, &BASE36[..]),
            (Encoding::Base58, &BASE58[..]),
        ] {
            let base = alphabet.len() as u64;
            let chunk = base.pow(chunk_digits(base) as u32);
            let by_division = |mut id: u64| {
                let mut text = vec![alphabet[(id % base) as usize]];
                while id >= base {
                    id /= base;
                    text.insert(0, alphabet[(id % base) as usize]);
                }
                text
            };
            let values = (0..100_000).chain(chunk - 100_000..chunk);
            for v in values {
                for id in [v, v * chunk + (chunk - 1 - v)] {
                    assert_eq!(
                        encoding.encode(id).as_bytes(),
                        by_division(id),
                        "{encoding} {id}"
                    );
                }
            }
        }
    }
}
