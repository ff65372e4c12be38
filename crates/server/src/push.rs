//! The 2025 push era (2025-06-18, 2025-11-25): `elicitation/create` sent to the client while the
//! tool call is in flight. rmcp routes it on the tool call's own stream over streamable HTTP.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationSchema};

use crate::ask::{Ask, AskError};

pub(crate) async fn elicit_form(
    ask: &Ask,
    message: String,
    requested_schema: ElicitationSchema,
) -> Result<ElicitResult, AskError> {
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    };
    tracing::debug!(era = "push", "sending elicitation/create");
    let peer = &ask.context.peer;
    let request = peer.create_elicitation_with_timeout(params, ask.config.timeout);
    tokio::select! {
        result = request => Ok(result?),
        () = ask.context.ct.cancelled() => Ok(ElicitResult::new(rmcp::model::ElicitationAction::Cancel)),
    }
}
