//! A tool that asks the person a typed form, served on stdio.
//!
//! `contact` asks for a name, an age (18 or more) and a date of birth, described by a Rust
//! struct, and answers with what the person entered — or that they declined. The same code
//! works with a 2025 client (the question is pushed as `elicitation/create` while the call
//! waits) and a 2026-07-28 one (the call returns `input_required`, and the client's retry
//! carries the answer): the toolkit picks the way per call.
//!
//! Run with: `cargo run -p interlude-server --example form_stdio` — it speaks MCP on
//! stdin/stdout; connect a host to it, e.g.
//! `interlude connect "cargo run -q -p interlude-server --example form_stdio"`.

use interlude_server::{Answer, Ask, AskConfig, AskServer, Form, ToolResult, asking};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// What the form asks. Doc comments become the fields' descriptions; `range` and `format`
/// are checked on the server too before the answer is deserialized. `Form` checks at compile
/// time that the form is flat (a struct as a field would be an error pointing at it).
#[derive(Deserialize, JsonSchema, Form)]
struct Contact {
    /// Your full name
    name: String,
    /// Your age
    #[schemars(range(min = 18))]
    age: u32,
    /// Your date of birth (YYYY-MM-DD)
    #[schemars(extend("format" = "date"))]
    born: Option<String>,
}

/// The server: its `AskConfig` is created once and cloned wherever the server is.
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
            Answer::Accepted(c) => {
                let born = c.born.map(|b| format!(", born {b}")).unwrap_or_default();
                format!("Hello {}, {}{born}.", c.name, c.age)
            }
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
    let server = Server {
        ask: AskConfig::new(),
    };
    // `checked_stdio`: stdin/stdout, with the toolkit's input checks both ways.
    server
        .serve(interlude_server::checked_stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
