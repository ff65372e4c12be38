//! The 2025 push era (2025-06-18, 2025-11-25): `elicitation/create` sent to the client while the
//! tool call is in flight. rmcp routes it on the tool call's own stream over streamable HTTP.
//!
//! Each request carries the JSON-RPC id of the call it serves in its `_meta`
//! ([`RELATED_REQUEST_ID_KEY`](interlude_protocol::RELATED_REQUEST_ID_KEY), `wire.rs`), so a host can tie it to the right call even over stdio, where
//! several calls share one pipe.
//!
//! A pushed question may stay open for as long as the person takes, and a server may hold
//! thousands of them, so a call that waits keeps little. Sending (the request with its copy of the
//! schema, rmcp's ≈ 2.2 KiB `send_request_with_option` future) happens in a boxed future of its
//! own, gone once rmcp has queued the request; the call then waits on rmcp's response channel
//! alone (the request id, the channel, an optional deadline), ≈ 0.2 KiB. Awaiting rmcp's
//! `create_elicitation_with_timeout` instead keeps its ≈ 2.7 KiB future, sized for every timeout
//! and progress variant, for the whole wait (`docs/benchmarks.md`, "Memory per pending
//! elicitation").

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use interlude_schema::FormSchema;
use rmcp::model::{
    CancelledNotificationParam, ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, RequestId, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestHandle, RoleServer, ServiceError};
use tokio::sync::oneshot;

use crate::call::Call;
use crate::error::AskError;
use crate::wire::{add_view, related_to, wire_schema};

/// What rmcp says when it cancels a request that timed out; the same words here.
const TIMEOUT_REASON: &str = RequestHandle::<RoleServer>::REQUEST_TIMEOUT_REASON;

type Response = oneshot::Receiver<Result<ClientResult, ServiceError>>;

/// A request on its way: `None` when the tool call was cancelled before it left.
type Sent = Result<Option<(RequestId, Response)>, AskError>;

/// Sends a form elicitation and waits for the answer. `wire` is `schema`'s wire form when the
/// caller has it (it is computed here otherwise). A cancelled tool call reads as a dismissal.
///
/// Not an `async fn`: the arguments are needed only for sending, and the future that waits
/// should not carry them.
pub(crate) fn elicit_form<'a>(
    call: &'a Call,
    message: String,
    schema: &'a FormSchema,
    wire: Option<&'a ElicitationSchema>,
    view: Option<&'a str>,
) -> impl Future<Output = Result<ElicitResult, AskError>> + Send + 'a {
    let sending: Pin<Box<dyn Future<Output = Sent> + Send + 'a>> =
        Box::pin(send(call, message, schema, wire, view));
    async move {
        // A `let`, not a `match`: a scrutinee would be kept for the whole wait.
        let Some((id, response)) = sending.await? else {
            return Ok(cancelled());
        };
        wait(call, id, response).await
    }
}

/// Sends a URL-mode elicitation (2025-11-25) and waits for the answer: `accept` is the
/// person's consent to open `url`, not the end of the flow. A cancelled tool call reads as a
/// dismissal.
pub(crate) fn elicit_url(
    call: &Call,
    message: String,
    url: String,
    elicitation_id: String,
) -> impl Future<Output = Result<ElicitResult, AskError>> + Send + '_ {
    let mut request = ElicitRequest::new(ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message,
        url,
        elicitation_id,
    });
    request.extensions.insert(related_to(&call.context.id));
    let request: ServerRequest = request.into();
    let sending: Pin<Box<dyn Future<Output = Sent> + Send + '_>> =
        Box::pin(send_request(call, request));
    async move {
        let Some((id, response)) = sending.await? else {
            return Ok(cancelled());
        };
        wait(call, id, response).await
    }
}

/// Builds the request and hands it to rmcp's session loop.
async fn send(
    call: &Call,
    message: String,
    schema: &FormSchema,
    wire: Option<&ElicitationSchema>,
    view: Option<&str>,
) -> Sent {
    let request = request(message, schema, wire, &call.context.id, view)?;
    send_request(call, request).await
}

/// Hands a built request to rmcp's session loop.
async fn send_request(call: &Call, request: ServerRequest) -> Sent {
    tracing::debug!(era = "push", "sending a request to the client");
    let send = call
        .context
        .peer
        .send_request_with_option(request, PeerRequestOptions::no_options());
    let handle = tokio::select! {
        handle = send => handle?,
        () = call.context.ct.cancelled() => return Ok(None),
    };
    Ok(Some(split(handle)))
}

/// What a waiting call keeps of rmcp's handle: the id (for a cancellation after a timeout) and
/// the response channel. The rest (a clone of the peer, the options) is dropped here.
fn split(handle: RequestHandle<RoleServer>) -> (RequestId, Response) {
    (handle.id, handle.rx)
}

/// How the wait for an answer ended.
enum Waited<T> {
    Answer(Result<T, AskError>),
    Expired,
    Cancelled,
}

/// Waits for the client's answer to an `elicitation/create`; see [`wait_for`].
async fn wait(call: &Call, id: RequestId, response: Response) -> Result<ElicitResult, AskError> {
    wait_for(call, id, response, answer, cancelled).await
}

