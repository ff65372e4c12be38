//! `cargo xtask`: Interlude's test orchestration.
//!
//! Commands:
//! - `cargo xtask peers`: install the prerequisites of the real-peer and browser tests (Node 22,
//!   the pinned npm peers, the pinned Python peers, Debian's chromium and chromium-driver); quick
//!   when they are present.
//! - `cargo xtask tidy`: the architecture checks (dependency arrows, no unused dependency, the
//!   engine's dependency tree, the ARCHITECTURE.md code map, no `mod.rs`, no path outside the
//!   repository).
//! - `cargo xtask test`: peers, then fmt check, clippy, rustdoc (`-D warnings`), tidy, build
//!   (bins, tests and examples), the conformance suite in client mode against
//!   `interlude-conformance-client` (both requirement sets; `auth/*` reported as not covered) and
//!   in server mode against `interlude-conformance-server` (both sets, the Tasks extension's
//!   `tasks-*` scenarios judged like the rest), and every test, with the real peers mandatory. This is what CI runs (`.ci/run`).
//! - `cargo xtask conformance`: peers, then builds `interlude-conformance-client` and
//!   `interlude-conformance-server` alone and runs the conformance step of `test` (quick, for
//!   working on either).
//! - `cargo xtask fuzz [--seconds N] [--runs N] [--sanitizer address|none] [TARGET…]`: the fuzz
//!   targets of `fuzz/` (nightly, cargo-fuzz installed when missing): build, replay the
//!   committed reproducers, then run each target (60 s by default). Not part of `test`.
//!
//! It deliberately does not download anything but through the ordinary clients (npm, apt-get),
//! and it never starts long-lived processes of its own: tests start and stop their peers, and the
//! conformance step stops the conformance server it starts (which also stops by itself should
//! xtask die first).
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod conformance;
mod fuzz;
mod peers;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

const USAGE: &str = "usage: cargo xtask <peers|tidy|test|conformance|fuzz [--seconds N] [--runs N] \
                     [--sanitizer address|none] [TARGET…]>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["peers"] => peers::install(&root()).map(|_| ()),
        ["tidy"] => tidy::run(&root()),
        ["test"] => test(&root()),
        ["conformance"] => conformance_only(&root()),
        ["fuzz", rest @ ..] => fuzz::run_fuzz(&root(), rest),
        ["help" | "--help" | "-h"] => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(anyhow::anyhow!("{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of this crate's folder).
fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The `cargo` that runs us, so toolchain overrides carry through.
///
/// Without the variables `cargo run` sets for xtask itself: build scripts that watch one of them
/// (ring watches `CARGO_MANIFEST_DIR`) would otherwise rebuild on every switch between
/// `cargo xtask` and plain `cargo`.
fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key.starts_with("CARGO_PKG_")
            || matches!(
                key,
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
            )
        {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// Runs `cmd` with inherited stdio and fails unless it exits 0.
fn run(cmd: &mut Command) -> anyhow::Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot start `{}`", describe(cmd)))?;
    if !status.success() {
        bail!("`{}` failed ({status})", describe(cmd));
    }
    Ok(())
}

/// Runs `cmd` and returns its stdout; stderr is passed through.
fn output(cmd: &mut Command) -> anyhow::Result<String> {
    let out = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start `{}`", describe(cmd)))?;
    if !out.status.success() {
        bail!("`{}` failed ({})", describe(cmd), out.status);
    }
    String::from_utf8(out.stdout)
        .with_context(|| format!("`{}` printed non-UTF-8 output", describe(cmd)))
}

/// `program arg…`, without the environment noise of `{cmd:?}`.
fn describe(cmd: &Command) -> String {
    let program = Path::new(cmd.get_program())
        .file_name()
        .unwrap_or(cmd.get_program())
        .to_string_lossy()
        .into_owned();
    std::iter::once(program)
        .chain(cmd.get_args().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The timed steps of `cargo xtask test`.
struct Steps {
    done: Vec<(&'static str, Duration, bool)>,
    started: Instant,
}

impl Steps {
    fn step(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        eprintln!("xtask: ── {name}");
        let start = Instant::now();
        let result = f();
        self.done.push((name, start.elapsed(), result.is_ok()));
        if result.is_err() {
            self.summary();
        }
        result.with_context(|| format!("step `{name}` failed"))
    }

    fn summary(&self) {
        eprintln!("xtask: summary");
        for (name, took, ok) in &self.done {
            let verdict = if *ok { "ok" } else { "FAILED" };
            eprintln!("  {name:<11} {verdict:<6} {:>8}", secs(*took));
        }
        eprintln!(
            "  {:<11} {:<6} {:>8}",
            "total",
            "",
            secs(self.started.elapsed())
        );
    }
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

/// `cargo xtask conformance`: the conformance step with only the client and the server built.
fn conformance_only(root: &Path) -> anyhow::Result<()> {
    let peers = peers::install(root)?;
    run(cargo().current_dir(root).args([
        "build",
        "-p",
        "interlude-cli",
        "--bin",
        "interlude-conformance-client",
        "-p",
        "interlude-conformance-server",
        "--bin",
        "interlude-conformance-server",
    ]))?;
    let target = conformance::target_dir(root)?;
    conformance::run(root, &peers, &target)
}

fn test(root: &Path) -> anyhow::Result<()> {
    let mut steps = Steps {
        done: Vec::new(),
        started: Instant::now(),
    };
    let mut found = None;
    steps.step("peers", || {
        found = Some(peers::install(root)?);
        Ok(())
    })?;
    let peers = found.context("peers were not located")?;
    steps.step("fmt", || {
        run(cargo()
            .current_dir(root)
            .args(["fmt", "--all", "--", "--check"]))
    })?;
    steps.step("clippy", || {
        run(cargo().current_dir(root).args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
    })?;
    // Broken or private intra-doc links and malformed doc comments fail like a clippy warning.
    // Public items only, as docs.rs shows them; the dependencies' metadata is clippy's.
    steps.step("doc", || {
        run(cargo()
            .current_dir(root)
            .args(["doc", "--workspace", "--no-deps"])
            .env("RUSTDOCFLAGS", "-D warnings"))
    })?;
    steps.step("tidy", || tidy::run(root))?;
    // `--tests` too: the bins then get the same (dev-dependency-unified) features as under
    // `cargo test`, which reuses them instead of compiling rmcp and friends a second time.
    // `--examples`: the terminal tests run one. They build this very selection again, to find
    // their binaries fresh (crates/tui/tests/terminal.rs): keep the two the same.
    steps.step("build", || {
        run(cargo().current_dir(root).args([
            "build",
            "--workspace",
            "--bins",
            "--tests",
            "--examples",
        ]))
    })?;
    // The MCP conformance suite, client and server halves, both requirement sets (seconds).
    steps.step("conformance", || {
        let target = conformance::target_dir(root)?;
        conformance::run(root, &peers, &target)
    })?;
    steps.step("test", || {
        run(cargo()
            .current_dir(root)
            .args(["test", "--workspace"])
            .env("INTERLUDE_NODE", &peers.node)
            .env("INTERLUDE_NPM_PEERS", &peers.npm)
            .env("INTERLUDE_PYTHON_PEERS", &peers.python)
            .env("INTERLUDE_REQUIRE_PEERS", "1"))
    })?;
    steps.summary();
    Ok(())
}
