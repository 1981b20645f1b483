//! The ID's bits: layouts, where their fields sit, compose and decode, the
//! text encodings and the JSON rules. Pure: no clock, no file, no network,
//! and nothing from the generator or the identity imported here.

pub mod encoding;
pub mod json;
pub mod layout;
pub mod parts;
mod plan;
#[cfg(feature = "serde")]
pub mod serde_id;
