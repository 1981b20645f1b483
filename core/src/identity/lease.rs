//! The local lease: processes on one host claim distinct node values by
//! locking files in a state directory. The OS drops the lock when its process
//! dies, so a killed process's value is free at once; the high-water mark
//! beside each lock makes its successor start past the time it used.
//!
//! A lock on a file that was deleted (a tmp cleaner, an `rm -rf`) or
//! replaced no longer excludes anyone: a newcomer locks a new file at the same
//! path. So every time the holder moves its mark ahead it checks, before and
//! after the write, that the path still names the file it locked, and refuses
//! (`LEASE_LOST`) when it does not. It never issues past a mark it wrote while
//! the lock was whole; a newcomer starts past whichever mark it read.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::mark::{FileMark, MarkStore};
use super::nodes::{node_space, split_node_number};
use crate::error::{Error, LeaseLostReason, Result};
use crate::id::layout::Layout;

/// A node value held by this process for as long as the lease lives.
#[derive(Debug)]
pub struct LocalLease {
    number: u64,
    nodes: Vec<u64>,
    mark: FileMark,
    lock_path: PathBuf,
    lock: File,
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

/// What one attempt to lock a node value found.
enum Attempt {
    Held(LocalLease),
    Busy,
    Unusable(String),
}

impl LocalLease {
    /// Claims the lowest free node value of `layout` under `state_dir`.
    pub fn acquire(layout: &Layout, state_dir: &Path) -> Result<LocalLease> {
        let space = node_space(layout).min(u128::from(u64::MAX)) as u64;
        Self::acquire_in(layout, state_dir, 0..space)
    }

    /// Claims the lowest free node value in `numbers` (all node fields read
    /// as one number).
    pub fn acquire_in(
        layout: &Layout,
        state_dir: &Path,
        numbers: Range<u64>,
    ) -> Result<LocalLease> {
        Self::acquire_excluding(layout, state_dir, numbers, &[])
    }

    /// [`acquire_in`](Self::acquire_in) passing over `excluded` (values an
    /// application's node check refused).
    pub fn acquire_excluding(
        layout: &Layout,
        state_dir: &Path,
        numbers: Range<u64>,
        excluded: &[u64],
    ) -> Result<LocalLease> {
        let dir = Self::layout_dir(layout, state_dir)?;
        let count = numbers.end - numbers.start;
        // A value whose lock file cannot be opened (a directory planted at its
        // path, a file of another user) is skipped, not the end of the claim.
        let mut unusable: Option<String> = None;
        for number in numbers.clone().filter(|n| !excluded.contains(n)) {
            match Self::attempt(layout, &dir, number)? {
                Attempt::Held(lease) => return Ok(lease),
                Attempt::Busy => continue,
                Attempt::Unusable(why) => {
                    unusable.get_or_insert(why);
                }
            }
        }
        let which = if count as u128 == node_space(layout) {
            format!("every one of the {count} node values")
        } else {
            format!(
                "every one of the {count} node values {}..{}",
                numbers.start, numbers.end
            )
        };
        Err(Error::lease_lost(LeaseLostReason::Exhausted, match unusable {
            Some(first) => format!(
                "no node value of layout {} could be leased under {}: each is held by a live process or its lock file cannot be opened (first: {first})",
                layout.name(),
                dir.display()
            ),
            None => format!(
                "{which} of layout {} is held by a live process under {}{}",
                layout.name(),
                dir.display(),
                if excluded.is_empty() {
                    String::new()
                } else {
                    format!(" or was refused by the node check ({} of them)", excluded.len())
                }
            ),
        }))
    }

