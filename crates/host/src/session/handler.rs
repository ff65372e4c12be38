//! The rmcp `ClientHandler` of one connection: declares what the host was configured to
//! declare and forwards every push-era request for a person to the engine, tied to the call it
//! belongs to when the transport tap could tell.
//!
//! rmcp turns an `elicitation/create` whose schema it cannot parse (nested objects, vendor types)
//! into a custom request; it is caught here and sent through the same engine path, which answers
//! -32602 naming the property instead of "method not found".

use interlude_engine::{ElicitParams, Input, Reply, ServerId, UrlInput};
use interlude_protocol::ProtocolEra;
use interlude_protocol::url::{ELICITATION_COMPLETE_METHOD, ElicitationComplete};
use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, CustomRequest, CustomResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorCode, ErrorData,
    FormElicitationCapability, Implementation, ProgressNotificationParam, ProtocolVersion,
    Resource, ResourceUpdatedNotificationParam, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient};
use serde_json::Value;

use crate::clock::now_ms;
use crate::hub::inputs::{HostInput, ServerUpdate};
use crate::hub::shared::Shared;
use crate::hub::timer::PauseGate;
use crate::record::catalog::ListKind;
use crate::record::registry::ServerLog;
use crate::session::interaction;
use crate::transport::failure::{self, EndReason};
use crate::transport::tap::RaisedBy;

#[derive(Clone)]
pub(crate) struct HostClient {
    pub(crate) shared: Shared,
    pub(crate) server: ServerId,
    pub(crate) server_name: std::sync::Arc<str>,
    pub(crate) version: ProtocolVersion,
    /// Declare the Tasks extension (defined for 2026-07-28: not to a server pinned to 2025).
    pub(crate) tasks: bool,
    pub(crate) gate: PauseGate,
    /// Word when an answer to a server request has left (for the seed-000 draft).
    pub(crate) answered: std::sync::Arc<crate::transport::tap::Answered>,
    /// How many of this server's requests the host refused (the log says some of them).
    pub(crate) refused: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl HostClient {
    pub(crate) async fn ask(
        &self,
        params: ElicitParams,
        context: &RequestContext<RoleClient>,
    ) -> Reply {
        let era = context
            .peer
            .peer_info()
            .map_or(ProtocolEra::Push, |i| ProtocolEra::of(&i.protocol_version));
        let call = context.extensions.get::<RaisedBy>().map(|l| l.0);
        let _paused = self.gate.pause();
        let ask = self
            .shared
            .request(self.server, &self.server_name, era, params, call);
        let reply = tokio::select! {
            reply = ask => reply,
            () = context.ct.cancelled() => Reply::Answered(interlude_protocol::Answer::Cancelled),
        };
        // A server can send thousands: the log says the 1st, 2nd, 4th, 8th… with the count.
        if let Reply::Error { code, message, .. } = &reply
            && let Some(count) = crate::transport::failure::worth_saying(&self.refused)
        {
            tracing::warn!(
                "refused a request of server \"{}\" for the person: {} (JSON-RPC error {code}; \
                 {count} refused so far)",
                self.server_name,
                message.trim_end_matches('.')
            );
        }
        reply
    }

    /// A server's `interaction/create`: presented through the engine like any request, answered in
    /// the draft's shapes. Unknown to a host that did not declare the draft (`-32601`).
    async fn interaction_create(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        if !interaction::declared(self.shared.config.declare) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method not found: {} (this client did not declare userInteraction)",
                    request.method
                ),
                None,
            ));
        }
        // The notify must follow the answer on the wire: word when it leaves.
        let answered = self.answered.wait(context.id.clone());
        let params = request.params.unwrap_or(Value::Null);
        let ua_id = (params.get("type").and_then(Value::as_str) == Some("ua"))
            .then(|| params.get("id").and_then(Value::as_str).map(str::to_owned))
            .flatten();
        let reply = self.ask(ElicitParams::Interaction(params), &context).await;
        if reply == Reply::Consented
            && let Some(id) = ua_id
        {
            interaction::track(
                self.shared.clone(),
                self.server,
                self.server_name.to_string(),
                context.peer.clone(),
                id,
                Some(answered),
            );
        }
        reply.into_interaction_result().map(CustomResult)
    }
}

impl HostClient {
    async fn list_changed(&self, peer: &Peer<RoleClient>, list: ListKind) {
        list_changed(&self.shared, self.server, &self.server_name, peer, list).await;
    }
}

/// Server `server` said its `list` changed (in a 2025 session's notification, or on a
/// 2026-07-28 `subscriptions/listen` stream): its tools or resources are listed again for the
/// record, then surfaces hear which list changed.
pub(crate) async fn list_changed(
    shared: &Shared,
    server: ServerId,
    server_name: &str,
    peer: &Peer<RoleClient>,
    list: ListKind,
) {
    match list {
        ListKind::Tools => match peer.list_all_tools().await {
            Ok(tools) => {
                shared.submit(HostInput::Server(ServerUpdate::Tools { id: server, tools }))
            }
            Err(e) => {
                let why = failure::service(&e, &EndReason::default());
                tracing::warn!(server = %server_name, "cannot list the changed tools: {why}");
            }
        },
        ListKind::Resources => {
            let resources = list_resources(peer, server_name).await;
            shared.submit(HostInput::Server(ServerUpdate::Resources {
                id: server,
                resources,
            }));
        }
        ListKind::Prompts => {}
    }
    shared.submit(HostInput::Server(ServerUpdate::ListChanged {
        id: server,
        list,
    }));
}

