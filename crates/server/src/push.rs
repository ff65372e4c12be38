//! The 2025 push era (2025-06-18, 2025-11-25): `elicitation/create` sent to the client while the
//! tool call is in flight. rmcp routes it on the tool call's own stream over streamable HTTP.
//!
//! Each request carries the JSON-RPC id of the call it serves in its `_meta`
//! ([`RELATED_REQUEST_ID_KEY`]), so a host can tie it to the right call even over stdio, where
//! several calls share one pipe. Deliberately not here: anything of the 2026-07-28 era (see
//! `round_trip`), and validation of the answer (see `ask`).

use interlude_protocol::RELATED_REQUEST_ID_KEY;
use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, NumberOrString,
    RequestId, RequestMetaObject,
};
use serde_json::Value;

use crate::ask::{Ask, AskError};

pub(crate) async fn elicit_form(
    ask: &Ask,
    message: String,
    requested_schema: ElicitationSchema,
) -> Result<ElicitResult, AskError> {
    let params = ElicitRequestParams::FormElicitationParams {
        meta: Some(related_to(&ask.context.id)),
        message,
        requested_schema,
    };
    tracing::debug!(era = "push", "sending elicitation/create");
    let peer = &ask.context.peer;
    let request = peer.create_elicitation_with_timeout(params, ask.config.timeout);
    tokio::select! {
        result = request => Ok(result?),
        () = ask.context.ct.cancelled() => Ok(ElicitResult::new(ElicitationAction::Cancel)),
    }
}

/// The `_meta` of an elicitation raised while serving the request `call`.
fn related_to(call: &RequestId) -> RequestMetaObject {
    let id = match call {
        NumberOrString::Number(n) => Value::from(*n),
        NumberOrString::String(s) => Value::from(s.as_ref()),
    };
    let mut meta = RequestMetaObject::new();
    meta.insert(RELATED_REQUEST_ID_KEY.to_owned(), id);
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_call_id_keeps_its_json_type() {
        let number = related_to(&NumberOrString::Number(42));
        assert_eq!(number.get(RELATED_REQUEST_ID_KEY), Some(&json!(42)));
        let string = related_to(&NumberOrString::String("call-7".into()));
        assert_eq!(string.get(RELATED_REQUEST_ID_KEY), Some(&json!("call-7")));
        assert_eq!(
            serde_json::to_value(&string).ok(),
            Some(json!({ "dev.interlude/relatedRequestId": "call-7" }))
        );
    }
}
