//! An application's veto on the node values a generator is about to use
//! (Sonyflake's `CheckMachineID`): for example, values its own registry says
//! are taken. Under a lease a refused value is released and another claimed.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::error::{ArgumentKind, Error, Result};

type CheckFn = dyn Fn(&[u64]) -> Result<bool> + Send + Sync;

/// A check on node values: `true` admits them. Cheap to clone.
#[derive(Clone)]
pub struct NodeCheck(Arc<CheckFn>);

impl fmt::Debug for NodeCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NodeCheck")
    }
}

impl NodeCheck {
    /// A check from a closure over the node values, in layout order.
    pub fn new(check: impl Fn(&[u64]) -> bool + Send + Sync + 'static) -> NodeCheck {
        NodeCheck(Arc::new(move |nodes| Ok(check(nodes))))
    }

    /// A check that can itself fail (a binding's callback that raised): the
    /// failure refuses the values, with its message.
    pub fn fallible(check: impl Fn(&[u64]) -> Result<bool> + Send + Sync + 'static) -> NodeCheck {
        NodeCheck(Arc::new(check))
    }

    /// Runs the check on `nodes` (from `source`, for the message). A refusal,
    /// a failure or a panic of the check is `INVALID_ARGUMENT`, never a crash.
    pub fn verify(&self, nodes: &[u64], source: &str) -> Result<()> {
        self.judge(nodes, source).map_err(Verdict::into_error)
    }

    /// [`verify`](Self::verify), telling a refusal (try another value) from
    /// a failure of the check itself (other values would fare alike).
    pub(crate) fn judge(&self, nodes: &[u64], source: &str) -> std::result::Result<(), Verdict> {
        let error = |why: String| {
            Error::invalid(
                ArgumentKind::NodeCheck,
                format!("the node check {why} node values {nodes:?} ({source})"),
            )
        };
        match catch_unwind(AssertUnwindSafe(|| (self.0)(nodes))) {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => Err(Verdict::Refused(error("refused".into()))),
            Ok(Err(e)) => Err(Verdict::Failed(error(format!("failed ({e}) on")))),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                Err(Verdict::Failed(error(format!("panicked ({what}) on"))))
            }
        }
    }
}

/// Why a check did not admit node values.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// It answered no: under a lease, another value may be offered.
    Refused(Error),
    /// It failed or panicked: another value would fare alike.
    Failed(Error),
}

impl Verdict {
    pub(crate) fn into_error(self) -> Error {
        match self {
            Verdict::Refused(e) | Verdict::Failed(e) => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_refuses_and_turns_failures_and_panics_into_errors() {
        let odd = NodeCheck::new(|n| n[0] % 2 == 1);
        assert!(odd.verify(&[3], "test").is_ok());
        let err = odd.verify(&[2], "POLYFLAKE_NODE_ID=2").unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(
            err.to_string()
                .contains("refused node values [2] (POLYFLAKE_NODE_ID=2)"),
            "{err}"
        );
        let failing = NodeCheck::fallible(|_| {
            Err(Error::invalid(ArgumentKind::Usage, "registry down".into()))
        });
        assert!(failing
            .verify(&[1], "x")
            .unwrap_err()
            .to_string()
            .contains("registry down"));
        let panicking = NodeCheck::new(|_| panic!("boom"));
        let err = panicking.verify(&[1], "x").unwrap_err();
        assert!(err.to_string().contains("panicked (boom)"), "{err}");
    }
}
