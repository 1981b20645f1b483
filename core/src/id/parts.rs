//! compose / decode / explain / min_id / max_id: the exact round trip between
//! an ID and its fields.

use crate::error::{Error, Result};
use crate::id::layout::Layout;
use crate::id::plan::{mask, Plan, MAX_NODE_FIELDS};

/// The fields of one ID. `Copy`, allocation-free; names come from the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parts {
    /// Unix milliseconds at the start of the ID's tick.
    pub timestamp_ms: i64,
    /// The raw value of the time field (ticks since the epoch).
    pub ticks: u64,
    /// The sequence within the tick.
    pub sequence: u64,
    nodes: [u64; MAX_NODE_FIELDS],
    node_count: u8,
}

impl Parts {
    #[inline(always)]
    pub(crate) fn new(
        timestamp_ms: i64,
        ticks: u64,
        sequence: u64,
        nodes: [u64; MAX_NODE_FIELDS],
        node_count: u8,
    ) -> Parts {
        Parts {
            timestamp_ms,
            ticks,
            sequence,
            nodes,
            node_count,
        }
    }

    /// Node field values, in the layout's order.
    pub fn nodes(&self) -> &[u64] {
        &self.nodes[..usize::from(self.node_count)]
    }

    /// `(name, value)` for every node field.
    pub fn fields<'a>(&'a self, layout: &'a Layout) -> impl Iterator<Item = (&'a str, u64)> + 'a {
        layout
            .node_fields()
            .iter()
            .map(|f| f.name())
            .zip(self.nodes().iter().copied())
    }

    /// A node field's value by name.
    pub fn get(&self, layout: &Layout, name: &str) -> Option<u64> {
        layout.node_index(name).map(|i| self.nodes[i])
    }
}

/// What a segment of the 64 bits holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SegmentKind {
    /// Bits above the time field; zero in a valid ID.
    Unused,
    /// The time field (ticks since the epoch).
    Time,
    /// A node field.
    Node,
    /// The sequence.
    Sequence,
}

impl SegmentKind {
    /// The kind's name in every language: `unused`, `time`, `node` or `sequence`.
    pub fn name(self) -> &'static str {
        match self {
            SegmentKind::Unused => "unused",
            SegmentKind::Time => "time",
            SegmentKind::Node => "node",
            SegmentKind::Sequence => "sequence",
        }
    }
}

/// One labelled run of bits, for a person reading an ID.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Segment {
    /// `unused`, `time`, the node field's name, or `sequence`.
    pub name: String,
    /// What the segment holds.
    pub kind: SegmentKind,
    /// Highest bit of the segment (63 is the ID's top bit).
    pub msb: u8,
    /// Lowest bit of the segment.
    pub lsb: u8,
    /// Raw value of the segment.
    pub value: u64,
}

impl Segment {
    /// Width in bits.
    pub fn width(&self) -> u8 {
        self.msb - self.lsb + 1
    }
    /// The segment's bits, most significant first, zero-padded to its width.
    pub fn bits(&self) -> String {
        format!("{:0width$b}", self.value, width = usize::from(self.width()))
    }
}

impl Plan {
    /// Splits an ID, refusing one with unused bits set. Inlined into each
    /// caller so that a constant plan folds into constant shifts.
    #[inline(always)]
    pub(crate) fn decode(&self, id: u64) -> Result<Parts> {
        if id & !self.id_mask != 0 {
            return Err(Error::out_of_range("id", id, self.id_mask));
        }
        let ticks = id >> self.time_shift;
        let mut nodes = [0; MAX_NODE_FIELDS];
        // The first field is read whatever the count, so that reading it
        // costs no branch; without node fields its mask is zero.
        nodes[0] = (id >> self.node_shift[0]) & self.node_max[0];
        let count = self.node_count.clamp(1, MAX_NODE_FIELDS);
        for ((slot, shift), max) in nodes[1..count]
            .iter_mut()
            .zip(&self.node_shift[1..count])
            .zip(&self.node_max[1..count])
        {
            *slot = (id >> shift) & max;
        }
        Ok(Parts::new(
            self.timestamp_of(ticks),
            ticks,
            (id >> self.sequence_shift) & self.max_sequence,
            nodes,
            self.node_count as u8,
        ))
    }
}

impl Layout {
    /// Builds an ID from a timestamp, a sequence and node values in layout
    /// order. Every value is range-checked; a timestamp inside a tick is
    /// floored to the tick.
    pub fn compose(&self, timestamp_ms: i64, sequence: u64, nodes: &[u64]) -> Result<u64> {
        let node_bits = self.node_bits(nodes)?;
        self.check_sequence(sequence)?;
        let ticks = self.ticks_at(timestamp_ms)?;
        Ok(self.assemble(ticks, sequence, node_bits))
    }

