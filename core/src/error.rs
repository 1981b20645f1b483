//! The one error type of polyflake. Every binding maps it once, by [`Error::code`].

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong, each with a stable [`code`](Error::code).
///
/// Input errors (`FieldOutOfRange` … `InvalidArgument`) mean the caller passed
/// something that cannot be an ID; clock and lease errors mean the generator
/// refuses to issue an ID it cannot prove unique.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A node field, the sequence or a whole ID outside `0..=max`; never masked.
    #[error("{field} = {value} is out of range 0..={max}")]
    FieldOutOfRange {
        /// The field's contract name (`machine_id`, `sequence`, `id` …).
        field: String,
        /// The value that was given.
        value: u64,
        /// The largest value the field holds.
        max: u64,
    },
    /// A timestamp earlier than the layout's epoch.
    #[error("timestamp_ms = {timestamp_ms} is before the layout's epoch {epoch_ms}")]
    TimestampBeforeEpoch {
        /// The timestamp that was given, in Unix milliseconds.
        timestamp_ms: i64,
        /// The layout's epoch, in Unix milliseconds.
        epoch_ms: i64,
    },
    /// A timestamp past the last one the time field can hold.
    #[error("timestamp_ms = {timestamp_ms} is past the end of the time field (last valid: {max_timestamp_ms})")]
    TimestampOverflow {
        /// The timestamp that was given, in Unix milliseconds.
        timestamp_ms: i64,
        /// The last timestamp the layout can encode.
        max_timestamp_ms: i64,
    },
    /// A layout that cannot exist, or an unknown preset name.
    #[error("invalid layout: {0}")]
    InvalidLayout(String),
    /// Text that is not exactly a valid 64-bit ID in the given encoding.
    #[error("invalid {encoding} ID: {reason}")]
    InvalidEncoding {
        /// The contract name of the encoding the text was parsed with
        /// (`"base58"` …). A name rather than the `Encoding` itself, so that
        /// this module, at the bottom of the crate, imports nothing above it.
        encoding: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The clock went back further than the generator's policy allows.
    #[error("the clock moved backwards by {behind_ms} ms (the policy allows {allowed_ms} ms)")]
    ClockMovedBackwards {
        /// How far behind the last issued tick the clock is.
        behind_ms: u64,
        /// How far the policy would have waited.
        allowed_ms: u64,
    },
    /// The worker identity can no longer be trusted.
    #[error("lease lost: {0}")]
    LeaseLost(String),
    /// A file or directory of the state directory (a lock, a high-water mark)
    /// could not be read or written; the OS error is kept.
    #[error("{path}: {reason}")]
    StateIo {
        /// The file or directory.
        path: String,
        /// What was being done, and the OS's message.
        reason: String,
        /// The OS error number (`errno`), if there was one.
        os_error: Option<i32>,
    },
    /// A field name the layout does not have, a missing one, or an unknown
    /// encoding name: a mistake in the call itself rather than in a value.
    #[error("{0}")]
    InvalidArgument(String),
}

impl Error {
    /// The stable code of the contract, identical in every language.
    pub fn code(&self) -> &'static str {
        match self {
            Error::FieldOutOfRange { .. } => "FIELD_OUT_OF_RANGE",
            Error::TimestampBeforeEpoch { .. } => "TIMESTAMP_BEFORE_EPOCH",
            Error::TimestampOverflow { .. } => "TIMESTAMP_OVERFLOW",
            Error::InvalidLayout(_) => "INVALID_LAYOUT",
            Error::InvalidEncoding { .. } => "INVALID_ENCODING",
            Error::ClockMovedBackwards { .. } => "CLOCK_MOVED_BACKWARDS",
            Error::LeaseLost(_) => "LEASE_LOST",
            Error::StateIo { .. } => "STATE_IO",
            Error::InvalidArgument(_) => "INVALID_ARGUMENT",
        }
    }

    /// Whether the error is about the input (a `ValueError`/`RangeError` in the
    /// bindings) rather than the generator's runtime state.
    pub fn is_input_error(&self) -> bool {
        !matches!(
            self,
            Error::ClockMovedBackwards { .. } | Error::LeaseLost(_) | Error::StateIo { .. }
        )
    }

    /// `doing` failed on `path` with the OS error `e`.
    pub(crate) fn state_io(path: &std::path::Path, doing: &str, e: &std::io::Error) -> Self {
        Error::StateIo {
            path: path.display().to_string(),
            reason: format!("{doing} ({e})"),
            os_error: e.raw_os_error(),
        }
    }

    pub(crate) fn out_of_range(field: &str, value: u64, max: u64) -> Self {
        Error::FieldOutOfRange {
            field: field.to_owned(),
            value,
            max,
        }
    }
}
