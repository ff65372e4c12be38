//! **Sampling, answered by a person**: a server asks the client for a model's reply
//! (`sampling/createMessage` in the 2025 eras, a `sampling/createMessage` input request on
//! 2026-07-28). The spec asks hosts to let a person see and approve such requests; with no model
//! attached, the person *is* the model: they read the conversation, the system prompt, the model
//! preferences and the token limit, and write the reply — or decline.
//!
//! Admission parses the params into [`SamplingRequest`] here (the kind's own rules: every
//! message's role and content, sizes capped, errors naming the field as `messages[2].content`),
//! and judging the person's answer makes the reply ([`Reply::Sampled`]). A decline or a cancel
//! is the core's, unchanged; on the wire it becomes the spec's "user rejected" error
//! ([`Reply::into_sampling_result`](crate::Reply::into_sampling_result)).

use serde_json::{Map, Value};

use interlude_schema::{Content, FieldError};

use super::{Acceptance, Kind};
use crate::audit::AuditEvent;
use crate::config::EngineConfig;
use crate::io::Reply;
use crate::out::Out;
use crate::redact::redact;
use crate::request::{
    Header, ModelPriorities, SamplingPart, SamplingRequest, SamplingRole, SamplingTurn,
};

/// The most messages one sampling request may carry.
pub const MAX_MESSAGES: usize = 256;
/// The most content parts all of a request's messages may carry together.
pub const MAX_PARTS: usize = 1024;
/// The longest text of one part (or of the system prompt), in characters, unless the engine's
/// message limit is larger.
pub(crate) const MAX_TEXT_CHARS: usize = 128 * 1024;
/// The most stop sequences and model hints kept.
const MAX_LIST: usize = 64;
/// The longest model name, hint or stop sequence, in characters.
const MAX_NAME_CHARS: usize = 256;

/// The field of the person's answer that holds the reply.
pub const REPLY_FIELD: &str = "text";
/// The field of the person's answer that names the model (optional; "person" by default).
pub const MODEL_FIELD: &str = "model";
/// The model name a reply carries when the person gives none.
pub const DEFAULT_MODEL: &str = "interlude-person";

/// Why a sampling request was refused: the field, and a sentence naming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) field: String,
    pub(crate) message: String,
}

fn refused(field: impl Into<String>, message: impl Into<String>) -> Refused {
    Refused {
        field: field.into(),
        message: message.into(),
    }
}

/// Size limits admission applies (the engine's, shared with the other kinds).
pub(crate) struct SamplingLimits {
    /// Longest text of one part, of the system prompt, in characters.
    pub(crate) max_text_chars: usize,
}

/// Parses and checks `params` (the `sampling/createMessage` params as JSON).
pub(crate) fn admit(params: &Value, limits: &SamplingLimits) -> Result<SamplingRequest, Refused> {
    let o = params
        .as_object()
        .ok_or_else(|| refused("params", "sampling params must be an object"))?;
    let messages = match o.get("messages") {
        Some(Value::Array(messages)) => messages,
        _ => {
            return Err(refused(
                "messages",
                "`messages` is required and must be an array",
            ));
        }
    };
    if messages.is_empty() {
        return Err(refused("messages", "`messages` must not be empty"));
    }
    if messages.len() > MAX_MESSAGES {
        return Err(refused(
            "messages",
            format!(
                "`messages` has {} entries; the limit is {MAX_MESSAGES}",
                messages.len()
            ),
        ));
    }
    let mut parts_left = MAX_PARTS;
    let mut turns = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        turns.push(turn(message, i, &mut parts_left, limits)?);
    }
    let max_tokens = match o.get("maxTokens") {
        Some(Value::Number(n)) => {
            n.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    refused(
                        "maxTokens",
                        "`maxTokens` must be a whole number from 0 to 4294967295",
                    )
                })?
        }
        _ => {
            return Err(refused(
                "maxTokens",
                "`maxTokens` is required and must be a number",
            ));
        }
    };
    let system_prompt = optional_text(o, "systemPrompt", limits.max_text_chars)?;
    let temperature = match o.get("temperature") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64().map(tidy),
        Some(_) => return Err(refused("temperature", "`temperature` must be a number")),
    };
    let stop_sequences = string_list(o.get("stopSequences"), "stopSequences")?;
    let include_context = match o.get("includeContext") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if ["none", "thisServer", "allServers"].contains(&s.as_str()) => {
            Some(s.clone())
        }
        Some(_) => {
            return Err(refused(
                "includeContext",
                "`includeContext` must be \"none\", \"thisServer\" or \"allServers\"",
            ));
        }
    };
    let (model_hints, priorities) = preferences(o.get("modelPreferences"))?;
    let tools = match o.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(tools)) => tools
            .iter()
            .take(MAX_LIST)
            .enumerate()
            .map(|(i, t)| {
                t.get("name")
                    .and_then(Value::as_str)
                    .map(|n| cut(n, MAX_NAME_CHARS))
                    .ok_or_else(|| {
                        refused(
                            format!("tools[{i}].name"),
                            format!("`tools[{i}].name` is required and must be a string"),
                        )
                    })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(refused("tools", "`tools` must be an array")),
    };
    Ok(SamplingRequest {
        message: String::new(),
        messages: turns,
        system_prompt,
        model_hints,
        priorities,
        max_tokens,
        temperature,
        stop_sequences,
        include_context,
        tools,
    })
}

