//! An MCP App: a tool whose result shows in a view the host renders, with a button that calls
//! the server back.
//!
//! `counter` answers with the count, as text (what hosts without views show) and as
//! `structuredContent` (what the view reads); its `_meta.ui.resourceUri` names the view,
//! `ui://counter/view.html`. The view is one HTML document: the toolkit's view helper
//! ([`interlude_server::apps::VIEW_HELPER_JS`], inlined) does the handshake (`ui/initialize`,
//! protocol revision 2026-01-26), sends its size when it changes and answers the host; its
//! "Add one" button calls `increment`, a tool only views may call (hidden from the model).
//!
//! Run with: `cargo run -p interlude-server --example app_view` — MCP on stdin/stdout; e.g.
//! `interlude connect "cargo run -q -p interlude-server --example app_view"` and call `counter`
//! on the page.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use interlude_server::apps::{
    AppResource, Apps, VIEW_HELPER_JS, Visibility, app_only_meta, tool_meta,
};
use rmcp::model::{
    CallToolResult, ContentBlock, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::json;

const VIEW: &str = "ui://counter/view.html";

/// The view's own code, run after the helper in the same module.
const SCRIPT: &str = r#"
const count = document.querySelector('#count');
const show = (result) => {
  const n = result?.structuredContent?.count;
  if (typeof n === 'number') count.textContent = String(n);
};
const view = await connectView({ name: 'counter', version: '1.0.0', onToolResult: show });
document.querySelector('#add').onclick = async () => show(await view.callTool('increment', {}));
"#;

/// The view: the count and a button.
fn apps() -> Apps {
    let html = format!(
        "<!doctype html><meta charset=utf-8><title>Counter</title>\
         <p>Count: <strong id=count>…</strong></p><button id=add>Add one</button>\
         <script type=module>{VIEW_HELPER_JS}\n{SCRIPT}</script>"
    );
    match AppResource::new(VIEW, html) {
        Ok(view) => Apps::new().with(view.title("Counter")),
        Err(_) => Apps::new(), // not reached: VIEW is a ui:// URI
    }
}

#[derive(Clone)]
struct Server {
    count: Arc<AtomicU64>,
    apps: Apps,
}

/// The count, as text and as structured content.
fn counted(n: u64) -> CallToolResult {
    let mut result =
        CallToolResult::success(vec![ContentBlock::text(format!("The count is {n}."))]);
    result.structured_content = Some(json!({"count": n}));
    result
}

#[tool_router]
impl Server {
    #[tool(description = "Show the counter", meta = tool_meta(VIEW, Visibility::DEFAULT))]
    async fn counter(&self) -> CallToolResult {
        counted(self.count.load(Ordering::SeqCst))
    }

    #[tool(description = "Add one to the counter (its view's button)", meta = app_only_meta())]
    async fn increment(&self) -> CallToolResult {
        counted(self.count.fetch_add(1, Ordering::SeqCst) + 1)
    }
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        // The MCP Apps extension, and resources (the view is one).
        Apps::declare(&mut capabilities);
        ServerConfig::new(capabilities)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.apps.list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.apps
            .read(&request.uri)
            .map(Into::into)
            .ok_or_else(|| ErrorData::resource_not_found(format!("no {}", request.uri), None))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let server = Server {
        count: Arc::default(),
        apps: apps(),
    };
    server
        .serve(interlude_server::checked_stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
