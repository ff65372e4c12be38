//! [`AskError`]: why an [`Ask`](crate::Ask) call (or a URL flow's) did not produce an
//! [`Answer`](crate::Answer), and the one place such failures meet the wire
//! ([`AskError::into_error_data`]).
//!
//! At the bottom of the crate: every transport (`push`, `round_trip`, the seed-000
//! `interaction/create`) and [`Ask`](crate::Ask) above them return it; it knows none of them.

use interlude_protocol::missing_elicitation_capability;
use interlude_schema::{FieldError, SchemaError};
use rmcp::ErrorData;
use rmcp::model::InputRequiredResult;
use rmcp::service::ServiceError;

/// Why an [`Ask`](crate::Ask) call did not produce an [`Answer`](crate::Answer).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// 2026-07-28: the handler must return this `input_required` result; the client will retry
    /// with the answer. Not a failure: a handler lets it out with `?` and
    /// [`respond`](crate::respond) (what [`asking`](crate::asking) tools go through) turns it into
    /// the tool's response.
    #[error("input required from the client")]
    InputRequired(Box<InputRequiredResult>),
    /// The client did not declare the elicitation mode this call needs.
    #[error("client does not support {mode} elicitation")]
    Unsupported {
        /// `form` or `url`.
        mode: &'static str,
    },
    /// The requested type cannot be expressed as an elicitation form (a server bug).
    #[error("cannot ask for this type: {0}")]
    Schema(#[from] SchemaError),
    /// The client accepted with content that breaks the schema (a misbehaving or hostile
    /// client): nothing reaches the handler.
    #[error("elicitation response content does not match the requested schema: {}", join(.0))]
    InvalidAnswer(Vec<FieldError>),
    /// The accepted content was valid but did not deserialize into the type.
    #[error("elicitation response content could not be read: {0}")]
    Deserialize(#[source] serde_json::Error),
    /// The `requestState` sent back by the client is not one this server sealed for this call,
    /// or it has expired.
    #[error("invalid or expired requestState: {0}")]
    RequestState(String),
    /// 2026-07-28: the `requestState` was sealed for another call (another tool, or other
    /// arguments), by this server's key.
    #[error(
        "this requestState belongs to another call (another tool or other arguments); send the \
         state this call's last result gave"
    )]
    StateOfAnotherCall,
    /// 2026-07-28: the `requestState` was already used. The URL flow it names was completed,
    /// and a request with this same state already took its outcome: a state is good for one
    /// retry. The call must start again (a new flow, a new confirmation).
    #[error(
        "this requestState was already used: the outcome of the URL flow it names was taken by \
         an earlier request; call the tool again to start a new flow"
    )]
    StateConsumed,
    /// The push-era request failed (transport closed, timeout, error reply).
    #[error("elicitation request failed: {0}")]
    Service(#[from] ServiceError),
    /// A tool error raised by the handler itself, passed through unchanged.
    #[error("{}", .0.message)]
    Tool(ErrorData),
}

fn join(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl From<ErrorData> for AskError {
    fn from(e: ErrorData) -> Self {
        AskError::Tool(e)
    }
}

impl AskError {
    /// The JSON-RPC error for this failure (the one place ask failures meet the wire).
    pub fn into_error_data(self) -> ErrorData {
        match self {
            AskError::Unsupported { mode } => missing_elicitation_capability(mode),
            AskError::Tool(e) => e,
            e @ (AskError::InvalidAnswer(_)
            | AskError::Deserialize(_)
            | AskError::RequestState(_)) => ErrorData::invalid_params(e.to_string(), None),
            e @ AskError::StateOfAnotherCall => ErrorData::invalid_params(
                e.to_string(),
                Some(serde_json::json!({ "requestState": "another_call" })),
            ),
            e @ AskError::StateConsumed => ErrorData::invalid_params(
                e.to_string(),
                Some(serde_json::json!({ "requestState": "consumed" })),
            ),
            AskError::InputRequired(_) => ErrorData::internal_error(
                "input_required result escaped its handler: return `ToolResult` from a tool in an \
                 `#[asking]` impl block, or pass the handler's result through `respond`",
                None,
            ),
            e @ (AskError::Schema(_) | AskError::Service(_)) => {
                ErrorData::internal_error(e.to_string(), None)
            }
        }
    }
}
