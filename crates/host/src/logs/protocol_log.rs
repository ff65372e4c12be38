//! The protocol log: every JSON-RPC message to and from each server, as it went over the wire —
//! direction, time, and for a response the latency of the request it answers — in a bounded
//! ring per server, and, when the host was given a trace file, as JSON Lines
//! (`{"t_ms", "server", "dir", "message"}`, one message per line, `t_ms` from the host's start).
//! A stdio server's stderr lines are kept beside its messages (`dir` `stderr`, the line as the
//! message), at a bounded rate.
//!
//! Values of sensitive-looking fields (`password`, `apiKey`, `token`…, the audit log's rules) are
//! redacted wherever they appear in a message, before it is kept or written.
//!
//! What it does not do: change or delay a message (the transport tap hands it over and moves
//! on), or decide anything.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::time::Instant;

use interlude_engine::{CallId, ServerId, ViewId};
use serde::Serialize;
use serde_json::Value;

pub use crate::logs::message_id::Direction;
pub(crate) use crate::logs::message_id::LogId;

/// One message of the protocol log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoggedMessage {
    /// Its place in its server's log: 1 for the first message, one more for each after it
    /// (a reader asks for what came after the last one it has).
    pub seq: u64,
    /// Milliseconds since the host started.
    pub t_ms: u64,
    /// The server's configured name.
    pub server: String,
    /// Which way it went.
    pub dir: Direction,
    /// The message as JSON (sensitive-looking values redacted).
    pub message: Value,
    /// For a response or an error: milliseconds since the request it answers went the other
    /// way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Set when the message went between the host and one of the server's app views (the
    /// bridge's traffic: `send` is host → view, `recv` view → host), not the server itself.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "view_number"
    )]
    pub view: Option<ViewId>,
    /// The tool call it belongs to, when the host knows it exactly: a `tools/call` (each
    /// round) and its response, a request the call raised and the host's answer, a cancel.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "call_number"
    )]
    pub call: Option<CallId>,
    /// Set when the server sent a line that is not a JSON-RPC message: why it is not one
    /// (`"nested too deeply"`, `"not JSON: …"`); `message` is then the line itself, as a
    /// string (its first 4 KiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unparsable: Option<String>,
}

fn call_number<S: serde::Serializer>(call: &Option<CallId>, s: S) -> Result<S::Ok, S::Error> {
    match call {
        Some(c) => s.serialize_u64(c.0),
        None => s.serialize_none(),
    }
}

fn view_number<S: serde::Serializer>(view: &Option<ViewId>, s: S) -> Result<S::Ok, S::Error> {
    match view {
        Some(v) => s.serialize_u64(v.0),
        None => s.serialize_none(),
    }
}

impl LoggedMessage {
    /// The method of a request or notification; `None` for a response or an error.
    pub fn method(&self) -> Option<&str> {
        self.message.get("method").and_then(Value::as_str)
    }
}

/// How many messages the log keeps per server by default.
pub const KEPT_PER_SERVER: usize = 10_000;

/// What a message was when it was recorded: the transport's own message, cloned (the tap's:
/// nothing is serialized on the way), the line it arrived as, or JSON (a view's messages). Read, it becomes a redacted
/// [`LoggedMessage`], once.
#[derive(Clone)]
pub(crate) enum Raw {
    Sent(Arc<rmcp::service::TxJsonRpcMessage<rmcp::service::RoleClient>>),
    Received(Arc<rmcp::service::RxJsonRpcMessage<rmcp::service::RoleClient>>),
    /// The line a message arrived or left as, from a transport that has it (a child's stdout
    /// and stdin): the bytes on the wire, shared with the transport, parsed only when read.
    Line(bytes::Bytes),
    Json(Arc<Value>),
    /// A line the server sent that is not a JSON-RPC message, and why.
    Unparsable {
        text: Arc<str>,
        why: Arc<str>,
    },
}

/// One kept message, in its ring as it is (no allocation of its own): what was recorded, and
/// the message readers see once one has read it.
struct Entry {
    what: Recorded,
    read: std::sync::OnceLock<Arc<LoggedMessage>>,
}

