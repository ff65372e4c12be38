//! Which protocol version each server spoke the last time, remembered (in a small JSON file when
//! given one), so that a server which ignores `server/discover` costs its wait once.
//!
//! Negotiating (`ProtocolChoice::Auto`) asks a server for 2026-07-28 with `server/discover` and
//! falls back to `initialize` with 2025-11-25. A server that answers an unknown request with an
//! error falls back at once; one that silently ignores it makes rmcp wait 10 s first, on every
//! connection. So the host remembers, per server (its command line or URL), that it spoke a
//! 2025 version, and next time starts with `initialize` straight away. A server remembered so
//! that then fails to start is forgotten, and negotiated afresh on the next connection.
//!
//! What it does not do: pin a server the person configured (an explicit version wins), or
//! remember 2026-07-28 servers (they answer `server/discover` at once anyway).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use interlude_protocol::ProtocolEra;
use rmcp::model::ProtocolVersion;

/// What the host remembers of servers' protocol versions.
///
/// ```
/// use interlude_host::EraMemory;
/// use rmcp::model::ProtocolVersion;
///
/// let dir = std::env::temp_dir().join(format!("interlude-eras-doc-{}", std::process::id()));
/// let path = dir.join("eras.json");
/// let memory = EraMemory::at(&path);
/// memory.remember("python3 server.py", &ProtocolVersion::V_2025_11_25);
/// // Another run reads the same file.
/// assert_eq!(
///     EraMemory::at(&path).recall("python3 server.py"),
///     Some(ProtocolVersion::V_2025_11_25)
/// );
/// # std::fs::remove_dir_all(dir).ok();
/// ```
#[derive(Debug, Default)]
pub struct EraMemory {
    /// Where it is kept between runs; `None`: this process only.
    path: Option<PathBuf>,
    versions: Mutex<BTreeMap<String, String>>,
}

/// How many servers are remembered at most (the file stays small).
const REMEMBERED: usize = 256;

impl EraMemory {
    /// A memory for this process only.
    pub fn in_memory() -> Self {
        EraMemory::default()
    }

    /// A memory kept in the JSON file at `path` (read now; written on every change). A file
    /// that cannot be read or parsed is an empty memory, and is replaced on the first change.
    pub fn at(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref().to_path_buf();
        let versions = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        EraMemory {
            path: Some(path),
            versions: Mutex::new(versions),
        }
    }

    /// The usual file: `$XDG_CACHE_HOME/interlude/eras.json`, else `~/.cache/interlude/eras.json`.
    pub fn default_path() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|home| PathBuf::from(home).join(".cache"))
            })?;
        Some(base.join("interlude").join("eras.json"))
    }

    /// The 2025 version server `target` spoke last time, if it did.
    pub fn recall(&self, target: &str) -> Option<ProtocolVersion> {
        let versions = crate::sync::lock(&self.versions);
        let version: ProtocolVersion =
            serde_json::from_value(serde_json::Value::String(versions.get(target)?.clone()))
                .ok()?;
        (ProtocolEra::of(&version) == ProtocolEra::Push).then_some(version)
    }

    /// Server `target` spoke `version`: a 2025 version is remembered, a 2026-07-28 one makes
    /// the host forget the server (it negotiates quickly).
    pub fn remember(&self, target: &str, version: &ProtocolVersion) {
        if ProtocolEra::of(version) != ProtocolEra::Push {
            self.forget(target);
            return;
        }
        let changed = {
            let mut versions = crate::sync::lock(&self.versions);
            if versions.len() >= REMEMBERED && !versions.contains_key(target) {
                return;
            }
            versions.insert(target.to_owned(), version.to_string()) != Some(version.to_string())
        };
        if changed {
            self.save();
        }
    }

    /// Forgets server `target` (it will be negotiated afresh).
    pub fn forget(&self, target: &str) {
        let changed = crate::sync::lock(&self.versions).remove(target).is_some();
        if changed {
            self.save();
        }
    }

    /// Writes the file, mode 0600: a new temporary file renamed over it, so a reader never sees
    /// half of it ([`crate::logs::private_file::replace`]).
    fn save(&self) {
        let Some(path) = &self.path else { return };
        let Ok(text) = serde_json::to_string_pretty(&*crate::sync::lock(&self.versions)) else {
            return;
        };
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::logs::private_file::replace(path, text.as_bytes()));
        if let Err(e) = written {
            tracing::debug!(
                "cannot keep the servers' protocol versions in {}: {e}",
                path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_2025_versions_are_remembered_and_a_bad_file_is_an_empty_memory() {
        let dir = std::env::temp_dir().join(format!("interlude-eras-{}", std::process::id()));
        let path = dir.join("eras.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, "not json").unwrap();
        let memory = EraMemory::at(&path);
        assert_eq!(memory.recall("a"), None);
        memory.remember("a", &ProtocolVersion::V_2025_11_25);
        memory.remember("b", &ProtocolVersion::V_2026_07_28);
        assert_eq!(memory.recall("a"), Some(ProtocolVersion::V_2025_11_25));
        assert_eq!(memory.recall("b"), None);
        let again = EraMemory::at(&path);
        assert_eq!(again.recall("a"), Some(ProtocolVersion::V_2025_11_25));
        // A server that moved on to 2026-07-28 is forgotten.
        again.remember("a", &ProtocolVersion::V_2026_07_28);
        assert_eq!(EraMemory::at(&path).recall("a"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_written_0600_and_never_through_a_planted_temporary_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("interlude-eras-mode-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let path = dir.join("eras.json");
        // The name the old code wrote through, planted as a link to a file it must not touch.
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let planted = path.with_extension(format!("json.{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        EraMemory::at(&path).remember("a", &ProtocolVersion::V_2025_11_25);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
