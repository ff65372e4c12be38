//! Session recordings: every finished tool call with its arguments, what its server asked the
//! person and what the person answered, and how the call ended — written by `interlude record`
//! and the page's Export, and run again headless by `interlude replay`, which reports every
//! difference. A regression test of a server's human-in-the-loop flows, written by using it.
//!
//! A recording is one JSON document ([`Recording`]); its shape is versioned
//! ([`Recording::VERSION`]) and documented field by field below. What is kept of a request is
//! what a server author changes on purpose: its kind, its message, a form's `requestedSchema`
//! exactly as sent, a link's origin (its path and query carry the flow's own ids, new each
//! time), a sampling request's conversation, system prompt and token limit. Requests an app
//! view raised (`ui/open-link`) are the view's, not the server's, and are left out; so is a
//! 2026-07-28 link asked again while its flow was unfinished (how often depends on how fast the
//! person was, not on the server).
//!
//! What it deliberately does not do: answer anything itself (replay hands a call's answers to a
//! [`HeadlessSurface`](crate::HeadlessSurface)), or keep what a server sent that a person never
//! saw (the protocol log is the host's).
//!
//! ```
//! use interlude_headless::recording::Recording;
//!
//! let text = r#"{"format": "interlude-recording", "version": 1, "calls": [{
//!     "server": "demo", "tool": "greet", "arguments": {"name": "Ada"},
//!     "requests": [{"asked": {"kind": "form", "message": "Your title?",
//!                             "requestedSchema": {"type": "object", "properties": {}}},
//!                   "answer": {"action": "decline"}}],
//!     "outcome": {"status": "completed", "result": {"content": []}}}]}"#;
//! let recording = Recording::from_json(text).unwrap();
//! assert_eq!(recording.calls[0].tool, "greet");
//! assert_eq!(recording.calls[0].script().len(), 1);
//! ```

mod compare;
mod recorder;

use std::collections::BTreeMap;

use interlude_host::{
    Answer, AppStage, CallRecord, CallStatus, HostSnapshot, Reply, RequestKind, RequestRecord,
    RequestStatus, SamplingPart, SamplingRequest, ServerRecord, UrlStage,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ScriptedAnswer;

/// A JSON object (a tool's arguments, a form's content).
pub type JsonObject = serde_json::Map<String, Value>;

pub use compare::{Difference, IgnorePointer, compare};
pub use recorder::{Recorder, RecorderHandle};

/// A session recording (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recording {
    /// Always [`Recording::FORMAT`]: what this file is.
    pub format: String,
    /// The shape's version, [`Recording::VERSION`] when written by this build.
    pub version: u32,
    /// The servers the calls went to, by the name the host gave them.
    #[serde(default)]
    pub servers: BTreeMap<String, RecordedServer>,
    /// The finished calls, in the order they ended.
    #[serde(default)]
    pub calls: Vec<RecordedCall>,
}

/// A server of a recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedServer {
    /// What was connected to: the command line or the URL (a URL's secrets hidden).
    pub target: String,
    /// The protocol version it spoke, once connected; `interlude replay` speaks it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
}

/// One finished tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedCall {
    /// The server's name (a key of [`Recording::servers`]).
    pub server: String,
    /// The tool called.
    pub tool: String,
    /// The arguments sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// What the server asked the person during the call, in order, with the answers.
    #[serde(default)]
    pub requests: Vec<RecordedRequest>,
    /// How the call ended.
    pub outcome: RecordedOutcome,
}

/// One request of a call: what was asked, and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedRequest {
    /// What the server asked.
    pub asked: Asked,
    /// What the person (or the host) answered.
    pub answer: RecordedAnswer,
    /// The host's complaints about the last answer given, when one was refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// What a server asked, as far as a replay compares it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Asked {
    /// A form (also one the server asked to show in its app view: `view`).
    #[serde(rename_all = "camelCase")]
    Form {
        /// The message.
        message: String,
        /// The `requestedSchema`, exactly as the server sent it.
        requested_schema: Value,
        /// The app view it was asked to be shown in (`ui://…`), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<String>,
    },
    /// A link to open out of band.
    #[serde(rename_all = "camelCase")]
    Url {
        /// The message.
        message: String,
        /// The link's origin (`scheme://host[:port]`).
        origin: String,
    },
    /// A model's reply, written by the person.
    #[serde(rename_all = "camelCase")]
    Sampling {
        /// The conversation, one `role: text` line per message.
        messages: Vec<String>,
        /// The system prompt, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        system_prompt: Option<String>,
        /// The token limit.
        max_tokens: u32,
    },
}

