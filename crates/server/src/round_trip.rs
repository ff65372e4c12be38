//! The 2026-07-28 multi round-trip era: questions leave as `input_required` results and answers
//! come back on the retried request.
//!
//! Questions are keyed by their order within the handler (`q0`, `q1`, …), so re-running the same
//! handler code meets the same keys; a question the author named ([`Ask::key`](crate::Ask::key))
//! is keyed by its name instead (it still counts in the order). A key used twice in one call is
//! refused before anything is sent. Every kind of question — a form, a URL, a sampling request,
//! a roots listing — goes through the same keys and the same sealed state; what the answer must
//! look like is checked by the kind's reader above this module. Answers of earlier rounds are
//! kept in the sealed `requestState` (HMAC-SHA256 with a time limit,
//! [`StateSeal`](crate::state_seal::StateSeal)) together with the call it belongs to (a digest
//! of the tool name and its arguments): a state sent with another call is refused as such.
//! Only the key the previous round asked is taken from `inputResponses`; anything else the
//! client sends there is ignored (2026-07-28 MRTR, "Server Requirements").
//!
//! A sealed state can be sent again: the server keeps nothing per call. For form answers that
//! gives a client nothing it could not send anyway (the answers are the client's own). For a URL
//! flow it would: the flow's outcome (a payment confirmed on the server's page) is something the
//! client cannot produce. So each round that reads a completed flow takes its outcome with a
//! compare-and-set in the store ([`FlowStore::claim`](crate::url::FlowStore::claim)): the state
//! carries the token of the previous take (none before the first), the store moves it to a new
//! one, and only the state sealed after that carries the new token. A state sent a second time
//! — in this process or another sharing the store — finds the token moved on and is refused.

use std::collections::{BTreeMap, BTreeSet};

use interlude_schema::FormSchema;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationSchema, InputRequest,
    InputRequiredResult, InputResponses,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::AskConfig;
use crate::error::AskError;
use crate::url::store::now_ms;
use crate::wire::{add_view, field_error, wire_schema};

/// What a state carries from one round to the next. Sealed
/// ([`StateSeal`](crate::state_seal::StateSeal)) as its call's digest (32 bytes; the call is in
/// the state so that a state of another call can be told apart from a forged one) followed by
/// this as JSON, with one-letter names: the whole is HMAC'd twice a round (sealed, then
/// opened), and a state of one question fits one SHA-256 block.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SealedState {
    /// Answers of earlier rounds, by question key.
    #[serde(rename = "a", default, skip_serializing_if = "BTreeMap::is_empty")]
    answers: BTreeMap<String, Value>,
    /// The keys the previous round asked (one, or several for [`Ask::all`](crate::Ask::all)).
    #[serde(rename = "p", default, skip_serializing_if = "BTreeSet::is_empty")]
    pending: BTreeSet<String>,
    /// The URL flow each URL question started, by question key (its id names it in the
    /// server's store; the seal keeps a client from swapping in another).
    #[serde(rename = "f", default, skip_serializing_if = "BTreeMap::is_empty")]
    flows: BTreeMap<String, String>,
    /// For each URL question whose completed flow this call took, the token of the last take
    /// (see the module documentation).
    #[serde(rename = "k", default, skip_serializing_if = "BTreeMap::is_empty")]
    claims: BTreeMap<String, String>,
}

/// The digest of a call (`Rounds::new`): what its states are bound to.
type Binding = [u8; 32];

impl SealedState {
    /// The body to seal: `call`, then this state as JSON.
    fn body(&self, call: &Binding) -> Result<Vec<u8>, serde_json::Error> {
        let mut body = Vec::with_capacity(128);
        body.extend_from_slice(call);
        serde_json::to_writer(&mut body, self)?;
        Ok(body)
    }

