//! The demo's `ServerHandler`: its tools (the router of `tools.rs` and the release of
//! `release.rs`), its prompt, its resources (the app views), the seed-000 draft's
//! `interaction/notify`, and its tasks (`tasks/get`, `tasks/update`, `tasks/cancel`).

use interlude_server::Ask;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, tool_handler};
use serde_json::Value;

use crate::tools::DemoServer;

/// The demo's tools, built once. `#[tool_handler]` without a router builds `Self::tool_router()`
/// (every tool's description and schemas) for each call and keeps it until the call ends: ≈ 4 KiB
/// for every question a person has not answered yet.
static TOOLS: std::sync::LazyLock<rmcp::handler::server::router::tool::ToolRouter<DemoServer>> =
    std::sync::LazyLock::new(|| DemoServer::tool_router() + DemoServer::release_tools());

#[tool_handler(router = TOOLS)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_tasks()
            .build();
        interlude_server::apps::Apps::declare_with_elicitation(&mut capabilities);
        info.capabilities = capabilities;
        info.server_info = Implementation::new("interlude-demo", env!("CARGO_PKG_VERSION"))
            .with_title("Interlude demo");
        info.instructions = Some(
            "Interlude's demo server: every tool asks the person something, in either protocol era."
                .into(),
        );
        info
    }

    /// The User Interaction draft's `interaction/notify` (seed 000): answered once the
    /// interaction is over, for interactions this server created for this client only.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        if request.method != interlude_server::interaction::NOTIFY_METHOD {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {}", request.method),
                None,
            ));
        }
        self.ask
            .interactions()
            .notify(request.params.as_ref(), &context, self.flows.as_ref())
            .await
            .map(rmcp::model::CustomResult)
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().get(&request, &requestor).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<(), ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().update(request, &requestor).await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<(), ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().cancel(&request, &requestor).await
    }

    async fn list_prompts(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        Ok(rmcp::model::ListPromptsResult::with_all_items(
            crate::prompts::prompts(),
        ))
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        if request.name != crate::prompts::TRIP_BRIEF {
            return Err(ErrorData::invalid_params(
                format!("no prompt `{}`", request.name),
                None,
            ));
        }
        let city = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("city"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let ask = Ask::for_prompt(&self.ask, &request, context);
        interlude_server::respond_prompt(crate::prompts::trip_brief(ask, city.as_deref()).await)
    }

    async fn list_resources(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        Ok(rmcp::model::ListResourcesResult::with_all_items(
            crate::apps::APPS.list(),
        ))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        crate::apps::APPS
            .read(&request.uri)
            .map(Into::into)
            .ok_or_else(|| {
                ErrorData::resource_not_found(format!("no resource {}", request.uri), None)
            })
    }
}

/// The names of the demo's tools.
#[cfg(test)]
pub(crate) fn tool_names() -> Vec<String> {
    TOOLS
        .list_all()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}
