//! High-water marks: a timestamp persisted a little ahead of the clock, so a
//! generator restarted with the same identity never reuses time it may
//! already have issued IDs in.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

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
        Error::LeaseLost(format!("high-water mark {}: {why}", self.path.display()))
    }
}

impl MarkStore for FileMark {
    fn load(&self) -> Result<Option<i64>> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.broken(format!("cannot be read ({e})"))),
        };
        let mut lines = text.lines();
        let (Some(HEADER), Some(value), None) = (lines.next(), lines.next(), lines.next()) else {
            return Err(self.broken(format!(
                "is corrupt (expected {HEADER:?} and a timestamp); remove it only if no generator with this identity has run since"
            )));
        };
        value
            .parse::<i64>()
            .map(Some)
            .map_err(|_| self.broken(format!("holds {value:?}, not a timestamp")))
    }

    fn persist(&self, until_ms: i64) -> Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let tmp = self.path.with_extension("tmp");
        let write = || -> std::io::Result<()> {
            fs::create_dir_all(dir)?;
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)?;
            writeln!(file, "{HEADER}\n{until_ms}")?;
            file.sync_all()?;
            fs::rename(&tmp, &self.path)?;
            File::open(dir)?.sync_all()
        };
        write().map_err(|e| self.broken(format!("cannot be written ({e})")))
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
        fs::remove_dir_all(dir).unwrap();
    }
}
