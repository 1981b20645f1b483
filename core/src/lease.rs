//! The local lease: processes on one host claim distinct node values by
//! locking files in a state directory. The OS drops the lock when its process
//! dies, so a killed process's value is free at once; the high-water mark
//! beside each lock makes its successor start past the time it used.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::identity::{node_space, split_node_number};
use crate::layout::Layout;
use crate::mark::{FileMark, MarkStore};

/// A node value held by this process for as long as the lease lives.
#[derive(Debug)]
pub struct LocalLease {
    number: u64,
    nodes: Vec<u64>,
    mark: FileMark,
    lock_path: PathBuf,
    _lock: File,
}

/// A directory name for a layout: the preset's name, or a digest of a custom
/// layout's definition, so layouts never share node values by accident.
pub fn layout_key(layout: &Layout) -> String {
    if layout.name() != "custom" {
        return layout.name().to_owned();
    }
    // FNV-1a over the definition: stable across versions and platforms.
    let mut text = format!(
        "{}:{}:{}:{}:{}",
        layout.epoch_ms(),
        layout.tick_ms(),
        layout.time_bits(),
        layout.sequence_bits(),
        layout.sequence_above_nodes()
    );
    for field in layout.node_fields() {
        text.push_str(&format!(":{}={}", field.name(), field.bits()));
    }
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("custom-{hash:016x}")
}

impl LocalLease {
    /// Claims the lowest free node value of `layout` under `state_dir`.
    pub fn acquire(layout: &Layout, state_dir: &Path) -> Result<LocalLease> {
        let dir = state_dir.join(layout_key(layout));
        fs::create_dir_all(&dir).map_err(|e| {
            Error::LeaseLost(format!(
                "cannot create the state directory {} ({e})",
                dir.display()
            ))
        })?;
        let space = node_space(layout).min(u128::from(u64::MAX)) as u64;
        for number in 0..space {
            let lock_path = dir.join(format!("node-{number}.lock"));
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock_path)
                .map_err(|e| {
                    Error::LeaseLost(format!("cannot open {} ({e})", lock_path.display()))
                })?;
            match file.try_lock() {
                Ok(()) => {
                    return Ok(LocalLease {
                        number,
                        nodes: split_node_number(layout, number, "node number")?,
                        mark: FileMark::new(dir.join(format!("node-{number}.hwm"))),
                        lock_path,
                        _lock: file,
                    })
                }
                Err(TryLockError::WouldBlock) => continue,
                Err(TryLockError::Error(e)) => {
                    return Err(Error::LeaseLost(format!(
                        "cannot lock {} ({e})",
                        lock_path.display()
                    )))
                }
            }
        }
        Err(Error::LeaseLost(format!(
            "every one of the {space} node values of layout {} is held by a live process under {}",
            layout.name(),
            dir.display()
        )))
    }

    /// The node number held (all node fields read as one number).
    pub fn number(&self) -> u64 {
        self.number
    }
    /// The node values held, in layout order.
    pub fn nodes(&self) -> &[u64] {
        &self.nodes
    }
    /// The lock file.
    pub fn lock_path(&self) -> &Path {
        &self.lock_path
    }
}

impl MarkStore for LocalLease {
    fn load(&self) -> Result<Option<i64>> {
        self.mark.load()
    }
    fn persist(&self, until_ms: i64) -> Result<()> {
        self.mark.persist(until_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_leases_in_one_directory_differ_and_a_dropped_one_is_reused() {
        let dir = std::env::temp_dir().join(format!("polyflake-lease-{}", std::process::id()));
        let layout = Layout::twitter();
        let a = LocalLease::acquire(&layout, &dir).unwrap();
        let b = LocalLease::acquire(&layout, &dir).unwrap();
        assert_eq!((a.number(), b.number()), (0, 1));
        drop(a);
        let c = LocalLease::acquire(&layout, &dir).unwrap();
        assert_eq!(c.number(), 0);
        let tiny = Layout::custom(0, 41).node("n", 1).build().unwrap();
        let _x = LocalLease::acquire(&tiny, &dir).unwrap();
        let _y = LocalLease::acquire(&tiny, &dir).unwrap();
        let err = LocalLease::acquire(&tiny, &dir).unwrap_err();
        assert_eq!(err.code(), "LEASE_LOST");
        assert!(err.to_string().contains("every one of the 2 node values"));
        drop((b, c));
        fs::remove_dir_all(dir).unwrap();
    }
}
