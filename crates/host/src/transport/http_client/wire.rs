//! The host's own side of each HTTP exchange under rmcp's streamable HTTP transport: the
//! request built and sent with reqwest, the response read within the transport's limits and
//! turned into what the transport expects, and every step recorded in the network log
//! (`network_log.rs`). rmcp's own reqwest client hides the status and headers; this one is
//! written so that the host sees them.
//!
//! What the transport is told follows the streamable HTTP rules as rmcp reads them: `202`/`204`
//! accept a message; a `401`/`403` with a challenge asks for authorization; `404` on a session
//! ends it; `405` to the GET means no standalone stream; `429` and `5xx` are status failures
//! unless a JSON-RPC error comes with them; a `4xx` to `server/discover` before any session is
//! the server's way of saying it speaks only 2025, and is handed back as that request's error so
//! the handshake falls back to `initialize`.

use std::borrow::Cow;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::stream::{BoxStream, Stream, StreamExt};
use http::{HeaderMap, StatusCode, header};
use interlude_engine::ServerId;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, StreamableHttpError,
    StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse, SseStream};

use crate::logs::network_log::{Begun, BodyKind, ExchangeState, HttpHeader};
use crate::logs::protocol_log::{Direction, ProtocolLog};

pub(super) type Error = StreamableHttpError<reqwest::Error>;
pub(super) type SseEvents = BoxStream<'static, Result<Sse, SseError>>;

pub(super) const SSE: &str = "text/event-stream";
pub(super) const JSON: &str = "application/json";
pub(super) const SESSION_HEADER: &str = "mcp-session-id";

/// Where a client records its exchanges: the host's log, as which server.
#[derive(Clone)]
pub(super) struct Recorder {
    pub(super) log: Arc<ProtocolLog>,
    pub(super) server: ServerId,
}

/// One exchange being recorded. Dropped before it ended (the transport stopped waiting, or
/// dropped an event stream), it is recorded as closed by the host.
pub(super) struct Exchange {
    to: Option<Recorder>,
    seq: u64,
}

impl Exchange {
    /// Records `request` leaving, carrying `body`.
    pub(super) fn begin(to: Option<&Recorder>, request: &reqwest::Request, body: &[u8]) -> Self {
        let Some(to) = to.filter(|r| r.log.network().enabled()) else {
            return Exchange { to: None, seq: 0 };
        };
        let headers: Vec<HttpHeader> =
            crate::logs::network_log::redacted_headers(request.headers());
        let begun = Begun {
            method: match *request.method() {
                http::Method::GET => "GET",
                http::Method::DELETE => "DELETE",
                http::Method::POST => "POST",
                _ => "OTHER",
            },
            path: request.url().path().to_owned(),
            headers,
            bytes: u64::try_from(body.len()).unwrap_or(u64::MAX),
            sent: if body.is_empty() {
                Vec::new()
            } else {
                crate::logs::network_log::glance(Direction::Send, body)
            },
        };
        let seq = to.log.network().begin(to.server, begun);
        Exchange {
            to: Some(to.clone()),
            seq,
        }
    }

    fn with(&self, f: impl FnOnce(&crate::logs::network_log::NetworkLog, ServerId, u64)) {
        if let Some(to) = &self.to {
            f(to.log.network(), to.server, self.seq);
        }
    }

    pub(super) fn answered(&self, status: StatusCode, headers: &HeaderMap, body: BodyKind) {
        self.with(|log, server, seq| log.answered(server, seq, status.as_u16(), headers, body));
    }

    pub(super) fn read(&self, bytes: usize) {
        self.with(|log, server, seq| log.read(server, seq, bytes));
    }

    pub(super) fn carried(&self, body: &[u8]) {
        self.with(|log, server, seq| log.carried(server, seq, body));
    }

    pub(super) fn end(&self, state: ExchangeState, error: Option<String>) {
        self.with(|log, server, seq| log.ended(server, seq, state, error));
    }

    /// Ends the exchange as done, and hands `result` back.
    pub(super) fn done<T>(&self, result: T) -> T {
        self.end(ExchangeState::Done, None);
        result
    }

    /// Ends the exchange as failed, with `e`, and hands `e` back.
    pub(super) fn failed<E: std::fmt::Display>(&self, e: E) -> E {
        self.end(ExchangeState::Failed, Some(e.to_string()));
        e
    }
}

impl Drop for Exchange {
    fn drop(&mut self) {
        // A no-op when it ended already.
        self.end(
            ExchangeState::Closed,
            Some("the host stopped reading before the server ended it".into()),
        );
    }
}

/// Whether `content_type` names `mime`, whatever its case and parameters.
pub(super) fn is_media(content_type: Option<&str>, mime: &str) -> bool {
    content_type
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(mime))
}

