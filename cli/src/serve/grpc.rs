//! `polyflake serve --grpc-listen`: the service's gRPC face (tonic), from
//! `cli/proto/polyflake/v1/ids.proto`: `NextIds` (unary and streamed),
//! `Decode` and `Compose` on the same generator as the HTTP face, the
//! standard health service (serving while the replica is ready) and
//! reflection. IDs are `fixed64`.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use polyflake::{Error, Layout};
use polyflake_wire::MAX_COUNT;
use tokio_stream::Stream;
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status};

use super::app::{issue, App};

#[allow(
    clippy::all,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]
mod pb {
    tonic::include_proto!("polyflake.v1");
    pub(crate) const DESCRIPTOR: &[u8] =
        tonic::include_file_descriptor_set!("polyflake_descriptor");
}

use pb::ids_server::{Ids, IdsServer};
use pb::{ComposeRequest, DecodeRequest, NextIdsRequest, NextIdsResponse, NodeValue, Parts};

/// The most IDs one `StreamIds` call may ask for, and the most per message.
const MAX_STREAMED: u64 = 10_000_000;
const PER_MESSAGE: u64 = 10_000;

/// The core's error as a gRPC status: the same classes as the HTTP face's
/// (bad input, not issuing now, the state files), the contract's code and a
/// lost lease's reason in the trailers. Matched by variant: a new one does not
/// compile here until it is answered.
fn status(e: &Error) -> Status {
    let code = match e {
        Error::LeaseLost { .. } | Error::ClockMovedBackwards { .. } => tonic::Code::Unavailable,
        Error::StateIo { .. } => tonic::Code::Internal,
        Error::FieldOutOfRange { .. }
        | Error::TimestampBeforeEpoch { .. }
        | Error::TimestampOverflow { .. } => tonic::Code::OutOfRange,
        Error::InvalidArgument { .. } | Error::InvalidLayout(_) | Error::InvalidEncoding { .. } => {
            tonic::Code::InvalidArgument
        }
    };
    let mut status = Status::new(code, e.to_string());
    let metadata = status.metadata_mut();
    metadata.insert("polyflake-code", MetadataValue::from_static(e.code()));
    if let Some(reason) = e.lease_lost_reason() {
        metadata.insert(
            "polyflake-reason",
            MetadataValue::from_static(reason.name()),
        );
    }
    status
}

/// A count of 1..=`max` (0, proto3's unset, asks for 1).
fn count(n: u32, max: u64) -> Result<u64, Status> {
    match u64::from(n) {
        0 => Ok(1),
        n if n <= max => Ok(n),
        n => Err(status(&Error::FieldOutOfRange {
            field: "count".into(),
            value: n,
            max,
        })),
    }
}

/// A preset by name; empty: the service's own layout.
fn layout(app: &App, name: &str) -> Result<Layout, Status> {
    if name.is_empty() {
        return Ok(app.layout.clone());
    }
    Layout::preset(name).map_err(|e| status(&e))
}

fn parts(layout: &Layout, id: u64) -> Result<Parts, Status> {
    let parts = layout.decode(id).map_err(|e| status(&e))?;
    Ok(Parts {
        id,
        layout: layout.name().to_owned(),
        timestamp_ms: parts.timestamp_ms,
        sequence: parts.sequence,
        nodes: layout
            .node_fields()
            .iter()
            .zip(parts.nodes())
            .map(|(f, &value)| NodeValue {
                name: f.name().to_owned(),
                value,
            })
            .collect(),
    })
}

struct Service {
    app: Arc<App>,
}

type IdStream = Pin<Box<dyn Stream<Item = Result<NextIdsResponse, Status>> + Send>>;

#[tonic::async_trait]
impl Ids for Service {
    async fn next_ids(
        &self,
        request: Request<NextIdsRequest>,
    ) -> Result<Response<NextIdsResponse>, Status> {
        let n = count(request.into_inner().count, MAX_COUNT)?;
        let ids = issue(&self.app, n).await.map_err(|e| status(&e))?;
        Ok(Response::new(NextIdsResponse { ids }))
    }

    type StreamIdsStream = IdStream;

