//! IDs in serde formats as decimal strings: they pass 2^53 in every preset,
//! where JSON numbers lose precision. A bare number is refused on input.
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Row {
//!     #[serde(with = "polyflake::serde_id")]
//!     id: u64,
//! }
//! let row: Row = serde_json::from_str(r#"{"id":"1288834974657"}"#).unwrap();
//! assert_eq!(serde_json::to_string(&row).unwrap(), r#"{"id":"1288834974657"}"#);
//! assert!(serde_json::from_str::<Row>(r#"{"id":1288834974657}"#).is_err());
//! ```

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

use crate::id::encoding::Encoding;

/// Writes an ID as its decimal string.
pub fn serialize<S: Serializer>(id: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(Encoding::Decimal.encode(*id).as_str().unwrap_or_default())
}

/// Reads an ID from a canonical decimal string only.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    deserializer.deserialize_str(IdVisitor)
}

struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an ID as a decimal string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<u64, E> {
        Encoding::Decimal.parse(text).map_err(E::custom)
    }
}

/// The same for `Option<u64>` (`null` for `None`).
pub mod option {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `Some(id)` as a decimal string, `None` as null.
    pub fn serialize<S: Serializer>(id: &Option<u64>, serializer: S) -> Result<S::Ok, S::Error> {
        match id {
            Some(id) => super::serialize(id, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Reads a decimal string or null.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<u64>, D::Error> {
        #[derive(Deserialize)]
        struct Wrapped(#[serde(with = "super")] u64);
        Ok(Option::<Wrapped>::deserialize(deserializer)?.map(|w| w.0))
    }
}