    /// Opens `sealed` for the call bound to `call`.
    fn open(config: &AskConfig, sealed: &str, call: &Binding) -> Result<SealedState, AskError> {
        let body = match config.seal.open(sealed, now_ms()) {
            Ok(body) => body,
            Err(e) => {
                return legacy::open(config, sealed, call)
                    .unwrap_or_else(|| Err(AskError::RequestState(e.to_string())));
            }
        };
        let Some((bound, json)) = body.split_first_chunk::<32>() else {
            return Err(AskError::RequestState("the state is too short".into()));
        };
        if bound != call {
            return Err(another_call());
        }
        serde_json::from_slice(json).map_err(|e| AskError::RequestState(e.to_string()))
    }
}

fn another_call() -> AskError {
    tracing::warn!(
        era = "mrtr",
        "a requestState sealed for another call was sent; refused"
    );
    AskError::StateOfAnotherCall
}

/// States sealed by Interlude 0.1 (`interlude/ask/state/v3`: JSON with long names and the
/// call's digest in base64url), still opened so that a server upgraded while a call was waiting
/// for its person (with a key of its own, [`AskConfig::with_key`]) loses no answer. Tried only
/// when a state does not open as the current format.
mod legacy {
    use super::*;

    const CONTEXT: &[u8] = b"interlude/ask/state/v3";

    #[derive(Deserialize)]
    struct V3 {
        #[serde(default)]
        answers: BTreeMap<String, Value>,
        #[serde(default)]
        pending: BTreeSet<String>,
        #[serde(default)]
        flows: BTreeMap<String, String>,
        #[serde(default)]
        call: String,
        #[serde(default)]
        claims: BTreeMap<String, String>,
    }

    /// `None` when `sealed` is not a state of this format sealed by this server's key.
    pub(super) fn open(
        config: &AskConfig,
        sealed: &str,
        call: &Binding,
    ) -> Option<Result<SealedState, AskError>> {
        let v3 = config
            .seal
            .legacy()
            .open_json_with::<V3>(sealed, CONTEXT)
            .ok()?;
        if v3.call != crate::url::store::base64url(call) {
            return Some(Err(another_call()));
        }
        Some(Ok(SealedState {
            answers: v3.answers,
            pending: v3.pending,
            flows: v3.flows,
            claims: v3.claims,
        }))
    }

    #[cfg(test)]
    pub(super) fn seal(config: &AskConfig, state: &SealedState, call: &Binding) -> String {
        let v3 = serde_json::json!({
            "answers": state.answers,
            "pending": state.pending,
            "flows": state.flows,
            "call": crate::url::store::base64url(call),
            "claims": state.claims,
        });
        config
            .seal
            .legacy()
            .seal_json_with(
                &v3,
                &rmcp::model::SealOptions::new().associated_data(CONTEXT),
            )
            .unwrap_or_default()
    }
}

/// A SHA-256 context that `serde_json` writes into.
struct Hasher(ring::digest::Context);

impl std::io::Write for Hasher {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The answer to a URL question: the person's action, and the flow it is about.
#[derive(Debug)]
pub(crate) struct UrlRound {
    pub(crate) key: String,
    pub(crate) flow: String,
    pub(crate) result: ElicitResult,
    /// The token of this call's last take of the flow's outcome, if it took it before.
    pub(crate) claim: Option<String>,
}

/// The round-trip state of one tool call. Boxed, and absent for push-era calls: every `Ask` has
/// one, and a push-era call may wait for a person for a long time (`docs/benchmarks.md`, "Memory
/// per pending elicitation").
#[derive(Debug)]
pub(crate) struct RoundTrip(Option<Box<Rounds>>);

#[derive(Debug)]
struct Rounds {
    /// What the state is bound to: the digest of the call.
    binding: Binding,
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
    state: Option<SealedState>,
    next_question: usize,
    /// The key the author chose for the next question, if any.
    named: Option<String>,
    /// The keys this run of the handler asked (or read) so far.
    asked: BTreeSet<String>,
    /// Answers a call without a `requestState` carried, taken when the server allows it
    /// ([`AskConfig::with_stateless_answers`]).
    unsealed: Option<InputResponses>,
    /// Inside [`Ask::all`](crate::Ask::all): the questions of this round, asked together when
    /// it ends instead of one by one.
    gathering: Option<Vec<(String, InputRequest)>>,
}

/// What a round trip is bound to: a tool call or a prompt request, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Served {
    /// `tools/call`.
    Tool,
    /// `prompts/get`.
    Prompt,
}

