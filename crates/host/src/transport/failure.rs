//! What went wrong with a server, as one sentence a person reads: the one place where rmcp's
//! errors (`ServiceError`, `ClientInitializeError`, `ErrorData`), a child process's exit and a
//! line a server sent that is not a JSON-RPC message become words.
//!
//! A reason says who (the server), what, and why: "the server exited with status 3", "the
//! server answered with an error: no such tool (code -32602, invalid params)". Never an rmcp
//! type's `Debug` dump, never "Transport closed" alone.
//!
//! Why a connection ended is known below rmcp (the stdio transport sees the process exit and
//! the bytes it wrote), while the errors above it only say "closed": [`EndReason`] carries the
//! first from the transport to whoever turns the second into a sentence.
//!
//! What it does not do: decide whether anything failed, or print.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rmcp::ServiceError;
use rmcp::model::ErrorData;
use rmcp::service::ClientInitializeError;

/// Why a connection ended, when the transport knows it (e.g. "the server exited with status
/// 3"), and the last lines a stdio server wrote to stderr (a server says why it stops there:
/// "cannot open database: permission denied"). Shared by the transport, which notes them, and
/// the connection, which reads them. The first reason noted stays.
#[derive(Debug, Clone, Default)]
pub(crate) struct EndReason {
    reason: Arc<Mutex<Option<String>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

/// How many of a server's last stderr lines are kept, and how many a reason quotes.
const STDERR_KEPT: usize = 20;
const STDERR_QUOTED: usize = 3;
/// The most of one stderr line that is kept.
const STDERR_LINE_CHARS: usize = 300;

impl EndReason {
    /// Notes why the connection ended, unless a reason is already known.
    pub(crate) fn note(&self, reason: String) {
        let mut slot = crate::sync::lock(&self.reason);
        if slot.is_none() {
            *slot = Some(reason);
        }
    }

    /// Whether anything says why the connection ended: a reason noted, or words on stderr.
    pub(crate) fn knows_why(&self) -> bool {
        crate::sync::lock(&self.reason).is_some() || !crate::sync::lock(&self.stderr).is_empty()
    }

    /// The server wrote `line` to stderr (kept cut short, the last few only).
    pub(crate) fn heard(&self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let mut kept: String = line.chars().take(STDERR_LINE_CHARS).collect();
        if kept.len() < line.len() {
            kept.push('…');
        }
        let mut lines = crate::sync::lock(&self.stderr);
        if lines.len() >= STDERR_KEPT {
            lines.pop_front();
        }
        lines.push_back(kept);
    }

    /// The reason noted, if any, with what the server last said on stderr.
    pub(crate) fn get(&self) -> Option<String> {
        let reason = crate::sync::lock(&self.reason).clone()?;
        Some(self.with_last_words(reason))
    }