impl Asked {
    /// `form`, `url` or `sampling`.
    pub fn kind(&self) -> &'static str {
        match self {
            Asked::Form { .. } => "form",
            Asked::Url { .. } => "url",
            Asked::Sampling { .. } => "sampling",
        }
    }

    /// The message (for sampling, the last message of the conversation).
    pub fn message(&self) -> &str {
        match self {
            Asked::Form { message, .. } | Asked::Url { message, .. } => message,
            Asked::Sampling { messages, .. } => messages.last().map_or("", String::as_str),
        }
    }
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum RecordedAnswer {
    /// Accepted: a form's content (defaults applied), `{}` for a link consented to, a sampling
    /// reply's `text` and `model`.
    Accept {
        /// What was sent.
        #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
        content: JsonObject,
    },
    /// Declined.
    Decline,
    /// Cancelled.
    Cancel,
    /// The host refused it before anyone saw it (its schema or link broke the rules).
    Refused {
        /// The JSON-RPC error code sent.
        code: i32,
        /// Its message.
        message: String,
    },
    /// It went away unanswered (its call ended, its server withdrew it).
    Unanswered {
        /// Why, in a sentence.
        reason: String,
    },
}

impl RecordedAnswer {
    /// `accept`, `decline`, `cancel`, `refused` or `unanswered`.
    pub fn action(&self) -> &'static str {
        match self {
            RecordedAnswer::Accept { .. } => "accept",
            RecordedAnswer::Decline => "decline",
            RecordedAnswer::Cancel => "cancel",
            RecordedAnswer::Refused { .. } => "refused",
            RecordedAnswer::Unanswered { .. } => "unanswered",
        }
    }
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum RecordedOutcome {
    /// The server returned a result (`isError` included).
    Completed {
        /// The `CallToolResult`, as JSON.
        result: Value,
    },
    /// It failed before a result.
    Failed {
        /// Why, in a sentence.
        reason: String,
    },
    /// The person cancelled it.
    Cancelled {
        /// How, in a sentence.
        reason: String,
    },
}

impl RecordedOutcome {
    /// `completed`, `failed` or `cancelled`.
    pub fn status(&self) -> &'static str {
        match self {
            RecordedOutcome::Completed { .. } => "completed",
            RecordedOutcome::Failed { .. } => "failed",
            RecordedOutcome::Cancelled { .. } => "cancelled",
        }
    }
}

/// A recording that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordingError {
    /// Not JSON, or not a recording's shape.
    #[error("not a recording: {0}")]
    Shape(#[from] serde_json::Error),
    /// Another kind of file.
    #[error("not a recording: `format` is {0:?}, expected \"interlude-recording\"")]
    Format(String),
    /// Written by a newer build.
    #[error("recording version {0} is newer than this build reads (1)")]
    Version(u32),
    /// Larger than [`Recording::MAX_BYTES`]: refused before it is read.
    #[error(
        "the recording is {size} bytes, over the {} MiB a recording may have; refusing to read it",
        Recording::MAX_BYTES / (1024 * 1024)
    )]
    TooLarge {
        /// Its size, or at least as much as was read.
        size: u64,
    },
    /// It cannot be read.
    #[error("cannot read the recording: {0}")]
    Io(#[from] std::io::Error),
}

impl Default for Recording {
    fn default() -> Self {
        Recording {
            format: Recording::FORMAT.to_owned(),
            version: Recording::VERSION,
            servers: BTreeMap::new(),
            calls: Vec::new(),
        }
    }
}

