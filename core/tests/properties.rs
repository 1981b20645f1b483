//! Round trips and orderings over arbitrary input.

use polyflake::{Encoding, Layout, PRESETS};
use proptest::prelude::*;

fn any_layout() -> impl Strategy<Value = Layout> {
    prop::sample::select(PRESETS.to_vec()).prop_map(|name| Layout::preset(name).unwrap())
}

/// A custom layout of 0 to 8 node fields with arbitrary widths, the sequence
/// above or below them (widths that do not fit 64 bits are drawn again), with
/// the widths it was made of: the node fields' in order, then the sequence's.
fn any_custom_layout() -> impl Strategy<Value = (Layout, Vec<u8>, bool)> {
    (
        1u8..=41,
        1u8..=22,
        prop::collection::vec(1u8..=16, 0..=8),
        any::<bool>(),
        1u64..=10,
    )
        .prop_filter_map(
            "fields wider than 64 bits",
            |(time, seq, nodes, above, tick)| {
                let mut builder = Layout::custom(1_600_000_000_000, time)
                    .tick_ms(tick)
                    .sequence_bits(seq)
                    .sequence_above_nodes(above);
                for (i, bits) in nodes.iter().enumerate() {
                    builder = builder.node(format!("n{i}"), *bits);
                }
                let mut widths = nodes;
                widths.push(seq);
                Some((builder.build().ok()?, widths, above))
            },
        )
}

/// Reads a field of `width` bits at `shift` as the contract draws it.
fn bits_at(id: u64, shift: u32, width: u8) -> u64 {
    (id >> shift) & ((1u64 << width) - 1)
}

