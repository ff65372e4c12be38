//! Check 7 of `cargo xtask tidy`: nothing in the repository points at files outside it.
//!
//! Documentation, comments and messages must say what they need in the project's own terms (a
//! spec revision and section, a figure, the rule itself), not refer to a path on the machine they
//! were written on. So text files (`.md`, `.rs`, `.toml`, `.js`, `.mjs`, `.html`, `.css`, `.sh`,
//! `.py`, and the scripts under `.ci/`) may not contain a path into a sibling `shared` folder,
//! the design notes kept next to the repository, or an absolute path into the `work`, `root`,
//! `tmp` or `home` folders at the top of a machine's file system.
//!
//! The patterns are written below with `§` for `/` and `¤` for `.`, put together when checked,
//! so that this file does not contain what it forbids and needs no exemption. Build output, installed peers
//! and git's own folder are skipped. Only files are judged, not what code builds at run time
//! (tests use `std::env::temp_dir()`).

use std::path::{Path, PathBuf};

use anyhow::Context;

/// What may not appear (`§` standing for `/`, `¤` for `.`), and why (shown with each finding).
const FORBIDDEN: &[(&str, &str)] = &[
    ("¤¤§shared", "a folder next to the repository"),
    ("shared§reference", "reference notes outside the repository"),
    ("shared§seeds", "seed notes outside the repository"),
    ("DESIGN¤md", "design notes outside the repository"),
    ("§work§", "an absolute path on one machine"),
    ("§root§", "an absolute path on one machine"),
    ("§tmp§", "an absolute path on one machine"),
    ("§home§", "an absolute path on one machine"),
];

/// A pattern as it appears in a file.
fn spelled(pattern: &str) -> String {
    pattern.replace('§', "/").replace('¤', ".")
}

/// Folders never searched (by name, at any depth).
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", ".git", ".peers", "artifacts"];

/// File name endings searched.
const EXTENSIONS: &[&str] = &["md", "rs", "toml", "js", "mjs", "html", "css", "sh", "py"];

/// Every finding under `root`, as `path:line: … (why)`.
pub(super) fn check(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut problems = Vec::new();
    for file in text_files(root)? {
        let relative = file.strip_prefix(root).unwrap_or(&file);
        // Binary or non-UTF-8 files are not documentation.
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        problems.extend(
            findings(&text)
                .into_iter()
                .map(|(line, found)| format!("{}:{line}: {found}", relative.display())),
        );
    }
    Ok(problems)
}

/// (line number, description) of each forbidden reference in `text`.
fn findings(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (pattern, why) in FORBIDDEN {
            let pattern = spelled(pattern);
            if line.contains(&pattern) {
                found.push((
                    n + 1,
                    format!(
                        "refers to `{pattern}` ({why}); say what is needed in the project itself"
                    ),
                ));
            }
        }
    }
    found
}

/// The files to search, sorted.
fn text_files(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if entry.file_type()?.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push(path);
                }
                continue;
            }
            let in_ci = dir.file_name().is_some_and(|d| d == ".ci");
            let extension = path.extension().and_then(|e| e.to_str());
            if in_ci || extension.is_some_and(|e| EXTENSIONS.contains(&e)) {
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

    #[test]
    fn outside_references_are_found_by_line() {
        let text = spelled(
            "# Title\n\
             The workload of `¤¤§shared§reference§performance.md`.\n\
             Run `cargo bench` (see the spec, 2025-11-25, Elicitation).\n\
             Written to §tmp§out.json, compare with §home§ada§old.json.\n\
             std::env::temp_dir() and §usr§bin§tmux are fine.\n",
        );
        let found = findings(&text);
        let lines: Vec<usize> = found.iter().map(|(n, _)| *n).collect();
        assert_eq!(lines, [2, 2, 4, 4], "{found:#?}");
        assert!(found[0].1.contains(&format!("`{}`", spelled("¤¤§shared"))));
        assert!(
            found[1]
                .1
                .contains(&format!("`{}`", spelled("shared§reference")))
        );
        assert!(found[2].1.contains(&format!("`{}`", spelled("§tmp§"))));
        assert!(found[3].1.contains(&format!("`{}`", spelled("§home§"))));
    }
}
