//! Files written for the person — a recording, a `--trace`, the remembered protocol versions —
//! created so that another user of the machine can neither read them nor slip a file of their
//! own in their place:
//!
//! - in a folder that is the user's (or root's) and that the group and others cannot write to,
//!   unless it is sticky like `/tmp` (where nobody may replace another's file);
//! - created new (`O_CREAT | O_EXCL`, which also refuses a symbolic link, dangling or not),
//!   mode 0600 from the first byte;
//! - a file rewritten whole ([`replace`]) goes to a temporary file of a random name in the same
//!   folder, created that way, then renamed over the old one: a planted `FILE.part` or a link
//!   at a predictable name is never opened, and a link's target is never written.
//!
//! What it deliberately does not do: lock files against the user's own other processes,
//! encrypt anything, or check anything where there are no Unix permissions (elsewhere it only
//! creates new files and renames).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The permissions of every file created here: read and write for the owner only.
pub const MODE: u32 = 0o600;

/// Refuses `folder` unless it is a folder of the user's (or root's) that neither the group nor
/// others may write to — a sticky folder (`/tmp`) aside.
///
/// ```
/// let dir = std::env::temp_dir();
/// interlude_host::private_file::check_folder(&dir).unwrap();
/// ```
pub fn check_folder(folder: &Path) -> io::Result<()> {
    let metadata = std::fs::metadata(folder)?;
    if !metadata.is_dir() {
        return Err(refused(folder, "is not a folder"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        if metadata.uid() != me && metadata.uid() != 0 {
            return Err(refused(folder, "belongs to another user"));
        }
        let sticky = metadata.mode() & 0o1000 != 0;
        if metadata.mode() & 0o022 != 0 && !sticky {
            return Err(refused(
                folder,
                "may be written by other users (its mode allows the group or others)",
            ));
        }
    }
    Ok(())
}

/// Creates `path`, which must not exist (not even as a symbolic link), mode 0600, in a folder
/// [`check_folder`] accepts.
pub fn create_new(path: &Path) -> io::Result<File> {
    check_folder(&folder_of(path))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, MODE);
    options.open(path)
}

/// Creates `path` afresh for writing from the start (a `--trace` file): an old file of the
/// user's own at that name is removed first; a symbolic link, a file of another user or
/// anything else there is refused (never followed, never written through).
pub fn create_fresh(path: &Path) -> io::Result<File> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) => {
            if metadata.file_type().is_symlink() {
                return Err(refused(path, "is a symbolic link"));
            }
            if !metadata.is_file() {
                return Err(refused(path, "is not a regular file"));
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                if metadata.uid() != rustix::process::geteuid().as_raw() {
                    return Err(refused(path, "belongs to another user"));
                }
            }
            check_folder(&folder_of(path))?;
            std::fs::remove_file(path)?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    create_new(path)
}

/// Writes `contents` as the whole of `path`, atomically: into a new temporary file of a random
/// name beside it ([`create_new`]), synced, then renamed over `path` (a reader sees the old
/// file or the new one, never half of one; a link at `path` is replaced, its target left
/// alone).
///
/// ```
/// let dir = std::env::temp_dir().join(format!("interlude-private-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("notes.json");
/// interlude_host::private_file::replace(&file, b"{}").unwrap();
/// interlude_host::private_file::replace(&file, b"{\"a\": 1}").unwrap();
/// assert_eq!(std::fs::read(&file).unwrap(), b"{\"a\": 1}");
/// # std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a file name is needed"))?;
    let folder = folder_of(path);
    let mut last = None;
    // A name taken already (planted, or a left-over) is skipped, never opened.
    for _ in 0..8 {
        let mut temporary = std::ffi::OsString::from(".");
        temporary.push(name);
        temporary.push(format!(".{:016x}.tmp", random()));
        let temporary = folder.join(temporary);
        let mut file = match create_new(&temporary) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                last = Some(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        let written = file
            .write_all(contents)
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&temporary, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        return written;
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name was free")))
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// A number nobody else can guess: the standard library's per-process random hash keys,
/// mixed with the time and a counter.
fn random() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one((nanos, COUNTER.fetch_add(1, Ordering::Relaxed)))
}

/// The error for a path refused, saying why.
fn refused(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{} {why}; refusing to write there", path.display()),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("interlude-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
        dir
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_is_0600_and_a_link_s_target_is_left_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("private-replace");
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let file = dir.join("out.json");
        std::os::unix::fs::symlink(&victim, &file).unwrap();
        replace(&file, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let metadata = std::fs::symlink_metadata(&file).unwrap();
        assert!(metadata.is_file());
        assert_eq!(metadata.permissions().mode() & 0o777, 0o600);
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn create_fresh_refuses_a_link_and_replaces_the_user_s_own_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("private-fresh");
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.join("trace.jsonl");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = create_fresh(&link).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        std::fs::remove_file(&link).unwrap();
        std::fs::write(&link, "old").unwrap();
        std::fs::set_permissions(&link, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(create_fresh(&link).unwrap());
        let metadata = std::fs::metadata(&link).unwrap();
        assert_eq!(
            (metadata.len(), metadata.permissions().mode() & 0o777),
            (0, 0o600)
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_others_may_write_to_is_refused_unless_sticky() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("private-folder");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = create_new(&dir.join("x")).unwrap_err();
        assert!(
            e.to_string().contains("may be written by other users"),
            "{e}"
        );
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
        drop(create_new(&dir.join("x")).unwrap());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
