//! Check 5 of `cargo xtask tidy`: every declared dependency is used.
//!
//! The rule is textual on purpose, so it stays simple and never needs the crates built: a
//! dependency counts as used when its library name (the package name with `-` → `_`, or the
//! `package = ` rename) appears in the crate's Rust sources as the start of a path (`name::`), in
//! `use name;` / `use name as …;`, or in `extern crate name`. Where it must appear depends on its
//! kind:
//!
//! - a normal dependency: in the code of the library and binary targets, outside top-level
//!   `#[cfg(test)]` items (used only there, it should be a dev-dependency);
//! - a dev-dependency: anywhere in the library and binary targets (unit tests included), or in
//!   the tests, benches and examples; one that repeats a normal dependency of the same crate
//!   must add something (features, default features), else it is redundant;
//! - a build dependency: in the build script.
//!
//! Whole-line `//` comments are not code; doc comments are (their examples are doctests). A
//! top-level `#[cfg(test)]` item is recognised in rustfmt's layout: the attribute at column 0,
//! then either one line ending in `;` or a block that ends at the next `}` at column 0.
//!
//! Also: every entry of the root manifest's `[workspace.dependencies]` is inherited by some
//! member. What this does not do: judge features, or notice a dependency whose only mention is in
//! a doc comment.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::{Dep, DepKind, Member};

/// The code of one member, split by where a dependency may be used.
#[derive(Debug, Default)]
pub(super) struct Sources {
    /// Library and binary targets, without top-level `#[cfg(test)]` items.
    pub(super) normal: String,
    /// Those items, and the tests, benches and examples.
    pub(super) test: String,
    /// The build script.
    pub(super) build: String,
}

/// Reads the sources of `member`'s targets: every `.rs` file in the folder of each target's root
/// file (a build script at the crate root: that file alone).
pub(super) fn read_sources(member: &Member) -> anyhow::Result<Sources> {
    let mut sources = Sources::default();
    let mut seen = BTreeSet::new();
    for target in &member.targets {
        let role = target_role(&target.kinds);
        let files = match role {
            // `build.rs` at the crate root: that file only, not the whole crate.
            Role::Build if target.src_path.parent() == Some(member.dir.as_path()) => {
                vec![target.src_path.clone()]
            }
            _ => {
                let dir = target.src_path.parent().unwrap_or(&member.dir);
                rust_files(dir)?
            }
        };
        for file in files {
            if !seen.insert((role, file.clone())) {
                continue;
            }
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let code = strip_line_comments(&text);
            match role {
                Role::Normal => {
                    let (normal, test) = split_cfg_test(&code);
                    sources.normal.push_str(&normal);
                    sources.test.push_str(&test);
                }
                Role::Test => sources.test.push_str(&code),
                Role::Build => sources.build.push_str(&code),
            }
        }
    }
    Ok(sources)
}

/// What a target's code may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    Normal,
    Test,
    Build,
}

fn target_role(kinds: &[String]) -> Role {
    if kinds.iter().any(|k| k == "custom-build") {
        Role::Build
    } else if kinds
        .iter()
        .any(|k| matches!(k.as_str(), "test" | "bench" | "example"))
    {
        Role::Test
    } else {
        Role::Normal
    }
}

/// Every `.rs` file under `dir`, sorted.
pub(super) fn rust_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", d.display()))?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Drops whole-line `//` comments, keeping doc comments (`///`, `//!`).
pub(super) fn strip_line_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim_start();
        let comment = t.starts_with("//") && !t.starts_with("///") && !t.starts_with("//!");
        if !comment {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Splits a file into (code outside top-level `#[cfg(test)]` items, those items).
pub(super) fn split_cfg_test(code: &str) -> (String, String) {
    let mut normal = String::new();
    let mut test = String::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() != "#[cfg(test)]" {
            normal.push_str(line);
            normal.push('\n');
            continue;
        }
        // The item the attribute applies to: further attributes, then a one-line item or a
        // block up to the `}` at column 0.
        let mut in_block = false;
        for item in lines.by_ref() {
            test.push_str(item);
            test.push('\n');
            let t = item.trim_end();
            if in_block {
                if t == "}" {
                    break;
                }
            } else if t.ends_with('{') {
                in_block = true;
            } else if !(t.starts_with("#[") || t.is_empty()) {
                break;
            }
        }
    }
    (normal, test)
}

