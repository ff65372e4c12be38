//! `interlude check-url` as a person or a script runs it: the verdict as JSON on stdout and the
//! exit code 0 allow, 1 flag, 2 refuse, for the verdicts issue 21 changed.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::Command;

use serde_json::Value;

/// Runs `interlude check-url <url>`: the exit code and the verdict's JSON.
fn check(url: &str) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args(["check-url", url])
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{url}: not JSON ({e}): {out:?}"));
    (out.status.code().unwrap(), json)
}

fn codes(json: &Value) -> Vec<&str> {
    json["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect()
}

#[test]
fn exit_codes_follow_the_verdict() {
    let table: &[(&str, i32, &str, &[&str])] = &[
        // Allowed, with informational notes where there is something to show.
        ("https://example.com/", 0, "allow", &[]),
        ("https://münchen.de/", 0, "allow", &["idn"]),
        ("https://8.8.8.8/", 0, "allow", &["ip_address_host"]),
        (
            "https://example.com:8443/",
            0,
            "allow",
            &["non_default_port"],
        ),
        (" https://example.com/\n", 0, "allow", &[]),
        // Flagged: look-alikes.
        ("https://аpple.com/", 1, "flag", &["idn", "mixed_scripts"]),
        (
            "https://аррӏе.com/",
            1,
            "flag",
            &["idn", "lookalike_letters"],
        ),
        (
            "https://ɡoogle.com/",
            1,
            "flag",
            &["idn", "unusual_characters"],
        ),
        // Refused: what cannot be a web page for a person, and the private network.
        ("https://example.onion/", 2, "refuse", &["special_use_name"]),
        (
            "https://4.3.2.1.in-addr.arpa/",
            2,
            "refuse",
            &["special_use_name"],
        ),
        (
            "https://10.0.0.1:8443/",
            2,
            "refuse",
            &["private_address", "non_default_port"],
        ),
    ];
    for &(url, code, verdict, expected) in table {
        let (exit, json) = check(url);
        assert_eq!(
            (exit, json["verdict"].as_str().unwrap(), codes(&json)),
            (code, verdict, expected.to_vec()),
            "{url}"
        );
    }
}