    async fn stream_ids(
        &self,
        request: Request<NextIdsRequest>,
    ) -> Result<Response<IdStream>, Status> {
        let mut left = count(request.into_inner().count, MAX_STREAMED)?;
        // Two messages ahead at most: a slow reader holds back the issuing,
        // not the replica's memory.
        let (tx, rx) = tokio::sync::mpsc::channel(2);
        let app = Arc::clone(&self.app);
        tokio::spawn(async move {
            while left > 0 {
                let n = left.min(PER_MESSAGE);
                let message = issue(&app, n)
                    .await
                    .map(|ids| NextIdsResponse { ids })
                    .map_err(|e| status(&e));
                let failed = message.is_err();
                if tx.send(message).await.is_err() || failed {
                    return; // the client went away, or the stream ends on its error
                }
                left -= n;
            }
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    async fn decode(&self, request: Request<DecodeRequest>) -> Result<Response<Parts>, Status> {
        let request = request.into_inner();
        let layout = layout(&self.app, &request.layout)?;
        Ok(Response::new(parts(&layout, request.id)?))
    }

    async fn compose(&self, request: Request<ComposeRequest>) -> Result<Response<Parts>, Status> {
        let request = request.into_inner();
        let layout = layout(&self.app, &request.layout)?;
        let fields = request
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.value))
            .collect::<Vec<_>>();
        let id = layout
            .node_values(fields)
            .and_then(|nodes| {
                layout.compose(
                    request.timestamp_ms,
                    request.sequence,
                    &nodes[..layout.node_fields().len()],
                )
            })
            .map_err(|e| status(&e))?;
        Ok(Response::new(parts(&layout, id)?))
    }
}

/// Serves gRPC on `listener` until `stop` resolves. The health service says
/// SERVING for the whole server ("") and for `polyflake.v1.Ids` while the
/// generator is ready (its lease held, its clock not too far behind), as
/// /readyz does; it is checked every 200 ms.
pub(crate) async fn serve(
    app: Arc<App>,
    listener: tokio::net::TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), tonic::transport::Error> {
    let (reporter, health) = tonic_health::server::health_reporter();
    let watched = Arc::clone(&app);
    let watcher = tokio::spawn(async move {
        let mut last = None;
        loop {
            let ready = watched.generator.ready().is_ok();
            if last != Some(ready) {
                let status = if ready {
                    tonic_health::ServingStatus::Serving
                } else {
                    tonic_health::ServingStatus::NotServing
                };
                reporter.set_service_status("", status).await;
                reporter
                    .set_service_status("polyflake.v1.Ids", status)
                    .await;
                last = Some(ready);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    // Both versions of reflection: v1 for grpcurl and current clients,
    // v1alpha for the many clients that still ask for it (grpcio-reflection).
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(pb::DESCRIPTOR)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection()
        .build_v1()
        .expect("the descriptor sets built from the protos are valid");
    let reflection_v1alpha = reflection()
        .build_v1alpha()
        .expect("the descriptor sets built from the protos are valid");
    let served = tonic::transport::Server::builder()
        .add_service(health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(IdsServer::new(Service { app }))
        // Without TCP_NODELAY, a reply larger than a segment waits for the
        // client's delayed ACK: 40 ms a call for count=1000 (measured).
        .serve_with_incoming_shutdown(
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
            stop,
        )
        .await;
    watcher.abort();
    served
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replica that must not issue says UNAVAILABLE (another replica may
    /// answer), with the contract's code and the lease's reason; bad input
    /// says which of the client's values is wrong.
    #[test]
    fn errors_are_statuses_with_the_contracts_code() {
        for reason in polyflake::LeaseLostReason::ALL {
            let s = status(&Error::lease_lost(reason, "why".into()));
            assert_eq!(s.code(), tonic::Code::Unavailable);
            assert_eq!(s.metadata().get("polyflake-code").unwrap(), "LEASE_LOST");
            assert_eq!(s.metadata().get("polyflake-reason").unwrap(), reason.name());
        }
        let s = status(&Error::invalid(
            polyflake::ArgumentKind::UnknownName,
            "x".into(),
        ));
        assert_eq!(s.code(), tonic::Code::InvalidArgument);
        assert!(s.metadata().get("polyflake-reason").is_none());
        assert_eq!(count(0, 5).unwrap(), 1);
        assert_eq!(count(5, 5).unwrap(), 5);
        assert_eq!(count(6, 5).unwrap_err().code(), tonic::Code::OutOfRange);
    }
}
