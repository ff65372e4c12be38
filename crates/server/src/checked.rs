//! A request of a method the server knows, whose params do not fit it, answered with -32602
//! naming the field — instead of rmcp's "method not found".
//!
//! rmcp types each request by its method; when a known method's params do not parse
//! (`"inputResponses": [1]` on a `tools/call`), it hands the request on as a *custom* request,
//! which a server answers "method not found: tools/call" (-32601): the wrong code, and no word
//! on what is wrong. [`checked`] wraps a server's transport and answers such a request itself,
//! with -32602, a message naming the field (`params.inputResponses must be an object, found an
//! array`) and `error.data.field`; the server never sees it. Every other message passes through
//! untouched.
//!
//! A line that is not JSON at all (`1e400`, nesting deeper than 128, garbage) or longer than
//! [`MAX_LINE`] never reaches rmcp as a message (its codec drops it, and the client waits for
//! ever): [`checked_lines`] wraps a byte stream and turns each such line into a marker the
//! [`Checked`] transport answers — -32700 (parse error) or -32600 (too large), with `id: null`,
//! as JSON-RPC asks.
//!
//! A client's response whose `id` is a string of digits (`"0"`) or a number in float form (`1.0`)
//! answers none of the server's requests (it numbers them with integers), though rmcp would
//! match it to one: both wrappers refuse it with -32600 saying why.
//!
//! What it does not do: judge params that parse (the server's handlers do), or touch a request
//! of a method rmcp does not know (a server's own custom methods).

use std::borrow::Cow;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, CustomRequest, ErrorCode, ErrorData, JsonRpcError,
    JsonRpcVersion2_0, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};

/// A server's transport whose malformed requests of known methods are answered -32602 (see the
/// module documentation).
///
/// ```no_run
/// # async fn run<S: rmcp::ServerHandler>(server: S) -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt;
/// use rmcp::transport::async_rw::AsyncRwTransport;
/// let (stdin, stdout) = interlude_server::stdio();
/// let transport = interlude_server::checked(AsyncRwTransport::new_server(stdin, stdout));
/// server.serve(transport).await?.waiting().await?;
/// # Ok(()) }
/// ```
pub fn checked<T: Transport<RoleServer>>(inner: T) -> Checked<T> {
    Checked { inner }
}

