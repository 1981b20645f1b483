//! bwmarrin's base64: the standard padded base64 of the decimal text.
//! Written from the digits in groups of three, read back in one pass.

use super::decimal::DECIMAL_LENGTHS;
use super::digits::{digit_count, BASE64, BASE64_T};
use super::{Encoded, Encoding};

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

impl Encoded {
    /// The text's digits in threes from its first, so the last group (the
    /// lowest digits) may be short, and padded. The digits before it are at
    /// most 18, two chunks of nine below 10^9 whose groups of three are
    /// found independently of one another; those before the text's first
    /// digit are cut with the leading zeros.
    #[inline(always)]
    pub(super) fn base64(&mut self, id: u64) {
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
}

/// The ID whose base64 `input` is (non-empty); the reason, if it is not one.
pub(super) fn parse(input: &[u8]) -> std::result::Result<u64, String> {
    if let Some(id) = base64_decimal(input) {
        return Ok(id);
    }
    // Not a clean ID: the two steps below say what is wrong.
    let (decimal, len) = base64_decode(input)?;
    Encoding::Decimal
        .parse(&decimal[..len])
        .map_err(|e| format!("does not hold a decimal ID ({e})"))
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

    /// The digit-group tables give the plain base64 of the decimal text,
    /// at every length and around every power of ten.
    #[test]
    pub(super) fn base64_from_digit_groups_is_the_base64_of_the_decimal_text() {
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
    pub(super) fn base64_in_one_pass_agrees_with_the_two_steps() {
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
}
