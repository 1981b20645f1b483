//! High-water marks: a timestamp persisted a little ahead of the clock, so a
//! generator restarted with the same identity never reuses time it may
//! already have issued IDs in.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, LeaseLostReason, Result};

/// How far ahead of the clock a mark is written (and so how long a restart
/// with the same identity may have to wait).
pub const DEFAULT_MARK_LEAD_MS: i64 = 1_000;

/// Where a high-water mark is kept.
pub trait MarkStore: Send + Sync + fmt::Debug {
    /// The stored mark, if any. A store that cannot be read must fail, never
    /// answer `None`: a silent reset is how restarts reuse time.
    fn load(&self) -> Result<Option<i64>>;
    /// Persists durably that no ID will be issued after `until_ms`.
    fn persist(&self, until_ms: i64) -> Result<()>;
    /// The generator is gone, having issued nothing after `used_until_ms`
    /// (below the persisted mark): a store may lower its mark to it, so that
    /// the next process on this identity need not wait out the lead. The
    /// default keeps the mark, which is always safe.
    fn settle(&self, used_until_ms: i64) -> Result<()> {
        let _ = used_until_ms;
        Ok(())
    }
}

const HEADER: &str = "polyflake-hwm 1";

/// A mark in one file, replaced atomically (write, fsync, rename, fsync dir).
#[derive(Debug, Clone)]
pub struct FileMark {
    path: PathBuf,
}

impl FileMark {
    /// A mark kept at `path` (created on the first `persist`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileMark { path: path.into() }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn broken(&self, why: impl fmt::Display) -> Error {
        Error::lease_lost(
            LeaseLostReason::StateUnsafe,
            format!("high-water mark {}: {why}", self.path.display()),
        )
    }
}

impl MarkStore for FileMark {
    fn load(&self) -> Result<Option<i64>> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(Error::state_io(
                    &self.path,
                    "the high-water mark cannot be read",
                    &e,
                ))
            }
        };
        // Exactly the header, a timestamp and a final newline: a file cut
        // short (a full disk, a crash mid-copy) must not pass for a lower mark.
        let corrupt = || {
            self.broken(format!(
                "is corrupt (expected {HEADER:?}, a timestamp and a newline); remove it only if no generator with this identity has run since"
            ))
        };
        let body = text
            .strip_prefix(HEADER)
            .and_then(|rest| rest.strip_prefix('\n'))
            .and_then(|rest| rest.strip_suffix('\n'))
            .ok_or_else(corrupt)?;
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.broken(format!(
                "holds {body:?}, not a timestamp (Unix milliseconds, never negative)"
            )));
        }
        body.parse::<i64>()
            .map(Some)
            .map_err(|_| self.broken(format!("holds {body:?}, past any timestamp")))
    }

    fn persist(&self, until_ms: i64) -> Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        // A name of this process's own, created anew (O_EXCL follows no
        // symbolic link): a file planted at the temporary path is never
        // written through.
        let mut tmp_name = self.path.file_name().unwrap_or_default().to_owned();
        tmp_name.push(format!(".{}.tmp", std::process::id()));
        let tmp = dir.join(tmp_name);
        let write = || -> std::io::Result<()> {
            fs::create_dir_all(dir)?;
            match fs::remove_file(&tmp) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            writeln!(file, "{HEADER}\n{until_ms}")?;
            file.sync_all()?;
            fs::rename(&tmp, &self.path)?;
            File::open(dir)?.sync_all()
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&tmp);
            Error::state_io(&self.path, "the high-water mark cannot be written", &e)
        })
    }

    /// The file belongs to one held identity (its lock), so nothing else
    /// issues under it: lowering the mark to the time used is safe, and a
    /// process that starts right after this one (`polyflake next` in a loop)
    /// issues at once instead of waiting out the lead.
    fn settle(&self, used_until_ms: i64) -> Result<()> {
        self.persist(used_until_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let dir = std::env::temp_dir().join(format!("polyflake-mark-{}", std::process::id()));
        let mark = FileMark::new(dir.join("m.hwm"));
        assert_eq!(mark.load().unwrap(), None);
        mark.persist(1_700_000_000_123).unwrap();
        assert_eq!(mark.load().unwrap(), Some(1_700_000_000_123));
        fs::write(mark.path(), "garbage").unwrap();
        let err = mark.load().unwrap_err();
        assert_eq!(err.code(), "LEASE_LOST");
        assert!(err.to_string().contains("corrupt"));
        fs::write(mark.path(), format!("{HEADER}\nsoon\n")).unwrap();
        assert!(mark.load().unwrap_err().to_string().contains("\"soon\""));
        // Cut short, negative, or with a sign: never a lower mark than was written.
        for bad in [
            format!("{HEADER}\n179605"),
            format!("{HEADER}\n-5\n"),
            format!("{HEADER}\n+5\n"),
            format!("{HEADER}\n\n"),
            format!("{HEADER}\n1\n2\n"),
        ] {
            fs::write(mark.path(), &bad).unwrap();
            let err = mark.load().unwrap_err();
            assert_eq!(err.code(), "LEASE_LOST", "{bad:?}");
            assert!(err.to_string().contains("m.hwm"), "{err}");
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn io_failures_are_state_io_with_the_os_error() {
        let dir = std::env::temp_dir().join(format!("polyflake-mark-io-{}", std::process::id()));
        // A directory where the mark should be: it can be neither read nor replaced.
        fs::create_dir_all(dir.join("m.hwm/inner")).unwrap();
        let mark = FileMark::new(dir.join("m.hwm"));
        for err in [mark.load().unwrap_err(), mark.persist(5).unwrap_err()] {
            assert_eq!(err.code(), "STATE_IO");
            let Error::StateIo { path, os_error, .. } = &err else {
                panic!("{err:?}")
            };
            assert!(path.ends_with("m.hwm"), "{path}");
            assert!(os_error.is_some(), "{err:?}");
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_the_temporary_path_is_not_written_through() {
        let dir = std::env::temp_dir().join(format!("polyflake-mark-link-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        fs::write(&victim, "precious").unwrap();
        let mark = FileMark::new(dir.join("node-0.hwm"));
        let tmp = dir.join(format!("node-0.hwm.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &tmp).unwrap();
        mark.persist(42).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(mark.load().unwrap(), Some(42));
        fs::remove_dir_all(dir).unwrap();
    }
}
