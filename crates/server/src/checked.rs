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
        self.inner.send(item)
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
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
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
    fn a_method_of_the_servers_own_is_left_alone() {
        assert!(misfit(&custom("acme/frobnicate", json!([1]))).is_none());
    }
}