/// The name code uses for `dep`.
fn lib_name(dep: &Dep) -> String {
    dep.rename.as_deref().unwrap_or(&dep.name).replace('-', "_")
}

/// Whether `code` uses the crate `lib` (see the module docs for what counts).
pub(super) fn uses(code: &str, lib: &str) -> bool {
    code.match_indices(lib).any(|(i, _)| {
        let before = code.get(..i).unwrap_or_default();
        let after = code.get(i + lib.len()..).unwrap_or_default();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        if before.chars().next_back().is_some_and(ident) {
            return false;
        }
        if after.starts_with("::") {
            return true;
        }
        let next_is_ident = after.chars().next().is_some_and(ident);
        let before = before.trim_end();
        let keyword = ["use", "extern crate"].iter().any(|k| {
            before
                .strip_suffix(k)
                .is_some_and(|rest| !rest.chars().next_back().is_some_and(ident))
        });
        keyword && !next_is_ident
    })
}

/// The problems with `member`'s dependencies, given its sources.
pub(super) fn check_member(member: &Member, sources: &Sources) -> Vec<String> {
    let mut problems = Vec::new();
    for dep in &member.deps {
        let lib = lib_name(dep);
        let what = format!("{}: {} `{}`", member.name, dep.kind.describe(), dep.name);
        match dep.kind {
            DepKind::Normal => {
                if uses(&sources.normal, &lib) {
                    continue;
                }
                if uses(&sources.test, &lib) {
                    problems.push(format!(
                        "{what} is used only by tests, benches or examples: make it a \
                         dev-dependency"
                    ));
                } else {
                    problems.push(format!("{what} is never used: remove it"));
                }
            }
            DepKind::Dev => {
                if !uses(&sources.normal, &lib) && !uses(&sources.test, &lib) {
                    problems.push(format!("{what} is never used: remove it"));
                } else if let Some(normal) = member.deps.iter().find(|n| {
                    n.kind == DepKind::Normal && n.name == dep.name && n.rename == dep.rename
                }) && adds_nothing(dep, normal)
                {
                    problems.push(format!(
                        "{what} repeats the normal dependency without adding features: remove it"
                    ));
                }
            }
            DepKind::Build => {
                if !uses(&sources.build, &lib) {
                    problems.push(format!(
                        "{what} is never used by the build script: remove it"
                    ));
                }
            }
        }
    }
    problems
}

/// Whether the dev-dependency `dev` gives the tests nothing the normal one does not already.
fn adds_nothing(dev: &Dep, normal: &Dep) -> bool {
    normal.target.is_none()
        && (!dev.default_features || normal.default_features)
        && dev.features.iter().all(|f| normal.features.contains(f))
}

/// The keys of `[workspace.dependencies]` in the root manifest's text (one `name = …` or
/// `name.key = …` line per entry, as the manifest is written).
pub(super) fn workspace_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == "[workspace.dependencies]";
            continue;
        }
        if !inside || t.is_empty() || t.starts_with('#') || line.starts_with(char::is_whitespace) {
            continue;
        }
        let key = t
            .split(['=', '.'])
            .next()
            .unwrap_or_default()
            .trim()
            .trim_matches('"');
        if !key.is_empty() && !names.iter().any(|n| n == key) {
            names.push(key.to_owned());
        }
    }
    names
}

