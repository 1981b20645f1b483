//! Any custom layout definition: refused with INVALID_LAYOUT, or a layout
//! whose compose/decode round trip and range queries hold for any input.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polyflake::Layout;

#[derive(Arbitrary, Debug)]
struct Input {
    epoch_ms: i64,
    tick_ms: u64,
    time_bits: u8,
    sequence_bits: u8,
    sequence_above_nodes: bool,
    nodes: Vec<(String, u8)>,
    timestamp_ms: i64,
    sequence: u64,
    values: Vec<u64>,
}

fuzz_target!(|input: Input| {
    let mut builder = Layout::custom(input.epoch_ms, input.time_bits)
        .tick_ms(input.tick_ms)
        .sequence_bits(input.sequence_bits)
        .sequence_above_nodes(input.sequence_above_nodes);
    for (name, bits) in &input.nodes {
        builder = builder.node(name.clone(), *bits);
    }
    let layout = match builder.build() {
        Ok(layout) => layout,
        Err(e) => return assert_eq!(e.code(), "INVALID_LAYOUT"),
    };
    let values: Vec<u64> = (0..layout.node_fields().len())
        .map(|i| input.values.get(i).copied().unwrap_or(0))
        .collect();
    match layout.compose(input.timestamp_ms, input.sequence, &values) {
        Ok(id) => {
            let parts = layout.decode(id).unwrap();
            assert_eq!(parts.sequence, input.sequence);
            assert_eq!(parts.nodes(), values.as_slice());
            assert!(parts.timestamp_ms <= input.timestamp_ms);
            assert!(input.timestamp_ms - parts.timestamp_ms < layout.tick_ms() as i64);
        }
        Err(e) => assert!(
            ["FIELD_OUT_OF_RANGE", "TIMESTAMP_BEFORE_EPOCH", "TIMESTAMP_OVERFLOW"].contains(&e.code()),
            "{e}"
        ),
    }
    if let (Ok(low), Ok(high)) = (
        layout.min_id(input.timestamp_ms),
        layout.max_id(input.timestamp_ms),
    ) {
        assert!(low <= high);
    }
});
