//! What a recording leaves on disk, against another local user (issue 34, round two): the file
//! ends mode 0600 and the user's, whatever was planted at `FILE.part` (a file anyone may write,
//! owned by someone else; a link to a victim's file), and a link's target is never written. A
//! server's URL is kept without its secrets. What it does not test: the calls recorded (the
//! CLI's `record_replay` tests do).
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use interlude_headless::recording::{Recorder, Recording, RecordingError};
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, ServerSpec};
use serde_json::json;

/// A folder of this test's own, mode 0700.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("interlude-headless-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    dir
}

#[cfg(unix)]
fn assert_private_and_mine(file: &Path) {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::symlink_metadata(file).unwrap();
    assert!(metadata.is_file(), "{} is a regular file", file.display());
    assert_eq!(metadata.mode() & 0o777, 0o600, "{:o}", metadata.mode());
    // A file this process creates is owned by its user: compare with one made now.
    let probe = file.with_extension("probe");
    std::fs::write(&probe, b"").unwrap();
    let mine = std::fs::metadata(&probe).unwrap().uid();
    std::fs::remove_file(&probe).unwrap();
    assert_eq!(metadata.uid(), mine, "the recording is the user's");
    Recording::from_json(&std::fs::read_to_string(file).unwrap()).unwrap();
}

#[cfg(unix)]
#[test]
fn a_planted_part_file_of_another_user_never_becomes_the_recording() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("planted");
    let file = dir.join("session.json");
    let part = dir.join("session.json.part");
    std::fs::write(&part, b"planted").unwrap();
    std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o666)).unwrap();
    // Another user's, where this process may give it away (it runs as root in CI sandboxes).
    let _ = std::os::unix::fs::chown(&part, Some(65534), Some(65534));
    let (_recorder, handle) = Recorder::to_file(&file).unwrap();
    assert_private_and_mine(&file);
    assert_eq!(handle.finish().unwrap(), 0);
    assert_private_and_mine(&file);
    std::fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_planted_link_is_never_written_through() {
    let dir = scratch("link");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let file = dir.join("session.json");
    std::os::unix::fs::symlink(&victim, dir.join("session.json.part")).unwrap();
    let (_recorder, handle) = Recorder::to_file(&file).unwrap();
    handle.finish().unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_private_and_mine(&file);
    // A link at the recording's own name is replaced, its target left alone too.
    let other = dir.join("other.json");
    std::os::unix::fs::symlink(&victim, &other).unwrap();
    let (_recorder, handle) = Recorder::to_file(&other).unwrap();
    handle.finish().unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_private_and_mine(&other);
    std::fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_folder_others_may_write_to_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("open-folder");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = Recorder::to_file(&dir.join("session.json")).unwrap_err();
    assert!(
        e.to_string().contains("may be written by other users"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_oversized_recording_is_refused_before_it_is_read() {
    let dir = scratch("oversized");
    let file = dir.join("huge.json");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(Recording::MAX_BYTES + 1)
        .unwrap();
    let started = std::time::Instant::now();
    let e = Recording::read_file(&file).unwrap_err();
    assert!(matches!(e, RecordingError::TooLarge { .. }), "{e}");
    assert!(e.to_string().contains("over the 64 MiB"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A server's URL with userinfo and an `api_key` is recorded without them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_url_s_secrets_stay_out_of_the_recording() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(interlude_demo::serve_http(
        listener,
        interlude_demo::HttpOptions::default(),
    ));
    let (recorder, handle) = Recorder::in_memory();
    let answers = Answers::from_json(&json!({"username": "ada"})).unwrap();
    let host = Host::start(
        HostConfig::default(),
        (HeadlessSurface::new(answers), recorder),
    );
    let url = format!("http://user:SECRET-1@{addr}/mcp?api_key=SECRET-2&v=1");
    let conn = host
        .connect("demo", ServerSpec::parse(&url).unwrap())
        .await
        .unwrap();
    conn.call_tool("github_username", None).await.unwrap();
    let mut recording = handle.recording();
    for _ in 0..200 {
        if !recording.calls.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        recording = handle.recording();
    }
    let target = &recording.servers["demo"].target;
    assert!(!recording.to_json().contains("SECRET"), "{target}");
    assert_eq!(target, &format!("http://•••@{addr}/mcp?api_key=•••&v=1"));
}
