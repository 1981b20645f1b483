//! JSON: IDs as decimal strings, a bare number refused.
#![cfg(feature = "serde")]

use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Row {
    #[serde(with = "polyflake::serde_id")]
    id: u64,
    #[serde(with = "polyflake::serde_id::option", default)]
    parent: Option<u64>,
}

#[test]
fn ids_are_strings_both_ways() {
    let row = Row {
        id: u64::MAX,
        parent: Some(13587),
    };
    let text = serde_json::to_string(&row).unwrap();
    assert_eq!(text, r#"{"id":"18446744073709551615","parent":"13587"}"#);
    assert_eq!(serde_json::from_str::<Row>(&text).unwrap(), row);
    let none: Row = serde_json::from_str(r#"{"id":"1","parent":null}"#).unwrap();
    assert_eq!(none.parent, None);
}

#[test]
fn bare_numbers_and_bad_text_are_refused() {
    // bwmarrin/snowflake TestUnmarshalJSON refuses `1` the same way.
    assert!(serde_json::from_str::<Row>(r#"{"id":1}"#).is_err());
    assert!(serde_json::from_str::<Row>(r#"{"id":"18446744073709551616"}"#).is_err());
    assert!(serde_json::from_str::<Row>(r#"{"id":"-1"}"#).is_err());
    assert!(serde_json::from_str::<Row>(r#"{"id":"12","parent":12}"#).is_err());
}
