//! The draft's `interaction/create`, sent from a tool call: the request (tied to the call it is
//! raised by, as an elicitation is), the wait for the client's reply, and a `prompt` — what
//! [`Ask::form`](crate::Ask::form) and friends send to a client of the draft.
//!
//! A transport below [`Ask`](crate::Ask), beside the era transports `push` and `round_trip`:
//! it needs only the call (`call.rs`). The `ua` interaction, which is a URL flow's, is in
//! `interaction/ua.rs`, above the flows; the public face of the draft is `interaction.rs`.

use interlude_protocol::Answer;
use interlude_protocol::interaction::{
    CREATE_METHOD, CreatedInteraction, Interaction, InteractionType, NOT_CONSENTED,
};
use interlude_schema::{Content, FormSchema};
use rmcp::ErrorData;
use rmcp::model::{
    CancelledNotificationParam, ClientResult, CustomRequest, ElicitResult, ElicitationAction,
    ElicitationSchema, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde_json::{Value, json};

use crate::call::Call;
use crate::error::AskError;
use crate::wire::{check_result, related_to};

/// A fresh interaction id: 256 random bits, base64url.
fn new_id() -> String {
    crate::url::oauth::random_token()
}

/// Sends `interaction/create` with `created` and waits for the client's answer (or the tool
/// call's cancellation, which cancels the interaction).
pub(crate) async fn send(call: &Call, created: &CreatedInteraction) -> Result<Reply, AskError> {
    let mut request = CustomRequest::new(CREATE_METHOD, Some(created.to_params()));
    // Names the tool call it is raised by, as an elicitation does (the host ties it to the call).
    request.extensions.insert(related_to(&call.context.id));
    let handle = tokio::select! {
        handle = call.context.peer.send_request_with_option(
            ServerRequest::CustomRequest(request),
            PeerRequestOptions::no_options(),
        ) => handle?,
        () = call.context.ct.cancelled() => return Ok(Reply::Cancelled),
    };
    let (id, peer) = (handle.id.clone(), handle.peer.clone());
    let timeout = call.config.timeout;
    let expired = async move {
        match timeout {
            Some(t) => tokio::time::sleep(t).await,
            None => std::future::pending().await,
        }
    };
    let reason = tokio::select! {
        response = handle.rx => return reply(response.map_err(|_| ServiceError::TransportClosed)?),
        () = expired => "the request timed out",
        () = call.context.ct.cancelled() => "the tool call was cancelled",
    };
    // The client closes the interaction without answering (draft: server-initiated
    // cancellation).
    let notice = CancelledNotificationParam::new(Some(id), Some(reason.to_owned()));
    if let Err(e) = peer.notify_cancelled(notice).await {
        tracing::debug!("cannot cancel the interaction: {e}");
    }
    match timeout {
        Some(timeout) if reason == "the request timed out" => {
            Err(ServiceError::Timeout { timeout }.into())
        }
        _ => Ok(Reply::Cancelled),
    }
}

/// What the client answered to an `interaction/create`.
pub(crate) enum Reply {
    /// A result: `{"content": …}` for a prompt, `{}` for a `ua`.
    Result(Value),
    Declined,
    Cancelled,
}

fn reply(response: Result<ClientResult, ServiceError>) -> Result<Reply, AskError> {
    match response {
        Ok(ClientResult::CustomResult(result)) => Ok(Reply::Result(result.0)),
        Ok(ClientResult::EmptyResult(_)) => Ok(Reply::Result(json!({}))),
        // A client answering in elicitation's words: taken as it means.
        Ok(ClientResult::ElicitResult(result)) => Ok(match result.action {
            ElicitationAction::Accept => Reply::Result(json!({ "content": result.content })),
            ElicitationAction::Decline => Reply::Declined,
            _ => Reply::Cancelled,
        }),
        Ok(_) => Err(ServiceError::UnexpectedResponse.into()),
        Err(ServiceError::McpError(error)) if error.code == NOT_CONSENTED => {
            let action = error
                .data
                .as_ref()
                .and_then(|d| d.get("action"))
                .and_then(Value::as_str);
            Ok(if action == Some("cancel") {
                Reply::Cancelled
            } else {
                Reply::Declined
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// [`Ask::form`](crate::Ask::form) and friends, as a `prompt` interaction.
pub(crate) async fn prompt(
    call: &Call,
    message: String,
    schema: &FormSchema,
    wire: Option<&ElicitationSchema>,
) -> Result<Answer<Content>, AskError> {
    let schema_json = match wire {
        Some(wire) => serde_json::to_value(wire).map_err(|e| {
            AskError::Tool(ErrorData::internal_error(
                format!("schema cannot be sent: {e}"),
                None,
            ))
        })?,
        None => schema.to_json(),
    };
    let created = CreatedInteraction {
        id: new_id(),
        interaction: Interaction::Prompt {
            message,
            schema: schema_json,
        },
    };
    let over = call
        .config
        .interactions
        .create(&created.id, InteractionType::Prompt, &call.context);
    let reply = send(call, &created).await;
    over.send_replace(true);
    match reply? {
        Reply::Result(result) => {
            let mut accepted = ElicitResult::new(ElicitationAction::Accept);
            accepted.content = result.get("content").cloned();
            check_result(schema, accepted)
        }
        Reply::Declined => Ok(Answer::Declined),
        Reply::Cancelled => Ok(Answer::Cancelled),
    }
}