/// See [`checked`].
#[derive(Debug)]
pub struct Checked<T> {
    inner: T,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Checked<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner
            .send(crate::legacy_task::wire::with_legacy_terms(item))
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let message = self.inner.receive().await?;
            let ClientJsonRpcMessage::Request(request) = &message else {
                return Some(message);
            };
            let ClientRequest::CustomRequest(custom) = &request.request else {
                return Some(message);
            };
            // A line that was no message: answered with `id: null`.
            if custom.method == UNREADABLE {
                let error = unreadable_error(custom);
                tracing::info!(
                    "refused a line that is no JSON-RPC message: {}",
                    error.message
                );
                let reply = ServerJsonRpcMessage::Error(JsonRpcError {
                    jsonrpc: JsonRpcVersion2_0,
                    id: None,
                    error,
                });
                let _ = self.inner.send(reply).await;
                continue;
            }
            let Some(error) = misfit(custom) else {
                return Some(message);
            };
            let id: RequestId = request.id.clone();
            tracing::info!(method = %custom.method, "refused a request whose params do not fit: {}", error.message);
            let reply = ServerJsonRpcMessage::Error(JsonRpcError {
                jsonrpc: JsonRpcVersion2_0,
                id: Some(id),
                error,
            });
            // A client that is gone cannot be answered; the next receive says so.
            let _ = self.inner.send(reply).await;
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The longest line [`checked_lines`] passes on; a longer one is answered -32600 and dropped.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// The method of the marker line [`checked_lines`] puts in place of a line that is no message.
const UNREADABLE: &str = "interlude/unreadable-line";

/// The error for a marker line: its code and message, as [`checked_lines`] wrote them.
fn unreadable_error(marker: &CustomRequest) -> ErrorData {
    let params = marker.params.as_ref();
    let code = params
        .and_then(|p| p.get("code"))
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or(ErrorCode::PARSE_ERROR.0);
    let message = params
        .and_then(|p| p.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("the line is not a JSON-RPC message")
        .to_owned();
    ErrorData::new(ErrorCode(code), message, None)
}

/// A server's input as lines, each line that is not JSON (or is longer than [`MAX_LINE`])
/// replaced by a marker that [`Checked`] answers -32700 (or -32600); see the module
/// documentation. Wrap the reader half of a stdio (or any byte-stream) transport with it, and
/// the transport with [`checked`].
///
/// ```no_run
/// # async fn run<S: rmcp::ServerHandler>(server: S) -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt;
/// use rmcp::transport::async_rw::AsyncRwTransport;
/// let (stdin, stdout) = interlude_server::stdio();
/// let transport = AsyncRwTransport::new_server(interlude_server::checked_lines(stdin), stdout);
/// server.serve(interlude_server::checked(transport)).await?.waiting().await?;
/// # Ok(()) }
/// ```
pub fn checked_lines<R>(reader: R) -> CheckedLines<R> {
    CheckedLines {
        inner: reader,
        line: Vec::new(),
        out: Vec::new(),
        sent: 0,
        skipping: false,
        done: false,
    }
}

/// The stdio transport of a toolkit server, checked both ways: [`stdio()`](crate::stdio) with
/// [`checked_lines`] on its input and [`checked`] around it. Everything the toolkit offers
/// works through it, the 2025-11-25 tasks of a [`TaskServer`](crate::task::TaskServer)
/// included (their `params.task` and `tasks/*` methods need its input checks).
///
/// ```no_run
/// # async fn run<S: rmcp::ServerHandler>(server: S) -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt;
/// server.serve(interlude_server::checked_stdio()).await?.waiting().await?;
/// # Ok(()) }
/// ```
pub fn checked_stdio() -> Checked<
    rmcp::transport::async_rw::AsyncRwTransport<
        RoleServer,
        CheckedLines<crate::stdio::StdinReader>,
        crate::stdio::StdoutWriter,
    >,
> {
    let (stdin, stdout) = crate::stdio::stdio();
    checked(rmcp::transport::async_rw::AsyncRwTransport::new_server(
        checked_lines(stdin),
        stdout,
    ))
}

/// See [`checked_lines`].
#[derive(Debug)]
pub struct CheckedLines<R> {
    inner: R,
    /// The line being read (not yet complete).
    line: Vec<u8>,
    /// Bytes ready for the reader, and how many of them it took.
    out: Vec<u8>,
    sent: usize,
    /// The rest of a line that was too long is being thrown away.
    skipping: bool,
    done: bool,
}

impl<R> CheckedLines<R> {
    /// Adds `bytes` and moves the complete lines to `out`, each checked. Only the new bytes are
    /// searched for newlines: a long line costs its length once, not once per chunk.
    fn take_lines(&mut self, bytes: &[u8]) {
        let mut bytes = bytes;
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            let (head, tail) = bytes.split_at(end + 1);
            bytes = tail;
            if std::mem::take(&mut self.skipping) {
                self.line.clear();
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            line.extend_from_slice(head);
            self.check(&line);
        }
        if !self.skipping {
            self.line.extend_from_slice(bytes);
        }
        if !self.skipping && self.line.len() > MAX_LINE {
            self.line.clear();
            self.skipping = true;
            self.marker(
                ErrorCode::INVALID_REQUEST.0,
                &format!("the line is longer than {MAX_LINE} bytes"),
            );
        } else if self.skipping {
            self.line.clear();
        }
    }

    /// `line` (with its newline) to `out` as it is when it is JSON, a marker otherwise.
    fn check(&mut self, line: &[u8]) {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if body.iter().all(u8::is_ascii_whitespace) {
            self.out.extend_from_slice(line);
            return;
        }
        // What no JSON value can be read from first (too deep, `1e400`): a parse error, whatever
        // the shape around it.
        let judged = beyond_a_value(body)
            .map_err(|why| (ErrorCode::PARSE_ERROR.0, why))
            .and_then(|()| match serde_json::from_slice::<Envelope<'_>>(body) {
                Ok(envelope) => envelope.judge().map(|()| {
                    crate::legacy_task::wire::may_rewrite(envelope.method.as_deref(), body)
                }),
                // JSON, but not an object: no message at all.
                Err(e) if e.classify() == serde_json::error::Category::Data => Err((
                    ErrorCode::INVALID_REQUEST.0,
                    "a JSON-RPC message must be a JSON object".to_owned(),
                )),
                Err(e) => Err((
                    ErrorCode::PARSE_ERROR.0,
                    format!("the line is not JSON: {e}"),
                )),
            });
        match judged {
            Ok(true) => self
                .out
                .extend_from_slice(&crate::legacy_task::wire::rewritten_line(line)),
            Ok(false) => self.out.extend_from_slice(line),
            Err((code, why)) => self.marker(code, &why),
        }
    }

    fn marker(&mut self, code: i32, message: &str) {
        let marker = json!({
            "jsonrpc": "2.0", "id": UNREADABLE, "method": UNREADABLE,
            "params": {"code": code, "message": message},
        });
        if let Ok(mut bytes) = serde_json::to_vec(&marker) {
            bytes.push(b'\n');
            self.out.extend_from_slice(&bytes);
        }
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for CheckedLines<R> {
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
            if this.done {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = tokio::io::ReadBuf::new(&mut chunk);
            match std::pin::Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // The end: a last line without its newline is checked as it is.
                    this.done = true;
                    let last = std::mem::take(&mut this.line);
                    if !last.is_empty() && !this.skipping {
                        this.check(&last);
                    }
                }
                Poll::Ready(Ok(())) => {
                    let n = read.filled().len();
                    this.take_lines(chunk.get(..n).unwrap_or_default());
                }
            }
        }
    }
}

