//! The Interlude demo server: one MCP server with a tool for every seed scenario of
//! human-in-the-loop MCP, written once with [`interlude_server::Ask`] and working in both
//! protocol eras (2025 push `elicitation/create`, 2026-07-28 `input_required`).
//!
//! Tools:
//! - `github_username`, `contact_info`, `favourite_genre`, `newsletter_topics`, `confirm_action`:
//!   the seed examples (a username; name, e-mail and an age of at least 18; a titled single
//!   choice; a multi-select; a yes/no confirmation);
//! - `weather_api_key`, `connect_cloud_account`, `verify_payment`: URL-mode flows — the server
//!   sends the person to its own page to enter an API key, to connect an account at a third
//!   party through OAuth, or to confirm a payment, none of which passes through the client
//!   (when the demo runs with its pages, see [`flows`] and [`provider`]);
//! - `weather_dashboard`: an MCP App, the seed's weather dashboard (`ui://demo/weather`), which
//!   refreshes itself through `weather_refresh`, a tool only views may call (see [`apps`]);
//! - `weather_forecast`: a tool that cannot go on without that API key — `-32042` on 2025-11-25
//!   (the host opens the page, waits, calls again), a URL round trip on 2026-07-28; the demo
//!   forgets the key after each forecast, so every call shows the flow;
//! - `test_elicitation`, `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`:
//!   the fixtures the MCP conformance suite's server scenarios call, with their exact schemas.
//!
//! Served by the `interlude-demo` binary over stdio ([`serve_stdio`]), or streamable HTTP at
//! `/mcp` ([`serve_http`]).
//! Not here: any host-side code; the demo is a server like any other.
//!
//! # Example
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! tokio::spawn(interlude_demo::serve_http(listener, Default::default()));
//! println!("demo server at http://{addr}/mcp");
//! # Ok(()) }
//! ```

pub mod apps;
pub mod flows;
mod http;
pub mod provider;
mod tools;

pub use http::{HttpOptions, serve_http};
/// Serves the demo on this process's stdin/stdout ([`interlude_server::stdio`]) until the client
/// goes away.
///
/// # Example
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// interlude_demo::serve_stdio().await?;
/// # Ok(()) }
/// ```
pub async fn serve_stdio() -> Result<(), StdioError> {
    use rmcp::ServiceExt;
    let server = match flows::from_env() {
        Some(flows) => DemoServer::default().with_flows(flows),
        None => DemoServer::default(),
    };
    let service = server
        .serve(interlude_server::stdio())
        .await
        .map_err(|e| StdioError::Start(Box::new(e)))?;
    service
        .waiting()
        .await
        .map_err(|e| StdioError::Task(e.to_string()))?;
    Ok(())
}

/// Why [`serve_stdio`] stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StdioError {
    /// The session could not start (no `initialize`/`discover` from the client).
    #[error("cannot start on stdio: {0}")]
    Start(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The server task failed.
    #[error("server task failed: {0}")]
    Task(String),
}

pub use tools::{
    Confirmation, ContactInfo, Country, DemoServer, Genre, GitHubUser, MusicTaste, Newsletter,
    Registration, TestElicitationArgs, Ticket, Topic, Workshop,
};
