//! The network log: each HTTP exchange between the host and a streamable-HTTP server — method,
//! path, headers (secrets redacted), status, content type, timing, sizes, and the JSON-RPC
//! messages it carried — in a bounded ring per server, on the protocol log's clock.
//!
//! The host's HTTP client (`http_client.rs`) records an exchange as it goes: begun when the
//! request leaves, answered when the response's headers arrive, ended when its body (or, for an
//! event stream, the stream) ends. Every message an exchange carried is linked to its row of
//! the protocol log ([`CarriedMessage::log_seq`]): an outgoing message is logged by the tap
//! before the client posts it, an incoming one after the client read it, so each side waits
//! for the other in a short queue per message identity (its JSON-RPC id, or a notification's
//! method).
//!
//! stdio servers have no exchanges; [`Host::network_log`](crate::Host::network_log) says so.
//!
//! What it does not do: keep bodies (the protocol log has the messages), keep query strings
//! (they may carry credentials), or change anything that goes over the wire.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use interlude_engine::ServerId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use crate::logs::message_id::{Direction, LogId};

/// How many HTTP exchanges the network log keeps per server by default.
pub const EXCHANGES_KEPT_PER_SERVER: usize = 1_000;

/// Messages one exchange lists at most (a long-lived event stream may carry many more: the
/// rest are counted in [`HttpExchange::received_more`]).
const CARRIED_KEPT: usize = 256;

/// How many messages per server wait to be linked, at most (a message one side never saw
/// would otherwise stay).
const LINKS_WAITING: usize = 512;

/// What a redacted value is replaced with, after the part of it that may be shown.
pub const REDACTED: &str = interlude_engine::redact::REDACTED;

/// How many characters of an `Mcp-Session-Id` the log keeps.
pub const SESSION_ID_KEPT: usize = interlude_engine::redact::SESSION_ID_KEPT;

/// One HTTP header of an exchange, its value redacted when it may be a secret
/// ([`redact_header`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HttpHeader {
    /// The header's name, lower case (as HTTP/2 writes it).
    pub name: String,
    /// Its value, or, when redacted, the part of it that may be shown (an `Authorization`'s
    /// scheme, a session id's first characters; empty otherwise).
    pub value: String,
    /// Whether the value was redacted.
    pub redacted: bool,
}

/// What an exchange's response body was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum BodyKind {
    /// No response yet (or none: the request failed).
    Pending,
    /// A JSON body (one message).
    Json,
    /// An event stream (`text/event-stream`): any number of messages.
    Sse,
    /// No body (`202 Accepted`, `204 No Content`, or empty).
    Empty,
    /// Anything else (an error page, say): read only as far as the host needed.
    Other,
}

/// Where an exchange stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ExchangeState {
    /// In flight: waiting for the response, or its body or event stream is still open.
    Open,
    /// The response was read to its end, or as far as the host needed (an event stream
    /// that carried the answer to the request it was posted with, after which the host stops
    /// reading it).
    Done,
    /// It failed: no response, or its body broke off ([`HttpExchange::error`] says why).
    Failed,
    /// The host stopped reading before the server ended it and before it carried the answer
    /// the request waited for (a session closed, a call cancelled).
    Closed,
}

/// A JSON-RPC message an exchange carried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CarriedMessage {
    /// `request`, `notification`, `response` or `error`.
    pub kind: &'static str,
    /// A request's or notification's method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Its JSON-RPC id (a request's, or the request a response answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// Its row in the server's protocol log
    /// ([`LoggedMessage::seq`](crate::LoggedMessage::seq)), once linked.
    pub log_seq: Option<u64>,
}

/// One HTTP exchange with a streamable-HTTP server.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HttpExchange {
    /// Its place in its server's network log: 1 for the first, one more for each after it.
    pub seq: u64,
    /// The server's configured name.
    pub server: String,
    /// `POST`, `GET` or `DELETE`.
    pub method: String,
    /// The URL's path (never its query, which may carry credentials).
    pub path: String,
    /// When the request left, in milliseconds since the host started (the protocol log's
    /// [`t_ms`](crate::LoggedMessage::t_ms) clock).
    pub t_ms: u64,
    /// The request's headers as the host set them, secrets redacted.
    pub request_headers: Vec<HttpHeader>,
    /// The request body's size in bytes.
    pub request_bytes: u64,
    /// The response's status, once its headers arrived.
    pub status: Option<u16>,
    /// The response's headers, secrets redacted.
    pub response_headers: Vec<HttpHeader>,
    /// The response's `Content-Type`, as sent.
    pub content_type: Option<String>,
    /// What the response body was.
    pub body: BodyKind,
    /// Milliseconds from the request leaving to the response's headers.
    pub headers_ms: Option<u64>,
    /// Milliseconds from the request leaving to the end of the response (an event stream's
    /// end); `None` while [`ExchangeState::Open`].
    pub duration_ms: Option<u64>,
    /// Where it stands.
    pub state: ExchangeState,
    /// Why it failed or was cut short, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Bytes of response body read so far.
    pub response_bytes: u64,
    /// The JSON-RPC messages the request carried.
    pub sent: Vec<CarriedMessage>,
    /// The JSON-RPC messages the response carried (for an event stream, one per event), the
    /// first 256 of them.
    pub received: Vec<CarriedMessage>,
    /// How many more messages the response carried than `received` lists.
    pub received_more: u64,
}