impl RoundTrip {
    pub(crate) fn new(
        served: Served,
        name: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Self {
        RoundTrip(Some(Box::new(Rounds::new(
            served,
            name,
            arguments,
            input_responses,
            request_state,
        ))))
    }

    /// Names the next question `key` (2026-07-28 only: a push-era call has no keys).
    pub(crate) fn name_next(&mut self, key: String) {
        if let Some(rounds) = self.0.as_mut() {
            rounds.named = Some(key);
        }
    }

    /// The key of the next question, taken when the question is made (not when it is first
    /// polled): questions made together for [`Ask::all`](crate::Ask::all) keep their names.
    pub(crate) fn reserve_key(&mut self) -> Result<String, AskError> {
        self.0
            .get_or_insert_with(|| Box::new(Rounds::empty()))
            .next_key()
    }

    /// From now on, unanswered questions are gathered instead of asked.
    pub(crate) fn start_gathering(&mut self) {
        self.0
            .get_or_insert_with(|| Box::new(Rounds::empty()))
            .gathering = Some(Vec::new());
    }

    /// Ends gathering: the `input_required` result asking every gathered question at once, or
    /// `None` when they were all answered.
    pub(crate) fn finish_gathering(&mut self, config: &AskConfig) -> Option<AskError> {
        let rounds = self.0.as_mut()?;
        let gathered = rounds.gathering.take()?;
        if gathered.is_empty() {
            return None;
        }
        Some(rounds.seal(config, gathered))
    }

    /// The client's answer to the next question (its key and the raw JSON), or the
    /// `input_required` result that asks `request()` under that key.
    pub(crate) fn next_input(
        &mut self,
        config: &AskConfig,
        key: Option<Result<String, AskError>>,
        request: impl FnOnce() -> Result<InputRequest, AskError>,
    ) -> Result<(String, Value), AskError> {
        self.0
            .get_or_insert_with(|| Box::new(Rounds::empty()))
            .next_input(config, key, request)
    }

    /// The answer to the next question, a URL one: `start` starts its flow (only when the
    /// question is asked for the first time) and gives its id and URL.
    pub(crate) fn next_url(
        &mut self,
        config: &AskConfig,
        message: String,
        start: impl FnOnce() -> Result<(String, String), AskError>,
    ) -> Result<UrlRound, AskError> {
        self.0
            .get_or_insert_with(|| Box::new(Rounds::empty()))
            .next_url(config, message, start)
    }

    /// Asks URL question `key` again for the same flow (the person said they were done, but
    /// the flow is not finished): the `input_required` result to return.
    pub(crate) fn ask_url_again(
        &mut self,
        config: &AskConfig,
        key: String,
        message: String,
        url: String,
    ) -> AskError {
        let rounds = self.0.get_or_insert_with(|| Box::new(Rounds::empty()));
        let flow = match rounds.open(config) {
            Ok(state) => {
                state.answers.remove(&key);
                match state.flows.get(&key).cloned() {
                    Some(flow) => flow,
                    None => return AskError::RequestState(format!("no flow for question {key}")),
                }
            }
            Err(e) => return e,
        };
        rounds.url_question(config, key, flow, message, url)
    }

    /// Records that this round took the outcome of URL question `key`'s flow with `token`: a
    /// state sealed later in this call carries it.
    pub(crate) fn claimed(&mut self, key: &str, token: String) {
        if let Some(state) = self.0.as_mut().and_then(|r| r.state.as_mut()) {
            state.claims.insert(key.to_owned(), token);
        }
    }

    /// The state of a push-era call, which never asks through round trips.
    pub(crate) fn unused() -> Self {
        RoundTrip(None)
    }

    /// The answer to the next question, a form (its key and the raw JSON), or the
    /// `input_required` result that asks it; [`elicit_result`] reads the answer.
    pub(crate) fn next_form_input(
        &mut self,
        config: &AskConfig,
        key: Option<Result<String, AskError>>,
        message: String,
        schema: &FormSchema,
        wire: Option<&ElicitationSchema>,
        view: Option<&str>,
    ) -> Result<(String, Value), AskError> {
        // Only 2026-07-28 calls ask through round trips, and their `Ask` has the state; should a
        // push-era one ever do so, it starts from an empty state bound to nothing.
        self.0
            .get_or_insert_with(|| Box::new(Rounds::empty()))
            .next_form_input(config, key, message, schema, wire, view)
    }
}

impl Rounds {
    fn new(
        served: Served,
        name: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Self {
        let mut h = Hasher(ring::digest::Context::new(&ring::digest::SHA256));
        h.0.update(match served {
            Served::Tool => b"interlude/ask/v1\0tools/call\0".as_slice(),
            Served::Prompt => b"interlude/ask/v1\0prompts/get\0".as_slice(),
        });
        h.0.update(name.as_bytes());
        h.0.update(b"\0");
        if let Some(args) = arguments {
            // serde_json writes objects in insertion order; a retry carries the same arguments
            // verbatim, so the digest is stable across rounds. Written into the digest as they
            // are serialized (no copy); writing into it cannot fail.
            let _ = serde_json::to_writer(&mut h, args);
        }
        let mut binding = [0; 32];
        binding.copy_from_slice(h.0.finish().as_ref());
        Rounds {
            binding,
            input_responses,
            request_state,
            state: None,
            next_question: 0,
            named: None,
            asked: BTreeSet::new(),
            unsealed: None,
            gathering: None,
        }
    }

    fn empty() -> Self {
        Rounds {
            binding: [0; 32],
            input_responses: None,
            request_state: None,
            state: None,
            next_question: 0,
            named: None,
            asked: BTreeSet::new(),
            unsealed: None,
            gathering: None,
        }
    }

    /// The key of the next question: the author's name for it, else `q<n>` by its order.
    /// Refused when empty or already used by this call.
    fn next_key(&mut self) -> Result<String, AskError> {
        let key = self
            .named
            .take()
            .unwrap_or_else(|| format!("q{}", self.next_question));
        self.next_question += 1;
        if key.is_empty() {
            return Err(AskError::InvalidQuestion(
                "a question key cannot be empty".into(),
            ));
        }
        if !self.asked.insert(key.clone()) {
            return Err(AskError::InvalidQuestion(format!(
                "the question key {key:?} is used twice in one call"
            )));
        }
        Ok(key)
    }

    /// The `input_required` result asking `request` under `key` — or, while gathering for
    /// [`Ask::all`](crate::Ask::all), the question kept for the end of the round and a
    /// placeholder the caller drops.
    fn question(&mut self, config: &AskConfig, key: String, request: InputRequest) -> AskError {
        match self.gathering.as_mut() {
            Some(gathered) => {
                gathered.push((key, request));
                AskError::InputRequired(Box::new(InputRequiredResult::new(None, None)))
            }
            None => self.seal(config, vec![(key, request)]),
        }
    }

    /// Seals the state for the round asking `requests` (under their keys, the ones their
    /// answers are read from next time): the `input_required` result to return.
    fn seal(&mut self, config: &AskConfig, requests: Vec<(String, InputRequest)>) -> AskError {
        let state = self.state.get_or_insert_with(SealedState::default);
        state.pending = requests.iter().map(|(key, _)| key.clone()).collect();
        let body = match state.body(&self.binding) {
            Ok(body) => body,
            Err(e) => return AskError::RequestState(e.to_string()),
        };
        let request_state = config.seal.seal(&body, config.state_ttl, now_ms());
        let requests: BTreeMap<String, InputRequest> = requests.into_iter().collect();
        tracing::debug!(
            era = "mrtr",
            questions = requests.len(),
            "returning input_required"
        );
        AskError::InputRequired(Box::new(InputRequiredResult::new(
            Some(requests),
            Some(request_state),
        )))
    }

    fn next_input(
        &mut self,
        config: &AskConfig,
        key: Option<Result<String, AskError>>,
        request: impl FnOnce() -> Result<InputRequest, AskError>,
    ) -> Result<(String, Value), AskError> {
        let key = match key {
            Some(key) => key?,
            None => self.next_key()?,
        };
        let state = self.open(config)?;
        if let Some(answer) = state.answers.get(&key) {
            return Ok((key, answer.clone()));
        }
        if let Some(answer) = self.unsealed.as_ref().and_then(|u| u.get(&key)).cloned()
            && let Some(state) = self.state.as_mut()
        {
            state.answers.insert(key.clone(), answer.clone());
            return Ok((key, answer));
        }
        let request = request()?;
        Err(self.question(config, key, request))
    }

    fn open(&mut self, config: &AskConfig) -> Result<&mut SealedState, AskError> {
        if self.state.is_none() {
            let mut state = match &self.request_state {
                None => SealedState::default(),
                Some(sealed) => SealedState::open(config, sealed, &self.binding)?,
            };
            let pending = std::mem::take(&mut state.pending);
            match self.input_responses.take() {
                // Only what the previous round asked is taken; anything else is ignored.
                Some(mut responses) if self.request_state.is_some() => {
                    for key in pending {
                        if let Some(answer) = responses.remove(&key) {
                            state.answers.insert(key, answer);
                        }
                    }
                }
                Some(responses) if config.stateless_answers => self.unsealed = Some(responses),
                _ => {}
            }
            self.state = Some(state);
        }
        self.state
            .as_mut()
            .ok_or_else(|| AskError::RequestState("state unavailable".into()))
    }

    fn next_url(
        &mut self,
        config: &AskConfig,
        message: String,
        start: impl FnOnce() -> Result<(String, String), AskError>,
    ) -> Result<UrlRound, AskError> {
        let key = self.next_key()?;
        let state = self.open(config)?;
        if let (Some(answer), Some(flow)) = (state.answers.get(&key), state.flows.get(&key)) {
            let result = serde_json::from_value::<ElicitResult>(answer.clone()).map_err(|e| {
                AskError::InvalidAnswer(vec![interlude_schema::FieldError {
                    field: format!("inputResponses.{key}"),
                    message: format!("The answer under {key} is not an elicitation result: {e}."),
                }])
            })?;
            return Ok(UrlRound {
                claim: state.claims.get(&key).cloned(),
                key,
                flow: flow.clone(),
                result,
            });
        }
        let (flow, url) = start()?;
        Err(self.url_question(config, key, flow, message, url))
    }

    /// The `input_required` result asking URL question `key` about `flow`, with the state
    /// sealed.
    fn url_question(
        &mut self,
        config: &AskConfig,
        key: String,
        flow: String,
        message: String,
        url: String,
    ) -> AskError {
        match self.open(config) {
            Ok(state) => {
                state.flows.insert(key.clone(), flow);
            }
            Err(e) => return e,
        }
        // 2026-07-28 URL requests carry no `elicitationId`; rmcp's type always writes one, empty.
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            elicitation_id: String::new(),
        };
        tracing::debug!(era = "mrtr", "asking for a URL flow");
        self.question(
            config,
            key,
            InputRequest::Elicitation(ElicitRequest::new(params)),
        )
    }

