//! The host's client for rmcp's streamable HTTP transport: reqwest with pooled connections and
//! TCP_NODELAY (rmcp's `from_config` turns pooling off), each exchange made by the host itself
//! (`wire.rs`) so that its status, headers, timing and size go to the network log, and which
//! also reports when the server's standalone SSE stream is open.
//!
//! A 2025 server that sends a request outside any tool call (an `elicitation/create` with no
//! related request) can only reach the host over that GET stream, and some servers drop such a
//! message when the stream is not open yet. rmcp opens it in the background after the session
//! starts; [`HttpClient`] notes the moment the server answered the GET, so a caller can wait
//! for it instead of guessing a delay.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use interlude_engine::ServerId;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};
use tokio::sync::watch;

use crate::logs::protocol_log::ProtocolLog;
use crate::transport::failure::EndReason;

mod wire;

/// The state of a connection's standalone server-to-host stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStream {
    /// Not open (yet): the session has not started, or the server has not answered the GET.
    Pending,
    /// Open: the server can send requests and notifications outside a tool call.
    Open,
    /// The server has no standalone stream (it answered the GET with 405, or the transport has
    /// none, as stateless 2026-07-28 HTTP): it reaches the host only within requests.
    Unavailable,
}

#[derive(Clone)]
pub(crate) struct HttpClient {
    inner: reqwest::Client,
    stream: Arc<watch::Sender<ServerStream>>,
    /// Write the seed-000 `capabilities.userInteraction` into the `initialize` it posts (after
    /// rmcp's worker has seen the typed request start the session).
    /// How `initialize` is rewritten before it goes (the seed-000 draft's capability).
    rewrite: Option<crate::transport::tap::Rewrite>,
    /// Where a stream the host had to cut off says why (rmcp then only reports "closed").
    ended: EndReason,
    /// Where each HTTP exchange is recorded (the network log), once the server is known.
    recorder: Option<wire::Recorder>,
    /// Reads a 2025-11-25 server's task support off the messages as they arrive.
    hints: Option<Arc<crate::transport::task_hints::TaskHints>>,
}

impl HttpClient {
    pub(crate) fn new() -> Result<Self, String> {
        let inner = reqwest::Client::builder()
            .tcp_nodelay(true)
            .build()
            .map_err(|e| format!("cannot build HTTP client: {e}"))?;
        Ok(HttpClient {
            inner,
            stream: Arc::new(watch::Sender::new(ServerStream::Pending)),
            rewrite: None,
            ended: EndReason::default(),
            recorder: None,
            hints: None,
        })
    }

    /// The same client, recording each HTTP exchange in `log`'s network log as server
    /// `server`'s (`name`).
    pub(crate) fn recording_to(
        mut self,
        log: Arc<ProtocolLog>,
        server: ServerId,
        name: &str,
    ) -> Self {
        log.network().open(server, name);
        self.recorder = Some(wire::Recorder { log, server });
        self
    }

    /// The same client, reading a 2025-11-25 server's task support into `hints`.
    pub(crate) fn reading_task_hints(
        mut self,
        hints: Arc<crate::transport::task_hints::TaskHints>,
    ) -> Self {
        self.hints = Some(hints);
        self
    }

    /// The same client, noting in `ended` why it cut a server's event stream off.
    pub(crate) fn noting_to(mut self, ended: EndReason) -> Self {
        self.ended = ended;
        self
    }

    /// `stream`, watched: an event larger than the limit rmcp enforces ends the stream with an
    /// error, after which rmcp closes the connection saying only that it closed — the reason is
    /// noted for the failure to name.
    fn watched(&self, stream: SseStream) -> SseStream {
        use futures::StreamExt;
        let ended = self.ended.clone();
        let hints = self.hints.clone();
        stream
            .inspect(move |item| match item {
                Err(e) => {
                    if let Some(why) = crate::transport::failure::event_too_large(e) {
                        tracing::warn!("{why}");
                        ended.note(why);
                    }
                }
                Ok(event) => {
                    if let (Some(hints), Some(data)) = (&hints, &event.data) {
                        hints.sniff(data.as_bytes());
                    }
                }
            })
            .boxed()
    }

    /// The same client, rewriting each message with `rewrite` before it goes (the session's
    /// declaration of the seed-000 draft in `initialize`).
    pub(crate) fn rewriting(mut self, rewrite: Option<crate::transport::tap::Rewrite>) -> Self {
        self.rewrite = rewrite;
        self
    }

    /// `message` as it goes on the wire.
    fn outgoing(&self, message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
        match self.rewrite {
            Some(rewrite) => rewrite(message),
            None => message,
        }
    }

    pub(crate) fn stream_state(&self) -> watch::Receiver<ServerStream> {
        self.stream.subscribe()
    }

    /// The session turned out to have no standalone stream (2026-07-28 HTTP is stateless: a
    /// server reaches the client only within a request).
    pub(crate) fn no_standalone_stream(&self) {
        self.stream.send_if_modified(|s| {
            let pending = *s == ServerStream::Pending;
            if pending {
                *s = ServerStream::Unavailable;
            }
            pending
        });
    }

