//! MCP Apps on the host side, against the published example servers (npm, pinned, over stdio):
//! the host declares the extension, and keeps per server each tool's view and visibility and
//! the resource listing; tools only views may call are left out of lists meant for a model.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_engine::Declared;
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, ServerSpec};
use interlude_protocol::apps::{MIME_TYPE, Visibility};
use interlude_test_support::NpmPeers;

const BASIC: &str = "@modelcontextprotocol/server-basic-vanillajs/dist/index.js";
const MONITOR: &str = "@modelcontextprotocol/server-system-monitor/dist/index.js";

fn spec(peers: &NpmPeers, file: &str) -> ServerSpec {
    ServerSpec::Stdio {
        command: peers.node.to_string_lossy().into_owned(),
        args: vec![
            peers.package_file(file).to_string_lossy().into_owned(),
            "--stdio".into(),
        ],
        env: Default::default(),
    }
}

fn host(apps: bool) -> Host {
    let declare = if apps {
        Declared::FORM_AND_URL.with_apps()
    } else {
        Declared::FORM_AND_URL
    };
    let config = HostConfig {
        declare,
        ..HostConfig::default()
    };
    Host::start(config, HeadlessSurface::new(Answers::Defaults))
}

/// server-basic-vanillajs: `get-time` shows its result in `ui://get-time/mcp-app.html`, which
/// its resource listing names with the app MIME type.
#[tokio::test]
async fn a_tools_view_and_the_resource_listing_are_kept_per_server() {
    let Some(peers) = NpmPeers::locate(&[BASIC]) else {
        return;
    };
    let host = host(true);
    let conn = host.connect("basic", spec(&peers, BASIC)).await.unwrap();
    let record = host.server(conn.id()).unwrap();
    let ui = record.tool_ui("get-time").expect("get-time has a view");
    assert_eq!(
        ui.resource_uri.as_deref(),
        Some("ui://get-time/mcp-app.html")
    );
    assert_eq!(ui.visibility, Visibility::DEFAULT);
    assert!(
        record.apps.problems.is_empty(),
        "{:?}",
        record.apps.problems
    );
    let listed = record
        .apps
        .resources
        .iter()
        .find(|r| r.uri == "ui://get-time/mcp-app.html")
        .expect("the view's resource is listed");
    assert_eq!(listed.mime_type.as_deref(), Some(MIME_TYPE));
    assert_eq!(record.model_tools().count(), 1);
    host.close_all().await;
}

/// server-system-monitor: `poll-system-stats` is for its view only (`visibility: ["app"]`,
/// with no view of its own); a list meant for a model leaves it out.
#[tokio::test]
async fn an_app_only_tool_is_left_out_of_the_model_list() {
    let Some(peers) = NpmPeers::locate(&[MONITOR]) else {
        return;
    };
    let host = host(true);
    let conn = host
        .connect("monitor", spec(&peers, MONITOR))
        .await
        .unwrap();
    let record = host.server(conn.id()).unwrap();
    let poll = record
        .tool_ui("poll-system-stats")
        .expect("app metadata on poll-system-stats");
    assert_eq!(poll.visibility, Visibility::APP_ONLY);
    assert_eq!(poll.resource_uri, None);
    let for_model: Vec<&str> = record.model_tools().map(|t| t.name.as_ref()).collect();
    assert!(for_model.contains(&"get-system-info"), "{for_model:?}");
    assert!(!for_model.contains(&"poll-system-stats"), "{for_model:?}");
    assert!(record.tools.iter().any(|t| t.name == "poll-system-stats"));
    host.close_all().await;
}

