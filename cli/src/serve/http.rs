//! `polyflake serve`'s HTTP face: its handlers, which check a request,
//! issue or convert through the core and write the answer (IDs as decimal
//! strings, in the format of `polyflake-wire` for batches), and the router.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use polyflake::{ArgumentKind, Encoding, Error, Layout};
use serde_json::{json, Map, Value};

use super::app::{issue, App};
use super::metrics;
use crate::render::decoded;
use crate::time;

/// `{ "code": ..., "message": ... }` and what the error's variant adds: the
/// field and its max, a lost lease's `reason` and `retryable`, an invalid
/// argument's `kind`. 503 while this replica must not issue (lease or
/// clock), with `Retry-After` when waiting can help; 500 for its state
/// files; else 400. Matched by variant: a new one does not compile here
/// until it is answered.
fn failure(e: &Error) -> Response {
    let mut body = json!({ "code": e.code(), "message": e.to_string() });
    let status = match e {
        Error::LeaseLost { reason, .. } => {
            body["reason"] = json!(reason.name());
            body["retryable"] = json!(reason.retryable());
            StatusCode::SERVICE_UNAVAILABLE
        }
        Error::ClockMovedBackwards { .. } => StatusCode::SERVICE_UNAVAILABLE,
        Error::StateIo { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        Error::FieldOutOfRange { field, max, .. } => {
            body["field"] = json!(field);
            body["max"] = json!(max.to_string());
            StatusCode::BAD_REQUEST
        }
        Error::InvalidArgument { kind, .. } => {
            body["kind"] = json!(kind.name());
            StatusCode::BAD_REQUEST
        }
        Error::TimestampBeforeEpoch { .. }
        | Error::TimestampOverflow { .. }
        | Error::InvalidLayout(_)
        | Error::InvalidEncoding { .. } => StatusCode::BAD_REQUEST,
    };
    let mut response = (status, Json(body)).into_response();
    if e.retryable() && status == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            "1".parse().expect("a header value"),
        );
    }
    response
}

fn invalid(kind: ArgumentKind, message: String) -> Response {
    failure(&Error::invalid(kind, message))
}

async fn ids(
    State(app): State<Arc<App>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let pairs = query
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_str()));
    let count = match polyflake_wire::count_from_query(pairs) {
        Ok(count) => count,
        Err(e) => return failure(&e),
    };
    match issue(&app, count).await {
        Ok(ids) => Json(polyflake_wire::ids_answer(&ids)).into_response(),
        Err(e) => failure(&e),
    }
}

async fn decode(
    State(app): State<Arc<App>>,
    Path(text): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(other) = query
        .keys()
        .find(|k| !matches!(k.as_str(), "encoding" | "layout"))
    {
        return invalid(
            ArgumentKind::UnknownName,
            format!("unknown query parameter {other:?}: only encoding and layout"),
        );
    }
    let layout = match query.get("layout").map(|name| Layout::preset(name)) {
        None => app.layout.clone(),
        Some(Ok(layout)) => layout,
        Some(Err(e)) => return failure(&e),
    };
    let encoding =
        match Encoding::from_name(query.get("encoding").map_or("decimal", String::as_str)) {
            Ok(e) if e.is_binary() => {
                return invalid(
                    ArgumentKind::Usage,
                    "encoding bytes does not travel in a URL: use hex".into(),
                )
            }
            Ok(e) => e,
            Err(e) => return failure(&e),
        };
    match encoding
        .parse(text.as_bytes())
        .and_then(|id| Ok((id, layout.decode(id)?)))
    {
        Ok((id, parts)) => Json(decoded(&layout, id, &parts)).into_response(),
        Err(e) => failure(&e),
    }
}