/// `[workspace.dependencies]` entries that no member declares.
pub(super) fn check_workspace(declared: &[String], members: &[Member]) -> Vec<String> {
    declared
        .iter()
        .filter(|name| {
            !members.iter().any(|m| {
                m.deps
                    .iter()
                    .any(|d| d.rename.as_deref().unwrap_or(&d.name) == name.as_str())
            })
        })
        .map(|name| {
            format!("Cargo.toml: `[workspace.dependencies]` entry `{name}` is inherited by no member: remove it")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(name: &str, kind: DepKind, features: &[&str]) -> Dep {
        Dep {
            name: name.to_owned(),
            rename: None,
            kind,
            target: None,
            features: features.iter().map(|f| (*f).to_owned()).collect(),
            default_features: true,
            internal: false,
        }
    }

    fn member(deps: Vec<Dep>) -> Member {
        Member {
            name: "interlude-x".to_owned(),
            dir: PathBuf::from("x"),
            deps,
            targets: Vec::new(),
        }
    }

    #[test]
    fn what_counts_as_a_use() {
        assert!(uses("use serde_json::Value;", "serde_json"));
        assert!(uses("let v = serde_json::json!({});", "serde_json"));
        assert!(uses("#[derive(thiserror::Error)]", "thiserror"));
        assert!(uses("use rand;\n", "rand"));
        assert!(uses("pub use rand as r;", "rand"));
        assert!(uses("extern crate rand;", "rand"));
        assert!(uses("use {serde::Serialize};", "serde"));
        // Another crate's name containing it, a field, a string: not a use.
        assert!(!uses("use serde_json::Value;", "serde"));
        assert!(!uses("use my_serde::Value;", "serde"));
        assert!(!uses("let rand = 4; rand + 1", "rand"));
        assert!(!uses("\"tokio\"", "tokio"));
        assert!(!uses("use randomness::x;", "rand"));
        assert!(!uses("fn reuse rand;", "rand"));
    }

    #[test]
    fn comments_and_cfg_test_items_are_set_apart() {
        let file = "//! Uses [`fancy::Thing`].\n\
                    // old: use gone::Thing;\n\
                    use kept::Thing;\n\
                    \n\
                    #[cfg(test)]\n\
                    use only_tests::Helper;\n\
                    \n\
                    fn main() {}\n\
                    \n\
                    #[cfg(test)]\n\
                    #[allow(dead_code)]\n\
                    mod tests {\n    \
                        use dev::Tool;\n    \
                        fn f() {\n    \
                        }\n\
                    }\n\
                    \n\
                    fn after() { tail::go() }\n";
        let (normal, test) = split_cfg_test(&strip_line_comments(file));
        assert!(uses(&normal, "fancy"), "doc comments are code (doctests)");
        assert!(!uses(&normal, "gone") && !uses(&test, "gone"));
        assert!(uses(&normal, "kept"));
        assert!(uses(&normal, "tail"));
        assert!(!uses(&normal, "only_tests") && uses(&test, "only_tests"));
        assert!(!uses(&normal, "dev") && uses(&test, "dev"));
    }

    #[test]
    fn unused_and_misplaced_dependencies_are_reported() {
        let mut renamed = dep("shell-words", DepKind::Normal, &[]);
        renamed.rename = Some("words".to_owned());
        let m = member(vec![
            dep("serde-json", DepKind::Normal, &[]),
            renamed,
            dep("tokio", DepKind::Normal, &["rt"]),
            dep("tokio", DepKind::Dev, &["rt", "test-util"]),
            dep("futures", DepKind::Normal, &[]),
            dep("rand", DepKind::Normal, &["std"]),
            dep("rand", DepKind::Dev, &["std"]),
            dep("expect-test", DepKind::Dev, &[]),
            dep("anyhow", DepKind::Dev, &[]),
            dep("cc", DepKind::Build, &[]),
        ]);
        let sources = Sources {
            normal: "use serde_json::Value; words::split(x); tokio::spawn(f); rand::random()"
                .to_owned(),
            test: "futures::executor::block_on(f); expect_test::expect![[]]".to_owned(),
            build: "fn main() {}".to_owned(),
        };
        assert_eq!(
            check_member(&m, &sources),
            vec![
                "interlude-x: dependency `futures` is used only by tests, benches or examples: \
                 make it a dev-dependency",
                "interlude-x: dev-dependency `rand` repeats the normal dependency without adding \
                 features: remove it",
                "interlude-x: dev-dependency `anyhow` is never used: remove it",
                "interlude-x: build dependency `cc` is never used by the build script: remove it",
            ]
        );
    }

    #[test]
    fn workspace_dependencies_must_be_inherited() {
        let manifest = "[workspace]\nmembers = []\n\n[workspace.dependencies]\n\
                        serde = { version = \"1\", features = [\"derive\"] }\n\
                        # a comment\n\
                        base64 = \"0.22\"\n\
                        tokio.version = \"1\"\n\n\
                        [workspace.lints.rust]\nunsafe_code = \"forbid\"\n";
        let declared = workspace_dependencies(manifest);
        assert_eq!(declared, ["serde", "base64", "tokio"]);
        let m = member(vec![
            dep("serde", DepKind::Normal, &[]),
            dep("tokio", DepKind::Dev, &[]),
        ]);
        assert_eq!(
            check_workspace(&declared, &[m]),
            vec![
                "Cargo.toml: `[workspace.dependencies]` entry `base64` is inherited by no member: \
                 remove it"
            ]
        );
    }
}
