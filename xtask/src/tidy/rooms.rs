//! The host's rooms run one way (ARCHITECTURE.md, `crates/host`): every file of
//! `crates/host/src` belongs to the room its top folder (or its own name, at the top) names, and
//! its code imports only rooms below its own, or its own. Test modules may reach higher (a test
//! builds a whole host); comments and docs are not imports.
//!
//! It reads `crate::<room>` paths; a name taken through the crate root's re-exports
//! (`crate::Root`) hides its room, so it is refused too. It does not judge `super::` (a child
//! reaching its parent stays in its room).

use std::path::Path;

use super::deps::{rust_files, split_cfg_test};

/// The host's rooms, bottom up: a room may import the rooms of a lower level and its own.
pub(super) const ROOMS: &[(&str, u8)] = &[
    // Below everything: the clock, the id map, the one lock.
    ("clock", 0),
    ("id_map", 0),
    ("sync", 0),
    ("logs", 1),
    ("transport", 2),
    ("record", 3),
    ("hub", 4),
    ("views", 5),
    ("session", 6),
    ("call", 7),
    ("host", 8),
    ("lib", 9),
];

pub(super) fn check(root: &Path) -> anyhow::Result<Vec<String>> {
    let dir = root.join("crates/host/src");
    let mut problems = Vec::new();
    for path in rust_files(&dir)? {
        let Ok(relative) = path.strip_prefix(&dir) else {
            continue;
        };
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let Some(room) = relative.components().next().map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        }) else {
            continue;
        };
        let Some(level) = level_of(&room) else {
            problems.push(format!(
                "{shown}: `{room}` is no room of the host; add it to tidy's ROOMS and to \
                 ARCHITECTURE.md, or move the file into a room"
            ));
            continue;
        };
        let text = std::fs::read_to_string(&path)?;
        let (code, _tests) = split_cfg_test(&text);
        for (n, line) in code.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("//") {
                continue;
            }
            for target in crate_paths(line) {
                let problem = match level_of(target) {
                    _ if target == room => None,
                    Some(other) if other < level => None,
                    Some(_) => Some(format!(
                        "imports room `{target}`, which is not below `{room}`"
                    )),
                    None if target.starts_with(|c: char| c.is_ascii_uppercase()) => Some(format!(
                        "takes `crate::{target}` through the crate root; name its room instead"
                    )),
                    None => Some(format!("imports `crate::{target}`, which is no room")),
                };
                if let Some(problem) = problem {
                    problems.push(format!("{shown}:{}: {problem}", n + 1));
                }
            }
        }
    }
    Ok(problems)
}

/// ARCHITECTURE.md names every room of the host (its table in the host's section), so the
/// document and this list cannot drift apart.
pub(super) fn check_doc(architecture: &str) -> Vec<String> {
    ROOMS
        .iter()
        .filter(|(room, _)| *room != "lib")
        .filter(|(room, _)| {
            !architecture.contains(&format!("`{room}/`"))
                && !architecture.contains(&format!("`{room}.rs`"))
        })
        .map(|(room, _)| {
            format!("ARCHITECTURE.md: the host's room `{room}` is not in its code map")
        })
        .collect()
}

fn level_of(room: &str) -> Option<u8> {
    ROOMS.iter().find(|(r, _)| *r == room).map(|(_, l)| *l)
}

/// The first segment of every `crate::…` path on `line`.
fn crate_paths(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        // `pub(crate)` and `$crate` are no paths.
        let before = rest.get(..at).and_then(|b| b.chars().last());
        let after = rest.get(at + "crate::".len()..).unwrap_or_default();
        if !matches!(before, Some('$') | Some('_')) && !before.is_some_and(char::is_alphanumeric) {
            let name: &str = after
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            if !name.is_empty() {
                found.push(name);
            }
        }
        rest = after;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_path_of_a_line() {
        assert_eq!(
            crate_paths("use crate::hub::x; let a = crate::record::y(crate::Root);"),
            vec!["hub", "record", "Root"]
        );
        assert!(crate_paths("pub(crate) fn f() {}").is_empty());
        assert!(crate_paths("$crate::x").is_empty());
    }

    #[test]
    fn the_doc_names_every_room() {
        let all: String = ROOMS.iter().map(|(r, _)| format!("`{r}/` ")).collect();
        assert!(check_doc(&all).is_empty());
        assert_eq!(check_doc("`logs/` only").len(), ROOMS.len() - 2);
    }

    #[test]
    fn rooms_are_ordered() {
        assert!(level_of("transport") < level_of("session"));
        assert!(level_of("logs") < level_of("record"));
        assert_eq!(level_of("nowhere"), None);
    }
}
