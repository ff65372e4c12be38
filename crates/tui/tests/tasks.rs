//! A call that becomes a task (the Tasks extension), in the terminal: the demo's
//! `deploy_release` prints its task's status lines as the server reports them, asks its
//! approval midway as a request of the call, and ends with its result. The `tui_demo` example
//! in tmux, on the demo over stdio (2026-07-28).
#![allow(
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "support/terminal.rs"]
mod support;

use support::start_session;

#[test]
fn a_task_prints_its_status_lines_asks_midway_and_ends() {
    let Some(tmux) = start_session() else { return };
    tmux.type_text("deploy_release");
    tmux.wait_for("> deploy_release");
    tmux.press(&["Enter"]);
    // Its one argument has a default: Enter keeps it.
    tmux.wait_for("? Version");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("task working — Check 1 of 3: unit tests");
    assert!(screen.contains("deploy_release"), "{screen}");
    tmux.wait_for("Request from \"Interlude demo\" (server \"demo\")");
    let screen = tmux.wait_for("The checks passed for 2.4.0");
    assert!(screen.contains("task waiting for you"), "{screen}");
    tmux.wait_for("? Approve *");
    tmux.type_text("y");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Note");
    tmux.press(&["Enter"]);
    tmux.wait_for("Accept: send these answers");
    tmux.press(&["Enter"]);
    tmux.wait_for("2.4.0 is deployed to production.");
}
