//! [`Call`]: one tool call as every transport sees it — the request context (the peer to send
//! to, the cancellation token, the call's JSON-RPC id), the server's [`AskConfig`] and the
//! protocol era the call is in.
//!
//! [`Ask`](crate::Ask) holds one and hands it to the transport of the era it picks (`push`, the
//! seed-000 `interaction/create`); none of them needs anything of `Ask` itself, so they sit
//! below it.

use std::sync::OnceLock;

use interlude_protocol::ProtocolEra;
use rmcp::model::ClientCapabilities;
use rmcp::service::{RequestContext, RoleServer};

use crate::config::AskConfig;

/// The parts of a tool call that asking a person needs, whatever the era.
pub(crate) struct Call {
    pub(crate) context: RequestContext<RoleServer>,
    pub(crate) config: AskConfig,
    pub(crate) era: ProtocolEra,
    /// The client's capabilities, decoded from the request's `_meta` (2026-07-28) or taken
    /// from the session (2025) the first time a question asks what the client supports: rmcp
    /// decodes them anew on every `client_capabilities()`.
    capabilities: OnceLock<Option<ClientCapabilities>>,
}

impl Call {
    /// The call served with `context`, asking with `config`; its era is the one the client
    /// negotiated (the push era when the context names none).
    pub(crate) fn new(config: &AskConfig, context: RequestContext<RoleServer>) -> Self {
        let era = context
            .protocol_version()
            .map_or(ProtocolEra::Push, |v| ProtocolEra::of(&v));
        Call {
            context,
            config: config.clone(),
            era,
            capabilities: OnceLock::new(),
        }
    }

    /// The capabilities the client declared for this call (see `capabilities`).
    pub(crate) fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.capabilities
            .get_or_init(|| self.context.client_capabilities())
            .as_ref()
    }
}
