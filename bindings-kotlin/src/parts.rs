//! compose / decode / explain / min_id / max_id: wraps `polyflake::parts`.

use crate::error::Result;
use crate::layout::FfiLayout;

/// A node field's value by name.
#[derive(uniffi::Record)]
pub struct FfiNodeValue {
    pub name: String,
    pub value: u64,
}

/// A decoded ID.
#[derive(uniffi::Record)]
pub struct FfiParts {
    pub timestamp_ms: i64,
    pub nodes: Vec<FfiNodeValue>,
    pub sequence: u64,
}

/// One labelled run of an ID's bits.
#[derive(uniffi::Record)]
pub struct FfiSegment {
    pub name: String,
    pub kind: String,
    pub msb: u8,
    pub lsb: u8,
    pub width: u8,
    pub value: u64,
    pub bits: String,
}

#[uniffi::export]
pub fn compose(
    layout: &FfiLayout,
    timestamp_ms: i64,
    sequence: u64,
    nodes: Vec<FfiNodeValue>,
) -> Result<u64> {
    Ok(layout.inner.compose_named(
        timestamp_ms,
        sequence,
        nodes.iter().map(|n| (n.name.as_str(), n.value)),
    )?)
}

#[uniffi::export]
pub fn decode(layout: &FfiLayout, id: u64) -> Result<FfiParts> {
    let parts = layout.inner.decode(id)?;
    Ok(FfiParts {
        timestamp_ms: parts.timestamp_ms,
        nodes: parts
            .fields(&layout.inner)
            .map(|(name, value)| FfiNodeValue {
                name: name.to_owned(),
                value,
            })
            .collect(),
        sequence: parts.sequence,
    })
}

#[uniffi::export]
pub fn explain(layout: &FfiLayout, id: u64) -> Result<Vec<FfiSegment>> {
    Ok(layout
        .inner
        .explain(id)?
        .into_iter()
        .map(|s| FfiSegment {
            kind: s.kind.name().to_owned(),
            bits: s.bits(),
            width: s.width(),
            name: s.name,
            msb: s.msb,
            lsb: s.lsb,
            value: s.value,
        })
        .collect())
}

#[uniffi::export]
pub fn min_id(layout: &FfiLayout, timestamp_ms: i64) -> Result<u64> {
    Ok(layout.inner.min_id(timestamp_ms)?)
}

#[uniffi::export]
pub fn max_id(layout: &FfiLayout, timestamp_ms: i64) -> Result<u64> {
    Ok(layout.inner.max_id(timestamp_ms)?)
}
