//! What the page shows, as JSON: a projection of the host's record ([`HostSnapshot`]) plus the
//! page's own title and guide. Nothing here is kept between projections — the host owns servers,
//! calls and requests, and the page is a thin renderer of what this produces; every change the
//! host reports bumps a version and every open page receives a fresh projection.
//!
//! This file holds the page's state, the change feed and the servers' and calls' entries; by
//! area beside it: `state/requests.rs` (requests and their kinds), `state/links.rs` (a link's
//! consent screen), `state/views.rs` (app views).
//!
//! What it does not do: decide anything, or remember anything the host does not.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use interlude_host::{
    CallRecord, CallStatus, HostSnapshot, ServerRecord, ServerState, Subscribing, UrlStage,
    ViewRecord, ViewState,
};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::sandbox::Sandbox;
use crate::view::{FieldView, fields_of};

mod links;
mod requests;
mod views;

#[cfg(test)]
pub(crate) use requests::kind_entry;
use requests::{RequestEntry, request_entry};
use views::{ViewEntry, view_entry};

/// A server as the page shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerEntry {
    name: String,
    transport: &'static str,
    target: String,
    protocol_version: Option<String>,
    era: Option<String>,
    /// It declared `logging` (the page offers to set its level only then).
    logging: bool,
    /// `connecting`, `ready`, `failed` or `closed`.
    status: &'static str,
    title: Option<String>,
    version: Option<String>,
    error: Option<String>,
    /// While it connects: how the protocol version is being negotiated.
    negotiation: Option<String>,
    /// The tools a person may call in the model's place: those for the server's views only
    /// (`visibility: ["app"]`) are left out, and named in `app_only_tools`.
    tools: Vec<ToolEntry>,
    app_only_tools: Vec<String>,
    /// How its resources can be subscribed to: `none`, `per-resource` (2025) or `listen`
    /// (2026-07-28).
    subscribing: &'static str,
    /// The resources subscribed to, with their last update.
    subscriptions: Vec<SubscriptionEntry>,
    /// How many times it said each of its lists changed (the page asks again when one grows).
    lists_changed: ListsChanged,
}

/// A resource subscribed to.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionEntry {
    uri: String,
    since_ms: u64,
    /// When the server last said it changed (host clock, ms since the Unix epoch).
    updated_at_ms: Option<u64>,
    updates: u64,
}

/// How many times a server said its lists changed.
#[derive(Debug, Clone, Serialize)]
struct ListsChanged {
    tools: u64,
    resources: u64,
    prompts: u64,
}

/// One tool of a server, with a form for its arguments when its input schema fits the subset.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolEntry {
    name: String,
    title: Option<String>,
    description: Option<String>,
    /// Argument fields, when the input schema is a flat form; otherwise the page offers JSON.
    fields: Option<Vec<FieldView>>,
    input_schema: Value,
    /// The `ui://` view that shows its results (MCP Apps), if it has one.
    view: Option<String>,
}

/// One tool call in the activity timeline.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct CallEntry {
    id: u64,
    server: String,
    tool: String,
    arguments: Value,
    /// `running`, `done`, `tool-error`, `failed` or `cancelled`.
    status: &'static str,
    result: Option<Value>,
    error: Option<String>,
    rounds: usize,
    /// The requests it raised, by id (exact, from the host).
    requests: Vec<u64>,
    started_at_ms: u64,
    ended_at_ms: Option<u64>,
    /// The server's last word on its progress.
    progress: Option<ProgressEntry>,
    /// The task it became (the Tasks extension), as its server last said.
    task: Option<TaskEntry>,
}

/// A call's task, as its server last said it stands.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskEntry {
    id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    status: String,
    status_message: Option<String>,
}

/// A call's progress, as its server last reported it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ProgressEntry {
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
    updates: u64,
    at_ms: u64,
}

/// Everything a page needs.
#[derive(Debug, Clone, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PageState {
    version: u64,
    title: String,
    guide: Option<Value>,
    servers: Vec<ServerEntry>,
    calls: Vec<CallEntry>,
    requests: Vec<RequestEntry>,
    active: Option<u64>,
    /// App views (MCP Apps), each shown beside its call.
    views: Vec<ViewEntry>,
}

/// How many finished requests and calls a page shows (pending ones are always shown).
const SHOWN_FINISHED: usize = 200;

/// The page's own settings and the change feed.
pub(crate) struct Page {
    title: String,
    guide: Option<Value>,
    version: AtomicU64,
    changes: broadcast::Sender<u64>,
}

