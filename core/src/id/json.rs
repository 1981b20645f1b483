//! How IDs appear in JSON: always as strings, under keys that say they are
//! IDs. The bindings' JSON helpers and `serde_id` follow these rules.

/// Whether a JSON key names an ID, or a list of IDs, under the one rule the
/// bindings' JSON helpers follow when they read (and Python's when it
/// writes): `id`, `ids`, or a name ending in `_id`, `_ids`, `Id`, `Ids`,
/// `ID` or `IDs` (`user_id`, `orderIds`, `parentID`). `paid` and `uuid` are
/// not ID keys.
pub fn is_id_key(key: &str) -> bool {
    const SUFFIXES: [&str; 6] = ["_id", "_ids", "Id", "Ids", "ID", "IDs"];
    key == "id"
        || key == "ids"
        || SUFFIXES
            .iter()
            .any(|s| key.len() > s.len() && key.ends_with(s))
}

#[cfg(test)]
mod id_key_tests {
    use super::is_id_key;

    #[test]
    fn names_that_are_and_are_not_id_keys() {
        for key in [
            "id",
            "ids",
            "user_id",
            "order_ids",
            "userId",
            "orderIds",
            "parentID",
            "childIDs",
        ] {
            assert!(is_id_key(key), "{key}");
        }
        for key in [
            "", "Id", "_id", "paid", "uuid", "idx", "identity", "valid", "ID", "name",
        ] {
            assert!(!is_id_key(key), "{key}");
        }
    }
}
