//! The vendor `_meta` key that names the tool call a push-era `elicitation/create` belongs to.
//!
//! SEP-2260 requires a 2025-era `elicitation/create` to be associated with a client request that
//! is still in flight, but gives the association no wire field. Over streamable HTTP the client
//! can tell from the POST stream the request arrived on; over stdio every message shares one pipe,
//! and with several tool calls in flight the client cannot tell which one raised it. Interlude's
//! server toolkit therefore writes the JSON-RPC id of the `tools/call` it is serving into the
//! request's `_meta` under [`RELATED_REQUEST_ID_KEY`], as the same JSON number or string the
//! client sent, and Interlude's host reads it to tie the elicitation to its call exactly.
//!
//! The key is an extension, not part of any MCP revision: a host that does not know it ignores it
//! (unknown `_meta` keys carry no meaning), and a host that knows it must still cope with
//! servers that never send it. Nothing here applies to 2026-07-28 `input_required`, where the
//! question travels inside the result of the call it belongs to.
//!
//! This module only names the key; writing and reading it is left to the two sides.

/// `_meta` key of a push-era `elicitation/create` whose value is the JSON-RPC id (number or
/// string, exactly as the client sent it) of the `tools/call` the elicitation belongs to.
///
/// # Example
/// ```
/// use interlude_protocol::RELATED_REQUEST_ID_KEY;
/// use serde_json::json;
///
/// let params = json!({
///     "_meta": { RELATED_REQUEST_ID_KEY: 7 },
///     "message": "Please provide your GitHub username",
///     "requestedSchema": { "type": "object", "properties": {} },
/// });
/// assert_eq!(params["_meta"]["dev.interlude/relatedRequestId"], json!(7));
/// ```
pub const RELATED_REQUEST_ID_KEY: &str = "dev.interlude/relatedRequestId";
