//! The form tool of `form_stdio`, served on streamable HTTP at `http://127.0.0.1:<port>/mcp`.
//!
//! Two things differ from stdio. rmcp's `StreamableHttpService` makes a server instance per
//! session (2025) or per request (2026-07-28), so the `AskConfig` is created **once**, outside
//! the factory, and cloned into each instance: a 2026-07-28 retry must open the `requestState`
//! an earlier instance sealed. And the session keep-alive is raised: rmcp drops a 2025 session
//! idle for five minutes, and a person may take longer to answer.
//!
//! Run with: `cargo run -p interlude-server --example form_http [PORT]` (default: a free port;
//! the address is printed on stderr). It listens on 127.0.0.1 only.

#![allow(clippy::print_stderr)] // it says where it listens

use std::time::Duration;

use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// What the form asks.
#[derive(Deserialize, JsonSchema)]
struct Contact {
    /// Your full name
    name: String,
    /// Your age
    #[schemars(range(min = 18))]
    age: u32,
}

#[derive(Clone)]
struct Server {
    ask: AskConfig,
}

impl AskServer for Server {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

#[asking]
#[tool_router]
impl Server {
    #[tool(description = "Ask the person for their contact details")]
    async fn contact(&self, ask: Ask) -> ToolResult {
        let text = match ask
            .form::<Contact>("Please give your contact details")
            .await?
        {
            Answer::Accepted(c) => format!("Hello {}, {}.", c.name, c.age),
            Answer::Declined => "The person declined.".to_owned(),
            Answer::Cancelled => "The person dismissed the form.".to_owned(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}

#[tool_handler]
impl ServerHandler for Server {}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let port: u16 = std::env::args().nth(1).map_or(Ok(0), |p| p.parse())?;
    // One configuration for the whole server, cloned into every instance.
    let ask = AskConfig::new();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(Duration::from_secs(24 * 60 * 60));
    let service = StreamableHttpService::new(
        move || Ok(Server { ask: ask.clone() }),
        sessions.into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        // A known method whose params do not fit: -32602 naming the field (and the 2025-11-25
        // tasks' wire, for a server that runs tools as tasks).
        .layer(axum::middleware::from_fn(interlude_server::checked_http));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, router).await?;
    Ok(())
}
