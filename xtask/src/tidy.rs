//! `cargo xtask tidy`: architecture checks that keep the design's arrows true.
//!
//! 1. Internal dependency edges (normal and build dependencies) follow [`ALLOWED`], the table
//!    of which crate may depend on which (ARCHITECTURE.md explains each boundary);
//!    `test-support` is never a normal dependency; the surfaces ([`SURFACES`]) depend on the
//!    host alone.
//! 2. The engine's normal dependency tree has no HTTP, terminal, CLI-parsing or `anyhow` crate.
//! 3. ARCHITECTURE.md's code map names every workspace member under `crates/` as `crates/<name>`.
//! 4. No `mod.rs` under `crates/` (`foo.rs` + `foo/` instead).
//! 5. Every declared dependency is used, each where its kind says (`tidy/deps.rs`), and every
//!    `[workspace.dependencies]` entry is inherited by some member.
//! 6. The engine's normal dependency tree is exactly [`ENGINE_TREE`], and ARCHITECTURE.md's
//!    engine section lists exactly that.
//! 7. Nothing in the repository points at files outside it (`tidy/paths.rs`).
//! 8. The host locks its mutexes through one function with one poison policy (`tidy/locks.rs`).
//! 9. The host's rooms import only rooms below their own, and ARCHITECTURE.md names each
//!    (`tidy/rooms.rs`); ARCHITECTURE.md stays under 500 lines, and no source file of a crate
//!    over 800.
//!
//! Every check runs; all problems are reported together. It does not judge code style (rustfmt
//! and clippy do) and does not write ARCHITECTURE.md.

mod deps;
mod lengths;
mod locks;
mod paths;
mod rooms;

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
    ("web", Some(&["host"])),
    ("tui", Some(&["host"])),
    ("headless", Some(&["host"])),
    ("cli", None),
    ("demo", Some(&["server", "protocol", "schema"])),
    ("conformance-server", Some(&["server"])),
    ("test-support", None),
    ("xtask", Some(&[])),
];

/// The surfaces: they depend on the host's public API only (it re-exports the engine's,
/// schema's and protocol's types a surface needs); their tests may use more.
const SURFACES: &[&str] = &["web", "tui", "headless"];

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

/// Every package in the engine's normal dependency tree (`cargo tree -p interlude-engine -e
/// normal` on x86_64 Linux), the engine itself aside. A change to the tree is a decision: update
/// this list and the sentence of ARCHITECTURE.md that repeats it (tidy compares the two).
const ENGINE_TREE: &[&str] = &[
    "block-buffer",
    "bytes",
    "cfg-if",
    "chrono",
    "const-oid",
    "cpufeatures",
    "crypto-common",
    "digest",
    "displaydoc",
    "dyn-clone",
    "email_address",
    "equivalent",
    "foldhash",
    "form_urlencoded",
    "futures",
    "futures-channel",
    "futures-core",
    "futures-executor",
    "futures-io",
    "futures-macro",
    "futures-sink",
    "futures-task",
    "futures-util",
    "hashbrown",
    "hybrid-array",
    "icu_collections",
    "icu_locale_core",
    "icu_normalizer",
    "icu_normalizer_data",
    "icu_properties",
    "icu_properties_data",
    "icu_provider",
    "idna",
    "idna_adapter",
    "indexmap",
    "interlude-protocol",
    "interlude-schema",
    "itoa",
    "libc",
    "litemap",
    "memchr",
    "num-traits",
    "once_cell",
    "percent-encoding",
    "pin-project-lite",
    "potential_utf",
    "proc-macro2",
    "psl",
    "psl-types",
    "quote",
    "ref-cast",
    "ref-cast-impl",
    "rmcp",
    "schemars",
    "schemars_derive",
    "serde",
    "serde_core",
    "serde_derive",
    "serde_derive_internals",
    "serde_json",
    "sha2",
    "slab",
    "smallvec",
    "stable_deref_trait",
    "syn",
    "synstructure",
    "thiserror",
    "thiserror-impl",
    "tinystr",
    "tinyvec",
    "tokio",
    "tokio-macros",
    "tokio-util",
    "tracing",
    "tracing-attributes",
    "tracing-core",
    "typenum",
    "unicode-general-category",
    "unicode-ident",
    "unicode-normalization",
    "url",
    "utf8_iter",
    "utf_types",
    "writeable",
    "yoke",
    "yoke-derive",
    "zerofrom",
    "zerofrom-derive",
    "zerotrie",
    "zerovec",
    "zerovec-derive",
    "zmij",
];

