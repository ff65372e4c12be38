//! Toolkit for MCP server authors on `rmcp`: ask a person for input with one call that works in
//! every protocol era.
//!
//! A tool handler takes an [`Ask`] (an rmcp extractor, or built by hand with [`Ask::new`]) and
//! calls [`Ask::form`] with a Rust type. The answer is [`Answer::Accepted`], [`Answer::Declined`]
//! or [`Answer::Cancelled`] — never an error for a person's choice.
//!
//! - On a **2025-06-18 / 2025-11-25** session the call pushes `elicitation/create` to the client
//!   and waits for the answer (no timeout unless configured: people are slow).
//! - On a **2026-07-28** request the call returns [`AskError::InputRequired`]; [`respond`] turns
//!   it into an `input_required` result carrying the elicitation and a sealed `requestState`.
//!   When the client retries, the same handler code runs again, and the same call now returns the
//!   answer. Answers of earlier rounds travel sealed (HMAC, bound to the tool and its arguments,
//!   with a time limit), so a client cannot rewrite them.
//!
//! In both eras accepted content is checked against the schema on the server (defaults applied
//! first) before it is deserialized, and a client that did not declare form support is refused
//! (2026-07-28: error -32021 with `requiredCapabilities`).
//!
//! Because the handler is re-entered on 2026-07-28, code before an `ask` may run more than once:
//! keep side effects after the last question, or make them idempotent.
//!
//! To serve on stdio, [`stdio()`] is a drop-in for rmcp's `transport::stdio()` that polls the
//! pipes on tokio's reactor instead of its blocking thread pool (faster, same bytes):
//! `Server { .. }.serve(interlude_server::stdio()).await?`.
//!
//! # Example
//! ```no_run
//! use interlude_server::{Answer, Ask, AskConfig, AskServer, respond};
//! use rmcp::{ErrorData, ServerHandler, model::*, tool, tool_handler, tool_router,
//!            handler::server::router::tool::ToolRouter};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Contact {
//!     /// Your full name
//!     name: String,
//!     /// Your age
//!     #[schemars(range(min = 18))]
//!     age: u32,
//! }
//!
//! #[derive(Clone)]
//! struct Server { ask: AskConfig, tool_router: ToolRouter<Self> }
//!
//! impl AskServer for Server {
//!     fn ask_config(&self) -> &AskConfig { &self.ask }
//! }
//!
//! #[tool_router]
//! impl Server {
//!     #[tool(description = "Ask for contact details")]
//!     async fn contact(&self, ask: Ask) -> Result<CallToolResponse, ErrorData> {
//!         respond(async {
//!             let text = match ask.form::<Contact>("Please provide your contact details").await? {
//!                 Answer::Accepted(c) => format!("Hello {}, {}", c.name, c.age),
//!                 Answer::Declined => "declined".to_owned(),
//!                 Answer::Cancelled => "cancelled".to_owned(),
//!             };
//!             Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
//!         }.await)
//!     }
//! }
//!
//! #[tool_handler]
//! impl ServerHandler for Server {}
//! ```

mod ask;
mod config;
mod push;
mod round_trip;
mod stdio;

pub use ask::{Answer, Ask, AskError, respond};
pub use config::{AskConfig, AskServer};
pub use interlude_schema::{Content, Elicit, FieldError, FormSchema};
pub use stdio::{StdinReader, StdoutWriter, stdio};