/// `{ "layout"?: preset, "timestamp": ms | "ms" | ISO-8601 | omitted (now), "sequence": n,
/// <node field>: n }`; the service's layout unless another preset is named.
async fn compose(State(app): State<Arc<App>>, body: axum::body::Bytes) -> Response {
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&body) else {
        return invalid(
            ArgumentKind::Usage,
            "the body must be a JSON object: timestamp, sequence and the node fields".into(),
        );
    };
    // A field's value: a JSON number, or its decimal string.
    let number = |name: &str, value: &Value| -> Result<u64, String> {
        match value {
            Value::Number(n) => n.as_u64(),
            Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                s.parse().ok()
            }
            _ => None,
        }
        .ok_or_else(|| {
            format!("{name} must be a non-negative whole number (or its decimal string)")
        })
    };
    let timestamp = match body.get("timestamp") {
        None | Some(Value::Null) => time::now_ms(),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(ms) => ms,
            None => {
                return invalid(
                    ArgumentKind::Usage,
                    "timestamp must be whole Unix milliseconds".into(),
                )
            }
        },
        Some(Value::String(s)) => match time::parse_timestamp(s) {
            Ok(ms) => ms,
            Err(e) => {
                return invalid(
                    ArgumentKind::Usage,
                    e.replacen("--timestamp", "timestamp", 1),
                )
            }
        },
        Some(_) => {
            return invalid(
                ArgumentKind::Usage,
                "timestamp must be Unix milliseconds or ISO-8601".into(),
            )
        }
    };
    let layout = match body.get("layout") {
        None => app.layout.clone(),
        Some(Value::String(name)) => match Layout::preset(name) {
            Ok(layout) => layout,
            Err(e) => return failure(&e),
        },
        Some(_) => return invalid(ArgumentKind::Usage, "layout must be a preset's name".into()),
    };
    let mut sequence = 0;
    let mut fields = Vec::new();
    for (name, value) in &body {
        match name.as_str() {
            "timestamp" | "layout" => {}
            "sequence" => match number(name, value) {
                Ok(n) => sequence = n,
                Err(why) => return invalid(ArgumentKind::Usage, why),
            },
            field => match number(field, value) {
                Ok(n) => fields.push((field, n)),
                Err(why) => return invalid(ArgumentKind::Usage, why),
            },
        }
    }
    let layout = &layout;
    let composed = layout
        .node_values(fields)
        .and_then(|nodes| layout.compose(timestamp, sequence, &nodes[..layout.node_fields().len()]))
        .and_then(|id| Ok((id, layout.decode(id)?)));
    match composed {
        Ok((id, parts)) => {
            let mut out = decoded(layout, id, &parts);
            let encodings: Map<String, Value> = Encoding::ALL
                .iter()
                .filter(|e| !e.is_binary())
                .map(|e| (e.name().to_owned(), json!(e.encode(id).to_string())))
                .collect();
            let segments: Vec<Value> = layout
                .explain(id)
                .unwrap_or_default()
                .iter()
                .map(|s| json!({ "name": s.name, "kind": s.kind.name(), "msb": s.msb, "lsb": s.lsb, "value": s.value.to_string(), "bits": s.bits() }))
                .collect();
            if let Value::Object(map) = &mut out {
                map.insert("encodings".into(), Value::Object(encodings));
                map.insert("segments".into(), Value::Array(segments));
            }
            Json(out).into_response()
        }
        Err(e) => failure(&e),
    }
}

async fn layouts() -> Json<Value> {
    let all: Vec<Value> = polyflake::PRESETS
        .iter()
        .filter_map(|name| Layout::preset(name).ok())
        .map(|l| {
            json!({
                "name": l.name(),
                "epoch_ms": l.epoch_ms(),
                "tick_ms": l.tick_ms(),
                "time_bits": l.time_bits(),
                "sequence_bits": l.sequence_bits(),
                "max_sequence": l.max_sequence(),
                "nodes": l.node_fields().iter().map(|f| json!({ "name": f.name(), "bits": f.bits(), "max": f.max() })).collect::<Vec<_>>(),
                "runs_out": time::iso(l.max_timestamp_ms()),
            })
        })
        .collect();
    Json(json!({ "layouts": all }))
}

async fn ready(State(app): State<Arc<App>>) -> Response {
    match app.generator.ready() {
        Ok(()) => (StatusCode::OK, "ready\n").into_response(),
        Err(e) => failure(&e),
    }
}

/// `GET /metrics`, in Prometheus's text format (`metrics.rs`).
async fn exposition(State(app): State<Arc<App>>) -> Response {
    let text = metrics::exposition(&app.metrics, &app.generator);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

/// Times each request into the latency histogram.
async fn timed(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let response = next.run(request).await;
    app.metrics.record(started.elapsed());
    response
}

/// The HTTP face: every endpoint, each request timed into the metrics.
pub(super) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(include_str!("../page.html")) }))
        .route(polyflake_wire::IDS_PATH, get(ids))
        .route("/v1/ids/{id}", get(decode))
        .route("/v1/compose", post(compose))
        .route("/v1/layouts", get(layouts))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(exposition))
        .fallback(|| async {
            invalid(
                ArgumentKind::UnknownName,
                "no such endpoint: see /v1/ids, /v1/ids/{id}, /v1/compose, /v1/layouts".into(),
            )
        })
        .layer(middleware::from_fn_with_state(Arc::clone(&app), timed))
        .with_state(app)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason a lease is lost for answers 503 with its name and whether
    /// waiting helps; a retryable one says when to ask again.
    #[test]
    fn each_lost_lease_answers_503_with_its_reason() {
        for reason in polyflake::LeaseLostReason::ALL {
            let response = failure(&Error::lease_lost(reason, "why".into()));
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(
                response
                    .headers()
                    .contains_key(axum::http::header::RETRY_AFTER),
                reason.retryable(),
                "{reason:?}"
            );
            let body = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(axum::body::to_bytes(response.into_body(), 4096))
                .unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body["code"], json!("LEASE_LOST"));
            assert_eq!(body["reason"], json!(reason.name()), "{body}");
            assert_eq!(body["retryable"], json!(reason.retryable()), "{body}");
        }
        let response = failure(&Error::invalid(ArgumentKind::UnknownName, "x".into()));
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }
}
