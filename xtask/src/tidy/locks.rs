//! One policy for a poisoned lock in the host: every `std::sync::Mutex` there is locked
//! through `crates/host/src/sync.rs` (which recovers), never skipped on poison or unwrapped.

use std::path::Path;

use super::deps::{rust_files, split_cfg_test, strip_line_comments};

/// The file that alone may call `.lock()` on a standard mutex.
const POLICY: &str = "sync.rs";

pub(super) fn check(root: &Path) -> anyhow::Result<Vec<String>> {
    let dir = root.join("crates/host/src");
    let mut problems = Vec::new();
    for path in rust_files(&dir)? {
        if path.file_name().is_some_and(|n| n == POLICY) {
            continue;
        }
        let text = std::fs::read_to_string(&path)?;
        let (code, _tests) = split_cfg_test(&strip_line_comments(&text));
        for (n, line) in findings(&code) {
            problems.push(format!(
                "{}:{n}: `{line}` locks a mutex by hand; use `crate::sync::lock` (one poison \
                 policy)",
                path.strip_prefix(root).unwrap_or(&path).display()
            ));
        }
    }
    Ok(problems)
}

/// Lines (1-based, of `code`) that call `.lock()` other than an async mutex's `.lock().await`.
fn findings(code: &str) -> Vec<(usize, String)> {
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            line.match_indices(".lock()")
                .any(|(i, m)| !line[i + m.len()..].starts_with(".await"))
        })
        .map(|(i, line)| (i + 1, line.trim().to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_locks_are_found_and_async_locks_pass() {
        let code = "let a = m.lock().ok();\nlet b = s.lock().await;\nlet c = lock(&m);\n";
        assert_eq!(findings(code), [(1, "let a = m.lock().ok();".to_owned())]);
    }
}
