//! The `conformance` step of `cargo xtask test`: the MCP conformance suite (0.2.0-alpha.12, the
//! npm alias `conformance-0.2` of the pinned peers) in client mode against the built
//! `interlude-conformance-client`, for both requirement sets, 2025-11-25 and 2026-07-28.
//!
//! How it is judged, and why not by the suite's own exit code: the client does not sign in yet
//! (the `auth/*` scenarios belong to a later issue), so every `--requirements` run exits 1 for
//! them. The suite's `--expected-failures` file cannot say "not covered": it is for checks that
//! fail, a passing entry makes the run stale, and ours is reserved for proven bugs of the suite.
//! So each set runs once with `--requirements R -o DIR` (all scenarios in parallel, a few
//! seconds), the exit code is ignored, and the verdict is read from each scenario's
//! `checks.json`:
//! - `auth/*` scenarios are counted as not covered, whatever they did;
//! - every other scenario the set runs must have only SUCCESS, SKIPPED or INFO checks: a FAILURE
//!   or a WARNING fails the step unless `xtask/conformance/expected-failures.json` lists it (a
//!   WARNING counts, as it does under the suite's own baseline mode). That includes the few
//!   non-auth scenarios a set runs without scoring them: they pass today and should keep
//!   passing;
//! - every scored non-auth scenario (from `conformance list --requirements R`) must have run;
//! - an entry of the expected-failures file that no longer fails is stale and fails the step,
//!   so the file only ever lists what is still true.
//!
//! The suite's mock servers bind every interface: each run is in a loopback-only network
//! namespace (`unshare -n`), as in the real-peer tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;

use crate::peers::Peers;

/// The requirement sets the client is held to.
const SETS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The suite's entry point inside the npm peers.
const SUITE: &str = "node_modules/conformance-0.2/dist/index.js";

/// The expected-failures file, from the workspace root.
const EXPECTED: &str = "xtask/conformance/expected-failures.json";

/// One set's run may take this long before it is stopped (it takes a few seconds; the suite
/// itself gives each scenario 30 s).
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// One check of one scenario, as `checks.json` has it.
#[derive(Debug, Clone)]
struct Check {
    id: String,
    status: String,
    message: String,
}

/// One entry of the expected-failures file: a scenario (or one check of it) that fails because
/// of a bug of the suite.
#[derive(Debug, Clone)]
struct Expected {
    /// The sets it applies to; empty for both.
    requirements: Vec<String>,
    scenario: String,
    /// One check id; `None` for the whole scenario.
    check: Option<String>,
}

pub(crate) fn run(root: &Path, peers: &Peers, target_dir: &Path) -> anyhow::Result<()> {
    let client = target_dir.join("debug/interlude-conformance-client");
    if !client.is_file() {
        bail!("{} is missing (the build step builds it)", client.display());
    }
    let client_text = client
        .to_str()
        .context("the client's path is not UTF-8")?
        .to_owned();
    // The suite splits --command on spaces.
    if client_text.contains(' ') {
        bail!("the client's path contains a space: {client_text}");
    }
    let suite = peers.npm.join(SUITE);
    if !suite.is_file() {
        bail!(
            "{} is missing (cargo xtask peers installs it)",
            suite.display()
        );
    }
    if !loopback_namespace_works() {
        bail!(
            "`unshare -n` cannot make a loopback-only network namespace (the suite's mock \
             servers bind every interface, so they are only run inside one)"
        );
    }
    let expected = read_expected(&root.join(EXPECTED))?;
    let out = target_dir.join("conformance");
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("cannot clear {}", out.display()))?;
    }
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;

    let mut problems = Vec::new();
    for set in SETS {
        let scored = scored_client_scenarios(&peers.node, &suite, set)?;
        let dir = out.join(format!("client-{set}"));
        let log = out.join(format!("client-{set}.log"));
        run_suite(&peers.node, &suite, &client_text, set, &dir, &log)?;
        let results = read_results(&dir)?;
        let verdict = judge(set, &scored, &results, &expected);
        eprintln!("xtask: conformance client {set}: {}", verdict.summary());
        for line in &verdict.lines {
            eprintln!("xtask:   {line}");
        }
        problems.extend(verdict.problems.into_iter().map(|p| format!("{set}: {p}")));
    }
    problems.extend(stale_entries(&expected, &out)?);
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("xtask: conformance: {p}");
        }
        bail!(
            "{} conformance problem(s); the suite's output and checks are in {}",
            problems.len(),
            out.display()
        );
    }
    Ok(())
}

