//! `cargo xtask tidy`: architecture checks that keep the design's arrows true.
//!
//! 1. Internal dependency edges (normal and build dependencies) follow the table of DESIGN.md;
//!    `test-support` is never a normal dependency.
//! 2. The engine's normal dependency tree has no HTTP, terminal, CLI-parsing or `anyhow` crate.
//! 3. ARCHITECTURE.md's code map names every workspace member under `crates/` as `crates/<name>`.
//! 4. No `mod.rs` under `crates/` (`foo.rs` + `foo/` instead).
//!
//! Every check runs; all problems are reported together. It does not judge code style (rustfmt
//! and clippy do) and does not write ARCHITECTURE.md.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::Value;

use crate::{cargo, output};

/// The internal crates each crate may depend on (short names, without `interlude-`);
/// `None` means any.
const ALLOWED: &[(&str, Option<&[&str]>)] = &[
    ("protocol", Some(&[])),
    ("schema", Some(&["protocol"])),
    ("server", Some(&["protocol", "schema", "server-macros"])),
    ("server-macros", Some(&[])),
    ("engine", Some(&["protocol", "schema"])),
    ("host", Some(&["engine", "protocol", "schema"])),
    ("web", Some(&["host", "engine", "protocol", "schema"])),
    ("tui", Some(&["host", "engine", "protocol", "schema"])),
    ("cli", None),
    ("demo", Some(&["server", "protocol", "schema"])),
    ("test-support", None),
    ("xtask", Some(&[])),
];

/// Crates the engine must not pull in, even transitively.
const ENGINE_FORBIDDEN: &[&str] = &[
    "axum",
    "hyper",
    "tower-http",
    "reqwest",
    "ratatui",
    "crossterm",
    "inquire",
    "clap",
    "anyhow",
];

/// One workspace member, as far as tidy cares.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Member {
    /// Package name.
    name: String,
    /// Its folder.
    dir: PathBuf,
    /// Internal dependencies: (package name, kind as cargo metadata spells it: None = normal).
    deps: Vec<(String, Option<String>)>,
}

/// Runs every check and fails listing all problems.
pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    let metadata =
        output(
            cargo()
                .current_dir(root)
                .args(["metadata", "--format-version", "1", "--no-deps"]),
        )?;
    let metadata: Value =
        serde_json::from_str(&metadata).context("cargo metadata printed invalid JSON")?;
    let members = members(&metadata)?;

    let mut problems = Vec::new();
    problems.extend(check_edges(&members));

    let tree = output(cargo().current_dir(root).args([
        "tree",
        "-p",
        "interlude-engine",
        "-e",
        "normal",
        "--prefix",
        "none",
    ]))?;
    problems.extend(check_engine_tree(&tree));

    let crates_dir = root.join("crates");
    let names: Vec<String> = members
        .iter()
        .filter(|m| m.dir.parent() == Some(crates_dir.as_path()))
        .filter_map(|m| m.dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md")).ok();
    problems.extend(check_code_map(architecture.as_deref(), &names));

    problems.extend(
        find_mod_rs(&crates_dir)?
            .into_iter()
            .map(|p| format!("{}: no mod.rs files; use foo.rs + foo/", p.display())),
    );

    if problems.is_empty() {
        eprintln!(
            "xtask: tidy ok ({} members, engine tree clean, code map complete, no mod.rs)",
            members.len()
        );
        return Ok(());
    }
    for p in &problems {
        eprintln!("tidy: {p}");
    }
    bail!("{} tidy problem(s)", problems.len())
}

/// The workspace members and their internal dependencies, from `cargo metadata --no-deps`.
fn members(metadata: &Value) -> anyhow::Result<Vec<Member>> {
    let packages = metadata
        .get("packages")
        .and_then(Value::as_array)
        .context("cargo metadata has no `packages`")?;
    let names: BTreeSet<&str> = packages
        .iter()
        .filter_map(|p| p.get("name").and_then(Value::as_str))
        .collect();
    packages
        .iter()
        .map(|p| {
            let name = p
                .get("name")
                .and_then(Value::as_str)
                .context("a package without a name")?;
            let manifest = p
                .get("manifest_path")
                .and_then(Value::as_str)
                .with_context(|| format!("package {name} has no manifest_path"))?;
            let dir = Path::new(manifest)
                .parent()
                .with_context(|| format!("package {name}: odd manifest path {manifest}"))?
                .to_path_buf();
            let deps = p
                .get("dependencies")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|d| {
                    let dep = d.get("name").and_then(Value::as_str)?;
                    names.contains(dep).then(|| {
                        let kind = d.get("kind").and_then(Value::as_str).map(str::to_owned);
                        (dep.to_owned(), kind)
                    })
                })
                .collect();
            Ok(Member {
                name: name.to_owned(),
                dir,
                deps,
            })
        })
        .collect()
}

fn short(name: &str) -> &str {
    name.strip_prefix("interlude-").unwrap_or(name)
}