impl Page {
    pub(crate) fn new(title: String, guide: Option<Value>) -> Self {
        let (changes, _) = broadcast::channel(64);
        Page {
            title,
            guide,
            version: AtomicU64::new(0),
            changes,
        }
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Something changed: tell every page.
    pub(crate) fn changed(&self) {
        let version = self.version.fetch_add(1, Ordering::AcqRel) + 1;
        let _ = self.changes.send(version);
    }

    /// The version of the last change told.
    pub(crate) fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// The page's view of `snapshot`, taken after the page's `version` was read (see
    /// `WebApp::page_state`).
    pub(crate) fn project(
        &self,
        version: u64,
        snapshot: &HostSnapshot,
        sandbox: &Sandbox,
    ) -> PageState {
        let calls_of: HashMap<u64, &CallRecord> =
            snapshot.calls.iter().map(|c| (c.id.0, &**c)).collect();
        let titles: HashMap<u64, &str> = snapshot
            .servers
            .iter()
            .filter_map(|s| Some((s.id.0, s.identity.as_ref()?.display_name())))
            .collect();
        PageState {
            version,
            title: self.title.clone(),
            guide: self.guide.clone(),
            servers: snapshot.servers.iter().map(|s| server_entry(s)).collect(),
            calls: recent(&snapshot.calls, |c| c.status == CallStatus::Running)
                .map(call_entry)
                .collect(),
            requests: recent(&snapshot.requests, |r| r.status.is_pending())
                .map(|r| request_entry(r, &calls_of, &titles))
                .collect(),
            active: snapshot.presented.map(|id| id.0),
            views: snapshot
                .views
                .iter()
                .filter(|v| !matches!(v.state, ViewState::Closed))
                .map(|v| view_entry(v, snapshot, sandbox))
                .collect(),
        }
    }
}

/// Items still open, and the last [`SHOWN_FINISHED`] of the finished ones, in order.
fn recent<'a, T>(
    items: &'a [std::sync::Arc<T>],
    open: impl Fn(&T) -> bool + 'a,
) -> impl Iterator<Item = &'a T> + 'a {
    let finished = items.iter().filter(|i| !open(i)).count();
    let mut skip = finished.saturating_sub(SHOWN_FINISHED);
    items.iter().map(|i| &**i).filter(move |i| {
        if !open(i) && skip > 0 {
            skip -= 1;
            false
        } else {
            true
        }
    })
}

fn server_entry(s: &ServerRecord) -> ServerEntry {
    let identity = s.identity.as_ref();
    ServerEntry {
        name: s.name.clone(),
        transport: s.transport,
        target: s.target.clone(),
        protocol_version: identity.map(|i| i.protocol_version.clone()),
        era: identity.map(|i| i.era.to_string()),
        logging: identity.is_some_and(|i| i.logging),
        status: s.state.as_str(),
        title: identity.map(|i| i.display_name().to_owned()),
        version: identity
            .map(|i| i.version.clone())
            .filter(|v| !v.is_empty()),
        negotiation: s.negotiation.clone(),
        error: match &s.state {
            ServerState::Failed { reason } => Some(reason.clone()),
            _ => None,
        },
        subscribing: match s.catalog.subscribing {
            Subscribing::PerResource => "per-resource",
            Subscribing::Listen => "listen",
            _ => "none",
        },
        subscriptions: s
            .catalog
            .subscriptions
            .iter()
            .map(|(uri, w)| SubscriptionEntry {
                uri: uri.clone(),
                since_ms: w.since_ms,
                updated_at_ms: w.updated_at_ms,
                updates: w.updates,
            })
            .collect(),
        lists_changed: ListsChanged {
            tools: s.catalog.tools_changed,
            resources: s.catalog.resources_changed,
            prompts: s.catalog.prompts_changed,
        },
        app_only_tools: s
            .tools
            .iter()
            .filter(|t| !s.visibility(&t.name).model)
            .map(|t| t.name.to_string())
            .collect(),
        tools: s
            .model_tools()
            .map(|t| {
                let schema = Value::Object((*t.input_schema).clone());
                ToolEntry {
                    name: t.name.to_string(),
                    title: t.title.clone(),
                    description: t.description.as_ref().map(ToString::to_string),
                    fields: interlude_host::schema::FormSchema::parse(&schema)
                        .ok()
                        .map(|p| fields_of(&p.schema)),
                    input_schema: schema,
                    view: s.tool_ui(&t.name).and_then(|ui| ui.resource_uri.clone()),
                }
            })
            .collect(),
    }
}

