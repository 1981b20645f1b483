//! What both faces of `polyflake serve` share: the generator, its metrics,
//! the log of the identity IDs are issued under, and issuing itself.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use polyflake::{ArgumentKind, Error, Generator, Layout};

use super::metrics::Metrics;
use crate::time;

pub(crate) struct App {
    pub(crate) generator: Generator,
    pub(crate) layout: Layout,
    pub(crate) metrics: Metrics,
    /// The node bits of the last batch issued, to log each change of identity.
    issuing_as: AtomicU64,
}

impl App {
    pub(crate) fn new(generator: Generator) -> App {
        App {
            layout: generator.layout().clone(),
            generator,
            metrics: Metrics::default(),
            issuing_as: AtomicU64::new(u64::MAX),
        }
    }

    /// Logs the node values IDs are issued under whenever they change, with
    /// the time of the first ID under them: an audit trail for the IDs.
    fn note_identity(&self, first: u64) {
        let Ok(parts) = self.layout.decode(first) else {
            return;
        };
        let Ok(bits) = self.layout.node_bits(parts.nodes()) else {
            return;
        };
        if self.issuing_as.swap(bits, Ordering::Relaxed) != bits {
            let fields: Vec<String> = self
                .layout
                .node_fields()
                .iter()
                .zip(parts.nodes())
                .map(|(f, v)| format!("{}={v}", f.name()))
                .collect();
            eprintln!(
                "polyflake: issuing as {} from {} ms ({}); identity: {}",
                fields.join(" "),
                parts.timestamp_ms,
                time::iso(parts.timestamp_ms),
                self.generator.identity_source()
            );
        }
    }
}

/// `count` increasing IDs for a request of either face, counted in the
/// metrics and their identity logged. A batch can wait for several ticks:
/// it runs off the async workers.
pub(crate) async fn issue(app: &Arc<App>, count: u64) -> Result<Vec<u64>, Error> {
    let issued = if count == 1 {
        app.generator.next_id().map(|id| vec![id])
    } else {
        let worker = Arc::clone(app);
        match tokio::task::spawn_blocking(move || worker.generator.next_ids(count as usize)).await {
            Ok(result) => result,
            Err(e) => Err(Error::invalid(
                ArgumentKind::Usage,
                format!("the batch failed: {e}"),
            )),
        }
    };
    match &issued {
        Ok(ids) => {
            app.note_identity(ids[0]);
            app.metrics.ids.fetch_add(count, Ordering::Relaxed);
            app.metrics.batches.fetch_add(1, Ordering::Relaxed);
        }
        Err(_) => {
            app.metrics.refused.fetch_add(1, Ordering::Relaxed);
        }
    }
    issued
}
