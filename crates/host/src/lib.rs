//! The Interlude host runtime: connects to many MCP servers at once and drives the sans-IO
//! [`interlude_engine::Engine`] with what they send.
//!
//! - [`Host`] owns the engine on one task (a closed enum of inputs, one at a time) and the
//!   [`Surface`] that shows requests to a person. Surfaces plug in through that one trait; the
//!   host has no page, terminal or browser code.
//! - [`Host::connect`] opens a [`Connection`] to a server over stdio (child process) or
//!   streamable HTTP ([`ServerSpec`]), negotiating 2026-07-28 when the server speaks it and
//!   falling back to 2025-11-25 when it does not; it declares form elicitation.
//! - [`Connection::call_tool`] calls a tool and drives the 2026-07-28 `input_required` rounds
//!   itself: one input request at a time through the engine's queue, `requestState` echoed
//!   byte for byte, a new JSON-RPC id per retry. Push-era `elicitation/create` requests arrive
//!   through the rmcp `ClientHandler` and take the same path. An optional call timeout counts
//!   only the time nobody is being asked something.
//!
//! # Example
//! ```no_run
//! use interlude_host::{Host, HostConfig, ServerSpec, headless::{HeadlessSurface, Answers}};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let host = Host::start(HostConfig::default(), HeadlessSurface::new(Answers::Defaults));
//! let conn = host.connect("demo", ServerSpec::parse("interlude-demo")?).await?;
//! let result = conn.call_tool("contact_info", None).await?;
//! println!("{}", serde_json::to_string(&result.result)?);
//! # Ok(()) }
//! ```

mod connection;
mod handler;
pub mod headless;
mod http_client;
mod runtime;
mod spec;
mod timer;

pub use connection::{CallOutcome, Connection, ConnectionInfo};
pub use http_client::ServerStream;
pub use runtime::{AnswerSink, Host, HostConfig, HostError, ProtocolChoice, Surface};
pub use spec::{ServerSpec, SpecError, parse_mcp_servers};
