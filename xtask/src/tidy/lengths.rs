//! Lengths that keep the code readable: no source file of a crate over [`SOURCE_MAX_LINES`],
//! and ARCHITECTURE.md a map under [`ARCHITECTURE_MAX_LINES`] (behaviour belongs in rustdoc).

use std::path::Path;

use anyhow::Context;

/// The longest a source file of a crate (its `src/`, or xtask's) may grow: past it, a file
/// holds more than one room's worth and is split along a seam of its own.
const SOURCE_MAX_LINES: usize = 800;

/// Every source file under `crates/*/src` and `xtask/src` within [`SOURCE_MAX_LINES`] (tests,
/// benches and examples are not rooms of the code map and may run longer).
pub(super) fn check_sources(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut dirs = vec![root.join("xtask/src")];
    for entry in std::fs::read_dir(root.join("crates")).context("cannot list crates/")? {
        dirs.push(entry.context("cannot list crates/")?.path().join("src"));
    }
    let mut problems = Vec::new();
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        for path in super::deps::rust_files(&dir)? {
            let lines = std::fs::read_to_string(&path)?.lines().count();
            if lines > SOURCE_MAX_LINES {
                problems.push(format!(
                    "{}: {lines} lines, more than {SOURCE_MAX_LINES}: split it along a seam of \
                     its own",
                    path.strip_prefix(root).unwrap_or(&path).display()
                ));
            }
        }
    }
    Ok(problems)
}

/// ARCHITECTURE.md stays a map a newcomer reads in one sitting: behaviour belongs in rustdoc.
const ARCHITECTURE_MAX_LINES: usize = 500;

pub(super) fn check_architecture(architecture: &str) -> Vec<String> {
    let lines = architecture.lines().count();
    if lines > ARCHITECTURE_MAX_LINES {
        vec![format!(
            "ARCHITECTURE.md has {lines} lines, more than {ARCHITECTURE_MAX_LINES}: move behaviour \
             into the modules' rustdoc and keep the map"
        )]
    } else {
        Vec::new()
    }
}
