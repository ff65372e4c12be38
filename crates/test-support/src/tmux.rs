//! A real terminal for tests: a detached tmux session on a socket file of its own, keys typed
//! with `tmux send-keys`, the screen read with `tmux capture-pane`, polling with a deadline
//! rather than sleeping. Used by the terminal surface's tests and the CLI's `connect --tui`
//! tests.
//!
//! tmux must be installed; without it [`Tmux::start`] returns `None` after a note, unless
//! `INTERLUDE_REQUIRE_PEERS=1` (set by `cargo xtask test`), where its absence fails the test.
//!
//! ```no_run
//! use interlude_test_support::tmux::Tmux;
//!
//! let Some(tmux) = Tmux::start("bash") else { return };
//! tmux.type_text("echo hello");
//! tmux.press(&["Enter"]);
//! tmux.wait_for("hello");
//! ```
// A helper that cannot do what the test needs fails the test: panics are this module's way.
#![allow(clippy::panic, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long one expected text may take to appear (servers start, other tests load the machine).
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A detached tmux session on its own socket, killed (with everything in it) on drop, and its
/// socket file removed.
#[derive(Debug)]
pub struct Tmux {
    program: PathBuf,
    socket: PathBuf,
}

/// `Some(path)` of tmux, or `None` (after a note) when it is missing and not required.
fn program() -> Option<PathBuf> {
    for candidate in [PathBuf::from("/usr/bin/tmux"), PathBuf::from("tmux")] {
        if Command::new(&candidate)
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Some(candidate);
        }
    }
    crate::missing_peer("tmux is not installed")
}

impl Tmux {
    /// Starts `command` (a shell command line) in a new 120×40 session; `None` when tmux is
    /// missing and not required.
    pub fn start(command: &str) -> Option<Tmux> {
        Self::start_sized(command, 120, 40)
    }

    /// [`Tmux::start`] in a terminal of `columns` × `rows`.
    pub fn start_sized(command: &str, columns: u16, rows: u16) -> Option<Tmux> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let socket = std::env::temp_dir().join(format!(
            "interlude-tmux-{}-{}.sock",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let tmux = Tmux {
            program: program()?,
            socket,
        };
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let out = tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            &columns,
            "-y",
            &rows,
            command,
        ]);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(&self.program)
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("run tmux")
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        let out = self.run(&["send-keys", "-t", "main", "-l", text]);
        assert!(out.status.success(), "send-keys failed");
    }

    /// Presses keys by tmux name (`Enter`, `Escape`, `Down`, `BSpace` …), all in one write: the
    /// terminal delivers them in order. `Escape` may only come last: followed by more bytes in
    /// the same read, a terminal library takes it for the start of Alt+key.
    pub fn press(&self, keys: &[&str]) {
        assert!(
            !keys.iter().rev().skip(1).any(|k| *k == "Escape"),
            "Escape must be the last key pressed at once: {keys:?}"
        );
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        let out = self.run(&args);
        assert!(out.status.success(), "send-keys {keys:?} failed");
    }

    /// The whole pane, history included, with wrapped lines joined.
    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", "main"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible pane as the terminal shows it, one row per line (wrapped lines not joined).
    pub fn rows(&self) -> Vec<String> {
        let out = self.run(&["capture-pane", "-p", "-t", "main"]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Waits until `needle` appears `count` times on the screen; fails with the screen.
    pub fn wait_for_nth(&self, needle: &str, count: usize) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen();
            if screen.matches(needle).count() >= count {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?} (×{count}); the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until `needle` is on the screen; fails with the screen.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_for_nth(needle, 1)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new(&self.program)
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .env_remove("TMUX")
            .output();
        let _ = std::fs::remove_file(&self.socket);
    }
}
