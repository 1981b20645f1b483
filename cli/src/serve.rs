//! `polyflake serve` (cargo feature `serve`): the ID service. One generator,
//! its identity from the environment (an etcd lease in production), handing
//! out IDs over HTTP as decimal strings; readiness follows the lease and the
//! clock; SIGTERM drains requests and releases the lease.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use polyflake::{ArgumentKind, Encoding, Error, Generator, Layout};
use serde_json::{json, Map, Value};

use crate::failure::Failure;
use crate::{decoded, time};

mod app;
mod grpc;

use app::{issue, App, BUCKETS, MAX_COUNT};

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
    if let Some(other) = query.keys().find(|k| k.as_str() != "count") {
        return invalid(
            ArgumentKind::UnknownName,
            format!("unknown query parameter {other:?}: only count"),
        );
    }
    let count = match query.get("count").map(|c| c.parse::<u64>()) {
        None => 1,
        Some(Ok(n)) if (1..=MAX_COUNT).contains(&n) => n,
        Some(Ok(0)) => return invalid(ArgumentKind::Usage, "count must be at least 1".into()),
        Some(Ok(n)) => {
            return failure(&Error::FieldOutOfRange {
                field: "count".into(),
                value: n,
                max: MAX_COUNT,
            })
        }
        Some(Err(_)) => {
            return invalid(
                ArgumentKind::Usage,
                format!("count must be a whole number from 1 to {MAX_COUNT}"),
            )
        }
    };
    match issue(&app, count).await {
        Ok(ids) => {
            let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
            Json(json!({ "ids": ids })).into_response()
        }
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

/// One Prometheus metric: its help, type and samples (`labels`, value).
fn metric(text: &mut String, name: &str, kind: &str, help: &str, samples: &[(&str, u64)]) {
    text.push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n"));
    for (labels, value) in samples {
        text.push_str(&format!("{name}{labels} {value}\n"));
    }
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    let m = &app.metrics;
    let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let stats = app.generator.stats();
    let mut text = String::new();
    #[rustfmt::skip]
    let counters: [(&str, &str, u64); 4] = [
        ("polyflake_ids_issued_total", "IDs handed out.", load(&m.ids)),
        ("polyflake_batches_total", "Successful /v1/ids requests.", load(&m.batches)),
        ("polyflake_refusals_total", "/v1/ids requests refused (lease or clock).", load(&m.refused)),
        ("polyflake_ceiling_waits_total", "Waits for the next tick because a tick's sequence was spent.", stats.ceiling_waits),
    ];
    for (name, help, value) in counters {
        metric(&mut text, name, "counter", help, &[("", value)]);
    }
    let policy = app.generator.policy().name();
    let labels = |outcome: &str| format!("{{policy=\"{policy}\",outcome=\"{outcome}\"}}");
    let (waited, refused, ran_ahead) = (labels("waited"), labels("refused"), labels("ran_ahead"));
    metric(
        &mut text,
        "polyflake_clock_backwards_total",
        "counter",
        "Calls that found the clock behind the last tick issued, by the backwards policy and what it did.",
        &[
            (&waited, stats.clock_backwards_waited),
            (&refused, stats.clock_backwards_refused),
            (&ran_ahead, stats.clock_backwards_ran_ahead),
        ],
    );
    if let Some(lease) = stats.lease {
        #[rustfmt::skip]
        let leases: [(&str, &str, u64); 3] = [
            ("polyflake_lease_renewals_total", "Renewals of the lease in force.", lease.renewals),
            ("polyflake_lease_losses_total", "Times the lease in force was lost or lapsed unrenewed.", lease.losses),
            ("polyflake_lease_reacquisitions_total", "New leases taken up after the first.", lease.reacquisitions),
        ];
        for (name, help, value) in leases {
            metric(&mut text, name, "counter", help, &[("", value)]);
        }
    }
    metric(
        &mut text,
        "polyflake_ready",
        "gauge",
        "1 while the lease holds and the clock is within policy.",
        &[("", u64::from(app.generator.ready().is_ok()))],
    );
    text.push_str("# HELP polyflake_request_seconds Request latency.\n# TYPE polyflake_request_seconds histogram\n");
    for (bound, count) in BUCKETS.iter().zip(&m.latency) {
        text.push_str(&format!(
            "polyflake_request_seconds_bucket{{le=\"{bound}\"}} {}\n",
            load(count)
        ));
    }
    text.push_str(&format!(
        "polyflake_request_seconds_bucket{{le=\"+Inf\"}} {0}\npolyflake_request_seconds_sum {1}\npolyflake_request_seconds_count {0}\n",
        load(&m.requests),
        load(&m.latency_us) as f64 / 1e6,
    ));
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn timed(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let response = next.run(request).await;
    let took = started.elapsed();
    let m = &app.metrics;
    m.requests.fetch_add(1, Ordering::Relaxed);
    m.latency_us
        .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    for (bound, count) in BUCKETS.iter().zip(&m.latency) {
        if took.as_secs_f64() <= *bound {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
    response
}

fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(include_str!("page.html")) }))
        .route("/v1/ids", get(ids))
        .route("/v1/ids/{id}", get(decode))
        .route("/v1/compose", post(compose))
        .route("/v1/layouts", get(layouts))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .fallback(|| async {
            invalid(
                ArgumentKind::UnknownName,
                "no such endpoint: see /v1/ids, /v1/ids/{id}, /v1/compose, /v1/layouts".into(),
            )
        })
        .layer(middleware::from_fn_with_state(Arc::clone(&app), timed))
        .with_state(app)
}