/// Where ARCHITECTURE.md lists [`ENGINE_TREE`]: the backquoted names after this, up to the end
/// of the sentence.
const ENGINE_TREE_SENTENCE: &str = "the engine's whole dependency tree is:";

/// One workspace member, as far as tidy cares.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Member {
    /// Package name.
    name: String,
    /// Its folder.
    dir: PathBuf,
    /// Every dependency it declares.
    deps: Vec<Dep>,
    /// Its targets (library, binaries, tests, benches, examples, build script).
    targets: Vec<Target>,
}

/// One declared dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Dep {
    /// Package name.
    name: String,
    /// The name it is used under, when renamed (`name = { package = "…" }`).
    rename: Option<String>,
    kind: DepKind,
    /// The platform condition (`[target.'cfg(unix)'.dependencies]`), if any.
    target: Option<String>,
    /// Features enabled by this declaration (workspace ones included).
    features: Vec<String>,
    default_features: bool,
    /// A member of this workspace.
    internal: bool,
}

/// The three sections a dependency can be declared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DepKind {
    Normal,
    Dev,
    Build,
}

impl DepKind {
    fn describe(self) -> &'static str {
        match self {
            DepKind::Normal => "dependency",
            DepKind::Dev => "dev-dependency",
            DepKind::Build => "build dependency",
        }
    }
}

/// One target of a member.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    /// As cargo metadata spells them: `lib`, `bin`, `test`, `bench`, `example`, `custom-build`…
    kinds: Vec<String>,
    /// Its root source file.
    src_path: PathBuf,
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

    for member in &members {
        let sources = deps::read_sources(member)?;
        problems.extend(deps::check_member(member, &sources));
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .context("cannot read the workspace's Cargo.toml")?;
    problems.extend(deps::check_workspace(
        &deps::workspace_dependencies(&manifest),
        &members,
    ));

    // One platform for everyone, so the list does not depend on the machine tidy runs on.
    let tree = output(cargo().current_dir(root).args([
        "tree",
        "-p",
        "interlude-engine",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--target",
        "x86_64-unknown-linux-gnu",
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
    if let Some(text) = architecture.as_deref() {
        problems.extend(check_engine_doc(text));
        problems.extend(rooms::check_doc(text));
        problems.extend(lengths::check_architecture(text));
    }
    problems.extend(lengths::check_sources(root)?);

    problems.extend(
        find_mod_rs(&crates_dir)?
            .into_iter()
            .map(|p| format!("{}: no mod.rs files; use foo.rs + foo/", p.display())),
    );

    problems.extend(paths::check(root)?);
    problems.extend(locks::check(root)?);
    problems.extend(rooms::check(root)?);

    if problems.is_empty() {
        eprintln!(
            "xtask: tidy ok ({} members: dependency arrows, every dependency used, engine tree \
             as listed, code map complete, no mod.rs, no path outside the repository, one lock \
             policy in the host, the host's rooms one way, no file over 800 lines)",
            members.len()
        );
        return Ok(());
    }
    for p in &problems {
        eprintln!("tidy: {p}");
    }
    bail!("{} tidy problem(s)", problems.len())
}

/// The workspace members, their dependencies and targets, from `cargo metadata --no-deps`.
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
                .map(|d| dependency(d, &names))
                .collect::<anyhow::Result<_>>()
                .with_context(|| format!("package {name}"))?;
            let targets = p
                .get("targets")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|t| {
                    let kinds = strings(t.get("kind"));
                    let src_path = t
                        .get("src_path")
                        .and_then(Value::as_str)
                        .with_context(|| format!("package {name}: a target without src_path"))?;
                    Ok(Target {
                        kinds,
                        src_path: PathBuf::from(src_path),
                    })
                })
                .collect::<anyhow::Result<_>>()?;
            Ok(Member {
                name: name.to_owned(),
                dir,
                deps,
                targets,
            })
        })
        .collect()
}

