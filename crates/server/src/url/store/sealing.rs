//! Secrets sealed at rest, and files that must be the user's own.
//!
//! [`SqliteStore`](super::SqliteStore) keeps every secret sealed with ChaCha20-Poly1305 (ring's
//! AEAD, a random 96-bit nonce per secret, the user and the secret's name as associated data,
//! so a sealed value moved to another row does not open). The key is a [`StoreKey`]: by default
//! a file of its own beside the database (`<database>.key`), or whatever the server author
//! supplies ([`SqliteStore::open_with_key`](super::SqliteStore::open_with_key)).
//!
//! What it protects against: a copy of the database without its key — a backup, a file sent
//! along with a bug report, the `-wal` left behind, an `sqlite3` dump. What it does not: someone
//! who can read the key as well (the same user, root), or a running server being asked for the
//! secret through its own API.
//!
//! Every file the store uses (the database, its `-wal` and `-shm`, the key file) must belong
//! to the user the server runs as and be readable and writable by that user only; a file that
//! exists and is not is refused ([`StoreError::NotPrivate`]) rather than used, so that a file
//! another local user created in advance (say, `0666` in a shared folder) never receives a
//! secret.

use std::fmt;
use std::path::{Path, PathBuf};

use rand::RngCore;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};

use super::{StoreError, UserId};

/// How many bytes a [`StoreKey`] has.
pub const STORE_KEY_LEN: usize = 32;

/// The key that seals the secrets of a [`SqliteStore`](super::SqliteStore) at rest
/// (ChaCha20-Poly1305, 256 bits). `Debug` shows no key material.
///
/// ```
/// use interlude_server::url::StoreKey;
///
/// let key = StoreKey::from_bytes([7u8; 32]);
/// assert_eq!(format!("{key:?}"), "StoreKey(***)");
/// # let _ = StoreKey::random();
/// ```
#[derive(Clone)]
pub struct StoreKey {
    bytes: [u8; STORE_KEY_LEN],
}

impl fmt::Debug for StoreKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StoreKey(***)")
    }
}

impl StoreKey {
    /// The key made of `bytes` (keep them somewhere the database is not: a secrets manager,
    /// an environment the server's supervisor sets).
    pub fn from_bytes(bytes: [u8; STORE_KEY_LEN]) -> Self {
        StoreKey { bytes }
    }

    /// The AEAD key (a 32-byte key is exactly what ChaCha20-Poly1305 takes).
    fn aead(&self) -> Option<LessSafeKey> {
        UnboundKey::new(&CHACHA20_POLY1305, &self.bytes)
            .ok()
            .map(LessSafeKey::new)
    }

    /// A fresh key from the thread's cryptographically secure generator.
    pub fn random() -> Self {
        Self::from_bytes(random_bytes())
    }

    /// The key in the file at `path` (64 hex digits), creating the file with a fresh key when
    /// there is none: readable and writable by its owner only, written in full before it
    /// appears (two processes starting together read the same key). A file that belongs to
    /// someone else, that others may read or write, or that holds anything but a key is
    /// refused.
    ///
    /// ```
    /// use interlude_server::url::StoreKey;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let path = std::env::temp_dir().join(format!("store-key-doc-{}.key", std::process::id()));
    /// let key = StoreKey::load_or_create(&path)?;
    /// let again = StoreKey::load_or_create(&path)?; // the same key, read back
    /// # let _ = (key, again);
    /// # std::fs::remove_file(&path)?;
    /// # Ok(()) }
    /// ```
    pub fn load_or_create(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        if !path.exists() {
            create_key_file(path)?;
        }
        check_private(path)?;
        let text = std::fs::read_to_string(path).map_err(StoreError::Io)?;
        let bytes = unhex(text.trim()).ok_or_else(|| StoreError::KeyFile {
            path: path.to_owned(),
            reason: "does not hold a key (64 hex digits)",
        })?;
        Ok(Self::from_bytes(bytes))
    }

    /// `secret` sealed for `user`'s secret `name`: the nonce, then the ciphertext and its tag.
    pub(crate) fn seal(
        &self,
        user: &UserId,
        name: &str,
        secret: &[u8],
    ) -> Result<Vec<u8>, StoreError> {
        self.seal_for(&associated_data(user, name), secret)
            .ok_or_else(|| StoreError::Corrupt("secrets.value (cannot be sealed)".to_owned()))
    }

    /// What [`StoreKey::seal`] sealed, or None when it was sealed with another key, for another
    /// row, or altered.
    pub(crate) fn open(&self, user: &UserId, name: &str, sealed: &[u8]) -> Option<Vec<u8>> {
        self.open_for(&associated_data(user, name), sealed)
    }

