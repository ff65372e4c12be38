//! Toolkit for MCP server authors on `rmcp`: ask a person for input with one call that works in
//! every protocol era.
//!
//! A tool handler takes an [`Ask`] (an rmcp extractor, or built by hand with [`Ask::new`]) and
//! calls [`Ask::form`] with a Rust type. As an extractor, `Ask` takes the call's
//! `inputResponses`, `requestState` and `_meta` (read them through [`Ask::context`]). The answer is [`Answer::Accepted`], [`Answer::Declined`]
//! or [`Answer::Cancelled`] — never an error for a person's choice. The handler returns a
//! [`ToolResult`] and uses `?` like any rmcp tool; the impl block holding such tools carries
//! [`asking`] next to rmcp's `#[tool_router]`.
//!
//! - On a **2025-06-18 / 2025-11-25** session the call pushes `elicitation/create` to the client
//!   and waits for the answer (no timeout unless configured: people are slow). The request's
//!   `_meta` names the tool call it belongs to ([`interlude_protocol::RELATED_REQUEST_ID_KEY`]).
//! - On a **2026-07-28** request the call returns [`AskError::InputRequired`], which `?` carries
//!   out of the handler and [`respond`] (called for `#[asking]` tools) turns into an
//!   `input_required` result carrying the elicitation and a sealed `requestState`.
//!   When the client retries, the same handler code runs again, and the same call now returns the
//!   answer. Answers of earlier rounds travel sealed (HMAC, bound to the tool and its arguments,
//!   with a time limit), so a client cannot rewrite them.
//!
//! In both eras accepted content is checked against the schema on the server (defaults applied
//! first) before it is deserialized, and a client that did not declare form support is refused
//! (2026-07-28: error -32021 with `requiredCapabilities`). Every other failure becomes a JSON-RPC
//! error in one place, [`AskError::into_error_data`].
//!
//! Because the handler is re-entered on 2026-07-28, code before an `ask` may run more than once:
//! keep side effects after the last question, or make them idempotent.
//!
//! The same `Ask` asks the client itself, in both eras and with the same sealed round trips:
//! [`Ask::sample`] for a completion of the client's model ([`Sampling`] → [`Sampled`]) and
//! [`Ask::roots`] for the places it lets the server work in ([`Root`]); a client that did not
//! declare the capability gets -32021 ([`AskError::MissingCapability`]). On 2026-07-28 each
//! question travels under a key, `q0`, `q1`… by order, or the one [`Ask::key`] names
//! (`ask.key("user_name").form::<Name>(…)`). A prompt can ask too: [`Ask::for_prompt`] in a
//! hand-written `get_prompt`, its result through [`respond_prompt`].
//!
//! URL-mode flows (a person's secret or consent on the server's own page) are in [`url`]; MCP
//! Apps (`ui://` views a host renders next to a tool's result) in [`apps`]. Clients written
//! against the User Interaction draft of seed 000 (`interaction/create`) are spoken to in its
//! terms by the same calls ([`interaction`]).
//!
//! To serve on stdio, [`stdio()`] is a drop-in for rmcp's `transport::stdio()` that polls the
//! pipes on tokio's reactor instead of its blocking thread pool (faster, same bytes):
//! `Server { .. }.serve(interlude_server::stdio()).await?`; [`checked_stdio()`] is the same with
//! the toolkit's input checks both ways ([`checked_lines`], [`checked`]).
//!
//! Tools that run as tasks ([`task`], [`Ask::task`]) need only their server served through
//! [`task::TaskServer`], which brings the capability and the `tasks/*` methods of both designs;
//! without it they run as ordinary calls. Examples of each of these, runnable, are in the
//! crate's `examples/` (`cargo run -p interlude-server --example form_stdio`, `form_http`,
//! `url_flow`, `app_view`, `task`, `sampling_roots`).
//!
//! For URL-mode elicitation, where the person goes to a page of the server so that a secret
//! never passes through the client, [`url`] has the rest: [`url::UrlFlows`] sends the person to
//! a flow's page and learns how it ended, in both eras (and answers `-32042`); its pages
//! ([`url::UrlFlows::router`]: an API key, an OAuth connection, a confirmation) check who opens
//! them; and the durable state keeps flows bound to the user who started them and the secrets
//! they obtained ([`url::FlowStore`], with an SQLite and an in-memory implementation).
//!
//! Not here: anything of the host side (showing, validating and answering requests is
//! `interlude-host`'s job) and the rmcp tool macros themselves.
//!
//! # Example
//! ```no_run
//! use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
//! use rmcp::model::{CallToolResult, ContentBlock};
//! use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
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
//! struct Server { ask: AskConfig }
//!
//! impl AskServer for Server {
//!     fn ask_config(&self) -> &AskConfig { &self.ask }
//! }
//!
//! #[asking]
//! #[tool_router]
//! impl Server {
//!     #[tool(description = "Ask for contact details")]
//!     async fn contact(&self, ask: Ask) -> ToolResult {
//!         let text = match ask.form::<Contact>("Please provide your contact details").await? {
//!             Answer::Accepted(c) => format!("Hello {}, {}", c.name, c.age),
//!             Answer::Declined => "declined".to_owned(),
//!             Answer::Cancelled => "cancelled".to_owned(),
//!         };
//!         Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
//!     }
//!
//!     #[tool(description = "A tool that does not ask is a plain rmcp tool")]
//!     async fn ping(&self) -> String {
//!         "pong".to_owned()
//!     }
//! }
//!
//! #[tool_handler]
//! impl ServerHandler for Server {}
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server { ask: AskConfig::new() }.serve(interlude_server::checked_stdio()).await?;
//! server.waiting().await?;
//! # Ok(()) }
//! ```