    fn next_form_input(
        &mut self,
        config: &AskConfig,
        key: Option<Result<String, AskError>>,
        message: String,
        schema: &FormSchema,
        wire: Option<&ElicitationSchema>,
        view: Option<&str>,
    ) -> Result<(String, Value), AskError> {
        self.next_input(config, key, || {
            let meta = view.map(|uri| {
                let mut meta = rmcp::model::RequestMetaObject::new();
                add_view(&mut meta, uri);
                meta
            });
            let params = ElicitRequestParams::FormElicitationParams {
                meta,
                message,
                requested_schema: match wire {
                    Some(w) => w.clone(),
                    None => wire_schema(schema)?,
                },
            };
            Ok(InputRequest::Elicitation(ElicitRequest::new(params)))
        })
    }
}

/// A form's answer under `key`, read as an elicitation result.
pub(crate) fn elicit_result(key: &str, answer: Value) -> Result<ElicitResult, AskError> {
    serde_json::from_value::<ElicitResult>(answer).map_err(|e| {
        AskError::InvalidAnswer(vec![field_error(
            &format!("inputResponses.{key}"),
            format!("The answer under {key} is not an elicitation result: {e}."),
        )])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry(arguments: Value, state: String) -> Rounds {
        let mut responses = InputResponses::new();
        responses.insert("q1".into(), serde_json::json!({"action": "accept"}));
        Rounds::new(
            Served::Tool,
            "book",
            arguments.as_object(),
            Some(responses),
            Some(state),
        )
    }

    #[test]
    fn a_state_is_the_calls_digest_then_short_json() {
        let config = AskConfig::new();
        let args = serde_json::json!({"city": "Lyon"});
        let mut first = Rounds::new(Served::Tool, "book", args.as_object(), None, None);
        first
            .open(&config)
            .unwrap()
            .answers
            .insert("q0".into(), Value::from(1));
        let AskError::InputRequired(result) = first.seal(
            &config,
            vec![("q1".into(), InputRequest::ListRoots(Default::default()))],
        ) else {
            panic!("not an input_required result");
        };
        let sealed = result.request_state.unwrap();
        let body = config.seal.open(&sealed, now_ms()).unwrap();
        assert_eq!(&body[..32], first.binding.as_slice());
        assert_eq!(&body[32..], br#"{"a":{"q0":1},"p":["q1"]}"#);

        let mut again = retry(args, sealed.clone());
        let state = again.open(&config).unwrap();
        assert_eq!(
            state.answers.len(),
            2,
            "q0 kept, q1 taken from the responses"
        );
        let mut other = retry(serde_json::json!({"city": "Nice"}), sealed);
        assert!(matches!(
            other.open(&config),
            Err(AskError::StateOfAnotherCall)
        ));
    }

    #[test]
    fn a_state_of_the_previous_format_still_opens_for_its_own_call_only() {
        let config = AskConfig::new();
        let args = serde_json::json!({"city": "Lyon"});
        let first = Rounds::new(Served::Tool, "book", args.as_object(), None, None);
        let mut old = SealedState::default();
        old.answers.insert("q0".into(), Value::from("Ada"));
        old.pending.insert("q1".into());
        old.flows.insert("q0".into(), "flow-1".into());
        let sealed = legacy::seal(&config, &old, &first.binding);
        assert!(!sealed.is_empty());

        let mut again = retry(args.clone(), sealed.clone());
        let state = again.open(&config).unwrap();
        assert_eq!(state.answers.get("q0"), Some(&Value::from("Ada")));
        assert!(
            state.answers.contains_key("q1"),
            "the pending key's answer is taken"
        );
        assert_eq!(state.flows.get("q0").map(String::as_str), Some("flow-1"));

        let mut other = retry(serde_json::json!({}), sealed);
        assert!(matches!(
            other.open(&config),
            Err(AskError::StateOfAnotherCall)
        ));
        let mut forged = retry(args, "rs1.AAAA.BBBB".into());
        assert!(matches!(
            forged.open(&config),
            Err(AskError::RequestState(_))
        ));
    }
}
