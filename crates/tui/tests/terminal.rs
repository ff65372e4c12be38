//! End to end: the terminal surface in a real terminal. Each test starts the `tui_demo` example
//! inside a detached tmux session (its own socket file, 120×40) connected to the real demo server over
//! stdio, types keys with `tmux send-keys`, and reads the screen with `tmux capture-pane`,
//! polling with a deadline rather than sleeping.
//!
//! The binaries are built first, explicitly: one `cargo build` per test run, in this test's
//! profile and target directory, of exactly what `cargo xtask test` builds before its tests (so
//! there, and after any `cargo test --workspace`, it only finds everything fresh). tmux must be
//! installed; without it these tests print a note and pass, unless
//! `INTERLUDE_REQUIRE_PEERS=1` (set by `cargo xtask test`), where its absence fails them.
// A skipped test says why on stderr; outside `#[test]` functions too, a panic is how this file's
// code fails a test.
#![allow(
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use interlude_test_support::tmux::{PATIENCE, Tmux};

#[path = "support/terminal.rs"]
mod support;

use support::{binaries, everything_session, quote, session, start_session};

/// Picks a tool in the menu by typing its name and pressing Enter, then waits for the request.
fn call(tmux: &Tmux, tool: &str) {
    tmux.type_text(tool);
    tmux.wait_for(&format!("> {tool}"));
    tmux.press(&["Enter"]);
    tmux.wait_for("Request from \"Interlude demo\" (server \"demo\")");
}

/// Leaves through the menu's Quit entry and checks the example ended on its own.
fn quit(tmux: &Tmux) {
    quit_at(tmux, 2);
}

/// [`quit`] once the menu is shown for the `menus`th time.
fn quit_at(tmux: &Tmux, menus: usize) {
    tmux.wait_for_nth("Call a tool:", menus);
    tmux.type_text("Quit");
    tmux.wait_for("> Quit");
    tmux.press(&["Enter"]);
    tmux.wait_for("[tui exited 0]");
}

#[test]
fn accepting_contact_details_after_a_validation_message() {
    let Some(tmux) = start_session() else { return };
    let screen = tmux.wait_for("Connected to \"demo\"");
    assert!(screen.contains("contact_info"), "{screen}");
    // The count is of the tools the menu offers; those only its app views call are said apart.
    let listed = screen
        .lines()
        .skip_while(|l| !l.starts_with("Tools of \"demo\""))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .count();
    assert!(
        screen.contains(&format!("{listed} tools (and 2 only its app views call)")),
        "the header's count is not the {listed} listed:\n{screen}"
    );

    call(&tmux, "contact_info");
    let screen = tmux.wait_for("? Name *");
    assert!(
        screen.contains("Please provide your contact information"),
        "{screen}"
    );
    // The header names the exact call, read from the host's record of it.
    assert!(
        screen.contains("asked by its tool call contact_info (call #1)"),
        "{screen}"
    );

    tmux.type_text("Ada Lovelace");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("? Email *");
    // The description and the hint, each said once, as sentences (issue 12).
    assert!(
        screen.contains("Your email address. For example, ada@example.com."),
        "{screen}"
    );
    assert!(!screen.contains("an e-mail address"), "{screen}");
    tmux.type_text("ada-at-example");
    tmux.press(&["Enter"]);
    tmux.wait_for("Email must be an e-mail address, such as ada@example.com.");
    tmux.press(&["BSpace"; 14]);
    tmux.type_text("ada@example.com");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("? Age *");
    assert!(
        screen.contains("Enter a whole number from 18 to 150."),
        "{screen}"
    );
    tmux.press(&["Enter"]);
    tmux.wait_for("Enter age.");
    tmux.type_text("12");
    tmux.press(&["Enter"]);
    tmux.wait_for("Age must be between 18 and 150.");
    tmux.press(&["BSpace", "BSpace"]);
    tmux.type_text("36");
    tmux.press(&["Enter"]);

    let screen = tmux.wait_for("Your answer to \"demo\"?");
    assert!(screen.contains("Review: this is what \"demo\" will receive"));
    tmux.press(&["Enter"]);
    tmux.wait_for("Thanks Ada Lovelace (ada@example.com, age 36).");
    tmux.wait_for("Sent your answers to \"demo\".");
    quit(&tmux);
}

