//! The expected-failures file (`xtask/conformance/expected-failures.json`): its entries, each a
//! proven bug of the suite with its reason and upstream reference, and which run each covers.
//!
//! Not here: what is merely not covered yet (`auth/*`, [`SERVER_NOT_COVERED`]): that is no
//! suite bug, and the file refuses it.
//!
//! [`SERVER_NOT_COVERED`]: super::SERVER_NOT_COVERED

use std::path::Path;

use anyhow::{Context, bail};
use serde_json::Value;

use super::{SETS, Side};

/// One entry of the expected-failures file: a scenario (or one check of it) that fails because
/// of a bug of the suite.
#[derive(Debug, Clone)]
pub(super) struct Expected {
    /// The half of the suite it is about.
    pub(super) side: Side,
    /// The sets it applies to; empty for both.
    pub(super) requirements: Vec<String>,
    pub(super) scenario: String,
    /// One check id; `None` for the whole scenario.
    pub(super) check: Option<String>,
}

impl Expected {
    pub(super) fn applies_to(&self, set: &str) -> bool {
        self.requirements.is_empty() || self.requirements.iter().any(|r| r == set)
    }

    pub(super) fn covers(&self, side: Side, set: &str, scenario: &str, check: &str) -> bool {
        self.side == side
            && self.applies_to(set)
            && self.scenario == scenario
            && self.check.as_deref().is_none_or(|c| c == check)
    }

    pub(super) fn describe(&self) -> String {
        match &self.check {
            Some(c) => format!("{} {}:{c}", self.side.name(), self.scenario),
            None => format!("{} {}", self.side.name(), self.scenario),
        }
    }
}

/// Reads the expected-failures file:
/// `{"client": [{"scenario", "check"?, "requirements"?, "reason", "upstream"}…], "server": […]}`.
/// Every entry names the suite bug (`reason`) and where it is reported (`upstream`); what is not
/// covered yet (`auth/*`, [`SERVER_NOT_COVERED`](super::SERVER_NOT_COVERED)) is no suite bug
/// and cannot be listed.
pub(super) fn read_expected(path: &Path) -> anyhow::Result<Vec<Expected>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_expected(&text).with_context(|| format!("in {}", path.display()))
}

fn parse_expected(text: &str) -> anyhow::Result<Vec<Expected>> {
    let json: Value = serde_json::from_str(text).context("not valid JSON")?;
    let mut entries = Vec::new();
    for side in [Side::Client, Side::Server] {
        let list = json
            .get(side.name())
            .and_then(Value::as_array)
            .with_context(|| format!("no `{}` list", side.name()))?;
        parse_entries(side, list, &mut entries)?;
    }
    Ok(entries)
}

fn parse_entries(side: Side, list: &[Value], entries: &mut Vec<Expected>) -> anyhow::Result<()> {
    let which = side.name();
    for (i, item) in list.iter().enumerate() {
        let field = |key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let scenario = field("scenario")
            .with_context(|| format!("{which} entry {i}: no `scenario`"))?
            .to_owned();
        if field("reason").is_none() || field("upstream").is_none() {
            bail!(
                "{which} entry {i} ({scenario}): every entry needs a `reason` and an `upstream` \
                 reference"
            );
        }
        if let Some(reason) = side.not_covered(&scenario) {
            bail!(
                "{which} entry {i}: `{scenario}` is not covered yet ({reason}), not a bug of the \
                 suite; it cannot be listed here"
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
                        .with_context(|| format!("{which} entry {i}: unknown requirement set {s}"))
                })
                .collect::<anyhow::Result<_>>()?,
            Some(other) => {
                bail!("{which} entry {i}: `requirements` must be a list, found {other}")
            }
        };
        entries.push(Expected {
            side,
            requirements,
            scenario,
            check: field("check").map(str::to_owned),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_entries_need_a_reason_and_a_reference_and_no_auth() {
        assert!(
            parse_expected(r#"{"client": [], "server": []}"#)
                .unwrap()
                .is_empty()
        );
        assert!(parse_expected(r#"{"client": []}"#).is_err());
        let ok = r#"{"client": [{"scenario": "s", "check": "c", "requirements": ["2026-07-28"],
                    "reason": "the mock contradicts its schema", "upstream": "https://example.org/1"}],
                    "server": [{"scenario": "t", "reason": "r", "upstream": "u"}]}"#;
        let entries = parse_expected(ok).unwrap();
        assert_eq!(entries[0].describe(), "client s:c");
        assert!(entries[0].covers(Side::Client, "2026-07-28", "s", "c"));
        assert!(!entries[0].covers(Side::Client, "2025-11-25", "s", "c"));
        assert!(!entries[0].covers(Side::Server, "2026-07-28", "s", "c"));
        assert_eq!(entries[1].describe(), "server t");
        assert!(entries[1].covers(Side::Server, "2025-11-25", "t", "any"));
        let no_reference = r#"{"client": [{"scenario": "s", "reason": "r"}], "server": []}"#;
        assert!(parse_expected(no_reference).is_err());
        let auth = r#"{"client": [{"scenario": "auth/x", "reason": "r", "upstream": "u"}],
                      "server": []}"#;
        assert!(parse_expected(auth).is_err());
        let unknown = r#"{"client": [{"scenario": "s", "reason": "r", "upstream": "u",
                         "requirements": ["2024-01-01"]}], "server": []}"#;
        assert!(parse_expected(unknown).is_err());
    }
}