    /// `reason`, and the server's last lines on stderr when it wrote any.
    pub(crate) fn with_last_words(&self, reason: String) -> String {
        let lines = crate::sync::lock(&self.stderr);
        if lines.is_empty() {
            return reason;
        }
        let last: Vec<&str> = lines
            .iter()
            .skip(lines.len().saturating_sub(STDERR_QUOTED))
            .map(|l| shown_line(l))
            .collect();
        format!(
            "{reason}; it last wrote on stderr: \"{}\"",
            last.join(" / ")
        )
    }
}

/// `line` as a reason may quote it: a line with control characters (escape sequences among
/// them) is not quoted.
fn shown_line(line: &str) -> &str {
    if line.chars().any(char::is_control) {
        // Rare: a line with control characters is shown without them.
        return "(a line with control characters)";
    }
    line
}

/// Why a connection that nobody closed ended.
pub(crate) fn disconnected(ended: &EndReason) -> String {
    ended
        .get()
        .unwrap_or_else(|| ended.with_last_words("the server closed the connection".to_owned()))
}

/// Why a request to a server failed.
pub(crate) fn service(e: &ServiceError, ended: &EndReason) -> String {
    match e {
        ServiceError::McpError(data) => error_data(data),
        ServiceError::TransportClosed => ended
            .get()
            .unwrap_or_else(|| "the connection to the server closed before it answered".to_owned()),
        ServiceError::TransportSend(error) => ended.get().unwrap_or_else(|| {
            answer_too_large(&*error.error)
                .or_else(|| unreachable_http(&*error.error))
                .unwrap_or_else(|| {
                    format!(
                        "the host could not send to the server: {}",
                        error_chain(&*error.error)
                    )
                })
        }),
        ServiceError::UnexpectedResponse => {
            "the server answered with a result of the wrong kind".to_owned()
        }
        ServiceError::Cancelled { reason } => match reason {
            Some(reason) => format!("the request was cancelled: {reason}"),
            None => "the request was cancelled".to_owned(),
        },
        ServiceError::Timeout { timeout } => {
            format!("the server did not answer within {timeout:?}")
        }
        other => format!("the request failed: {other}"),
    }
}

/// Why a connection could not be set up.
pub(crate) fn connect(e: &ClientInitializeError, ended: &EndReason) -> String {
    use ClientInitializeError as E;
    let before_ready = || {
        let why = crate::sync::lock(&ended.reason).clone();
        ended.with_last_words(why.map_or_else(
            || "the server closed the connection before it was ready".to_owned(),
            |why| format!("{why} before it was ready"),
        ))
    };
    match e {
        E::ConnectionClosed(_) | E::ExpectedInitResponse(None) | E::ExpectedInitResult(None) => {
            before_ready()
        }
        E::ExpectedInitResponse(Some(message)) => format!(
            "the server answered `initialize` with {}",
            describe_message(message)
        ),
        E::ExpectedInitResult(Some(_)) => {
            "the server answered `initialize` with the result of another request".to_owned()
        }
        E::ConflictInitResponseId(expected, got)
        | E::UncorrelatedErrorResponse {
            expected,
            received: got,
        } => format!("the server answered `initialize` (id {expected}) under another id ({got})"),
        // The server stopped before it could be written to: why it stopped says more than the
        // broken pipe.
        E::TransportError { error, context } => match ended.knows_why() {
            true => before_ready(),
            false => unreachable_http(&*error.error).unwrap_or_else(|| {
                format!(
                    "the host could not send to the server ({context}): {}",
                    error_chain(&*error.error)
                )
            }),
        },
        E::JsonRpcError(data) => format!("the server refused `initialize`: {}", error_data(data)),
        E::NoCompatibleProtocolVersion {
            client_supported,
            server_supported,
        } => {
            let list = |v: &[rmcp::model::ProtocolVersion]| {
                v.iter()
                    .map(|v| v.as_str().to_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "the server speaks none of the protocol versions the host does (the host: {}; \
                 the server: {})",
                list(client_supported),
                list(server_supported)
            )
        }
        E::LegacyFallbackFailed { fallback, .. } => connect(fallback, ended),
        other => other.to_string(),
    }
}

/// A JSON-RPC error from the server: its message, its code with the code's meaning, and its
/// data (compact, cut short).
pub(crate) fn error_data(e: &ErrorData) -> String {
    let meaning = match e.code.0 {
        -32700 => Some("parse error"),
        -32600 => Some("invalid request"),
        -32601 => Some("method not found"),
        -32602 => Some("invalid params"),
        -32603 => Some("internal error"),
        -32042 => Some("URL elicitation required"),
        -32021 => Some("missing capability"),
        _ => None,
    };
    let code = match meaning {
        Some(m) => format!("code {}, {m}", e.code.0),
        None => format!("code {}", e.code.0),
    };
    let message = e.message.trim();
    let message = if message.is_empty() {
        "(no message)"
    } else {
        message
    };
    let mut s = format!(
        "the server answered with an error: {} ({code})",
        shown(message.as_bytes(), 300)
    );
    if let Some(data) = &e.data {
        let data = data.to_string();
        s.push_str(&format!("; data: {}", shown(data.as_bytes(), 200)));
    }
    s
}

/// What a message the server sent is, in a few words (its kind and method, or its error).
fn describe_message(
    message: &rmcp::service::RxJsonRpcMessage<rmcp::service::RoleClient>,
) -> String {
    use rmcp::model::JsonRpcMessage as M;
    let method = |v: serde_json::Value| {
        v.get("method")
            .and_then(serde_json::Value::as_str)
            .map(|m| format!("`{}`", shown(m.as_bytes(), 80)))
            .unwrap_or_else(|| "(no method)".to_owned())
    };
    match message {
        M::Request(r) => format!(
            "a request of its own, {}",
            method(serde_json::to_value(&r.request).unwrap_or_default())
        ),
        M::Notification(n) => format!(
            "a notification, {}",
            method(serde_json::to_value(&n.notification).unwrap_or_default())
        ),
        M::Response(_) => "the response to another request".to_owned(),
        M::Error(e) => error_data(&e.error),
    }
}

/// An error with its causes, one after the other.
/// An HTTP server that could not be reached, in words: nothing listening, a name that does not
/// resolve, no answer in time, a certificate refused — instead of the HTTP client's chain of
/// wrappers ("Client error: error sending request for url (…)"). `None` when `e` is no such
/// failure.
/// The words for a server's answer larger than the host reads (rmcp's limit on an HTTP
/// response body), if that is what `e` is.
pub(crate) fn answer_too_large(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    type Wrapped = rmcp::transport::streamable_http_client::StreamableHttpError<reqwest::Error>;
    let mut current = Some(e);
    while let Some(c) = current {
        if let Some(Wrapped::ResponseBodyTooLarge { max_size }) = c.downcast_ref::<Wrapped>() {
            return Some(format!(
                "the server's answer was larger than {}, the most the host reads",
                size(*max_size)
            ));
        }
        current = c.source();
    }
    None
}

/// The words for an event stream rmcp cut off because one event outgrew its limit, if that is
/// what `e` is (rmcp's error for it is private: it is known by its words).
pub(crate) fn event_too_large(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let text = error_chain(e);
    let at = text.find("SSE event exceeded the maximum size of ")?;
    let rest = text.get(at + "SSE event exceeded the maximum size of ".len()..)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let limit = digits
        .parse::<usize>()
        .map_or_else(|_| "the host's limit".to_owned(), size);
    Some(format!(
        "the server sent an event larger than {limit}, the most the host reads; the host closed the stream"
    ))
}

/// A byte count in words: whole MiB or KiB where it is one.
fn size(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

pub(crate) fn unreachable_http(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    type Wrapped = rmcp::transport::streamable_http_client::StreamableHttpError<reqwest::Error>;
    let mut current = Some(e);
    let mut found = None;
    while let Some(c) = current {
        if let Some(r) = c.downcast_ref::<reqwest::Error>() {
            found = Some(r);
            break;
        }
        if let Some(Wrapped::Client(r)) = c.downcast_ref::<Wrapped>() {
            found = Some(r);
            break;
        }
        current = c.source();
    }
    let r = found?;
    if !(r.is_connect() || r.is_timeout()) {
        return None;
    }
    let url = r
        .url()
        .map_or_else(|| "the server's address".to_owned(), |u| u.to_string());
    // The operating system's word on it, if the chain has one.
    let mut io_kind = None;
    let mut text = String::new();
    let mut source = std::error::Error::source(r);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            io_kind = Some(io.kind());
        }
        text.push_str(&cause.to_string().to_lowercase());
        text.push(' ');
        source = cause.source();
    }
    use std::io::ErrorKind as K;
    Some(match io_kind {
        Some(K::ConnectionRefused) => {
            format!("nothing is listening at {url} (connection refused)")
        }
        Some(K::TimedOut) => format!("{url} did not answer in time"),
        _ if r.is_timeout() => format!("{url} did not answer in time"),
        _ if text.contains("dns error") || text.contains("failed to lookup") => {
            let host = r.url().and_then(|u| u.host_str().map(str::to_owned));
            format!(
                "the name {} does not resolve",
                host.unwrap_or_else(|| url.clone())
            )
        }
        _ if text.contains("certificate") || text.contains("tls") => {
            format!("the secure connection to {url} was refused (its certificate or TLS)")
        }
        _ => format!("the host cannot connect to {url}"),
    })
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        source = cause.source();
    }
    s
}

