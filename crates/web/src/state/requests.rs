//! Requests for the person as the page shows them: what every kind shares, each kind's own
//! fields (one [`KindEntry`] variant per [`RequestKind`], no wildcard), and where each stands.
//!
//! Not here: deciding anything about a request (the engine does), validating answers (the
//! `/api/validate` route asks the engine's rules), the link consent screen (`links.rs`).

use std::collections::HashMap;

use interlude_host::{
    Answer, AppStage, CallRecord, Reply, RequestKind, RequestMethod, RequestRecord, RequestStatus,
    UrlStage, schema::FieldError,
};
use serde::Serialize;
use serde_json::Value;

use super::links::{LinkEntry, link_entry};
use crate::view::{FieldView, fields_of};

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

pub(super) fn request_entry(
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