/// The scored client scenarios of set `set`, from `conformance list --client --requirements`:
/// the `  - name` lines under "Client scenarios".
fn scored_client_scenarios(node: &Path, suite: &Path, set: &str) -> anyhow::Result<Vec<String>> {
    let text = crate::output(Command::new(node).arg(suite).args([
        "list",
        "--client",
        "--requirements",
        set,
    ]))?;
    let scored = parse_scored_client(&text);
    if scored.is_empty() {
        bail!("`conformance list --client --requirements {set}` named no client scenario:\n{text}");
    }
    Ok(scored)
}

fn parse_scored_client(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("Client scenarios"))
        .skip(1)
        .map_while(|l| l.strip_prefix("  - "))
        .map(|s| s.trim().to_owned())
        .collect()
}

/// Whether this process may create a network namespace with only loopback.
fn loopback_namespace_works() -> bool {
    Command::new("unshare")
        .args(["-n", "sh", "-c", "ip link set lo up"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One `conformance client --requirements SET -o DIR` in a loopback-only namespace, its output
/// in `log`. Its exit code is not the verdict (see the module documentation).
fn run_suite(
    node: &Path,
    suite: &Path,
    client: &str,
    set: &str,
    dir: &Path,
    log: &Path,
) -> anyhow::Result<()> {
    let log_file =
        std::fs::File::create(log).with_context(|| format!("cannot write {}", log.display()))?;
    let mut cmd = Command::new("unshare");
    cmd.args(["-n", "sh", "-c", r#"ip link set lo up && exec "$@""#, "sh"])
        .arg(node)
        .arg(suite)
        .args(["client", "--command", client, "--requirements", set, "-o"])
        .arg(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{}`", crate::describe(&cmd)))?;
    loop {
        if child.try_wait()?.is_some() {
            return Ok(());
        }
        if started.elapsed() > RUN_LIMIT {
            // Still running, so the group id is still ours.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.wait();
            bail!(
                "the conformance run for {set} did not finish within {RUN_LIMIT:?} (log: {})",
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every scenario's checks under `dir`: `<scenario>-<timestamp>/checks.json`, where the scenario
/// name may have a folder (`auth/…`).
fn read_results(dir: &Path) -> anyhow::Result<BTreeMap<String, Vec<Check>>> {
    let mut results = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "checks.json") {
                let folder = path
                    .parent()
                    .and_then(|p| p.strip_prefix(dir).ok())
                    .and_then(Path::to_str)
                    .context("a checks.json outside the results folder")?;
                let scenario = strip_timestamp(folder).to_owned();
                results.insert(scenario, read_checks(&path)?);
            }
        }
    }
    Ok(results)
}

/// `name-2026-11-27T15-09-31-060Z` → `name`.
fn strip_timestamp(folder: &str) -> &str {
    const STAMP: &str = "-0000-00-00T00-00-00-000Z";
    let Some(split) = folder.len().checked_sub(STAMP.len()) else {
        return folder;
    };
    let (Some(name), Some(tail)) = (folder.get(..split), folder.get(split..)) else {
        return folder;
    };
    let shaped = tail.bytes().zip(STAMP.bytes()).all(|(t, s)| {
        if s == b'0' {
            t.is_ascii_digit()
        } else {
            t == s
        }
    });
    if shaped { name } else { folder }
}

fn read_checks(path: &Path) -> anyhow::Result<Vec<Check>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let json: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    let list = json
        .as_array()
        .with_context(|| format!("{} is not a list of checks", path.display()))?;
    Ok(list
        .iter()
        .map(|c| {
            let text = |key: &str| c.get(key).and_then(Value::as_str).unwrap_or_default();
            Check {
                id: text("id").to_owned(),
                status: text("status").to_owned(),
                message: text("errorMessage").to_owned(),
            }
        })
        .collect())
}

/// The outcome of one set.
#[derive(Debug, Default)]
struct Verdict {
    passed: Vec<String>,
    failed: Vec<String>,
    expected: Vec<String>,
    auth: usize,
    auth_scored: usize,
    /// One line per scenario, for the log.
    lines: Vec<String>,
    problems: Vec<String>,
}

impl Verdict {
    fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} failing as expected (suite bugs); auth not covered: {} \
             scenario(s), {} of them scored",
            self.passed.len(),
            self.failed.len(),
            self.expected.len(),
            self.auth,
            self.auth_scored
        )
    }
}

fn judge(
    set: &str,
    scored: &[String],
    results: &BTreeMap<String, Vec<Check>>,
    expected: &[Expected],
) -> Verdict {
    let mut v = Verdict::default();
    for name in scored
        .iter()
        .filter(|n| !is_auth(n) && !results.contains_key(*n))
    {
        v.failed.push(name.clone());
        v.problems.push(format!(
            "{name}: scored, but the suite left no checks for it"
        ));
    }
    for (name, checks) in results {
        if is_auth(name) {
            v.auth += 1;
            if scored.contains(name) {
                v.auth_scored += 1;
            }
            continue;
        }
        let tag = if scored.contains(name) {
            ""
        } else {
            " (not scored)"
        };
        let bad: Vec<&Check> = checks
            .iter()
            .filter(|c| matches!(c.status.as_str(), "FAILURE" | "WARNING"))
            .collect();
        let unexpected: Vec<&&Check> = bad
            .iter()
            .filter(|c| !expected.iter().any(|e| e.covers(set, name, &c.id)))
            .collect();
        let count = |status: &str| checks.iter().filter(|c| c.status == status).count();
        if bad.is_empty() {
            v.passed.push(name.clone());
            let skipped = match count("SKIPPED") {
                0 => String::new(),
                n => format!(", {n} skipped"),
            };
            v.lines.push(format!(
                "pass  {name}{tag}: {} check(s) passed{skipped}",
                count("SUCCESS")
            ));
        } else if unexpected.is_empty() {
            v.expected.push(name.clone());
            v.lines.push(format!(
                "known {name}{tag}: {} check(s) failing as expected",
                bad.len()
            ));
        } else {
            v.failed.push(name.clone());
            v.lines.push(format!(
                "FAIL  {name}{tag}: {} check(s) failed or warned",
                unexpected.len()
            ));
            for c in unexpected {
                v.problems
                    .push(format!("{name}: {} {}: {}", c.status, c.id, c.message));
            }
        }
    }
    v
}

fn is_auth(scenario: &str) -> bool {
    scenario.starts_with("auth/")
}

impl Expected {
    fn applies_to(&self, set: &str) -> bool {
        self.requirements.is_empty() || self.requirements.iter().any(|r| r == set)
    }

    fn covers(&self, set: &str, scenario: &str, check: &str) -> bool {
        self.applies_to(set)
            && self.scenario == scenario
            && self.check.as_deref().is_none_or(|c| c == check)
    }

    fn describe(&self) -> String {
        match &self.check {
            Some(c) => format!("{}:{c}", self.scenario),
            None => self.scenario.clone(),
        }
    }
}

/// Entries that no longer fail anywhere they apply: the file must only list what is true.
fn stale_entries(expected: &[Expected], out: &Path) -> anyhow::Result<Vec<String>> {
    let mut stale = Vec::new();
    for entry in expected {
        let mut still_fails = false;
        for set in SETS.iter().filter(|s| entry.applies_to(s)) {
            let results = read_results(&out.join(format!("client-{set}")))?;
            still_fails |= results.get(&entry.scenario).is_some_and(|checks| {
                checks.iter().any(|c| {
                    matches!(c.status.as_str(), "FAILURE" | "WARNING")
                        && entry.covers(set, &entry.scenario, &c.id)
                })
            });
        }
        if !still_fails {
            stale.push(format!(
                "{EXPECTED} lists `{}`, which no longer fails or warns: remove the entry",
                entry.describe()
            ));
        }
    }
    Ok(stale)
}

/// Reads the expected-failures file:
/// `{"client": [{"scenario", "check"?, "requirements"?, "reason", "upstream"}…]}`. Every entry
/// names the suite bug (`reason`) and where it is reported (`upstream`); `auth/*` scenarios are
/// not suite bugs and cannot be listed.
fn read_expected(path: &Path) -> anyhow::Result<Vec<Expected>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_expected(&text).with_context(|| format!("in {}", path.display()))
}

fn parse_expected(text: &str) -> anyhow::Result<Vec<Expected>> {
    let json: Value = serde_json::from_str(text).context("not valid JSON")?;
    let list = json
        .get("client")
        .and_then(Value::as_array)
        .context("no `client` list")?;
    let mut entries = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let field = |key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let scenario = field("scenario")
            .with_context(|| format!("entry {i}: no `scenario`"))?
            .to_owned();
        if field("reason").is_none() || field("upstream").is_none() {
            bail!(
                "entry {i} ({scenario}): every entry needs a `reason` and an `upstream` reference"
            );
        }
        if is_auth(&scenario) {
            bail!(
                "entry {i}: `{scenario}` is not covered yet (auth), not a bug of the suite; it \
                 cannot be listed here"
            );
        }
        let requirements = match item.get("requirements") {
            None => Vec::new(),
            Some(Value::Array(sets)) => sets
                .iter()
                .map(|s| {
                    s.as_str()
                        .filter(|s| SETS.contains(s))
                        .map(str::to_owned)
                        .with_context(|| format!("entry {i}: unknown requirement set {s}"))
                })
                .collect::<anyhow::Result<_>>()?,
            Some(other) => bail!("entry {i}: `requirements` must be a list, found {other}"),
        };
        entries.push(Expected {
            requirements,
            scenario,
            check: field("check").map(str::to_owned),
        });
    }
    Ok(entries)
}

/// Where cargo puts build output for this workspace (honours `CARGO_TARGET_DIR`).
pub(crate) fn target_dir(root: &Path) -> anyhow::Result<PathBuf> {
    let text = crate::output(crate::cargo().current_dir(root).args([
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
    ]))?;
    let json: Value = serde_json::from_str(&text).context("cargo metadata printed no JSON")?;
    json.get("target_directory")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .context("cargo metadata names no target_directory")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: &str, status: &str) -> Check {
        Check {
            id: id.to_owned(),
            status: status.to_owned(),
            message: String::new(),
        }
    }

    #[test]
    fn the_scored_client_list_is_read_from_the_listing() {
        let text = "Required for 2025-11-25 (48 scenarios, frozen):\n\nServer scenarios (test \
                    against a server):\n  - ping\n\nClient scenarios (test against a client):\n  \
                    - initialize\n  - auth/metadata-default\n\nRun and reported, but never \
                    scored:\n  extension (6):\n    - auth/dpop [client]\n";
        assert_eq!(
            parse_scored_client(text),
            ["initialize", "auth/metadata-default"]
        );
    }

    #[test]
    fn timestamps_are_stripped_from_result_folders() {
        assert_eq!(
            strip_timestamp("sse-retry-2026-11-27T15-09-31-060Z"),
            "sse-retry"
        );
        assert_eq!(
            strip_timestamp("auth/iss-normalized-2026-11-27T15-09-31-060Z"),
            "auth/iss-normalized"
        );
        assert_eq!(strip_timestamp("short"), "short");
        assert_eq!(
            strip_timestamp("name-2026-11-27X15-09-31-060Z"),
            "name-2026-11-27X15-09-31-060Z"
        );
    }

    #[test]
    fn failures_warnings_auth_and_missing_scenarios_are_judged() {
        let scored: Vec<String> = ["a", "b", "c", "missing", "auth/x"]
            .map(str::to_owned)
            .to_vec();
        let mut results = BTreeMap::new();
        results.insert(
            "a".to_owned(),
            vec![check("1", "SUCCESS"), check("2", "SKIPPED")],
        );
        results.insert("b".to_owned(), vec![check("1", "WARNING")]);
        results.insert(
            "c".to_owned(),
            vec![check("1", "FAILURE"), check("2", "INFO")],
        );
        results.insert("auth/x".to_owned(), vec![check("1", "FAILURE")]);
        results.insert("auth/y".to_owned(), vec![check("1", "FAILURE")]);
        let expected = vec![Expected {
            requirements: vec!["2026-07-28".to_owned()],
            scenario: "c".to_owned(),
            check: Some("1".to_owned()),
        }];
        let v = judge("2026-07-28", &scored, &results, &expected);
        assert_eq!(v.passed, ["a"]);
        assert_eq!(v.expected, ["c"]);
        assert_eq!(v.failed, ["missing", "b"]);
        assert_eq!((v.auth, v.auth_scored), (2, 1));
        assert_eq!(v.problems.len(), 2);
        // The entry is for the other set only: `c` fails there.
        let v = judge("2025-11-25", &scored, &results, &expected);
        assert_eq!(v.failed, ["missing", "b", "c"]);
    }

    #[test]
    fn expected_entries_need_a_reason_and_a_reference_and_no_auth() {
        assert!(parse_expected(r#"{"client": []}"#).unwrap().is_empty());
        let ok = r#"{"client": [{"scenario": "s", "check": "c", "requirements": ["2026-07-28"],
                    "reason": "the mock contradicts its schema", "upstream": "https://example.org/1"}]}"#;
        let entries = parse_expected(ok).unwrap();
        assert_eq!(entries[0].describe(), "s:c");
        assert!(entries[0].covers("2026-07-28", "s", "c"));
        assert!(!entries[0].covers("2025-11-25", "s", "c"));
        assert!(parse_expected(r#"{"client": [{"scenario": "s", "reason": "r"}]}"#).is_err());
        let auth = r#"{"client": [{"scenario": "auth/x", "reason": "r", "upstream": "u"}]}"#;
        assert!(parse_expected(auth).is_err());
        let unknown = r#"{"client": [{"scenario": "s", "reason": "r", "upstream": "u",
                         "requirements": ["2024-01-01"]}]}"#;
        assert!(parse_expected(unknown).is_err());
    }
}
