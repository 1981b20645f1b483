//! Any bytes, in any encoding: refused with INVALID_ENCODING, or parsed to
//! an ID whose canonical spelling they were.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyflake::Encoding;

fuzz_target!(|input: (u8, &[u8])| {
    let (which, text) = input;
    let encoding = Encoding::ALL[usize::from(which) % Encoding::ALL.len()];
    match encoding.parse(text) {
        Ok(id) => {
            let canonical = encoding.encode(id);
            let caseless = matches!(
                encoding,
                Encoding::Hex | Encoding::Base36 | Encoding::Crockford32
            );
            if caseless {
                assert_eq!(
                    canonical.as_bytes().to_ascii_lowercase(),
                    text.to_ascii_lowercase()
                );
            } else {
                assert_eq!(canonical.as_bytes(), text);
            }
        }
        Err(e) => assert_eq!(e.code(), "INVALID_ENCODING"),
    }
});
