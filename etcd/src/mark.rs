//! The high-water mark of one node value, kept in etcd beside its worker key.
//!
//! A generator must never wait on the network to issue an ID, so the mark is
//! written ahead of need by the keep-alive thread: a lease's length past the
//! clock at every renewal. The generator's own `persist` calls only compare
//! with what etcd has confirmed; when they ask for more, they wake the thread
//! and are refused at once.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use etcd_client::{Client, Compare, CompareOp, PutOptions, Txn, TxnOp};
use polyflake::{Error, LeaseLostReason, MarkStore, Result};
use tokio::sync::Notify;

/// `<prefix>/<layout>/marks/<n>`: not attached to any lease, so it outlives
/// its writer; written only while the writer's lease holds
/// `<prefix>/<layout>/workers/<n>`.
pub struct EtcdMark {
    worker_key: String,
    mark_key: String,
    lease_id: i64,
    /// What the key held when the value was claimed (the previous holder's).
    previous: Option<i64>,
    /// What etcd has accepted: IDs up to it may be issued.
    confirmed: AtomicI64,
    /// The furthest the generator has asked to be covered.
    requested: AtomicI64,
    pub(crate) wanted: Arc<Notify>,
}

impl fmt::Debug for EtcdMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EtcdMark")
            .field("mark_key", &self.mark_key)
            .field("worker_key", &self.worker_key)
            .field("lease_id", &format_args!("{:x}", self.lease_id))
            .field("confirmed", &self.confirmed.load(Ordering::Relaxed))
            .finish()
    }
}

impl EtcdMark {
    /// Reads the mark of a value just claimed with `lease_id`.
    pub(crate) async fn read(
        client: &mut Client,
        worker_key: String,
        mark_key: String,
        lease_id: i64,
    ) -> Result<EtcdMark> {
        let response = client.get(mark_key.as_str(), None).await.map_err(|e| {
            lost(
                &mark_key,
                LeaseLostReason::Unreachable,
                format!("cannot be read ({e})"),
            )
        })?;
        let previous = match response.kvs().first() {
            None => None,
            Some(kv) => {
                let text = String::from_utf8_lossy(kv.value()).into_owned();
                Some(text.trim().parse::<i64>().map_err(|_| {
                    lost(
                        &mark_key,
                        LeaseLostReason::StateUnsafe,
                        format!("is corrupt: holds {text:?}, not a timestamp"),
                    )
                })?)
            }
        };
        Ok(EtcdMark {
            worker_key,
            mark_key,
            lease_id,
            previous,
            confirmed: AtomicI64::new(i64::MIN),
            requested: AtomicI64::new(i64::MIN),
            wanted: Arc::new(Notify::new()),
        })
    }

    /// The key the mark is kept at.
    pub fn key(&self) -> &str {
        &self.mark_key
    }

    /// Moves the mark to `lead_ms` past the clock (or past what the
    /// generator asked for, if that is later). Never lowers it.
    pub(crate) async fn extend(
        &self,
        client: &mut Client,
        now_ms: i64,
        lead_ms: i64,
    ) -> Result<()> {
        let until = now_ms
            .max(self.requested.load(Ordering::Acquire))
            .max(self.previous.unwrap_or(i64::MIN))
            .saturating_add(lead_ms);
        if until <= self.confirmed.load(Ordering::Acquire) {
            return Ok(());
        }
        self.write(client, until, Some(now_ms)).await?;
        self.confirmed.fetch_max(until, Ordering::AcqRel);
        Ok(())
    }

    /// On a clean stop: brings the mark back to what the generator was
    /// actually covered for, so that a successor need not wait out the lead.
    /// Only called once the generator is gone.
    pub(crate) async fn settle(&self, client: &mut Client) -> Result<()> {
        let used = self
            .requested
            .load(Ordering::Acquire)
            .max(self.previous.unwrap_or(i64::MIN));
        if used == i64::MIN {
            // Nothing was issued and there was no mark: leave none.
            let txn = Txn::new()
                .when([self.held()])
                .and_then([TxnOp::delete(self.mark_key.as_str(), None)]);
            client.txn(txn).await.map_err(|e| self.refused(e))?;
            return Ok(());
        }
        self.write(client, used, None).await
    }

    fn held(&self) -> Compare {
        Compare::lease(self.worker_key.as_str(), CompareOp::Equal, self.lease_id)
    }

    fn refused(&self, e: etcd_client::Error) -> Error {
        lost(
            &self.mark_key,
            LeaseLostReason::Unreachable,
            format!("etcd refused ({e})"),
        )
    }

    /// Writes the mark, and with `clock_ms` the worker key's clock reading
    /// (peers compare clocks with it), in one transaction.
    async fn write(&self, client: &mut Client, until_ms: i64, clock_ms: Option<i64>) -> Result<()> {
        let mut puts = vec![TxnOp::put(
            self.mark_key.as_str(),
            until_ms.to_string(),
            None::<PutOptions>,
        )];
        if let Some(ms) = clock_ms {
            puts.push(TxnOp::put(
                self.worker_key.as_str(),
                crate::owner::owner(ms),
                Some(PutOptions::new().with_lease(self.lease_id)),
            ));
        }
        let txn = Txn::new().when([self.held()]).and_then(puts);
        let response = client.txn(txn).await.map_err(|e| self.refused(e))?;
        if response.succeeded() {
            Ok(())
        } else {
            Err(lost(
                &self.mark_key,
                LeaseLostReason::TakenOver,
                format!(
                    "not written: {} is no longer held by lease {:x}",
                    self.worker_key, self.lease_id
                ),
            ))
        }
    }
}

fn lost(key: &str, reason: LeaseLostReason, why: impl fmt::Display) -> Error {
    Error::lease_lost(reason, format!("high-water mark {key}: {why}"))
}

impl MarkStore for EtcdMark {
    fn load(&self) -> Result<Option<i64>> {
        Ok(self.previous)
    }

    /// Never touches the network: covered by what etcd confirmed, or
    /// refused at once while the keep-alive thread is asked to catch up.
    fn persist(&self, until_ms: i64) -> Result<()> {
        self.requested.fetch_max(until_ms, Ordering::AcqRel);
        let confirmed = self.confirmed.load(Ordering::Acquire);
        if until_ms <= confirmed {
            return Ok(());
        }
        self.wanted.notify_one();
        Err(lost(
            &self.mark_key,
            LeaseLostReason::Unreachable,
            format!(
                "etcd has confirmed it only up to {confirmed} ms, short of {until_ms} ms; refusing rather than waiting on the network"
            ),
        ))
    }
}
