//! Sampling questions: [`Sampling`], the model completion a tool asks the client for, and
//! [`Sampled`], the completion as it came back — checked field by field before a handler sees
//! it, whichever transport carried it (`sampling/createMessage` pushed in 2025, an
//! `inputRequests` entry on 2026-07-28).
//!
//! rmcp marks its sampling types deprecated (SEP-2577 plans to remove sampling after
//! 2026-07-28); every revision this crate speaks still defines it, so this module uses them
//! and keeps them out of a server author's way: the builder and the accessors cover the common
//! case, [`Sampling::from_params`] and [`Sampled::result`] reach rmcp's types for the rest.
#![allow(deprecated)]

use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, InputRequest, ModelHint,
    ModelPreferences, RequestMetaObject, Role, SamplingContent, SamplingMessage,
    SamplingMessageContentBlock, ServerRequest,
};
use serde_json::Value;

use crate::error::AskError;
use crate::wire::field_error;

/// A model completion to ask the client for: the conversation, the most tokens to produce, and
/// optionally a system prompt, a temperature, stop sequences and model preferences.
///
/// Asked with [`Ask::sample`](crate::Ask::sample).
///
/// # Example
/// ```
/// use interlude_server::Sampling;
///
/// let question = Sampling::new(100)
///     .system("You answer in one sentence.")
///     .user("What is the capital of France?")
///     .temperature(0.2)
///     .prefer_model("claude")
///     .priorities(0.2, 0.5, 0.8);
/// assert_eq!(question.max_tokens(), 100);
/// ```
#[derive(Debug, Clone)]
pub struct Sampling {
    params: CreateMessageRequestParams,
}

impl Sampling {
    /// An empty conversation that may produce up to `max_tokens` tokens; add messages with
    /// [`Sampling::user`] and [`Sampling::assistant`].
    ///
    /// ```
    /// let question = interlude_server::Sampling::new(50).user("Say hello");
    /// assert_eq!(question.max_tokens(), 50);
    /// ```
    pub fn new(max_tokens: u32) -> Self {
        Sampling {
            params: CreateMessageRequestParams::new(Vec::new(), max_tokens),
        }
    }

