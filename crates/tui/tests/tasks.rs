//! A call that becomes a task, in the terminal. The Tasks extension: the demo's
//! `deploy_release` prints its task's status lines as the server reports them, asks its
//! approval midway as a request of the call, and ends with its result (the demo over stdio,
//! 2026-07-28). The 2025-11-25 experimental tasks: the published server-everything's
//! `simulate-research-query` on an ambiguous topic prints its stages, asks which meaning is
//! meant as a prompt, and its report names the answer. The `tui_demo` example in tmux.
#![allow(
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "support/terminal.rs"]
mod support;

use support::{everything_session, start_session};

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

/// Ctrl-C while a task works abandons its call, and the terminal says the task was told to
/// stop (the host sends `tasks/cancel` as the call is dropped; `crates/host/tests/tasks.rs`
/// checks the wire); the menu comes back.
#[test]
fn ctrl_c_abandons_a_task_and_says_it_was_told_to_stop() {
    let Some(tmux) = start_session() else { return };
    tmux.type_text("deploy_release");
    tmux.wait_for("> deploy_release");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Version");
    tmux.press(&["Enter"]);
    tmux.wait_for("task working — Check 1 of 3: unit tests");
    tmux.press(&["C-c"]);
    tmux.wait_for(
        "Abandoned the call to demo › deploy_release; its task was told to stop (tasks/cancel).",
    );
    tmux.wait_for("Call a tool:");
}

/// server-everything 2026.8.31 (npm peer, over stdio) speaks 2025-11-25, and its research tool
/// runs only as a task: asked about "python", ambiguous, it prints its stages as task lines,
/// stops to ask which meaning is meant (a choice, as a prompt of the call), and its report
/// names the meaning picked.
#[test]
fn server_everythings_research_task_asks_as_a_prompt_and_reports_the_answer() {
    let Some(tmux) = everything_session() else {
        return;
    };
    // The menu lists the server's tools once the host's record has them (its first, `echo`).
    tmux.wait_for("to move, Enter to call");
    tmux.type_text("simulate-research-query");
    tmux.wait_for("> simulate-research-query");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Topic *");
    tmux.type_text("python");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Ambiguous");
    tmux.type_text("y");
    tmux.press(&["Enter"]);
    // Its stages, then the wait for the person.
    tmux.wait_for("task working — Gathering sources...");
    tmux.wait_for("task waiting for you — Found multiple interpretations for \"python\"");
    let screen =
        tmux.wait_for("Request from \"Everything Reference Server\" (server \"everything\")");
    assert!(
        screen.contains("could have multiple interpretations"),
        "{screen}"
    );
    // The prompt is the call's own.
    tmux.wait_for("asked by its tool call simulate-research-query (call #1)");
    // The question is a choice of three meanings, shown by their titles.
    let screen = tmux.wait_for("? Clarification *");
    for title in [
        "Python programming language",
        "Python snake species",
        "Monty Python comedy group",
    ] {
        assert!(screen.contains(title), "no {title:?} offered:\n{screen}");
    }
    tmux.type_text("snake");
    tmux.wait_for("> Python snake species");
    tmux.press(&["Enter"]);
    tmux.wait_for("Accept: send these answers");
    tmux.press(&["Enter"]);
    // The task goes on with the answer, and its report names it.
    tmux.wait_for("task completed");
    let screen = tmux.wait_for("# Research Report: python (snake)");
    assert!(screen.contains("Clarification**: snake"), "{screen}");
}
