//! [`Call`]: one tool call as every transport sees it — the request context (the peer to send
//! to, the cancellation token, the call's JSON-RPC id), the server's [`AskConfig`] and the
//! protocol era the call is in.
//!
//! [`Ask`](crate::Ask) holds one and hands it to the transport of the era it picks (`push`, the
//! seed-000 `interaction/create`); none of them needs anything of `Ask` itself, so they sit
//! below it.

use std::sync::{Arc, OnceLock};

use interlude_protocol::ProtocolEra;
use rmcp::model::{ClientCapabilities, InitializeRequestParams};
use rmcp::service::{RequestContext, RoleServer};

use crate::config::AskConfig;

/// The parts of a tool call that asking a person needs, whatever the era.
pub(crate) struct Call {
    pub(crate) context: RequestContext<RoleServer>,
    pub(crate) config: AskConfig,
    pub(crate) era: ProtocolEra,
    /// The client's capabilities, decoded from the request's `_meta` (2026-07-28) or shared
    /// with the session (2025) the first time a question asks what the client supports: rmcp
    /// decodes or copies them anew on every `client_capabilities()`.
    capabilities: OnceLock<Declared>,
}

/// Where a call's client capabilities come from.
// As large as the `Option<ClientCapabilities>` kept before; boxing it would cost every
// 2026-07-28 call an allocation to save bytes in a 2025 call's `Call`.
#[allow(clippy::large_enum_variant)]
enum Declared {
    /// The request's own `_meta` (or nowhere).
    Decoded(Option<ClientCapabilities>),
    /// The session's `initialize` (a 2025 call whose `_meta` declares none).
    Session(Arc<InitializeRequestParams>),
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
        // As rmcp's `RequestContext::client_capabilities`: `_meta` first, then what the
        // session's `initialize` declared. (rmcp skips the second for a session that declared
        // its version inline, 2026-07-28 without `initialize` — which has no `initialize` to
        // read. The era is no guide: a 2025-11-25 task's questions go as round trips.)
        let declared =
            self.capabilities
                .get_or_init(|| match self.context.meta.client_capabilities() {
                    Some(declared) => Declared::Decoded(Some(declared)),
                    None => self
                        .context
                        .peer
                        .peer_info()
                        .map_or(Declared::Decoded(None), Declared::Session),
                });
        match declared {
            Declared::Decoded(declared) => declared.as_ref(),
            Declared::Session(info) => Some(&info.capabilities),
        }
    }
}