/// What was recorded of a message: cheap to copy (its raw form is shared), so that a reader
/// takes it out of the ring and parses it with the ring unlocked.
#[derive(Clone)]
struct Recorded {
    seq: u64,
    t_ms: u64,
    dir: Direction,
    view: Option<ViewId>,
    call: Option<CallId>,
    latency_ms: Option<u64>,
    raw: Raw,
}

impl Recorded {
    /// The message as readers see it: parsed and redacted.
    fn read(&self, server: &str) -> Arc<LoggedMessage> {
        let mut unparsable = None;
        let mut message = match &self.raw {
            Raw::Sent(m) => serde_json::to_value(m).unwrap_or(Value::Null),
            Raw::Received(m) => serde_json::to_value(m).unwrap_or(Value::Null),
            Raw::Line(line) => {
                let line: &[u8] = line;
                let line = line.strip_suffix(b"\n").unwrap_or(line);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
                serde_json::from_slice(line).unwrap_or(Value::Null)
            }
            Raw::Json(value) => Value::clone(value),
            Raw::Unparsable { text, why } => {
                unparsable = Some(why.to_string());
                Value::String(text.to_string())
            }
        };
        redact_all(&mut message);
        Arc::new(LoggedMessage {
            seq: self.seq,
            t_ms: self.t_ms,
            server: server.to_owned(),
            dir: self.dir,
            message,
            latency_ms: self.latency_ms,
            view: self.view,
            call: self.call,
            unparsable,
        })
    }
}

impl Recorded {
    /// The message as the trace writes it (one JSON line, without its newline): read as
    /// readers see it, or, over [`crate::logs::trace::MAX_TRACED`], summarised.
    fn trace_line(&self, server: &str) -> Vec<u8> {
        let over = |bytes: Vec<u8>| (bytes.len() > crate::logs::trace::MAX_TRACED).then_some(bytes);
        let large = match &self.raw {
            Raw::Line(line) if line.len() > crate::logs::trace::MAX_TRACED => Some(line.to_vec()),
            Raw::Line(_) => None,
            Raw::Sent(m) => serde_json::to_vec(m).ok().and_then(over),
            Raw::Received(m) => serde_json::to_vec(m).ok().and_then(over),
            Raw::Json(v) => serde_json::to_vec(v).ok().and_then(over),
            Raw::Unparsable { text, .. } => over(text.as_bytes().to_vec()),
        };
        let mut line = match large {
            Some(bytes) => serde_json::json!({
                "t_ms": self.t_ms,
                "server": server,
                "dir": self.dir,
                "summary": crate::logs::trace::summary(&bytes),
            }),
            None => {
                let entry = self.read(server);
                serde_json::json!({
                    "t_ms": entry.t_ms,
                    "server": entry.server,
                    "dir": entry.dir,
                    "message": entry.message,
                })
            }
        };
        if let Some(object) = line.as_object_mut() {
            if let Some(view) = self.view {
                object.insert("view".into(), Value::from(view.0));
            }
            if let Raw::Unparsable { why, .. } = &self.raw {
                object.insert("unparsable".into(), Value::from(why.as_ref()));
            }
        }
        serde_json::to_vec(&line).unwrap_or_default()
    }
}

/// What the log needs to know of a message when it is recorded: its JSON-RPC id, whether it is
/// a request or notification, and the tool call it belongs to, if known.
pub(crate) struct Shape {
    pub(crate) id: Option<LogId>,
    pub(crate) is_request: bool,
    pub(crate) call: Option<CallId>,
    /// For a server reached over HTTP: what pairs the message with the exchange that carried it
    /// (the network log's).
    pub(crate) exchange: Option<crate::logs::network_log::ExchangeKey>,
}

impl Ring {
    /// How many of the ring's messages come at or before sequence number `after` (numbers are
    /// consecutive: the first wanted is found by index).
    fn skip_to(&self, after: u64) -> usize {
        let first = self.messages.front().map_or(0, |e| e.what.seq);
        usize::try_from(after.saturating_add(1).saturating_sub(first)).unwrap_or(usize::MAX)
    }
}

