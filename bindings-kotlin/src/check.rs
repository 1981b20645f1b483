//! The application's check on node values, implemented in Kotlin, as the
//! core's `NodeCheck`. An exception it throws refuses with its message.

use std::sync::Arc;

use polyflake::NodeCheck;

use crate::error::FfiError;

/// `allow(nodes)`: whether the generator may use these node values.
#[uniffi::export(with_foreign)]
pub trait FfiNodeCheck: Send + Sync {
    fn allow(&self, nodes: Vec<u64>) -> Result<bool, FfiError>;
}

impl From<uniffi::UnexpectedUniFFICallbackError> for FfiError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        FfiError::InvalidArgument {
            kind: crate::error::ArgumentKind::NodeCheck,
            detail: format!("check threw {}", e.reason),
        }
    }
}

pub(crate) fn node_check(check: Arc<dyn FfiNodeCheck>) -> NodeCheck {
    NodeCheck::fallible(move |nodes| {
        check.allow(nodes.to_vec()).map_err(|e| {
            polyflake::Error::invalid(polyflake::ArgumentKind::NodeCheck, e.to_string())
        })
    })
}