impl Recording {
    /// The value of `format`.
    pub const FORMAT: &'static str = "interlude-recording";
    /// The shape this build writes and reads.
    pub const VERSION: u32 = 1;

    /// The largest recording read (64 MiB): hundreds of thousands of calls; a bigger file is
    /// refused before it is read whole ([`Recording::read_file`]).
    pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

    /// Reads the recording in `path`, refusing a file over [`Recording::MAX_BYTES`] before
    /// reading it (and one that grows past it while being read), another kind of file or a
    /// newer version.
    ///
    /// ```
    /// use interlude_headless::recording::{Recording, RecordingError};
    /// let path = std::env::temp_dir().join(format!("interlude-big-{}.json", std::process::id()));
    /// let file = std::fs::File::create(&path).unwrap();
    /// file.set_len(Recording::MAX_BYTES + 1).unwrap();
    /// let e = Recording::read_file(&path).unwrap_err();
    /// assert!(matches!(e, RecordingError::TooLarge { .. }), "{e}");
    /// # std::fs::remove_file(path).unwrap();
    /// ```
    pub fn read_file(path: &std::path::Path) -> Result<Recording, RecordingError> {
        use std::io::Read;
        let file = std::fs::File::open(path)?;
        let size = file.metadata()?.len();
        if size > Recording::MAX_BYTES {
            return Err(RecordingError::TooLarge { size });
        }
        let mut text = String::new();
        file.take(Recording::MAX_BYTES + 1)
            .read_to_string(&mut text)?;
        let read = u64::try_from(text.len()).unwrap_or(u64::MAX);
        if read > Recording::MAX_BYTES {
            return Err(RecordingError::TooLarge { size: read });
        }
        Recording::from_json(&text)
    }

    /// Reads a recording, refusing another kind of file or a newer version.
    pub fn from_json(text: &str) -> Result<Recording, RecordingError> {
        let recording: Recording = serde_json::from_str(text)?;
        if recording.format != Recording::FORMAT {
            return Err(RecordingError::Format(recording.format));
        }
        if recording.version > Recording::VERSION {
            return Err(RecordingError::Version(recording.version));
        }
        Ok(recording)
    }

    /// The recording as pretty JSON.
    pub fn to_json(&self) -> String {
        // A tree of strings, numbers and maps with string keys: serialising it cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// What the host's record holds: its finished calls (the most recent ones it keeps, in the
    /// order they started) and the servers they went to. The page's Export.
    pub fn from_snapshot(snapshot: &HostSnapshot) -> Recording {
        let mut recording = Recording::default();
        let requests: BTreeMap<_, _> = snapshot
            .requests
            .iter()
            .map(|r| (r.request.id, r.clone()))
            .collect();
        let mut calls: Vec<_> = snapshot.calls.iter().collect();
        calls.sort_by_key(|c| c.id);
        for call in calls {
            if let Some(recorded) = RecordedCall::of(call, |id| requests.get(&id).cloned()) {
                recording.calls.push(recorded);
            }
        }
        for server in &snapshot.servers {
            if recording.calls.iter().any(|c| c.server == server.name) {
                recording
                    .servers
                    .insert(server.name.clone(), RecordedServer::of(server));
            }
        }
        recording
    }

    /// The names of the servers its calls went to, each once, in order of first call.
    pub fn server_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for call in &self.calls {
            if !names.contains(&call.server.as_str()) {
                names.push(&call.server);
            }
        }
        names
    }
}

/// The finished calls `snapshot` holds, as a recording's JSON: the web page's Export (the
/// CLI hands this function to the web surface, which depends on the host alone).
pub fn export(snapshot: &HostSnapshot) -> String {
    Recording::from_snapshot(snapshot).to_json()
}

impl RecordedServer {
    /// A server's record, as a recording keeps it: its target with the secrets of a URL
    /// (userinfo, `api_key`, `token`, … in its query) hidden by the one redaction rule
    /// ([`interlude_host::redact::redact_url`]).
    pub fn of(server: &ServerRecord) -> RecordedServer {
        RecordedServer {
            target: interlude_host::redact::redact_url(&server.target).into_owned(),
            protocol_version: server.identity.as_ref().map(|i| i.protocol_version.clone()),
        }
    }
}