/// Waits for the client's answer, the deadline of [`AskConfig::with_timeout`](crate::AskConfig)
/// if there is one, or the cancellation of the tool call: `read` reads the reply, `on_cancel`
/// is what a cancelled call gets.
async fn wait_for<T>(
    call: &Call,
    id: RequestId,
    response: Response,
    read: fn(Reply) -> Result<T, AskError>,
    on_cancel: fn() -> T,
) -> Result<T, AskError> {
    let timeout = call.config.timeout;
    let expired = async move {
        match timeout {
            // The timer lives in a box: most servers set none.
            Some(t) => Box::pin(tokio::time::sleep(t)).await,
            None => std::future::pending().await,
        }
    };
    // Settled in one statement, so that nothing of it is kept across the cancellation sent
    // after a timeout.
    let expired_after = match tokio::select! {
        response = response => Waited::Answer(read(response)),
        () = expired => Waited::Expired,
        () = call.context.ct.cancelled() => Waited::Cancelled,
    } {
        Waited::Answer(answer) => return answer,
        Waited::Cancelled => return Ok(on_cancel()),
        Waited::Expired => timeout.unwrap_or_default(),
    };
    Err(expire(call, id, expired_after).await)
}

/// What rmcp's response channel yields: the client's result, its error, or nothing (closed).
type Reply = Result<Result<ClientResult, ServiceError>, oneshot::error::RecvError>;

/// The client's reply to an `elicitation/create`, or why there is none.
fn answer(response: Reply) -> Result<ElicitResult, AskError> {
    match response.map_err(|_| ServiceError::TransportClosed)?? {
        ClientResult::ElicitResult(result) => Ok(result),
        _ => Err(ServiceError::UnexpectedResponse.into()),
    }
}

/// Sends another request of the server's (`sampling/createMessage`, `roots/list`) and waits for
/// the reply as a question's answer waits: the client's result or error as it came, or `None`
/// when the tool call was cancelled first. Reading the result is the caller's.
pub(crate) fn ask_client(
    call: &Call,
    request: ServerRequest,
) -> impl Future<Output = Result<Option<Result<ClientResult, ServiceError>>, AskError>> + Send + '_
{
    let sending: Pin<Box<dyn Future<Output = Sent> + Send + '_>> =
        Box::pin(send_request(call, request));
    async move {
        let Some((id, response)) = sending.await? else {
            return Ok(None);
        };
        wait_for(
            call,
            id,
            response,
            |reply| Ok(Some(reply.map_err(|_| ServiceError::TransportClosed)?)),
            || None,
        )
        .await
    }
}

/// [`ask_client`], given up when `over` resolves first: the client is then told the request is
/// over (`notifications/cancelled` with `reason`, so that it takes the question away) and the
/// answer is `None`.
pub(crate) async fn ask_client_until(
    call: &Call,
    request: ServerRequest,
    over: impl Future<Output = ()> + Send,
    reason: &str,
) -> Result<Option<Result<ClientResult, ServiceError>>, AskError> {
    let sending: Pin<Box<dyn Future<Output = Sent> + Send + '_>> =
        Box::pin(send_request(call, request));
    let Some((id, response)) = sending.await? else {
        return Ok(None);
    };
    let waiting = wait_for(
        call,
        id.clone(),
        response,
        |reply| Ok(Some(reply.map_err(|_| ServiceError::TransportClosed)?)),
        || None,
    );
    tokio::select! {
        reply = waiting => reply,
        () = over => {
            let notice = CancelledNotificationParam::new(Some(id), Some(reason.to_owned()));
            if let Err(e) = call.context.peer.notify_cancelled(notice).await {
                tracing::debug!("cannot take back a question: {e}");
            }
            Ok(None)
        }
    }
}

/// As rmcp does when a request times out: tells the client the request is over, and fails.
async fn expire(call: &Call, id: RequestId, timeout: Duration) -> AskError {
    let notice = CancelledNotificationParam::new(Some(id), Some(TIMEOUT_REASON.to_owned()));
    let notify: Pin<Box<dyn Future<Output = _> + Send + '_>> =
        Box::pin(call.context.peer.notify_cancelled(notice));
    if let Err(e) = notify.await {
        tracing::debug!("cannot cancel the timed-out elicitation: {e}");
    }
    ServiceError::Timeout { timeout }.into()
}

/// The `elicitation/create` request (built outside any async body, so that the schema copy that
/// travels in it is never part of a waiting state).
fn request(
    message: String,
    schema: &FormSchema,
    wire: Option<&ElicitationSchema>,
    served: &RequestId,
    view: Option<&str>,
) -> Result<ServerRequest, AskError> {
    let requested_schema = match wire {
        Some(w) => w.clone(),
        None => wire_schema(schema)?,
    };
    let mut meta = related_to(served);
    if let Some(uri) = view {
        add_view(&mut meta, uri);
    }
    let mut request = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    });
    // In the request's own `_meta` (where rmcp adds the progress token), not the params': rmcp
    // writes that one as it is, while a params `_meta` is parsed back out and merged with it.
    request.extensions.insert(meta);
    Ok(request.into())
}

/// A tool call cancelled by the client while its question was open reads as a dismissal.
fn cancelled() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Cancel)
}