    /// Locks exactly node value `number`, which `source` (a variable, an
    /// ordinal) named: a second live process on this host with the same
    /// value is refused, naming the holder.
    pub fn acquire_exactly(
        layout: &Layout,
        state_dir: &Path,
        number: u64,
        source: &str,
    ) -> Result<LocalLease> {
        let dir = Self::layout_dir(layout, state_dir)?;
        match Self::attempt(layout, &dir, number)? {
            Attempt::Held(lease) => Ok(lease),
            Attempt::Busy => {
                let lock_path = dir.join(format!("node-{number}.lock"));
                let holder = fs::read_to_string(&lock_path)
                    .ok()
                    .map(|t| t.trim().to_owned())
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| "another process".to_owned());
                Err(Error::lease_lost(LeaseLostReason::TakenOver, format!(
                    "node value {number} of layout {} ({source}) is held by a live process on this host ({holder}, per {}); two processes with one identity issue the same IDs. Give each process its own value, or let each lease one (unset the variable, or add POLYFLAKE_WORKER_BITS for pre-forked workers; docs/identity.md)",
                    layout.name(),
                    lock_path.display()
                )))
            }
            Attempt::Unusable(why) => Err(Error::lease_lost(
                LeaseLostReason::StateUnsafe,
                format!(
                    "cannot lock node value {number} of layout {} ({source}): {why}",
                    layout.name()
                ),
            )),
        }
    }

    /// Keeps the high-water mark in `mark` rather than beside the lock.
    pub fn with_mark(mut self, mark: FileMark) -> LocalLease {
        self.mark = mark;
        self
    }

    fn layout_dir(layout: &Layout, state_dir: &Path) -> Result<PathBuf> {
        let dir = state_dir.join(layout_key(layout));
        private_dir(&dir)?;
        // Whoever owns a directory can swap the files in it: both must be ours.
        owned(state_dir)?;
        #[cfg_attr(not(unix), allow(unused_variables))]
        let meta = owned(&dir)?;
        // The layout's directory holds only our files: nobody else may write
        // there, whatever mode it was created with.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if meta.permissions().mode() & 0o077 != 0 {
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(|e| {
                    Error::state_io(&dir, "cannot make the state directory private", &e)
                })?;
            }
        }
        Ok(dir)
    }

    fn attempt(layout: &Layout, dir: &Path, number: u64) -> Result<Attempt> {
        let lock_path = dir.join(format!("node-{number}.lock"));
        let mut file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
        {
            Ok(file) => file,
            Err(e) => return Ok(Attempt::Unusable(format!("{} ({e})", lock_path.display()))),
        };
        match file.try_lock() {
            Ok(()) => {
                // Who holds it, for the message a second process gets.
                let _ = file
                    .set_len(0)
                    .and_then(|()| write!(file, "pid {}", std::process::id()));
                Ok(Attempt::Held(LocalLease {
                    number,
                    nodes: split_node_number(layout, number, "node number")?,
                    mark: FileMark::new(dir.join(format!("node-{number}.hwm"))),
                    lock_path,
                    lock: file,
                }))
            }
            Err(TryLockError::WouldBlock) => Ok(Attempt::Busy),
            Err(TryLockError::Error(e)) => Err(Error::state_io(&lock_path, "cannot lock", &e)),
        }
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
    /// The high-water mark's file.
    pub fn mark_path(&self) -> &Path {
        self.mark.path()
    }

    /// Fails unless the lock path still names the file this lease locked.
    fn check_still_held(&self) -> Result<()> {
        let lost = |why: String| {
            Err(Error::lease_lost(LeaseLostReason::TakenOver, format!(
                "the lock file {} of node {} {why} while this process held it; another process may hold the value now, so IDs are refused (create a new generator to lease again)",
                self.lock_path.display(),
                self.number
            )))
        };
        let held = self
            .lock
            .metadata()
            .map_err(|e| Error::state_io(&self.lock_path, "cannot stat the held lock file", &e))?;
        match fs::metadata(&self.lock_path) {
            Ok(now) if same_file(&held, &now) => Ok(()),
            Ok(_) => lost("was replaced".into()),
            Err(e) => lost(format!("was removed ({e})")),
        }
    }
}

impl MarkStore for LocalLease {
    fn load(&self) -> Result<Option<i64>> {
        self.mark.load()
    }
    fn persist(&self, until_ms: i64) -> Result<()> {
        self.check_still_held()?;
        self.mark.persist(until_ms)?;
        self.check_still_held()
    }
    /// Lowered only while the lock file is still this lease's: once it was
    /// removed or replaced, another process may hold the value and its mark.
    fn settle(&self, used_until_ms: i64) -> Result<()> {
        self.check_still_held()?;
        self.mark.settle(used_until_ms)
    }
}

