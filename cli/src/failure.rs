//! Why a command failed, typed: the core's error with the flag or input it
//! concerns, a flag value that is not the core's to parse, the output, or the
//! service's socket and runtime. `main` prints it on one line and exits with
//! its code.

use std::fmt;
use std::process::ExitCode;

#[derive(Debug)]
pub enum Failure {
    /// The core refused; `context` names the flag or the input (`--layout`,
    /// `ID "x"`), or is empty when the message names it already.
    Core {
        context: String,
        error: polyflake::Error,
    },
    /// A flag's value the core does not parse (a timestamp), said as is.
    Usage(String),
    /// Writing the output failed.
    Output(std::io::Error),
    /// The service could not start, or stopped with an error.
    #[cfg(feature = "serve")]
    Serve {
        context: String,
        error: std::io::Error,
    },
}

impl Failure {
    /// The core's `error`, about `context`.
    pub fn core(context: impl Into<String>, error: polyflake::Error) -> Failure {
        Failure::Core {
            context: context.into(),
            error,
        }
    }

    /// Not a failure: the reader stopped reading (`polyflake next | head`).
    pub fn is_reader_gone(&self) -> bool {
        matches!(self, Failure::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// 2, as clap's usage errors, for every failure: the README promises it,
    /// and scripts tell failures apart by the bracketed code and reason.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(2)
    }
}

impl fmt::Display for Failure {
    /// The message, and for the core's errors the contract's code with its
    /// reason or kind, which scripts can match on.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Core { context, error } => {
                if !context.is_empty() {
                    write!(f, "{context}: ")?;
                }
                write!(f, "{error} [{}", error.code())?;
                if let Some(reason) = error.lease_lost_reason() {
                    write!(f, " {}", reason.name())?;
                }
                if let Some(kind) = error.argument_kind() {
                    write!(f, " {}", kind.name())?;
                }
                f.write_str("]")
            }
            Failure::Usage(message) => f.write_str(message),
            Failure::Output(error) => write!(f, "writing the output: {error}"),
            #[cfg(feature = "serve")]
            Failure::Serve { context, error } => write!(f, "{context}: {error}"),
        }
    }
}

impl From<polyflake::Error> for Failure {
    fn from(error: polyflake::Error) -> Self {
        Failure::core("", error)
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Self {
        Failure::Output(error)
    }
}