/// What a line must have to be a JSON-RPC message at all; everything else in it is skipped
/// unread.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
    result: Option<serde::de::IgnoredAny>,
    error: Option<serde::de::IgnoredAny>,
    id: Option<Value>,
}

impl Envelope<'_> {
    /// Whether it is a JSON-RPC 2.0 request, notification or response: the code and the words
    /// of -32600 when not.
    fn judge(&self) -> Result<(), (i32, String)> {
        if self.jsonrpc.as_deref() != Some("2.0") {
            return Err((
                ErrorCode::INVALID_REQUEST.0,
                "`jsonrpc` must be \"2.0\"".to_owned(),
            ));
        }
        if self.method.is_none() && self.result.is_none() && self.error.is_none() {
            return Err((
                ErrorCode::INVALID_REQUEST.0,
                "a JSON-RPC message has a `method`, a `result` or an `error`".to_owned(),
            ));
        }
        if self.method.is_none() {
            response_id_fits(self.id.as_ref())?;
        }
        Ok(())
    }
}

/// Whether a client's response may answer one of the server's requests by its `id`. The
/// server numbers its requests with integers; rmcp would also take the string `"0"` for 0 and
/// `1.0` for 1, so a response under an id the server never sent could settle its question.
/// Such a response is refused with -32600 saying why, and settles nothing.
fn response_id_fits(id: Option<&Value>) -> Result<(), (i32, String)> {
    let refused = |why: String| Err((ErrorCode::INVALID_REQUEST.0, why));
    match id {
        Some(Value::String(text)) if text.trim().parse::<i64>().is_ok() => refused(format!(
            "the `id` of a response must be the server's own: it numbers its requests, so \
             {} (a string) answers none of them",
            Value::String(shown_id(text))
        )),
        Some(Value::Number(n)) if n.is_f64() => refused(format!(
            "the `id` of a response must be the server's own: it numbers its requests with \
             integers, so {n} answers none of them"
        )),
        _ => Ok(()),
    }
}

/// At most 40 characters of an id, to be echoed.
fn shown_id(text: &str) -> String {
    text.chars().take(40).collect()
}

/// The deepest nesting a message may have (what `serde_json` reads into a value).
const MAX_DEPTH: usize = 128;

