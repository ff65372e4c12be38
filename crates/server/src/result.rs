//! What a tool handler that asks returns, and how that becomes the tool's response.
//!
//! A handler that asks leaves through `?` exactly when a 2026-07-28 question must go out
//! ([`AskError::InputRequired`]). rmcp turns a tool's `Err` into a JSON-RPC error or an `isError`
//! result and refuses an `input_required` coming out of that branch; and no local type can stand
//! in for `Result` as a return type, because `?` on anything else needs the unstable `Try` trait.
//! So the work is split: handlers return the plain alias [`ToolResult`], and [`respond`] — which
//! the [`asking`](crate::asking) attribute calls for every such tool — moves the question into
//! rmcp's `Ok` branch and maps every other error through [`AskError::into_error_data`].
//!
//! Deliberately not here: which JSON-RPC error a failure becomes (that is
//! [`AskError::into_error_data`], the one place ask failures meet the wire) and the rewriting of
//! handlers (the `interlude-server-macros` crate).

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, GetPromptResponse, GetPromptResult};

use crate::error::AskError;

/// What a tool handler that asks returns: `?` works on [`AskError`] (so on every
/// [`Ask`](crate::Ask) call), on rmcp's [`ErrorData`] and on rmcp's `ServiceError`.
///
/// Return it from a `#[tool]` fn in an [`asking`](crate::asking) impl block; elsewhere (a
/// hand-written `call_tool`) pass it through [`respond`]. rmcp cannot take it directly:
/// [`AskError`] deliberately does not implement rmcp's `IntoCallToolResult`, so a tool that
/// returns `ToolResult` outside an `#[asking]` block fails to compile instead of losing its
/// questions at run time.
///
/// Other errors convert with `map_err` into an [`ErrorData`] first (`?` then takes it).
///
/// A tool returning `ToolResult` in a block without `#[asking]` is reported by rustc on
/// `#[tool_router]`, as ``the trait `IntoToolRoute<..>` is not implemented``.
///
/// # Example
/// ```
/// use interlude_server::{ToolResult, respond};
/// use rmcp::ErrorData;
/// use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
///
/// fn shout(text: &str) -> ToolResult {
///     if text.is_empty() {
///         Err(ErrorData::invalid_params("nothing to shout", None))?;
///     }
///     Ok(CallToolResult::success(vec![ContentBlock::text(text.to_uppercase())]))
/// }
///
/// assert!(matches!(respond(shout("hi")), Ok(CallToolResponse::Complete(_))));
/// assert_eq!(respond(shout("")).unwrap_err().code.0, -32602);
/// ```
pub type ToolResult = Result<CallToolResult, AskError>;

/// Turns a [`ToolResult`] into what rmcp expects of a tool: a completed result, the
/// `input_required` result of a 2026-07-28 round, or a JSON-RPC error
/// ([`AskError::into_error_data`]).
///
/// Tools in an [`asking`](crate::asking) impl block go through it without writing it; call it
/// yourself from a hand-written `call_tool`.
///
/// # Example
/// ```
/// use interlude_server::{AskError, respond};
/// use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
///
/// let done = respond(Ok(CallToolResult::success(vec![ContentBlock::text("ok")])));
/// assert!(matches!(done, Ok(CallToolResponse::Complete(_))));
/// let failed = respond(Err(AskError::Unsupported { mode: "form" }));
/// assert_eq!(failed.unwrap_err().code.0, -32021);
/// ```
pub fn respond(result: ToolResult) -> Result<CallToolResponse, ErrorData> {
    match result {
        Ok(r) => Ok(CallToolResponse::Complete(r)),
        Err(AskError::InputRequired(ir)) => Ok(CallToolResponse::InputRequired(*ir)),
        Err(AskError::TaskCreated(task)) => Ok(CallToolResponse::Task(*task)),
        Err(e) => Err(e.into_error_data()),
    }
}

/// What a prompt handler that asks returns ([`Ask::for_prompt`](crate::Ask::for_prompt)):
/// `?` works as in a [`ToolResult`]; pass it through [`respond_prompt`].
///
/// # Example
/// ```
/// use interlude_server::{PromptResult, respond_prompt};
/// use rmcp::model::{GetPromptResponse, GetPromptResult, PromptMessage, Role};
///
/// fn greeting() -> PromptResult {
///     Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, "Hi")]))
/// }
/// assert!(matches!(respond_prompt(greeting()), Ok(GetPromptResponse::Complete(_))));
/// ```
pub type PromptResult = Result<GetPromptResult, AskError>;

/// Turns a [`PromptResult`] into what rmcp expects of `get_prompt`: the prompt, the
/// `input_required` result of a 2026-07-28 round, or a JSON-RPC error
/// ([`AskError::into_error_data`]) — [`respond`] for prompts.
///
/// # Example
/// ```
/// use interlude_server::{AskError, respond_prompt};
///
/// let failed = respond_prompt(Err(AskError::MissingCapability { capability: "roots" }));
/// assert_eq!(failed.unwrap_err().code.0, -32021);
/// ```
pub fn respond_prompt(result: PromptResult) -> Result<GetPromptResponse, ErrorData> {
    match result {
        Ok(r) => Ok(GetPromptResponse::Complete(r)),
        Err(AskError::InputRequired(ir)) => Ok(GetPromptResponse::InputRequired(*ir)),
        Err(e) => Err(e.into_error_data()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rmcp::model::{
        ContentBlock, ElicitRequest, ElicitRequestParams, ElicitationSchema, ErrorCode,
        InputRequest, InputRequiredResult,
    };
    use serde_json::json;

    use super::*;

    fn question() -> InputRequiredResult {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Your name?".into(),
            requested_schema: ElicitationSchema::builder()
                .required_string("name")
                .build()
                .unwrap(),
        };
        let mut requests = BTreeMap::new();
        requests.insert(
            "q0".to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        InputRequiredResult::new(Some(requests), Some("sealed".into()))
    }

    #[test]
    fn a_completed_result_stays_complete() {
        let result = CallToolResult::success(vec![ContentBlock::text("done")]);
        let Ok(CallToolResponse::Complete(r)) = respond(Ok(result.clone())) else {
            panic!("expected a complete result");
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::to_value(&result).unwrap()
        );
    }

    #[test]
    fn a_question_leaves_as_input_required_not_as_an_error() {
        let Ok(CallToolResponse::InputRequired(ir)) =
            respond(Err(AskError::InputRequired(Box::new(question()))))
        else {
            panic!("expected input_required");
        };
        assert_eq!(
            serde_json::to_value(&ir).unwrap(),
            serde_json::to_value(question()).unwrap()
        );
        assert_eq!(ir.request_state.as_deref(), Some("sealed"));
    }

    #[test]
    fn a_tool_error_passes_through_unchanged() {
        let error = ErrorData::invalid_params("bad", Some(json!({"field": "x"})));
        let tool: ToolResult = (|| {
            Err(error.clone())?;
            unreachable!()
        })();
        assert_eq!(respond(tool).unwrap_err(), error);
    }

    #[test]
    fn an_unsupported_client_gets_32021_with_the_capability_it_lacks() {
        let err = respond(Err(AskError::Unsupported { mode: "form" })).unwrap_err();
        assert_eq!(err.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(err.code.0, -32021);
        assert_eq!(
            err.data.unwrap()["requiredCapabilities"],
            json!({"elicitation": {"form": {}}})
        );
    }
}
