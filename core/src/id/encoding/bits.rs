//! The fixed-width encodings, a whole number of bits per character: hex,
//! Crockford base 32, base 2, and the 8 raw bytes.

use super::digits::digit;
use super::Encoded;
use super::Encoding;
use crate::error::{Error, Result};

/// Each byte's eight binary digits, most significant first.
static BYTE_BITS: [[u8; 8]; 256] = {
    let mut bits = [[0; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut i = 0;
        while i < 8 {
            bits[byte][i] = b'0' + ((byte >> (7 - i)) & 1) as u8;
            i += 1;
        }
        byte += 1;
    }
    bits
};

impl Encoded {
    #[inline(always)]
    pub(super) fn bytes(&mut self, id: u64) {
        self.buf[56..].copy_from_slice(&id.to_be_bytes());
        self.start = 56;
    }

    /// All 64 digits a byte at a time, then the leading zeros cut (one `0` stays).
    #[inline(always)]
    pub(super) fn binary(&mut self, id: u64) {
        for (chunk, byte) in self.buf.chunks_exact_mut(8).zip(id.to_be_bytes()) {
            chunk.copy_from_slice(&BYTE_BITS[usize::from(byte)]);
        }
        self.start = id.leading_zeros().min(63) as u8;
    }

    #[inline(always)]
    pub(super) fn fixed(&mut self, id: u64, alphabet: &[u8], bits_per_char: u32, len: u32) {
        let digit_mask = (1u64 << bits_per_char) - 1;
        for i in 0..len {
            self.push(alphabet[((id >> (i * bits_per_char)) & digit_mask) as usize]);
        }
    }
}

pub(super) fn parse_fixed(
    input: &[u8],
    len: usize,
    bits_per_char: u32,
    table: &[u8; 256],
    encoding: Encoding,
) -> Result<u64> {
    if input.len() != len {
        return Err(Error::InvalidEncoding {
            encoding: encoding.name(),
            reason: format!("expected {len} characters, got {}", input.len()),
        });
    }
    let mut value: u128 = 0;
    for at in 0..input.len() {
        let d = digit(input, at, table, encoding)?;
        value = (value << bits_per_char) | u128::from(d);
    }
    u64::try_from(value).map_err(|_| Error::InvalidEncoding {
        encoding: encoding.name(),
        reason: "overflows 64 bits".into(),
    })
}
