//! [`AskError`]: why an [`Ask`](crate::Ask) call (or a URL flow's) did not produce an
//! [`Answer`](crate::Answer), and the one place such failures meet the wire
//! ([`AskError::into_error_data`]).
//!
//! At the bottom of the crate: every transport (`push`, `round_trip`, the seed-000
//! `interaction/create`) and [`Ask`](crate::Ask) above them return it; it knows none of them.

use interlude_protocol::missing_elicitation_capability;
use interlude_schema::{FieldError, SchemaError};
use rmcp::ErrorData;
use rmcp::model::{ErrorCode, InputRequiredResult};
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
    /// The client did not declare the capability a sampling or roots question needs. On the
    /// wire (both eras) it is error -32021 whose `data.requiredCapabilities` is the capability
    /// as an object: `{"sampling": {}}`, `{"sampling": {"tools": {}}}`, `{"roots": {}}`.
    #[error("client did not declare the {capability} capability")]
    MissingCapability {
        /// The capability as a dotted path: `sampling`, `sampling.tools` or `roots`.
        capability: &'static str,
    },
    /// 2026-07-28: the client did not declare the extension this call needs (the Tasks
    /// extension, for a tool that only runs as a task). On the wire it is error -32021 whose
    /// `data.requiredCapabilities` is `{"extensions": {"<id>": {}}}`.
    #[error("client did not declare the {extension} extension")]
    MissingExtension {
        /// The extension's id, such as `io.modelcontextprotocol/tasks`.
        extension: &'static str,
    },
    /// The call became a task ([`Ask::task`](crate::Ask::task)): the handler returns this, and
    /// [`respond`](crate::respond) answers the call with the task. Not a failure.
    #[error("the call continues as a task")]
    TaskCreated(Box<rmcp::model::CreateTaskResult>),
    /// The server asked something malformed (a server bug, caught before anything is sent): a
    /// question key that is empty or used twice in one call, a sampling request with no
    /// messages or with unbalanced tool use.
    #[error("this question cannot be asked: {0}")]
    InvalidQuestion(String),
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

/// Error -32021 naming `capability` (a dotted path) as a nested object in
/// `data.requiredCapabilities`: `sampling.tools` is `{"sampling": {"tools": {}}}`.
fn missing_capability(capability: &str) -> ErrorData {
    let required = capability.rsplit('.').fold(
        serde_json::Value::Object(serde_json::Map::new()),
        |inner, name| {
            let mut outer = serde_json::Map::new();
            outer.insert(name.to_owned(), inner);
            serde_json::Value::Object(outer)
        },
    );
    ErrorData::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("client did not declare the {capability} capability"),
        Some(serde_json::json!({ "requiredCapabilities": required })),
    )
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
            AskError::MissingCapability { capability } => missing_capability(capability),
            AskError::MissingExtension { extension } => ErrorData::new(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!("client did not declare the {extension} extension"),
                Some(serde_json::json!({
                    "requiredCapabilities": {"extensions": {extension: {}}}
                })),
            ),
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
            AskError::TaskCreated(_) => ErrorData::internal_error(
                "a task result escaped its handler: return `ToolResult` from a tool in an \
                 `#[asking]` impl block, or pass the handler's result through `respond`",
                None,
            ),
            AskError::InputRequired(_) => ErrorData::internal_error(
                "input_required result escaped its handler: return `ToolResult` from a tool in an \
                 `#[asking]` impl block, or pass the handler's result through `respond`",
                None,
            ),
            e @ (AskError::Schema(_) | AskError::Service(_) | AskError::InvalidQuestion(_)) => {
                ErrorData::internal_error(e.to_string(), None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_missing_capability_is_32021_with_the_capability_as_an_object() {
        for (capability, required) in [
            ("sampling", json!({"sampling": {}})),
            ("sampling.tools", json!({"sampling": {"tools": {}}})),
            ("roots", json!({"roots": {}})),
        ] {
            let e = AskError::MissingCapability { capability }.into_error_data();
            assert_eq!(e.code.0, -32021);
            assert_eq!(
                e.data.as_ref().map(|d| &d["requiredCapabilities"]),
                Some(&required)
            );
        }
    }
}
