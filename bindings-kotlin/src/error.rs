//! The one mapping of core errors to the generated `FfiException`: one
//! variant per core variant, with its fields. The Kotlin layer (Errors.kt)
//! turns each into the public exception of the same name; both matches are
//! exhaustive, so a new core variant fails to compile until it is mapped.

/// A core error as it crosses to Kotlin.
#[derive(Debug, thiserror::Error, uniffi::Error)]
pub enum FfiError {
    #[error("{detail}")]
    FieldOutOfRange {
        field: String,
        value: u64,
        max: u64,
        detail: String,
    },
    #[error("{detail}")]
    TimestampBeforeEpoch {
        timestamp_ms: i64,
        epoch_ms: i64,
        detail: String,
    },
    #[error("{detail}")]
    TimestampOverflow {
        timestamp_ms: i64,
        max_timestamp_ms: i64,
        detail: String,
    },
    #[error("{detail}")]
    InvalidLayout { detail: String },
    #[error("{detail}")]
    InvalidEncoding { encoding: String, detail: String },
    #[error("{detail}")]
    ClockMovedBackwards {
        behind_ms: u64,
        allowed_ms: u64,
        detail: String,
    },
    #[error("{detail}")]
    LeaseLost {
        reason: LeaseLostReason,
        retryable: bool,
        detail: String,
    },
    #[error("{detail}")]
    InvalidArgument { kind: ArgumentKind, detail: String },
    #[error("{detail}")]
    StateIo {
        path: String,
        os_error: Option<i32>,
        detail: String,
    },
}

impl From<polyflake::Error> for FfiError {
    fn from(err: polyflake::Error) -> Self {
        use polyflake::Error as E;
        let message = err.to_string();
        match err {
            E::FieldOutOfRange { field, value, max } => FfiError::FieldOutOfRange {
                field,
                value,
                max,
                detail: message,
            },
            E::TimestampBeforeEpoch {
                timestamp_ms,
                epoch_ms,
            } => FfiError::TimestampBeforeEpoch {
                timestamp_ms,
                epoch_ms,
                detail: message,
            },
            E::TimestampOverflow {
                timestamp_ms,
                max_timestamp_ms,
            } => FfiError::TimestampOverflow {
                timestamp_ms,
                max_timestamp_ms,
                detail: message,
            },
            E::InvalidLayout(_) => FfiError::InvalidLayout { detail: message },
            E::InvalidEncoding { encoding, .. } => FfiError::InvalidEncoding {
                encoding: (*encoding).to_owned(),
                detail: message,
            },
            E::ClockMovedBackwards {
                behind_ms,
                allowed_ms,
            } => FfiError::ClockMovedBackwards {
                behind_ms,
                allowed_ms,
                detail: message,
            },
            E::LeaseLost { reason, .. } => FfiError::LeaseLost {
                reason: reason.into(),
                retryable: reason.retryable(),
                detail: message,
            },
            E::InvalidArgument { kind, .. } => FfiError::InvalidArgument {
                kind: kind.into(),
                detail: message,
            },
            E::StateIo { path, os_error, .. } => FfiError::StateIo {
                path,
                os_error,
                detail: message,
            },
        }
    }
}

/// The core's [`polyflake::LeaseLostReason`], as Kotlin's `LeaseLostReason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum LeaseLostReason {
    Closed,
    Forked,
    Lapsed,
    Unreachable,
    TakenOver,
    Exhausted,
    ClockGap,
    CheckRefused,
    StateUnsafe,
}

impl From<polyflake::LeaseLostReason> for LeaseLostReason {
    fn from(reason: polyflake::LeaseLostReason) -> Self {
        use polyflake::LeaseLostReason as R;
        match reason {
            R::Closed => LeaseLostReason::Closed,
            R::Forked => LeaseLostReason::Forked,
            R::Lapsed => LeaseLostReason::Lapsed,
            R::Unreachable => LeaseLostReason::Unreachable,
            R::TakenOver => LeaseLostReason::TakenOver,
            R::Exhausted => LeaseLostReason::Exhausted,
            R::ClockGap => LeaseLostReason::ClockGap,
            R::CheckRefused => LeaseLostReason::CheckRefused,
            R::StateUnsafe => LeaseLostReason::StateUnsafe,
        }
    }
}

/// The core's [`polyflake::ArgumentKind`], as Kotlin's `ArgumentKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum ArgumentKind {
    UnknownName,
    MissingField,
    Configuration,
    NotInBuild,
    NodeCheck,
    Usage,
}

impl From<polyflake::ArgumentKind> for ArgumentKind {
    fn from(kind: polyflake::ArgumentKind) -> Self {
        use polyflake::ArgumentKind as K;
        match kind {
            K::UnknownName => ArgumentKind::UnknownName,
            K::MissingField => ArgumentKind::MissingField,
            K::Configuration => ArgumentKind::Configuration,
            K::NotInBuild => ArgumentKind::NotInBuild,
            K::NodeCheck => ArgumentKind::NodeCheck,
            K::Usage => ArgumentKind::Usage,
        }
    }
}

pub(crate) type Result<T> = std::result::Result<T, FfiError>;