    /// Adds a message of the user's (text).
    ///
    /// ```
    /// let question = interlude_server::Sampling::new(50).user("What is 2 + 2?");
    /// # let _ = question;
    /// ```
    #[must_use]
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.params
            .messages
            .push(SamplingMessage::user_text(text.into()));
        self
    }

    /// Adds a message of the assistant's (text): an earlier turn of the conversation.
    ///
    /// ```
    /// let question = interlude_server::Sampling::new(50)
    ///     .user("Pick a number")
    ///     .assistant("7")
    ///     .user("Another one");
    /// # let _ = question;
    /// ```
    #[must_use]
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.params
            .messages
            .push(SamplingMessage::assistant_text(text.into()));
        self
    }

    /// Sets the system prompt (the client may change or leave it out).
    ///
    /// ```
    /// let question = interlude_server::Sampling::new(50).system("Be brief.").user("Hi");
    /// # let _ = question;
    /// ```
    #[must_use]
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.params.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the sampling temperature.
    ///
    /// ```
    /// let question = interlude_server::Sampling::new(50).temperature(0.0).user("Hi");
    /// # let _ = question;
    /// ```
    #[must_use]
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.params.temperature = Some(temperature);
        self
    }

    /// Adds a sequence at which the model should stop.
    ///
    /// ```
    /// let question = interlude_server::Sampling::new(50).stop_at("\n\n").user("Hi");
    /// # let _ = question;
    /// ```
    #[must_use]
    pub fn stop_at(mut self, sequence: impl Into<String>) -> Self {
        self.params
            .stop_sequences
            .get_or_insert_with(Vec::new)
            .push(sequence.into());
        self
    }

    /// Adds a model name or family the client should prefer (a hint, in the order given).
    ///
    /// ```
    /// let question = interlude_server::Sampling::new(50).prefer_model("sonnet").user("Hi");
    /// # let _ = question;
    /// ```
    #[must_use]
    pub fn prefer_model(mut self, hint: impl Into<String>) -> Self {
        let preferences = self
            .params
            .model_preferences
            .get_or_insert_with(ModelPreferences::new);
        preferences
            .hints
            .get_or_insert_with(Vec::new)
            .push(ModelHint::new(hint));
        self
    }

    /// Says how much cost, speed and intelligence matter, each from 0 (not at all) to 1 (most).
    ///
    /// ```
    /// let cheap_and_fast = interlude_server::Sampling::new(50).priorities(1.0, 1.0, 0.1);
    /// # let _ = cheap_and_fast;
    /// ```
    #[must_use]
    pub fn priorities(mut self, cost: f32, speed: f32, intelligence: f32) -> Self {
        let preferences = self
            .params
            .model_preferences
            .get_or_insert_with(ModelPreferences::new);
        preferences.cost_priority = Some(cost);
        preferences.speed_priority = Some(speed);
        preferences.intelligence_priority = Some(intelligence);
        self
    }

    /// A question from rmcp's request parameters as they are (images, audio, tools, context
    /// inclusion, metadata…). rmcp marks the type deprecated: the caller needs
    /// `#[allow(deprecated)]`.
    ///
    /// ```
    /// #![allow(deprecated)]
    /// use rmcp::model::{CreateMessageRequestParams, SamplingMessage};
    ///
    /// let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Hi")], 10);
    /// let question = interlude_server::Sampling::from_params(params);
    /// assert_eq!(question.max_tokens(), 10);
    /// ```
    pub fn from_params(params: CreateMessageRequestParams) -> Self {
        Sampling { params }
    }

    /// The most tokens the completion may have.
    ///
    /// ```
    /// assert_eq!(interlude_server::Sampling::new(7).max_tokens(), 7);
    /// ```
    pub fn max_tokens(&self) -> u32 {
        self.params.max_tokens
    }

    /// The `sampling/createMessage` to push, naming the served call in its `_meta` (`meta`).
    pub(crate) fn into_request(self, meta: RequestMetaObject) -> ServerRequest {
        // In the request's own `_meta`, as a pushed elicitation's (`push::request`): rmcp merges
        // it with whatever `_meta` the author gave the params.
        let mut request = CreateMessageRequest::new(self.params);
        request.extensions.insert(meta);
        ServerRequest::CreateMessageRequest(request)
    }

    /// The question as an `inputRequests` entry.
    pub(crate) fn into_input_request(self) -> InputRequest {
        InputRequest::CreateMessage(CreateMessageRequest::new(self.params))
    }

    /// Refuses a question no client could answer: no messages, or tool use and tool results
    /// that do not pair up (rmcp's own check). Whether the client takes tools is checked by
    /// [`Sampling::needs_tools`].
    pub(crate) fn check(&self) -> Result<(), AskError> {
        if self.params.messages.is_empty() {
            return Err(AskError::InvalidQuestion(
                "a sampling request needs at least one message".into(),
            ));
        }
        self.params
            .validate()
            .map_err(|e| AskError::InvalidQuestion(format!("sampling request: {e}")))
    }

    /// Whether the question offers the model tools (the client must declare `sampling.tools`).
    pub(crate) fn needs_tools(&self) -> bool {
        self.params.tools.is_some() || self.params.tool_choice.is_some()
    }
}

/// A completion the client produced for a [`Sampling`] question, checked: it names its model,
/// its role is `assistant`, and it has content.
///
/// # Example
/// ```
/// # use interlude_server::{Answer, Ask, AskError, Sampling};
/// # async fn tool(ask: Ask) -> Result<String, AskError> {
/// let question = Sampling::new(100).user("What is the capital of France?");
/// Ok(match ask.sample(question).await? {
///     Answer::Accepted(sampled) => {
///         format!("{} (by {})", sampled.text().unwrap_or_default(), sampled.model())
///     }
///     Answer::Declined | Answer::Cancelled => "no answer".into(),
/// })
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Sampled {
    result: CreateMessageResult,
}