/// What well-formed JSON can still hold that no JSON value can be read from (so rmcp would drop
/// the line): nesting deeper than [`MAX_DEPTH`], or a number beyond a 64-bit float (`1e400`).
/// One pass, nothing allocated.
fn beyond_a_value(body: &[u8]) -> Result<(), String> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    while let Some(&b) = body.get(i) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!("the line is nested more than {MAX_DEPTH} deep"));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                // A number: its integer digits, and its exponent if it has one.
                let start = i;
                let mut digits = 0i64;
                let mut seen_point = false;
                let mut exponent: i64 = 0;
                let mut exponent_sign = 1i64;
                let mut in_exponent = false;
                let mut leading = true;
                i += usize::from(b == b'-');
                while let Some(&c) = body.get(i) {
                    match c {
                        b'0'..=b'9' if in_exponent => {
                            exponent = exponent
                                .saturating_mul(10)
                                .saturating_add(i64::from(c - b'0'));
                        }
                        b'0'..=b'9' if !seen_point => {
                            if !(leading && c == b'0') {
                                leading = false;
                                digits += 1;
                            }
                        }
                        b'0'..=b'9' => {}
                        b'.' => seen_point = true,
                        b'e' | b'E' => in_exponent = true,
                        b'+' if in_exponent => {}
                        b'-' if in_exponent => exponent_sign = -1,
                        _ => break,
                    }
                    i += 1;
                }
                // The power of ten of its leading digit; a 64-bit float ends near 1.8e308.
                if digits - 1 + exponent_sign * exponent > 308 {
                    let shown = String::from_utf8_lossy(
                        body.get(start..i.min(start + 40)).unwrap_or_default(),
                    )
                    .into_owned();
                    return Err(format!(
                        "the line has a number beyond a 64-bit float: {shown}"
                    ));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// The most of a request body [`checked_http`] reads to judge it; a larger one passes to rmcp as
/// it is (which has its own limit).
const MAX_BODY: usize = 4 * 1024 * 1024;

/// [`checked`] for a streamable HTTP endpoint, as an axum middleware: a POSTed request of a known
/// method whose params do not fit it is answered `200` with the JSON-RPC error (-32602 naming the
/// field), and never reaches rmcp; everything else passes untouched. It reads each POST body once
/// more than rmcp does.
///
/// ```no_run
/// # fn mcp_service() -> axum::Router { axum::Router::new() }
/// let app = axum::Router::new()
///     .nest("/mcp", mcp_service())
///     .layer(axum::middleware::from_fn(interlude_server::checked_http));
/// # let _ = app;
/// ```
pub async fn checked_http(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request.method() != http::Method::POST {
        return next.run(request).await;
    }
    let wire_2026 = request
        .headers()
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("2026"));
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return axum::response::IntoResponse::into_response((
                http::StatusCode::PAYLOAD_TOO_LARGE,
                format!("cannot read the request: {e}"),
            ));
        }
    };
    // A response under an id the server never sent (`"0"`, `1.0`): refused, as on stdio.
    let envelope = serde_json::from_slice::<Envelope<'_>>(&bytes).ok();
    if let Some(envelope) = &envelope
        && envelope.method.is_none()
        && let Err((code, why)) = response_id_fits(envelope.id.as_ref())
    {
        tracing::info!("refused a response: {why}");
        let reply = ServerJsonRpcMessage::Error(JsonRpcError {
            jsonrpc: JsonRpcVersion2_0,
            id: None,
            error: ErrorData::new(ErrorCode(code), why, None),
        });
        let body = serde_json::to_vec(&reply).unwrap_or_default();
        return axum::response::IntoResponse::into_response((
            http::StatusCode::BAD_REQUEST,
            [(http::header::CONTENT_TYPE, "application/json")],
            body,
        ));
    }
    // The 2025-11-25 experimental tasks (`legacy_task.rs`): the request in terms rmcp reads,
    // and, for the responses that may need it, the response in 2025-11-25's terms.
    let method = envelope.as_ref().and_then(|e| e.method.as_deref());
    let rewrite = !wire_2026 && crate::legacy_task::wire::may_rewrite(method, &bytes);
    let patch_response = rewrite
        || matches!(
            method,
            Some("initialize" | "server/discover" | "tools/list")
        );
    let bytes = match rewrite {
        true => {
            axum::body::Bytes::from(crate::legacy_task::wire::rewritten_line(&bytes).into_owned())
        }
        false => bytes,
    };
    if let Ok(ClientJsonRpcMessage::Request(request)) =
        serde_json::from_slice::<ClientJsonRpcMessage>(&bytes)
        && let ClientRequest::CustomRequest(custom) = &request.request
        && let Some(error) = misfit_on(custom, wire_2026)
    {
        tracing::info!(method = %custom.method, "refused a request whose params do not fit: {}", error.message);
        let reply = ServerJsonRpcMessage::Error(JsonRpcError {
            jsonrpc: JsonRpcVersion2_0,
            id: Some(request.id.clone()),
            error,
        });
        let body = serde_json::to_vec(&reply).unwrap_or_default();
        return axum::response::IntoResponse::into_response((
            http::StatusCode::OK,
            [(http::header::CONTENT_TYPE, "application/json")],
            body,
        ));
    }
    let response = next
        .run(axum::extract::Request::from_parts(
            parts,
            axum::body::Body::from(bytes),
        ))
        .await;
    if patch_response {
        crate::legacy_task::http::with_legacy_terms(response).await
    } else {
        response
    }
}

