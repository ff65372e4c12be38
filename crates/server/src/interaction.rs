//! The User Interaction draft (seed 000) for server authors: a compatibility path, off the main
//! road. The draft was superseded by URL-mode elicitation and never merged into the
//! specification, but clients written against it exist. Nothing here is new API to learn: the
//! same [`Ask::form`](crate::Ask::form) and [`UrlFlows`] calls speak it when the client
//! declared it, and elicitation otherwise.
//!
//! - **Which clients.** A client declares `capabilities.userInteraction: {"types": [...]}` at the
//!   top level of its capabilities, where rmcp's typed capabilities have no room; a server reads
//!   it after [`normalized`] (stdio, or any byte stream) or [`normalize_http`] (an axum
//!   middleware for streamable HTTP) copied it under `experimental.userInteraction`, where a
//!   client may also have put it itself. [`Ask::supports_interaction`](crate::Ask::supports_interaction)
//!   says whether a type may be sent: only on the 2025 lifecycle (the draft's server → client
//!   request has no place in 2026-07-28), and never a type the client did not list.
//! - **`prompt`.** [`Ask::form`](crate::Ask::form) sends `interaction/create` with `type:
//!   "prompt"`, its message and the form's schema, and reads `{"content": {…}}` (validated like
//!   any answer) or the draft's `-1` refusal (declined, or cancelled when `data.action` says so).
//! - **`ua`.** [`UrlFlows::run`] sends `interaction/create` with `type: "ua"` and the flow's page
//!   (the interaction's id is the flow's id); `{}` is the person's consent, and the call waits for
//!   the flow as in URL mode. [`UrlFlows::require`] answers `-32003` / `interaction_required`
//!   with the same interaction instead.
//! - **`interaction/notify`.** Route it from `ServerHandler::on_custom_request` to
//!   [`Interactions::notify`]: answered once the interaction is over, with progress on the
//!   request's token meanwhile — and never for an id this server did not create for that client
//!   (the draft forbids answering; the request then waits until the client gives up).
//! - **Who the user is** is the server's [`Identity`](crate::url::Identity) (an authorization
//!   `sub`, or a resolver), never the client's word: a `ua` flow belongs to the user who started
//!   it, and a notify for another user's flow is not answered either.
//!
//! What it does not do: anything for the 2026-07-28 era, or the host's side.

pub use interlude_protocol::interaction::{CREATE_METHOD, InteractionType, NOTIFY_METHOD};
use interlude_protocol::interaction::{normalize_initialize, notify_id};
use rmcp::ErrorData;
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

pub(crate) mod ua;

pub use crate::config::Interactions;

use crate::url::flows::{UrlFlows, progress_token};
use crate::url::store::FlowId;