impl Sampled {
    /// The text of the completion: its text blocks joined by newlines, `None` when it has
    /// none (an image, audio, tool use).
    ///
    /// ```
    /// # fn show(sampled: &interlude_server::Sampled) {
    /// println!("{}", sampled.text().unwrap_or_default());
    /// # }
    /// ```
    pub fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .result
            .message
            .content
            .iter()
            .filter_map(|block| match block {
                SamplingMessageContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }

    /// The model that produced it, as the client names it.
    ///
    /// ```
    /// # fn show(sampled: &interlude_server::Sampled) {
    /// println!("answered by {}", sampled.model());
    /// # }
    /// ```
    pub fn model(&self) -> &str {
        &self.result.model
    }

    /// Why the model stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, or the
    /// client's own word), when the client says.
    ///
    /// ```
    /// # fn show(sampled: &interlude_server::Sampled) {
    /// if sampled.stop_reason() == Some("maxTokens") {
    ///     println!("cut short");
    /// }
    /// # }
    /// ```
    pub fn stop_reason(&self) -> Option<&str> {
        self.result.stop_reason.as_deref()
    }

    /// rmcp's result as it came (every content block). rmcp marks the type deprecated.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # fn show(sampled: &interlude_server::Sampled) {
    /// let blocks = sampled.result().message.content.len();
    /// # let _ = blocks;
    /// # }
    /// ```
    pub fn result(&self) -> &CreateMessageResult {
        &self.result
    }

    /// rmcp's result, owned.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # fn keep(sampled: interlude_server::Sampled) -> rmcp::model::CreateMessageResult {
    /// sampled.into_result()
    /// # }
    /// ```
    pub fn into_result(self) -> CreateMessageResult {
        self.result
    }
}

/// Reads a client's answer to a sampling question. `at` prefixes the field names in errors
/// (empty for a pushed answer, `inputResponses.<key>.` for a round trip's).
pub(crate) fn read_sampled(answer: Value, at: &str) -> Result<Sampled, AskError> {
    let invalid = |field: &str, message: String| {
        AskError::InvalidAnswer(vec![field_error(&format!("{at}{field}"), message)])
    };
    let Value::Object(object) = &answer else {
        return Err(invalid(
            "",
            "The sampling answer must be an object (a CreateMessageResult).".into(),
        ));
    };
    match object.get("model") {
        Some(Value::String(_)) => {}
        None | Some(Value::Null) => {
            return Err(invalid(
                "model",
                "The sampling answer names no model.".into(),
            ));
        }
        Some(_) => return Err(invalid("model", "The model must be a string.".into())),
    }
    match object.get("role").and_then(Value::as_str) {
        Some("assistant") => {}
        _ => {
            return Err(invalid(
                "role",
                "The role of a sampling answer must be \"assistant\".".into(),
            ));
        }
    }
    match object.get("stopReason") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(_) => {
            return Err(invalid(
                "stopReason",
                "The stop reason must be a string.".into(),
            ));
        }
    }
    match object.get("content") {
        None | Some(Value::Null) => {
            return Err(invalid(
                "content",
                "The sampling answer has no content.".into(),
            ));
        }
        Some(Value::Array(blocks)) if blocks.is_empty() => {
            return Err(invalid(
                "content",
                "The sampling answer has no content.".into(),
            ));
        }
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                content_block(block).map_err(|e| invalid(&format!("content[{i}]"), e))?;
            }
        }
        Some(block @ Value::Object(_)) => {
            content_block(block).map_err(|e| invalid("content", e))?;
        }
        Some(_) => {
            return Err(invalid(
                "content",
                "The content must be a content block or a list of them.".into(),
            ));
        }
    }
    let result = serde_json::from_value::<CreateMessageResult>(answer)
        .map_err(|e| invalid("", format!("The sampling answer cannot be read: {e}.")))?;
    // The checks above cover what rmcp's type needs; one more look at the role, as rmcp reads it.
    if result.message.role != Role::Assistant {
        return Err(invalid(
            "role",
            "The role of a sampling answer must be \"assistant\".".into(),
        ));
    }
    if let SamplingContent::Multiple(blocks) = &result.message.content
        && blocks.is_empty()
    {
        return Err(invalid(
            "content",
            "The sampling answer has no content.".into(),
        ));
    }
    Ok(Sampled { result })
}

