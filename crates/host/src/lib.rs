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

mod arguments;
mod catalog_record;
mod child;
mod connection;
mod decode;
pub mod embedded;
mod eras;
mod failure;
mod handler;
mod host;
mod http_client;
mod hub;
mod interaction;
mod message_id;
mod network_log;
pub mod private_file;
mod progress;
mod protocol_log;
mod registry;
mod request_record;
mod resolve;
mod roots;
mod spec;
mod stderr;
mod surface;
mod sync;
mod tap;
mod task_hints;
mod timer;
mod trace;

/// A map keyed by ids (the host's own, a server's JSON-RPC ids): hashed with foldhash, seeded per
/// map, instead of SipHash, which costs more than the rest of a lookup for keys this small.
pub(crate) type IdMap<K, V> = std::collections::HashMap<K, V, foldhash::quality::RandomState>;

pub use arguments::{ArgumentError, check_arguments, parse_arguments};
pub use catalog_record::{ListKind, MAX_SUBSCRIPTIONS, ServerCatalog, Subscribing, Watched};
pub use connection::catalog::MAX_LISTED;
pub use connection::task::ListedTask;
pub use connection::{CallOutcome, Connection, ConnectionInfo, ToolCall};
pub use eras::EraMemory;
pub use host::{AppsConfig, Host, HostConfig, HostError, ProtocolChoice};
pub use http_client::ServerStream;
/// The one redaction rule (secret-ish property, header and query names, URL userinfo) that the
/// protocol log, the trace, the network log, the audit and recordings all use.
pub use interlude_engine::redact;
pub use interlude_engine::{CallId, RequestId, ServerId, ViewId};
pub use progress::CallProgress;
// What a surface needs to show requests and answer them, so that surfaces depend on the host
// only (`cargo xtask tidy` checks it): the request, its kinds and stages, the reply and answer,
// what the host declares, the URL safety verdicts, a view's dialect and the form model.
pub use interlude_engine::{
    Answer, AppFormRequest, AppStage, Declared, DevOrigin, FormRequest, ModelPriorities, Notice,
    Reply, Request, RequestKind, RequestMethod, SamplingPart, SamplingRequest, SamplingRole,
    SamplingTurn, UrlRequest, UrlStage, ViewLinkRequest, sampling, url_safety,
};
pub use interlude_protocol::apps::UiDialect;
/// The form model of a request (the `interlude-schema` crate): fields, labels, validation.
pub use interlude_schema as schema;
pub use network_log::{
    BodyKind, CarriedMessage, EXCHANGES_KEPT_PER_SERVER, ExchangeState, HttpExchange, HttpHeader,
    NoNetworkLog, REDACTED, SESSION_ID_KEPT, redact_header,
};
pub use protocol_log::{Direction, KEPT_PER_SERVER, LoggedMessage};
pub use registry::{
    CallRecord, CallStatus, CallTask, ExternalSite, FileOffer, HostEvent, HostSnapshot,
    OfferedFile, ServerApps, ServerIdentity, ServerLog, ServerRecord, ServerState, ViewRecord,
    ViewState,
};
pub use request_record::{LinkState, RequestRecord, RequestState, RequestStatus};
pub use resolve::Resolver;
pub use roots::{Root, RootError};
pub use spec::{ServerSpec, SpecError, parse_mcp_servers};
pub use surface::{AnswerSink, Surface};