#[derive(Default)]
struct Ring {
    /// The server's name, for readers.
    name: String,
    messages: VecDeque<Entry>,
    /// The last sequence number given.
    seq: u64,
    /// Requests waiting for their response, by direction and id: when they went.
    open: crate::id_map::IdMap<(Direction, LogId), u64>,
}

/// The log of every server of one host.
pub(crate) struct ProtocolLog {
    start: Instant,
    kept: usize,
    rings: Mutex<crate::id_map::IdMap<ServerId, Ring>>,
    trace: Option<crate::logs::trace::Trace>,
    /// When `t_ms` 0 was, in milliseconds since the Unix epoch.
    started_at_ms: u64,
    /// The HTTP exchanges of servers reached over HTTP, on the same clock.
    network: crate::logs::network_log::NetworkLog,
}

impl ProtocolLog {
    pub(crate) fn new(
        start: Instant,
        kept: usize,
        trace: Option<crate::logs::trace::Trace>,
        exchanges_kept: usize,
    ) -> Self {
        let since = start.elapsed();
        let started_at_ms =
            crate::clock::now_ms().saturating_sub(u64::try_from(since.as_millis()).unwrap_or(0));
        ProtocolLog {
            started_at_ms,
            start,
            kept,
            rings: Mutex::default(),
            trace,
            network: crate::logs::network_log::NetworkLog::new(start, exchanges_kept),
        }
    }

    /// The network log (HTTP exchanges), kept beside the messages.
    pub(crate) fn network(&self) -> &crate::logs::network_log::NetworkLog {
        &self.network
    }

    /// When the log's time 0 was (`t_ms` counts from it), in milliseconds since the Unix epoch:
    /// a message's clock time is this plus its `t_ms`.
    pub(crate) fn started_at_ms(&self) -> u64 {
        self.started_at_ms
    }

    /// Whether anything is recorded at all (a host may keep no log and write no trace).
    pub(crate) fn enabled(&self) -> bool {
        self.kept > 0 || self.trace.is_some()
    }

    /// Records `message` (the transport's own), which went `dir` between the host and server
    /// `server` (`name`). Nothing is serialized or redacted now: that happens when it is read
    /// (or at once for the trace file, when there is one).
    pub(crate) fn record(
        &self,
        server: ServerId,
        name: &str,
        dir: Direction,
        message: Raw,
        shape: Shape,
    ) {
        self.record_with(server, name, None, dir, message, shape);
    }

    /// Records `message`, which went `dir` between the host and app view `view` of server
    /// `server` (`name`).
    pub(crate) fn record_view(
        &self,
        server: ServerId,
        name: &str,
        view: ViewId,
        dir: Direction,
        message: Value,
    ) {
        // A view's ids are its own: kept apart from the server's.
        let shape = Shape {
            id: message.get("id").map(|id| LogId::of_view(view, id)),
            is_request: message.get("method").is_some(),
            call: None,
            exchange: None,
        };
        self.record_with(
            server,
            name,
            Some(view),
            dir,
            Raw::Json(Arc::new(message)),
            shape,
        );
    }

