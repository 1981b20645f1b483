//! What the CLI's and the service's tests share.

use serde_json::Value;

/// A decoded ID as JSON (`decode --json`, `GET /v1/ids/{id}`) against a
/// golden compose vector: the ID, time, every node field and the sequence.
pub fn assert_decoded(decoded: &Value, case: &Value) {
    assert_eq!(decoded["id"], case["id"]);
    assert_eq!(decoded["layout"], case["layout"]);
    assert_eq!(
        decoded["timestamp_ms"].to_string(),
        case["timestamp_ms"].as_str().unwrap()
    );
    assert_eq!(
        decoded["sequence"].to_string(),
        case["sequence"].as_str().unwrap()
    );
    if let Some(time) = case["time"].as_str() {
        assert_eq!(decoded["time"], time);
    }
    for (field, value) in case["nodes"].as_object().unwrap() {
        assert_eq!(
            decoded[field].to_string(),
            value.as_str().unwrap(),
            "{field}"
        );
    }
}