/// The response's `Content-Type`, as text.
pub(super) fn content_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// What a response's body is, from its status and headers.
pub(super) fn body_kind(status: StatusCode, headers: &HeaderMap, length: Option<u64>) -> BodyKind {
    let ct = content_type(headers);
    if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
        BodyKind::Empty
    } else if is_media(ct.as_deref(), SSE) {
        BodyKind::Sse
    } else if is_media(ct.as_deref(), JSON) {
        BodyKind::Json
    } else if length == Some(0) {
        BodyKind::Empty
    } else {
        BodyKind::Other
    }
}

/// A `401` or `403` that carries a challenge, as the transport's error for it.
pub(super) fn challenge(status: StatusCode, headers: &HeaderMap) -> Option<Error> {
    let value = headers.get(header::WWW_AUTHENTICATE)?;
    let text = match value.to_str() {
        Ok(t) => t.to_owned(),
        Err(_) => {
            return Some(StreamableHttpError::UnexpectedServerResponse(
                "the server's WWW-Authenticate header is not text".into(),
            ));
        }
    };
    match status {
        StatusCode::UNAUTHORIZED => Some(StreamableHttpError::AuthRequired(
            AuthRequiredError::new(text),
        )),
        StatusCode::FORBIDDEN => {
            let scope = scope_of(&text);
            Some(StreamableHttpError::InsufficientScope(
                InsufficientScopeError::new(text, scope),
            ))
        }
        _ => None,
    }
}

/// The `scope` a challenge names (quoted or bare), if any.
fn scope_of(challenge: &str) -> Option<String> {
    let at = challenge.to_ascii_lowercase().find("scope=")?;
    let rest = challenge.get(at + "scope=".len()..)?;
    let scope = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest
            .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
            .next()?,
    };
    (!scope.is_empty()).then(|| scope.to_owned())
}

/// `429` and `5xx` as the transport's status failure (its `Retry-After` kept).
pub(super) fn status_failure(status: StatusCode, headers: &HeaderMap) -> Option<HttpStatusError> {
    if status != StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
        return None;
    }
    let retry_after = headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Some(HttpStatusError::new(status.as_u16(), retry_after))
}

/// Reads `response`'s whole body, refusing one larger than `max` bytes.
pub(super) async fn read_whole(
    mut response: reqwest::Response,
    exchange: &Exchange,
    max: usize,
) -> Result<Vec<u8>, Error> {
    let too_large = || StreamableHttpError::ResponseBodyTooLarge { max_size: max };
    if response
        .content_length()
        .is_some_and(|n| n > u64::try_from(max).unwrap_or(u64::MAX))
    {
        return Err(exchange.failed(too_large()));
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                exchange.read(chunk.len());
                if chunk.len() > max.saturating_sub(body.len()) {
                    return Err(exchange.failed(too_large()));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) => return Err(StreamableHttpError::Client(exchange.failed(e))),
        }
    }
}

/// Reads at most `max` bytes of `response`'s body (a diagnostic: the rest is left unread).
pub(super) async fn read_prefix(
    mut response: reqwest::Response,
    exchange: &Exchange,
    max: usize,
) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < max {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                exchange.read(chunk.len());
                let room = max.saturating_sub(body.len()).min(chunk.len());
                body.extend_from_slice(chunk.get(..room).unwrap_or_default());
            }
            Ok(None) => break,
            Err(e) => {
                exchange.failed(e);
                return b"(the body could not be read)".to_vec();
            }
        }
    }
    body
}

/// The text of a body for a message, cut at `max` bytes.
pub(super) fn body_text(body: &[u8], max: usize) -> String {
    let mut text =
        String::from_utf8_lossy(body.get(..max.min(body.len())).unwrap_or_default()).into_owned();
    if body.len() > max {
        text.push('…');
    }
    text
}

/// A `4xx` refusing `server/discover` before any session, as that request's error (the
/// handshake then falls back to `initialize`); `None` for any other message or status.
pub(super) fn discover_refused(
    message: &ClientJsonRpcMessage,
    session_attached: bool,
    status: StatusCode,
    body: &str,
) -> Option<StreamableHttpPostResponse> {
    if session_attached
        || !status.is_client_error()
        || matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
    {
        return None;
    }
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    if !matches!(request.request, ClientRequest::DiscoverRequest(_)) {
        return None;
    }
    let error = match serde_json::from_str::<ServerJsonRpcMessage>(body) {
        Ok(ServerJsonRpcMessage::Error(e)) => e.error,
        _ => ErrorData::invalid_request(
            format!("the server refused server/discover with HTTP {status}: {body}"),
            None,
        ),
    };
    Some(StreamableHttpPostResponse::Json(
        ServerJsonRpcMessage::error(error, Some(request.id.clone())),
        None,
    ))
}

