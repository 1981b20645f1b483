//! `FfiGenerator`: wraps `polyflake::Generator`; its direct-mapped fast
//! paths are in `fast.rs`.

use std::sync::Arc;

use polyflake::{BackwardsPolicy, Generator};
use polyflake_connectors::CONNECTORS;

use crate::error::Result;
use crate::layout::FfiLayout;
use crate::parts::FfiNodeValue;
use crate::request::{FfiBackwards, FfiClock, FfiIdentity};

#[derive(uniffi::Object)]
pub struct FfiGenerator {
    inner: Arc<Generator>,
}

#[uniffi::export]
impl FfiGenerator {
    #[uniffi::constructor]
    pub fn new(
        layout: &FfiLayout,
        identity: FfiIdentity,
        clock: FfiClock,
        backwards: FfiBackwards,
        check: Option<Arc<dyn crate::check::FfiNodeCheck>>,
    ) -> Result<Arc<Self>> {
        let request = crate::request::request(layout, identity, clock, backwards, check)?;
        Ok(Arc::new(FfiGenerator {
            inner: Arc::new(request.resolve(CONNECTORS)?),
        }))
    }

    pub fn next_id(&self) -> Result<u64> {
        Ok(self.inner.next_id()?)
    }

    /// After `polyflake_next_id` answered `NO_ID` on this thread: the error
    /// it met, else the next ID (its answer was the layout's all-ones ID,
    /// which is skipped, or a panic).
    pub fn next_id_after_fast_path(&self) -> Result<u64> {
        match crate::fast::take_error() {
            Some(error) => Err(error.into()),
            None => self.next_id(),
        }
    }

    /// After `polyflake_next_ids` answered -1 on this thread: the error it
    /// met, else `n` IDs.
    pub fn next_ids_after_fast_path(&self, n: u32) -> Result<Vec<i64>> {
        match crate::fast::take_error() {
            Some(error) => Err(error.into()),
            None => self.next_ids(n),
        }
    }

    /// `n` IDs in one crossing, as the bits of `Long`s.
    pub fn next_ids(&self, n: u32) -> Result<Vec<i64>> {
        let mut ids = vec![0u64; Generator::batch_size(u64::from(n))?];
        self.inner.fill(&mut ids)?;
        Ok(ids.into_iter().map(|id| id as i64).collect())
    }

    pub fn identity_source(&self) -> String {
        self.inner.identity_source()
    }

    pub fn stats(&self) -> crate::counts::FfiGeneratorStats {
        self.inner.stats().into()
    }

    pub fn node_values(&self) -> Vec<FfiNodeValue> {
        self.inner
            .layout()
            .node_fields()
            .iter()
            .zip(self.inner.node_values())
            .map(|(f, v)| FfiNodeValue {
                name: f.name().to_owned(),
                value: v,
            })
            .collect()
    }

    /// Gives up the worker identity now, while other threads may still be
    /// calling (`Generator::close` in the core); later calls fail with
    /// `LEASE_LOST`.
    pub fn give_up(&self) {
        self.inner.close();
    }

    /// A handle for `polyflake_next_id`: a strong reference the caller must
    /// give back to `polyflake_release` exactly once, after its last use.
    pub fn fast_handle(&self) -> u64 {
        Arc::into_raw(Arc::clone(&self.inner)) as usize as u64
    }
}

/// The backwards policy `Wait`'s default bound, in milliseconds (the core's).
#[uniffi::export]
pub fn default_wait_ms() -> u64 {
    BackwardsPolicy::DEFAULT_WAIT_MS
}

/// The largest batch `nextIds` hands out in one call (the core's).
#[uniffi::export]
pub fn max_batch() -> u64 {
    Generator::MAX_BATCH
}

/// A Rust panic, to prove it surfaces as an exception (test builds only).
#[cfg(feature = "test-hooks")]
#[uniffi::export]
pub fn panic_for_tests() -> std::result::Result<(), crate::error::FfiError> {
    panic!("a deliberate panic")
}
