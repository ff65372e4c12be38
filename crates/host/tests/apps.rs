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
use interlude_host::headless::{Answers, HeadlessSurface};
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