    /// [`compose`](Layout::compose) with node values given by name.
    pub fn compose_named<'a, I>(&self, timestamp_ms: i64, sequence: u64, nodes: I) -> Result<u64>
    where
        I: IntoIterator<Item = (&'a str, u64)>,
    {
        let values = self.node_values(nodes)?;
        self.compose(timestamp_ms, sequence, &values[..self.node_fields().len()])
    }

    pub(crate) fn check_sequence(&self, sequence: u64) -> Result<()> {
        if sequence > self.max_sequence() {
            return Err(Error::out_of_range(
                "sequence",
                sequence,
                self.max_sequence(),
            ));
        }
        Ok(())
    }

    /// Splits an ID into its fields. An ID with unused bits set is not an ID
    /// of this layout and is refused.
    #[inline(always)]
    pub fn decode(&self, id: u64) -> Result<Parts> {
        // One path for every layout: a preset the compiler sees is a constant,
        // so its plan folds into fixed shifts; any other layout reads its plan.
        self.plan.decode(id)
    }

    /// The ID's 64 bits as labelled segments, most significant first.
    pub fn explain(&self, id: u64) -> Result<Vec<Segment>> {
        let parts = self.decode(id)?;
        let mut segments = Vec::with_capacity(self.node_fields().len() + 3);
        let mut push = |name: &str, kind, lsb: u8, bits: u8, value| {
            segments.push(Segment {
                name: name.to_owned(),
                kind,
                msb: lsb + bits - 1,
                lsb,
                value,
            })
        };
        if self.unused_bits() > 0 {
            push(
                "unused",
                SegmentKind::Unused,
                64 - self.unused_bits(),
                self.unused_bits(),
                0,
            );
        }
        push(
            "time",
            SegmentKind::Time,
            self.time_shift(),
            self.time_bits(),
            parts.ticks,
        );
        let sequence = (
            "sequence",
            SegmentKind::Sequence,
            self.sequence_shift(),
            self.sequence_bits(),
            parts.sequence,
        );
        if self.sequence_above_nodes() {
            push(sequence.0, sequence.1, sequence.2, sequence.3, sequence.4);
        }
        for (field, value) in self.node_fields().iter().zip(parts.nodes()) {
            push(
                field.name(),
                SegmentKind::Node,
                field.shift(),
                field.bits(),
                *value,
            );
        }
        if !self.sequence_above_nodes() {
            push(sequence.0, sequence.1, sequence.2, sequence.3, sequence.4);
        }
        Ok(segments)
    }

    /// The smallest ID of the tick holding `timestamp_ms` (for `BETWEEN` queries).
    pub fn min_id(&self, timestamp_ms: i64) -> Result<u64> {
        Ok(self.assemble(self.ticks_at(timestamp_ms)?, 0, 0))
    }

    /// The largest ID of the tick holding `timestamp_ms`.
    pub fn max_id(&self, timestamp_ms: i64) -> Result<u64> {
        let ticks = self.ticks_at(timestamp_ms)?;
        Ok(self.assemble(ticks, 0, 0) | mask(self.time_shift()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_refuses_instead_of_masking() {
        let t = Layout::twitter();
        let e = t.compose(t.epoch_ms(), 0, &[32, 0]).unwrap_err();
        assert_eq!(
            e,
            Error::FieldOutOfRange {
                field: "datacenter_id".into(),
                value: 32,
                max: 31
            }
        );
        assert_eq!(
            t.compose(t.epoch_ms(), 4096, &[0, 0]).unwrap_err().code(),
            "FIELD_OUT_OF_RANGE"
        );
        assert_eq!(
            t.compose(t.epoch_ms() - 1, 0, &[0, 0]).unwrap_err().code(),
            "TIMESTAMP_BEFORE_EPOCH"
        );
        assert_eq!(
            t.compose(t.max_timestamp_ms() + 1, 0, &[0, 0])
                .unwrap_err()
                .code(),
            "TIMESTAMP_OVERFLOW"
        );
    }

    #[test]
    fn explain_covers_all_64_bits_in_order() {
        for name in crate::PRESETS {
            let layout = Layout::preset(name).unwrap();
            let segments = layout.explain(layout.id_mask()).unwrap();
            let mut next = 63i16;
            for s in &segments {
                assert_eq!(i16::from(s.msb), next, "{name}: {s:?}");
                next = i16::from(s.lsb) - 1;
                assert_eq!(s.bits().len(), usize::from(s.width()));
            }
            assert_eq!(next, -1, "{name}");
        }
    }

    #[test]
    fn decode_refuses_unused_bits() {
        let t = Layout::twitter();
        assert_eq!(t.decode(1 << 63).unwrap_err().code(), "FIELD_OUT_OF_RANGE");
    }

    #[test]
    fn min_and_max_bracket_every_id_of_the_tick() {
        let s = Layout::sonyflake();
        let ts = s.epoch_ms() + 12_345;
        let id = s.compose(ts, 7, &[513]).unwrap();
        assert!(s.min_id(ts).unwrap() <= id && id <= s.max_id(ts).unwrap());
        assert_eq!(s.decode(s.max_id(ts).unwrap()).unwrap().sequence, 255);
    }
}
