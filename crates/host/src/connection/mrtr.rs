//! The 2026-07-28 era's rounds (MRTR): the `inputRequests` of one `input_required` result
//! answered by the person, one at a time, in key order — never several requests behind the
//! person's back. The loop that retries the call with the answers and the echoed
//! `requestState` is `Connection::drive`'s.

use std::collections::BTreeMap;

use interlude_engine::{CallId, ElicitParams};
use interlude_protocol::ProtocolEra;
use rmcp::model::InputRequest;
use serde_json::Value;

use super::Connection;
use crate::host::config::HostError;

impl Connection {
    /// Answers one round's `requests`: each goes to the engine and the person in turn (the
    /// call's timeout paused meanwhile); the answers come back keyed as asked.
    pub(super) async fn answer_round(
        &self,
        call: CallId,
        requests: BTreeMap<String, InputRequest>,
    ) -> Result<BTreeMap<String, Value>, HostError> {
        let server = &self.inner.info.name;
        let shared = &self.inner.shared;
        let mut responses = BTreeMap::new();
        // One at a time, in key order: never several questions behind the person's back.
        for (key, request) in requests {
            let InputRequest::Elicitation(elicit) = request else {
                return Err(HostError::Refused {
                    server: server.clone(),
                    reason: format!(
                        "input request `{key}` is not an elicitation (sampling and roots are not declared)"
                    ),
                });
            };
            // rmcp keeps the request's `_meta` apart from its params; the engine reads it
            // there (an app-rendered form names its view in it).
            let mut params = elicit.params;
            if let rmcp::model::ElicitRequestParams::FormElicitationParams {
                meta: meta @ None, ..
            } = &mut params
                && let Some(kept) = elicit.extensions.get::<rmcp::model::RequestMetaObject>()
                && !kept.is_empty()
            {
                *meta = Some(kept.clone());
            }
            let reply = {
                let _paused = self.inner.gate.pause();
                shared
                    .elicit(
                        self.inner.id,
                        server,
                        ProtocolEra::Mrtr,
                        ElicitParams::from(params),
                        Some(call),
                    )
                    .await
            };
            let result = reply.into_result().map_err(|e| HostError::Refused {
                server: server.clone(),
                reason: e.message.to_string(),
            })?;
            let value = serde_json::to_value(result).unwrap_or(Value::Null);
            responses.insert(key, value);
        }
        Ok(responses)
    }
}
