//! The host engine, **sans-IO**: every decision a host makes about a server's request for a
//! person, and nothing else.
//!
//! The engine takes [`Input`]s (a request arrived, the person answered, the server went away…)
//! with the current time, and returns [`Effect`]s (reply to the server, queue and present a
//! request, withdraw one, write an audit record). Its parts:
//! - `engine.rs`: [`Engine`], its ids ([`RequestId`], [`CallId`], [`ServerId`]), [`Input`],
//!   [`Effect`], [`Reply`], and what the host [`Declared`] to servers, as data;
//! - `request.rs`: the request as surfaces see it, [`RequestView`] with one closed enum of kinds,
//!   [`RequestKind`] (`Form`, `Url`), matched exhaustively by every surface;
//! - `admission.rs`: parse the request at the boundary, refuse an undeclared mode or a schema
//!   outside the subset with -32602 naming the field, refuse oversized messages;
//!   `admission/interaction.rs` admits the seed-000 draft's `interaction/create` by the same
//!   rules (a `prompt` is a form, a `ua` a link) and [`Reply::into_interaction_result`] answers
//!   it in the draft's shapes;
//! - `inbox.rs`: one request presented at a time, the rest queued in arrival order, from every
//!   server and both protocol eras alike;
//! - answers: the person's [`Answer`] is validated with the same rules as the server toolkit and
//!   defaults are applied before anything leaves; an invalid answer never leaves, it goes back to
//!   the surface as [`Effect::Invalid`];
//! - URL requests: the link is judged by the URL safety rules (`url_safety.rs`) before it is
//!   shown; consent comes before anything is looked up; the host name is resolved only after
//!   consent ([`Effect::Resolve`]) and the link opened only after that check
//!   ([`Effect::Open`]); a 2025 completion notification closes the flow ([`Effect::Completed`]);
//! - `rate.rs`: per-server rate limiting ([`EngineConfig`]);
//! - `audit.rs`: one [`AuditRecord`] per request and per outcome, with values of
//!   sensitive-looking fields redacted;
//! - [`bridge`]: the bridge of one MCP Apps view ([`bridge::ViewBridge`]): the handshake and
//!   the gate, the view's calls to its own server (visibility, rate), questions for the person,
//!   sizes and display modes, teardown, in every dialect;
//! - [`csp`]: the Content-Security-Policy and iframe `allow` list of an app view, built from
//!   what its resource declares;
//! - [`url_safety`]: the rules for a link a server asks a person to open ([`check_url`]): what is
//!   refused, what is flagged, and how a consent screen shows it.
//!
//! It has no clock, no ids of its own, no channels, no rmcp service, no HTTP, terminal or
//! browser code: the host runtime drives it, surfaces render its [`RequestView`]s.
//!
//! # Example
//! ```
//! use interlude_engine::{Answer, Declared, Effect, Engine, EngineConfig, Incoming, Input, Reply,
//!                        RequestId, ServerId};
//! use interlude_protocol::ProtocolEra;
//! use serde_json::json;
//!
//! let mut engine = Engine::new(EngineConfig::default());
//! let id = RequestId(1);
//! let effects = engine.handle(Input::Request(Incoming {
//!     id,
//!     server: ServerId(1),
//!     server_name: "demo".into(),
//!     call: None,
//!     era: ProtocolEra::Push,
//!     declared: Declared::FORM,
//!     params: json!({"message": "Your GitHub username?",
//!                    "requestedSchema": {"type": "object",
//!                        "properties": {"login": {"type": "string", "minLength": 1}},
//!                        "required": ["login"]}}).into(),
//! }), 0);
//! assert!(effects.contains(&Effect::Present(id)));
//!
//! let login = json!({"login": "octocat"}).as_object().cloned().unwrap_or_default();
//! let effects = engine.handle(Input::Answer { id, answer: Answer::Accepted(login) }, 10);
//! assert!(effects.iter().any(|e| matches!(e,
//!     Effect::Reply { reply: Reply::Answered(Answer::Accepted(_)), .. })));
//! ```

mod admission;
mod audit;
pub mod bridge;
pub mod csp;
mod engine;
mod inbox;
mod rate;
mod request;
pub mod url_safety;

pub use admission::{ElicitParams, ElicitationMode};
pub use audit::{AuditEvent, AuditRecord, redact};
pub use engine::{
    CallId, Declared, Effect, Engine, EngineConfig, Incoming, Input, Notice, Reply, RequestId,
    ServerId, ViewId, ViewInput,
};
pub use interlude_protocol::Answer;
pub use request::{
    AppFormRequest, AppStage, FormRequest, RequestKind, RequestMethod, RequestView, UrlRequest,
    UrlStage,
};
pub use url_safety::{DevOrigin, UrlCheck, UrlDisplay, UrlPolicy, check_url};

/// JSON-RPC error codes the engine answers with.
pub mod codes {
    /// Invalid params: undeclared mode, schema outside the subset, oversized request.
    pub const INVALID_PARAMS: i32 = -32602;
    /// Implementation-defined server error, used for "rate limited".
    pub const RATE_LIMITED: i32 = -32000;
    /// Internal error: a driver bug such as a reused request id.
    pub const INTERNAL_ERROR: i32 = -32603;
}
