//! `cargo xtask fuzz`: the fuzz targets of `fuzz/` (cargo-fuzz, libFuzzer), outside
//! `cargo xtask test` (they need the nightly toolchain and minutes per target).
//!
//! Steps: install the pinned cargo-fuzz when it is missing; build every target once; replay
//! every committed reproducer under `fuzz/artifacts/<target>/` (each must now pass); then run
//! each target for `--seconds` (default 60) or `--runs`, with the committed seeds
//! (`fuzz/corpus/<target>/`) and the dictionary (`fuzz/dict/mcp.dict`). What libFuzzer learns
//! goes to `fuzz/target/corpus/<target>/`, so the committed seeds stay hand-written. A crash
//! fails the command, naming the reproducer libFuzzer wrote and how to replay it.
//!
//! Options: `--seconds N` (per target; 0 builds and replays only), `--runs N` (stop after N
//! executions instead, e.g. 10000000 for the long run), `--sanitizer address|none` (default
//! `address`), and target names to run only those.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::{describe, run};

/// The cargo-fuzz release `cargo xtask fuzz` installs (`cargo install --locked`).
const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// The toolchain cargo-fuzz needs (`-Z` flags, sanitizers).
const TOOLCHAIN: &str = "+nightly";

/// What a run does.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    seconds: u64,
    runs: Option<u64>,
    sanitizer: String,
    targets: Vec<String>,
}

fn parse(args: &[&str]) -> anyhow::Result<Options> {
    let mut options = Options {
        seconds: 60,
        runs: None,
        sanitizer: "address".to_owned(),
        targets: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .with_context(|| format!("{name} needs a value"))
                .map(|v| (*v).to_owned())
        };
        match *arg {
            "--seconds" => {
                options.seconds = value("--seconds")?
                    .parse()
                    .context("--seconds takes a whole number")?;
            }
            "--runs" => {
                options.runs = Some(
                    value("--runs")?
                        .parse()
                        .context("--runs takes a whole number")?,
                );
            }
            "--sanitizer" | "-s" => options.sanitizer = value("--sanitizer")?,
            flag if flag.starts_with('-') => bail!("unknown option {flag}"),
            target => options.targets.push(target.to_owned()),
        }
    }
    Ok(options)
}