impl RecordedCall {
    /// A finished call as a recording keeps it, its requests looked up with `request`; `None`
    /// while it runs.
    pub fn of(
        call: &CallRecord,
        request: impl Fn(interlude_host::RequestId) -> Option<std::sync::Arc<RequestRecord>>,
    ) -> Option<RecordedCall> {
        let outcome = match &call.status {
            CallStatus::Running => return None,
            CallStatus::Completed(result) => {
                let mut result = serde_json::to_value(result).unwrap_or(Value::Null);
                // The 2026-07-28 wire's framing, not the tool's answer: a recording made on one
                // era replays on the other.
                if let Some(o) = result.as_object_mut() {
                    o.remove("resultType");
                }
                RecordedOutcome::Completed { result }
            }
            CallStatus::Failed { reason } => RecordedOutcome::Failed {
                reason: reason.clone(),
            },
            CallStatus::Cancelled { reason } => RecordedOutcome::Cancelled {
                reason: reason.clone(),
            },
            // A way of ending this crate does not know yet (the host's enum may grow).
            other => RecordedOutcome::Failed {
                reason: format!("it ended as {}", other.as_str()),
            },
        };
        Some(RecordedCall {
            server: call.server_name.to_string(),
            tool: call.tool.clone(),
            arguments: call.arguments.clone(),
            requests: call
                .requests
                .iter()
                .filter_map(|id| request(*id))
                .filter_map(|r| RecordedRequest::of(&r))
                .collect(),
            outcome,
        })
    }

    /// The answers to give, in order, to ask the server the same things again (for
    /// [`Answers::Queue`](crate::Answers::Queue)): a request the host refused was
    /// never shown and takes none; one that went unanswered is cancelled.
    pub fn script(&self) -> Vec<ScriptedAnswer> {
        self.requests
            .iter()
            .filter_map(|r| match &r.answer {
                RecordedAnswer::Accept { content } => Some(Answer::Accepted(content.clone())),
                RecordedAnswer::Decline => Some(Answer::Declined),
                RecordedAnswer::Cancel | RecordedAnswer::Unanswered { .. } => {
                    Some(Answer::Cancelled)
                }
                RecordedAnswer::Refused { .. } => None,
            })
            .collect()
    }
}

impl RecordedRequest {
    /// A request as a recording keeps it; `None` for one a recording leaves out (see the module
    /// documentation).
    pub fn of(record: &RequestRecord) -> Option<RecordedRequest> {
        let asked = match &record.request.kind {
            RequestKind::Form(form) => Asked::Form {
                message: form.message.clone(),
                requested_schema: record.requested_schema().cloned().unwrap_or(Value::Null),
                view: None,
            },
            RequestKind::AppForm(app) => Asked::Form {
                message: app.form.message.clone(),
                requested_schema: record.requested_schema().cloned().unwrap_or(Value::Null),
                // Shown in the view, or as the plain form because the view could not be used:
                // the server asked for the view either way.
                view: match app.stage {
                    AppStage::View | AppStage::Form { .. } => Some(app.resource_uri.clone()),
                },
            },
            RequestKind::Url(url) => match url.stage {
                UrlStage::Consent => Asked::Url {
                    message: url.message.clone(),
                    origin: origin_of(&url.url),
                },
                UrlStage::Waiting => return None,
            },
            RequestKind::ViewLink(_) => return None,
            RequestKind::Sampling(sampling) => sampling_asked(sampling),
        };
        let answer = match &record.status {
            // Its call ended first (a server that gave up waiting, say).
            RequestStatus::Queued | RequestStatus::Presented => RecordedAnswer::Unanswered {
                reason: "its call ended before it was answered".to_owned(),
            },
            RequestStatus::Replied(Reply::Answered(Answer::Accepted(content))) => {
                RecordedAnswer::Accept {
                    content: content.clone(),
                }
            }
            RequestStatus::Replied(Reply::Answered(Answer::Declined)) => RecordedAnswer::Decline,
            RequestStatus::Replied(Reply::Answered(Answer::Cancelled)) => RecordedAnswer::Cancel,
            RequestStatus::Replied(Reply::Consented) => RecordedAnswer::Accept {
                content: JsonObject::new(),
            },
            RequestStatus::Replied(Reply::Sampled { text, model }) => {
                let mut content = JsonObject::new();
                content.insert(
                    interlude_host::sampling::REPLY_FIELD.to_owned(),
                    Value::String(text.clone()),
                );
                content.insert(
                    interlude_host::sampling::MODEL_FIELD.to_owned(),
                    Value::String(model.clone()),
                );
                RecordedAnswer::Accept { content }
            }
            RequestStatus::Replied(Reply::Error { code, message, .. }) => RecordedAnswer::Refused {
                code: *code,
                message: message.clone(),
            },
            RequestStatus::Closed(notice) => RecordedAnswer::Unanswered {
                reason: notice.text.clone(),
            },
        };
        Some(RecordedRequest {
            asked,
            answer,
            problems: record.errors.iter().map(ToString::to_string).collect(),
        })
    }
}

