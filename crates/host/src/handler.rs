//! The rmcp `ClientHandler` of one connection: declares what the host supports and forwards
//! every push-era request for a person to the engine.
//!
//! rmcp turns an `elicitation/create` whose schema it cannot parse (nested objects, vendor types)
//! into a custom request; it is caught here and sent through the same engine path, which answers
//! -32602 naming the property instead of "method not found".

use std::sync::{Arc, Mutex};

use interlude_engine::{ElicitParams, Reply};
use interlude_protocol::ProtocolEra;
use interlude_protocol::url::ELICITATION_COMPLETE_METHOD;
use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, CustomRequest, CustomResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ErrorCode,
    ErrorData, FormElicitationCapability, Implementation, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde_json::Value;

use crate::runtime::Host;
use crate::timer::PauseGate;

#[derive(Clone)]
pub(crate) struct HostClient {
    pub(crate) host: Host,
    pub(crate) server: String,
    pub(crate) version: ProtocolVersion,
    pub(crate) gate: PauseGate,
    /// Tool calls in flight on this connection: when exactly one is, a push-era request is
    /// attributed to it.
    pub(crate) inflight: Arc<Mutex<Vec<String>>>,
}

impl HostClient {
    fn current_tool(&self) -> Option<String> {
        let calls = self.inflight.lock().ok()?;
        match calls.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    async fn ask(&self, params: ElicitParams, context: &RequestContext<RoleClient>) -> Reply {
        let era = context
            .peer
            .peer_info()
            .map_or(ProtocolEra::Push, |i| ProtocolEra::of(&i.protocol_version));
        let _paused = self.gate.pause();
        let ask = self
            .host
            .elicit(&self.server, era, params, self.current_tool());
        tokio::select! {
            reply = ask => reply,
            () = context.ct.cancelled() => Reply::Cancel,
        }
    }
}

pub(crate) fn reply_to_result(reply: Reply) -> Result<ElicitResult, ErrorData> {
    match reply {
        Reply::Accept(content) => {
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
        }
        Reply::Decline => Ok(ElicitResult::new(ElicitationAction::Decline)),
        Reply::Cancel => Ok(ElicitResult::new(ElicitationAction::Cancel)),
        Reply::Error {
            code,
            message,
            data,
        } => Err(ErrorData::new(ErrorCode(code), message, data)),
    }
}

impl ClientHandler for HostClient {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        reply_to_result(self.ask(ElicitParams::from(request), &context).await)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "elicitation/create" {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {}", request.method),
                None,
            ));
        }
        let params = ElicitParams::Json(request.params.unwrap_or(Value::Null));
        let result = reply_to_result(self.ask(params, &context).await)?;
        serde_json::to_value(result)
            .map(CustomResult)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == ELICITATION_COMPLETE_METHOD {
            // URL mode is not declared by this host; a server that sends this anyway is noted.
            tracing::debug!(server = %self.server, "ignoring elicitation/complete for an undeclared mode");
        }
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        let mut info = ClientConfig::default();
        info.protocol_version = self.version.clone();
        info.capabilities = capabilities;
        info.client_info = Implementation::new(
            self.host.config.client_name.clone(),
            env!("CARGO_PKG_VERSION"),
        );
        info
    }
}
