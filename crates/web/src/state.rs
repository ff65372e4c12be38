//! The page's view-model: everything the page shows, kept on the host side so that a reload, a
//! second tab or a closed page never loses anything. The page is a thin renderer of
//! [`Snapshot`]s; every change bumps `version` and is broadcast to every open page.

use std::sync::Mutex;

use interlude_engine::{ElicitationView, Notice, Reply, RequestId};
use interlude_schema::FieldError;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::view::{FieldView, fields_of};

/// A connected (or failed) server as the page shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerEntry {
    pub(crate) name: String,
    pub(crate) transport: String,
    pub(crate) target: String,
    pub(crate) protocol_version: Option<String>,
    pub(crate) era: Option<String>,
    pub(crate) status: &'static str,
    pub(crate) title: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) error: Option<String>,
    pub(crate) tools: Vec<ToolEntry>,
}

/// One tool of a server, with a form for its arguments when its input schema fits the subset.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolEntry {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    /// Argument fields, when the input schema is a flat form; otherwise the page offers JSON.
    pub(crate) fields: Option<Vec<FieldView>>,
    pub(crate) input_schema: Value,
}

/// One tool call in the activity timeline.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallEntry {
    pub(crate) id: u64,
    pub(crate) server: String,
    pub(crate) tool: String,
    pub(crate) arguments: Value,
    pub(crate) status: &'static str,
    pub(crate) result: Option<Value>,
    pub(crate) error: Option<String>,
    pub(crate) rounds: usize,
    pub(crate) requests: Vec<u64>,
    pub(crate) started_at_ms: u64,
}

/// One request for the person, pending or finished.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestEntry {
    pub(crate) id: u64,
    pub(crate) server: String,
    pub(crate) message: String,
    pub(crate) era: String,
    pub(crate) tool: Option<String>,
    pub(crate) call: Option<u64>,
    pub(crate) fields: Vec<FieldView>,
    pub(crate) prefill: serde_json::Map<String, Value>,
    /// `queued`, `active`, `answered` or `closed`.
    pub(crate) status: &'static str,
    /// `accept`, `decline`, `cancel` or `error` once answered.
    pub(crate) outcome: Option<&'static str>,
    /// What went back to the server, for the record.
    pub(crate) sent: Option<Value>,
    pub(crate) notice: Option<String>,
    /// Field errors the engine raised against the last answer.
    pub(crate) errors: Vec<FieldError>,
    /// Host milliseconds (since the Unix epoch) when the engine admitted it.
    pub(crate) received_at_ms: u64,
}

/// Everything a page needs.
#[derive(Debug, Clone, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Snapshot {
    pub(crate) version: u64,
    pub(crate) title: String,
    pub(crate) guide: Option<Value>,
    pub(crate) servers: Vec<ServerEntry>,
    pub(crate) calls: Vec<CallEntry>,
    pub(crate) requests: Vec<RequestEntry>,
    pub(crate) active: Option<u64>,
}

/// How many finished requests and calls a page keeps (pending ones are never dropped).
const KEEP_FINISHED: usize = 200;

/// The shared state plus its change feed.
pub(crate) struct Shared {
    snapshot: Mutex<Snapshot>,
    /// The forms of pending requests, for inline validation.
    schemas: Mutex<std::collections::HashMap<u64, std::sync::Arc<interlude_schema::FormSchema>>>,
    changes: broadcast::Sender<u64>,
}

pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl Shared {
    pub(crate) fn new(title: String, guide: Option<Value>) -> Self {
        let (changes, _) = broadcast::channel(64);
        Shared {
            snapshot: Mutex::new(Snapshot {
                title,
                guide,
                ..Snapshot::default()
            }),
            changes,
            schemas: Mutex::default(),
        }
    }

    /// The form of a pending request.
    pub(crate) fn schema_of(
        &self,
        id: u64,
    ) -> Option<std::sync::Arc<interlude_schema::FormSchema>> {
        self.schemas.lock().ok()?.get(&id).cloned()
    }

    fn forget_schema(&self, id: u64) {
        if let Ok(mut m) = self.schemas.lock() {
            m.remove(&id);
        }
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<u64> {
        self.changes.subscribe()
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        self.snapshot.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Applies `f` and tells every page.
    pub(crate) fn update<R>(&self, f: impl FnOnce(&mut Snapshot) -> R) -> Option<R> {
        let (r, version) = {
            let mut s = self.snapshot.lock().ok()?;
            let r = f(&mut s);
            s.version += 1;
            prune(&mut s);
            (r, s.version)
        };
        let _ = self.changes.send(version);
        Some(r)
    }

    /// The schema of a pending request, for validation.
    pub(crate) fn with_request<R>(&self, id: u64, f: impl FnOnce(&RequestEntry) -> R) -> Option<R> {
        let s = self.snapshot.lock().ok()?;
        s.requests.iter().find(|r| r.id == id).map(f)
    }

    pub(crate) fn on_queued(&self, view: &ElicitationView) {
        if let Ok(mut m) = self.schemas.lock() {
            m.insert(view.id.0, view.schema.clone());
        }
        self.update(|s| {
            let call = s
                .calls
                .iter_mut()
                .rev()
                .find(|c| {
                    c.status == "running"
                        && c.server == view.server
                        && view.tool.as_deref().is_none_or(|t| t == c.tool)
                })
                .map(|c| {
                    c.requests.push(view.id.0);
                    c.id
                });
            s.requests.push(RequestEntry {
                id: view.id.0,
                server: view.server.clone(),
                message: view.message.clone(),
                era: view.era.to_string(),
                tool: view.tool.clone(),
                call,
                fields: fields_of(&view.schema),
                prefill: view.prefill.clone(),
                status: "queued",
                outcome: None,
                sent: None,
                notice: None,
                errors: Vec::new(),
                received_at_ms: now_ms(),
            });
        });
    }

    pub(crate) fn on_present(&self, id: RequestId) {
        self.update(|s| {
            if let Some(r) = s.requests.iter_mut().find(|r| r.id == id.0) {
                r.status = "active";
            }
            s.active = Some(id.0);
        });
    }

    pub(crate) fn on_invalid(&self, id: RequestId, errors: &[FieldError]) {
        self.update(|s| {
            if let Some(r) = s.requests.iter_mut().find(|r| r.id == id.0) {
                r.errors = errors.to_vec();
            }
        });
    }

    pub(crate) fn on_replied(&self, id: RequestId, reply: &Reply) {
        self.forget_schema(id.0);
        self.update(|s| {
            if let Some(r) = s.requests.iter_mut().find(|r| r.id == id.0) {
                r.status = "answered";
                r.errors.clear();
                let (outcome, sent) = match reply {
                    Reply::Accept(c) => ("accept", Some(Value::Object(c.clone()))),
                    Reply::Decline => ("decline", None),
                    Reply::Cancel => ("cancel", None),
                    Reply::Error { message, .. } => ("error", Some(Value::String(message.clone()))),
                };
                r.outcome = Some(outcome);
                r.sent = sent;
            }
            if s.active == Some(id.0) {
                s.active = None;
            }
        });
    }

    pub(crate) fn on_closed(&self, id: RequestId, notice: &Notice) {
        self.forget_schema(id.0);
        self.update(|s| {
            if let Some(r) = s.requests.iter_mut().find(|r| r.id == id.0) {
                r.status = "closed";
                r.notice = Some(notice.text.clone());
            }
            if s.active == Some(id.0) {
                s.active = None;
            }
        });
    }
}

fn prune(s: &mut Snapshot) {
    let finished = |st: &str| st == "answered" || st == "closed";
    let n = s.requests.iter().filter(|r| finished(r.status)).count();
    if n > KEEP_FINISHED {
        let mut drop = n - KEEP_FINISHED;
        s.requests.retain(|r| {
            if drop > 0 && finished(r.status) {
                drop -= 1;
                false
            } else {
                true
            }
        });
    }
    let n = s.calls.iter().filter(|c| c.status != "running").count();
    if n > KEEP_FINISHED {
        let mut drop = n - KEEP_FINISHED;
        s.calls.retain(|c| {
            if drop > 0 && c.status != "running" {
                drop -= 1;
                false
            } else {
                true
            }
        });
    }
}
