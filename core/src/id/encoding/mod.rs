//! Text and byte encodings of an ID. `parse` accepts exactly the canonical
//! form `encode` produces (letter case aside where the encoding is
//! case-insensitive), so every encoding is a bijection on `u64`.
//!
//! One file per family: [`decimal`] (and the digit count every variable-length
//! text shares), [`radix`] (base 32, 36 and 58), [`bits`] (the fixed-width
//! encodings: hex, Crockford base 32, base 2, raw bytes), [`base64`] (of the
//! decimal text, as bwmarrin has it); [`digits`] holds the alphabets and the
//! tables they are read back with.

mod base64;
mod bits;
mod decimal;
mod digits;
mod radix;

use std::fmt;

use crate::error::{ArgumentKind, Error, Result};
use digits::{
    parse_radix, BASE32_T, BASE36_T, BASE58_T, BINARY_T, CROCKFORD, CROCKFORD_T, DECIMAL_T, HEX,
    HEX_T,
};
use radix::{
    BASE32_LENGTHS, BASE32_PAIRS, BASE36_LENGTHS, BASE36_PAIRS, BASE58_LENGTHS, BASE58_PAIRS,
};

/// The encodings of the contract, named exactly so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Base 10, no leading zeros.
    Decimal,
    /// 16 lower-case hex digits, zero-padded (upper case accepted on parse).
    Hex,
    /// Base 2, no leading zeros (bwmarrin).
    Base2,
    /// bwmarrin's base 32 alphabet `ybndrfg8ejkmcpqxot1uwisza345h769`, case-sensitive.
    Base32,
    /// Base 36, lower case (upper case accepted on parse).
    Base36,
    /// bwmarrin/Flickr base 58, case-sensitive.
    Base58,
    /// bwmarrin: standard padded base64 of the decimal string.
    Base64,
    /// 13 characters of Crockford base 32 (TSID style), case-insensitive.
    Crockford32,
    /// 8 bytes, big-endian.
    Bytes,
}

impl Encoding {
    /// Every encoding, in the contract's order.
    pub const ALL: [Encoding; 9] = [
        Encoding::Decimal,
        Encoding::Hex,
        Encoding::Base2,
        Encoding::Base32,
        Encoding::Base36,
        Encoding::Base58,
        Encoding::Base64,
        Encoding::Crockford32,
        Encoding::Bytes,
    ];

    /// The contract name (`"base58"` …).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Decimal => "decimal",
            Encoding::Hex => "hex",
            Encoding::Base2 => "base2",
            Encoding::Base32 => "base32",
            Encoding::Base36 => "base36",
            Encoding::Base58 => "base58",
            Encoding::Base64 => "base64",
            Encoding::Crockford32 => "crockford32",
            Encoding::Bytes => "bytes",
        }
    }

    /// Looks an encoding up by its contract name.
    pub fn from_name(name: &str) -> Result<Encoding> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Encoding::ALL.iter().map(|e| e.name()).collect();
                Error::invalid(
                    ArgumentKind::UnknownName,
                    format!(
                        "unknown encoding {name:?} (encodings: {})",
                        names.join(", ")
                    ),
                )
            })
    }

    /// Whether the encoding produces raw bytes rather than text.
    pub fn is_binary(self) -> bool {
        self == Encoding::Bytes
    }

    /// Encodes an ID without allocating.
    // Inlined where it is called, with the writer of each encoding: a
    // constant encoding keeps one arm, and the value is written where the
    // caller holds it. Written in a callee and copied out, its `start` byte
    // was read back within a wider load, which the CPU cannot forward from
    // the store still pending (a stall of ~15 cycles, as much as the decimal
    // digits cost).
    #[inline(always)]
    pub fn encode(self, id: u64) -> Encoded {
        let mut out = Encoded {
            buf: [0; 64],
            start: 64,
            binary: self.is_binary(),
        };
        match self {
            Encoding::Decimal => out.decimal(id),
            Encoding::Hex => out.fixed(id, HEX, 4, 16),
            Encoding::Base2 => out.binary(id),
            Encoding::Base32 => out.radix::<32>(id, &BASE32_PAIRS, &BASE32_LENGTHS),
            Encoding::Base36 => out.radix::<36>(id, &BASE36_PAIRS, &BASE36_LENGTHS),
            Encoding::Base58 => out.radix::<58>(id, &BASE58_PAIRS, &BASE58_LENGTHS),
            Encoding::Crockford32 => out.fixed(id, CROCKFORD, 5, 13),
            Encoding::Bytes => out.bytes(id),
            Encoding::Base64 => out.base64(id),
        }
        out
    }

    /// Encodes an ID as text. For [`Encoding::Bytes`] use [`Encoding::encode`].
    pub fn format(self, id: u64) -> String {
        let encoded = self.encode(id);
        match encoded.as_str() {
            Some(text) => text.to_owned(),
            None => Encoding::Hex.format(id),
        }
    }

    /// Parses exactly one canonical ID. Empty input, stray characters, a wrong
    /// length for fixed-width encodings, non-canonical leading zeros and
    /// values past 64 bits are `INVALID_ENCODING`.
    pub fn parse(self, input: impl AsRef<[u8]>) -> Result<u64> {
        let input = input.as_ref();
        let fail = |reason: String| Error::InvalidEncoding {
            encoding: self.name(),
            reason,
        };
        if input.is_empty() {
            return Err(fail("empty input".into()));
        }
        match self {
            Encoding::Decimal => parse_radix::<10>(input, &DECIMAL_T, self),
            Encoding::Base2 => parse_radix::<2>(input, &BINARY_T, self),
            Encoding::Base32 => parse_radix::<32>(input, &BASE32_T, self),
            Encoding::Base36 => parse_radix::<36>(input, &BASE36_T, self),
            Encoding::Base58 => parse_radix::<58>(input, &BASE58_T, self),
            Encoding::Hex => bits::parse_fixed(input, 16, 4, &HEX_T, self),
            Encoding::Crockford32 => bits::parse_fixed(input, 13, 5, &CROCKFORD_T, self),
            Encoding::Bytes => {
                let bytes: [u8; 8] = input
                    .try_into()
                    .map_err(|_| fail(format!("expected 8 bytes, got {}", input.len())))?;
                Ok(u64::from_be_bytes(bytes))
            }
            Encoding::Base64 => base64::parse(input).map_err(fail),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Encoding {
    type Err = Error;
    fn from_str(name: &str) -> Result<Encoding> {
        Encoding::from_name(name)
    }
}

/// An encoded ID on the stack: text, or 8 raw bytes for [`Encoding::Bytes`].
#[derive(Clone, Copy)]
pub struct Encoded {
    buf: [u8; 64],
    start: u8,
    binary: bool,
}

impl Encoded {
    /// The encoded bytes (ASCII for text encodings).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[usize::from(self.start)..]
    }

    /// The text, or `None` for [`Encoding::Bytes`].
    pub fn as_str(&self) -> Option<&str> {
        if self.binary {
            None
        } else {
            // Every text alphabet is ASCII.
            std::str::from_utf8(self.as_bytes()).ok()
        }
    }

    fn push(&mut self, byte: u8) {
        self.start -= 1;
        self.buf[usize::from(self.start)] = byte;
    }
}

/// The text; for [`Encoding::Bytes`], the 8 bytes as 16 lower-case hex digits.
impl fmt::Display for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(text) => f.write_str(text),
            None => self
                .as_bytes()
                .iter()
                .try_for_each(|b| write!(f, "{b:02x}")),
        }
    }
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(text) => write!(f, "Encoded({text:?})"),
            None => write!(f, "Encoded({:?})", self.as_bytes()),
        }
    }
}