//!
//! # Streamable HTTP
//!
//! rmcp's `StreamableHttpService` builds a handler instance per session (2025) or per request
//! (2026-07-28). Create the [`AskConfig`] **once**, outside the factory, and clone it into each
//! instance: a 2026-07-28 retry must open the `requestState` another instance sealed, and a
//! task started by one instance is polled through another. Put [`checked_http`] around the
//! service (the toolkit's input checks, which the 2025-11-25 tasks need too), and raise the
//! session keep-alive: rmcp drops a 2025 session idle for five minutes, and people are slower.
//! The `form_http` example is a complete server.
//!
//! ```no_run
//! # use interlude_server::{AskConfig, AskServer};
//! # #[derive(Clone)] struct Server { ask: AskConfig }
//! # impl AskServer for Server { fn ask_config(&self) -> &AskConfig { &self.ask } }
//! # impl rmcp::ServerHandler for Server {}
//! use std::time::Duration;
//! use interlude_server::task::{TaskServer, TaskSupport};
//! use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
//! use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let ask = AskConfig::new(); // once per server
//! let mut sessions = LocalSessionManager::default();
//! sessions.session_config.keep_alive = Some(Duration::from_secs(24 * 60 * 60));
//! let service = StreamableHttpService::new(
//!     move || {
//!         let server = Server { ask: ask.clone() };
//!         // With task tools: their capability and `tasks/*`, both designs.
//!         Ok(TaskServer::new(server).tool("deploy", TaskSupport::Optional))
//!     },
//!     sessions.into(),
//!     StreamableHttpServerConfig::default(),
//! );
//! let app = axum::Router::new()
//!     .nest_service("/mcp", service)
//!     .layer(axum::middleware::from_fn(interlude_server::checked_http));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! axum::serve(listener, app).await?;
//! # Ok(()) }
//! ```

pub mod apps;
mod ask;
mod call;
mod checked;
mod config;
mod error;
pub mod form;
pub mod interaction;
mod interaction_create;
mod legacy_task;
mod push;
mod result;
mod roots;
mod round_trip;
mod sampling;
mod session_end;
mod state_seal;
mod stdio;
pub mod task;
mod together;
pub mod url;
mod wire;

