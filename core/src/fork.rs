//! Which side of a `fork()` this process is on, read with one atomic load.
//! A generator's copy in a forked child holds its parent's identity (or a
//! service-backed generator's buffer); both would issue the same IDs, so the
//! copy must refuse (`LEASE_LOST`, reason `forked`). The one detector of the
//! project: the service-backed generator and the Python binding read it.
//! `getpid()` would do too, but it is a system call on every use (glibc
//! caches it no more); a child handler registered with `pthread_atfork` the
//! first time a generator records its generation counts the forks instead,
//! and runs for every `fork()` of the process, Python's `os.fork` included.

use std::sync::atomic::{AtomicU64, Ordering};

static FORKS: AtomicU64 = AtomicU64::new(0);

#[cfg(unix)]
extern "C" fn in_child() {
    // Async-signal-safe: one atomic add.
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// The process's fork generation now, with the handler registered first: what
/// a generator records when it is made or claims its identity.
pub fn registered() -> u64 {
    #[cfg(unix)]
    {
        static REGISTER: std::sync::Once = std::sync::Once::new();
        REGISTER.call_once(|| {
            // SAFETY: the handler is a plain `extern "C"` function that only
            // touches an atomic; registering it has no other effect.
            #[allow(unsafe_code)]
            unsafe {
                libc::pthread_atfork(None, None, Some(in_child));
            }
        });
    }
    generation()
}

/// The process's fork generation now: a child's differs from its parent's
/// once [`registered`] has been called before the fork.
#[inline]
pub fn generation() -> u64 {
    FORKS.load(Ordering::Relaxed)
}

/// Whether this process is a child forked after `made_in` was recorded.
#[inline]
pub fn forked_since(made_in: u64) -> bool {
    generation() != made_in
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    #[allow(unsafe_code)]
    fn a_forked_child_sees_a_new_generation_and_its_parent_the_same() {
        let made_in = registered();
        // SAFETY: the child only reads an atomic and exits with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let code = if forked_since(made_in) { 0 } else { 1 };
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status));
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "the child did not see the fork"
        );
        assert!(!forked_since(made_in), "the parent saw a fork of its own");
    }
}
