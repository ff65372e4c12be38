//! The host engine, **sans-IO**: every decision a host makes about a server's request for a
//! person, and nothing else.
//!
//! The engine takes [`Input`]s (a request arrived, the person answered, the server went away…)
//! with the current time, and returns [`Effect`]s (reply to the server, queue and present a
//! request, withdraw one, write an audit record). Its parts, from the top down:
//! - `engine.rs`: [`Engine`] and [`Engine::handle`], the core: what every kind of request
//!   shares (the inbox, rate limits, the audit, declines, cancels, withdrawals, open views) and
//!   the dispatch to the request's kind;
//! - `kinds.rs` and `kinds/`: one module per kind of request, owning what it keeps while
//!   pending, how it is queued and what the person's acceptance means — `form.rs` (a form; its
//!   `judge` is the one answer path of every kind that carries a form: `null` dropped, defaults
//!   applied, validated by the same rules as the server toolkit), `url.rs` (a link: judged by
//!   the URL safety rules before it is shown, consent before anything is looked up, the host
//!   name resolved only after consent ([`UrlEffect::Resolve`]) and the link opened only after
//!   that check ([`UrlEffect::Open`]), a 2025 completion notification closing the flow
//!   ([`UrlEffect::Completed`])), `app_form.rs` (a form shown in the server's app view: the one
//!   owner of the binding between the request and its view), `view_link.rs` (a link an app
//!   view asks to have opened, `ui/open-link`: the same URL rules and consent as a URL
//!   request's, and the view hears how it ended);
//! - `views.rs`: the open MCP Apps views, each with its [`bridge::ViewBridge`];
//! - `io.rs`: the vocabulary — [`Input`], [`Effect`] (what kinds share flat, each kind's own
//!   nested: [`UrlInput`], [`AppFormInput`], [`UrlEffect`], [`AppFormEffect`], and [`ViewInput`]),
//!   [`Reply`], [`Notice`], [`Incoming`];
//! - `request.rs`: the request as surfaces see it, [`Request`] with one closed enum of
//!   kinds, [`RequestKind`] (`Form`, `Url`, `AppForm`, `ViewLink`), matched exhaustively by
//!   every surface;
//! - `admission.rs`: parse the request at the boundary, refuse an undeclared mode or a schema
//!   outside the subset with -32602 naming the field, refuse oversized messages;
//!   `admission/interaction.rs` admits the seed-000 draft's `interaction/create` by the same
//!   rules (a `prompt` is a form, a `ua` a link) and [`Reply::into_interaction_result`] answers
//!   it in the draft's shapes;
//! - `inbox.rs`: one request presented at a time, the rest queued in arrival order, from every
//!   server and both protocol eras alike;
//! - `out.rs`: the effects of one input, with the audit and refusal helpers every kind uses;
//! - `config.rs`: what the host [`Declared`] to servers and the policy knobs
//!   ([`EngineConfig`]); `ids.rs`: [`RequestId`], [`CallId`], [`ServerId`], [`ViewId`];
//! - `rate.rs`: per-server rate limiting;
//! - `audit.rs`: one [`AuditRecord`] per request and per outcome, with values of
//!   sensitive-looking fields redacted;
//! - [`redact`](mod@redact): the one redaction rule (secret-ish property, header and query
//!   names, URL userinfo) every log, trace and recording uses;
//! - [`bridge`]: the bridge of one MCP Apps view ([`bridge::ViewBridge`]): the handshake and
//!   the gate, the view's calls to its own server (visibility, rate), questions for the person,
//!   sizes and display modes, teardown, in every dialect;
//! - [`csp`]: the Content-Security-Policy and iframe `allow` list of an app view, built from
//!   what its resource declares;
//! - [`url_safety`]: the rules for a link a server asks a person to open ([`check_url`]): what is
//!   refused, what is flagged, and how a consent screen shows it.
//!
//! It has no clock, no ids of its own, no channels, no rmcp service, no HTTP, terminal or
//! browser code: the host runtime drives it, surfaces render its [`Request`]s.
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
pub mod codes;
mod config;
pub mod csp;
mod engine;
mod ids;
mod inbox;
mod io;
mod kinds;
mod out;
mod params;
mod rate;
pub mod redact;
mod request;
pub mod url_safety;
mod views;

pub use admission::ElicitationMode;
pub use audit::{AuditEvent, AuditRecord};
pub use config::{Declared, EngineConfig};
pub use engine::Engine;
pub use ids::{CallId, RequestId, ServerId, ViewId};
pub use interlude_protocol::Answer;
pub use io::{
    AppFormEffect, AppFormInput, Effect, Incoming, Input, LinkOutcome, Notice, Reply, UrlEffect,
    UrlInput, ViewInput,
};
pub use params::ElicitParams;
pub use redact::redact;
pub use request::{
    AppFormRequest, AppStage, FormRequest, ModelPriorities, Request, RequestKind, RequestMethod,
    SamplingPart, SamplingRequest, SamplingRole, SamplingTurn, UrlRequest, UrlStage,
    ViewLinkRequest,
};
/// What a sampling request's answer holds ([`RequestKind::Sampling`]): the person's reply in
/// [`REPLY_FIELD`](sampling::REPLY_FIELD), and optionally a model name in
/// [`MODEL_FIELD`](sampling::MODEL_FIELD).
///
/// ```
/// use interlude_engine::sampling;
/// assert_eq!(sampling::REPLY_FIELD, "text");
/// ```
pub mod sampling {
    pub use crate::kinds::sampling::{
        DEFAULT_MODEL, MAX_MESSAGES, MAX_PARTS, MODEL_FIELD, REPLY_FIELD,
    };
}
pub use url_safety::{DevOrigin, UrlCheck, UrlDisplay, UrlPolicy, check_url};
