//! Which client request a server's request belongs to, said on the wire.
//!
//! SEP-2260 (2025-11-25) requires a server's `elicitation/create` to be associated with a
//! request the client has in flight, but gives the association no wire field: over streamable
//! HTTP the client sees which response stream a request arrived on; over stdio it cannot tell
//! which of several concurrent tool calls raised it. Interlude's server toolkit therefore names
//! the originating request in the request's `_meta`, under a vendor key, and Interlude's host
//! reads it. Hosts that do not know the key ignore it, as `_meta` keys are meant to be.

/// The `_meta` key of a server-to-client request that holds the JSON-RPC id (number or string,
/// exactly as the client sent it) of the client request it was raised by.
///
/// ```
/// assert_eq!(interlude_protocol::RELATED_REQUEST_ID_META, "dev.interlude/relatedRequestId");
/// ```
pub const RELATED_REQUEST_ID_META: &str = "dev.interlude/relatedRequestId";
