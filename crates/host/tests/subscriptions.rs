//! Issue 23: subscriptions to a server's resources, in both eras.
//!
//! - 2025: the published server-everything (npm peer, over stdio): subscribe to a resource, make
//!   it send its simulated updates (its `toggle-subscriber-updates` tool sends one at once),
//!   hear the update, unsubscribe.
//! - 2026-07-28: a server of this test's own on rmcp, over `tokio::io::duplex`, that takes
//!   `subscriptions/listen`: the stream names the resource, an update on it and a change of the
//!   resource list are heard, and unsubscribing cancels the stream (the server sees its listen
//!   end).
//! - A server that declares no subscriptions refuses them in words, before anything is sent.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use interlude_host::{
    Host, HostConfig, HostError, HostEvent, ListKind, ProtocolChoice, Subscribing,
};
use interlude_test_support::NpmPeers;
use interlude_test_support::surface::RecordingSurface;
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use tokio::sync::mpsc::UnboundedReceiver;

const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything/dist/index.js";

/// Waits (without polling) for the first event `pick` accepts.
async fn wait_for<T>(
    events: &mut UnboundedReceiver<HostEvent>,
    mut pick: impl FnMut(&HostEvent) -> Option<T>,
) -> T {
    let found = async {
        while let Some(event) = events.recv().await {
            if let Some(t) = pick(&event) {
                return Some(t);
            }
        }
        None
    };
    tokio::time::timeout(Duration::from_secs(30), found)
        .await
        .expect("the event came in time")
        .expect("the host is alive")
}

fn updated(uri: &'static str) -> impl FnMut(&HostEvent) -> Option<u64> {
    move |event| match event {
        HostEvent::ResourceUpdated { server, uri: u } if u == uri => server
            .catalog
            .subscriptions
            .get(uri)
            .and_then(|w| w.updated_at_ms),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_subscribe_update_unsubscribe() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let surface = RecordingSurface::new(Vec::new());
    let mut events = surface.events();
    let host = Host::start(HostConfig::default(), surface);
    let spec = peers.stdio_spec(SERVER_EVERYTHING, &["stdio"]);
    let conn = host.connect("everything", spec).await.unwrap();
    let record = host.server(conn.id()).unwrap();
    assert_eq!(record.catalog.subscribing, Subscribing::PerResource);

    const URI: &str = "demo://resource/static/document/architecture.md";
    conn.subscribe(URI).await.unwrap();
    let record = host.server(conn.id()).unwrap();
    let watched = record
        .catalog
        .subscriptions
        .get(URI)
        .expect("on the record");
    assert_eq!(watched.updates, 0);

    // Its simulated updates start with one at once, for what this session subscribed to.
    let started = conn
        .call_tool("toggle-subscriber-updates", None)
        .await
        .unwrap();
    assert_ne!(started.result.is_error, Some(true));
    let at = wait_for(&mut events, updated(URI)).await;
    assert!(at >= watched.since_ms, "{at} < {}", watched.since_ms);
    let record = host.server(conn.id()).unwrap();
    assert!(record.catalog.subscriptions[URI].updates >= 1);

    conn.unsubscribe(URI).await.unwrap();
    let record = host.server(conn.id()).unwrap();
    assert!(!record.catalog.is_subscribed(URI), "{:?}", record.catalog);
    // An update the server might still send for it is not kept.
    conn.call_tool("toggle-subscriber-updates", None)
        .await
        .unwrap();
    host.close_all().await;
}

/// A 2026-07-28 server of this test's own: one resource, `test://clock`, that it says changed
/// as soon as a stream names it (and that its resource list changed); the end of each stream
/// is told on `ended`.
#[derive(Clone)]
struct ListenServer {
    ended: tokio::sync::mpsc::UnboundedSender<()>,
}

impl rmcp::ServerHandler for ListenServer {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        let mut capabilities = rmcp::model::ServerCapabilities::builder()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .build();
        capabilities.resources.get_or_insert_default().subscribe = Some(true);
        rmcp::model::ServerConfig::new(capabilities)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(
        &self,
        context: rmcp::service::SubscriptionContext,
    ) -> Result<(), rmcp::ErrorData> {
        let names_clock = context
            .accepted()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == "test://clock"));
        if names_clock {
            let update = rmcp::model::ServerNotification::ResourceUpdatedNotification(
                rmcp::model::ResourceUpdatedNotification::new(
                    rmcp::model::ResourceUpdatedNotificationParam::new("test://clock"),
                ),
            );
            let sent = context.sink().send(update).await;
            assert!(sent.is_ok(), "the update left");
            let changed = rmcp::model::ServerNotification::ResourceListChangedNotification(
                rmcp::model::ResourceListChangedNotification::default(),
            );
            let sent = context.sink().send(changed).await;
            assert!(sent.is_ok(), "the list change left");
        }
        context.cancelled().await;
        let _ = self.ended.send(());
        Ok(())
    }
}

#[tokio::test]
async fn a_2026_stream_names_the_resource_hears_its_update_and_is_cancelled() {
    let version = ProtocolVersion::V_2026_07_28;
    let surface = RecordingSurface::new(Vec::new());
    let mut events = surface.events();
    let host = Host::start(HostConfig::default(), surface);
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    let (ended, mut streams_ended) = tokio::sync::mpsc::unbounded_channel();
    let _server = tokio::spawn(async move {
        let server = ListenServer { ended };
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let conn = host
        .connect_transport("clock", host_end, ProtocolChoice::Pin(version))
        .await
        .unwrap();
    let record = host.server(conn.id()).unwrap();
    assert_eq!(record.catalog.subscribing, Subscribing::Listen);

    conn.subscribe("test://clock").await.unwrap();
    wait_for(&mut events, updated("test://clock")).await;
    let record = host.server(conn.id()).unwrap();
    assert_eq!(record.catalog.subscriptions["test://clock"].updates, 1);
    // The stream asked for the list changes the server declared too.
    let changes = wait_for(&mut events, |e| match e {
        HostEvent::ListChanged { server, list } if *list == ListKind::Resources => {
            Some(server.catalog.resources_changed)
        }
        _ => None,
    })
    .await;
    assert_eq!(changes, 1);

    conn.unsubscribe("test://clock").await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), streams_ended.recv())
        .await
        .expect("the server saw its stream cancelled")
        .unwrap();
    let record = host.server(conn.id()).unwrap();
    assert!(record.catalog.subscriptions.is_empty());
}

/// The demo declares no `resources.subscribe`: a subscription is refused in words, in both
/// eras, and the record offers none.
#[tokio::test]
async fn a_server_without_subscriptions_refuses_them_in_words() {
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let host = Host::start(HostConfig::default(), RecordingSurface::new(Vec::new()));
        let (host_end, server_end) = tokio::io::duplex(64 * 1024);
        let _server = tokio::spawn(async move {
            if let Ok(running) = interlude_demo::DemoServer::default()
                .serve(server_end)
                .await
            {
                let _ = running.waiting().await;
            }
        });
        let conn = host
            .connect_transport("demo", host_end, ProtocolChoice::Pin(version.clone()))
            .await
            .unwrap();
        assert_eq!(
            host.server(conn.id()).unwrap().catalog.subscribing,
            Subscribing::NotOffered
        );
        let refused = conn.subscribe("ui://demo/weather").await.unwrap_err();
        assert!(
            matches!(refused, HostError::NotOffered { .. }),
            "{version}: {refused:?}"
        );
        assert!(
            refused.to_string().contains("resources.subscribe"),
            "{refused}"
        );
    }
}
