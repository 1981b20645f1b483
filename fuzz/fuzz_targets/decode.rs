//! Any 64-bit value under any preset: decoded and composed back exactly, or
//! refused with a code (an unused bit set).
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyflake::{Layout, PRESETS};

fuzz_target!(|input: (u8, u64)| {
    let (which, id) = input;
    let layout = Layout::preset(PRESETS[usize::from(which) % PRESETS.len()]).unwrap();
    match layout.decode(id) {
        Ok(parts) => {
            let again = layout.compose(parts.timestamp_ms, parts.sequence, parts.nodes());
            assert_eq!(again, Ok(id));
            let segments = layout.explain(id).unwrap();
            assert_eq!(segments.iter().map(|s| u32::from(s.width())).sum::<u32>(), 64);
        }
        Err(e) => assert_eq!(e.code(), "FIELD_OUT_OF_RANGE"),
    }
});
