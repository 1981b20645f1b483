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

    /// A handle for `polyflake_decode`, given back to `polyflake_layout_release` once.
    pub fn fast_handle(&self) -> u64 {
        Arc::into_raw(Arc::new(self.inner.clone())) as usize as u64
    }
}

/// Writes `[timestampMs, sequence, ...node fields]` of `id` into `out`
/// (at least 2 + node fields long); returns 0, or -1 when `id` is not an ID
/// of the layout (the caller then asks `decode` for the typed error).
///
/// # Safety
/// `handle` comes from `fast_handle`, not yet released; `out` holds `len` longs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn polyflake_decode(handle: u64, id: i64, out: *mut i64, len: i32) -> i32 {
    let layout = unsafe { &*(handle as usize as *const polyflake::Layout) };
    let wanted = 2 + layout.node_fields().len();
    if out.is_null() || len < wanted as i32 {
        return -1;
    }
    let out = unsafe { std::slice::from_raw_parts_mut(out, wanted) };
    match layout.decode(id as u64) {
        Ok(parts) => {
            out[0] = parts.timestamp_ms;
            out[1] = parts.sequence as i64;
            for (slot, value) in out[2..].iter_mut().zip(parts.nodes()) {
                *slot = *value as i64;
            }
            0
        }
        Err(_) => -1,
    }
}

/// Gives back a handle from `fast_handle`.
///
/// # Safety
/// `handle` comes from `fast_handle`, released once, after its last use.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn polyflake_layout_release(handle: u64) {
    drop(unsafe { Arc::from_raw(handle as usize as *const polyflake::Layout) });
}

/// The preset names.
#[uniffi::export]
pub fn preset_names() -> Vec<String> {
    polyflake::PRESETS.iter().map(|p| (*p).to_owned()).collect()
}
