//! What the page shows, as JSON: a projection of the host's record ([`HostSnapshot`]) plus the
//! page's own title and guide. Nothing here is kept between projections — the host owns servers,
//! calls and requests, and the page is a thin renderer of what this produces; every change the
//! host reports bumps a version and every open page receives a fresh projection.
//!
//! What it does not do: decide anything, or remember anything the host does not.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use interlude_host::{
    Answer, AppStage, CallRecord, CallStatus, HostSnapshot, LinkState, Reply, RequestKind,
    RequestMethod, RequestRecord, RequestStatus, ServerRecord, ServerState, Subscribing, UrlStage,
    ViewRecord, ViewState,
    schema::FieldError,
    url_safety::{UrlCheck, Verdict},
};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::sandbox::Sandbox;
use crate::view::{FieldView, fields_of};

mod views;

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

/// One request for the person, pending or finished: what every kind shares, then its kind's own
/// fields (`kind` names it) and where it stands (`status` names it).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestEntry {
    id: u64,
    /// The server's configured name.
    server: String,
    /// What the server says it is (`serverInfo.title`, else its `name`), when it said so.
    server_title: Option<String>,
    message: String,
    era: String,
    tool: Option<String>,
    call: Option<u64>,
    /// Its call became a task (the Tasks extension): the answer goes with `tasks/update`.
    in_task: bool,
    /// `kind` and that kind's fields.
    #[serde(flatten)]
    kind: KindEntry,
    /// `status` and, once answered or closed, what came of it.
    #[serde(flatten)]
    status: StatusEntry,
    /// Field errors the engine raised against the last answer (pending requests only).
    errors: Vec<FieldError>,
    /// Host milliseconds (since the Unix epoch) when the engine admitted it.
    received_at_ms: u64,
    /// `elicitation`, or `interaction` for the seed-000 draft's `interaction/create`.
    method: MethodEntry,
    /// The method, for people (empty for elicitation).
    method_label: &'static str,
}

/// A request's kind as the page reads it (`kind`: `form`, `url`, `app-form` or `view-link`), with that kind's
/// fields only. One variant per [`RequestKind`]: the projection matches it without a wildcard, so
/// a new kind does not compile here until it has an entry (and the page needs a renderer for
/// it: a row in `assets/host/kinds.js`, which `kinds_covered.rs` checks).
#[derive(Debug, Clone, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum KindEntry {
    /// A form: its fields as widgets, what they start with, and the schema as the server sent it.
    Form {
        fields: Vec<FieldView>,
        prefill: serde_json::Map<String, Value>,
        /// Its `requestedSchema` exactly as the server sent it.
        requested_schema: Option<Value>,
    },
    /// A URL request: its link, judged, and what became of it.
    Url {
        link: LinkEntry,
        /// The server's last progress on the link's flow (a tracked seed-000 `ua`), as text.
        progress: Option<String>,
        /// The request's fields as the protocol has them (`mode`, `message`, `url`,
        /// `elicitationId`).
        wire: Value,
    },
    /// A link an app view asks to have opened: its link, judged, and the view that asks.
    ViewLink { link: LinkEntry, view: u64 },
    /// A form the server asks to be shown in its app view: the form, and where it is shown.
    AppForm {
        app: AppFormEntry,
        fields: Vec<FieldView>,
        prefill: serde_json::Map<String, Value>,
        /// Its `requestedSchema` exactly as the server sent it.
        requested_schema: Option<Value>,
    },
    /// A model's reply the person writes: the conversation and the server's wishes.
    Sampling { sampling: SamplingEntry },
}

/// A sampling request as the page shows it (`sampling`): every text is plain text.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SamplingEntry {
    messages: Vec<TurnEntry>,
    system_prompt: Option<String>,
    model_hints: Vec<String>,
    cost_priority: Option<f64>,
    speed_priority: Option<f64>,
    intelligence_priority: Option<f64>,
    max_tokens: u32,
    temperature: Option<f64>,
    stop_sequences: Vec<String>,
    include_context: Option<String>,
    tools: Vec<String>,
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnEntry {
    role: &'static str,
    parts: Vec<PartEntry>,
}

/// One part of a sampling message (`type`: text, image, audio, tool-use, tool-result).
#[derive(Debug, Clone, Serialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
enum PartEntry {
    Text { text: String },
    Image { mime_type: String, bytes: usize },
    Audio { mime_type: String, bytes: usize },
    ToolUse { name: String, input: String },
    ToolResult { tool_use_id: String, text: String },
}

