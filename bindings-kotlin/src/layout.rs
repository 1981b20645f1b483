//! `FfiLayout`: wraps `polyflake::Layout`.

use std::sync::Arc;

use crate::error::Result;

/// A node field of a layout.
#[derive(uniffi::Record)]
pub struct FfiNodeField {
    pub name: String,
    pub bits: u8,
}

#[derive(uniffi::Object, PartialEq, Eq, Hash)]
pub struct FfiLayout {
    pub(crate) inner: polyflake::Layout,
}

#[uniffi::export]
impl FfiLayout {
    #[uniffi::constructor]
    pub fn preset(name: String) -> Result<Arc<Self>> {
        Ok(Arc::new(FfiLayout {
            inner: polyflake::Layout::preset(&name)?,
        }))
    }

    #[uniffi::constructor]
    pub fn custom(
        epoch_ms: i64,
        time_bits: u8,
        nodes: Vec<FfiNodeField>,
        sequence_bits: u8,
        tick_ms: u64,
        sequence_above_nodes: bool,
    ) -> Result<Arc<Self>> {
        let mut builder = polyflake::Layout::custom(epoch_ms, time_bits)
            .sequence_bits(sequence_bits)
            .tick_ms(tick_ms)
            .sequence_above_nodes(sequence_above_nodes);
        for node in nodes {
            builder = builder.node(node.name, node.bits);
        }
        Ok(Arc::new(FfiLayout {
            inner: builder.build()?,
        }))
    }

    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }
    pub fn epoch_ms(&self) -> i64 {
        self.inner.epoch_ms()
    }
    pub fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }
    pub fn time_bits(&self) -> u8 {
        self.inner.time_bits()
    }
    pub fn sequence_bits(&self) -> u8 {
        self.inner.sequence_bits()
    }
    pub fn sequence_above_nodes(&self) -> bool {
        self.inner.sequence_above_nodes()
    }
    pub fn max_sequence(&self) -> u64 {
        self.inner.max_sequence()
    }
    pub fn unused_bits(&self) -> u8 {
        self.inner.unused_bits()
    }
    pub fn max_timestamp_ms(&self) -> i64 {
        self.inner.max_timestamp_ms()
    }
    pub fn nodes(&self) -> Vec<FfiNodeField> {
        self.inner
            .node_fields()
            .iter()
            .map(|f| FfiNodeField {
                name: f.name().to_owned(),
                bits: f.bits(),
            })
            .collect()
    }
    pub fn same_as(&self, other: &FfiLayout) -> bool {
        self.inner == other.inner
    }

    /// Where Kotlin's `decode` finds each field (ADR 0004: the core places
    /// the fields, Kotlin only applies the shifts and masks): the mask of
    /// valid bits, the epoch, the tick length, the time's shift, the
    /// sequence's shift and mask, then each node field's shift and mask.
    /// Masks are the 64 bits as a `Long`.
    pub fn decode_plan(&self) -> Vec<i64> {
        let l = &self.inner;
        let mut plan = vec![
            l.id_mask() as i64,
            l.epoch_ms(),
            l.tick_ms() as i64,
            i64::from(l.time_shift()),
            i64::from(l.sequence_shift()),
            l.max_sequence() as i64,
        ];
        for field in l.node_fields() {
            plan.extend([i64::from(field.shift()), field.max() as i64]);
        }
        plan
    }
}

/// The preset names.
#[uniffi::export]
pub fn preset_names() -> Vec<String> {
    polyflake::PRESETS.iter().map(|p| (*p).to_owned()).collect()
}