/// At most this many bytes of a line a server sent are quoted in a reason.
pub(crate) const QUOTED_BYTES: usize = 120;

/// Peer bytes as a person may read them: quoted, escaped (control characters, quotes and
/// invalid UTF-8 shown as escapes, so nothing reaches a terminal raw), and cut after `max`
/// bytes with an ellipsis.
pub(crate) fn shown(bytes: &[u8], max: usize) -> String {
    let cut = bytes.len() > max;
    let head = bytes.get(..max).unwrap_or(bytes);
    let text = String::from_utf8_lossy(head);
    let mut s: String = text.escape_debug().collect();
    if cut {
        s.push('…');
    }
    format!("\"{s}\"")
}

/// Why a line a server sent is not a JSON-RPC message, in a few words: serde_json's error,
/// with its most common cases said plainly.
pub(crate) fn not_json(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if text.starts_with("recursion limit exceeded") {
        "nested too deeply".to_owned()
    } else if e.is_eof() {
        format!("cut off: {text}")
    } else {
        format!("not JSON: {text}")
    }
}

/// How a child process ended, as the end of "the server …".
pub(crate) fn exit(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    "exited".to_owned()
}

/// Counts one more occurrence of something a peer can make happen thousands of times, and
/// whether the log should say it now: the 1st, 2nd, 4th, 8th… time (with the count), so a
/// flood costs a few lines, not one line each.
pub(crate) fn worth_saying(counter: &std::sync::atomic::AtomicU64) -> Option<u64> {
    let count = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    count.is_power_of_two().then_some(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ErrorCode;

    #[test]
    fn peer_text_is_quoted_escaped_and_cut() {
        assert_eq!(shown(b"a\x1b[31mb\"", 100), r#""a\u{1b}[31mb\"""#);
        assert_eq!(shown(b"abcdef", 3), "\"abc…\"");
        assert_eq!(shown(&[0xff, b'a'], 10), "\"\u{fffd}a\"");
    }

    #[test]
    fn errors_read_as_sentences_never_as_rmcp_dumps() {
        let ended = EndReason::default();
        let data = ErrorData::new(
            ErrorCode(-32603),
            "boom",
            Some(serde_json::json!({"detail": 1})),
        );
        let said = service(&ServiceError::McpError(data), &ended);
        assert_eq!(
            said,
            "the server answered with an error: \"boom\" (code -32603, internal error); data: \"{\\\"detail\\\":1}\""
        );
        assert!(!said.contains("ErrorData"), "{said}");
        let said = service(&ServiceError::TransportClosed, &ended);
        assert_eq!(
            said,
            "the connection to the server closed before it answered"
        );
        ended.note("the server exited with status 3".into());
        ended.note("something later".into());
        assert_eq!(
            service(&ServiceError::TransportClosed, &ended),
            "the server exited with status 3"
        );
        assert_eq!(
            connect(&ClientInitializeError::ConnectionClosed("x".into()), &ended),
            "the server exited with status 3 before it was ready"
        );
    }

    #[test]
    fn json_errors_are_said_plainly() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        let e = serde_json::from_str::<serde_json::Value>(&deep).unwrap_err();
        assert_eq!(not_json(&e), "nested too deeply");
        let e = serde_json::from_str::<serde_json::Value>("oops").unwrap_err();
        assert!(
            not_json(&e).starts_with("not JSON: expected"),
            "{}",
            not_json(&e)
        );
        let e = serde_json::from_str::<serde_json::Value>("{\"a\":").unwrap_err();
        assert!(not_json(&e).starts_with("cut off"), "{}", not_json(&e));
    }

    #[test]
    fn a_flood_is_said_at_powers_of_two() {
        let refused = std::sync::atomic::AtomicU64::new(0);
        let said: Vec<u64> = (0..2000).filter_map(|_| worth_saying(&refused)).collect();
        assert_eq!(said, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    }

    #[test]
    fn a_reason_quotes_the_servers_last_stderr_lines() {
        let ended = EndReason::default();
        for line in [
            "starting",
            "",
            "config at /etc/x",
            "\x1b[31mred\x1b[0m",
            "cannot open database",
        ] {
            ended.heard(line);
        }
        assert_eq!(ended.get(), None, "no reason yet");
        assert!(ended.knows_why());
        ended.note("the server exited with status 3".into());
        assert_eq!(
            ended.get().unwrap(),
            "the server exited with status 3; it last wrote on stderr: \"config at /etc/x / \
             (a line with control characters) / cannot open database\""
        );
        let long = "x".repeat(1000);
        let quiet = EndReason::default();
        quiet.heard(&long);
        quiet.note("gone".into());
        assert!(quiet.get().unwrap().len() < 400, "a long line is cut");
    }
}