fn sampling_entry(s: &interlude_host::SamplingRequest) -> SamplingEntry {
    use interlude_host::SamplingPart;
    SamplingEntry {
        messages: s
            .messages
            .iter()
            .map(|m| TurnEntry {
                role: m.role.as_str(),
                parts: m
                    .parts
                    .iter()
                    .map(|p| match p {
                        SamplingPart::Text(text) => PartEntry::Text { text: text.clone() },
                        SamplingPart::Image { mime_type, bytes } => PartEntry::Image {
                            mime_type: mime_type.clone(),
                            bytes: *bytes,
                        },
                        SamplingPart::Audio { mime_type, bytes } => PartEntry::Audio {
                            mime_type: mime_type.clone(),
                            bytes: *bytes,
                        },
                        SamplingPart::ToolUse { name, input } => PartEntry::ToolUse {
                            name: name.clone(),
                            input: input.clone(),
                        },
                        SamplingPart::ToolResult { tool_use_id, text } => PartEntry::ToolResult {
                            tool_use_id: tool_use_id.clone(),
                            text: text.clone(),
                        },
                    })
                    .collect(),
            })
            .collect(),
        system_prompt: s.system_prompt.clone(),
        model_hints: s.model_hints.clone(),
        cost_priority: s.priorities.cost,
        speed_priority: s.priorities.speed,
        intelligence_priority: s.priorities.intelligence,
        max_tokens: s.max_tokens,
        temperature: s.temperature,
        stop_sequences: s.stop_sequences.clone(),
        include_context: s.include_context.clone(),
        tools: s.tools.clone(),
    }
}

/// Where a request stands, as the page reads it (`status`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
enum StatusEntry {
    /// Waiting for its turn.
    Queued,
    /// Shown to the person now.
    Active,
    /// Answered (or refused by the engine): how, and what went back to the server.
    Answered {
        outcome: Outcome,
        sent: Option<Value>,
    },
    /// Went away unanswered, and why.
    Closed { notice: Option<String> },
}

/// How an answered request was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Outcome {
    Accept,
    /// Consent to open a link.
    Consent,
    Decline,
    Cancel,
    /// The engine refused the request; the server was sent an error.
    Error,
}

/// The method a request came by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
enum MethodEntry {
    Elicitation,
    /// The seed-000 draft's `interaction/create`.
    Interaction,
    /// An app view's `ui/open-link`.
    OpenLink,
    /// `sampling/createMessage`.
    Sampling,
}

/// An app-rendered form (SEP-3118) as the page shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppFormEntry {
    resource_uri: String,
    /// `stage`: `view` (shown in its app view) or `form` (the plain form, with the `reason`).
    #[serde(flatten)]
    stage: AppStageEntry,
}

/// Where an app form is shown.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "stage", rename_all = "lowercase")]
enum AppStageEntry {
    /// In its app view.
    View,
    /// As the plain form, for this reason.
    Form { reason: String },
}

/// A URL request's link as a consent screen shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LinkEntry {
    /// The link exactly as it would be opened (or as sent, when it does not parse).
    full: String,
    scheme: Option<String>,
    /// The host in Unicode, split so the registrable domain can be picked out:
    /// `host_prefix` + `domain` + `host_suffix` (any may be empty).
    host_prefix: String,
    domain: String,
    host_suffix: String,
    /// The host in ASCII (punycode), when it differs from the Unicode form.
    host_ascii: Option<String>,
    port: Option<u16>,
    /// `allow`, `flag` or `refuse`.
    verdict: Verdict,
    reasons: Vec<ReasonEntry>,
    /// `consent` (not consented yet) or `waiting` (consented earlier in the same call).
    stage: LinkStage,
    /// After consent: `opened` (for the person to open), then `completed` (the server said so),
    /// `done` (the person said so) or `ended` (its call ended first).
    state: Option<LinkStateEntry>,
    /// The link to open, once the host let it through.
    open_url: Option<String>,
    /// The host waits for the server's word on it: the person may say they are done.
    awaited: bool,
}

/// Whether the person has consented to a URL request's link in its call yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum LinkStage {
    Consent,
    Waiting,
}

/// What became of a link after consent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum LinkStateEntry {
    Opened,
    Completed,
    Done,
    Ended,
}

