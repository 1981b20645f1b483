//! The ID service's wire format, the one copy both sides compile:
//! `polyflake serve` (`cli/src/serve/`) answers with it and the
//! service-backed generator (`polyflake-service`) asks and reads with it, so
//! that a change to one side cannot compile and then fail the other at run
//! time. A batch is `GET /v1/ids?count=N`, answered `{"ids": ["…", …]}`: the
//! IDs as decimal strings, which keep all 64 bits in any JSON reader. The
//! gRPC face's `count` has the same bounds.

use polyflake::{ArgumentKind, Error};
use serde_json::{json, Value};

/// Where a batch of IDs is asked for.
pub const IDS_PATH: &str = "/v1/ids";
/// The query parameter that says how many.
pub const COUNT: &str = "count";
/// The most IDs one request may ask for, on either face.
pub const MAX_COUNT: u64 = 100_000;
/// The most a client reads of an answer: 4 MiB, above the largest answer a
/// replica sends ([`MAX_COUNT`] IDs of 20 digits, quoted, with commas: about
/// 2.3 MB; a test holds it).
pub const MAX_ANSWER_BYTES: usize = 4 << 20;

/// The request target for `count` IDs: `/v1/ids?count=N`.
pub fn ids_target(count: u64) -> String {
    format!("{IDS_PATH}?{COUNT}={count}")
}

/// The count a request asks for, from its query's pairs: `count` alone, a
/// whole number from 1 to [`MAX_COUNT`], 1 when absent; else the coded error
/// to answer with (`FIELD_OUT_OF_RANGE` past the bound, `INVALID_ARGUMENT`
/// otherwise).
pub fn count_from_query<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<u64, Error> {
    let mut given = None;
    for (key, value) in pairs {
        if key != COUNT {
            return Err(Error::invalid(
                ArgumentKind::UnknownName,
                format!("unknown query parameter {key:?}: only {COUNT}"),
            ));
        }
        given = Some(value);
    }
    let Some(text) = given else {
        return Ok(1);
    };
    let n = text.parse::<u64>().map_err(|_| {
        Error::invalid(
            ArgumentKind::Usage,
            format!("{COUNT} must be a whole number from 1 to {MAX_COUNT}"),
        )
    })?;
    checked_count(n, MAX_COUNT)
}

/// A count of 1 to `max` as given (0 is refused: the HTTP face's `count`
/// and the client's batch); `max` is [`MAX_COUNT`] but for a stream's total.
pub fn checked_count(n: u64, max: u64) -> Result<u64, Error> {
    match n {
        0 => Err(Error::invalid(
            ArgumentKind::Usage,
            format!("{COUNT} must be at least 1"),
        )),
        n if n <= max => Ok(n),
        n => Err(Error::FieldOutOfRange {
            field: COUNT.into(),
            value: n,
            max,
        }),
    }
}

/// The answer to a batch request: `{"ids": ["…", …]}`.
pub fn ids_answer(ids: &[u64]) -> Value {
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    json!({ "ids": ids })
}

/// The IDs of an answer to a request for `count`: exactly `count` decimal
/// strings, or what is wrong with it (for the client's log of failures).
pub fn ids_from_answer(body: &[u8], count: usize) -> Result<Vec<u64>, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let list = value["ids"]
        .as_array()
        .ok_or("the answer has no list \"ids\"")?;
    if list.len() != count {
        return Err(format!("asked for {count} IDs, got {}", list.len()));
    }
    list.iter()
        .map(|id| {
            id.as_str()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| format!("{id} is not an ID's decimal string"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_round_trips_every_bit_and_a_bad_one_is_named() {
        let ids = [0, 1, 1 << 63, u64::MAX];
        let body = serde_json::to_vec(&ids_answer(&ids)).unwrap();
        // The IDs travel as strings, never as JSON numbers.
        assert_eq!(
            String::from_utf8(body.clone()).unwrap(),
            r#"{"ids":["0","1","9223372036854775808","18446744073709551615"]}"#
        );
        assert_eq!(ids_from_answer(&body, 4).unwrap(), ids);
        for (bad, why) in [
            (&br#"{"ids": ["1"]}"#[..], "asked for 2"),
            (br#"{"ids": [1, 2]}"#, "decimal string"),
            (
                br#"{"ids": ["1", "18446744073709551616"]}"#,
                "decimal string",
            ),
            (br#"{"id": ["1", "2"]}"#, "no list"),
            (br#"{"code": "X"}"#, "no list"),
            (b"<html>", "not JSON"),
        ] {
            let err = ids_from_answer(bad, 2).unwrap_err();
            assert!(err.contains(why), "{err}");
        }
    }

    #[test]
    fn the_largest_answer_fits_the_clients_bound() {
        let ids = vec![u64::MAX; MAX_COUNT as usize];
        let body = serde_json::to_vec(&ids_answer(&ids)).unwrap();
        assert!(body.len() <= MAX_ANSWER_BYTES, "{} bytes", body.len());
    }

    #[test]
    fn a_count_is_a_whole_number_within_the_bound_else_a_coded_error() {
        assert_eq!(ids_target(250), "/v1/ids?count=250");
        assert_eq!(count_from_query([]).unwrap(), 1);
        assert_eq!(count_from_query([("count", "1")]).unwrap(), 1);
        assert_eq!(count_from_query([("count", "100000")]).unwrap(), 100_000);
        let past = count_from_query([("count", "100001")]).unwrap_err();
        assert!(matches!(
            past,
            Error::FieldOutOfRange {
                value: 100_001,
                max: 100_000,
                ..
            }
        ));
        for (query, kind) in [
            (vec![("count", "0")], ArgumentKind::Usage),
            (vec![("count", "-1")], ArgumentKind::Usage),
            (vec![("count", "1e3")], ArgumentKind::Usage),
            (vec![("count", "")], ArgumentKind::Usage),
            (vec![("count", "18446744073709551616")], ArgumentKind::Usage),
            (vec![("limit", "5")], ArgumentKind::UnknownName),
            (vec![("count", "5"), ("x", "1")], ArgumentKind::UnknownName),
        ] {
            match count_from_query(query.clone()) {
                Err(Error::InvalidArgument { kind: got, .. }) => assert_eq!(got, kind, "{query:?}"),
                other => panic!("{query:?}: {other:?}"),
            }
        }
    }
}
