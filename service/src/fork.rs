//! Which side of a `fork()` this process is on, read with one atomic load:
//! the generator checks it on every call, and `getpid()` is a system call
//! (glibc caches it no more). A child handler registered with
//! `pthread_atfork` the first time a generator is made counts the forks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

static FORKS: AtomicU64 = AtomicU64::new(0);

extern "C" fn in_child() {
    // Async-signal-safe: one atomic add.
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// The process's fork generation now, registering the handler first.
pub(crate) fn registered() -> u64 {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // SAFETY: the handler is a plain `extern "C"` function that only
        // touches an atomic; registering it has no other effect.
        #[allow(unsafe_code)]
        unsafe {
            libc::pthread_atfork(None, None, Some(in_child));
        }
    });
    generation()
}

/// The process's fork generation now (a child's differs from its parent's).
#[inline]
pub(crate) fn generation() -> u64 {
    FORKS.load(Ordering::Relaxed)
}
