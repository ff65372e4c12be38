//! A server of the tests' own, served in this process ([`crate::harness::Page::connect_in_process`]):
//! its tools, its app views if any (served by the toolkit's `Apps`), and what a call does. The
//! hostile app, the SDK-built question view and the argument shapes are each one of these.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use interlude_server::apps::Apps;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};

/// What a call of one of the server's tools does.
type OnCall = Arc<
    dyn Fn(
            CallToolRequestParams,
            RequestContext<RoleServer>,
        ) -> BoxFuture<'static, Result<CallToolResponse, ErrorData>>
        + Send
        + Sync,
>;

/// How the server declares its app views.
#[derive(Clone, Copy)]
enum Declares {
    /// No views.
    Nothing,
    /// The MCP Apps extension.
    Apps,
    /// The extension with SEP-3118's elicitation inside (questions asked in a view).
    AppsWithQuestions,
}

/// A server of the tests' own.
#[derive(Clone)]
pub(crate) struct TestServer {
    tools: Vec<Tool>,
    apps: Apps,
    declares: Declares,
    on_call: OnCall,
}

impl TestServer {
    /// A server with `tools`, whose calls `on_call` answers; no views.
    pub(crate) fn new<F, Fut>(tools: Vec<Tool>, on_call: F) -> Self
    where
        F: Fn(CallToolRequestParams, RequestContext<RoleServer>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'static,
    {
        TestServer {
            tools,
            apps: Apps::new(),
            declares: Declares::Nothing,
            on_call: Arc::new(move |request, context| Box::pin(on_call(request, context))),
        }
    }

    /// The same server with app views `apps` (the extension declared).
    pub(crate) fn with_apps(self, apps: Apps) -> Self {
        TestServer {
            apps,
            declares: Declares::Apps,
            ..self
        }
    }

    /// The same server with app views `apps` that questions may be asked in.
    pub(crate) fn with_question_views(self, apps: Apps) -> Self {
        TestServer {
            apps,
            declares: Declares::AppsWithQuestions,
            ..self
        }
    }
}

/// A tool named `name` taking `schema` (described by `description`).
pub(crate) fn tool(name: &str, description: &str, schema: serde_json::Value) -> Tool {
    Tool::new(
        name.to_owned(),
        description.to_owned(),
        Arc::new(schema.as_object().cloned().unwrap_or_default()),
    )
}

/// A call's result: `text`.
pub(crate) fn text_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(
        text.into(),
    )]))
}

impl rmcp::ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        let mut caps = ServerCapabilities::builder().enable_tools().build();
        match self.declares {
            Declares::Nothing => {}
            Declares::Apps => Apps::declare(&mut caps),
            Declares::AppsWithQuestions => Apps::declare_with_elicitation(&mut caps),
        }
        info.capabilities = caps;
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        (self.on_call)(request, context).await
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
            .ok_or_else(|| ErrorData::resource_not_found("no such resource", None))
    }
}
