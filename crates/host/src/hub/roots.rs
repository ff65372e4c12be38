//! The roots the host gives its servers: folders a server may work in, answered to `roots/list`
//! from the configuration (`--root DIR`, `roots` in a config file) and said again with
//! `notifications/roots/list_changed` when they change. Nobody is asked: roots are the
//! person's settings, not a question.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// One root: a `file://` URI and the name a server may show for it.
///
/// ```
/// use interlude_host::Root;
/// let dir = std::env::temp_dir();
/// let root = Root::from_dir(&dir).unwrap();
/// assert!(root.uri.starts_with("file:///"));
/// assert!(Root::from_dir(dir.join("no such folder here")).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// The folder, as a `file://` URI.
    pub uri: String,
    /// A name for it (the folder's own name by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A folder that cannot be a root.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    /// It does not exist or cannot be read.
    #[error("root {path}: {source}")]
    Unreadable {
        /// The folder as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a folder.
    #[error("root {0}: not a folder")]
    NotAFolder(String),
    /// Its path cannot be said as a `file://` URI.
    #[error("root {0}: cannot be written as a file:// URI")]
    NotAUri(String),
}

impl Root {
    /// The root for folder `dir` (made absolute, links resolved), named after the folder.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Root, RootError> {
        let dir = dir.as_ref();
        let shown = dir.display().to_string();
        let path = dir.canonicalize().map_err(|source| RootError::Unreadable {
            path: shown.clone(),
            source,
        })?;
        if !path.is_dir() {
            return Err(RootError::NotAFolder(shown));
        }
        let uri =
            url::Url::from_directory_path(&path).map_err(|()| RootError::NotAUri(shown.clone()))?;
        // `from_directory_path` ends the URI with a slash; roots are usually written without.
        let uri = uri.as_str().trim_end_matches('/').to_owned();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        Ok(Root { uri, name })
    }

    /// The root as the wire has it.
    #[allow(deprecated)] // rmcp marks roots deprecated by SEP-2577; both eras still use them.
    pub(crate) fn to_wire(&self) -> rmcp::model::Root {
        let mut root = rmcp::model::Root::new(self.uri.clone());
        root.name = self.name.clone();
        root
    }
}

/// `roots`, as the `roots/list` result.
#[allow(deprecated)] // rmcp marks roots deprecated by SEP-2577; both eras still use them.
pub(crate) fn list_result(roots: &[Root]) -> rmcp::model::ListRootsResult {
    rmcp::model::ListRootsResult::new(roots.iter().map(Root::to_wire).collect())
}
