//! The one error type of polyflake, with the reasons and kinds a caller
//! acts on. Every binding maps it once, by variant.

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
    /// The worker identity can no longer be trusted; [`reason`](LeaseLostReason)
    /// says why, and whether waiting can help.
    #[error("lease lost: {detail}")]
    LeaseLost {
        /// Why, as a value a caller can act on.
        reason: LeaseLostReason,
        /// The whole story, for people.
        detail: String,
    },
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
    /// A mistake in the call or in the configuration rather than in a value:
    /// [`kind`](ArgumentKind) says which.
    #[error("{detail}")]
    InvalidArgument {
        /// What kind of mistake, as a value a caller can act on.
        kind: ArgumentKind,
        /// What is wrong, for people.
        detail: String,
    },
}

/// Why a generator refuses to issue under its worker identity
/// ([`Error::LeaseLost`]). Each has a stable [`name`](Self::name), the same in
/// every language; `docs/contract.md` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeaseLostReason {
    /// The generator was closed and its identity given up: it is finished.
    Closed,
    /// A forked child's copy of its parent's generator, which must not issue
    /// under the parent's identity: make a new generator in the child.
    Forked,
    /// The lease's deadline passed before it was renewed (the process was
    /// paused, or renewals were slow): the registry may give the value away.
    Lapsed,
    /// The registry could not be reached, or failed, while the lease needed it.
    Unreachable,
    /// The value is held by another process now (the registry gave it
    /// away, or the local lock file was taken over or deleted).
    TakenOver,
    /// Every value of the layout's node space is held by a live process.
    Exhausted,
    /// This clock disagrees with the others beyond what the lease allows:
    /// further from its live peers' than the bound when it claims, or
    /// running slower than the registry's by more than the safety margin's
    /// share of the TTL.
    ClockGap,
    /// The application's node check refused the values on offer.
    CheckRefused,
    /// The local state cannot be used safely: a high-water mark corrupt or
    /// unwritable, a lock file that cannot be opened, a state directory that
    /// belongs to another user.
    StateUnsafe,
}

impl LeaseLostReason {
    /// Every reason, in the contract's order.
    pub const ALL: [LeaseLostReason; 9] = [
        LeaseLostReason::Closed,
        LeaseLostReason::Forked,
        LeaseLostReason::Lapsed,
        LeaseLostReason::Unreachable,
        LeaseLostReason::TakenOver,
        LeaseLostReason::Exhausted,
        LeaseLostReason::ClockGap,
        LeaseLostReason::CheckRefused,
        LeaseLostReason::StateUnsafe,
    ];

    /// The contract's name (`"lapsed"` …), identical in every language.
    pub fn name(self) -> &'static str {
        match self {
            LeaseLostReason::Closed => "closed",
            LeaseLostReason::Forked => "forked",
            LeaseLostReason::Lapsed => "lapsed",
            LeaseLostReason::Unreachable => "unreachable",
            LeaseLostReason::TakenOver => "taken_over",
            LeaseLostReason::Exhausted => "exhausted",
            LeaseLostReason::ClockGap => "clock_gap",
            LeaseLostReason::CheckRefused => "check_refused",
            LeaseLostReason::StateUnsafe => "state_unsafe",
        }
    }

    /// Whether waiting and asking again can help without anyone acting: a
    /// lease that lapsed or lost its registry renews or claims again, a
    /// value taken over is replaced by another, a full node space frees up as
    /// processes exit. A closed or forked generator, a clock gap, a refusal
    /// and unsafe local state need someone to act.
    pub fn retryable(self) -> bool {
        match self {
            LeaseLostReason::Lapsed
            | LeaseLostReason::Unreachable
            | LeaseLostReason::TakenOver
            | LeaseLostReason::Exhausted => true,
            LeaseLostReason::Closed
            | LeaseLostReason::Forked
            | LeaseLostReason::ClockGap
            | LeaseLostReason::CheckRefused
            | LeaseLostReason::StateUnsafe => false,
        }
    }
}

/// What kind of mistake an [`Error::InvalidArgument`] is. Each has a stable
/// [`name`](Self::name), the same in every language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgumentKind {
    /// A name that is not one of those known: a layout's field, an encoding,
    /// a backwards policy, a clock, an option.
    UnknownName,
    /// A field the layout needs was not given.
    MissingField,
    /// The environment or the registry settings cannot give an identity: a
    /// variable malformed, the identity given two ways, a setting out of range.
    Configuration,
    /// This build lacks what the call needs (a registry connector's feature).
    NotInBuild,
    /// The application's node check refused the values it was given, or
    /// itself failed (raised, panicked).
    NodeCheck,
    /// Anything else about the call's shape: values given twice or both by
    /// position and by name, a wrong count, an identity resolved elsewhere.
    Usage,
}

