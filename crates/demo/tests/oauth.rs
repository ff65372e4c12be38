//! The toolkit's OAuth-client pattern end to end, with the demo's own provider ("Example
//! Cloud") on a loopback port, the demo over streamable HTTP with its flow pages, the host
//! answering headless (consenting, never opening anything), and raw HTTP playing the person's
//! browser: every redirect and form is followed by hand, so every refusal can be checked.
//! Example Cloud is the demo's stand-in for a third party; a real OpenID provider is the next
//! step of these tests.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_demo::flows::{COOKIE, demo_flows, serve_cloud};
use interlude_engine::DevOrigin;
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, ProtocolChoice, ServerSpec};
use interlude_protocol::Answer;
use interlude_server::url::{FlowStore, MemoryStore, SignedCookie, UserId};
use interlude_test_support::http1::{Exchange, exchange};
use rmcp::model::ProtocolVersion;
use tokio::net::TcpListener;

const KEY: [u8; 32] = [6u8; 32];

struct Rig {
    host: Host,
    origin: String,
    links: Arc<Mutex<Vec<String>>>,
    store: Arc<dyn FlowStore>,
}

async fn rig() -> Rig {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let origin = format!("http://{addr}");
    let base = format!("{origin}/flows");
    let cloud = serve_cloud(
        TcpListener::bind("127.0.0.1:0").await.unwrap(),
        &base,
        "oauth-test-secret",
    )
    .unwrap();
    let store: Arc<dyn FlowStore> = Arc::new(MemoryStore::default());
    let flows = demo_flows(&base, store.clone(), &KEY, Some(&cloud)).unwrap();
    tokio::spawn(interlude_demo::serve_http(
        listener,
        interlude_demo::HttpOptions {
            flows: Some((flows, KEY.to_vec())),
            ..Default::default()
        },
    ));
    let links = Arc::new(Mutex::new(Vec::new()));
    let seen = links.clone();
    let surface = HeadlessSurface::new(Answers::Single(Answer::Accepted(Default::default())))
        .on_link(move |url| seen.lock().unwrap().push(url.to_owned()));
    let mut config = HostConfig {
        protocol: ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        ..HostConfig::default()
    };
    config.engine.url_policy.dev_origins = vec![DevOrigin::loopback_http(addr.port())];
    let host = Host::start(config, surface);
    host.connect("demo", ServerSpec::parse(&format!("{origin}/mcp")).unwrap())
        .await
        .unwrap();
    Rig {
        host,
        origin,
        links,
        store,
    }
}

fn cookie_of(user: &str) -> String {
    SignedCookie::new(COOKIE, KEY)
        .unwrap()
        .header_value(&UserId::new(user))
}

async fn get(url: &str, cookie: Option<&str>) -> Exchange {
    let (url, cookie) = (url.to_owned(), cookie.map(str::to_owned));
    tokio::task::spawn_blocking(move || {
        let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("cookie", c.as_str())).collect();
        exchange("GET", &url, &headers, "").unwrap()
    })
    .await
    .unwrap()
}

async fn post_form(url: &str, body: String) -> Exchange {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        exchange(
            "POST",
            &url,
            &[("content-type", "application/x-www-form-urlencoded")],
            &body,
        )
        .unwrap()
    })
    .await
    .unwrap()
}

/// The query of an authorization URL as a form body with `decision`.
fn consent_form(authorize: &str, decision: &str) -> (String, String) {
    let (endpoint, query) = authorize.split_once('?').unwrap();
    (endpoint.to_owned(), format!("{query}&decision={decision}"))
}

async fn wait_link(rig: &Rig) -> String {
    for _ in 0..200 {
        if let Some(link) = rig.links.lock().unwrap().pop() {
            return link;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no link was handed to the surface");
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_an_account_through_oauth_refuses_every_wrong_turn() {
    let rig = rig().await;
    let conn = rig.host.connection_named("demo").unwrap();
    let call = tokio::spawn(async move { conn.call_tool("connect_cloud_account", None).await });
    let link = wait_link(&rig).await;
    assert!(
        link.starts_with(&format!("{}/flows/", rig.origin)),
        "{link}"
    );

    // Someone else, or nobody signed in, gets nowhere near the provider.
    assert_eq!(get(&link, Some(&cookie_of("mallory"))).await.status, 403);
    assert_eq!(get(&link, None).await.status, 401);

    // The flow's user is sent to the provider with PKCE and a state.
    let you = cookie_of("you");
    let to_provider = get(&link, Some(&you)).await;
    assert_eq!(to_provider.status, 303, "{}", to_provider.body);
    let authorize = to_provider.header("location").unwrap().to_owned();
    for part in [
        "code_challenge_method=S256",
        "code_challenge=",
        "state=",
        "client_id=interlude-demo",
        "scope=files.read",
    ] {
        assert!(authorize.contains(part), "{part} missing in {authorize}");
    }
    let (endpoint, form) = consent_form(&authorize, "allow");
    let back = post_form(&endpoint, form).await;
    assert_eq!(back.status, 303, "{}", back.body);
    let callback = back.header("location").unwrap().to_owned();
    assert!(callback.starts_with(&format!("{}/flows/oauth/callback?code=", rig.origin)));

    // A tampered state names no flow; someone else's browser bringing the code is refused.
    let tampered = callback.replace("state=", "state=x");
    assert_eq!(get(&tampered, Some(&you)).await.status, 404);
    assert_eq!(
        get(&callback, Some(&cookie_of("mallory"))).await.status,
        403
    );

    let connected = get(&callback, Some(&you)).await;
    assert_eq!(connected.status, 200, "{}", connected.body);
    assert!(connected.body.contains("Example Cloud is connected"));
    assert!(!connected.body.contains("ecl_"), "no token on the page");

    let outcome = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call went on")
        .unwrap()
        .unwrap();
    let text = text_of(&outcome.result);
    assert!(
        text.contains("Connected your Example Cloud account (scope: files.read)"),
        "{text}"
    );
    let tokens = rig
        .store
        .secret(&UserId::new("you"), "oauth:cloud")
        .await
        .unwrap()
        .expect("the tokens are kept for the user");
    assert!(
        tokens
            .expose_str()
            .unwrap()
            .contains("\"access_token\":\"ecl_")
    );
    let record = format!("{:?} {:?}", rig.host.snapshot(), rig.host.audit_records());
    assert!(!record.contains("ecl_"), "no token in the host");

    // Used: the link and the code are spent.
    assert_eq!(get(&link, Some(&you)).await.status, 410);
    assert_ne!(get(&callback, Some(&you)).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_consent_ends_the_call_without_an_account() {
    let rig = rig().await;
    let conn = rig.host.connection_named("demo").unwrap();
    let call = tokio::spawn(async move { conn.call_tool("connect_cloud_account", None).await });
    let link = wait_link(&rig).await;
    let you = cookie_of("you");
    let authorize = get(&link, Some(&you))
        .await
        .header("location")
        .unwrap()
        .to_owned();
    let (endpoint, form) = consent_form(&authorize, "deny");
    let back = post_form(&endpoint, form).await;
    let callback = back.header("location").unwrap().to_owned();
    assert!(callback.contains("error=access_denied"), "{callback}");
    let page = get(&callback, Some(&you)).await;
    assert!(page.body.contains("was not connected"), "{}", page.body);
    let outcome = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call ended at once")
        .unwrap()
        .unwrap();
    assert!(text_of(&outcome.result).contains("no account was connected"));
    assert!(
        rig.store
            .secret(&UserId::new("you"), "oauth:cloud")
            .await
            .unwrap()
            .is_none()
    );
}