/// Why a server has no network log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoNetworkLog {
    /// The server is not reached over HTTP (stdio, or a transport given by the embedder):
    /// there are no HTTP exchanges to show.
    #[error("{transport}: no HTTP exchanges")]
    NotHttp {
        /// Its transport, as the record names it (`stdio`, `in-process`).
        transport: String,
    },
    /// No server of that id is on the record.
    #[error("no such server")]
    UnknownServer,
}

/// `name: value` as the network log keeps it, by the one redaction rule of
/// [`interlude_engine::redact`](mod@interlude_engine::redact): the value of a header whose
/// name is secret-ish is replaced — `Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`,
/// `X-Password`, `X-Session`, `X-Signature`, … (whatever the case) — keeping only an
/// authorization's scheme (`Bearer`);
/// the secrets of the URLs in `Location`, `Link` and the like are hidden, the rest kept; an
/// `Mcp-Session-Id` keeps its first [`SESSION_ID_KEPT`] characters: it is no credential, but
/// whoever has it can act in the session.
///
/// ```
/// use interlude_host::redact_header;
/// let h = redact_header("Authorization", "Bearer sk-live-123");
/// assert_eq!((h.value.as_str(), h.redacted), ("Bearer", true));
/// let h = redact_header("X-Api-Key", "sk-live-123");
/// assert_eq!((h.value.as_str(), h.redacted), ("", true));
/// let h = redact_header("Mcp-Session-Id", "5f0c2e9a-77");
/// assert_eq!((h.value.as_str(), h.redacted), ("5f0c", true));
/// let h = redact_header("Content-Type", "application/json");
/// assert_eq!((h.value.as_str(), h.redacted), ("application/json", false));
/// ```
pub fn redact_header(name: &str, value: &str) -> HttpHeader {
    let (value, redacted) = interlude_engine::redact::redact_header(name, value);
    HttpHeader {
        name: name.to_ascii_lowercase(),
        value,
        redacted,
    }
}

/// `headers`, each redacted as [`redact_header`] says; a value that is not text is shown as
/// its size.
pub(crate) fn redacted_headers(headers: &http::HeaderMap) -> Vec<HttpHeader> {
    headers
        .iter()
        .map(|(name, value)| match value.to_str() {
            Ok(text) => redact_header(name.as_str(), text),
            Err(_) => {
                let mut h = redact_header(name.as_str(), "");
                if !h.redacted {
                    h.value = format!("({} bytes, not text)", value.len());
                }
                h
            }
        })
        .collect()
}

/// What links a message the tap logged with the same message an exchange carried: its
/// direction, and its JSON-RPC id (with whether it is a request) or a notification's method.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ExchangeKey {
    Id {
        dir: Direction,
        request: bool,
        id: LogId,
    },
    Note {
        dir: Direction,
        method: String,
    },
}

/// A message as an exchange's body shows it: only what the log lists of it is read.
#[derive(Deserialize)]
struct Glance<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

/// The messages in `body` (one JSON-RPC message, or a batch), as carried one way: what the log
/// lists of each, and the key that links it. Anything that is not a message is left out.
pub(crate) fn glance(dir: Direction, body: &[u8]) -> Vec<(CarriedMessage, Option<ExchangeKey>)> {
    let one = |g: Glance<'_>| {
        let method = g.method.map(Cow::into_owned);
        let kind = match (&method, &g.id, g.error.is_some()) {
            (Some(_), Some(_), _) => "request",
            (Some(_), None, _) => "notification",
            (None, _, true) => "error",
            (None, _, false) => "response",
        };
        let log_id = g.id.as_ref().and_then(|id| match id {
            Value::Number(n) => n.as_i64().map(|n| LogId::Int(0, n)),
            Value::String(s) => Some(LogId::Str(0, s.as_str().into())),
            _ => None,
        });
        let key = match (&method, log_id) {
            (_, Some(id)) => Some(ExchangeKey::Id {
                dir,
                request: method.is_some(),
                id,
            }),
            (Some(m), None) => Some(ExchangeKey::Note {
                dir,
                method: m.clone(),
            }),
            (None, None) => None,
        };
        let carried = CarriedMessage {
            kind,
            method,
            id: g.id,
            log_seq: None,
        };
        (carried, key)
    };
    if let Ok(g) = serde_json::from_slice::<Glance<'_>>(body) {
        return vec![one(g)];
    }
    serde_json::from_slice::<Vec<Glance<'_>>>(body)
        .map(|all| all.into_iter().map(one).collect())
        .unwrap_or_default()
}

