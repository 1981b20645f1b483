//! Text and byte encodings of an ID. `parse` accepts exactly the canonical
//! form `encode` produces (letter case aside where the encoding is
//! case-insensitive), so every encoding is a bijection on `u64`.

use std::fmt;

use crate::error::{Error, Result};

const BASE32: &[u8; 32] = b"ybndrfg8ejkmcpqxot1uwisza345h769";
const BASE36: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
const BASE58: &[u8; 58] = b"123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const HEX: &[u8; 16] = b"0123456789abcdef";
const DECIMAL: &[u8; 10] = b"0123456789";
const BINARY: &[u8; 2] = b"01";

/// Byte -> digit value, `NO_DIGIT` where the byte is not in the alphabet.
const NO_DIGIT: u8 = 0xff;

const fn table(alphabet: &[u8], fold_case: bool) -> [u8; 256] {
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

static DECIMAL_T: [u8; 256] = table(DECIMAL, false);
static BASE64_T: [u8; 256] = table(BASE64, false);
static BINARY_T: [u8; 256] = table(BINARY, false);
static BASE32_T: [u8; 256] = table(BASE32, false);
static BASE36_T: [u8; 256] = table(BASE36, true);
static BASE58_T: [u8; 256] = table(BASE58, false);
static HEX_T: [u8; 256] = table(HEX, true);
static CROCKFORD_T: [u8; 256] = table(CROCKFORD, true);

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
                Error::InvalidArgument(format!(
                    "unknown encoding {name:?} (encodings: {})",
                    names.join(", ")
                ))
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
            encoding: self,
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
            Encoding::Hex => parse_fixed(input, 16, 4, &HEX_T, self),
            Encoding::Crockford32 => parse_fixed(input, 13, 5, &CROCKFORD_T, self),
            Encoding::Bytes => {
                let bytes: [u8; 8] = input
                    .try_into()
                    .map_err(|_| fail(format!("expected 8 bytes, got {}", input.len())))?;
                Ok(u64::from_be_bytes(bytes))
            }
            Encoding::Base64 => {
                if let Some(id) = base64_decimal(input) {
                    return Ok(id);
                }
                // Not a clean ID: the two steps below say what is wrong.
                let (decimal, len) = base64_decode(input).map_err(fail)?;
                Encoding::Decimal
                    .parse(&decimal[..len])
                    .map_err(|e| fail(format!("does not hold a decimal ID ({e})")))
            }
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

/// `N` base64 quads.
type Quads<const N: usize> = [[u8; 4]; N];

/// The base64 of every decimal text of three, two and one digits, so that
/// an ID's base64 is made from its digits in groups of three, with no text
/// in between: `base64("123")`, `base64("12")` with its `=`, `base64("1")`
/// with its `==`. Derived from [`BASE64`] at compile time.
static BASE64_OF_DIGITS: (Quads<1000>, Quads<100>, Quads<10>) = {
    const fn quad(text: [u8; 3], len: usize) -> [u8; 4] {
        let triple = ((text[0] as u32) << 16) | ((text[1] as u32) << 8) | text[2] as u32;
        let mut out = [b'='; 4];
        let mut i = 0;
        while i <= len {
            out[i] = BASE64[((triple >> (18 - 6 * i)) & 63) as usize];
            i += 1;
        }
        out
    }
    let mut three = [[0u8; 4]; 1000];
    let mut two = [[0u8; 4]; 100];
    let mut one = [[0u8; 4]; 10];
    let mut v = 0;
    while v < 1000 {
        let d = [
            b'0' + (v / 100) as u8,
            b'0' + (v / 10 % 10) as u8,
            b'0' + (v % 10) as u8,
        ];
        three[v] = quad(d, 3);
        if v < 100 {
            two[v] = quad([d[1], d[2], 0], 2);
        }
        if v < 10 {
            one[v] = quad([d[2], 0, 0], 1);
        }
        v += 1;
    }
    (three, two, one)
};

/// For each bit length 0 to 64, the fewest digits in `base` of a number
/// that long, and the largest such number with that many: a number has one
/// digit more exactly when it exceeds the second. Numbers of one bit length
/// span less than a factor of 2, so never more than those two counts.
type Lengths = [(u8, u64); 65];

const fn lengths(base: u64) -> Lengths {
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
const fn pairs<const N: usize>(alphabet: &[u8]) -> [[u8; 2]; N] {
    let base = alphabet.len();
    let mut table = [[0; 2]; N];
    let mut i = 0;
    while i < N {
        table[i] = [alphabet[i / base], alphabet[i % base]];
        i += 1;
    }
    table
}

static BASE32_PAIRS: [[u8; 2]; 32 * 32] = pairs(BASE32);
static BASE36_PAIRS: [[u8; 2]; 36 * 36] = pairs(BASE36);
static BASE58_PAIRS: [[u8; 2]; 58 * 58] = pairs(BASE58);

static DECIMAL_LENGTHS: Lengths = lengths(10);
static BASE32_LENGTHS: Lengths = lengths(32);
static BASE36_LENGTHS: Lengths = lengths(36);
static BASE58_LENGTHS: Lengths = lengths(58);

/// How many digits `id` has, from the table of its base.
#[inline(always)]
fn digit_count(id: u64, lengths: &Lengths) -> usize {
    let (digits, largest) = lengths[(64 - id.leading_zeros()) as usize];
    usize::from(digits) + usize::from(id > largest)
}

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

/// The multiplier and shift that put a number `v` of `k` digits in `base`
/// over `D = base^(k-2)` in fixed point with 32 fraction bits: the integer
/// part is its first two digits, and each multiply of the fraction by the
/// base (or its square) brings up the next, with no division. The fraction
/// must never fall below its true value (`…99` would come out where `…00`
/// belongs) nor rise by one unit of the last digit: `((v * multiplier) >>
/// shift) + 1` is never below `v / D` (the `+ 1` makes up for the truncating
/// shift) and above it by less than `1 + v / 2^shift` units of 2^-32, which
/// must stay under `2^32 / D` for every `v`.
const fn fixed_point(base: u64, k: u32) -> (u64, u32) {
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

    #[inline(always)]
    fn decimal(&mut self, id: u64) {
        let start = write_decimal(id, (&mut self.buf[44..]).try_into().expect("20 bytes"));
        self.start = 44 + start as u8;
    }

    #[inline(always)]
    fn bytes(&mut self, id: u64) {
        self.buf[56..].copy_from_slice(&id.to_be_bytes());
        self.start = 56;
    }

    /// The text's digits in threes from its first, so the last group (the
    /// lowest digits) may be short, and padded. The digits before it are at
    /// most 18, two chunks of nine below 10^9 whose groups of three are
    /// found independently of one another; those before the text's first
    /// digit are cut with the leading zeros.
    #[inline(always)]
    fn base64(&mut self, id: u64) {
        let digits = digit_count(id, &DECIMAL_LENGTHS);
        let short = digits % 3;
        let (head, tail) = match short {
            0 => (id, 0),
            1 => (id / 10, (id % 10) as usize),
            _ => (id / 100, (id % 100) as usize),
        };
        let (three, two, one) = &BASE64_OF_DIGITS;
        let chunks = [(head / 1_000_000_000) as u32, (head % 1_000_000_000) as u32];
        let groups = chunks.map(|c| [c / 1_000_000, c / 1000 % 1000, c % 1000]);
        let mut quads = [[0; 4]; 6];
        for (quad, group) in quads.iter_mut().zip(groups.as_flattened()) {
            *quad = three[*group as usize];
        }
        // The short group after the others, or the others moved up to the
        // end: either way every quad lands at a fixed place, so the value
        // can live in registers rather than memory written at a varying
        // offset (which its copy to the caller then read back, stalling).
        let quads: [[u8; 4]; 7] = match short {
            0 => [
                [0; 4], quads[0], quads[1], quads[2], quads[3], quads[4], quads[5],
            ],
            1 => [
                quads[0], quads[1], quads[2], quads[3], quads[4], quads[5], one[tail],
            ],
            _ => [
                quads[0], quads[1], quads[2], quads[3], quads[4], quads[5], two[tail],
            ],
        };
        self.buf[36..].copy_from_slice(quads.as_flattened());
        self.start = (64 - 4 * digits.div_ceil(3)) as u8;
    }

    /// All 64 digits a byte at a time, then the leading zeros cut (one `0` stays).
    #[inline(always)]
    fn binary(&mut self, id: u64) {
        for (chunk, byte) in self.buf.chunks_exact_mut(8).zip(id.to_be_bytes()) {
            chunk.copy_from_slice(&BYTE_BITS[usize::from(byte)]);
        }
        self.start = id.leading_zeros().min(63) as u8;
    }

    /// Three chunks of `K` digits each, `BASE^K` fitting 32 bits: the chunks
    /// are independent, so their divisions overlap instead of waiting on
    /// one another as a digit-by-digit loop's do, and each division yields
    /// two digits from the base's table of pairs. Leading zeros are then
    /// cut, their count read from the ID's bit length.
    #[inline(always)]
    fn radix<const BASE: u64>(&mut self, id: u64, pairs: &[[u8; 2]], lengths: &Lengths) {
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

    #[inline(always)]
    fn fixed(&mut self, id: u64, alphabet: &[u8], bits_per_char: u32, len: u32) {
        let digit_mask = (1u64 << bits_per_char) - 1;
        for i in 0..len {
            self.push(alphabet[((id >> (i * bits_per_char)) & digit_mask) as usize]);
        }
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

#[inline]
fn digit(input: &[u8], at: usize, table: &[u8; 256], encoding: Encoding) -> Result<u64> {
    match table[usize::from(input[at])] {
        NO_DIGIT => Err(bad_char(input, at, encoding)),
        d => Ok(u64::from(d)),
    }
}

fn bad_char(input: &[u8], at: usize, encoding: Encoding) -> Error {
    Error::InvalidEncoding {
        encoding,
        reason: format!(
            "unexpected character {:?} at position {at}",
            char::from(input[at])
        ),
    }
}

fn parse_radix<const BASE: u64>(
    input: &[u8],
    table: &[u8; 256],
    encoding: Encoding,
) -> Result<u64> {
    let mut value: u64 = 0;
    for at in 0..input.len() {
        let d = digit(input, at, table, encoding)?;
        if at == 0 && d == 0 && input.len() > 1 {
            return Err(Error::InvalidEncoding {
                encoding,
                reason: "leading zeros are not canonical".into(),
            });
        }
        value = value
            .checked_mul(BASE)
            .and_then(|v| v.checked_add(d))
            .ok_or_else(|| Error::InvalidEncoding {
                encoding,
                reason: "overflows 64 bits".into(),
            })?;
    }
    Ok(value)
}

fn parse_fixed(
    input: &[u8],
    len: usize,
    bits_per_char: u32,
    table: &[u8; 256],
    encoding: Encoding,
) -> Result<u64> {
    if input.len() != len {
        return Err(Error::InvalidEncoding {
            encoding,
            reason: format!("expected {len} characters, got {}", input.len()),
        });
    }
    let mut value: u128 = 0;
    for at in 0..input.len() {
        let d = digit(input, at, table, encoding)?;
        value = (value << bits_per_char) | u128::from(d);
    }
    u64::try_from(value).map_err(|_| Error::InvalidEncoding {
        encoding,
        reason: "overflows 64 bits".into(),
    })
}

/// Plain base64 of any bytes: the oracle the digit-group tables are tested against.
#[cfg(test)]
fn base64_encode(input: &[u8], out: &mut [u8]) -> usize {
    let sextet = |triple: u32, i: u32| BASE64[((triple >> (18 - 6 * i)) & 63) as usize];
    let mut n = 0;
    let mut chunks = input.chunks_exact(3);
    for chunk in &mut chunks {
        let triple = (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]);
        out[n..n + 4].copy_from_slice(&[
            sextet(triple, 0),
            sextet(triple, 1),
            sextet(triple, 2),
            sextet(triple, 3),
        ]);
        n += 4;
    }
    let tail = match *chunks.remainder() {
        [a] => {
            let triple = u32::from(a) << 16;
            [sextet(triple, 0), sextet(triple, 1), b'=', b'=']
        }
        [a, b] => {
            let triple = (u32::from(a) << 16) | (u32::from(b) << 8);
            [
                sextet(triple, 0),
                sextet(triple, 1),
                sextet(triple, 2),
                b'=',
            ]
        }
        _ => return n,
    };
    out[n..n + 4].copy_from_slice(&tail);
    n + 4
}

/// A quad's four sextets (64 and above: not in the alphabet, `=` included).
#[inline(always)]
fn base64_sextets(quad: &[u8]) -> [u8; 4] {
    [0, 1, 2, 3].map(|i| BASE64_T[usize::from(quad[i])])
}

/// The three bytes of a quad of four alphabet characters; `None` if any is
/// not one (padding or a stray character, for the caller to look at).
#[inline(always)]
fn base64_whole(sextets: [u8; 4]) -> Option<[u8; 3]> {
    if (sextets[0] | sextets[1] | sextets[2] | sextets[3]) >= 64 {
        return None;
    }
    let triple = (u32::from(sextets[0]) << 18)
        | (u32::from(sextets[1]) << 12)
        | (u32::from(sextets[2]) << 6)
        | u32::from(sextets[3]);
    Some([(triple >> 16) as u8, (triple >> 8) as u8, triple as u8])
}

/// The ID whose decimal text `input` is the base64 of, in one pass: each
/// quad's bytes go straight into the value. `None` for anything but a clean,
/// canonical ID (the caller then decodes in two steps, which name the fault).
fn base64_decimal(input: &[u8]) -> Option<u64> {
    if input.is_empty() || input.len() > 28 || !input.len().is_multiple_of(4) {
        return None;
    }
    // Whole quads first; a padded one can only be last.
    let (whole, padded) = input.split_at(if input.ends_with(b"=") {
        input.len() - 4
    } else {
        input.len()
    });
    let mut value: u64 = 0;
    let mut first = None;
    // A whole quad is three digits: one step of the value for all three
    // (the same value, overflowing exactly when steps of one digit would).
    for quad in whole.chunks_exact(4) {
        let [a, b, c] = base64_whole(base64_sextets(quad))?.map(|byte| byte.wrapping_sub(b'0'));
        if a > 9 || b > 9 || c > 9 {
            return None;
        }
        first.get_or_insert(a);
        let three = u64::from(a) * 100 + u64::from(b) * 10 + u64::from(c);
        value = value.checked_mul(1000)?.checked_add(three)?;
    }
    let mut digits = whole.len() / 4 * 3;
    if !padded.is_empty() {
        let sextets = base64_sextets(padded);
        let mut bytes = [0u8; 3];
        let n = base64_padded(padded, whole.len() / 4, true, sextets, &mut bytes).ok()?;
        for &byte in &bytes[..n] {
            let d = byte.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            first.get_or_insert(d);
            value = value.checked_mul(10)?.checked_add(u64::from(d))?;
        }
        digits += n;
    }
    // Leading zeros are not canonical; a lone `0` is.
    (first != Some(0) || digits == 1).then_some(value)
}

/// The last quad with its padding (`xx==` or `xxx=`): the bytes it holds
/// into `out`, and how many. Padding anywhere else, a character outside the
/// alphabet or stray bits under the padding are refused.
fn base64_padded(
    quad: &[u8],
    q: usize,
    last: bool,
    sextets: [u8; 4],
    out: &mut [u8],
) -> std::result::Result<usize, String> {
    let pad = match quad {
        [_, _, b'=', b'='] if last => 2,
        [_, _, c, b'='] if last && *c != b'=' => 1,
        _ => return Err(base64_stray(quad, q, sextets)),
    };
    if sextets[..4 - pad].iter().any(|&d| d >= 64) {
        return Err(base64_stray(quad, q, sextets));
    }
    let mut triple = 0u32;
    for &d in &sextets[..4 - pad] {
        triple = (triple << 6) | u32::from(d);
    }
    triple <<= 6 * pad;
    let bytes = [(triple >> 16) as u8, (triple >> 8) as u8, triple as u8];
    let keep = 3 - pad;
    if bytes[keep..].iter().any(|&b| b != 0) {
        return Err("non-canonical trailing bits".into());
    }
    out.copy_from_slice(&bytes);
    Ok(keep)
}

#[cold]
fn base64_stray(quad: &[u8], q: usize, sextets: [u8; 4]) -> String {
    let i = sextets.iter().position(|&d| d >= 64).unwrap_or(0);
    if quad[i] == b'=' {
        "misplaced padding".into()
    } else {
        format!(
            "unexpected character {:?} at position {}",
            char::from(quad[i]),
            q * 4 + i
        )
    }
}

/// Strict standard base64: padding required, no stray bits in the last
/// character, nothing but the alphabet.
fn base64_decode(input: &[u8]) -> std::result::Result<([u8; 21], usize), String> {
    if !input.len().is_multiple_of(4) {
        return Err(format!("length {} is not a multiple of 4", input.len()));
    }
    // The base64 of a decimal ID (at most 20 digits) has at most 28 characters.
    if input.len() > 28 {
        return Err(format!(
            "{} characters: longer than the base64 of any decimal ID (28)",
            input.len()
        ));
    }
    let mut out = [0u8; 21];
    let mut n = 0;
    let quads = input.len() / 4;
    for (q, quad) in input.chunks_exact(4).enumerate() {
        let sextets = base64_sextets(quad);
        if let Some(bytes) = base64_whole(sextets) {
            out[n..n + 3].copy_from_slice(&bytes);
            n += 3;
        } else {
            n += base64_padded(quad, q, q + 1 == quads, sextets, &mut out[n..n + 3])?;
        }
    }
    Ok((out, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length read from the bit length is the count of digits, found
    /// here by division, at each side of every power of the base and of 2.
    #[test]
    fn radix_texts_are_as_long_as_their_digits() {
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
    fn radix_chunks_in_fixed_point_are_exact() {
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

    /// The digit-group tables give the plain base64 of the decimal text,
    /// at every length and around every power of ten.
    #[test]
    fn base64_from_digit_groups_is_the_base64_of_the_decimal_text() {
        let mut ids = vec![0, 1, 9, u64::MAX];
        let mut p = 1u64;
        while let Some(next) = p.checked_mul(10) {
            ids.extend([p - 1, p, p + 1, next - 1]);
            p = next;
        }
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..100_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            ids.push(seed >> (seed % 64));
        }
        for id in ids {
            let text = id.to_string();
            let mut expected = [0u8; 32];
            let n = base64_encode(text.as_bytes(), &mut expected);
            assert_eq!(
                Encoding::Base64.encode(id).as_bytes(),
                &expected[..n],
                "{id}"
            );
            assert_eq!(Encoding::Decimal.encode(id).as_bytes(), text.as_bytes());
        }
    }

    /// The one-pass base64 parse answers exactly when the two steps it
    /// stands in for (base64, then decimal) succeed, with the same value.
    #[test]
    fn base64_in_one_pass_agrees_with_the_two_steps() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..200_000 {
            let len = (next() % 23) as usize;
            let text: Vec<u8> = (0..len)
                .map(|i| match next() % 40 {
                    0 => b'a',
                    1 if i == 0 => b'0',
                    r => b'0' + (r % 10) as u8,
                })
                .collect();
            let mut b64 = [0u8; 32];
            let n = base64_encode(&text, &mut b64);
            let input = &b64[..n];
            let two_steps = base64_decode(input)
                .ok()
                .and_then(|(digits, len)| Encoding::Decimal.parse(&digits[..len]).ok());
            assert_eq!(
                base64_decimal(input),
                two_steps,
                "{:?}",
                String::from_utf8_lossy(&text)
            );
            if two_steps.is_some() {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
        assert!(
            accepted > 50_000 && refused > 20_000,
            "{accepted} / {refused}"
        );
    }

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

/// Whether a JSON key names an ID, or a list of IDs, under the one rule the
/// bindings' JSON helpers follow when they read (and Python's when it
/// writes): `id`, `ids`, or a name ending in `_id`, `_ids`, `Id`, `Ids`,
/// `ID` or `IDs` (`user_id`, `orderIds`, `parentID`). `paid` and `uuid` are
/// not ID keys.
pub fn is_id_key(key: &str) -> bool {
    const SUFFIXES: [&str; 6] = ["_id", "_ids", "Id", "Ids", "ID", "IDs"];
    key == "id"
        || key == "ids"
        || SUFFIXES
            .iter()
            .any(|s| key.len() > s.len() && key.ends_with(s))
}

#[cfg(test)]
mod id_key_tests {
    use super::is_id_key;

    #[test]
    fn names_that_are_and_are_not_id_keys() {
        for key in [
            "id",
            "ids",
            "user_id",
            "order_ids",
            "userId",
            "orderIds",
            "parentID",
            "childIDs",
        ] {
            assert!(is_id_key(key), "{key}");
        }
        for key in [
            "", "Id", "_id", "paid", "uuid", "idx", "identity", "valid", "ID", "name",
        ] {
            assert!(!is_id_key(key), "{key}");
        }
    }
}