    fn record_with(
        &self,
        server: ServerId,
        name: &str,
        view: Option<ViewId>,
        dir: Direction,
        raw: Raw,
        shape: Shape,
    ) {
        if !self.enabled() {
            return;
        }
        let t_ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let Shape {
            id,
            is_request,
            call,
            exchange,
        } = shape;
        let mut rings = crate::sync::lock(&self.rings);
        let ring = rings.entry(server).or_default();
        if ring.name != name {
            name.clone_into(&mut ring.name);
        }
        let latency_ms = match (id, is_request) {
            (Some(id), true) => {
                ring.open.insert((dir, id), t_ms);
                None
            }
            (Some(id), false) => {
                let asked = match dir {
                    Direction::Send => Direction::Recv,
                    Direction::Recv | Direction::Stderr => Direction::Send,
                };
                ring.open
                    .remove(&(asked, id))
                    .map(|at| t_ms.saturating_sub(at))
            }
            (None, _) => None,
        };
        // Requests never answered must not pile up: the oldest go first.
        if ring.open.len() > self.kept.max(64) {
            let oldest = ring
                .open
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                ring.open.remove(&k);
            }
        }
        ring.seq += 1;
        if let Some(exchange) = exchange {
            self.network.logged(server, exchange, ring.seq);
        }
        let entry = Entry {
            what: Recorded {
                seq: ring.seq,
                t_ms,
                dir,
                view,
                call,
                latency_ms,
                raw,
            },
            read: std::sync::OnceLock::new(),
        };
        if let Some(trace) = &self.trace {
            // Made into its line on the trace's own thread, never here (`trace.rs`).
            let (what, name) = (entry.what.clone(), name.to_owned());
            trace.send(Box::new(move || what.trace_line(&name)));
        }
        if self.kept > 0 {
            if ring.messages.len() >= self.kept {
                ring.messages.pop_front();
            }
            ring.messages.push_back(entry);
        }
    }

    /// Server `server`'s messages after sequence number `after`, oldest first (all of them
    /// for 0).
    pub(crate) fn since(&self, server: ServerId, after: u64) -> Vec<Arc<LoggedMessage>> {
        // What was recorded is taken under the lock (shared, not copied); reading it (parsing,
        // redacting) is not, and what was read is kept for the next reader after.
        let (name, taken) = {
            let rings = crate::sync::lock(&self.rings);
            let Some(ring) = rings.get(&server) else {
                return Vec::new();
            };
            let taken: Vec<Result<Arc<LoggedMessage>, Recorded>> = ring
                .messages
                .iter()
                .skip(ring.skip_to(after))
                .map(|e| e.read.get().cloned().ok_or_else(|| e.what.clone()))
                .collect();
            (ring.name.clone(), taken)
        };
        let read: Vec<Arc<LoggedMessage>> = taken
            .into_iter()
            .map(|t| t.unwrap_or_else(|what| what.read(&name)))
            .collect();
        let mut rings = crate::sync::lock(&self.rings);
        if let Some(ring) = rings.get_mut(&server) {
            let first = ring.messages.front().map_or(0, |e| e.what.seq);
            for message in &read {
                // Gone from the ring meanwhile, or read by another reader: nothing to keep.
                let at = usize::try_from(message.seq.saturating_sub(first)).unwrap_or(usize::MAX);
                if let Some(entry) = ring.messages.get(at)
                    && entry.what.seq == message.seq
                {
                    let _ = entry.read.set(message.clone());
                }
            }
        }
        read
    }

    /// Server `server`'s messages, oldest first.
    pub(crate) fn of(&self, server: ServerId) -> Vec<Arc<LoggedMessage>> {
        self.since(server, 0)
    }
}