/// What the server hears: the extension with the app MIME type when the host declares apps,
/// nothing of it otherwise.
#[tokio::test]
async fn the_extension_is_declared_only_when_configured() {
    use rmcp::ServiceExt;
    use rmcp::model::{ProtocolVersion, ServerCapabilities, ServerConfig};

    #[derive(Clone, Default)]
    struct Listener {
        heard: std::sync::Arc<std::sync::Mutex<Option<rmcp::model::ClientCapabilities>>>,
    }
    impl rmcp::ServerHandler for Listener {
        fn get_info(&self) -> ServerConfig {
            let mut info = ServerConfig::default();
            info.capabilities = ServerCapabilities::builder().build();
            info
        }
        async fn on_initialized(
            &self,
            context: rmcp::service::NotificationContext<rmcp::RoleServer>,
        ) {
            let caps = context.peer.peer_info().map(|i| i.capabilities.clone());
            *self.heard.lock().unwrap() = caps;
        }
    }

    for apps in [true, false] {
        let host = host(apps);
        let server = Listener::default();
        let heard = server.heard.clone();
        let (host_end, server_end) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let choice = interlude_host::ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25);
        host.connect_transport("listener", host_end, choice)
            .await
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let caps = loop {
            if let Some(caps) = heard.lock().unwrap().clone() {
                break caps;
            }
            assert!(std::time::Instant::now() < deadline, "never initialized");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        };
        let declared = caps
            .extensions
            .as_ref()
            .and_then(|e| e.get(interlude_protocol::apps::EXTENSION_ID))
            .map(|ui| ui["mimeTypes"] == serde_json::json!([MIME_TYPE]));
        assert_eq!(declared, apps.then_some(true), "{caps:?}");
        host.close_all().await;
    }
}

async fn wait_for<T>(
    events: &mut tokio::sync::mpsc::UnboundedReceiver<interlude_host::HostEvent>,
    mut pick: impl FnMut(&interlude_host::HostEvent) -> Option<T>,
) -> T {
    let found = async {
        while let Some(event) = events.recv().await {
            if let Some(t) = pick(&event) {
                return Some(t);
            }
        }
        None
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), found)
        .await
        .expect("the event came in time")
        .expect("the host is alive")
}

/// The message the bridge posted to view `view` that `pick` accepts.
async fn posted(
    events: &mut tokio::sync::mpsc::UnboundedReceiver<interlude_host::HostEvent>,
    view: interlude_host::ViewId,
    mut pick: impl FnMut(&serde_json::Value) -> bool,
) -> serde_json::Value {
    wait_for(events, |e| match e {
        interlude_host::HostEvent::ViewMessage { view: v, message }
            if *v == view && pick(message) =>
        {
            Some(message.clone())
        }
        _ => None,
    })
    .await
}