/// What the client knows of a request when it leaves.
pub(crate) struct Begun {
    pub(crate) method: &'static str,
    pub(crate) path: String,
    pub(crate) headers: Vec<HttpHeader>,
    pub(crate) bytes: u64,
    pub(crate) sent: Vec<(CarriedMessage, Option<ExchangeKey>)>,
}

#[derive(Default)]
struct Ring {
    name: String,
    exchanges: VecDeque<HttpExchange>,
    seq: u64,
    /// Outgoing messages the tap logged, not yet seen leave: their protocol log rows.
    logged: HashMap<ExchangeKey, VecDeque<u64>>,
    /// Incoming messages an exchange carried, not yet logged: the exchange and the place.
    carried: HashMap<ExchangeKey, VecDeque<(u64, usize)>>,
    waiting: usize,
}

impl Ring {
    fn exchange(&mut self, seq: u64) -> Option<&mut HttpExchange> {
        let first = self.exchanges.front()?.seq;
        let at = usize::try_from(seq.checked_sub(first)?).ok()?;
        self.exchanges.get_mut(at)
    }

    /// Forgets every waiting link once too many wait (one side never saw them).
    fn bound_pairings(&mut self) {
        if self.waiting > LINKS_WAITING {
            self.logged.clear();
            self.carried.clear();
            self.waiting = 0;
        }
    }
}

/// The network log of every HTTP server of one host.
pub(crate) struct NetworkLog {
    start: Instant,
    kept: usize,
    rings: Mutex<HashMap<ServerId, Ring>>,
}