fn turn(
    message: &Value,
    i: usize,
    parts_left: &mut usize,
    limits: &SamplingLimits,
) -> Result<SamplingTurn, Refused> {
    let field = format!("messages[{i}]");
    let o = message
        .as_object()
        .ok_or_else(|| refused(&field, format!("`{field}` must be an object")))?;
    let role = match o.get("role").and_then(Value::as_str) {
        Some("user") => SamplingRole::User,
        Some("assistant") => SamplingRole::Assistant,
        _ => {
            return Err(refused(
                format!("{field}.role"),
                format!("`{field}.role` must be \"user\" or \"assistant\""),
            ));
        }
    };
    let content_field = format!("{field}.content");
    let items: Vec<&Value> = match o.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(item @ Value::Object(_)) => vec![item],
        _ => {
            return Err(refused(
                &content_field,
                format!("`{content_field}` is required and must be an object or an array"),
            ));
        }
    };
    if items.len() > *parts_left {
        return Err(refused(
            &content_field,
            format!("the messages carry more than {MAX_PARTS} content parts"),
        ));
    }
    *parts_left -= items.len();
    let parts = items
        .into_iter()
        .enumerate()
        .map(|(j, item)| {
            let field = if o.get("content").is_some_and(Value::is_array) {
                format!("{content_field}[{j}]")
            } else {
                content_field.clone()
            };
            part(item, &field, limits)
        })
        .collect::<Result<_, _>>()?;
    Ok(SamplingTurn { role, parts })
}

fn part(item: &Value, field: &str, limits: &SamplingLimits) -> Result<SamplingPart, Refused> {
    let o = item
        .as_object()
        .ok_or_else(|| refused(field, format!("`{field}` must be an object")))?;
    let string = |key: &str| -> Result<&str, Refused> {
        o.get(key).and_then(Value::as_str).ok_or_else(|| {
            refused(
                format!("{field}.{key}"),
                format!("`{field}.{key}` is required and must be a string"),
            )
        })
    };
    match o.get("type").and_then(Value::as_str) {
        Some("text") => {
            let text = string("text")?;
            check_len(text, &format!("{field}.text"), limits.max_text_chars)?;
            Ok(SamplingPart::Text(text.to_owned()))
        }
        Some(kind @ ("image" | "audio")) => {
            let data = string("data")?;
            let mime_type = cut(string("mimeType")?, MAX_NAME_CHARS);
            // Base64: three bytes per four characters.
            let bytes = data.len() / 4 * 3;
            Ok(if kind == "image" {
                SamplingPart::Image { mime_type, bytes }
            } else {
                SamplingPart::Audio { mime_type, bytes }
            })
        }
        Some("tool_use") => {
            let name = cut(string("name")?, MAX_NAME_CHARS);
            let input = o.get("input").map(Value::to_string).unwrap_or_default();
            check_len(&input, &format!("{field}.input"), limits.max_text_chars)?;
            Ok(SamplingPart::ToolUse { name, input })
        }
        Some("tool_result") => {
            let tool_use_id = cut(string("toolUseId")?, MAX_NAME_CHARS);
            let text = o
                .get("content")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|c| c.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            check_len(&text, &format!("{field}.content"), limits.max_text_chars)?;
            Ok(SamplingPart::ToolResult { tool_use_id, text })
        }
        _ => Err(refused(
            format!("{field}.type"),
            format!(
                "`{field}.type` must be \"text\", \"image\", \"audio\", \"tool_use\" or \"tool_result\""
            ),
        )),
    }
}

/// `x` to six decimals: servers often send an `f32` (0.7 arrives as 0.699999988079071), and a
/// person reads the value they meant.
fn tidy(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn check_len(text: &str, field: &str, limit: usize) -> Result<(), Refused> {
    let len = text.chars().count();
    if len > limit {
        return Err(refused(
            field,
            format!("`{field}` is {len} characters long; the limit is {limit}"),
        ));
    }
    Ok(())
}

fn cut(s: &str, limit: usize) -> String {
    s.chars().take(limit).collect()
}

fn optional_text(
    o: &Map<String, Value>,
    key: &str,
    limit: usize,
) -> Result<Option<String>, Refused> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            check_len(s, key, limit)?;
            Ok(Some(s.clone()))
        }
        Some(_) => Err(refused(key, format!("`{key}` must be a string"))),
    }
}