impl ArgumentKind {
    /// Every kind, in the contract's order.
    pub const ALL: [ArgumentKind; 6] = [
        ArgumentKind::UnknownName,
        ArgumentKind::MissingField,
        ArgumentKind::Configuration,
        ArgumentKind::NotInBuild,
        ArgumentKind::NodeCheck,
        ArgumentKind::Usage,
    ];

    /// The contract's name (`"unknown_name"` …), identical in every language.
    pub fn name(self) -> &'static str {
        match self {
            ArgumentKind::UnknownName => "unknown_name",
            ArgumentKind::MissingField => "missing_field",
            ArgumentKind::Configuration => "configuration",
            ArgumentKind::NotInBuild => "not_in_build",
            ArgumentKind::NodeCheck => "node_check",
            ArgumentKind::Usage => "usage",
        }
    }
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
            Error::LeaseLost { .. } => "LEASE_LOST",
            Error::StateIo { .. } => "STATE_IO",
            Error::InvalidArgument { .. } => "INVALID_ARGUMENT",
        }
    }

    /// Whether the error is about the input (a `ValueError`/`RangeError` in the
    /// bindings) rather than the generator's runtime state.
    pub fn is_input_error(&self) -> bool {
        !matches!(
            self,
            Error::ClockMovedBackwards { .. } | Error::LeaseLost { .. } | Error::StateIo { .. }
        )
    }

    /// The identity is no longer trusted, for `reason`.
    pub fn lease_lost(reason: LeaseLostReason, detail: String) -> Self {
        Error::LeaseLost { reason, detail }
    }

    /// A mistake of `kind` in the call or the configuration.
    pub fn invalid(kind: ArgumentKind, detail: String) -> Self {
        Error::InvalidArgument { kind, detail }
    }

    /// Why the identity was lost, for `LEASE_LOST`.
    pub fn lease_lost_reason(&self) -> Option<LeaseLostReason> {
        match self {
            Error::LeaseLost { reason, .. } => Some(*reason),
            _ => None,
        }
    }

    /// What kind of mistake, for `INVALID_ARGUMENT`.
    pub fn argument_kind(&self) -> Option<ArgumentKind> {
        match self {
            Error::InvalidArgument { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// Whether waiting and calling again can succeed with nothing else
    /// changed: a lease whose [reason](LeaseLostReason::retryable) allows it,
    /// a clock that went backwards, or a state file the OS refused for the
    /// moment (`EINTR`, `EAGAIN`, `EBUSY`). Input errors never are.
    pub fn retryable(&self) -> bool {
        match self {
            Error::LeaseLost { reason, .. } => reason.retryable(),
            Error::ClockMovedBackwards { .. } => true,
            Error::StateIo { os_error, .. } => os_error.is_some_and(|errno| {
                use std::io::ErrorKind::{Interrupted, ResourceBusy, WouldBlock};
                let kind = std::io::Error::from_raw_os_error(errno).kind();
                matches!(kind, Interrupted | WouldBlock | ResourceBusy)
            }),
            Error::FieldOutOfRange { .. }
            | Error::TimestampBeforeEpoch { .. }
            | Error::TimestampOverflow { .. }
            | Error::InvalidLayout(_)
            | Error::InvalidEncoding { .. }
            | Error::InvalidArgument { .. } => false,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are the contract's, one per value; `retryable` answers for
    /// every variant, an OS error that may pass (busy, interrupted) included.
    #[test]
    fn reasons_and_kinds_have_distinct_names_and_retrying_is_decided_per_variant() {
        let names: std::collections::HashSet<_> =
            LeaseLostReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), LeaseLostReason::ALL.len());
        let kinds: std::collections::HashSet<_> =
            ArgumentKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(kinds.len(), ArgumentKind::ALL.len());
        let io = |errno: Option<i32>| Error::StateIo {
            path: "/state".into(),
            reason: "x".into(),
            os_error: errno,
        };
        // This OS's number for an error of `kind`.
        let errno = |kind: std::io::ErrorKind| {
            (1..200).find(|&e| std::io::Error::from_raw_os_error(e).kind() == kind)
        };
        use std::io::ErrorKind::{PermissionDenied, ResourceBusy, WouldBlock};
        assert!(io(errno(ResourceBusy)).retryable());
        assert!(io(errno(WouldBlock)).retryable());
        assert!(!io(errno(PermissionDenied)).retryable());
        assert!(!io(None).retryable());
        assert!(Error::lease_lost(LeaseLostReason::Lapsed, "x".into()).retryable());
        assert!(!Error::lease_lost(LeaseLostReason::Closed, "x".into()).retryable());
        assert!(Error::ClockMovedBackwards {
            behind_ms: 1,
            allowed_ms: 0
        }
        .retryable());
        assert!(!Error::invalid(ArgumentKind::Usage, "x".into()).retryable());
    }
}
