//! The host's client for rmcp's streamable HTTP transport: reqwest with pooled connections and
//! TCP_NODELAY (rmcp's `from_config` turns pooling off), which also reports when the server's
//! standalone SSE stream is open.
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
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};
use tokio::sync::watch;

use crate::failure::EndReason;

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
    declare_user_interaction: bool,
    /// Where a stream the host had to cut off says why (rmcp then only reports "closed").
    ended: EndReason,
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
            declare_user_interaction: false,
            ended: EndReason::default(),
        })
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
        stream
            .inspect(move |item| {
                if let Err(e) = item
                    && let Some(why) = crate::failure::event_too_large(e)
                {
                    tracing::warn!("{why}");
                    ended.note(why);
                }
            })
            .boxed()
    }

    /// A POST's answer, its event stream watched.
    fn watched_answer(
        &self,
        answer: Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        match answer {
            Ok(StreamableHttpPostResponse::Sse(stream, session)) => Ok(
                StreamableHttpPostResponse::Sse(self.watched(stream), session),
            ),
            other => other,
        }
    }

    /// The same client, declaring the seed-000 `userInteraction` capability in `initialize`.
    pub(crate) fn declaring_user_interaction(mut self, declare: bool) -> Self {
        self.declare_user_interaction = declare;
        self
    }

    /// `message` as it goes on the wire.
    fn outgoing(&self, message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
        if self.declare_user_interaction {
            crate::interaction::declare_in(message)
        } else {
            message
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
        let message = self.outgoing(message);
        let answer = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.watched_answer(answer)
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
        let message = self.outgoing(message);
        let answer = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.watched_answer(answer)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        // The standalone stream is the GET of a session that resumes nothing.
        let standalone = session_id.is_some() && last_event_id.is_none();
        let result = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.note_standalone(standalone, &result);
        result.map(|stream| self.watched(stream))
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
        let standalone = session_id.is_some() && last_event_id.is_none();
        let result = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.note_standalone(standalone, &result);
        result.map(|stream| self.watched(stream))
    }
}
