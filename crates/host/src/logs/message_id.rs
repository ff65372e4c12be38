//! What the protocol log and the network log both name a message by: which way it went
//! ([`Direction`]) and its JSON-RPC id as the logs pair a response with its request
//! ([`LogId`]). Below both logs, so that neither imports the other for it.

use std::sync::Arc;

use interlude_engine::ViewId;
use serde::Serialize;
use serde_json::Value;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From the host to the server.
    Send,
    /// From the server to the host.
    Recv,
    /// A line a stdio server wrote to its stderr (no JSON-RPC message: `message` is the line,
    /// as a string). Kept at a bounded rate, so a chatty server cannot push its messages out.
    Stderr,
}

/// A message's JSON-RPC id, as the log pairs a response with its request: whose ids they are
/// (0 for the server's, else the app view's number) and the id itself. Kept as it came, not as
/// text: nothing is formatted for a message nobody reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum LogId {
    /// An integer id.
    Int(u64, i64),
    /// A string id.
    Str(u64, Arc<str>),
    /// Any other JSON (a view's id may be anything): its text.
    Json(u64, String),
}

impl LogId {
    /// A server message's id.
    pub(crate) fn of_server(id: &rmcp::model::RequestId) -> LogId {
        match id {
            rmcp::model::NumberOrString::Number(n) => LogId::Int(0, *n),
            rmcp::model::NumberOrString::String(s) => LogId::Str(0, s.clone()),
        }
    }

    /// App view `view`'s message's id.
    pub(crate) fn of_view(view: ViewId, id: &Value) -> LogId {
        match id {
            Value::Number(n) if n.is_i64() => LogId::Int(view.0, n.as_i64().unwrap_or_default()),
            Value::String(s) => LogId::Str(view.0, Arc::from(s.as_str())),
            other => LogId::Json(view.0, other.to_string()),
        }
    }
}
