//! The high-water mark of one node value, kept in etcd beside its worker key.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use etcd_client::{Client, Compare, CompareOp, PutOptions, Txn, TxnOp};
use polyflake::{Error, MarkStore, Result};
use tokio::runtime::Handle;

/// `<prefix>/<layout>/marks/<n>`: not attached to any lease, so it outlives
/// its writer; written only while the writer's lease holds
/// `<prefix>/<layout>/workers/<n>`.
pub struct EtcdMark {
    client: Client,
    runtime: Handle,
    worker_key: String,
    mark_key: String,
    lease_id: i64,
    timeout: Duration,
}

impl fmt::Debug for EtcdMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EtcdMark")
            .field("mark_key", &self.mark_key)
            .field("worker_key", &self.worker_key)
            .field("lease_id", &format_args!("{:x}", self.lease_id))
            .finish()
    }
}

impl EtcdMark {
    pub(crate) fn new(
        client: Client,
        runtime: Handle,
        worker_key: String,
        mark_key: String,
        lease_id: i64,
        timeout: Duration,
    ) -> Self {
        EtcdMark {
            client,
            runtime,
            worker_key,
            mark_key,
            lease_id,
            timeout,
        }
    }

    /// The key the mark is kept at.
    pub fn key(&self) -> &str {
        &self.mark_key
    }

    fn lost(&self, why: impl fmt::Display) -> Error {
        Error::LeaseLost(format!("high-water mark {}: {why}", self.mark_key))
    }

    /// Runs `work` on the lease's runtime and waits for it from this thread,
    /// which may itself be inside another async runtime (a caller's).
    fn on_runtime<T: Send + 'static>(
        &self,
        work: impl Future<Output = std::result::Result<T, etcd_client::Error>> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let timeout = self.timeout;
        self.runtime.spawn(async move {
            let _ = tx.send(tokio::time::timeout(timeout, work).await);
        });
        match rx.recv_timeout(timeout + Duration::from_secs(1)) {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err(e))) => Err(self.lost(format!("etcd refused ({e})"))),
            Ok(Err(_)) | Err(_) => {
                Err(self.lost(format!("etcd did not answer within {timeout:?}")))
            }
        }
    }
}

impl MarkStore for EtcdMark {
    fn load(&self) -> Result<Option<i64>> {
        let mut client = self.client.clone();
        let key = self.mark_key.clone();
        let response = self.on_runtime(async move { client.get(key, None).await })?;
        let Some(kv) = response.kvs().first() else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(kv.value()).into_owned();
        text.trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| self.lost(format!("is corrupt: holds {text:?}, not a timestamp")))
    }

    fn persist(&self, until_ms: i64) -> Result<()> {
        let mut client = self.client.clone();
        let txn = Txn::new()
            .when([Compare::lease(
                self.worker_key.as_str(),
                CompareOp::Equal,
                self.lease_id,
            )])
            .and_then([TxnOp::put(
                self.mark_key.as_str(),
                until_ms.to_string(),
                None::<PutOptions>,
            )]);
        let response = self.on_runtime(async move { client.txn(txn).await })?;
        if response.succeeded() {
            Ok(())
        } else {
            Err(self.lost(format!(
                "not written: {} is no longer held by lease {:x}",
                self.worker_key, self.lease_id
            )))
        }
    }
}
