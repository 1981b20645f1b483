//! The alphabets of the encodings, the tables that read a character back
//! as its digit, and what the variable-length texts share: their length
//! from the ID's bit length, pairs of digits, the fixed point that yields
//! them, and the parse of a positional number.

use super::Encoding;
use crate::error::{Error, Result};

pub(super) const BASE32: &[u8; 32] = b"ybndrfg8ejkmcpqxot1uwisza345h769";
pub(super) const BASE36: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
pub(super) const BASE58: &[u8; 58] = b"123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
pub(super) const BASE64: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub(super) const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
pub(super) const HEX: &[u8; 16] = b"0123456789abcdef";
pub(super) const DECIMAL: &[u8; 10] = b"0123456789";
pub(super) const BINARY: &[u8; 2] = b"01";

/// Byte -> digit value, `NO_DIGIT` where the byte is not in the alphabet.
pub(super) const NO_DIGIT: u8 = 0xff;

pub(super) const fn table(alphabet: &[u8], fold_case: bool) -> [u8; 256] {
    let mut t = [NO_DIGIT; 256];
    let mut i = 0;
    while i < alphabet.len() {
        let c = alphabet[i];
        t[c as usize] = i as u8;
        if fold_case {
            t[c.to_ascii_lowercase() as usize] = i as u8;
            t[c.to_ascii_uppercase() as usize] = i as u8;
        }
        i += 1;
    }
    t
}

pub(super) static DECIMAL_T: [u8; 256] = table(DECIMAL, false);
pub(super) static BASE64_T: [u8; 256] = table(BASE64, false);
pub(super) static BINARY_T: [u8; 256] = table(BINARY, false);
pub(super) static BASE32_T: [u8; 256] = table(BASE32, false);
pub(super) static BASE36_T: [u8; 256] = table(BASE36, true);
pub(super) static BASE58_T: [u8; 256] = table(BASE58, false);
pub(super) static HEX_T: [u8; 256] = table(HEX, true);
pub(super) static CROCKFORD_T: [u8; 256] = table(CROCKFORD, true);

/// For each bit length 0 to 64, the fewest digits in `base` of a number
/// that long, and the largest such number with that many: a number has one
/// digit more exactly when it exceeds the second. Numbers of one bit length
/// span less than a factor of 2, so never more than those two counts.
pub(super) type Lengths = [(u8, u64); 65];

pub(super) const fn lengths(base: u64) -> Lengths {
    // Zero is written as one digit.
    let mut table = [(1, u64::MAX); 65];
    let mut bits = 1;
    while bits <= 64 {
        let smallest = 1u128 << (bits - 1);
        let mut digits = 1;
        let mut power = base as u128;
        while power <= smallest {
            power *= base as u128;
            digits += 1;
        }
        let largest = if power - 1 > u64::MAX as u128 {
            u64::MAX
        } else {
            (power - 1) as u64
        };
        table[bits] = (digits, largest);
        bits += 1;
    }
    table
}

/// Every two-digit text of an alphabet of `N` = base² entries, in order.
pub(super) const fn pairs<const N: usize>(alphabet: &[u8]) -> [[u8; 2]; N] {
    let base = alphabet.len();
    let mut table = [[0; 2]; N];
    let mut i = 0;
    while i < N {
        table[i] = [alphabet[i / base], alphabet[i % base]];
        i += 1;
    }
    table
}

/// How many digits `id` has, from the table of its base.
#[inline(always)]
pub(super) fn digit_count(id: u64, lengths: &Lengths) -> usize {
    let (digits, largest) = lengths[(64 - id.leading_zeros()) as usize];
    usize::from(digits) + usize::from(id > largest)
}

/// The multiplier and shift that put a number `v` of `k` digits in `base`
/// over `D = base^(k-2)` in fixed point with 32 fraction bits: the integer
/// part is its first two digits, and each multiply of the fraction by the
/// base (or its square) brings up the next, with no division. The fraction
/// must never fall below its true value (`…99` would come out where `…00`
/// belongs) nor rise by one unit of the last digit: `((v * multiplier) >>
/// shift) + 1` is never below `v / D` (the `+ 1` makes up for the truncating
/// shift) and above it by less than `1 + v / 2^shift` units of 2^-32, which
/// must stay under `2^32 / D` for every `v`.
pub(super) const fn fixed_point(base: u64, k: u32) -> (u64, u32) {
    let d = base.pow(k - 2) as u128;
    let largest = base.pow(k) as u128 - 1;
    let mut shift = 0;
    while ((1u128 << shift) + largest) * d >= 1u128 << (32 + shift) {
        shift += 1;
    }
    let multiplier = (1u128 << (32 + shift)).div_ceil(d);
    assert!(
        largest * multiplier <= u64::MAX as u128,
        "the product fits 64 bits"
    );
    (multiplier as u64, shift)
}

#[inline]
pub(super) fn digit(input: &[u8], at: usize, table: &[u8; 256], encoding: Encoding) -> Result<u64> {
    match table[usize::from(input[at])] {
        NO_DIGIT => Err(bad_char(input, at, encoding)),
        d => Ok(u64::from(d)),
    }
}

pub(super) fn bad_char(input: &[u8], at: usize, encoding: Encoding) -> Error {
    Error::InvalidEncoding {
        encoding: encoding.name(),
        reason: format!(
            "unexpected character {:?} at position {at}",
            char::from(input[at])
        ),
    }
}

pub(super) fn parse_radix<const BASE: u64>(
    input: &[u8],
    table: &[u8; 256],
    encoding: Encoding,
) -> Result<u64> {
    let mut value: u64 = 0;
    for at in 0..input.len() {
        let d = digit(input, at, table, encoding)?;
        if at == 0 && d == 0 && input.len() > 1 {
            return Err(Error::InvalidEncoding {
                encoding: encoding.name(),
                reason: "leading zeros are not canonical".into(),
            });
        }
        value = value
            .checked_mul(BASE)
            .and_then(|v| v.checked_add(d))
            .ok_or_else(|| Error::InvalidEncoding {
                encoding: encoding.name(),
                reason: "overflows 64 bits".into(),
            })?;
    }
    Ok(value)
}