/// Server `server` said resource `uri` changed; the record keeps it if it is subscribed to.
pub(crate) fn resource_updated(shared: &Shared, server: ServerId, uri: String) {
    shared.submit(HostInput::Server(ServerUpdate::ResourceUpdated {
        id: server,
        uri,
    }));
}

impl ClientHandler for HostClient {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = ElicitParams::from(request).with_request_meta(&context.meta);
        self.ask(params, &context).await.into_result()
    }

    // Sampling is deprecated by SEP-2577 in rmcp's types; servers of both eras still ask for it.
    #[allow(deprecated)]
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        if !self.shared.config.declare.sampling {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "method not found: sampling/createMessage (this client did not declare sampling)",
                None,
            ));
        }
        let params = serde_json::to_value(params)
            .map_err(|e| ErrorData::invalid_params(format!("sampling params: {e}"), None))?;
        let result = self
            .ask(ElicitParams::Sampling(params), &context)
            .await
            .into_sampling_result()?;
        serde_json::from_value(result)
            .map_err(|e| ErrorData::internal_error(format!("sampling result: {e}"), None))
    }

    #[allow(deprecated)] // rmcp marks roots deprecated by SEP-2577; both eras still use them.
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, ErrorData> {
        if !self.shared.config.declare_roots {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "roots/list: this client does not declare roots",
                None,
            ));
        }
        Ok(crate::hub::roots::list_result(&self.shared.roots()))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method == interlude_protocol::interaction::CREATE_METHOD {
            return self.interaction_create(request, context).await;
        }
        if request.method != "elicitation/create" {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {}", request.method),
                None,
            ));
        }
        let params = ElicitParams::Json(request.params.unwrap_or(Value::Null))
            .with_request_meta(&context.meta);
        let result = self.ask(params, &context).await.into_result()?;
        serde_json::to_value(result)
            .map(CustomResult)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method != ELICITATION_COMPLETE_METHOD {
            return;
        }
        let params = notification
            .params
            .and_then(|p| serde_json::from_value::<ElicitationComplete>(p).ok());
        match params {
            // Unknown and repeated ids are the engine's to ignore.
            Some(done) => self
                .shared
                .submit(HostInput::Engine(Input::Url(UrlInput::Completed {
                    server: self.server,
                    elicitation_id: done.elicitation_id,
                }))),
            None => tracing::info!(
                server = %self.server_name,
                "ignoring {ELICITATION_COMPLETE_METHOD} without a string `elicitationId`"
            ),
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // The core knows whose it is (if anyone's).
        self.shared.submit(HostInput::Progress {
            server: self.server,
            token: params.progress_token,
            progress: params.progress,
            total: params.total,
            message: params.message,
        });
    }

    // Logging is the 2025 eras' (SEP-2577 deprecates it); servers of those eras still use it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".to_owned());
        self.shared
            .submit(HostInput::Server(ServerUpdate::Logged(ServerLog {
                server: self.server,
                server_name: self.server_name.to_string(),
                level,
                logger: params.logger,
                data: params.data,
                at_ms: now_ms(),
            })));
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.list_changed(&context.peer, ListKind::Tools).await;
    }

    async fn on_resource_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.list_changed(&context.peer, ListKind::Resources).await;
    }

    async fn on_prompt_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.list_changed(&context.peer, ListKind::Prompts).await;
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        resource_updated(&self.shared, self.server, params.uri);
    }

    fn get_info(&self) -> ClientConfig {
        let declare = self.shared.config.declare;
        let mut capabilities = ClientCapabilities::default();
        if declare.form || declare.url {
            let mut elicitation = ElicitationCapability::new();
            if declare.form {
                elicitation = elicitation.with_form(FormElicitationCapability::new());
            }
            if declare.url {
                elicitation = elicitation.with_url(UrlElicitationCapability::new());
            }
            capabilities.elicitation = Some(elicitation);
        }
        #[allow(deprecated)]
        if declare.sampling {
            capabilities.sampling = Some(rmcp::model::SamplingCapability::default());
        }
        // Roots are answered from the configuration (none unless given), and said when they
        // change.
        #[allow(deprecated)]
        if self.shared.config.declare_roots {
            let mut roots = rmcp::model::RootsCapabilities::default();
            roots.list_changed = Some(true);
            capabilities.roots = Some(roots);
        }
        if declare.apps {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    interlude_protocol::apps::EXTENSION_ID.to_owned(),
                    interlude_protocol::apps::client_extension(declare.app_elicitation),
                );
        }
        if self.tasks {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    rmcp::model::JsonObject::new(),
                );
        }
        let mut info = ClientConfig::default();
        info.protocol_version = self.version.clone();
        info.capabilities = capabilities;
        info.client_info = Implementation::new(
            self.shared.config.client_name.clone(),
            env!("CARGO_PKG_VERSION"),
        );
        info
    }
}

/// The most resources kept per server.
const MAX_RESOURCES: usize = 1000;

/// A server's resources (the first [`MAX_RESOURCES`]); none, logged, when it cannot list them.
pub(crate) async fn list_resources(peer: &Peer<RoleClient>, server: &str) -> Vec<Resource> {
    match peer.list_all_resources().await {
        Ok(mut resources) => {
            resources.truncate(MAX_RESOURCES);
            resources
        }
        Err(e) => {
            let why = failure::service(&e, &EndReason::default());
            tracing::warn!(%server, "cannot list its resources: {why}");
            Vec::new()
        }
    }
}