/// Checks one content block of a sampling answer; the error is a sentence.
fn content_block(block: &Value) -> Result<(), String> {
    serde_json::from_value::<SamplingMessageContentBlock>(block.clone())
        .map(drop)
        .map_err(|e| format!("This content block cannot be read: {e}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    #[allow(deprecated)] // rmcp's params type, as `from_params` takes it
    fn a_pushed_question_keeps_the_authors_meta_beside_its_calls() {
        let mut params = rmcp::model::CreateMessageRequestParams::new(
            vec![rmcp::model::SamplingMessage::user_text("Hi")],
            10,
        );
        let mut author = RequestMetaObject::new();
        author.insert("example.com/trace".into(), json!("t-1"));
        params.meta = Some(author);
        let call = crate::wire::related_to(&rmcp::model::NumberOrString::Number(7));
        let request = Sampling::from_params(params).into_request(call);
        let wire = serde_json::to_value(&request).unwrap();
        assert_eq!(wire["method"], "sampling/createMessage");
        assert_eq!(
            wire["params"]["_meta"]["example.com/trace"], "t-1",
            "{wire}"
        );
        assert_eq!(
            wire["params"]["_meta"][interlude_protocol::RELATED_REQUEST_ID_KEY],
            7,
            "{wire}"
        );
    }

    fn field_of(e: AskError) -> String {
        match e {
            AskError::InvalidAnswer(errors) => {
                errors.first().map(|e| e.field.clone()).unwrap_or_default()
            }
            other => format!("not an invalid answer: {other}"),
        }
    }

    #[test]
    fn a_complete_answer_reads() {
        let sampled = read_sampled(
            json!({"role": "assistant", "content": {"type": "text", "text": "Paris."},
                   "model": "test-model", "stopReason": "endTurn"}),
            "",
        );
        let Ok(sampled) = sampled else {
            panic!("reads: {sampled:?}");
        };
        assert_eq!(sampled.text().as_deref(), Some("Paris."));
        assert_eq!(sampled.model(), "test-model");
        assert_eq!(sampled.stop_reason(), Some("endTurn"));
    }

    #[test]
    fn each_missing_or_wrong_field_is_named() {
        let good = json!({"role": "assistant", "content": {"type": "text", "text": "x"},
                          "model": "m"});
        for (field, change, expected) in [
            ("content", Value::Null, "inputResponses.q0.content"),
            ("content", json!([]), "inputResponses.q0.content"),
            ("content", json!("text"), "inputResponses.q0.content"),
            (
                "content",
                json!([{"type": "text"}]),
                "inputResponses.q0.content[0]",
            ),
            (
                "content",
                json!({"type": "video"}),
                "inputResponses.q0.content",
            ),
            ("model", Value::Null, "inputResponses.q0.model"),
            ("model", json!(3), "inputResponses.q0.model"),
            ("role", json!("user"), "inputResponses.q0.role"),
            ("stopReason", json!(1), "inputResponses.q0.stopReason"),
        ] {
            let mut answer = good.clone();
            answer[field] = change;
            let e = read_sampled(answer, "inputResponses.q0.").err();
            assert_eq!(e.map(field_of).as_deref(), Some(expected), "{field}");
        }
        let e = read_sampled(json!(12345), "").err();
        assert_eq!(e.map(field_of).as_deref(), Some(""));
    }

    #[test]
    fn a_question_without_messages_is_refused_before_it_leaves() {
        assert!(matches!(
            Sampling::new(10).check(),
            Err(AskError::InvalidQuestion(_))
        ));
        assert!(Sampling::new(10).user("hi").check().is_ok());
    }
}