// Answering `interaction/notify` follows the server's URL flows, so it is defined here, above
// them; the rest of `Interactions` is in `config/interactions.rs`, with `AskConfig`.
impl Interactions {
    /// Answers the draft's `interaction/notify` (call it from `ServerHandler::on_custom_request`
    /// for [`NOTIFY_METHOD`]): once the
    /// interaction is over, `{}`; meanwhile, for a `ua`, a progress notification on the
    /// request's `_meta.progressToken`. For an id this server did not create for this client
    /// (or, for a `ua`, for this user), it never answers, as the draft requires: the future
    /// ends only when the client cancels the request. `flows` are the server's URL flows, which
    /// `ua` interactions are.
    ///
    /// ```no_run
    /// use interlude_server::AskConfig;
    /// use interlude_server::interaction::NOTIFY_METHOD;
    /// use interlude_server::url::UrlFlows;
    /// use rmcp::ErrorData;
    /// use rmcp::model::{CustomRequest, CustomResult};
    /// use rmcp::service::{RequestContext, RoleServer};
    ///
    /// async fn on_custom_request(ask: &AskConfig, flows: &UrlFlows, request: CustomRequest,
    ///                            context: RequestContext<RoleServer>)
    ///     -> Result<CustomResult, ErrorData> {
    ///     if request.method == NOTIFY_METHOD {
    ///         let params = request.params.as_ref();
    ///         return ask.interactions().notify(params, &context, Some(flows)).await.map(CustomResult);
    ///     }
    ///     Err(ErrorData::method_not_found::<rmcp::model::InitializeResultMethod>())
    /// }
    /// ```
    pub async fn notify(
        &self,
        params: Option<&Value>,
        context: &RequestContext<RoleServer>,
        flows: Option<&UrlFlows>,
    ) -> Result<Value, ErrorData> {
        let id = notify_id(params).unwrap_or_default();
        let Some((kind, mut over)) = self.of_client(id, context) else {
            tracing::info!(
                interaction = id,
                "interaction/notify for an interaction this server did not create for this client: not answered"
            );
            return never(context).await;
        };
        match kind {
            InteractionType::Prompt => {
                tokio::select! {
                    changed = over.wait_for(|over| *over) => {
                        if changed.is_err() {
                            tracing::debug!(interaction = id, "prompt forgotten before it was over");
                        }
                    }
                    () = context.ct.cancelled() => return cancelled(),
                }
                Ok(json!({}))
            }
            InteractionType::Ua => {
                let (Some(flows), Ok(flow)) = (flows, FlowId::parse(id)) else {
                    return never(context).await;
                };
                let Ok(user) = flows.user_of(context) else {
                    return never(context).await;
                };
                let token = progress_token(params, context);
                match flows.follow(&flow, &user, token.as_ref(), context).await? {
                    Some(_) => Ok(json!({})),
                    // Another user's flow: the draft says never to answer.
                    None => never(context).await,
                }
            }
        }
    }
}

/// The draft forbids an answer: wait until the client gives up.
async fn never(context: &RequestContext<RoleServer>) -> Result<Value, ErrorData> {
    context.ct.cancelled().await;
    cancelled()
}

fn cancelled() -> Result<Value, ErrorData> {
    Err(ErrorData::internal_error(
        "the interaction/notify request was cancelled",
        None,
    ))
}

/// A reader that copies a top-level `capabilities.userInteraction` of the `initialize` it
/// carries under `capabilities.experimental` ([`normalize_initialize`]), so that
/// [`Ask::supports_interaction`](crate::Ask::supports_interaction) sees what a client of the
/// draft declared. Only the first lines are looked at (until `initialize` has passed); the rest
/// is passed through untouched.
///
/// ```no_run
/// use rmcp::{ServerHandler, ServiceExt};
///
/// #[derive(Clone)]
/// struct Server;
/// impl ServerHandler for Server {}
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let (stdin, stdout) = interlude_server::stdio();
/// let service = Server.serve((interlude_server::interaction::normalized(stdin), stdout)).await?;
/// service.waiting().await?;
/// # Ok(()) }
/// ```
pub fn normalized<R>(reader: R) -> Normalized<R> {
    Normalized {
        inner: reader,
        line: Vec::new(),
        out: Vec::new(),
        sent: 0,
        lines_left: LINES_LOOKED_AT,
    }
}

/// How many lines [`Normalized`] looks at before it only passes bytes through (`initialize` is
/// the first request, after at most a `server/discover` and a notification or two).
const LINES_LOOKED_AT: u8 = 8;

/// The longest first line [`Normalized`] holds back to look at; a longer one passes as it is.
const MAX_LINE: usize = 1024 * 1024;

/// See [`normalized`].
#[derive(Debug)]
pub struct Normalized<R> {
    inner: R,
    /// The line being read (not yet complete).
    line: Vec<u8>,
    /// Bytes ready for the reader, and how many of them it took.
    out: Vec<u8>,
    sent: usize,
    lines_left: u8,
}