/// Why an event stream was cut.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StreamCut {
    /// One event outgrew the transport's limit (`failure::event_too_large` knows these words).
    #[error("SSE event exceeded the maximum size of {0} bytes")]
    TooLarge(usize),
    /// The body broke off.
    #[error("the event stream broke off: {0}")]
    Read(#[source] reqwest::Error),
}

/// Counts an event stream's bytes per event (a blank line ends one; comment lines do not
/// count toward it), so that one endless event is cut at `max` without being held.
struct EventLimit {
    max: usize,
    event: usize,
    line: usize,
    comment: bool,
    after_cr: bool,
}

impl EventLimit {
    fn new(max: usize) -> Self {
        EventLimit {
            max,
            event: 0,
            line: 0,
            comment: false,
            after_cr: false,
        }
    }

    fn take(&mut self, chunk: &[u8]) -> Result<(), StreamCut> {
        for &byte in chunk {
            let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
            match byte {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => {
                    if self.line == 0 {
                        self.event = 0;
                    }
                    self.line = 0;
                    self.comment = false;
                }
                _ => {
                    if self.line == 0 {
                        self.comment = byte == b':';
                    }
                    self.line = self.line.saturating_add(1);
                    if !self.comment {
                        self.event = self.event.saturating_add(1);
                    }
                    if self.event > self.max || self.line > self.max {
                        return Err(StreamCut::TooLarge(self.max));
                    }
                }
            }
        }
        Ok(())
    }
}

/// An event stream's bytes, counted into its exchange and bounded per event.
struct Counted {
    inner: BoxStream<'static, reqwest::Result<Bytes>>,
    exchange: Arc<Exchange>,
    limit: EventLimit,
    over: bool,
}

impl Stream for Counted {
    type Item = Result<Bytes, StreamCut>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.over {
            return Poll::Ready(None);
        }
        let next = match self.inner.poll_next_unpin(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(next) => next,
        };
        let item = match next {
            Some(Ok(chunk)) => {
                self.exchange.read(chunk.len());
                match self.limit.take(&chunk) {
                    Ok(()) => Ok(chunk),
                    Err(cut) => Err(self.exchange.failed(cut)),
                }
            }
            Some(Err(e)) => Err(self.exchange.failed(StreamCut::Read(e))),
            None => {
                self.over = true;
                self.exchange.end(ExchangeState::Done, None);
                return Poll::Ready(None);
            }
        };
        self.over = item.is_err();
        Poll::Ready(Some(item))
    }
}

/// `response`'s body as the transport's event stream: each event's message recorded as the
/// exchange's, which ends when the stream does (or is dropped).
pub(super) fn events(response: reqwest::Response, exchange: Exchange, max: usize) -> SseEvents {
    let exchange = Arc::new(exchange);
    let counted = Counted {
        inner: response.bytes_stream().boxed(),
        exchange: exchange.clone(),
        limit: EventLimit::new(max),
        over: false,
    };
    SseStream::from_bytes_stream(counted)
        .inspect(move |item| {
            if let Ok(Sse {
                data: Some(data), ..
            }) = item
                && !data.is_empty()
            {
                exchange.carried(data.as_bytes());
            }
        })
        .boxed()
}

/// The words for a JSON body that is no JSON-RPC message.
pub(super) fn not_a_message(e: &serde_json::Error, body: &[u8]) -> Error {
    StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
        "the server answered JSON that is no JSON-RPC message ({e}): {}",
        if body.is_empty() {
            "(empty)".to_owned()
        } else {
            body_text(body, 256)
        }
    )))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_event_is_bounded_but_a_stream_of_small_ones_is_not() {
        let mut limit = EventLimit::new(16);
        for _ in 0..100 {
            limit.take(b"data: 0123456789\r\n\r\n").unwrap();
            limit.take(b": keep-alive\n\n").unwrap();
        }
        let mut limit = EventLimit::new(16);
        limit.take(b"data: 01234\n").unwrap();
        assert!(matches!(
            limit.take(b"data: 0123456789\n"),
            Err(StreamCut::TooLarge(16))
        ));
        let mut limit = EventLimit::new(16);
        assert!(limit.take(&[b'x'; 17]).is_err());
    }

    #[test]
    fn a_challenge_names_its_scope() {
        assert_eq!(
            scope_of(r#"Bearer error="insufficient_scope", scope="files:read files:write""#),
            Some("files:read files:write".into())
        );
        assert_eq!(
            scope_of("Bearer scope=read:data, x=1"),
            Some("read:data".into())
        );
        assert_eq!(scope_of("Bearer realm=x"), None);
        assert!(is_media(Some("Application/JSON; charset=utf-8"), JSON));
        assert!(!is_media(Some("application/jsonx"), JSON));
        assert_eq!(body_text("héllo".as_bytes(), 2), "h\u{fffd}…");
    }
}