/// server-basic-vanillajs end to end on the host side, the test playing the sandbox proxy and
/// the view (the browser plays them in the web surface's tests): calling `get-time` opens its
/// view; the proxy gets the real HTML; the view's handshake is answered with the call's tool;
/// after `initialized` the input and then the result arrive; the view calls `get-time` itself
/// and gets the server's answer under its own id; a tool the server does not have is refused;
/// its size reaches the record; closing it sends `ui/resource-teardown`, and its answer closes it.
#[tokio::test]
async fn a_tools_view_opens_and_speaks_with_its_server_through_the_bridge() {
    use interlude_host::{HostEvent, ViewState};
    use interlude_test_support::surface::RecordingSurface;
    use serde_json::json;

    let Some(peers) = NpmPeers::locate(&[BASIC]) else {
        return;
    };
    let surface = RecordingSurface::new(Vec::new());
    let mut events = surface.events();
    let config = HostConfig {
        declare: Declared::FORM_AND_URL.with_apps(),
        ..HostConfig::default()
    };
    let host = Host::start(config, surface);
    let conn = host.connect("basic", spec(&peers, BASIC)).await.unwrap();
    let call = conn.start_call("get-time", None);
    let call_id = call.id();
    let running = tokio::spawn(call.outcome());
    let view = wait_for(&mut events, |e| match e {
        HostEvent::ViewOpened(v) => Some(v.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        (view.call, view.resource_uri.as_str()),
        (Some(call_id), "ui://get-time/mcp-app.html")
    );
    let id = view.id;
    let open = wait_for(&mut events, |e| match e {
        HostEvent::ViewChanged(v) if v.id == id && v.state != ViewState::Loading => Some(v.clone()),
        _ => None,
    })
    .await;
    assert_eq!(open.state, ViewState::Open);
    let csp = open.csp.clone().unwrap();
    assert!(
        csp.contains("connect-src 'none'"),
        "no declaration, no network: {csp}"
    );

    host.view_message(
        id,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-proxy-ready", "params": {}}),
    );
    let ready = posted(&mut events, id, |m| {
        m["method"] == "ui/notifications/sandbox-resource-ready"
    })
    .await;
    let html = ready["params"]["html"].as_str().unwrap();
    assert!(
        html.len() > 10_000 && html.contains("get-time-btn"),
        "the server's real view"
    );

    host.view_message(
        id,
        json!({"jsonrpc": "2.0", "id": 0, "method": "ui/initialize", "params": {
        "appInfo": {"name": "Get Time App", "version": "1.0.0"}, "appCapabilities": {},
        "protocolVersion": "2026-01-26"}}),
    );
    let answer = posted(&mut events, id, |m| m["id"] == 0).await;
    assert_eq!(
        answer["result"]["hostContext"]["toolInfo"]["tool"]["name"],
        "get-time"
    );
    assert_eq!(answer["result"]["hostContext"]["platform"], "web");
    host.view_message(
        id,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    posted(&mut events, id, |m| {
        m["method"] == "ui/notifications/tool-input"
    })
    .await;
    let result = posted(&mut events, id, |m| {
        m["method"] == "ui/notifications/tool-result"
    })
    .await;
    assert!(
        result["params"]["structuredContent"]["time"].is_string(),
        "{result}"
    );
    running.await.unwrap().unwrap();

    host.view_message(
        id,
        json!({"jsonrpc": "2.0", "id": "again", "method": "tools/call",
        "params": {"name": "get-time", "arguments": {}}}),
    );
    let again = posted(&mut events, id, |m| m["id"] == "again").await;
    assert!(
        again["result"]["structuredContent"]["time"].is_string(),
        "{again}"
    );
    host.view_message(
        id,
        json!({"jsonrpc": "2.0", "id": "other", "method": "tools/call",
        "params": {"name": "delete-everything"}}),
    );
    let refused = posted(&mut events, id, |m| m["id"] == "other").await;
    assert_eq!(refused["error"]["code"], -32602);

    host.view_message(id, json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"width": 600, "height": 420}}));
    wait_for(&mut events, |e| match e {
        HostEvent::ViewChanged(v) if v.id == id && v.height == Some(420) => Some(()),
        _ => None,
    })
    .await;

    host.close_view(id);
    let teardown = posted(&mut events, id, |m| m["method"] == "ui/resource-teardown").await;
    host.view_message(
        id,
        json!({"jsonrpc": "2.0", "id": teardown["id"], "result": {}}),
    );
    wait_for(&mut events, |e| match e {
        HostEvent::ViewChanged(v) if v.id == id && v.state == ViewState::Closed => Some(()),
        _ => None,
    })
    .await;
    assert_eq!(host.call(call_id).unwrap().views, [id]);
    host.close_all().await;
}

