//! `FfiServiceGenerator` (Kotlin's `ServiceGenerator`, made by
//! `Generator.fromService`): wraps `polyflake_service::ServiceGenerator`, IDs
//! fetched from `polyflake serve` replicas in batches and refilled in the
//! background.

use std::sync::Arc;
use std::time::Duration;

use polyflake::Generator;
use polyflake_service::{ServiceGenerator, ServiceSettings};

use crate::error::Result;

/// `fromService`'s settings; `None` takes the service crate's default.
#[derive(uniffi::Record)]
pub struct FfiServiceSettings {
    pub urls: Vec<String>,
    pub batch: Option<u32>,
    pub low_water: Option<u32>,
    pub max_batch: Option<u32>,
    pub request_timeout_ms: Option<u64>,
    pub deadline_ms: Option<u64>,
}

/// Counts since a service-backed generator was made.
#[derive(uniffi::Record)]
pub struct FfiServiceStats {
    pub batches: u64,
    pub failovers: u64,
    pub stalls: u64,
    pub longest_stall_us: u64,
    pub refused: u64,
}

#[derive(uniffi::Object)]
pub struct FfiServiceGenerator {
    inner: ServiceGenerator,
}

#[uniffi::export]
impl FfiServiceGenerator {
    #[uniffi::constructor]
    pub fn new(settings: FfiServiceSettings) -> Result<Arc<Self>> {
        let mut core = ServiceSettings::new(settings.urls);
        if let Some(batch) = settings.batch {
            core.batch = batch as usize;
        }
        core.low_water = settings.low_water.map(|n| n as usize);
        core.max_batch = settings.max_batch.map(|n| n as usize);
        if let Some(ms) = settings.request_timeout_ms {
            core.request_timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = settings.deadline_ms {
            core.deadline = Duration::from_millis(ms);
        }
        Ok(Arc::new(FfiServiceGenerator {
            inner: ServiceGenerator::new(core)?,
        }))
    }

    pub fn next_id(&self) -> Result<u64> {
        Ok(self.inner.next_id()?)
    }

    /// `n` IDs in one crossing, as the bits of `Long`s.
    pub fn next_ids(&self, n: u32) -> Result<Vec<i64>> {
        let n = Generator::batch_size(u64::from(n))?;
        Ok(self
            .inner
            .next_ids(n)?
            .into_iter()
            .map(|id| id as i64)
            .collect())
    }

    pub fn stats(&self) -> FfiServiceStats {
        let s = self.inner.stats();
        FfiServiceStats {
            batches: s.batches,
            failovers: s.failovers,
            stalls: s.stalls,
            longest_stall_us: s.longest_stall.as_micros() as u64,
            refused: s.refused,
        }
    }

    pub fn buffered(&self) -> u64 {
        self.inner.buffered() as u64
    }

    pub fn urls(&self) -> Vec<String> {
        self.inner.settings().urls.clone()
    }

    pub fn batch(&self) -> u32 {
        self.inner.batch() as u32
    }

    pub fn low_water(&self) -> u32 {
        self.inner.low_water() as u32
    }

    /// Stops the refill and drops the buffer; later calls fail with
    /// `LEASE_LOST`, reason `closed`.
    pub fn give_up(&self) {
        self.inner.close();
    }
}
