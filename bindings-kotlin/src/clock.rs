//! `FfiManualClock`: wraps `polyflake::ManualClock` for deterministic tests.

use std::sync::Arc;

use polyflake::Clock;

#[derive(uniffi::Object)]
pub struct FfiManualClock {
    pub(crate) inner: polyflake::ManualClock,
}

#[uniffi::export]
impl FfiManualClock {
    #[uniffi::constructor]
    pub fn new(now_ms: i64) -> Arc<Self> {
        Arc::new(FfiManualClock {
            inner: polyflake::ManualClock::new(now_ms),
        })
    }
    pub fn now_ms(&self) -> i64 {
        self.inner.now_ms()
    }
    pub fn set(&self, now_ms: i64) {
        self.inner.set(now_ms);
    }
    pub fn advance(&self, delta_ms: i64) {
        self.inner.advance(delta_ms);
    }
}