/// What each known method's params must hold where a client is likely to go wrong: the field
/// and the JSON type it must have. A field not listed is judged by rmcp's own reading.
fn fields_of(method: &str) -> Option<&'static [(&'static str, Shape)]> {
    use Shape::{Object, Str};
    Some(match method {
        "tools/call" => &[
            ("name", Str),
            ("arguments", Object),
            ("inputResponses", Object),
            ("requestState", Str),
            ("_meta", Object),
        ],
        "prompts/get" => &[
            ("name", Str),
            ("arguments", Object),
            ("inputResponses", Object),
            ("requestState", Str),
            ("_meta", Object),
        ],
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            &[("uri", Str), ("_meta", Object)]
        }
        "completion/complete" => &[("ref", Object), ("argument", Object), ("_meta", Object)],
        "logging/setLevel" => &[("level", Str), ("_meta", Object)],
        "initialize" => &[
            ("protocolVersion", Str),
            ("capabilities", Object),
            ("clientInfo", Object),
        ],
        "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
            &[("cursor", Str), ("_meta", Object)]
        }
        "ping" | "server/discover" => &[("_meta", Object)],
        _ => return None,
    })
}

/// The JSON type a field must have.
#[derive(Debug, Clone, Copy)]
enum Shape {
    Str,
    Object,
}

/// The -32602 error for custom request `request` when its method is one rmcp knows (so its
/// params did not fit), naming the field when one of the usual ones is of the wrong type.
fn misfit(request: &CustomRequest) -> Option<ErrorData> {
    misfit_on(request, false)
}

/// [`misfit`], `wire_2026` saying the transport already knows the request is on the 2026-07-28
/// wire (an HTTP request's `MCP-Protocol-Version` header).
fn misfit_on(request: &CustomRequest, wire_2026: bool) -> Option<ErrorData> {
    // Methods the 2026-07-28 revision removed are unknown on that wire: "method not found" is
    // the right answer there, and rmcp gives it.
    const REMOVED_IN_2026: [&str; 5] = [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ];
    if REMOVED_IN_2026.contains(&request.method.as_str()) && (wire_2026 || speaks_2026(request)) {
        return None;
    }
    let fields = fields_of(&request.method)?;
    let method = &request.method;
    let params = match &request.params {
        None | Some(Value::Null) => {
            return Some(invalid(
                format!("`params` of {method} are missing or do not fit it"),
                "params",
            ));
        }
        Some(Value::Object(params)) => params,
        Some(other) => {
            return Some(invalid(
                format!(
                    "`params` of {method} must be an object, found {}",
                    kind(other)
                ),
                "params",
            ));
        }
    };
    for (field, shape) in fields {
        let Some(value) = params.get(*field) else {
            continue;
        };
        let fits = match shape {
            Shape::Str => value.is_string(),
            // An absent optional object may be sent as `null`.
            Shape::Object => value.is_object() || value.is_null(),
        };
        if !fits {
            let wanted = match shape {
                Shape::Str => "a string",
                Shape::Object => "an object",
            };
            return Some(invalid(
                format!(
                    "`params.{field}` of {method} must be {wanted}, found {}",
                    kind(value)
                ),
                field,
            ));
        }
    }
    Some(invalid(
        format!("the params of {method} do not fit it (a field is missing or of the wrong type)"),
        "params",
    ))
}

