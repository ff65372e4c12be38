//! What the terminal tests share: the binaries they run (built once per test run), and a
//! terminal surface in tmux on the demo or on server-everything.
// Each test file uses part of it.
#![allow(dead_code, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use interlude_test_support::tmux::Tmux;

/// The demo server, the example driving the terminal surface, and the CLI (`interlude
/// connect --tui`: the terminal with a page beside it to hand views to).
pub(crate) struct Binaries {
    pub(crate) demo: PathBuf,
    pub(crate) tui: PathBuf,
    pub(crate) cli: PathBuf,
}

/// `target/<profile>` of this test binary (`target/<profile>/deps/terminal-…`).
pub(crate) fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// Builds both binaries once per test run, in this test's profile and target directory.
///
/// The selection is that of `cargo xtask test`'s build step (xtask/src/main.rs), which is also
/// what `cargo test --workspace` builds: after either, this is a check that finds everything
/// fresh. A narrower build is not cheaper: cargo derives features, and which build-time crates
/// share artifacts with run-time ones, from the whole selection. Asking for the two packages
/// alone compiled rmcp, tokio and some sixty other crates a second time (minutes on two busy
/// cores, while these tests waited) and swapped the `interlude-demo` other tests run for a build
/// of its own; asking for the two targets across the workspace still compiled the demo and tui
/// crates again.
pub(crate) fn binaries() -> &'static Binaries {
    static BUILT: OnceLock<Binaries> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = profile_dir();
        let profile = match dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev".to_owned(),
            Some(other) => other.to_owned(),
            None => panic!("odd target directory {}", dir.display()),
        };
        let target_dir = dir.parent().expect("target dir");
        let cargo = std::env::var_os("CARGO")
            .or_else(|| option_env!("CARGO").map(Into::into))
            .unwrap_or_else(|| "cargo".into());
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut build = Command::new(&cargo);
        // Cargo sets these for the test process; build scripts that watch them (ring's) would
        // see a change and rebuild half the tree, then again in the next `cargo test`.
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if key.starts_with("CARGO_PKG_")
                || key.starts_with("CARGO_MANIFEST_")
                || key.starts_with("CARGO_BIN_")
                || [
                    "CARGO_CRATE_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                    "CARGO_TARGET_TMPDIR",
                    "CARGO_RUSTC_CURRENT_DIR",
                    "OUT_DIR",
                ]
                .contains(&key.as_ref())
            {
                build.env_remove(key.as_ref());
            }
        }
        let selection = ["--workspace", "--bins", "--tests", "--examples"];
        let status = build
            .current_dir(&workspace)
            .env("CARGO_TARGET_DIR", target_dir)
            .args(["build", "--quiet", "--profile", &profile])
            .args(selection)
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build {selection:?} failed");
        let built = Binaries {
            demo: dir.join("interlude-demo"),
            tui: dir.join("examples").join("tui_demo"),
            cli: dir.join("interlude"),
        };
        assert!(built.demo.exists(), "{} missing", built.demo.display());
        assert!(built.tui.exists(), "{} missing", built.tui.display());
        built
    })
}

pub(crate) fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// The terminal surface on the demo server, up to its tool menu. `None` when tmux is missing.
pub(crate) fn start_session() -> Option<Tmux> {
    // The spec is parsed like a shell line by `ServerSpec::parse`, hence the inner quoting.
    let spec = format!("demo={}", quote(&binaries().demo));
    session(&spec, 120, 40)
}

/// The terminal surface on server `spec` (`NAME=SPEC`), in a `columns` × `rows` terminal, up
/// to its tool menu. `None` when tmux is missing.
pub(crate) fn session(spec: &str, columns: u16, rows: u16) -> Option<Tmux> {
    let command = format!(
        "{} {}; echo \"[tui exited $?]\"; sleep 600",
        quote(&binaries().tui),
        quote(Path::new(spec))
    );
    let tmux = Tmux::start_sized(&command, columns, rows)?;
    tmux.wait_for("Call a tool:");
    Some(tmux)
}

/// The terminal on server-everything (a real npm peer over stdio), 120×40.
pub(crate) fn everything_session() -> Option<Tmux> {
    const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything/dist/index.js";
    let peers = interlude_test_support::NpmPeers::locate(&[SERVER_EVERYTHING])?;
    let spec = format!(
        "everything={} {} stdio",
        quote(&peers.node),
        quote(&peers.package_file(SERVER_EVERYTHING))
    );
    session(&spec, 120, 40)
}