/// A sampling request as a recording keeps it.
fn sampling_asked(sampling: &SamplingRequest) -> Asked {
    let messages = sampling
        .messages
        .iter()
        .map(|turn| {
            let parts: Vec<String> = turn
                .parts
                .iter()
                .map(|part| match part {
                    SamplingPart::Text(text) => text.clone(),
                    SamplingPart::Image { mime_type, .. } => format!("[image {mime_type}]"),
                    SamplingPart::Audio { mime_type, .. } => format!("[audio {mime_type}]"),
                    SamplingPart::ToolUse { name, input } => format!("[tool use {name} {input}]"),
                    SamplingPart::ToolResult { text, .. } => format!("[tool result {text}]"),
                })
                .collect();
            format!("{}: {}", turn.role.as_str(), parts.join(" "))
        })
        .collect();
    Asked::Sampling {
        messages,
        system_prompt: sampling.system_prompt.clone(),
        max_tokens: sampling.max_tokens,
    }
}

/// A link's origin, or the link itself when it has none to speak of.
fn origin_of(link: &str) -> String {
    match url::Url::parse(link) {
        Ok(u) if u.origin().is_tuple() => u.origin().ascii_serialization(),
        _ => link.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn another_kind_of_file_or_a_newer_version_is_refused_by_name() {
        let e = Recording::from_json(r#"{"format": "har", "version": 1}"#).unwrap_err();
        assert!(e.to_string().contains("`format` is \"har\""), "{e}");
        let e =
            Recording::from_json(r#"{"format": "interlude-recording", "version": 9}"#).unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
        let e = Recording::from_json("[1]").unwrap_err();
        assert!(e.to_string().starts_with("not a recording"), "{e}");
    }

    #[test]
    fn a_recording_reads_back_what_it_wrote() {
        let mut recording = Recording::default();
        recording.calls.push(RecordedCall {
            server: "s".into(),
            tool: "t".into(),
            arguments: json!({"a": 1}).as_object().cloned(),
            requests: vec![RecordedRequest {
                asked: Asked::Url {
                    message: "Sign in".into(),
                    origin: "https://example.com".into(),
                },
                answer: RecordedAnswer::Accept {
                    content: JsonObject::new(),
                },
                problems: Vec::new(),
            }],
            outcome: RecordedOutcome::Failed {
                reason: "gone".into(),
            },
        });
        let text = recording.to_json();
        assert!(text.contains("\"kind\": \"url\""), "{text}");
        assert_eq!(Recording::from_json(&text).unwrap(), recording);
    }

    #[test]
    fn a_link_keeps_its_origin_only() {
        assert_eq!(
            origin_of("https://pay.example.com:8443/flows/abc?x=1"),
            "https://pay.example.com:8443"
        );
        assert_eq!(origin_of("not a link"), "not a link");
    }
}