/// One entry of a package's `dependencies` in cargo metadata.
fn dependency(d: &Value, workspace: &BTreeSet<&str>) -> anyhow::Result<Dep> {
    let name = d
        .get("name")
        .and_then(Value::as_str)
        .context("a dependency without a name")?;
    let text = |key: &str| d.get(key).and_then(Value::as_str).map(str::to_owned);
    let kind = match d.get("kind").and_then(Value::as_str) {
        None => DepKind::Normal,
        Some("dev") => DepKind::Dev,
        Some("build") => DepKind::Build,
        Some(other) => bail!("dependency {name}: unknown kind `{other}`"),
    };
    Ok(Dep {
        name: name.to_owned(),
        rename: text("rename"),
        kind,
        target: text("target"),
        features: strings(d.get("features")),
        default_features: d
            .get("uses_default_features")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        internal: workspace.contains(name),
    })
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
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
        for dep in m.deps.iter().filter(|d| d.internal) {
            let to = short(&dep.name);
            let edge = match dep.kind {
                DepKind::Dev => continue,
                DepKind::Build => format!("{} → {} (build dependency)", m.name, dep.name),
                DepKind::Normal => format!("{} → {}", m.name, dep.name),
            };
            if to == "test-support" && dep.kind == DepKind::Normal {
                problems.push(format!("{edge}: test-support may only be a dev-dependency"));
                continue;
            }
            match allowed {
                None => problems.push(format!(
                    "{edge}: `{from}` is not in the dependency table of xtask/src/tidy.rs \
                     (add it there, with its boundary described in ARCHITECTURE.md)"
                )),
                Some(None) => {}
                Some(Some(list)) if list.contains(&to) => {}
                Some(Some(list)) => problems.push(format!(
                    "{edge}: not allowed; `{from}` may depend on {}{}",
                    if list.is_empty() {
                        "no internal crate".to_owned()
                    } else {
                        list.join(", ")
                    },
                    if SURFACES.contains(&from) {
                        " (a surface uses the host's public API: re-export what it needs from \
                         crates/host/src/lib.rs)"
                    } else {
                        ""
                    }
                )),
            }
        }
    }
    problems
}

/// Checks 2 and 6: no forbidden crate in `cargo tree -p interlude-engine -e normal --prefix
/// none`, and exactly the packages of [`ENGINE_TREE`].
fn check_engine_tree(tree: &str) -> Vec<String> {
    let found: BTreeSet<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "interlude-engine")
        .collect();
    let forbidden = found
        .iter()
        .filter(|name| ENGINE_FORBIDDEN.contains(name))
        .map(|name| {
            format!(
                "interlude-engine depends (maybe transitively) on `{name}`; the engine stays \
                 sans-IO (see `cargo tree -p interlude-engine -e normal -i {name}`)"
            )
        });
    let new = found
        .iter()
        .filter(|name| !ENGINE_TREE.contains(name) && !ENGINE_FORBIDDEN.contains(name))
        .map(|name| {
            format!(
                "`{name}` joined the engine's dependency tree (see `cargo tree -p \
                 interlude-engine -e normal -i {name}`); if that is intended, add it to \
                 ENGINE_TREE in xtask/src/tidy.rs and to ARCHITECTURE.md's engine section"
            )
        });
    let gone = ENGINE_TREE
        .iter()
        .filter(|name| !found.contains(*name))
        .map(|name| {
            format!(
                "`{name}` left the engine's dependency tree: remove it from ENGINE_TREE in \
                 xtask/src/tidy.rs and from ARCHITECTURE.md's engine section"
            )
        });
    forbidden.chain(new).chain(gone).collect()
}

