//! The host engine, **sans-IO**: every decision a host makes about a server's request for a
//! person, and nothing else.
//!
//! The engine takes [`Input`]s (an elicitation arrived, the person answered, the server went
//! away…) with the current time, and returns [`Effect`]s (reply to the server, present a request,
//! withdraw one, write an audit record). It owns:
//! - **admission**: parse the request at the boundary, refuse an undeclared mode or a schema
//!   outside the subset with -32602 naming the field, refuse oversized messages, rate-limit per
//!   server ([`EngineConfig`]);
//! - **the inbox**: one request presented at a time, the rest queued in arrival order, from every
//!   server and both protocol eras alike;
//! - **answers**: validate the person's content with the same rules as the server toolkit and
//!   apply defaults before anything leaves; an invalid answer never leaves, it goes back to the
//!   surface as [`Effect::Invalid`];
//! - **the audit log**: one [`AuditRecord`] per request and per outcome, with values of
//!   sensitive-looking fields redacted.
//!
//! It has no clock, no ids of its own, no channels, no rmcp service, no HTTP, terminal or
//! browser code: the host runtime drives it, surfaces render its [`ElicitationView`]s.
//!
//! # Example
//! ```
//! use interlude_engine::{Engine, EngineConfig, Input, Incoming, Effect, Reply, SurfaceAnswer,
//!                        RequestId, DeclaredModes};
//! use interlude_protocol::ProtocolEra;
//! use serde_json::json;
//!
//! let mut engine = Engine::new(EngineConfig::default());
//! let id = RequestId(1);
//! let effects = engine.handle(Input::Elicit(Incoming {
//!     id,
//!     server: "demo".into(),
//!     era: ProtocolEra::Push,
//!     declared: DeclaredModes::FORM,
//!     params: json!({"message": "Your GitHub username?",
//!                    "requestedSchema": {"type": "object",
//!                        "properties": {"login": {"type": "string", "minLength": 1}},
//!                        "required": ["login"]}}).into(),
//!     tool: Some("github_user".into()),
//! }), 0);
//! assert!(effects.iter().any(|e| matches!(e, Effect::Present(v) if v.id == id)));
//!
//! let effects = engine.handle(Input::Answer { id, answer: SurfaceAnswer::Accept(
//!     serde_json::from_value(json!({"login": "octocat"})).unwrap()) }, 10);
//! assert!(effects.iter().any(|e| matches!(e, Effect::Reply { reply: Reply::Accept(_), .. })));
//! ```

mod admission;
mod audit;
mod inbox;
mod rate;

pub use admission::{DeclaredModes, ElicitParams, ElicitationMode};
pub use audit::{AuditEvent, AuditRecord, redact};
pub use inbox::{
    Effect, ElicitationView, Engine, EngineConfig, Incoming, Input, Notice, Reply, RequestId,
    SurfaceAnswer,
};

/// JSON-RPC error codes the engine answers with.
pub mod codes {
    /// Invalid params: undeclared mode, schema outside the subset, oversized request.
    pub const INVALID_PARAMS: i32 = -32602;
    /// Implementation-defined server error, used for "rate limited".
    pub const RATE_LIMITED: i32 = -32000;
    /// Internal error: a driver bug such as a reused request id.
    pub const INTERNAL_ERROR: i32 = -32603;
}