fn call_entry(c: &CallRecord) -> CallEntry {
    let (result, error) = match &c.status {
        CallStatus::Completed(r) => (serde_json::to_value(r).ok(), None),
        CallStatus::Failed { reason } | CallStatus::Cancelled { reason } => {
            (None, Some(reason.clone()))
        }
        _ => (None, None),
    };
    CallEntry {
        id: c.id.0,
        server: c.server_name.to_string(),
        tool: c.tool.clone(),
        arguments: c.arguments.clone().map_or(Value::Null, Value::Object),
        status: c.status.as_str(),
        result,
        error,
        rounds: c.rounds,
        requests: c.requests.iter().map(|r| r.0).collect(),
        started_at_ms: c.started_at_ms,
        ended_at_ms: c.ended_at_ms,
        progress: c.progress.as_ref().map(|p| ProgressEntry {
            progress: p.progress,
            total: p.total,
            message: p.message.clone(),
            updates: p.updates,
            at_ms: p.at_ms,
        }),
        task: c.task.as_ref().map(|t| TaskEntry {
            id: t.id.clone(),
            status: t.status.clone(),
            status_message: t.status_message.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use interlude_host::Answer;
    use interlude_host::{Connection, Host, ProtocolChoice};
    use rmcp::ServiceExt;
    use rmcp::model::ProtocolVersion;
    use serde_json::{Value, json};

    use crate::{WebApp, WebOptions};

    async fn demo(host: &Host, name: &str, version: &ProtocolVersion) -> Connection {
        let (host_end, server_end) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            if let Ok(running) = interlude_demo::DemoServer::default()
                .serve(server_end)
                .await
            {
                let _ = running.waiting().await;
            }
        });
        host.connect_transport(name, host_end, ProtocolChoice::Pin(version.clone()))
            .await
            .unwrap()
    }

    fn page(app: &WebApp) -> Value {
        serde_json::to_value(app.page_state()).unwrap()
    }

    /// The page's timeline is the host's record, projected: each call lists exactly the
    /// requests it raised and each request names its call and tool, with several calls in
    /// flight on two servers, in both eras.
    #[tokio::test]
    async fn the_timeline_is_the_host_record_projected() {
        for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
            let app = WebApp::start(WebOptions::default());
            let host = app.host().clone();
            let one = demo(&host, "one", &version).await;
            let two = demo(&host, "two", &version).await;
            let calls = [
                one.start_call("contact_info", None),
                one.start_call("github_username", None),
                two.start_call("favourite_genre", None),
            ];
            let ids: Vec<u64> = calls.iter().map(|c| c.id().0).collect();
            let running: Vec<_> = calls
                .into_iter()
                .map(|c| tokio::spawn(c.outcome()))
                .collect();
            // The engine queues what the calls ask; all three are pending soon.
            let mut state = page(&app);
            for _ in 0..500 {
                let pending = state["requests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["status"] == "queued" || r["status"] == "active")
                    .count();
                if pending == 3 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                state = page(&app);
            }
            let calls = state["calls"].as_array().unwrap();
            let requests = state["requests"].as_array().unwrap();
            assert_eq!(calls.len(), 3, "{state:#}");
            assert_eq!(requests.len(), 3, "{state:#}");
            for call in calls {
                assert!(ids.contains(&call["id"].as_u64().unwrap()));
                let raised = call["requests"].as_array().unwrap();
                assert_eq!(raised.len(), 1, "{call:#}");
                let request = requests.iter().find(|r| r["id"] == raised[0]).unwrap();
                assert_eq!(request["call"], call["id"], "{version}: {request:#}");
                assert_eq!(request["tool"], call["tool"], "{version}: {request:#}");
                assert_eq!(request["server"], call["server"]);
            }
            // Answer them all from outside (as the page's POSTs do); the calls complete.
            let answers = [
                (
                    "contact_info",
                    json!({"name": "Ada", "email": "ada@example.com", "age": 36}),
                ),
                ("github_username", json!({"username": "octocat"})),
                ("favourite_genre", json!({"genre": "jazz"})),
            ];
            for (tool, answer) in answers {
                let id = requests.iter().find(|r| r["tool"] == tool).unwrap()["id"]
                    .as_u64()
                    .unwrap();
                app.host().answer_sink().answer(
                    interlude_host::RequestId(id),
                    Answer::Accepted(answer.as_object().cloned().unwrap()),
                );
            }
            for r in running {
                assert!(r.await.unwrap().is_ok());
            }
            let state = page(&app);
            assert!(
                state["calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|c| c["status"] == "done"),
                "{state:#}"
            );
        }
    }
}
