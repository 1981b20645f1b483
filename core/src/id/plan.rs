//! Where each field of a layout sits, and the decode that reads them back.
//!
//! Placing the fields is a `const fn`, so a preset's plan is a compile-time
//! constant and its decode compiles to fixed shifts and masks, as fast as a
//! decoder written for one layout; a custom layout runs the same code over a
//! plan built at run time.

/// The most node fields a layout may have. Keeps decoded parts on the stack.
pub const MAX_NODE_FIELDS: usize = 8;

pub(crate) const fn mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Shifts and masks of one layout, derived once from its widths.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Plan {
    pub(crate) epoch_ms: i64,
    pub(crate) tick_ms: u64,
    pub(crate) time_bits: u8,
    pub(crate) time_shift: u8,
    pub(crate) sequence_shift: u8,
    pub(crate) max_sequence: u64,
    pub(crate) id_mask: u64,
    pub(crate) node_count: usize,
    pub(crate) node_shift: [u8; MAX_NODE_FIELDS],
    pub(crate) node_max: [u64; MAX_NODE_FIELDS],
}

impl Plan {
    /// Lays the fields out from the least significant bit up: the sequence
    /// (unless it sits above the nodes), the node fields from the last to
    /// the first, the sequence (if above), then the time. The widths were
    /// validated by the caller (they fit 64 bits, at most `MAX_NODE_FIELDS`).
    pub(crate) const fn place(
        epoch_ms: i64,
        tick_ms: u64,
        time_bits: u8,
        sequence_bits: u8,
        node_bits: [u8; MAX_NODE_FIELDS],
        node_count: usize,
        sequence_above_nodes: bool,
    ) -> Plan {
        let mut shift = 0u8;
        if !sequence_above_nodes {
            shift += sequence_bits;
        }
        let mut node_shift = [0u8; MAX_NODE_FIELDS];
        let mut node_max = [0u64; MAX_NODE_FIELDS];
        let mut i = node_count;
        while i > 0 {
            i -= 1;
            node_shift[i] = shift;
            node_max[i] = mask(node_bits[i]);
            shift += node_bits[i];
        }
        let mut sequence_shift = 0;
        if sequence_above_nodes {
            sequence_shift = shift;
            shift += sequence_bits;
        }
        Plan {
            epoch_ms,
            tick_ms,
            time_bits,
            time_shift: shift,
            sequence_shift,
            max_sequence: mask(sequence_bits),
            id_mask: mask(shift + time_bits),
            node_count,
            node_shift,
            node_max,
        }
    }

    /// Unix milliseconds at the start of a tick.
    #[inline(always)]
    pub(crate) fn timestamp_of(&self, ticks: u64) -> i64 {
        // The span may pass i64::MAX when the epoch is negative; the sum does
        // not (checked when the layout was built), so it wraps back into range.
        self.epoch_ms.wrapping_add((ticks * self.tick_ms) as i64)
    }
}