pub use ask::Ask;
pub use checked::{
    Checked, CheckedLines, MAX_LINE, checked, checked_http, checked_lines, checked_stdio,
};
pub use config::{AskConfig, AskServer};
pub use error::AskError;
pub use interlude_protocol::Answer;
pub use interlude_schema::{Content, Elicit, FieldError, FormSchema};
/// Checks, when the program is compiled, that a form's type is flat: on a struct, that each
/// field is a string, a number, a boolean, an enum of unit variants (itself with
/// `#[derive(Form)]`), a `Vec` of such an enum, or an `Option` of those — a struct as a field
/// (a nested object, which elicitation does not allow) is an error pointing at that field,
/// instead of [`AskError::Schema`] when the question is asked. On an enum, that its variants
/// are units (the traits are in [`form`]). Optional: [`Ask::form`] takes any `JsonSchema` type.
///
/// ```
/// use interlude_server::Form;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
/// enum Size {
///     Small,
///     Large,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
/// struct Delivery {
///     /// The day (YYYY-MM-DD)
///     #[schemars(extend("format" = "date"))]
///     day: String,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
/// struct Order {
///     #[serde(flatten)]
///     delivery: Delivery, // its fields are the form's own, checked too
///     /// Your email address
///     #[schemars(extend("format" = "email"))]
///     email: String,
///     /// How many
///     count: u32,
///     size: Size,
///     extras: Vec<Size>,
///     note: Option<String>,
/// }
/// ```
///
/// A nested struct does not compile, and the error points at its field:
///
/// ```compile_fail,E0277
/// use interlude_server::Form;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Address {
///     street: String,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
/// struct Contact {
///     name: String,
///     address: Address, // error: `Address` cannot be a field of a form
/// }
/// ```
pub use interlude_server_macros::Form;
/// Lets the `#[tool]` fns of an impl block return [`ToolResult`] and use `?` on every
/// [`Ask`] call — including the `input_required` of a 2026-07-28 question — like any rmcp tool.
///
/// Put it on the impl block that holds the tools, next to rmcp's `#[tool_router]`. Tools that do
/// not return `ToolResult` stay plain rmcp tools.
///
/// It also checks, where the block's type is named, that the type implements [`AskServer`] and
/// rmcp's `ServerHandler`, which a tool taking [`Ask`] needs: a missing one is an error saying
/// which (``implement `interlude_server::AskServer` for `Server` ``), beside rmcp's own. If
/// rustc instead says only ``the trait `IntoToolRoute<Server, _>` is not implemented`` on
/// `#[tool_router]`, a tool returns `ToolResult` in a block without `#[asking]`.
///
/// # Example
/// ```
/// use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
/// use rmcp::handler::server::wrapper::Parameters;
/// use rmcp::model::{CallToolResult, ContentBlock};
/// use rmcp::{ErrorData, tool, tool_router};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct GitHubUser {
///     /// Your GitHub username
///     username: String,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Repo {
///     /// owner/name
///     repo: String,
/// }
///
/// #[derive(Clone)]
/// struct Server { ask: AskConfig }
///
/// impl AskServer for Server {
///     fn ask_config(&self) -> &AskConfig { &self.ask }
/// }
///
/// #[tool_router]
/// #[asking] // above or below #[tool_router]
/// impl Server {
///     #[tool(description = "Star a repository as the person's GitHub user")]
///     async fn star(&self, ask: Ask, Parameters(args): Parameters<Repo>) -> ToolResult {
///         let Some((owner, name)) = args.repo.split_once('/') else {
///             // rmcp's own errors convert into an `AskError`.
///             return Err(ErrorData::invalid_params("repo must be owner/name", None).into());
///         };
///         let user = match ask.form::<GitHubUser>("Who is starring?").await? {
///             Answer::Accepted(u) => u.username,
///             Answer::Declined | Answer::Cancelled => {
///                 return Ok(CallToolResult::success(vec![ContentBlock::text("Not starred.")]));
///             }
///         };
///         // Other errors become an `ErrorData` first; then `?` takes them.
///         let stars = "41"
///             .parse::<u32>()
///             .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
///         let text = format!("@{user} starred {owner}/{name} ({} stars).", stars + 1);
///         Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
///     }
/// }
///
/// #[rmcp::tool_handler]
/// impl rmcp::ServerHandler for Server {}
///
/// // The router serves it like any other tool.
/// assert!(Server::tool_router().has_route("star"));
/// ```
pub use interlude_server_macros::asking;
pub use result::{PromptResult, ToolResult, respond, respond_prompt};
pub use roots::Root;
pub use sampling::{Sampled, Sampling};
pub use session_end::session_ended;
pub use stdio::{StdinReader, StdoutWriter, stdio};
pub use together::Questions;

/// The README's "As a server author" example, compiled as it is shown there.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