/// Creates `dir` (and its parents) readable and writable by this user alone.
fn private_dir(dir: &Path) -> Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| Error::state_io(dir, "cannot create the state directory", &e))
}

/// Refuses a directory that another user owns: they could delete or replace
/// the lock and mark files in it. Returns what it read of the directory.
fn owned(dir: &Path) -> Result<fs::Metadata> {
    let meta = fs::metadata(dir)
        .map_err(|e| Error::state_io(dir, "cannot read the state directory", &e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        #[allow(unsafe_code)]
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(Error::lease_lost(LeaseLostReason::StateUnsafe, format!(
                "the state directory {} belongs to uid {}, not to this process's uid {me}; another user could remove or replace its lock and mark files. Set POLYFLAKE_STATE_DIR to a directory of your own",
                dir.display(),
                meta.uid()
            )));
        }
    }
    Ok(meta)
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    true
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

    #[test]
    fn a_deleted_or_replaced_lock_file_stops_the_holder() {
        let dir = std::env::temp_dir().join(format!("polyflake-lease-rm-{}", std::process::id()));
        let layout = Layout::twitter();
        let a = LocalLease::acquire(&layout, &dir).unwrap();
        a.persist(1_000).unwrap();
        fs::remove_file(a.lock_path()).unwrap();
        // The newcomer locks a new file at the same path and gets node 0 too …
        let b = LocalLease::acquire(&layout, &dir).unwrap();
        assert_eq!((a.number(), b.number()), (0, 0));
        assert_eq!(
            b.load().unwrap(),
            Some(1_000),
            "… but starts past the holder's mark"
        );
        // … and the holder refuses to move its mark on, so it issues nothing past it.
        let err = a.persist(2_000).unwrap_err();
        assert_eq!(err.code(), "LEASE_LOST");
        assert!(err.to_string().contains("was replaced"), "{err}");
        assert_eq!(
            b.load().unwrap(),
            Some(1_000),
            "the refused write never happened"
        );
        b.persist(3_000).unwrap();
        drop(b);
        fs::remove_file(a.lock_path()).unwrap();
        assert!(a
            .persist(4_000)
            .unwrap_err()
            .to_string()
            .contains("was removed"));
        fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_state_dir_of_another_user_is_refused() {
        let layout = Layout::twitter();
        // SAFETY: geteuid has no preconditions.
        #[allow(unsafe_code)]
        let root = unsafe { libc::geteuid() } == 0;
        let dir = if root {
            let dir =
                std::env::temp_dir().join(format!("polyflake-lease-owner-{}", std::process::id()));
            fs::create_dir_all(&dir).unwrap();
            std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
            dir
        } else {
            // The system's shared temporary directory is root's.
            std::env::temp_dir()
        };
        let err = LocalLease::acquire(&layout, &dir).unwrap_err();
        assert_eq!(err.code(), "LEASE_LOST");
        assert!(err.to_string().contains("belongs to uid"), "{err}");
        if root {
            fs::remove_dir_all(dir).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_layout_directory_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("polyflake-lease-mode-{}", std::process::id()));
        fs::create_dir_all(dir.join("twitter")).unwrap();
        fs::set_permissions(dir.join("twitter"), fs::Permissions::from_mode(0o777)).unwrap();
        let lease = LocalLease::acquire(&Layout::twitter(), &dir).unwrap();
        let mode = fs::metadata(dir.join("twitter"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        drop(lease);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_unopenable_lock_path_is_skipped() {
        let dir = std::env::temp_dir().join(format!("polyflake-lease-dir-{}", std::process::id()));
        let layout = Layout::twitter();
        fs::create_dir_all(dir.join("twitter/node-0.lock")).unwrap();
        let a = LocalLease::acquire(&layout, &dir).unwrap();
        assert_eq!(a.number(), 1);
        drop(a);
        fs::remove_dir_all(dir).unwrap();
    }
}
