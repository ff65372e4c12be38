//! The User Interaction draft (seed 000) on the host's side: a compatibility path, off the main
//! road. The draft was superseded by URL-mode elicitation and never merged into the
//! specification; servers written against it exist, so a person may turn it on
//! (`HostConfig::declare` with [`Declared::with_user_interaction`], `--user-interaction` in the
//! CLI).
//!
//! - **Declaring it.** `capabilities.userInteraction` is a top-level key that rmcp's typed
//!   `ClientCapabilities` cannot carry, so it is written into the raw `initialize` where the
//!   message leaves: [`declare_in`] swaps the typed request for the same JSON with the key added
//!   (the tap does it for stdio and in-process transports; the HTTP client does it just before
//!   posting, after rmcp's HTTP worker has recognised the request as the session's start).
//! - **Requests.** `interaction/create` arrives as a custom request (the handler's); its params go
//!   to the engine as they are (`ElicitParams::Interaction`), where a `prompt` is a form and a
//!   `ua` a link, and the reply goes back in the draft's shapes.
//! - **Progress.** Once the person consented to a `ua` link and it was opened, the host sends
//!   `interaction/notify` for it ([`track`]); the server's progress on that request's token shows
//!   on the request's record, and its answer says the flow is over (the engine's completion of
//!   the link).
//! - **Interaction required.** A tool call answered with `-32003` ([`required`]) presents the
//!   interaction like a `-32042` link, waits for its end (the notify's answer, the person's
//!   "done", or `url_wait`), and the call is retried once.
//! - **Cancellation.** A server's `notifications/cancelled` closes the request on every surface,
//!   and no answer goes back (rmcp sends none for a request its peer cancelled).
//!
//! What it does not do: decide anything about a request (the engine does) or render one.

use interlude_engine::{CallId, Declared, ElicitParams, Input, Reply, UrlInput};
use interlude_protocol::ProtocolEra;
use interlude_protocol::interaction::{
    CreatedInteraction, InteractionType, NOTIFY_METHOD, UserInteractionCapability,
    declare_in_initialize, notify_params, parse_required,
};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, CustomRequest, ErrorData, JsonRpcMessage};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};

use crate::hub::config::HostError;
use crate::hub::inputs::{HostInput, ProgressOf};
use crate::hub::shared::Shared;

/// The capability Interlude declares when the draft is on: both types, with progress.
pub(crate) fn capability() -> UserInteractionCapability {
    UserInteractionCapability::all()
}

/// `message` with `capabilities.userInteraction` added when it is the `initialize` request;
/// any other message unchanged.
pub(crate) fn declare_in(mut message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
    if let JsonRpcMessage::Request(request) = &mut message
        && let ClientRequest::InitializeRequest(initialize) = &request.request
        && let Ok(mut raw) = serde_json::to_value(initialize)
        && let Some(params) = raw.get_mut("params")
    {
        declare_in_initialize(params, &capability());
        let params = params.take();
        request.request =
            ClientRequest::CustomRequest(CustomRequest::new("initialize", Some(params)));
    }
    message
}

/// Whether `declared` turns the draft on.
pub(crate) fn declared(declared: Declared) -> bool {
    declared.user_interaction
}

/// Tracks `ua` interaction `id` of `server` after the person consented: sends
/// `interaction/notify` (once `after` says the answer to its `interaction/create` was written),
/// lands the server's progress on the request's record, and takes the server's answer as the
/// flow's end. A server that never answers (the draft forbids answering
/// for an id it did not create, and a server without progress support answers nothing) costs a
/// task until the connection ends or `url_wait` passes.
pub(crate) fn track(
    shared: Shared,
    server: interlude_engine::ServerId,
    server_name: String,
    peer: Peer<RoleClient>,
    id: String,
    after: Option<tokio::sync::oneshot::Receiver<()>>,
) {
    tokio::spawn(async move {
        // After the answer to the `interaction/create` has left, never before it.
        if let Some(after) = after
            && tokio::time::timeout(std::time::Duration::from_secs(10), after)
                .await
                .is_err()
        {
            tracing::info!(server = %server_name, "the answer to interaction {id} did not leave; not tracked");
            return;
        }
        let request = ClientRequest::CustomRequest(CustomRequest::new(
            NOTIFY_METHOD,
            Some(notify_params(&id)),
        ));
        let handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(e) => {
                tracing::info!(server = %server_name, "cannot track interaction {id}: {e}");
                return;
            }
        };
        let token = handle.progress_token.clone();
        shared.watch(server, token.clone(), ProgressOf::Interaction(id.clone()));
        let waited = tokio::time::timeout(shared.config.url_wait, handle.await_response()).await;
        shared.forget_progress(server, token);
        match waited {
            Ok(Ok(_)) => shared.submit(HostInput::Engine(Input::Url(UrlInput::Completed {
                server,
                elicitation_id: id,
            }))),
            Ok(Err(e)) => {
                tracing::info!(server = %server_name, "interaction {id} was not tracked to its end: {e}");
            }
            Err(_) => {
                tracing::info!(server = %server_name, "no word on interaction {id} within {:?}", shared.config.url_wait);
            }
        }
    });
}

/// A tool call answered with `-32003` (the draft's "interaction required"): presents the
/// interaction as a request of the call, and waits (at most `url_wait`) for its end. Then the
/// caller retries the call once.
///
/// Only a `ua` can be required this way: a prompt's answer would have nowhere to go (the draft
/// gives the retried request no field for it), so a required prompt ends the call with that
/// said rather than asking the person for nothing.
pub(crate) async fn required(
    shared: &Shared,
    server: interlude_engine::ServerId,
    server_name: &std::sync::Arc<str>,
    peer: &Peer<RoleClient>,
    call: CallId,
    error: &ErrorData,
) -> Result<(), HostError> {
    let refused = |reason: String| HostError::Refused {
        server: server_name.to_string(),
        reason,
    };
    let created: CreatedInteraction = parse_required(error.data.as_ref()).map_err(|e| {
        refused(format!(
            "the call needs an interaction first (-32003), but {e}"
        ))
    })?;
    if created.kind() == InteractionType::Prompt {
        return Err(refused(
            "the call needs a prompt answered first (-32003), but the User Interaction draft gives \
             such an answer no way back to the server, so it is not asked"
                .into(),
        ));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let reply = shared
        .request_tracked(
            server,
            server_name,
            ProtocolEra::Push,
            ElicitParams::Interaction(created.to_params()),
            Some(call),
            Some(tx),
        )
        .await;
    match reply {
        Reply::Consented => {}
        Reply::Answered(answer) => {
            let needed = "a link opened first (-32003)".to_owned();
            return Err(HostError::not_given(server_name, needed, &answer));
        }
        // A link's request is never answered with a model's reply.
        Reply::Error { message, .. } | Reply::Sampled { text: message, .. } => {
            return Err(refused(format!(
                "the call needs a link opened first (-32003), and {message}"
            )));
        }
    }
    track(
        shared.clone(),
        server,
        server_name.to_string(),
        peer.clone(),
        created.id.clone(),
        None,
    );
    if tokio::time::timeout(shared.config.url_wait, rx)
        .await
        .is_err()
    {
        tracing::info!(server = %server_name, "no word that interaction {} finished within {:?}; retrying anyway", created.id, shared.config.url_wait);
    }
    Ok(())
}