/// Whether the request says it speaks a 2026 revision (its `_meta` names the protocol version,
/// as every request on the 2026-07-28 wire does).
fn speaks_2026(request: &CustomRequest) -> bool {
    request
        .params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("2026"))
}

fn invalid(message: String, field: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        message,
        Some(json!({ "field": field })),
    )
}

/// What a JSON value is, in words.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom(method: &str, params: Value) -> CustomRequest {
        CustomRequest::new(method, Some(params))
    }

    #[test]
    fn a_known_method_with_a_misfit_field_is_named() {
        let error = misfit(&custom(
            "tools/call",
            json!({"name": "x", "inputResponses": [1]}),
        ))
        .unwrap();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            error.message,
            "`params.inputResponses` of tools/call must be an object, found an array"
        );
        assert_eq!(error.data, Some(json!({"field": "inputResponses"})));
        let error = misfit(&custom("tools/call", json!({"name": 7}))).unwrap();
        assert_eq!(error.data, Some(json!({"field": "name"})));
        let error = misfit(&custom("resources/read", json!([]))).unwrap();
        assert_eq!(error.data, Some(json!({"field": "params"})));
    }

    #[test]
    fn a_method_removed_in_2026_is_left_to_say_not_found_on_that_wire() {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        assert!(misfit(&custom("logging/setLevel", json!({"_meta": meta}))).is_none());
        assert!(misfit(&custom("initialize", json!({"_meta": meta}))).is_none());
        // On a 2025 session it is a known method whose params do not fit.
        assert!(misfit(&custom("logging/setLevel", json!({"level": 3}))).is_some());
    }

    #[test]
    fn json_no_value_can_be_read_from_is_named() {
        assert!(beyond_a_value(br#"{"a": [1, 2.5e3, -0.1, 1e308, "1e999", {"b": null}]}"#).is_ok());
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert!(
            beyond_a_value(deep.as_bytes())
                .unwrap_err()
                .contains("nested")
        );
        let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(beyond_a_value(ok.as_bytes()).is_ok());
        assert!(
            beyond_a_value(br#"{"n": 1e400}"#)
                .unwrap_err()
                .contains("1e400")
        );
        let long = format!("{{\"n\": {}}}", "9".repeat(400));
        assert!(beyond_a_value(long.as_bytes()).is_err());
        assert!(beyond_a_value(br#"{"s": "\"[[[[", "n": 1E-400}"#).is_ok());
    }

    #[test]
    fn a_response_under_an_id_the_server_never_sent_is_refused() {
        for id in [json!("0"), json!(" 12"), json!(1.0), json!(1e0)] {
            let refused = response_id_fits(Some(&id)).unwrap_err();
            assert_eq!(refused.0, ErrorCode::INVALID_REQUEST.0, "{id}");
            assert!(
                refused.1.contains("answers none of them"),
                "{id}: {}",
                refused.1
            );
        }
        for id in [json!(0), json!(7), json!("abc"), json!(null)] {
            assert!(response_id_fits(Some(&id)).is_ok(), "{id}");
        }
        assert!(response_id_fits(None).is_ok());
    }

    #[test]
    fn a_method_of_the_servers_own_is_left_alone() {
        assert!(misfit(&custom("acme/frobnicate", json!([1]))).is_none());
    }
}
