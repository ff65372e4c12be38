//! The 2026-07-28 era's rounds (MRTR): the `inputRequests` of one `input_required` result
//! answered by the person, one at a time, in key order — never several requests behind the
//! person's back. The loops that retry with the answers and the echoed `requestState` are the
//! call's (`crate::call`, a tool call) and the catalog's (a prompt, a resource read), each
//! through [`Connection::next_round`]. Here because a round belongs to whichever request of the
//! session returned it, not to tool calls alone.

use std::collections::BTreeMap;

use std::time::Duration;

use interlude_engine::{CallId, ElicitParams};
use interlude_protocol::ProtocolEra;
use rmcp::model::{InputRequest, InputRequiredResult};
use serde_json::Value;

use super::Connection;
use crate::hub::config::HostError;

/// What the next try of a request carries after an `input_required` round.
pub(crate) struct NextRound {
    /// The answers, keyed as asked (`None` for a round that asked nothing).
    pub(crate) input_responses: Option<BTreeMap<String, Value>>,
    /// The server's `requestState`, echoed.
    pub(crate) request_state: Option<String>,
}

impl Connection {
    /// Answers an `input_required` result for request `call` (a tool call; `None` for a prompt
    /// or a resource read, which belong to no call): what the next try carries. A round that
    /// asks nothing (load shedding, polling) waits a little first, longer each time.
    pub(crate) async fn next_round(
        &self,
        call: Option<CallId>,
        ir: InputRequiredResult,
        state_only_rounds: &mut u32,
    ) -> Result<NextRound, HostError> {
        let requests = ir.input_requests.unwrap_or_default();
        if requests.is_empty() {
            *state_only_rounds += 1;
            let wait = Duration::from_millis(100u64 << (*state_only_rounds).min(4));
            tokio::time::sleep(wait).await;
        }
        let responses = self.answer_round(call, requests).await?;
        Ok(NextRound {
            input_responses: (!responses.is_empty()).then_some(responses),
            request_state: ir.request_state,
        })
    }

    /// Answers one round's `requests`: each goes to the engine and the person in turn (the
    /// call's timeout paused meanwhile); the answers come back keyed as asked.
    pub(crate) async fn answer_round(
        &self,
        call: Option<CallId>,
        requests: BTreeMap<String, InputRequest>,
    ) -> Result<BTreeMap<String, Value>, HostError> {
        let server = &self.inner.info.name;
        let shared = &self.inner.shared;
        let mut responses = BTreeMap::new();
        // One at a time, in key order: never several questions behind the person's back.
        for (key, request) in requests {
            let elicit = match request {
                InputRequest::Elicitation(elicit) => elicit,
                InputRequest::ListRoots(_) if !shared.config.declare_roots => {
                    return Err(HostError::Refused {
                        server: server.clone(),
                        reason: format!(
                            "input request `{key}` asks for roots, which this client did not declare"
                        ),
                    });
                }
                // The roots are the configuration's: nobody is asked.
                InputRequest::ListRoots(_) => {
                    let roots = crate::hub::roots::list_result(&shared.roots());
                    responses.insert(key, serde_json::to_value(roots).unwrap_or(Value::Null));
                    continue;
                }
                InputRequest::CreateMessage(sampling) => {
                    let value = self.sample(call, &key, sampling).await?;
                    responses.insert(key, value);
                    continue;
                }
                other => {
                    let method = serde_json::to_value(&other)
                        .ok()
                        .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned))
                        .unwrap_or_else(|| "an unknown method".to_owned());
                    return Err(HostError::Refused {
                        server: server.clone(),
                        reason: format!(
                            "input request `{key}` asks for {method}, which this client does not know"
                        ),
                    });
                }
            };
            let mut params = ElicitParams::from(elicit.params);
            if let Some(meta) = elicit.extensions.get::<rmcp::model::RequestMetaObject>() {
                params = params.with_request_meta(meta);
            }
            let reply = {
                let _paused = self.inner.gate.pause();
                shared
                    .request(
                        self.inner.id,
                        &self.inner.name,
                        ProtocolEra::Mrtr,
                        params,
                        call,
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

    /// A round's `sampling/createMessage`: the person writes the model's reply, or the call
    /// ends refused.
    #[allow(deprecated)]
    async fn sample(
        &self,
        call: Option<CallId>,
        key: &str,
        request: rmcp::model::CreateMessageRequest,
    ) -> Result<Value, HostError> {
        let server = &self.inner.info.name;
        let shared = &self.inner.shared;
        let refused = |reason: String| HostError::Refused {
            server: server.clone(),
            reason,
        };
        if !shared.config.declare.sampling {
            return Err(refused(format!(
                "input request `{key}` asks for sampling, which this client did not declare"
            )));
        }
        let params = serde_json::to_value(&request.params)
            .map_err(|e| refused(format!("input request `{key}`: {e}")))?;
        let reply = {
            let _paused = self.inner.gate.pause();
            shared
                .request(
                    self.inner.id,
                    &self.inner.name,
                    ProtocolEra::Mrtr,
                    ElicitParams::Sampling(params),
                    call,
                )
                .await
        };
        // A round's answers carry no refusal: a person who declines to write the reply ends
        // the call, said as such.
        if let interlude_engine::Reply::Answered(answer) = &reply
            && !matches!(answer, interlude_protocol::Answer::Accepted(_))
        {
            return Err(HostError::not_given(
                server,
                format!("a model's reply (input request `{key}`)"),
                answer,
            ));
        }
        reply
            .into_sampling_result()
            .map_err(|e| refused(e.message.to_string()))
    }
}
