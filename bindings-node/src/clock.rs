//! `ManualClock`: wraps `polyflake::ManualClock` for deterministic tests.

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;
use polyflake::{Clock, ManualClock};

use crate::args::{exact_number, timestamp_arg};

#[napi(js_name = "ManualClock")]
pub struct JsManualClock {
    pub(crate) inner: ManualClock,
}

#[napi]
impl JsManualClock {
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "number | bigint | string | Date")] now_ms: Unknown<'_>,
    ) -> Result<Self> {
        Ok(JsManualClock {
            inner: ManualClock::new(timestamp_arg(&env, "nowMs", &now_ms)?),
        })
    }
    /// The time in Unix milliseconds.
    #[napi(getter)]
    pub fn now_ms(&self, env: Env) -> Result<f64> {
        exact_number(&env, "nowMs", i128::from(self.inner.now_ms()))
    }
    #[napi(catch_unwind)]
    pub fn set(
        &self,
        env: Env,
        #[napi(ts_arg_type = "number | bigint | string | Date")] now_ms: Unknown<'_>,
    ) -> Result<()> {
        self.inner.set(timestamp_arg(&env, "nowMs", &now_ms)?);
        Ok(())
    }
    #[napi(catch_unwind)]
    pub fn advance(
        &self,
        env: Env,
        #[napi(ts_arg_type = "number | bigint")] delta_ms: Unknown<'_>,
    ) -> Result<()> {
        self.inner
            .advance(timestamp_arg(&env, "deltaMs", &delta_ms)?);
        Ok(())
    }
}