/// `cargo +nightly …`, through rustup's proxy on the PATH (the `cargo` that runs xtask is the
/// stable toolchain's own binary, which knows no `+toolchain`). Without the variables of the
/// `cargo` running xtask: its toolchain and a `CARGO_TARGET_DIR` set for the workspace would
/// otherwise carry over (the fuzz targets build in `fuzz/target`).
fn nightly() -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg(TOOLCHAIN);
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key.starts_with("CARGO_PKG_")
            || matches!(
                key,
                "CARGO"
                    | "CARGO_TARGET_DIR"
                    | "CARGO_BUILD_TARGET_DIR"
                    | "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
                    | "RUSTUP_TOOLCHAIN"
                    | "RUSTC"
            )
        {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// What one target's run came to.
struct Outcome {
    target: String,
    runs: Option<u64>,
    seconds: f64,
    failure: Option<String>,
}

pub(crate) fn run_fuzz(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let options = parse(args)?;
    let fuzz_dir = root.join("fuzz");
    ensure_tools()?;

    let sanitizer = ["-s", options.sanitizer.as_str()];
    eprintln!("xtask: ── fuzz build (sanitizer {})", options.sanitizer);
    run(nightly()
        .current_dir(root)
        .args(["fuzz", "build", "--fuzz-dir"])
        .arg(&fuzz_dir)
        .args(sanitizer))?;

    let listed = crate::output(
        nightly()
            .current_dir(root)
            .args(["fuzz", "list", "--fuzz-dir"])
            .arg(&fuzz_dir),
    )?;
    let all: Vec<String> = listed.lines().map(str::trim).map(str::to_owned).collect();
    for t in &options.targets {
        if !all.contains(t) {
            bail!("no fuzz target {t} (there are: {})", all.join(", "));
        }
    }
    let targets: Vec<String> = if options.targets.is_empty() {
        all
    } else {
        options.targets.clone()
    };

    let host = host_triple()?;
    let binaries = fuzz_dir.join("target").join(&host).join("release");
    eprintln!("xtask: ── replay committed reproducers (fuzz/artifacts/<target>/)");
    let mut failures = Vec::new();
    for target in &targets {
        for file in reproducers(&fuzz_dir.join("artifacts").join(target))? {
            // As `cargo fuzz run` does: the bundled SQLite's globals trip ASan's ODR check.
            let status = Command::new(binaries.join(target))
                .arg(&file)
                .env("ASAN_OPTIONS", "detect_odr_violation=0")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .with_context(|| format!("cannot run the fuzz target {target}"))?;
            let shown = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            if status.success() {
                eprintln!("  {target:<14} ok      {shown}");
            } else {
                eprintln!("  {target:<14} FAILS   {shown}");
                failures.push(format!(
                    "{target}: the committed reproducer {shown} still fails; replay it with \
                     `cargo +nightly fuzz run --fuzz-dir fuzz {target} {shown}`"
                ));
            }
        }
    }

    if options.seconds == 0 && options.runs.is_none() {
        return finish(&[], &failures);
    }

    let mut outcomes = Vec::new();
    for target in &targets {
        outcomes.push(fuzz_one(root, &fuzz_dir, target, &options)?);
    }
    for o in &outcomes {
        if let Some(f) = &o.failure {
            failures.push(format!("{}: {f}", o.target));
        }
    }
    finish(&outcomes, &failures)
}

fn finish(outcomes: &[Outcome], failures: &[String]) -> anyhow::Result<()> {
    if !outcomes.is_empty() {
        eprintln!("xtask: fuzz summary");
        for o in outcomes {
            let runs = o.runs.map_or_else(|| "?".to_owned(), |n| n.to_string());
            let verdict = if o.failure.is_some() { "CRASHED" } else { "ok" };
            eprintln!(
                "  {:<14} {verdict:<8} {runs:>10} runs {:>8.1}s",
                o.target, o.seconds
            );
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    for f in failures {
        eprintln!("fuzz: {f}");
    }
    bail!("{} fuzz failure(s)", failures.len())
}

/// cargo-fuzz (pinned) and the nightly toolchain.
fn ensure_tools() -> anyhow::Result<()> {
    let nightly_ok = nightly()
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !nightly_ok {
        eprintln!("xtask: installing the nightly toolchain (rustup)");
        run(Command::new("rustup").args([
            "toolchain",
            "install",
            "nightly",
            "--profile",
            "minimal",
        ]))
        .context("cargo-fuzz needs the nightly toolchain")?;
    }
    let version = nightly()
        .args(["fuzz", "--version"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let expected = format!("cargo-fuzz {CARGO_FUZZ_VERSION}");
    if version.as_deref().map(str::trim) != Some(expected.as_str()) {
        eprintln!("xtask: installing cargo-fuzz {CARGO_FUZZ_VERSION}");
        run(nightly().args([
            "install",
            "cargo-fuzz",
            "--version",
            CARGO_FUZZ_VERSION,
            "--locked",
        ]))?;
    }
    Ok(())
}

fn host_triple() -> anyhow::Result<String> {
    let verbose = crate::output(Command::new("rustc").args([TOOLCHAIN, "-vV"]))?;
    verbose
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .context("rustc -vV names no host")
}

/// The committed reproducers of one target: every file in its folder but dotfiles and notes.
fn reproducers(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot list {}", dir.display())),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_file() && !name.starts_with('.') && !name.ends_with(".md") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Runs one target for the time or the number of runs asked, with its seeds and the dictionary.
fn fuzz_one(
    root: &Path,
    fuzz_dir: &Path,
    target: &str,
    options: &Options,
) -> anyhow::Result<Outcome> {
    let work = fuzz_dir.join("target").join("corpus").join(target);
    let seeds = fuzz_dir.join("corpus").join(target);
    let artifacts = fuzz_dir.join("artifacts").join(target);
    let logs = fuzz_dir.join("target").join("logs");
    for dir in [&work, &seeds, &artifacts, &logs] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let log_path = logs.join(format!("{target}.log"));
    let log = std::fs::File::create(&log_path)
        .with_context(|| format!("cannot create {}", log_path.display()))?;

    let mut cmd = nightly();
    cmd.current_dir(root)
        .args(["fuzz", "run", "--fuzz-dir"])
        .arg(fuzz_dir)
        .args(["-s", options.sanitizer.as_str(), target])
        .arg(&work)
        .arg(&seeds)
        .arg("--")
        .arg(format!(
            "-dict={}",
            fuzz_dir.join("dict/mcp.dict").display()
        ))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .args(["-timeout=20", "-rss_limit_mb=3072", "-print_final_stats=1"]);
    match options.runs {
        Some(n) => cmd.arg(format!("-runs={n}")),
        None => cmd.arg(format!("-max_total_time={}", options.seconds)),
    };
    eprintln!(
        "xtask: ── fuzz {target} ({}; log {})",
        options
            .runs
            .map_or_else(|| format!("{} s", options.seconds), |n| format!("{n} runs")),
        log_path.strip_prefix(root).unwrap_or(&log_path).display()
    );
    let started = Instant::now();
    let status = cmd
        .stdout(log.try_clone()?)
        .stderr(log)
        .status()
        .with_context(|| format!("cannot start `{}`", describe(&cmd)))?;
    let seconds = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(&log_path).unwrap_or_default();
    let runs = executions(&text);
    let failure = if status.success() {
        None
    } else {
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        for line in tail.iter().rev() {
            eprintln!("  | {line}");
        }
        Some(match reproducer(&text) {
            Some(path) => format!(
                "crashed ({status}); reproducer {path}; replay it with `cargo +nightly fuzz run \
                 --fuzz-dir fuzz {target} {path}`; full log {}",
                log_path.display()
            ),
            None => format!(
                "failed ({status}) without a reproducer; see {}",
                log_path.display()
            ),
        })
    };
    Ok(Outcome {
        target: target.to_owned(),
        runs,
        seconds,
        failure,
    })
}

/// The executions libFuzzer reports at the end (`stat::number_of_executed_units: N`, or the
/// `Done N runs` line).
fn executions(log: &str) -> Option<u64> {
    log.lines().rev().find_map(|line| {
        if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
            return n.trim().parse().ok();
        }
        line.strip_prefix("Done ")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    })
}

/// Where libFuzzer wrote the input that failed (`Test unit written to PATH`).
fn reproducer(log: &str) -> Option<String> {
    log.lines().rev().find_map(|line| {
        line.split_once("Test unit written to ")
            .map(|(_, path)| path.trim().to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_to_a_minute_per_target_with_asan() {
        let o = parse(&[]).unwrap();
        assert_eq!(o.seconds, 60);
        assert_eq!(o.runs, None);
        assert_eq!(o.sanitizer, "address");
        assert!(o.targets.is_empty());
    }

    #[test]
    fn options_take_seconds_runs_sanitizer_and_targets() {
        let o = parse(&[
            "--seconds",
            "5",
            "schema",
            "--runs",
            "10000000",
            "-s",
            "none",
            "engine",
        ])
        .unwrap();
        assert_eq!(o.seconds, 5);
        assert_eq!(o.runs, Some(10_000_000));
        assert_eq!(o.sanitizer, "none");
        assert_eq!(o.targets, ["schema", "engine"]);
        assert!(parse(&["--seconds"]).is_err());
        assert!(parse(&["--seconds", "x"]).is_err());
        assert!(parse(&["--what"]).is_err());
    }

    #[test]
    fn the_log_gives_executions_and_the_reproducer() {
        let log = "#1024\tpulse  cov: 3\nDone 5123 runs in 61 second(s)\n\
                   stat::number_of_executed_units: 5124\n";
        assert_eq!(executions(log), Some(5124));
        assert_eq!(executions("Done 77 runs in 1 second(s)\n"), Some(77));
        assert_eq!(executions("nothing"), None);
        let crash = "==1== ERROR: libFuzzer: deadly signal\n\
                     artifact_prefix='fuzz/artifacts/schema/'; Test unit written to \
                     fuzz/artifacts/schema/crash-abc\n";
        assert_eq!(
            reproducer(crash).as_deref(),
            Some("fuzz/artifacts/schema/crash-abc")
        );
    }
}
