//! The view helper (`apps::VIEW_HELPER_JS`, `assets/app-view.js`) in Node against a host played
//! by `view_helper.mjs`: the handshake at protocol revision 2026-01-26 with the view's info and
//! capabilities, `ui/notifications/initialized` right after, the size at start and after a
//! change (once), the call's result handed to the view, a tool call and its result, and the
//! host's requests answered (a question with the host's reasons, teardown with `{}`, an unknown
//! one with -32601). Skipped without Node unless peers are required (`cargo xtask test`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

#[test]
fn the_view_helper_speaks_the_view_side_of_mcp_apps() {
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[]) else {
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // The helper the crate ships, written out as it is embedded.
    let helper = std::env::temp_dir().join(format!("interlude-app-view-{}.js", std::process::id()));
    std::fs::write(&helper, interlude_server::apps::VIEW_HELPER_JS).unwrap();
    let run = Command::new(&peers.node)
        .arg(dir.join("tests/view_helper.mjs"))
        .arg(&helper)
        .output()
        .expect("run node");
    let _ = std::fs::remove_file(&helper);
    let said = String::from_utf8_lossy(&run.stdout);
    let complaint = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{complaint}{said}");
    let report: serde_json::Value = serde_json::from_str(said.trim()).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["sent"][0], "ui/initialize", "{report}");
}
