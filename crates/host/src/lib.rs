//! The Interlude host runtime: connects to many MCP servers at once, keeps the record of
//! servers, tool calls and requests for a person, and drives the sans-IO
//! [`interlude_engine::Engine`] with what servers send.
//!
//! - [`Host`] owns the engine, the record and the [`Surface`] that shows things to a person.
//!   Surfaces plug in through that one trait and receive every change as a [`HostEvent`]; they
//!   keep no registry of their own ([`Host::snapshot`] has everything). The host has no page,
//!   terminal or browser code.
//! - [`Host::connect`] opens a [`Connection`] over stdio (child process) or streamable HTTP
//!   ([`ServerSpec`]), [`Host::connect_transport`] over any rmcp transport (an in-process peer
//!   over `tokio::io::duplex`); 2026-07-28 is negotiated when the server speaks it, 2025-11-25
//!   otherwise; what is declared comes from [`HostConfig::declare`]. The server's identity,
//!   tools (with `_meta`) and state are recorded; its end is signalled, not polled.
//! - [`Connection::start_call`] / [`Connection::call_tool`] call a tool with a [`CallId`] of its
//!   own, and every request the call raises names it: MRTR rounds (2026-07-28) are driven by the
//!   host itself, one input request at a time through the engine's queue, `requestState` echoed
//!   byte for byte; push-era `elicitation/create` requests arrive through the rmcp
//!   `ClientHandler`, tied to their call by the transport tap. An optional call timeout counts
//!   only the time nobody is being asked something.
//! - The User Interaction draft of seed 000 (`interaction/create`, `interaction/notify`,
//!   `-32003`), when [`HostConfig::declare`] turns it on: a compatibility path in a module of its
//!   own, mapped onto the engine's form and link requests.
//! - [`check_arguments`] (and [`Connection::check_arguments`]) checks a tool's arguments against
//!   its `inputSchema` — full JSON Schema — before a surface sends the call, with one sentence
//!   per problem naming the field; [`parse_arguments`] reads arguments typed as JSON.
//!
//! # Example
//! ```no_run
//! use interlude_host::{AnswerSink, Answer, Host, HostConfig, HostEvent, ServerSpec, Surface};
//!
//! /// Declines whatever a server asks (a real surface shows it to a person; the
//! /// `interlude-headless` crate answers from a script).
//! struct Decliner;
//!
//! impl Surface for Decliner {
//!     fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
//!         if let HostEvent::RequestPresented(record) = event {
//!             sink.answer(record.request.id, Answer::Declined);
//!         }
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let host = Host::start(HostConfig::default(), Decliner);
//! let conn = host.connect("demo", ServerSpec::parse("interlude-demo")?).await?;
//! let outcome = conn.call_tool("contact_info", None).await?;
//! println!("{}", serde_json::to_string(&outcome.result)?);
//! let call = host.call(outcome.call).expect("recorded");
//! println!("it asked {} question(s)", call.requests.len());
//! # Ok(()) }
//! ```

// The host's rooms, bottom up: each imports only rooms below it (ARCHITECTURE.md; `cargo xtask
// tidy` checks it). Below them all: the clock, the id map and the lock.
mod clock;
mod id_map;
mod sync;

mod logs;
mod record;
mod transport;

mod hub;
mod views;

mod session;

mod call;

mod host;

/// UI resources a tool result embeds (MCP-UI's way of sending a view): found, classified and
/// read for the host's views.
pub use views::embedded;

pub use call::{CallOutcome, ToolCall};
pub use host::{AppsConfig, Host, HostConfig, HostError, ProtocolChoice};
pub use hub::eras::EraMemory;
/// The one redaction rule (secret-ish property, header and query names, URL userinfo) that the
/// protocol log, the trace, the network log, the audit and recordings all use.
pub use interlude_engine::redact;
pub use interlude_engine::{CallId, RequestId, ServerId, ViewId};
/// Files written for the person: created new, mode 0600, never through a link, in a folder only
/// the user may write to.
pub use logs::private_file;
pub use record::arguments::{ArgumentError, check_arguments, parse_arguments};
pub use record::catalog::{ListKind, MAX_SUBSCRIPTIONS, ServerCatalog, Subscribing, Watched};
pub use record::progress::CallProgress;
pub use session::catalog::MAX_LISTED;
pub use session::tasks::ListedTask;
pub use session::{Connection, ConnectionInfo};
pub use transport::http_client::ServerStream;
// What a surface needs to show requests and answer them, so that surfaces depend on the host
// only (`cargo xtask tidy` checks it): the request, its kinds and stages, the reply and answer,
// what the host declares, the URL safety verdicts, a view's dialect and the form model.
pub use hub::resolve::Resolver;
pub use hub::roots::{Root, RootError};
pub use hub::surface::{AnswerSink, Surface};
pub use interlude_engine::{
    Answer, AppFormRequest, AppStage, Declared, DevOrigin, FormRequest, LinkOutcome,
    ModelPriorities, Notice, Reply, Request, RequestKind, RequestMethod, SamplingPart,
    SamplingRequest, SamplingRole, SamplingTurn, UrlRequest, UrlStage, ViewLinkRequest, sampling,
    url_safety,
};
pub use interlude_protocol::apps::UiDialect;
/// The form model of a request (the `interlude-schema` crate): fields, labels, validation.
pub use interlude_schema as schema;
pub use logs::network_log::{
    BodyKind, CarriedMessage, EXCHANGES_KEPT_PER_SERVER, ExchangeState, HttpExchange, HttpHeader,
    NoNetworkLog, REDACTED, SESSION_ID_KEPT, redact_header,
};
pub use logs::protocol_log::{Direction, KEPT_PER_SERVER, LoggedMessage};
pub use record::registry::{
    CallRecord, CallStatus, CallTask, ExternalSite, FileOffer, HostEvent, HostSnapshot,
    OfferedFile, ServerApps, ServerIdentity, ServerLog, ServerRecord, ServerState, ViewRecord,
    ViewState,
};
pub use record::request::{LinkState, RequestRecord, RequestState, RequestStatus};
pub use transport::spec::{ServerSpec, SpecError, parse_mcp_servers};