/// Serves until SIGTERM or SIGINT, then finishes the requests in flight and
/// drops the generator, which releases its lease.
pub fn run(
    generator: Generator,
    listen: SocketAddr,
    grpc_listen: Option<SocketAddr>,
) -> Result<(), Failure> {
    let app = Arc::new(App::new(generator));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| Failure::Serve {
            context: "cannot start the server's runtime".into(),
            error,
        })?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|error| Failure::Serve {
                context: format!("--listen {listen}"),
                error,
            })?;
        eprintln!(
            "polyflake: serving layout {} on http://{} (identity: {})",
            app.layout.name(),
            listener.local_addr().map_err(|error| Failure::Serve {
                context: "the listening socket".into(),
                error,
            })?,
            app.generator.identity_source()
        );
        // One signal stops both faces.
        let (stop, stopping) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            stopped().await;
            let _ = stop.send(true);
        });
        let on_stop = move || {
            let mut stopping = stopping.clone();
            async move {
                let _ = stopping.wait_for(|&stop| stop).await;
            }
        };
        let grpc = match grpc_listen {
            None => None,
            Some(addr) => {
                let grpc_listener =
                    tokio::net::TcpListener::bind(addr)
                        .await
                        .map_err(|error| Failure::Serve {
                            context: format!("--grpc-listen {addr}"),
                            error,
                        })?;
                eprintln!(
                    "polyflake: serving gRPC (polyflake.v1.Ids, health, reflection) on {}",
                    grpc_listener.local_addr().map_err(|error| Failure::Serve {
                        context: "the gRPC socket".into(),
                        error,
                    })?
                );
                Some(tokio::spawn(grpc::serve(
                    Arc::clone(&app),
                    grpc_listener,
                    on_stop(),
                )))
            }
        };
        let http = axum::serve(listener, router(Arc::clone(&app)))
            .with_graceful_shutdown(on_stop())
            .await
            .map_err(|error| Failure::Serve {
                context: "serving".into(),
                error,
            });
        let grpc = match grpc {
            None => Ok(()),
            Some(task) => match task.await {
                Ok(served) => served.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            },
        };
        http?;
        grpc.map_err(|why| Failure::Serve {
            context: "serving gRPC".into(),
            error: std::io::Error::other(why),
        })
    });
    drop(runtime);
    // The last reference: dropping it releases the lease at once.
    drop(app);
    eprintln!("polyflake: stopped; the worker identity is released");
    served
}

#[cfg(unix)]
async fn stopped() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}

/// Windows has no SIGTERM: Ctrl+C, Ctrl+Break and a service stop arrive as
/// console control events, which tokio's `ctrl_c` waits for.
#[cfg(not(unix))]
async fn stopped() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await
    }
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