/// Redacts the values of secret-ish keys in every object of `value`, by the one rule of
/// [`interlude_engine::redact`](mod@interlude_engine::redact).
fn redact_all(value: &mut Value) {
    interlude_engine::redact::redact_json(value);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    /// Records `message` as the tap would (bytes, with its id and kind).
    fn record(log: &ProtocolLog, server: ServerId, dir: Direction, message: Value) {
        let shape = Shape {
            id: message.get("id").map(|id| LogId::of_view(ViewId(0), id)),
            is_request: message.get("method").is_some(),
            call: None,
            exchange: None,
        };
        log.record(server, "demo", dir, Raw::Json(Arc::new(message)), shape);
    }

    #[test]
    fn responses_carry_their_latency_and_secrets_are_redacted_anywhere() {
        let log = ProtocolLog::new(Instant::now(), 3, None, 0);
        let server = ServerId(1);
        record(
            &log,
            server,
            Direction::Recv,
            json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create",
                   "params": {"_meta": {"progressToken": 3}}}),
        );
        record(
            &log,
            server,
            Direction::Send,
            json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept",
                   "content": {"name": "Ada", "apiKey": "sk-123"}}}),
        );
        let kept = log.of(server);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].method(), Some("elicitation/create"));
        assert_eq!(kept[0].message["params"]["_meta"]["progressToken"], 3);
        assert!(
            kept[1].latency_ms.is_some(),
            "the response answers the request"
        );
        assert_eq!(kept[1].message["result"]["content"]["apiKey"], "[redacted]");
        assert_eq!(kept[1].message["result"]["content"]["name"], "Ada");
        // Bounded.
        for n in 0..5 {
            record(
                &log,
                server,
                Direction::Send,
                json!({"jsonrpc": "2.0", "method": "ping", "id": n}),
            );
        }
        assert_eq!(log.of(server).len(), 3);
        assert!(log.of(ServerId(2)).is_empty());
    }

    #[test]
    fn a_message_kept_as_its_line_reads_as_sent_and_redacted_and_pairs_with_its_request() {
        let log = ProtocolLog::new(Instant::now(), 8, None, 0);
        let server = ServerId(1);
        record(
            &log,
            server,
            Direction::Send,
            json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call"}),
        );
        let line = b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"password\":\"hunter2\",\"x\":1}}\r\n";
        let shape = Shape {
            id: Some(LogId::of_server(&rmcp::model::NumberOrString::String(
                "a".into(),
            ))),
            is_request: false,
            call: None,
            exchange: None,
        };
        log.record(
            server,
            "demo",
            Direction::Recv,
            Raw::Line(bytes::Bytes::copy_from_slice(line)),
            shape,
        );
        let kept = log.of(server);
        assert_eq!(kept[1].message["result"]["x"], 1);
        assert_eq!(kept[1].message["result"]["password"], "[redacted]");
        assert!(kept[1].latency_ms.is_some(), "paired with its request");
        // A number and a string that look alike are different ids.
        record(
            &log,
            server,
            Direction::Send,
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        );
        record(
            &log,
            server,
            Direction::Recv,
            json!({"jsonrpc": "2.0", "id": "1", "result": {}}),
        );
        assert!(log.of(server)[3].latency_ms.is_none());
    }

    #[test]
    fn a_reader_gets_what_came_after_the_last_message_it_has() {
        let log = ProtocolLog::new(Instant::now(), 4, None, 0);
        let server = ServerId(1);
        for n in 0..6 {
            record(
                &log,
                server,
                Direction::Send,
                json!({"jsonrpc": "2.0", "method": "ping", "id": n}),
            );
        }
        // Numbered 1 to 6; the ring keeps 3 to 6.
        let seqs = |after| {
            log.since(server, after)
                .iter()
                .map(|m| m.seq)
                .collect::<Vec<_>>()
        };
        assert_eq!(seqs(0), [3, 4, 5, 6]);
        assert_eq!(seqs(2), [3, 4, 5, 6]);
        assert_eq!(seqs(4), [5, 6]);
        assert_eq!(seqs(6), Vec::<u64>::new());
        assert_eq!(seqs(99), Vec::<u64>::new());
        assert!(log.since(ServerId(2), 0).is_empty());
    }

    /// A message is parsed once: a later reader gets what the first one read, for the messages
    /// still in the ring, including after older ones left it.
    #[test]
    fn a_message_is_read_once_and_kept_for_the_next_reader() {
        let log = ProtocolLog::new(Instant::now(), 3, None, 0);
        let server = ServerId(1);
        let ping = |n: u64| json!({"jsonrpc": "2.0", "method": "ping", "id": n});
        for n in 0..3 {
            record(&log, server, Direction::Send, ping(n));
        }
        let first = log.of(server);
        let again = log.of(server);
        assert_eq!(first.len(), 3);
        assert!(
            first.iter().zip(&again).all(|(a, b)| Arc::ptr_eq(a, b)),
            "read again instead of kept"
        );
        // One more: the oldest leaves; the two still kept are the ones read before.
        record(&log, server, Direction::Send, ping(3));
        let after = log.of(server);
        assert_eq!(after.iter().map(|m| m.seq).collect::<Vec<_>>(), [2, 3, 4]);
        assert!(Arc::ptr_eq(&after[0], &first[1]) && Arc::ptr_eq(&after[1], &first[2]));
        assert_eq!(after[2].message["id"], json!(3));
    }
}