    /// Task `id`'s record sealed for its row (see [`StoreKey::seal`]).
    pub(crate) fn seal_task(&self, id: &str, record: &[u8]) -> Result<Vec<u8>, StoreError> {
        self.seal_for(&task_associated_data(id), record)
            .ok_or_else(|| StoreError::Corrupt("tasks.record (cannot be sealed)".to_owned()))
    }

    /// What [`StoreKey::seal_task`] sealed for task `id`, or None.
    pub(crate) fn open_task(&self, id: &str, sealed: &[u8]) -> Option<Vec<u8>> {
        self.open_for(&task_associated_data(id), sealed)
    }

    /// `plain` sealed and bound to `ad`: the nonce, then the ciphertext and its tag.
    fn seal_for(&self, ad: &[u8], plain: &[u8]) -> Option<Vec<u8>> {
        let nonce = random_nonce();
        let mut sealed = plain.to_vec();
        self.aead()?
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(ad),
                &mut sealed,
            )
            .ok()?;
        let mut out = Vec::with_capacity(NONCE_LEN + sealed.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Some(out)
    }

    /// What [`StoreKey::seal_for`] sealed with `ad`, or None.
    fn open_for(&self, ad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
        let (nonce, ciphertext) = sealed.split_at_checked(NONCE_LEN)?;
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut buffer = ciphertext.to_vec();
        let opened = self
            .aead()?
            .open_in_place(nonce, Aad::from(ad), &mut buffer)
            .ok()?;
        Some(opened.to_vec())
    }
}

/// For the fuzz targets only (feature `fuzzing`, off by default): [`StoreKey::seal`] and
/// [`StoreKey::open`], which are otherwise private to the crate. Not part of the API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
impl StoreKey {
    /// [`StoreKey::seal`], for the fuzz targets only.
    pub fn fuzz_seal(&self, user: &UserId, name: &str, secret: &[u8]) -> Option<Vec<u8>> {
        self.seal(user, name, secret).ok()
    }

    /// [`StoreKey::open`], for the fuzz targets only.
    pub fn fuzz_open(&self, user: &UserId, name: &str, sealed: &[u8]) -> Option<Vec<u8>> {
        self.open(user, name, sealed)
    }
}

fn associated_data(user: &UserId, name: &str) -> Vec<u8> {
    let mut ad = b"interlude/secret/v1\0".to_vec();
    ad.extend_from_slice(user.as_str().as_bytes());
    ad.push(0);
    ad.extend_from_slice(name.as_bytes());
    ad
}

/// A task's record is bound to its id, and can never pass for a secret (nor one for it).
fn task_associated_data(id: &str) -> Vec<u8> {
    let mut ad = b"interlude/task/v1\0".to_vec();
    ad.extend_from_slice(id.as_bytes());
    ad
}

fn random_bytes() -> [u8; STORE_KEY_LEN] {
    let mut bytes = [0u8; STORE_KEY_LEN];
    rand::rng().fill_bytes(&mut bytes);
    bytes
}

fn random_nonce() -> [u8; NONCE_LEN] {
    let mut nonce = [0u8; NONCE_LEN];
    rand::rng().fill_bytes(&mut nonce);
    nonce
}