/// Waits until the screen has a row that reads `row` (trailing blanks aside), starting with
/// `prefix`; returns the screen.
fn wait_for_row(tmux: &Tmux, prefix: &str, row: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let rows = tmux.rows();
        if rows.iter().any(|r| r.trim_end() == row) {
            return rows.join("\n");
        }
        if Instant::now() > deadline {
            let now: Vec<&String> = rows.iter().filter(|r| r.starts_with(prefix)).collect();
            panic!("no row {row:?}; rows starting with {prefix:?}: {now:?}");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Shell editing in a text field: Ctrl-U clears it, Ctrl-W deletes the word before the cursor;
/// what is sent is what is left.
#[test]
fn ctrl_u_clears_a_field_and_ctrl_w_deletes_a_word_as_in_a_shell() {
    let Some(tmux) = start_session() else { return };
    call(&tmux, "contact_info");
    tmux.wait_for("? Name *");
    tmux.type_text("Grace Hopper");
    wait_for_row(&tmux, "? Name", "? Name * Grace Hopper");
    tmux.press(&["C-u"]);
    let screen = wait_for_row(&tmux, "? Name", "? Name *");
    // The help line is still there, under the emptied field.
    assert!(screen.contains("[Your full name"), "{screen}");
    tmux.type_text("Ada Lovelace Byron");
    wait_for_row(&tmux, "? Name", "? Name * Ada Lovelace Byron");
    tmux.press(&["C-w"]);
    wait_for_row(&tmux, "? Name", "? Name * Ada Lovelace");
    tmux.press(&["C-w"]);
    wait_for_row(&tmux, "? Name", "? Name * Ada");
    tmux.type_text("Lovelace");
    tmux.press(&["Enter"]);
    wait_for_row(&tmux, "> Name", "> Name * Ada Lovelace");

    tmux.wait_for("? Email *");
    tmux.type_text("ada@example.com");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Age *");
    // A number field edits the same way; a refused value keeps its message until Enter.
    tmux.type_text("12");
    tmux.press(&["Enter"]);
    tmux.wait_for("must be between 18 and 150");
    tmux.press(&["C-u"]);
    tmux.type_text("36");
    wait_for_row(&tmux, "? Age", "? Age * 36");
    tmux.press(&["Enter"]);
    tmux.wait_for("Your answer to \"demo\"?");
    tmux.press(&["Enter"]);
    tmux.wait_for("Thanks Ada Lovelace (ada@example.com, age 36).");
    quit(&tmux);
}

#[test]
fn declining_tells_the_server() {
    let Some(tmux) = start_session() else { return };
    call(&tmux, "contact_info");
    tmux.wait_for("? Name *");
    tmux.type_text("Grace");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Email *");
    tmux.type_text("grace@example.com");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Age *");
    tmux.type_text("45");
    tmux.press(&["Enter"]);
    tmux.wait_for("Decline: refuse to answer");
    tmux.press(&["Down", "Down"]);
    tmux.wait_for("> Decline: refuse to answer");
    tmux.press(&["Enter"]);
    tmux.wait_for("The user declined.");
    quit(&tmux);
}

#[test]
fn escape_cancels_the_request() {
    let Some(tmux) = start_session() else { return };
    call(&tmux, "contact_info");
    tmux.wait_for("? Name *");
    tmux.type_text("Someone");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Email *");
    tmux.press(&["Escape"]);
    tmux.wait_for("The user cancelled.");
    let screen = tmux.wait_for("Cancelled; \"demo\" was told.");
    assert!(!screen.contains("Thanks"), "{screen}");
    quit(&tmux);
}

/// `interlude-demo --http` on a free loopback port (its URL-flow pages on the same origin),
/// killed on drop.
struct HttpDemo {
    child: std::process::Child,
    origin: String,
}

impl HttpDemo {
    fn start(binary: &Path) -> HttpDemo {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let child = Command::new(binary)
            .args(["--http", &format!("127.0.0.1:{port}")])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + PATIENCE;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "interlude-demo did not listen");
            std::thread::sleep(Duration::from_millis(25));
        }
        HttpDemo {
            child,
            origin: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for HttpDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The terminal surface on the demo served over HTTP (its URL-flow pages allowed as a
/// development origin), with `$BROWSER` a script that writes down each link it is given.
struct LinkSession {
    tmux: Tmux,
    demo: HttpDemo,
    dir: PathBuf,
    opened: PathBuf,
}

impl LinkSession {
    /// Up to the tool menu; `protocol` pins the version. `None` when tmux is missing.
    fn start(protocol: Option<&str>) -> Option<LinkSession> {
        let bins = binaries();
        let demo = HttpDemo::start(&bins.demo);
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "interlude-tui-url-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let opened = dir.join("opened.txt");
        let opener = dir.join("open.sh");
        std::fs::write(
            &opener,
            format!("#!/bin/sh\necho \"$1\" >> {}\n", quote(&opened)),
        )
        .unwrap();
        std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let spec = format!("demo={}/mcp", demo.origin);
        let pin = protocol.map_or_else(String::new, |v| format!("TUI_DEMO_PROTOCOL={v} "));
        let command = format!(
            "BROWSER={} TUI_DEMO_DEV_ORIGIN={} {pin}{} {}; echo \"[tui exited $?]\"; sleep 600",
            quote(&opener),
            demo.origin,
            quote(&bins.tui),
            quote(Path::new(&spec))
        );
        let tmux = Tmux::start(&command)?;
        tmux.wait_for("Call a tool:");
        Some(LinkSession {
            tmux,
            demo,
            dir,
            opened,
        })
    }

    /// The `n`th link handed to the opener (from 1), once it has been.
    fn opened_link(&self, n: usize) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Ok(text) = std::fs::read_to_string(&self.opened)
                && let Some(line) = text.lines().nth(n - 1)
            {
                return line.to_owned();
            }
            assert!(Instant::now() < deadline, "the opener was not run {n}×");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for LinkSession {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// 2025-11-25 over HTTP: the host waits for the server's word on a consented link; meanwhile
/// the person can open it again (`o`) or say they are done (`d`). Then the `-32042` path: the
/// forecast needs the key first, the link is shown and opened, the server's word comes once
/// the page is done, and the call is retried by itself.
#[test]
fn a_waited_link_is_opened_again_said_done_and_a_required_one_retried() {
    let Some(session) = LinkSession::start(Some("2025-11-25")) else {
        return;
    };
    let tmux = &session.tmux;
    call(tmux, "weather_api_key");
    tmux.wait_for("Open the link in my browser");
    tmux.press(&["Enter"]);
    tmux.wait_for("Waiting for you in the browser. Type d and Enter");
    let link = session.opened_link(1);
    tmux.type_text("o");
    tmux.press(&["Enter"]);
    assert_eq!(session.opened_link(2), link, "opened again");
    tmux.type_text("d");
    tmux.press(&["Enter"]);
    tmux.wait_for("Told the host you are done with \"demo\"'s link.");
    let page = interlude_test_support::http1::complete_demo_flow(
        &session.demo.origin,
        &link,
        "tui-key-2025",
    )
    .unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    tmux.wait_for("Saved your Weather API key (12 characters)");

    // The forecast uses that key (and the demo forgets it)…
    tmux.wait_for_nth("Call a tool:", 2);
    tmux.type_text("weather_forecast");
    tmux.wait_for("> weather_forecast");
    tmux.press(&["Enter"]);
    tmux.wait_for("with your 12-character key");
    // …so the next forecast gets -32042: a request of the same call, then the retry.
    tmux.wait_for_nth("Call a tool:", 3);
    call(tmux, "weather_forecast");
    tmux.wait_for("The forecast needs your weather service's API key");
    tmux.press(&["Enter"]);
    tmux.wait_for_nth("Waiting for you in the browser. Type d and Enter", 2);
    let link = session.opened_link(3);
    let page = interlude_test_support::http1::complete_demo_flow(
        &session.demo.origin,
        &link,
        "tui-key-32042",
    )
    .unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    tmux.wait_for("\"demo\" finished in the browser.");
    let screen = tmux.wait_for("with your 13-character key");
    assert!(!screen.contains("tui-key"), "{screen}");
    quit_at(tmux, 4);
}

/// URL mode on the terminal (2026-07-28 over HTTP): the link with its origin and the host's
/// note, consent, the link handed to the system's opener (`$BROWSER`: a script here that writes
/// it down), the server's page done by "the person", then "I am done" and the server's word.
#[test]
fn a_link_is_shown_consented_to_and_opened() {
    let Some(session) = LinkSession::start(None) else {
        return;
    };
    let (tmux, demo, opened) = (&session.tmux, &session.demo, &session.opened);
    call(tmux, "weather_api_key");
    let screen = tmux.wait_for("Open the link in my browser");
    assert!(
        screen.contains(&format!("Link:   {}/flows/", demo.origin)),
        "{screen}"
    );
    assert!(screen.contains("development origin"), "{screen}");
    assert!(!opened.exists(), "nothing is opened before consent");
    tmux.press(&["Enter"]);
    tmux.wait_for("Opening the link in your browser");
    let link = session.opened_link(1);
    assert!(
        link.starts_with(&format!("{}/flows/", demo.origin)),
        "{link}"
    );
    let page = interlude_test_support::http1::complete_demo_flow(&demo.origin, &link, "tui-key-1")
        .unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    // The server asks again for the same link: the person says they are done.
    tmux.wait_for("I am done in the browser: go on");
    tmux.press(&["Enter"]);
    tmux.wait_for("Saved your Weather API key (9 characters)");
    let screen = tmux.screen();
    assert!(!screen.contains("tui-key-1"), "{screen}");
    quit(tmux);
}

/// A link whose name passes for another site's ("аpple.com", with a Cyrillic "а"; typed as its
/// ASCII form, as a URI argument must be), sent by server-everything's URL elicitation (a real
/// npm peer over stdio): the menu offers Decline first (Enter declines), and the way to open it
/// names the ASCII form, never the look-alike.
#[test]
fn a_look_alike_link_offers_decline_first_naming_its_ascii_form() {
    let Some(tmux) = everything_session() else {
        return;
    };
    tmux.wait_for("to move, Enter to call");
    tmux.type_text("trigger-url-elicitation");
    tmux.wait_for("> trigger-url-elicitation");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Url");
    tmux.type_text("https://xn--pple-43d.com/login");
    tmux.press(&["Enter"]);
    // The message (its default), no elicitation id, the request path.
    tmux.wait_for("? Message");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Elicitation id");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Error path");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("Decline: do not open it");
    let decline = screen.find("Decline: do not open it").unwrap_or(usize::MAX);
    let open = screen
        .find("Open xn--pple-43d.com in my browser")
        .unwrap_or_else(|| panic!("the way to open it names its ASCII form:\n{screen}"));
    assert!(decline < open, "Decline comes first:\n{screen}");
    assert!(screen.contains("which the host flagged"), "{screen}");
    tmux.press(&["Enter"]);
    tmux.wait_for("Declined;");
}

/// A long call's progress shows as lines while it runs: server-everything's long operation
/// (a real npm peer over stdio), which reports progress against the token the host sends with
/// every call.
#[test]
fn a_long_calls_progress_shows_while_it_runs() {
    let Some(tmux) = everything_session() else {
        return;
    };
    // The menu offers what the host's record listed when it was drawn, and is not drawn again
    // while it waits for keys: typing the tool's name into a menu without it would filter to
    // nothing, forever. So the menu must show the server's tools (its first, `echo`) before
    // the name is typed.
    let screen = tmux.wait_for("to move, Enter to call");
    let menu = &screen[screen.rfind("Call a tool:").unwrap_or(0)..];
    assert!(
        menu.contains("echo"),
        "the menu was drawn before the host's record listed everything's tools; the screen:\n{screen}"
    );
    tmux.type_text("trigger-long-running-operation");
    tmux.wait_for("> trigger-long-running-operation");
    tmux.press(&["Enter"]);
    // The arguments, prefilled with their defaults (10 s, 5 steps): 3 s in 6 steps instead.
    // Typing replaces a value offered whole (it used to append: "103"), and the field says so.
    let screen = tmux.wait_for("? Duration 10");
    assert!(
        screen.contains("Enter keeps 10; typing replaces it."),
        "{screen}"
    );
    tmux.type_text("3");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Steps 5");
    tmux.type_text("6");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("Long running operation completed");
    let lines: Vec<&str> = screen
        .lines()
        .filter(|l| l.trim_start().starts_with('⋯') && l.contains(" of 6 ("))
        .collect();
    assert!(
        !lines.is_empty(),
        "no progress line while the call ran; the screen:\n{screen}"
    );
    let calling = screen.find("Calling everything").unwrap();
    let result = screen.find("Long running operation completed").unwrap();
    let first = screen.find(lines[0]).unwrap();
    assert!(calling < first && first < result, "{screen}");
    quit_at(&tmux, 2);
}

/// At 80 columns nothing the terminal surface prints is cut mid-word (lists, descriptions and
/// its own hints are broken between words), and the review shows, next to a choice's title, the
/// value that will be sent.
#[test]
fn at_80_columns_nothing_wraps_mid_word_and_the_review_shows_what_is_sent() {
    let spec = format!("demo={}", quote(&binaries().demo));
    let Some(tmux) = session(&spec, 80, 50) else {
        return;
    };
    // A row that fills the terminal and goes on with a letter on the next row was cut by the
    // terminal in the middle of a word.
    let cut_words = |rows: &[String]| -> Vec<String> {
        rows.windows(2)
            .filter(|pair| {
                let (a, b) = (&pair[0], &pair[1]);
                a.chars().count() >= 80
                    && a.chars().last().is_some_and(char::is_alphanumeric)
                    && b.chars().next().is_some_and(char::is_alphanumeric)
            })
            .map(|pair| format!("{} ⏎ {}", pair[0], pair[1]))
            .collect()
    };
    let rows = tmux.rows();
    assert!(cut_words(&rows).is_empty(), "{:#?}", cut_words(&rows));
    call(&tmux, "favourite_genre");
    let rows = tmux.rows();
    assert!(cut_words(&rows).is_empty(), "{:#?}", cut_words(&rows));
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("Your answer to");
    let review = screen
        .lines()
        .find(|l| l.contains("= \""))
        .unwrap_or_else(|| panic!("the review shows no value sent: {screen}"));
    assert!(review.contains("Jazz"), "{review}");
    let rows = tmux.rows();
    assert!(cut_words(&rows).is_empty(), "{:#?}", cut_words(&rows));
    tmux.press(&["Escape"]);
    tmux.wait_for("Cancelled");
}

/// The User Interaction draft of seed 000 on the terminal: the example declares it
/// (`TUI_DEMO_USER_INTERACTION=1`), pinned to 2025-11-25, against the server written by hand
/// against the draft's JSON (`crates/demo/tests/test_data/interaction_server.py`, whose tools
/// return the JSON of what they saw). A `prompt` is asked as a form under a line naming the
/// draft, with the form's usual rules; the server gets `{"result": {"content": …}}`.
#[test]
fn a_seed_000_prompt_is_asked_as_a_form_and_named_as_the_draft() {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../demo/tests/test_data/interaction_server.py");
    let spec = format!("seed=python3 {}", quote(&script));
    let command = format!(
        "TUI_DEMO_USER_INTERACTION=1 TUI_DEMO_PROTOCOL=2025-11-25 {} {}; echo \"[tui exited $?]\"; sleep 600",
        quote(&binaries().tui),
        quote(Path::new(&spec))
    );
    let Some(tmux) = Tmux::start_sized(&command, 120, 40) else {
        return;
    };
    tmux.wait_for("Call a tool:");
    tmux.type_text("prompt");
    tmux.wait_for("> prompt");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("? Name *");
    assert!(
        screen.contains("Request from \"seed-000-server\" (server \"seed\")"),
        "{screen}"
    );
    assert!(
        screen.contains("asked through the User Interaction draft (interaction/create)"),
        "{screen}"
    );
    assert!(
        screen.contains("Let us know some information about you."),
        "{screen}"
    );
    // The draft's line sits between who asks and the message.
    let at = |needle: &str| screen.find(needle).unwrap();
    assert!(
        at("seed-000-server") < at("User Interaction draft")
            && at("User Interaction draft") < at("Let us know"),
        "{screen}"
    );
    tmux.type_text("Ada Lovelace");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Email *");
    tmux.type_text("ada-at-example");
    tmux.press(&["Enter"]);
    tmux.wait_for("must be an e-mail address");
    tmux.press(&["C-u"]);
    tmux.type_text("ada@example.org");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("? Age");
    assert!(screen.contains("at least 18"), "{screen}");
    tmux.type_text("12");
    tmux.press(&["Enter"]);
    tmux.wait_for("must be at least 18");
    tmux.press(&["C-u"]);
    tmux.type_text("36");
    tmux.press(&["Enter"]);
    tmux.wait_for("Your answer to \"seed\"?");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for(
        r#"{"result": {"content": {"name": "Ada Lovelace", "email": "ada@example.org", "age": 36}}}"#,
    );
    assert!(
        screen.contains("Sent your answers to \"seed\"."),
        "{screen}"
    );
    quit(&tmux);
}

/// Calls server-everything's `trigger-sampling-request` with `prompt` (the token limit left at
/// its default) and waits for the reply's prompt; returns the screen then.
fn ask_for_sampling(tmux: &Tmux, prompt: &str) -> String {
    tmux.wait_for("to move, Enter to call");
    tmux.type_text("trigger-sampling-request");
    tmux.wait_for("> trigger-sampling-request");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Prompt");
    tmux.type_text(prompt);
    tmux.press(&["Enter"]);
    tmux.wait_for("? Max tokens");
    tmux.press(&["Enter"]);
    tmux.wait_for("Your reply, as the model:")
}

/// Sampling answered by a person on the terminal, with server-everything's
/// `trigger-sampling-request` (a real npm peer over stdio): the conversation, the system prompt
/// and the server's wishes as lines, the reply typed line by line (an empty line ends it), then
/// sent; the server echoes the `CreateMessageResult` it got.
#[test]
fn a_sampling_request_is_answered_with_the_reply_typed() {
    let Some(tmux) = everything_session() else {
        return;
    };
    let screen = ask_for_sampling(&tmux, "the capital of France?");
    for shown in [
        "Reply as the model to a conversation of 1 message.",
        "System prompt:",
        "You are a helpful test server.",
        "User:",
        "the capital of France?",
        "at most 100 tokens",
        "temperature 0.7",
    ] {
        assert!(screen.contains(shown), "{shown:?} is not shown:\n{screen}");
    }
    tmux.type_text("Paris.");
    tmux.press(&["Enter"]);
    tmux.wait_for("? …");
    tmux.type_text("It has been since 987.");
    tmux.press(&["Enter"]);
    // Each line, once given, reads as an answer; the next prompt waits below it.
    tmux.wait_for("> … It has been since 987.");
    tmux.press(&["Enter"]);
    tmux.wait_for("Send this reply");
    tmux.press(&["Enter"]);
    tmux.wait_for("Sent your reply to \"everything\" as the model (interlude-person).");
    let screen = tmux.wait_for("LLM sampling result");
    assert!(
        screen.contains("Paris.\\nIt has been since 987."),
        "the server did not get both lines:\n{screen}"
    );
}

/// The menu's "Server logs" shows each server's last log lines, and what a stdio server wrote
/// to stderr has its place there (server-everything says it is starting, on stderr).
#[test]
fn server_logs_show_what_a_stdio_server_wrote_to_stderr() {
    let Some(tmux) = everything_session() else {
        return;
    };
    tmux.wait_for("to move, Enter to call");
    tmux.type_text("Server logs");
    tmux.wait_for("> Server logs");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("Logs of \"everything\"");
    let logs = &screen[screen.rfind("Logs of \"everything\"").unwrap_or(0)..];
    assert!(
        logs.contains("stderr  Starting default (STDIO) server..."),
        "the server's stderr is not in its logs:\n{screen}"
    );
    tmux.wait_for_nth("Call a tool:", 2);
}

/// At 44 columns a field's help and a refused value's message are broken between words by the
/// prompt itself, never in the middle of a word by the terminal (issue 23).
#[test]
fn a_narrow_terminal_breaks_help_between_words() {
    const COLUMNS: usize = 44;
    let spec = format!("demo={}", quote(&binaries().demo));
    let Some(tmux) = session(&spec, COLUMNS as u16, 50) else {
        return;
    };
    let cut_words = |rows: &[String]| -> Vec<String> {
        rows.windows(2)
            .filter(|pair| {
                let (a, b) = (&pair[0], &pair[1]);
                a.chars().count() >= COLUMNS
                    && a.chars().last().is_some_and(char::is_alphanumeric)
                    && b.chars().next().is_some_and(char::is_alphanumeric)
            })
            .map(|pair| format!("{} ⏎ {}", pair[0], pair[1]))
            .collect()
    };
    // (The request's header is wider than the terminal: wait for the first field instead.)
    tmux.type_text("contact_info");
    tmux.wait_for("> contact_info");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Name *");
    tmux.type_text("Ada");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Email *");
    let rows = tmux.rows();
    assert!(cut_words(&rows).is_empty(), "{:#?}", cut_words(&rows));
    tmux.type_text("ada-at-example");
    tmux.press(&["Enter"]);
    tmux.wait_for("such as");
    let rows = tmux.rows();
    assert!(cut_words(&rows).is_empty(), "{:#?}", cut_words(&rows));
    tmux.press(&["Escape"]);
    tmux.wait_for("Cancelled");
}

/// Declining a sampling request on the terminal: an empty reply offers "Write the reply" and
/// "Decline"; declined, server-everything hears the spec's "user rejected" error (code -1).
#[test]
fn a_sampling_request_can_be_declined() {
    let Some(tmux) = everything_session() else {
        return;
    };
    ask_for_sampling(&tmux, "anything");
    // Nothing typed: Enter ends the (empty) reply; sending is not offered.
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("Write the reply");
    assert!(!screen.contains("Send this reply"), "{screen}");
    tmux.press(&["Down"]);
    tmux.wait_for("> Decline: send no reply");
    tmux.press(&["Enter"]);
    tmux.wait_for("Declined; \"everything\" was told.");
    tmux.wait_for("User rejected sampling request");
}

/// `interlude connect --tui` on a server written with `@mcp-ui/server` 6.1.0 (npm peers, over stdio): a UI
/// resource in a result is named for what it is, never printed; a Remote DOM one says it is not
/// shown; an embedded web page with a look-alike name is offered by its ASCII form, after its
/// warnings, with "no" as the default.
#[test]
fn embedded_views_are_named_and_a_look_alike_page_is_offered_by_its_ascii_form() {
    let files = [
        "@mcp-ui/server/dist/index.mjs",
        "@modelcontextprotocol/sdk/dist/esm/server/index.js",
    ];
    let Some(peers) = interlude_test_support::NpmPeers::locate(&files) else {
        return;
    };
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/tests/test_data/mcp_ui_server.mjs");
    // `interlude connect --tui`: the terminal with a page beside it, as a person runs it (the
    // terminal alone records no views: it declares no MCP Apps).
    let spec = format!("{} {}", quote(&peers.node), quote(&script));
    let command = format!(
        "{} connect --tui --port 0 {}; echo \"[tui exited $?]\"; sleep 600",
        quote(&binaries().cli),
        quote(Path::new(&spec))
    );
    let Some(tmux) = Tmux::start_sized(&command, 120, 40) else {
        return;
    };
    tmux.wait_for("to move, Enter to call");
    tmux.type_text("show_hello");
    tmux.wait_for("> show_hello");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("[an HTML view: ui://classic/hello]");
    assert!(
        !screen.contains("<button"),
        "the HTML is not printed:\n{screen}"
    );
    // Its view is offered on the page, as an MCP Apps view is; not now.
    tmux.wait_for("has an app view (ui://classic/hello). Open it in the browser? (y/N)");
    tmux.press(&["Enter"]);
    tmux.wait_for("Open it in the browser? No");
    tmux.type_text("show_remote_dom");
    tmux.wait_for("> show_remote_dom");
    tmux.press(&["Enter"]);
    tmux.wait_for("carries a view that is not shown (ui://classic/remote)");
    tmux.type_text("show_site");
    tmux.wait_for("> show_site");
    tmux.press(&["Enter"]);
    tmux.wait_for("? Url");
    tmux.type_text("https://xn--pple-43d.com/login");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("Open it in your browser? (y/N)");
    assert!(
        screen.contains("carries a web page on xn--pple-43d.com"),
        "named by its ASCII form:\n{screen}"
    );
    assert!(screen.contains("Look carefully"), "{screen}");
    tmux.press(&["Enter"]);
    tmux.wait_for("Open it in your browser? No");
}
