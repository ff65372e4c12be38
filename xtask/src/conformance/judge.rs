//! Judging a set's run from what the suite wrote: every scenario's `checks.json`, read into
//! [`Check`]s and weighed against the scored list, what is not covered yet and the
//! expected-failures file ([`Verdict`]); and finding the file's entries that no longer fail.
//!
//! Not here: running the suite (`suite.rs`), reading the expected-failures file
//! (`expected.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use super::expected::Expected;
use super::{EXPECTED, SETS, Side};

/// One check of one scenario, as `checks.json` has it.
#[derive(Debug, Clone)]
pub(super) struct Check {
    id: String,
    status: String,
    message: String,
}

/// Every scenario's checks under `dir`: `<scenario>-<timestamp>/checks.json`, where the scenario
/// name may have a folder (`auth/…`); in server mode the folder starts with `server-`.
pub(super) fn read_results(dir: &Path, side: Side) -> anyhow::Result<BTreeMap<String, Vec<Check>>> {
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
                let scenario = strip_timestamp(folder);
                let scenario = match side {
                    Side::Client => scenario,
                    Side::Server => scenario.strip_prefix("server-").unwrap_or(scenario),
                };
                results.insert(scenario.to_owned(), read_checks(&path)?);
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
pub(super) struct Verdict {
    pub(super) passed: Vec<String>,
    pub(super) failed: Vec<String>,
    pub(super) expected: Vec<String>,
    /// Scenarios not covered yet (client: `auth/*`; server:
    /// [`SERVER_NOT_COVERED`](super::SERVER_NOT_COVERED)), whatever they did.
    pub(super) not_covered: usize,
    pub(super) not_covered_scored: usize,
    /// One line per scenario, for the log.
    pub(super) lines: Vec<String>,
    pub(super) problems: Vec<String>,
}

impl Verdict {
    pub(super) fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} failing as expected (suite bugs); not covered yet: {} \
             scenario(s), {} of them scored",
            self.passed.len(),
            self.failed.len(),
            self.expected.len(),
            self.not_covered,
            self.not_covered_scored
        )
    }
}

pub(super) fn judge(
    side: Side,
    set: &str,
    scored: &[String],
    results: &BTreeMap<String, Vec<Check>>,
    expected: &[Expected],
) -> Verdict {
    let mut v = Verdict::default();
    for name in scored
        .iter()
        .filter(|n| side.not_covered(n).is_none() && !results.contains_key(*n))
    {
        v.failed.push(name.clone());
        v.problems.push(format!(
            "{name}: scored, but the suite left no checks for it"
        ));
    }
    for (name, checks) in results {
        let tag = if scored.contains(name) {
            ""
        } else {
            " (not scored)"
        };
        let bad: Vec<&Check> = checks
            .iter()
            .filter(|c| matches!(c.status.as_str(), "FAILURE" | "WARNING"))
            .collect();
        if let Some(reason) = side.not_covered(name) {
            v.not_covered += 1;
            if scored.contains(name) {
                v.not_covered_scored += 1;
            }
            // Client `auth/*` are many and all alike: counted, not listed.
            if side == Side::Server {
                let state = if bad.is_empty() {
                    "passes".to_owned()
                } else {
                    format!("{} check(s) failed or warned", bad.len())
                };
                v.lines.push(format!(
                    "todo  {name}{tag}: not covered yet ({reason}); {state}"
                ));
            }
            continue;
        }
        let unexpected: Vec<&&Check> = bad
            .iter()
            .filter(|c| !expected.iter().any(|e| e.covers(side, set, name, &c.id)))
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

pub(super) fn is_auth(scenario: &str) -> bool {
    scenario.starts_with("auth/")
}

/// Entries that no longer fail anywhere they apply: the file must only list what is true.
pub(super) fn stale_entries(expected: &[Expected], out: &Path) -> anyhow::Result<Vec<String>> {
    let mut stale = Vec::new();
    for entry in expected {
        let mut still_fails = false;
        for set in SETS.iter().filter(|s| entry.applies_to(s)) {
            let dir = out.join(format!("{}-{set}", entry.side.name()));
            let results = read_results(&dir, entry.side)?;
            still_fails |= results.get(&entry.scenario).is_some_and(|checks| {
                checks.iter().any(|c| {
                    matches!(c.status.as_str(), "FAILURE" | "WARNING")
                        && entry.covers(entry.side, set, &entry.scenario, &c.id)
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
            side: Side::Client,
            requirements: vec!["2026-07-28".to_owned()],
            scenario: "c".to_owned(),
            check: Some("1".to_owned()),
        }];
        let v = judge(Side::Client, "2026-07-28", &scored, &results, &expected);
        assert_eq!(v.passed, ["a"]);
        assert_eq!(v.expected, ["c"]);
        assert_eq!(v.failed, ["missing", "b"]);
        assert_eq!((v.not_covered, v.not_covered_scored), (2, 1));
        assert_eq!(v.problems.len(), 2);
        // The entry is for the other set only: `c` fails there.
        let v = judge(Side::Client, "2025-11-25", &scored, &results, &expected);
        assert_eq!(v.failed, ["missing", "b", "c"]);
        // The entry is for the client: the same failure of a server scenario is not covered.
        let v = judge(Side::Server, "2026-07-28", &scored, &results, &expected);
        assert!(v.failed.contains(&"c".to_owned()));
        // auth/* is the client's not-covered set, not the server's.
        assert_eq!(v.not_covered, 0);
    }

    #[test]
    fn listed_unscored_server_scenarios_are_reported_and_tasks_are_judged() {
        let scored: Vec<String> = ["ping"].map(str::to_owned).to_vec();
        let mut results = BTreeMap::new();
        results.insert("ping".to_owned(), vec![check("1", "SUCCESS")]);
        results.insert("tasks-lifecycle".to_owned(), vec![check("1", "FAILURE")]);
        results.insert("server-sse-polling".to_owned(), vec![check("1", "WARNING")]);
        results.insert(
            "json-schema-2020-12".to_owned(),
            vec![check("1", "FAILURE")],
        );
        let v = judge(Side::Server, "2026-07-28", &scored, &results, &[]);
        assert_eq!(v.passed, ["ping"]);
        assert_eq!(v.failed, ["json-schema-2020-12", "tasks-lifecycle"]);
        assert_eq!((v.not_covered, v.not_covered_scored), (1, 0));
        assert!(
            v.lines
                .iter()
                .any(|l| l.starts_with("todo  server-sse-polling"))
        );
    }
}