impl<R> Normalized<R> {
    /// Moves complete lines from `line` to `out`, normalized.
    fn take_lines(&mut self) {
        while self.lines_left > 0
            && let Some(end) = self.line.iter().position(|b| *b == b'\n')
        {
            let rest = self.line.split_off(end + 1);
            let line = std::mem::replace(&mut self.line, rest);
            self.lines_left -= 1;
            let mut message = match serde_json::from_slice::<Value>(&line) {
                Ok(message) => message,
                Err(_) => {
                    self.out.extend_from_slice(&line);
                    continue;
                }
            };
            let is_initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
            if normalize_initialize(&mut message)
                && let Ok(mut bytes) = serde_json::to_vec(&message)
            {
                bytes.push(b'\n');
                self.out.extend_from_slice(&bytes);
            } else {
                self.out.extend_from_slice(&line);
            }
            if is_initialize {
                self.lines_left = 0;
            }
        }
        if self.lines_left == 0 || self.line.len() > MAX_LINE {
            self.lines_left = 0;
            self.out.append(&mut self.line);
        }
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Normalized<R> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        let this = self.get_mut();
        loop {
            if crate::wire::hand_out(&mut this.out, &mut this.sent, buf) {
                return Poll::Ready(Ok(()));
            }
            if this.lines_left == 0 {
                return std::pin::Pin::new(&mut this.inner).poll_read(cx, buf);
            }
            let mut chunk = [0u8; 8192];
            let mut read = tokio::io::ReadBuf::new(&mut chunk);
            match std::pin::Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // The end: what is held back goes as it is.
                    this.lines_left = 0;
                    this.out.append(&mut this.line);
                    if this.out.is_empty() {
                        return Poll::Ready(Ok(()));
                    }
                }
                Poll::Ready(Ok(())) => {
                    this.line.extend_from_slice(read.filled());
                    this.take_lines();
                }
            }
        }
    }
}

/// An axum middleware for a streamable HTTP MCP endpoint: the `initialize` POST (the one
/// without an `Mcp-Session-Id`) gets a top-level `capabilities.userInteraction` copied under
/// `capabilities.experimental` ([`normalize_initialize`]), as [`normalized`] does on stdio.
/// Every other request passes untouched.
///
/// ```no_run
/// # fn mcp_service() -> axum::Router { axum::Router::new() }
/// let app = axum::Router::new()
///     .nest("/mcp", mcp_service())
///     .layer(axum::middleware::from_fn(interlude_server::interaction::normalize_http));
/// # let _ = app;
/// ```
pub async fn normalize_http(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let opens_session =
        request.method() == http::Method::POST && !request.headers().contains_key("mcp-session-id");
    if !opens_session {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, 4 * MAX_LINE).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return axum::response::IntoResponse::into_response((
                http::StatusCode::PAYLOAD_TOO_LARGE,
                format!("cannot read the request: {e}"),
            ));
        }
    };
    let normalized = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|mut message| {
            normalize_initialize(&mut message)
                .then(|| serde_json::to_vec(&message).ok())
                .flatten()
        });
    let bytes = normalized.map_or(bytes, axum::body::Bytes::from);
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn the_initialize_line_is_normalized_and_the_rest_passes_as_it_is() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"userInteraction":{"types":["prompt"]}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"userInteraction":{}}}}"#,
            "\n"
        );
        // Fed a few bytes at a time, as a pipe may.
        let (mut tx, rx) = tokio::io::duplex(7);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            tx.write_all(input.as_bytes()).await.unwrap();
        });
        let mut out = String::new();
        normalized(rx).read_to_string(&mut out).await.unwrap();
        writer.await.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        let first: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(
            first["params"]["capabilities"]["experimental"]["userInteraction"]["types"][0],
            "prompt"
        );
        assert_eq!(
            lines[1],
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
        // After `initialize` nothing is looked at.
        assert!(!lines[2].contains("experimental"), "{}", lines[2]);
    }

    #[tokio::test]
    async fn a_stream_without_initialize_passes_byte_for_byte() {
        let input = "not json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\npartial";
        let mut out = Vec::new();
        normalized(input.as_bytes())
            .read_to_end(&mut out)
            .await
            .unwrap();
        assert_eq!(out, input.as_bytes());
    }
}