    fn note_standalone<T, E>(&self, standalone: bool, result: &Result<T, StreamableHttpError<E>>)
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        if !standalone {
            return;
        }
        let state = match result {
            Ok(_) => ServerStream::Open,
            Err(StreamableHttpError::ServerDoesNotSupportSse) => ServerStream::Unavailable,
            Err(_) => return,
        };
        self.stream.send_replace(state);
    }
}

type SseStream = BoxStream<'static, Result<Sse, SseError>>;

impl HttpClient {
    /// `builder` with what every request of a session carries: the session's id, the
    /// authorization and the configured headers (the transport's own names refused).
    fn common(
        builder: reqwest::RequestBuilder,
        session_id: Option<&str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<reqwest::RequestBuilder, wire::Error> {
        let mut builder = builder;
        for (name, value) in custom_headers {
            // MCP-Protocol-Version is the transport's to set, and it sets it this way.
            let reserved = ["accept", wire::SESSION_HEADER, "last-event-id"]
                .iter()
                .any(|r| name.as_str().eq_ignore_ascii_case(r));
            if reserved {
                return Err(StreamableHttpError::ReservedHeaderConflict(
                    name.to_string(),
                ));
            }
            builder = builder.header(name, value);
        }
        if let Some(token) = auth_header {
            builder = builder.bearer_auth(token);
        }
        if let Some(session) = session_id {
            builder = builder.header(wire::SESSION_HEADER, session);
        }
        Ok(builder)
    }

    /// Posts `message` and reads what the server answers, within `limits`.
    async fn post(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, wire::Error> {
        use crate::logs::network_log::{BodyKind, ExchangeState};
        let message = self.outgoing(message);
        let body = serde_json::to_vec(&message)?;
        let builder = self
            .inner
            .post(uri.as_ref())
            .header(
                http::header::ACCEPT,
                format!("{}, {}", wire::JSON, wire::SSE),
            )
            .header(http::header::CONTENT_TYPE, wire::JSON);
        let session_attached = session_id.is_some();
        let request = Self::common(builder, session_id.as_deref(), auth_header, custom_headers)?
            .body(body)
            .build()
            .map_err(StreamableHttpError::Client)?;
        let sent = request
            .body()
            .and_then(reqwest::Body::as_bytes)
            .unwrap_or_default();
        let exchange = wire::Exchange::begin(self.recorder.as_ref(), &request, sent);
        let response = self
            .inner
            .execute(request)
            .await
            .map_err(|e| StreamableHttpError::Client(exchange.failed(e)))?;
        let status = response.status();
        let headers = response.headers().clone();
        let kind = wire::body_kind(status, &headers, response.content_length());
        exchange.answered(status, &headers, kind);
        if matches!(
            status,
            reqwest::StatusCode::UNAUTHORIZED | reqwest::StatusCode::FORBIDDEN
        ) && let Some(e) = wire::challenge(status, &headers)
        {
            return exchange.done(Err(e));
        }
        if kind == BodyKind::Empty
            && matches!(
                status,
                reqwest::StatusCode::ACCEPTED | reqwest::StatusCode::NO_CONTENT
            )
        {
            return exchange.done(Ok(StreamableHttpPostResponse::Accepted));
        }
        if status == reqwest::StatusCode::NOT_FOUND && session_attached {
            return exchange.done(Err(StreamableHttpError::SessionExpired));
        }
        let session = headers
            .get(wire::SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        // A notification, response or error posted awaits no message back.
        let awaits_nothing = !matches!(message, ClientJsonRpcMessage::Request(_));
        if !status.is_success() {
            let json = kind == BodyKind::Json;
            // A rate limit, or a failure without a JSON-RPC error: its body is not read.
            let failure = match wire::status_failure(status, &headers) {
                Some(f) if !json || status == reqwest::StatusCode::TOO_MANY_REQUESTS => {
                    return exchange.done(Err(f.into()));
                }
                other => other,
            };
            let auth_failure = matches!(
                status,
                reqwest::StatusCode::UNAUTHORIZED | reqwest::StatusCode::FORBIDDEN
            );
            let read = if json && !auth_failure {
                match wire::read_whole(response, &exchange, limits.max_json_response_size).await {
                    Ok(read) => read,
                    Err(too_large @ StreamableHttpError::ResponseBodyTooLarge { .. }) => {
                        return Err(failure.map_or(too_large, Into::into));
                    }
                    Err(StreamableHttpError::Client(_)) => b"(the body could not be read)".to_vec(),
                    Err(e) => return Err(e),
                }
            } else {
                wire::read_prefix(response, &exchange, limits.max_error_response_size).await
            };
            if json {
                exchange.carried(&read);
            }
            exchange.end(ExchangeState::Done, None);
            let text = String::from_utf8_lossy(&read);
            let refused = wire::discover_refused(&message, session_attached, status, &text);
            if let Ok(error @ rmcp::model::JsonRpcMessage::Error(_)) =
                serde_json::from_slice::<rmcp::model::ServerJsonRpcMessage>(&read)
            {
                return Ok(refused.unwrap_or(StreamableHttpPostResponse::Json(error, session)));
            }
            if let Some(refused) = refused {
                return Ok(refused);
            }
            if let Some(failure) = failure {
                return Err(failure.into());
            }
            return Err(StreamableHttpError::UnexpectedServerResponse(
                format!(
                    "HTTP {status}: {}",
                    wire::body_text(&read, limits.max_error_response_size)
                )
                .into(),
            ));
        }
        if awaits_nothing && response.content_length() == Some(0) {
            return exchange.done(Ok(StreamableHttpPostResponse::Accepted));
        }
        match kind {
            BodyKind::Sse => Ok(StreamableHttpPostResponse::Sse(
                self.watched(wire::events(response, exchange, limits.max_sse_event_size)),
                session,
            )),
            BodyKind::Json => {
                let read =
                    wire::read_whole(response, &exchange, limits.max_json_response_size).await?;
                exchange.carried(&read);
                exchange.end(ExchangeState::Done, None);
                if let Some(hints) = &self.hints {
                    hints.sniff(&read);
                }
                match serde_json::from_slice::<rmcp::model::ServerJsonRpcMessage>(&read) {
                    Ok(answer) => Ok(StreamableHttpPostResponse::Json(answer, session)),
                    Err(_) if awaits_nothing => Ok(StreamableHttpPostResponse::Accepted),
                    Err(e) => Err(wire::not_a_message(&e, &read)),
                }
            }
            _ if awaits_nothing => exchange.done(Ok(StreamableHttpPostResponse::Accepted)),
            _ => exchange.done(Err(StreamableHttpError::UnexpectedContentType(
                wire::content_type(&headers),
            ))),
        }
    }

    /// Opens an event stream with a GET (the standalone stream, or one resumed).
    async fn get(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_event: usize,
    ) -> Result<SseStream, wire::Error> {
        let mut builder = self.inner.get(uri.as_ref()).header(
            http::header::ACCEPT,
            format!("{}, {}", wire::SSE, wire::JSON),
        );
        if let Some(last) = last_event_id {
            builder = builder.header("last-event-id", last);
        }
        let request = Self::common(builder, session_id.as_deref(), auth_header, custom_headers)?
            .build()
            .map_err(StreamableHttpError::Client)?;
        let exchange = wire::Exchange::begin(self.recorder.as_ref(), &request, &[]);
        let response = self
            .inner
            .execute(request)
            .await
            .map_err(|e| StreamableHttpError::Client(exchange.failed(e)))?;
        let status = response.status();
        let headers = response.headers().clone();
        exchange.answered(
            status,
            &headers,
            wire::body_kind(status, &headers, response.content_length()),
        );
        if status == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            return exchange.done(Err(StreamableHttpError::ServerDoesNotSupportSse));
        }
        if let Some(e) = wire::challenge(status, &headers) {
            return exchange.done(Err(e));
        }
        if let Some(failure) = wire::status_failure(status, &headers) {
            return exchange.done(Err(failure.into()));
        }
        let response = match response.error_for_status() {
            Ok(r) => r,
            Err(e) => return exchange.done(Err(StreamableHttpError::Client(e))),
        };
        let ct = wire::content_type(&headers);
        if !wire::is_media(ct.as_deref(), wire::SSE) && !wire::is_media(ct.as_deref(), wire::JSON) {
            return exchange.done(Err(StreamableHttpError::UnexpectedContentType(ct)));
        }
        Ok(self.watched(wire::events(response, exchange, max_event)))
    }
}

impl StreamableHttpClient for HttpClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let limits = StreamableHttpResponseLimits::default();
        self.post(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        use crate::logs::network_log::ExchangeState;
        let builder = self.inner.delete(uri.as_ref());
        let request = Self::common(builder, Some(&session_id), auth_header, custom_headers)?
            .build()
            .map_err(StreamableHttpError::Client)?;
        let exchange = wire::Exchange::begin(self.recorder.as_ref(), &request, &[]);
        let response = self
            .inner
            .execute(request)
            .await
            .map_err(|e| StreamableHttpError::Client(exchange.failed(e)))?;
        let status = response.status();
        exchange.answered(
            status,
            response.headers(),
            wire::body_kind(status, response.headers(), response.content_length()),
        );
        exchange.end(ExchangeState::Done, None);
        if status == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            tracing::debug!("the server keeps its sessions: DELETE not allowed");
            return Ok(());
        }
        response
            .error_for_status()
            .map(drop)
            .map_err(StreamableHttpError::Client)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let max = StreamableHttpResponseLimits::default().max_sse_event_size;
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        // The standalone stream is the GET of a session that resumes nothing.
        let standalone = session_id.is_some() && last_event_id.is_none();
        let result = self
            .get(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.note_standalone(standalone, &result);
        result
    }
}