impl AsRef<[u8]> for Encoded {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_round_trips_the_extremes() {
        for e in Encoding::ALL {
            for id in [0, 1, 57, 58, 1 << 53, (1 << 63) - 1, 1 << 63, u64::MAX] {
                assert_eq!(e.parse(e.encode(id)).unwrap(), id, "{e} {id}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for e in Encoding::ALL {
            assert_eq!(Encoding::from_name(e.name()).unwrap(), e);
        }
        assert_eq!(
            Encoding::from_name("base99").unwrap_err().code(),
            "INVALID_ARGUMENT"
        );
    }

    #[test]
    fn strictness() {
        let code = |e: Encoding, s: &str| e.parse(s).unwrap_err().code();
        assert_eq!(code(Encoding::Decimal, ""), "INVALID_ENCODING");
        assert_eq!(
            code(Encoding::Decimal, "18446744073709551616"),
            "INVALID_ENCODING"
        );
        assert_eq!(code(Encoding::Decimal, "007"), "INVALID_ENCODING");
        assert_eq!(code(Encoding::Decimal, "+7"), "INVALID_ENCODING");
        assert_eq!(code(Encoding::Hex, "abc"), "INVALID_ENCODING");
        assert_eq!(
            code(Encoding::Crockford32, "G000000000000"),
            "INVALID_ENCODING"
        );
        assert_eq!(code(Encoding::Base64, "MTE"), "INVALID_ENCODING");
        let why = |text: &str| Encoding::Base64.parse(text).unwrap_err().to_string();
        assert!(
            why("MR==").contains("non-canonical trailing bits"),
            "{}",
            why("MR==")
        );
        assert!(why("M=Q=").contains("misplaced padding"));
        assert!(why("MQ==MQ==").contains("misplaced padding"));
        assert!(why("MTE=MTE=").contains("misplaced padding"));
        assert!(why("M*Q=").contains("'*' at position 1"), "{}", why("M*Q="));
        assert!(why("MTIz*TE=").contains("'*' at position 4"));
        assert_eq!(Encoding::Base64.parse("MQ==").unwrap(), 1);
        assert_eq!(Encoding::Base64.parse("MTI=").unwrap(), 12);
        assert_eq!(Encoding::Base64.parse("MTIz").unwrap(), 123);
        // A leading zero is refused whether it opens a whole quad or the
        // padded one, and a lone zero is read: "0", "07", "00", "0123", "1007".
        assert_eq!(Encoding::Base64.parse("MA==").unwrap(), 0);
        assert!(why("MDc=").contains("leading zeros"), "{}", why("MDc="));
        assert!(why("MDA=").contains("leading zeros"));
        assert!(why("MDEyMw==").contains("leading zeros"));
        assert_eq!(Encoding::Base64.parse("MTAwNw==").unwrap(), 1007);
        // Longer than the base64 of any 20-digit decimal: refused before decoding.
        let long = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0";
        assert_eq!(code(Encoding::Base64, long), "INVALID_ENCODING");
        assert!(Encoding::Base64
            .parse(long)
            .unwrap_err()
            .to_string()
            .contains("longer than"));
        assert_eq!(code(Encoding::Bytes, "1234567"), "INVALID_ENCODING");
        assert_eq!(Encoding::Hex.parse("00000000000000FF").unwrap(), 255);
    }
}