/// Check 6, the documentation half: ARCHITECTURE.md's sentence lists exactly [`ENGINE_TREE`].
fn check_engine_doc(architecture: &str) -> Vec<String> {
    // Markdown wraps lines anywhere.
    let architecture = architecture
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let Some(start) = architecture.find(ENGINE_TREE_SENTENCE) else {
        return vec![format!(
            "ARCHITECTURE.md: the engine section must say \"{ENGINE_TREE_SENTENCE} …\" listing \
             ENGINE_TREE of xtask/src/tidy.rs"
        )];
    };
    let rest = architecture
        .get(start + ENGINE_TREE_SENTENCE.len()..)
        .unwrap_or_default();
    // Up to the end of the sentence: a full stop followed by white space (names have none).
    let end = rest
        .match_indices('.')
        .find(|(i, _)| {
            rest.get(i + 1..)
                .and_then(|r| r.chars().next())
                .is_none_or(char::is_whitespace)
        })
        .map_or(rest.len(), |(i, _)| i);
    let listed: BTreeSet<&str> = rest
        .get(..end)
        .unwrap_or_default()
        .split('`')
        .skip(1)
        .step_by(2)
        .collect();
    let missing = ENGINE_TREE
        .iter()
        .filter(|name| !listed.contains(*name))
        .map(|name| format!("ARCHITECTURE.md: the engine's dependency tree lacks `{name}`"));
    let extra = listed
        .iter()
        .filter(|name| !ENGINE_TREE.contains(name))
        .map(|name| {
            format!("ARCHITECTURE.md: the engine's dependency tree lists `{name}`, which ENGINE_TREE does not have")
        });
    missing.chain(extra).collect()
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
                .map(|(d, k)| Dep {
                    name: (*d).to_owned(),
                    rename: None,
                    kind: match k {
                        None => DepKind::Normal,
                        Some("dev") => DepKind::Dev,
                        Some(_) => DepKind::Build,
                    },
                    target: None,
                    features: Vec::new(),
                    default_features: true,
                    internal: true,
                })
                .collect(),
            targets: Vec::new(),
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
    fn surfaces_depend_on_the_host_only() {
        let members = [
            member(
                "interlude-web",
                &[
                    ("interlude-host", None),
                    ("interlude-engine", None),
                    ("interlude-protocol", Some("dev")),
                ],
            ),
            member(
                "interlude-tui",
                &[("interlude-host", None), ("interlude-schema", None)],
            ),
        ];
        let problems = check_edges(&members);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[0].contains("interlude-web → interlude-engine: not allowed"));
        assert!(problems[0].contains("the host's public API"));
        assert!(problems[1].contains("interlude-tui → interlude-schema: not allowed"));
    }

    /// A `cargo tree --prefix none` listing of the engine with `extra` added and `left_out`
    /// taken away from [`ENGINE_TREE`].
    fn tree_with(extra: &[&str], left_out: &[&str]) -> String {
        let mut tree = "interlude-engine v0.1.0 (/w/crates/engine)\n".to_owned();
        for name in ENGINE_TREE.iter().chain(extra) {
            if !left_out.contains(name) {
                tree.push_str(&format!("{name} v1.0.0\n{name} v1.0.0 (*)\n"));
            }
        }
        tree
    }

    #[test]
    fn engine_tree_is_exactly_the_list() {
        assert_eq!(
            check_engine_tree(&tree_with(&[], &[])),
            Vec::<String>::new()
        );
        let problems = check_engine_tree(&tree_with(&["clap", "anyhow-ext"], &["zmij"]));
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(problems[0].contains("`clap`; the engine stays sans-IO"));
        assert!(problems[1].contains("`anyhow-ext` joined the engine's dependency tree"));
        assert!(problems[2].contains("`zmij` left the engine's dependency tree"));
    }

    #[test]
    fn engine_lists_are_sorted_and_apart() {
        assert!(
            ENGINE_TREE.windows(2).all(|w| w[0] < w[1]),
            "sort ENGINE_TREE"
        );
        assert!(ENGINE_FORBIDDEN.iter().all(|f| !ENGINE_TREE.contains(f)));
    }

    #[test]
    fn architecture_lists_the_engine_tree() {
        let listed: Vec<String> = ENGINE_TREE.iter().map(|n| format!("`{n}`")).collect();
        let text = format!(
            "**Invariants:** no clock; {ENGINE_TREE_SENTENCE} {}.\nNot `clap`.\n",
            listed.join(", ")
        );
        assert_eq!(check_engine_doc(&text), Vec::<String>::new());

        let mut wrong = listed.clone();
        wrong.retain(|n| n != "`serde`");
        wrong.push("`axum`".to_owned());
        let text = format!(
            "{}\n{}.\n",
            ENGINE_TREE_SENTENCE.replace(" whole ", "\nwhole "),
            wrong.join(",\n")
        );
        assert_eq!(
            check_engine_doc(&text),
            vec![
                "ARCHITECTURE.md: the engine's dependency tree lacks `serde`",
                "ARCHITECTURE.md: the engine's dependency tree lists `axum`, which ENGINE_TREE \
                 does not have",
            ]
        );
        assert!(check_engine_doc("no such sentence")[0].contains("must say"));
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