/// Check 1: every internal normal/build edge is in [`ALLOWED`].
fn check_edges(members: &[Member]) -> Vec<String> {
    let mut problems = Vec::new();
    for m in members {
        let from = short(&m.name);
        let allowed = ALLOWED.iter().find(|(n, _)| *n == from).map(|(_, a)| *a);
        for (dep, kind) in &m.deps {
            if kind.as_deref() == Some("dev") {
                continue;
            }
            let to = short(dep);
            let edge = match kind {
                Some(k) => format!("{} → {} ({k} dependency)", m.name, dep),
                None => format!("{} → {}", m.name, dep),
            };
            if to == "test-support" && kind.is_none() {
                problems.push(format!("{edge}: test-support may only be a dev-dependency"));
                continue;
            }
            match allowed {
                None => problems.push(format!(
                    "{edge}: `{from}` is not in the dependency table of xtask/src/tidy.rs \
                     (add it there, following DESIGN.md)"
                )),
                Some(None) => {}
                Some(Some(list)) if list.contains(&to) => {}
                Some(Some(list)) => problems.push(format!(
                    "{edge}: not allowed; `{from}` may depend on {}",
                    if list.is_empty() {
                        "no internal crate".to_owned()
                    } else {
                        list.join(", ")
                    }
                )),
            }
        }
    }
    problems
}

/// Check 2: no forbidden crate in `cargo tree -p interlude-engine -e normal --prefix none`.
fn check_engine_tree(tree: &str) -> Vec<String> {
    let found: BTreeSet<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| ENGINE_FORBIDDEN.contains(name))
        .collect();
    found
        .into_iter()
        .map(|name| {
            format!(
                "interlude-engine depends (maybe transitively) on `{name}`; the engine stays \
                 sans-IO (see `cargo tree -p interlude-engine -e normal -i {name}`)"
            )
        })
        .collect()
}

/// Check 3: ARCHITECTURE.md names every crate folder as `crates/<name>`.
fn check_code_map(architecture: Option<&str>, crate_dirs: &[String]) -> Vec<String> {
    let Some(text) = architecture else {
        return vec![format!(
            "ARCHITECTURE.md is missing at the workspace root; its code map must name every \
             workspace member ({})",
            crate_dirs
                .iter()
                .map(|n| format!("crates/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )];
    };
    crate_dirs
        .iter()
        .filter(|name| !mentions(text, &format!("crates/{name}")))
        .map(|name| {
            format!("ARCHITECTURE.md does not mention `crates/{name}` (every member needs a code-map entry)")
        })
        .collect()
}

/// Whether `needle` occurs in `text` not followed by another name character (so `crates/host`
/// does not count as a mention of `crates/ho`).
fn mentions(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(i, _)| {
        text.get(i + needle.len()..)
            .and_then(|rest| rest.chars().next())
            .is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'))
    })
}

/// Check 4: every `mod.rs` under `dir` (skipping build output and node_modules).
fn find_mod_rs(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot list {}", d.display())),
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", d.display()))?;
            let path = entry.path();
            let name = entry.file_name();
            if entry.file_type()?.is_dir() {
                if name != "target" && name != "node_modules" {
                    stack.push(path);
                }
            } else if name == "mod.rs" {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, deps: &[(&str, Option<&str>)]) -> Member {
        Member {
            name: name.to_owned(),
            dir: PathBuf::from(name),
            deps: deps
                .iter()
                .map(|(d, k)| ((*d).to_owned(), k.map(str::to_owned)))
                .collect(),
        }
    }

    #[test]
    fn allowed_edges_pass() {
        let members = [
            member("interlude-schema", &[("interlude-protocol", None)]),
            member(
                "interlude-host",
                &[
                    ("interlude-engine", None),
                    ("interlude-server", Some("dev")),
                ],
            ),
            member("interlude-cli", &[("interlude-demo", None)]),
            member(
                "interlude-engine",
                &[("interlude-test-support", Some("dev"))],
            ),
        ];
        assert_eq!(check_edges(&members), Vec::<String>::new());
    }

    #[test]
    fn forbidden_edges_fail() {
        let members = [
            member("interlude-engine", &[("interlude-host", None)]),
            member("interlude-protocol", &[("interlude-schema", Some("build"))]),
            member("interlude-cli", &[("interlude-test-support", None)]),
            member("interlude-newcomer", &[("interlude-protocol", None)]),
        ];
        let problems = check_edges(&members);
        assert_eq!(problems.len(), 4, "{problems:#?}");
        assert!(problems[0].contains("interlude-engine → interlude-host: not allowed"));
        assert!(problems[1].contains("no internal crate"));
        assert!(problems[2].contains("dev-dependency"));
        assert!(problems[3].contains("not in the dependency table"));
    }

    #[test]
    fn engine_tree_is_checked_by_crate_name() {
        let tree = "interlude-engine v0.1.0 (/w/crates/engine)\nserde v1.0.0\nanyhow-ext v1.0.0\nclap v4.5.0\nclap v4.5.0 (*)\n";
        let problems = check_engine_tree(tree);
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(problems[0].contains("`clap`"));
    }

    #[test]
    fn code_map_needs_every_crate() {
        let names = ["host".to_owned(), "ho".to_owned(), "cli".to_owned()];
        let text = "## Code map\n### `crates/host`\n### crates/cli: the binary\n";
        assert_eq!(
            check_code_map(Some(text), &names),
            vec![
                "ARCHITECTURE.md does not mention `crates/ho` (every member needs a code-map entry)"
            ]
        );
        assert!(check_code_map(None, &names)[0].contains("ARCHITECTURE.md is missing"));
    }
}
