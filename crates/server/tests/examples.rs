//! Each example of `crates/server/examples/`, run as its own process (the binary cargo builds)
//! and driven through the Interlude host with its headless surface, in both protocol eras
//! (2025-11-25 and 2026-07-28): what an author copies from there works as its header says.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use interlude_host::{CallOutcome, Connection, Host, HostConfig, ProtocolChoice, ServerSpec};
use interlude_server::{Answer, Content};
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// What is done with each link the host consents to.
type OnLink = Box<dyn FnMut(&str) + Send>;

/// The host with the headless surface answering `answers` in order, speaking `version` only;
/// each link it consents to is handed to `on_link`. (The one place this file names the
/// headless surface.)
fn host(
    version: &ProtocolVersion,
    answers: Vec<Answer<Content>>,
    config: HostConfig,
    on_link: Option<OnLink>,
) -> Host {
    use interlude_headless::{Answers, HeadlessSurface};
    let mut surface = HeadlessSurface::new(Answers::Script(answers));
    if let Some(mut on_link) = on_link {
        surface = surface.on_link(move |url| on_link(url));
    }
    let config = HostConfig {
        protocol: ProtocolChoice::Pin(version.clone()),
        ..config
    };
    Host::start(config, surface)
}

fn accept(content: Value) -> Answer<Content> {
    Answer::Accepted(content.as_object().cloned().unwrap())
}

/// Example `name`'s binary, built here (once) unless cargo built it after the last change of
/// its sources (`cargo test` builds examples; `cargo test --test examples` does not).
fn example(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    // …/target/debug/deps/examples-<hash> → …/target
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().unwrap().parent().unwrap().to_owned();
    let target = debug.parent().unwrap().to_owned();
    let path = debug.join("examples").join(name);
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !built.iter().any(|b| b == name) && !fresh(&path, name) {
        // Cargo's variables for this test process stay out of the build's way.
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "interlude-server", "--example", name])
            .env_clear()
            .envs(std::env::vars().filter(|(k, _)| {
                !(k.starts_with("CARGO_") || k.starts_with("RUST_")) || k == "CARGO_HOME"
            }))
            .env("CARGO_TARGET_DIR", &target)
            .status()
            .expect("run cargo");
        assert!(status.success(), "cargo build --example {name} failed");
        built.push(name.to_owned());
    }
    assert!(path.exists(), "no example binary at {}", path.display());
    path
}

/// Whether the example's binary is newer than its source and the toolkit's (as after
/// `cargo test`, which builds the examples first: then no second build, with other features,
/// is started from here).
fn fresh(binary: &std::path::Path, name: &str) -> bool {
    fn newest(dir: &std::path::Path, newest_seen: &mut std::time::SystemTime) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                newest(&path, newest_seen);
            } else if let Ok(modified) = entry.metadata().and_then(|m| m.modified()) {
                *newest_seen = (*newest_seen).max(modified);
            }
        }
    }
    let Ok(built) = std::fs::metadata(binary).and_then(|m| m.modified()) else {
        return false;
    };
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = std::time::SystemTime::UNIX_EPOCH;
    newest(&crate_dir.join("src"), &mut sources);
    newest(&crate_dir.join("assets"), &mut sources);
    newest(&crate_dir.join("../server-macros/src"), &mut sources);
    if let Ok(example) =
        std::fs::metadata(crate_dir.join(format!("examples/{name}.rs"))).and_then(|m| m.modified())
    {
        sources = sources.max(example);
    }
    built >= sources
}

/// A stdio example as the host starts it, with `env`.
fn stdio(name: &str, env: &[(&str, &str)]) -> ServerSpec {
    ServerSpec::Stdio {
        command: example(name).display().to_string(),
        args: Vec::new(),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<BTreeMap<_, _>>(),
    }
}