proptest! {
    /// Each field of a custom layout comes back from its own bits, counted
    /// here from the widths the layout was made of, and the parts compose
    /// back into the ID.
    #[test]
    fn custom_layouts_decode_every_field_from_its_bits(
        (layout, widths, above) in any_custom_layout(),
        raw in any::<u64>(),
    ) {
        let id = raw & layout.id_mask();
        let parts = layout.decode(id).unwrap();
        let (sequence, nodes) = widths.split_last().unwrap();
        // From the least significant bit: the sequence unless it sits above,
        // the node fields from the last, then the sequence if above, the time.
        let mut shift = if above { 0 } else { u32::from(*sequence) };
        let mut expected = vec![0; nodes.len()];
        for (slot, width) in expected.iter_mut().zip(nodes).rev() {
            *slot = bits_at(id, shift, *width);
            shift += u32::from(*width);
        }
        let sequence_shift = if above { shift } else { 0 };
        prop_assert_eq!(parts.nodes(), &expected[..]);
        prop_assert_eq!(parts.sequence, bits_at(id, sequence_shift, *sequence));
        prop_assert_eq!(parts.ticks, id >> (shift + if above { u32::from(*sequence) } else { 0 }));
        prop_assert_eq!(layout.compose(parts.timestamp_ms, parts.sequence, parts.nodes()).unwrap(), id);
        if layout.id_mask() != u64::MAX {
            prop_assert!(layout.decode(raw | !layout.id_mask()).is_err());
        }
    }

    #[test]
    fn every_valid_id_round_trips(layout in any_layout(), raw in any::<u64>()) {
        let id = raw & layout.id_mask();
        let parts = layout.decode(id).unwrap();
        prop_assert_eq!(layout.compose(parts.timestamp_ms, parts.sequence, parts.nodes()).unwrap(), id);
        let bits: String = layout.explain(id).unwrap().iter().map(|s| s.bits()).collect();
        prop_assert_eq!(bits, format!("{id:064b}"));
    }

    /// A preset decodes through a plan fixed at compile time; the same layout
    /// built by hand runs the plan made at run time. Both read every ID alike.
    #[test]
    fn presets_decode_like_their_custom_twins(layout in any_layout(), raw in any::<u64>(), dirty in any::<bool>()) {
        let mut twin = Layout::custom(layout.epoch_ms(), layout.time_bits())
            .tick_ms(layout.tick_ms())
            .sequence_bits(layout.sequence_bits())
            .sequence_above_nodes(layout.sequence_above_nodes());
        for field in layout.node_fields() {
            twin = twin.node(field.name(), field.bits());
        }
        let twin = twin.build().unwrap();
        let id = if dirty { raw | !layout.id_mask() } else { raw & layout.id_mask() };
        match (layout.decode(id), twin.decode(id)) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.code(), b.code()),
            (a, b) => prop_assert!(false, "{id:#x}: preset {a:?}, twin {b:?}"),
        }
        prop_assert_eq!(layout.decode(id).is_err(), dirty && layout.id_mask() != u64::MAX);
    }

    #[test]
    fn composed_parts_come_back(layout in any_layout(), t in any::<u64>(), s in any::<u64>(), n in any::<[u64; 2]>()) {
        let span = (layout.max_timestamp_ms() - layout.epoch_ms()) as u64 + 1;
        let ts = layout.epoch_ms() + (t % span) as i64;
        let seq = s % (layout.max_sequence() + 1);
        let nodes: Vec<u64> = layout.node_fields().iter().zip(n).map(|(f, v)| v % (f.max() + 1)).collect();
        let id = layout.compose(ts, seq, &nodes).unwrap();
        let parts = layout.decode(id).unwrap();
        prop_assert_eq!(parts.sequence, seq);
        prop_assert_eq!(parts.nodes(), &nodes[..]);
        prop_assert!(parts.timestamp_ms <= ts && ts - parts.timestamp_ms < layout.tick_ms() as i64);
        prop_assert!(layout.min_id(ts).unwrap() <= id && id <= layout.max_id(ts).unwrap());
    }

    #[test]
    fn later_parts_sort_later(layout in any_layout(), t in 0u64..1 << 40, s in any::<u64>()) {
        let span = (layout.max_timestamp_ms() - layout.epoch_ms()) as u64;
        let ts = layout.epoch_ms() + (t % (span - layout.tick_ms())) as i64;
        let seq = s % layout.max_sequence();
        let nodes = vec![0; layout.node_fields().len()];
        let a = layout.compose(ts, seq, &nodes).unwrap();
        prop_assert!(layout.compose(ts, seq + 1, &nodes).unwrap() > a);
        prop_assert!(layout.compose(ts + layout.tick_ms() as i64, 0, &nodes).unwrap() > a);
    }

    #[test]
    fn every_encoding_round_trips(id in any::<u64>()) {
        for encoding in Encoding::ALL {
            prop_assert_eq!(encoding.parse(encoding.encode(id)).unwrap(), id);
        }
        for encoding in [Encoding::Hex, Encoding::Base36, Encoding::Crockford32] {
            let text = encoding.format(id);
            prop_assert_eq!(encoding.parse(text.to_uppercase()).unwrap(), id);
            prop_assert_eq!(encoding.parse(text.to_lowercase()).unwrap(), id);
        }
    }

    #[test]
    fn decimal_and_base2_agree_with_std_at_every_length(id in any::<u64>(), digits in 0u32..64) {
        // Random IDs are almost all 19-20 digits long: also every shorter
        // length, and the boundaries 10^k - 1, 10^k, 2^k - 1, 2^k.
        let short = id >> digits;
        let mut ids = vec![id, short, 0, 1, u64::MAX];
        for k in 1..20 {
            ids.extend([10u64.pow(k) - 1, 10u64.pow(k)]);
        }
        ids.extend([(1u64 << digits) - 1, 1u64 << digits]);
        for id in ids {
            prop_assert_eq!(Encoding::Decimal.format(id), id.to_string());
            prop_assert_eq!(Encoding::Base2.format(id), format!("{id:b}"));
        }
    }

    #[test]
    fn fixed_width_text_sorts_like_the_id(a in any::<u64>(), b in any::<u64>()) {
        for encoding in [Encoding::Hex, Encoding::Crockford32] {
            prop_assert_eq!(encoding.format(a).cmp(&encoding.format(b)), a.cmp(&b));
        }
    }

    #[test]
    fn parse_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..80)) {
        for encoding in Encoding::ALL {
            if let Ok(id) = encoding.parse(&bytes) {
                // Whatever parses is canonical, up to letter case.
                prop_assert_eq!(encoding.encode(id).as_bytes().to_ascii_lowercase(), bytes.to_ascii_lowercase());
            }
        }
    }
}
