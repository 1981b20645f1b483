//! `polyflake serve` (cargo feature `serve`): the ID service. One generator,
//! its identity from the environment (an etcd lease in production), handing
//! out IDs over HTTP (`http.rs`) and gRPC (`grpc.rs`) as decimal strings and
//! `fixed64`s; readiness follows the lease and the clock. This file is the
//! lifecycle: the runtime, the listeners, and SIGTERM, which drains requests
//! and releases the lease. What both faces share is `app.rs`; the metrics are
//! `metrics.rs`.

use std::net::SocketAddr;
use std::sync::Arc;

use polyflake::Generator;

use crate::failure::Failure;

mod app;
mod grpc;
mod http;
mod metrics;

use app::App;

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
        let http = axum::serve(listener, http::router(Arc::clone(&app)))
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