fn string_list(value: Option<&Value>, field: &str) -> Result<Vec<String>, Refused> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .take(MAX_LIST)
            .enumerate()
            .map(|(i, s)| {
                s.as_str().map(|s| cut(s, MAX_NAME_CHARS)).ok_or_else(|| {
                    refused(
                        format!("{field}[{i}]"),
                        format!("`{field}[{i}]` must be a string"),
                    )
                })
            })
            .collect(),
        Some(_) => Err(refused(
            field,
            format!("`{field}` must be an array of strings"),
        )),
    }
}

fn preferences(value: Option<&Value>) -> Result<(Vec<String>, ModelPriorities), Refused> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok((Vec::new(), ModelPriorities::default()));
    };
    let o = value
        .as_object()
        .ok_or_else(|| refused("modelPreferences", "`modelPreferences` must be an object"))?;
    let hints = match o.get("hints") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(hints)) => hints
            .iter()
            .take(MAX_LIST)
            .filter_map(|h| h.get("name").and_then(Value::as_str))
            .map(|n| cut(n, MAX_NAME_CHARS))
            .collect(),
        Some(_) => {
            return Err(refused(
                "modelPreferences.hints",
                "`modelPreferences.hints` must be an array",
            ));
        }
    };
    let priority = |key: &str| -> Result<Option<f64>, Refused> {
        match o.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(p) if (0.0..=1.0).contains(&p) => Ok(Some(tidy(p))),
                _ => Err(refused(
                    format!("modelPreferences.{key}"),
                    format!("`modelPreferences.{key}` must be a number from 0 to 1"),
                )),
            },
            Some(_) => Err(refused(
                format!("modelPreferences.{key}"),
                format!("`modelPreferences.{key}` must be a number from 0 to 1"),
            )),
        }
    };
    let priorities = ModelPriorities {
        cost: priority("costPriority")?,
        speed: priority("speedPriority")?,
        intelligence: priority("intelligencePriority")?,
    };
    Ok((hints, priorities))
}

/// Admits a sampling request (audited as received): what the surfaces see.
pub(crate) fn queue(
    header: &Header,
    mut request: SamplingRequest,
    out: &mut Out,
) -> SamplingRequest {
    request.message = format!(
        "Reply as the model to a conversation of {} message{}.",
        request.messages.len(),
        if request.messages.len() == 1 { "" } else { "s" }
    );
    out.received(
        header,
        &request.message,
        std::sync::Arc::from([REPLY_FIELD.to_owned(), MODEL_FIELD.to_owned()]),
        None,
    );
    request
}

/// What a pending sampling request keeps: nothing (the answer's rules are the kind's).
#[derive(Debug)]
pub(crate) struct SamplingPending;

impl Kind for SamplingPending {
    /// The person's reply, judged ([`judge`]); audited as they wrote it, redacted.
    fn accepted(&mut self, content: Content, _: &EngineConfig) -> Acceptance {
        let event = AuditEvent::Accepted {
            content: redact(&content),
        };
        match judge(content) {
            Ok(reply) => Acceptance::Reply(reply, event),
            Err(errors) => Acceptance::Invalid(errors),
        }
    }
}

/// Judges the person's accepted answer: a non-empty `text`, and optionally a `model` name.
fn judge(mut content: Content) -> Result<Reply, Vec<FieldError>> {
    let text = match content.remove(REPLY_FIELD) {
        Some(Value::String(text)) if !text.trim().is_empty() => text,
        _ => {
            return Err(vec![FieldError {
                field: REPLY_FIELD.to_owned(),
                message: "Write the reply.".to_owned(),
            }]);
        }
    };
    let model = match content.remove(MODEL_FIELD) {
        None | Some(Value::Null) => DEFAULT_MODEL.to_owned(),
        Some(Value::String(m)) if m.trim().is_empty() => DEFAULT_MODEL.to_owned(),
        Some(Value::String(m)) if m.chars().count() <= MAX_NAME_CHARS => m.trim().to_owned(),
        Some(_) => {
            return Err(vec![FieldError {
                field: MODEL_FIELD.to_owned(),
                message: format!(
                    "The model name must be text of at most {MAX_NAME_CHARS} characters."
                ),
            }]);
        }
    };
    Ok(Reply::Sampled { text, model })
}
