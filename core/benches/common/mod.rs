//! The floors decode is measured against: hand-written decoders of the
//! `snowflake` shape (41 time bits, 10 node, 12 sequence), which keep the
//! contract's refusal of an ID with its unused top bit set.

/// snowflaked's fixed shifts plus that refusal.
#[inline(always)]
pub fn checked_floor(id: u64) -> Option<(u64, u64, u64)> {
    if id >> 63 != 0 {
        return None;
    }
    Some((id >> 22, (id >> 12) & 0x3ff, id & 0xfff))
}

/// The same decoder with its shift amounts and masks held as data, as any
/// decoder holds them when the layout is chosen at run time.
pub struct RuntimePlan {
    id_mask: u64,
    time_shift: u32,
    node_shift: u32,
    node_mask: u64,
    sequence_shift: u32,
    sequence_mask: u64,
}

impl RuntimePlan {
    pub fn snowflake() -> RuntimePlan {
        RuntimePlan {
            id_mask: u64::MAX >> 1,
            time_shift: 22,
            node_shift: 12,
            node_mask: 0x3ff,
            sequence_shift: 0,
            sequence_mask: 0xfff,
        }
    }

    #[inline(always)]
    pub fn decode(&self, id: u64) -> Option<(u64, u64, u64)> {
        if id & !self.id_mask != 0 {
            return None;
        }
        Some((
            id >> self.time_shift,
            (id >> self.node_shift) & self.node_mask,
            (id >> self.sequence_shift) & self.sequence_mask,
        ))
    }
}
