//! The one mapping of core errors to the generated `FfiException`; the
//! Kotlin layer (Errors.kt) turns it into the public sealed hierarchy.

/// A core error as it crosses to Kotlin: its stable code and message.
#[derive(Debug, thiserror::Error, uniffi::Error)]
pub enum FfiError {
    #[error("{code}: {detail}")]
    Failed { code: String, detail: String },
}

impl From<polyflake::Error> for FfiError {
    fn from(err: polyflake::Error) -> Self {
        FfiError::Failed {
            code: err.code().to_owned(),
            detail: err.to_string(),
        }
    }
}

pub(crate) type Result<T> = std::result::Result<T, FfiError>;
