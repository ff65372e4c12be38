//! Issue 23: resources and prompts in a real terminal (tmux), on the published server-everything
//! (npm peer, over stdio): a document read and subscribed to, its update printed as a line
//! while watching, then unsubscribed; a template's variable filled (text, then a blob said as
//! its size and type and saved to a file); a prompt got with its argument.
// A skipped test says why on stderr; a panic is how this file's code fails a test.
#![allow(
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use interlude_test_support::tmux::Tmux;

#[path = "support/terminal.rs"]
mod support;

use support::everything_session;

const DOCUMENT: &str = "demo://resource/static/document/architecture.md";

/// From the tool menu (shown for the `menus`th time), into the catalog of the one server.
fn open_catalog(tmux: &Tmux, menus: usize) {
    tmux.wait_for_nth("Call a tool:", menus);
    tmux.type_text("Resources and prompts");
    tmux.wait_for("> Resources and prompts");
    tmux.press(&["Enter"]);
}

/// In the catalog menu (shown for the `nth` time), picks the entry the filter `typed` puts
/// first, which must read `entry`.
fn pick(tmux: &Tmux, nth: usize, typed: &str, entry: &str) {
    tmux.wait_for_nth("Resources and prompts of \"everything\":", nth);
    tmux.type_text(typed);
    tmux.wait_for(&format!("> {entry}"));
    tmux.press(&["Enter"]);
}

/// In a resource's menu of what next, picks `what`.
fn then(tmux: &Tmux, what: &str) {
    tmux.type_text(what);
    tmux.wait_for(&format!("> {what}"));
    tmux.press(&["Enter"]);
}

#[test]
fn a_resource_is_read_subscribed_to_watched_and_unsubscribed() {
    let Some(tmux) = everything_session() else {
        return;
    };
    open_catalog(&tmux, 1);
    pick(&tmux, 1, "architecture", "resource  architecture.md");
    tmux.wait_for(&format!("━━ {DOCUMENT} ━━"));
    tmux.wait_for("> Back to the list");
    then(&tmux, "Subscribe to its updates");
    tmux.wait_for(&format!("Subscribed to {DOCUMENT}"));
    then(&tmux, "Back to the list");
    // The list says it is subscribed to; back to the tools to start the server's updates.
    tmux.wait_for("architecture.md  demo://resource/static/document/architecture.md  [subscribed]");
    tmux.press(&["Escape"]);
    tmux.wait_for_nth("Call a tool:", 2);
    tmux.type_text("toggle-subscriber-updates");
    tmux.wait_for("> toggle-subscriber-updates");
    tmux.press(&["Enter"]);
    tmux.wait_for("Started simulated resource updated notifications");

    // Watching: its updates print as lines (the first came at once, the next every 5 s).
    open_catalog(&tmux, 3);
    pick(&tmux, 3, "Watch updates", "Watch updates (1 subscribed)");
    tmux.wait_for("updates print here. Press Enter to stop.");
    let screen = tmux.wait_for(&format!("\"everything\" says {DOCUMENT} changed"));
    let line = screen
        .lines()
        .find(|l| l.contains("\"everything\" says"))
        .unwrap();
    // ⟳ hh:mm:ss
    let time = line.trim_start().trim_start_matches('⟳').trim_start();
    assert!(
        time.len() > 8
            && time
                .chars()
                .take(8)
                .enumerate()
                .all(|(i, c)| if i == 2 || i == 5 {
                    c == ':'
                } else {
                    c.is_ascii_digit()
                }),
        "{line}"
    );
    tmux.press(&["Enter"]);
    tmux.wait_for("Stopped watching.");

    // Unsubscribed: the list no longer says so.
    pick(&tmux, 4, "architecture", "resource  architecture.md");
    tmux.wait_for_nth(&format!("━━ {DOCUMENT} ━━"), 2);
    then(&tmux, "Unsubscribe from its updates");
    tmux.wait_for(&format!("Unsubscribed from {DOCUMENT}."));
    then(&tmux, "Back to the list");
    let screen = tmux.wait_for_nth("Resources and prompts of \"everything\":", 5);
    let menu = &screen[screen.rfind("Resources and prompts of").unwrap_or(0)..];
    assert!(!menu.contains("[subscribed"), "{menu}");
    tmux.press(&["Escape"]);
    quit(&tmux, 4);
}

#[test]
fn templates_are_filled_blobs_saved_and_prompts_got() {
    let Some(tmux) = everything_session() else {
        return;
    };
    open_catalog(&tmux, 1);
    // A text resource through its template.
    pick(&tmux, 1, "Dynamic Text", "template  Dynamic Text Resource");
    tmux.wait_for("resourceId:");
    tmux.type_text("3");
    tmux.press(&["Enter"]);
    tmux.wait_for("━━ demo://resource/dynamic/text/3 ━━");
    tmux.wait_for("Resource 3");
    then(&tmux, "Back to the list");

    // A blob: its size and type, and saved to a new file.
    pick(&tmux, 2, "Dynamic Blob", "template  Dynamic Blob Resource");
    tmux.wait_for("resourceId:");
    tmux.type_text("5");
    tmux.press(&["Enter"]);
    // Its size and the type the server gives the item (server-everything says text/plain).
    let screen = tmux.wait_for(" bytes, text/plain: demo://resource/dynamic/blob/5]");
    let said = screen
        .lines()
        .find(|l| l.contains(" bytes, text/plain: demo://resource/dynamic/blob/5]"))
        .unwrap();
    let bytes: usize = said
        .split('[')
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a size: {said}"));
    let path = std::env::temp_dir().join(format!("interlude-tui-blob-{}.bin", std::process::id()));
    let _ = std::fs::remove_file(&path);
    then(&tmux, "Save demo://resource/dynamic/blob/5 to a file");
    tmux.wait_for("Save to (file path):");
    tmux.type_text(&path.display().to_string());
    tmux.press(&["Enter"]);
    tmux.wait_for(&format!("Saved {bytes} bytes to {}.", path.display()));
    let saved = std::fs::read(&path).unwrap();
    assert_eq!(saved.len(), bytes);
    std::fs::remove_file(&path).unwrap();
    then(&tmux, "Back to the list");

    // A prompt with its argument: its messages printed.
    pick(&tmux, 3, "args-prompt", "prompt    args-prompt");
    tmux.wait_for("city *:");
    tmux.type_text("Lisbon");
    tmux.press(&["Enter"]);
    tmux.wait_for("state:");
    tmux.press(&["Enter"]);
    tmux.wait_for("━━ Prompt args-prompt ━━");
    tmux.wait_for("What's weather in Lisbon?");
    tmux.wait_for_nth("Resources and prompts of \"everything\":", 4);
    tmux.press(&["Escape"]);
    quit(&tmux, 2);
}

/// Leaves through the menu's Quit entry (shown for the `menus`th time).
fn quit(tmux: &Tmux, menus: usize) {
    tmux.wait_for_nth("Call a tool:", menus);
    tmux.type_text("Quit");
    tmux.wait_for("> Quit");
    tmux.press(&["Enter"]);
    tmux.wait_for("[tui exited 0]");
}