/// A server written with `@mcp-ui/server` 6.1.0 (npm peer, over stdio) embeds UI resources in
/// its results: each gets a view of the call, tied to its place in the content. An embedded web
/// page is framed only once the person chose to, and only if its name resolves outside private
/// networks (looked up then, through the host's resolver — here a fixed table): a name that
/// points into a private network fails the view, and says why.
#[tokio::test]
async fn embedded_views_open_and_a_page_is_framed_only_where_its_name_points_publicly() {
    let files = [
        "@mcp-ui/server/dist/index.mjs",
        "@modelcontextprotocol/sdk/dist/esm/server/index.js",
    ];
    let Some(peers) = NpmPeers::locate(&files) else {
        return;
    };
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../web/tests/test_data/mcp_ui_server.mjs");
    let spec = ServerSpec::Stdio {
        command: peers.node.to_string_lossy().into_owned(),
        args: vec![script.to_string_lossy().into_owned()],
        env: [(
            "INTERLUDE_NPM_PEERS".to_owned(),
            peers.npm.to_string_lossy().into_owned(),
        )]
        .into(),
    };
    let config = HostConfig {
        declare: Declared::FORM_AND_URL.with_apps(),
        resolver: interlude_host::Resolver::fixed([
            ("intranet.example.org", vec!["10.0.0.5".parse().unwrap()]),
            ("docs.example.org", vec!["93.184.215.14".parse().unwrap()]),
        ]),
        ..HostConfig::default()
    };
    let host = Host::start(config, HeadlessSurface::new(Answers::Defaults));
    let conn = host.connect("classic", spec).await.unwrap();

    let hello = conn.call_tool("show_hello", None).await.unwrap();
    let view_of = |call: interlude_host::CallId| {
        host.snapshot()
            .views
            .iter()
            .find(|v| v.call == Some(call))
            .cloned()
    };
    let view = view_of(hello.call).expect("a view for the embedded resource");
    assert_eq!(
        view.embedded,
        Some(1),
        "the resource's place in the content"
    );
    assert_eq!(view.resource_uri, "ui://classic/hello");
    assert!(view.site.is_none());
    assert!(host.call(hello.call).unwrap().views.contains(&view.id));

    // Two resources in one result: a view each, the first under the policy its own
    // `_meta.ui.csp` declares, the second under the default-deny one.
    let two = conn.call_tool("show_two", None).await.unwrap();
    let snapshot = host.snapshot();
    let views: Vec<_> = snapshot
        .views
        .iter()
        .filter(|v| v.call == Some(two.call))
        .collect();
    assert_eq!(views.len(), 2, "{views:?}");
    let first = views.iter().find(|v| v.embedded == Some(0)).unwrap();
    let second = views.iter().find(|v| v.embedded == Some(1)).unwrap();
    assert_eq!(first.resource_uri, "ui://classic/first");
    assert!(
        first
            .csp
            .as_deref()
            .is_some_and(|c| c.contains("connect-src https://api.example.com")),
        "{:?}",
        first.csp
    );
    assert!(
        second
            .csp
            .as_deref()
            .is_some_and(|c| c.contains("connect-src 'none'")),
        "{:?}",
        second.csp
    );

    let settle = |call: interlude_host::CallId, framed: bool| {
        let host = host.clone();
        async move {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            loop {
                let snapshot = host.snapshot();
                let view = snapshot
                    .views
                    .iter()
                    .find(|v| v.call == Some(call))
                    .cloned();
                if let Some(v) = view.filter(|v| {
                    if framed {
                        v.site.as_ref().is_some_and(|s| s.framed)
                    } else {
                        matches!(v.state, interlude_host::ViewState::Failed { .. })
                    }
                }) {
                    return v;
                }
                assert!(std::time::Instant::now() < deadline, "{:?}", snapshot.views);
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    };
    for (url, public) in [
        ("https://intranet.example.org/wiki", false),
        ("https://docs.example.org/guide", true),
    ] {
        let args = serde_json::json!({ "url": url });
        let call = conn
            .call_tool("show_site", args.as_object().cloned())
            .await
            .unwrap()
            .call;
        let view = view_of(call).unwrap();
        assert_eq!(
            view.state,
            interlude_host::ViewState::Open,
            "judged, not refused yet"
        );
        assert!(
            !view.site.as_ref().unwrap().framed,
            "not framed before the person chose"
        );
        host.show_site(view.id);
        let after = settle(call, public).await;
        if public {
            assert!(after.site.as_ref().unwrap().framed, "{url}");
        } else {
            let interlude_host::ViewState::Failed { reason } = &after.state else {
                panic!("{url}: {:?}", after.state);
            };
            assert!(
                reason.contains("refused") && reason.contains("private"),
                "{reason}"
            );
        }
    }
    host.close_all().await;
}