#[derive(Debug, Clone, Serialize)]
struct ReasonEntry {
    code: String,
    message: String,
    verdict: Verdict,
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

fn request_entry(
    r: &RequestRecord,
    calls_of: &HashMap<u64, &CallRecord>,
    titles: &HashMap<u64, &str>,
) -> RequestEntry {
    let request = &r.request;
    let call = request.call.and_then(|c| calls_of.get(&c.0));
    RequestEntry {
        id: request.id.0,
        server: request.server_name.to_string(),
        server_title: titles.get(&request.server.0).map(|t| (*t).to_owned()),
        message: request.message().to_owned(),
        era: request.era.to_string(),
        tool: call.map(|c| c.tool.clone()),
        call: request.call.map(|c| c.0),
        in_task: call.is_some_and(|c| c.task.is_some()),
        kind: kind_entry(r),
        status: status_entry(&r.status),
        errors: if r.status.is_pending() {
            r.errors.clone()
        } else {
            Vec::new()
        },
        received_at_ms: r.received_at_ms,
        method: match request.method {
            RequestMethod::Elicitation => MethodEntry::Elicitation,
            RequestMethod::Interaction => MethodEntry::Interaction,
            RequestMethod::OpenLink => MethodEntry::OpenLink,
            RequestMethod::Sampling => MethodEntry::Sampling,
        },
        method_label: request.method.label(),
    }
}

/// A request's kind and its kind's fields. No wildcard: a new [`RequestKind`] fails to compile
/// here until the page has an entry for it.
pub(crate) fn kind_entry(r: &RequestRecord) -> KindEntry {
    match &r.request.kind {
        RequestKind::Form(form) => KindEntry::Form {
            fields: fields_of(&form.schema),
            prefill: form.prefill.clone(),
            requested_schema: r.requested_schema().cloned(),
        },
        RequestKind::Url(url) => KindEntry::Url {
            link: link_entry(&url.url, &url.check, url.stage, r.link(), r.awaits_link()),
            progress: r.progress().map(ToString::to_string),
            wire: url_wire(url),
        },
        RequestKind::Sampling(sampling) => KindEntry::Sampling {
            sampling: sampling_entry(sampling),
        },
        RequestKind::ViewLink(link) => KindEntry::ViewLink {
            link: link_entry(&link.url, &link.check, UrlStage::Consent, r.link(), false),
            view: link.view.0,
        },
        RequestKind::AppForm(app) => KindEntry::AppForm {
            app: AppFormEntry {
                resource_uri: app.resource_uri.clone(),
                stage: match &app.stage {
                    AppStage::View => AppStageEntry::View,
                    AppStage::Form { reason } => AppStageEntry::Form {
                        reason: reason.clone(),
                    },
                },
            },
            fields: fields_of(&app.form.schema),
            prefill: app.form.prefill.clone(),
            requested_schema: r.requested_schema().cloned(),
        },
    }
}

fn status_entry(status: &RequestStatus) -> StatusEntry {
    match status {
        RequestStatus::Queued => StatusEntry::Queued,
        RequestStatus::Presented => StatusEntry::Active,
        RequestStatus::Replied(reply) => {
            let (outcome, sent) = match reply {
                Reply::Answered(Answer::Accepted(c)) => {
                    (Outcome::Accept, Some(Value::Object(c.clone())))
                }
                Reply::Consented => (Outcome::Consent, None),
                Reply::Sampled { text, model } => (
                    Outcome::Accept,
                    Some(serde_json::json!({ "text": text, "model": model })),
                ),
                Reply::Answered(Answer::Declined) => (Outcome::Decline, None),
                Reply::Answered(Answer::Cancelled) => (Outcome::Cancel, None),
                Reply::Error { message, .. } => {
                    (Outcome::Error, Some(Value::String(message.clone())))
                }
            };
            StatusEntry::Answered { outcome, sent }
        }
        RequestStatus::Closed(notice) => StatusEntry::Closed {
            notice: Some(notice.text.clone()),
        },
    }
}

/// A URL request's fields as the protocol has them.
fn url_wire(url: &interlude_host::UrlRequest) -> Value {
    let mut wire = serde_json::json!({"mode": "url", "message": url.message, "url": url.url});
    if let (Some(id), Some(object)) = (&url.elicitation_id, wire.as_object_mut()) {
        object.insert("elicitationId".into(), id.clone().into());
    }
    wire
}

fn link_entry(
    raw: &str,
    check: &UrlCheck,
    stage: UrlStage,
    state: Option<&LinkState>,
    awaited: bool,
) -> LinkEntry {
    let display = check.display.as_ref();
    let (host_prefix, domain, host_suffix) = match display {
        Some(d) => match &d.registrable_domain {
            Some(rd) => (d.host_prefix.clone(), rd.clone(), d.host_suffix.clone()),
            None => (d.host_unicode.clone(), String::new(), String::new()),
        },
        None => (String::new(), String::new(), String::new()),
    };
    let (state, open_url) = match state {
        Some(LinkState::Opened { url }) => (Some(LinkStateEntry::Opened), Some(url.clone())),
        Some(LinkState::Completed { url }) => (Some(LinkStateEntry::Completed), Some(url.clone())),
        Some(LinkState::Done { url }) => (Some(LinkStateEntry::Done), Some(url.clone())),
        Some(LinkState::Ended { url }) => (Some(LinkStateEntry::Ended), Some(url.clone())),
        None => (None, None),
    };
    LinkEntry {
        full: display.map_or_else(|| raw.to_owned(), |d| d.full.clone()),
        scheme: display.map(|d| d.scheme.clone()),
        host_prefix,
        domain,
        host_suffix,
        host_ascii: display
            .filter(|d| d.host_ascii != d.host_unicode)
            .map(|d| d.host_ascii.clone()),
        port: display.and_then(|d| d.port),
        verdict: check.verdict,
        reasons: check
            .reasons
            .iter()
            .map(|r| ReasonEntry {
                code: r.code().to_owned(),
                message: r.to_string(),
                verdict: r.verdict(),
            })
            .collect(),
        stage: match stage {
            UrlStage::Consent => LinkStage::Consent,
            UrlStage::Waiting => LinkStage::Waiting,
        },
        state,
        open_url,
        awaited,
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
