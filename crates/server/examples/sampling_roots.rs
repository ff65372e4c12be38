//! Asking the client itself: a completion of its model (sampling) and the places it lets the
//! server work in (roots), in both protocol eras.
//!
//! `tagline` asks the client's model for a tagline for a product (a host such as Interlude may
//! let a person write the reply instead); `folders` lists the client's roots. A client that did
//! not declare `sampling` or `roots` gets error -32021 naming the capability.
//!
//! Run with: `cargo run -p interlude-server --example sampling_roots` — MCP on stdin/stdout;
//! e.g. `interlude connect --root . "cargo run -q -p interlude-server --example sampling_roots"`.

use interlude_server::{Answer, Ask, AskConfig, AskServer, Sampling, ToolResult, asking};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// The tool's arguments.
#[derive(Deserialize, JsonSchema)]
struct Product {
    /// What the product is
    product: String,
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
    #[tool(description = "Ask the client's model for a tagline")]
    async fn tagline(&self, ask: Ask, Parameters(args): Parameters<Product>) -> ToolResult {
        let request = Sampling::new(60)
            .system("You write short, plain taglines.")
            .user(format!("Write a tagline for {}.", args.product));
        let text = match ask.sample(request).await? {
            Answer::Accepted(sampled) => {
                format!("Tagline: {}", sampled.text().unwrap_or_default())
            }
            Answer::Declined | Answer::Cancelled => "No tagline.".to_owned(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "List the folders the client lets this server work in")]
    async fn folders(&self, ask: Ask) -> ToolResult {
        let roots = ask.roots().await?;
        let text = if roots.is_empty() {
            "No roots.".to_owned()
        } else {
            roots
                .iter()
                .map(|root| root.uri.clone())
                .collect::<Vec<_>>()
                .join("\n")
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
    server
        .serve(interlude_server::checked_stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