/// The text of a tool's result.
fn text(outcome: &CallOutcome) -> String {
    outcome
        .result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn connect(host: &Host, spec: ServerSpec, version: &ProtocolVersion) -> Connection {
    let conn = host.connect("example", spec).await.unwrap();
    assert_eq!(conn.info().protocol_version, version.to_string());
    conn
}

/// A child process killed when dropped.
struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn form_stdio_asks_its_form_in_both_eras() {
    for version in &ERAS {
        let answers = vec![
            accept(json!({"name": "Ada", "age": 36, "born": "1990-12-10"})),
            Answer::Declined,
        ];
        let host = host(version, answers, HostConfig::default(), None);
        let conn = connect(&host, stdio("form_stdio", &[]), version).await;
        let done = conn.call_tool("contact", None).await.unwrap();
        assert_eq!(text(&done), "Hello Ada, 36, born 1990-12-10.", "{version}");
        let declined = conn.call_tool("contact", None).await.unwrap();
        assert_eq!(text(&declined), "The person declined.", "{version}");
        conn.close().await;
    }
}

#[tokio::test]
async fn form_http_serves_the_same_form_on_streamable_http_in_both_eras() {
    let mut child = Kill(
        Command::new(example("form_http"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut said = String::new();
    BufReader::new(child.0.stderr.take().unwrap())
        .read_line(&mut said)
        .unwrap();
    let url = said
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("where it listens: {said:?}"))
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    for version in &ERAS {
        let answers = vec![accept(json!({"name": "Grace", "age": 40}))];
        let host = host(version, answers, HostConfig::default(), None);
        let conn = connect(&host, ServerSpec::parse(&url).unwrap(), version).await;
        let done = conn.call_tool("contact", None).await.unwrap();
        assert_eq!(text(&done), "Hello Grace, 40.", "{version}");
        conn.close().await;
    }
}

/// The task example: a task in both designs (the host declares tasks), its question answered
/// midway, its result at the end; the call's record holds the task, completed.
#[tokio::test]
async fn task_runs_as_a_task_and_asks_midway_in_both_designs() {
    for version in &ERAS {
        let answers = vec![accept(json!({"approve": true}))];
        let host = host(version, answers, HostConfig::default(), None);
        let conn = connect(&host, stdio("task", &[]), version).await;
        let done = conn.call_tool("deploy", None).await.unwrap();
        assert_eq!(text(&done), "Deployed.", "{version}");
        let record = host.call(done.call).unwrap();
        let task = record.task.as_ref().expect("the call ran as a task");
        assert_eq!(task.status, "completed", "{version}");
        conn.close().await;
    }
}

/// Without the Tasks extension on the host's side, the same tool is an ordinary call.
#[tokio::test]
async fn task_is_an_ordinary_call_for_a_host_without_tasks() {
    for version in &ERAS {
        let answers = vec![accept(json!({"approve": false}))];
        let config = HostConfig {
            tasks: false,
            ..HostConfig::default()
        };
        let host = host(version, answers, config, None);
        let conn = connect(&host, stdio("task", &[]), version).await;
        let done = conn.call_tool("deploy", None).await.unwrap();
        assert_eq!(text(&done), "Not deployed.", "{version}");
        assert!(host.call(done.call).unwrap().task.is_none(), "{version}");
        conn.close().await;
    }
}

#[tokio::test]
async fn sampling_roots_asks_the_client_in_both_eras() {
    let dir = std::env::temp_dir().join(format!("interlude-example-root-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for version in &ERAS {
        let answers = vec![accept(json!({"text": "Rust, without the rust."}))];
        let config = HostConfig {
            roots: vec![interlude_host::Root::from_dir(&dir).unwrap()],
            ..HostConfig::default()
        };
        let host = host(version, answers, config, None);
        let conn = connect(&host, stdio("sampling_roots", &[]), version).await;
        let args = json!({"product": "a rust remover"}).as_object().cloned();
        let tagline = conn.call_tool("tagline", args).await.unwrap();
        assert_eq!(
            text(&tagline),
            "Tagline: Rust, without the rust.",
            "{version}"
        );
        let folders = conn.call_tool("folders", None).await.unwrap();
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert!(
            text(&folders).starts_with("file://") && text(&folders).ends_with(name),
            "{version}: {}",
            text(&folders)
        );
        conn.close().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The app example: its tool names its view, the view is an MCP App resource carrying the
/// toolkit's view helper (the handshake at 2026-01-26, the button calling `increment`), and
/// `increment` is for views only. (The view running in a browser is the web surface's tests'
/// business.)
#[tokio::test]
async fn app_view_links_its_tool_to_a_view_with_a_button() {
    for version in &ERAS {
        let host = host(version, Vec::new(), HostConfig::default(), None);
        let conn = connect(&host, stdio("app_view", &[]), version).await;
        let tools = conn.list_tools().await.unwrap();
        let meta = |name: &str| {
            let tool = tools.iter().find(|t| t.name == name);
            serde_json::to_value(&tool.unwrap().meta).unwrap()
        };
        assert_eq!(
            meta("counter")["ui"]["resourceUri"],
            "ui://counter/view.html",
            "{version}"
        );
        assert_eq!(meta("increment")["ui"]["visibility"], json!(["app"]));
        let read = conn.read_resource("ui://counter/view.html").await.unwrap();
        let contents = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
        let html = contents["text"].as_str().unwrap();
        for part in [
            "export async function connectView",
            "protocolVersion: APPS_PROTOCOL_VERSION",
            "'2026-01-26'",
            "ui/notifications/size-changed",
            "view.callTool('increment'",
        ] {
            assert!(html.contains(part), "the view has {part:?}");
        }
        let shown = conn.call_tool("counter", None).await.unwrap();
        assert_eq!(text(&shown), "The count is 0.", "{version}");
        assert_eq!(
            shown.result.structured_content,
            Some(json!({"count": 0})),
            "{version}"
        );
        conn.close().await;
    }
}

/// The URL flow example end to end: the host consents to the link; the browser (this test)
/// opening it is sent to sign in; the sign-in takes the code the server was started with and
/// leads back to the flow page — and to nowhere else; the key posted there completes the
/// call, and the next tool finds the key.
#[tokio::test]
async fn url_flow_signs_the_person_in_and_takes_the_key_on_its_page_in_both_eras() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for version in &ERAS {
        let (links, mut link) = tokio::sync::mpsc::unbounded_channel::<String>();
        let on_link: OnLink = Box::new(move |url: &str| {
            let _ = links.send(url.to_owned());
        });
        // The pages' port, chosen here: the host opens loopback links of that origin only.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut config = HostConfig::default();
        config.engine.url_policy.dev_origins = vec![interlude_host::DevOrigin::loopback_http(port)];
        let host = host(
            version,
            vec![Answer::Accepted(Content::new())],
            config,
            Some(on_link),
        );
        let port = port.to_string();
        let spec = stdio(
            "url_flow",
            &[
                ("URL_FLOW_SIGN_IN_CODE", "4711-0815"),
                ("URL_FLOW_PORT", port.as_str()),
            ],
        );
        let conn = connect(&host, spec, version).await;
        let call = conn.start_call("set_api_key", None);
        let call = tokio::spawn(async move { call.await });
        let url = tokio::time::timeout(Duration::from_secs(20), link.recv())
            .await
            .expect("the link in time")
            .unwrap();
        let origin = url.split("/flows/").next().unwrap().to_owned();
        assert!(origin.starts_with("http://127.0.0.1:"), "{url}");

        // Not signed in: the page says so and links to the sign-in, with the way back.
        let first = browser.get(&url).send().await.unwrap();
        assert_eq!(first.status().as_u16(), 401, "{version}");
        assert!(first.text().await.unwrap().contains("/sign-in?next="));

        // A wrong code signs nobody in; a `next` elsewhere is not followed.
        let sign_in = format!("{origin}/sign-in");
        let post = |body: Vec<(&'static str, String)>| {
            let body = body
                .iter()
                .map(|(k, v)| format!("{k}={}", form_encoded(v)))
                .collect::<Vec<_>>()
                .join("&");
            browser
                .post(&sign_in)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body)
                .send()
        };
        let wrong = post(vec![("code", "0000".into()), ("next", url.clone())])
            .await
            .unwrap();
        assert_eq!(wrong.status().as_u16(), 403);
        for elsewhere in [
            "https://evil.example/".to_owned(),
            format!("{origin}/flows/../sign-in"),
            format!("{origin}/flowsx/abc"),
            "//evil.example/flows/abc".to_owned(),
        ] {
            let signed = post(vec![
                ("code", "4711-0815".into()),
                ("next", elsewhere.clone()),
            ])
            .await
            .unwrap();
            assert_eq!(signed.status().as_u16(), 200, "{elsewhere}");
            assert!(signed.headers().get("location").is_none(), "{elsewhere}");
        }

        // The right code: signed in, and back to the flow page.
        let signed = post(vec![("code", "4711-0815".into()), ("next", url.clone())])
            .await
            .unwrap();
        assert_eq!(signed.status().as_u16(), 303);
        assert_eq!(signed.headers()["location"].to_str().unwrap(), url);
        let cookie = signed.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let page = browser
            .get(&url)
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(page.status().as_u16(), 200, "{version}");
        let page = page.text().await.unwrap();
        let token = page
            .split_once("name=\"token\" value=\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(token, _)| token.to_owned())
            .expect("the page's form token");
        let posted = browser
            .post(&url)
            .header("cookie", &cookie)
            .header("origin", &origin)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("secret=sk-example-123&token={token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(posted.status().as_u16(), 200, "{version}");

        let done = tokio::time::timeout(Duration::from_secs(30), call)
            .await
            .expect("the call ends once the flow is done")
            .unwrap()
            .unwrap();
        assert_eq!(text(&done), "The key is stored.", "{version}");
        let used = conn.call_tool("use_api_key", None).await.unwrap();
        assert_eq!(text(&used), "Using a key of 14 bytes.", "{version}");
        conn.close().await;
    }
}

/// `value` as a form field's value (`application/x-www-form-urlencoded`).
fn form_encoded(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