impl NetworkLog {
    pub(crate) fn new(start: Instant, kept: usize) -> Self {
        NetworkLog {
            start,
            kept,
            rings: Mutex::default(),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether exchanges are kept at all.
    pub(crate) fn enabled(&self) -> bool {
        self.kept > 0
    }

    /// Server `server` (`name`) is reached over HTTP: its exchanges are kept from now on.
    pub(crate) fn open(&self, server: ServerId, name: &str) {
        if !self.enabled() {
            return;
        }
        let mut rings = crate::sync::lock(&self.rings);
        name.clone_into(&mut rings.entry(server).or_default().name);
    }

    /// The tap logged a message of server `server` as row `seq`: its exchange, if the client
    /// has recorded it already, gets the link; else the link waits for it.
    pub(crate) fn logged(&self, server: ServerId, key: ExchangeKey, seq: u64) {
        let mut rings = crate::sync::lock(&self.rings);
        let Some(ring) = rings.get_mut(&server) else {
            return;
        };
        let outgoing = matches!(
            key,
            ExchangeKey::Id {
                dir: Direction::Send,
                ..
            } | ExchangeKey::Note {
                dir: Direction::Send,
                ..
            }
        );
        if outgoing {
            ring.logged.entry(key).or_default().push_back(seq);
            ring.waiting += 1;
            ring.bound_pairings();
            return;
        }
        let place = ring.carried.get_mut(&key).and_then(VecDeque::pop_front);
        if let Some((exchange, at)) = place {
            ring.waiting = ring.waiting.saturating_sub(1);
            if let Some(m) = ring.exchange(exchange).and_then(|e| e.received.get_mut(at)) {
                m.log_seq = Some(seq);
            }
        }
    }

    /// A request leaves for server `server`: its exchange is recorded (open), its number
    /// returned (0 when nothing is kept).
    pub(crate) fn begin(&self, server: ServerId, begun: Begun) -> u64 {
        let t_ms = self.now_ms();
        let mut rings = crate::sync::lock(&self.rings);
        let Some(ring) = rings.get_mut(&server) else {
            return 0;
        };
        let sent = begun
            .sent
            .into_iter()
            .take(CARRIED_KEPT)
            .map(|(mut m, key)| {
                let row = key.and_then(|k| ring.logged.get_mut(&k)?.pop_front());
                if row.is_some() {
                    ring.waiting = ring.waiting.saturating_sub(1);
                }
                m.log_seq = row;
                m
            })
            .collect();
        ring.seq += 1;
        let exchange = HttpExchange {
            seq: ring.seq,
            server: ring.name.clone(),
            method: begun.method.to_owned(),
            path: begun.path,
            t_ms,
            request_headers: begun.headers,
            request_bytes: begun.bytes,
            status: None,
            response_headers: Vec::new(),
            content_type: None,
            body: BodyKind::Pending,
            headers_ms: None,
            duration_ms: None,
            state: ExchangeState::Open,
            error: None,
            response_bytes: 0,
            sent,
            received: Vec::new(),
            received_more: 0,
        };
        if ring.exchanges.len() >= self.kept {
            ring.exchanges.pop_front();
        }
        ring.exchanges.push_back(exchange);
        ring.seq
    }

    /// Changes exchange `seq` of server `server`, if it is still kept.
    fn change(&self, server: ServerId, seq: u64, f: impl FnOnce(&mut HttpExchange, u64)) {
        let now = self.now_ms();
        let mut rings = crate::sync::lock(&self.rings);
        if let Some(exchange) = rings.get_mut(&server).and_then(|r| r.exchange(seq)) {
            f(exchange, now);
        }
    }

    /// The response's headers arrived.
    pub(crate) fn answered(
        &self,
        server: ServerId,
        seq: u64,
        status: u16,
        headers: &http::HeaderMap,
        body: BodyKind,
    ) {
        let redacted = redacted_headers(headers);
        let content_type = headers
            .get(http::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        self.change(server, seq, |e, now| {
            e.status = Some(status);
            e.response_headers = redacted;
            e.content_type = content_type;
            e.body = body;
            e.headers_ms = Some(now.saturating_sub(e.t_ms));
        });
    }

    /// `bytes` more of the response body were read.
    pub(crate) fn read(&self, server: ServerId, seq: u64, bytes: usize) {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        self.change(server, seq, |e, _| {
            e.response_bytes = e.response_bytes.saturating_add(bytes);
        });
    }

    /// The response carried the messages in `body` (a JSON body, or one event's data).
    pub(crate) fn carried(&self, server: ServerId, seq: u64, body: &[u8]) {
        let messages = glance(Direction::Recv, body);
        if messages.is_empty() {
            return;
        }
        let mut rings = crate::sync::lock(&self.rings);
        let Some(ring) = rings.get_mut(&server) else {
            return;
        };
        for (message, key) in messages {
            let Some(exchange) = ring.exchange(seq) else {
                return;
            };
            if exchange.received.len() >= CARRIED_KEPT {
                exchange.received_more = exchange.received_more.saturating_add(1);
                continue;
            }
            let at = exchange.received.len();
            exchange.received.push(message);
            if let Some(key) = key {
                ring.carried.entry(key).or_default().push_back((seq, at));
                ring.waiting += 1;
            }
        }
        ring.bound_pairings();
    }

    /// The exchange ended as `state` (with `error` in words when it failed or was cut short).
    pub(crate) fn ended(
        &self,
        server: ServerId,
        seq: u64,
        state: ExchangeState,
        error: Option<String>,
    ) {
        self.change(server, seq, |e, now| {
            if e.state != ExchangeState::Open {
                return;
            }
            // rmcp stops reading a POST's event stream once it has the answer it waited for:
            // that exchange is over, not cut short.
            let answered = || {
                e.sent.iter().any(|asked| {
                    asked.kind == "request"
                        && e.received
                            .iter()
                            .any(|m| matches!(m.kind, "response" | "error") && m.id == asked.id)
                })
            };
            let (state, error) = match state {
                ExchangeState::Closed if answered() => (ExchangeState::Done, None),
                _ => (state, error),
            };
            e.state = state;
            e.error = error;
            e.duration_ms = Some(now.saturating_sub(e.t_ms));
        });
    }

    /// Server `server`'s exchanges, oldest first; `None` when it has no network log.
    pub(crate) fn of(&self, server: ServerId) -> Option<Vec<HttpExchange>> {
        let rings = crate::sync::lock(&self.rings);
        rings
            .get(&server)
            .map(|r| r.exchanges.iter().cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn secrets_are_redacted_whatever_their_case_and_the_rest_kept() {
        for (name, value, shown) in [
            ("authorization", "Bearer abc.def", "Bearer"),
            ("Proxy-Authorization", "Basic dXNlcjpwdw==", "Basic"),
            ("Authorization", "opaque-token-without-scheme", ""),
            ("Cookie", "sid=1; theme=dark", ""),
            ("set-cookie", "sid=1; HttpOnly", ""),
            ("X-API-KEY", "k", ""),
            ("x-goog-api-key", "k", ""),
            ("X-Auth-Token", "t", ""),
            ("x-client-secret", "s", ""),
            ("WWW-Authenticate", "Bearer realm=x", ""),
            ("Mcp-Session-Id", "abcdef0123", "abcd"),
            // Issue 34, round two: what the network view showed in clear.
            ("X-Password", "SECRET", ""),
            ("X-Pass", "SECRET", ""),
            ("X-Passphrase", "SECRET", ""),
            ("X-Credential", "SECRET", ""),
            ("X-Session", "SECRET", ""),
            ("X-Signature", "SECRET", ""),
            (
                "Location",
                "https://app.example/cb?code=SECRET&state=1",
                "https://app.example/cb?code=•••&state=1",
            ),
        ] {
            let h = redact_header(name, value);
            assert!(h.redacted, "{name}");
            assert_eq!(h.value, shown, "{name}");
            assert_eq!(h.name, name.to_ascii_lowercase());
        }
        for (name, value) in [
            ("content-type", "text/event-stream"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2025-11-25"),
        ] {
            let h = redact_header(name, value);
            assert!(!h.redacted, "{name}");
            assert_eq!(h.value, value);
        }
        // A value that is not text.
        let mut map = http::HeaderMap::new();
        map.insert("x-odd", http::HeaderValue::from_bytes(b"\xff\xfe").unwrap());
        assert_eq!(redacted_headers(&map)[0].value, "(2 bytes, not text)");
    }

    #[test]
    fn peer_bodies_are_glanced_at_without_trust() {
        let m = glance(Direction::Recv, br#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].0.kind, "response");
        assert_eq!(
            m[0].1,
            Some(ExchangeKey::Id {
                dir: Direction::Recv,
                request: false,
                id: LogId::Int(0, 7)
            })
        );
        let m = glance(
            Direction::Recv,
            br#"[{"jsonrpc":"2.0","method":"notifications/progress"},{"id":"a","error":{}}]"#,
        );
        assert_eq!(m[0].0.kind, "notification");
        assert_eq!(m[1].0.kind, "error");
        for junk in [&b""[..], b"null", b"[1,2]", b"{\"id\":", b"\xff"] {
            assert!(
                glance(Direction::Recv, junk)
                    .iter()
                    .all(|(m, k)| m.method.is_none() && k.is_none()),
                "{junk:?}"
            );
        }
    }

    #[test]
    fn exchanges_are_bounded_and_linked_to_logged_rows_both_ways() {
        let log = NetworkLog::new(Instant::now(), 2);
        let server = ServerId(1);
        // Not an HTTP server: nothing kept.
        assert_eq!(log.begin(ServerId(9), begun(br#"{}"#)), 0);
        assert!(log.of(ServerId(9)).is_none());
        log.open(server, "demo");
        let call = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#;
        // The tap logs the request before the client posts it.
        for (key, _) in [glance(Direction::Send, call).remove(0)].map(|(m, k)| (k, m)) {
            log.logged(server, key.unwrap(), 41);
        }
        let seq = log.begin(server, begun(call));
        log.answered(server, seq, 200, &http::HeaderMap::new(), BodyKind::Sse);
        log.carried(server, seq, br#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
        log.read(server, seq, 40);
        // The tap logs the response after the client read it.
        let key = glance(Direction::Recv, br#"{"id":3,"result":{}}"#)
            .remove(0)
            .1
            .unwrap();
        log.logged(server, key, 42);
        log.ended(server, seq, ExchangeState::Done, None);
        let kept = log.of(server).unwrap();
        assert_eq!(kept[0].sent[0].log_seq, Some(41));
        assert_eq!(kept[0].received[0].log_seq, Some(42));
        assert_eq!(kept[0].response_bytes, 40);
        assert_eq!(kept[0].status, Some(200));
        assert!(kept[0].duration_ms.is_some());
        for _ in 0..3 {
            log.begin(server, begun(b"{}"));
        }
        let kept = log.of(server).unwrap();
        assert_eq!(kept.iter().map(|e| e.seq).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(kept[1].state, ExchangeState::Open);
        assert_eq!(kept[1].duration_ms, None);
    }

    fn begun(body: &[u8]) -> Begun {
        Begun {
            method: "POST",
            path: "/mcp".into(),
            headers: Vec::new(),
            bytes: body.len() as u64,
            sent: glance(Direction::Send, body),
        }
    }
}