fn unhex(text: &str) -> Option<[u8; STORE_KEY_LEN]> {
    let mut out = [0u8; STORE_KEY_LEN];
    if text.len() != 2 * STORE_KEY_LEN || !text.is_ascii() {
        return None;
    }
    for (slot, i) in out.iter_mut().zip((0..text.len()).step_by(2)) {
        *slot = u8::from_str_radix(text.get(i..i + 2)?, 16).ok()?;
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes a fresh key to `path`, owner-only, complete before it appears under that name: the
/// key is written to a file of this caller's own first (a random name), then linked (a link
/// never replaces a file another process or thread created meanwhile; that one's key wins).
fn create_key_file(path: &Path) -> Result<(), StoreError> {
    let mut temporary = path.as_os_str().to_owned();
    let mut nonce = [0u8; 8];
    rand::rng().fill_bytes(&mut nonce);
    temporary.push(format!(".{}-{}.tmp", std::process::id(), hex(&nonce)));
    let temporary = PathBuf::from(temporary);
    let written = write_private(&temporary, format!("{}\n", hex(&random_bytes())).as_bytes());
    let linked = written.and_then(|()| std::fs::hard_link(&temporary, path));
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => Ok(()),
        // Another process linked its key first: that one is the key.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && path.exists() => Ok(()),
        Err(e) => Err(StoreError::Io(e)),
    }
}

/// Creates the file at `path` (it must not exist), readable and writable by its owner only,
/// holding `content`.
fn write_private(path: &Path, content: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(content)?;
    file.sync_all()
}

/// Refuses the file at `path` if it exists and is not the user's own: another owner, or
/// permissions for the group or others, or a symbolic link (never followed: whoever may change
/// where it points would choose the store). Nothing is checked where there are no Unix
/// permissions.
pub(crate) fn check_private(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        for metadata in [std::fs::symlink_metadata(path), std::fs::metadata(path)] {
            let metadata = match metadata {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(StoreError::Io(e)),
            };
            if metadata.file_type().is_symlink() {
                return Err(StoreError::NotPrivate {
                    path: path.to_owned(),
                    reason: "is a symbolic link (a store is never opened through one)",
                });
            }
            let mode = metadata.mode();
            if let Some(reason) = not_private(metadata.uid(), mode, me) {
                return Err(StoreError::NotPrivate {
                    path: path.to_owned(),
                    reason,
                });
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Why a file owned by `owner` with permission bits `mode` is not private to user `me`, if it
/// is not.
pub(crate) fn not_private(owner: u32, mode: u32, me: u32) -> Option<&'static str> {
    if owner != me {
        Some("belongs to another user")
    } else if mode & 0o077 != 0 {
        Some("may be read or written by other users (its mode allows the group or others)")
    } else {
        None
    }
}

/// [`check_private`] for the database at `path` and the `-wal`, `-shm` and `-journal` files
/// SQLite keeps beside it.
pub(crate) fn check_database_files(path: &Path) -> Result<(), StoreError> {
    check_private(path)?;
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut beside = path.as_os_str().to_owned();
        beside.push(suffix);
        check_private(Path::new(&beside))?;
    }
    Ok(())
}

/// The default key file of the database at `path`: `<path>.key`.
pub(crate) fn key_path(path: &Path) -> PathBuf {
    let mut key = path.as_os_str().to_owned();
    key.push(".key");
    PathBuf::from(key)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn a_file_of_another_user_or_open_to_others_is_not_private() {
        assert_eq!(not_private(1000, 0o100600, 1000), None);
        assert_eq!(not_private(1000, 0o100400, 1000), None);
        assert_eq!(
            not_private(1001, 0o100600, 1000),
            Some("belongs to another user")
        );
        // Root's file is not the user's either.
        assert!(not_private(0, 0o100600, 1000).is_some());
        for mode in [0o100666, 0o100644, 0o100640, 0o100606, 0o100620, 0o100602] {
            assert!(not_private(1000, mode, 1000).is_some(), "{mode:o}");
        }
    }

    /// Issue 34, round two: a store path that is a link (to a private file of the user's,
    /// even) is refused, not followed.
    #[cfg(unix)]
    #[test]
    fn a_store_path_that_is_a_symbolic_link_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("interlude-store-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("real.db");
        std::fs::write(&target, b"").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        check_private(&target).unwrap();
        let link = dir.join("store.db");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = check_private(&link).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_sealed_secret_opens_for_its_row_and_key_only() {
        let key = StoreKey::random();
        let ada = UserId::new("ada");
        let sealed = key.seal(&ada, "openai", b"sk-live-1234").unwrap();
        assert!(!sealed.windows(12).any(|w| w == b"sk-live-1234"));
        assert_eq!(
            key.open(&ada, "openai", &sealed).as_deref(),
            Some(&b"sk-live-1234"[..])
        );
        // Another row, another key, a changed byte, a short value: nothing.
        assert_eq!(key.open(&UserId::new("bob"), "openai", &sealed), None);
        assert_eq!(key.open(&ada, "github", &sealed), None);
        assert_eq!(StoreKey::random().open(&ada, "openai", &sealed), None);
        let mut altered = sealed.clone();
        if let Some(last) = altered.last_mut() {
            *last ^= 1;
        }
        assert_eq!(key.open(&ada, "openai", &altered), None);
        assert_eq!(key.open(&ada, "openai", &sealed[..5]), None);
        // A fresh nonce each time.
        assert_ne!(
            key.seal(&ada, "openai", b"x").unwrap(),
            key.seal(&ada, "openai", b"x").unwrap()
        );
    }

    #[test]
    fn callers_racing_to_create_a_key_file_all_read_the_same_key() {
        let path = std::env::temp_dir().join(format!(
            "interlude-key-race-{}-{}.key",
            std::process::id(),
            hex(&random_nonce())
        ));
        let keys: Vec<[u8; STORE_KEY_LEN]> = std::thread::scope(|scope| {
            let racers: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| StoreKey::load_or_create(&path).unwrap().bytes))
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert!(keys.iter().all(|k| *k == keys[0]));
        let folder = path.parent().unwrap();
        let leftovers = std::fs::read_dir(folder)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with(&*path.file_name().unwrap().to_string_lossy())
                    && name.ends_with(".tmp")
            })
            .count();
        assert_eq!(leftovers, 0);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn key_text_is_64_hex_digits() {
        let bytes = random_bytes();
        assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex("abcd"), None);
        assert_eq!(unhex(&"zz".repeat(32)), None);
    }
}
