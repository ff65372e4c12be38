//! Admission of an incoming elicitation: the one place its params become typed values.
//!
//! Rules (2025-11-25 and 2026-07-28 `client/elicitation.mdx`, "Error Handling"): a request without
//! `mode` is a form request; a mode the host did not declare is refused with -32602; a form
//! request's `requestedSchema` must parse into the subset, else -32602 naming the property.
//! Size limits are ours: a person cannot read a 1 MiB message, and a peer must not make the host
//! hold one.

use interlude_schema::{FormSchema, SchemaError};
use serde_json::Value;

/// The modes of elicitation a host declared to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredModes {
    /// `elicitation.form` (or the bare `elicitation: {}`).
    pub form: bool,
    /// `elicitation.url`.
    pub url: bool,
}

impl DeclaredModes {
    /// Form only: what Interlude declares today.
    pub const FORM: DeclaredModes = DeclaredModes {
        form: true,
        url: false,
    };
}

/// The mode of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitationMode {
    /// In-band structured data.
    Form,
    /// Out-of-band navigation.
    Url,
}

impl ElicitationMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitationMode::Form => "form",
            ElicitationMode::Url => "url",
        }
    }
}

/// Why a request was refused at admission; becomes a -32602 reply.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum Refusal {
    #[error("elicitation params must be an object")]
    NotAnObject,
    #[error("`mode` must be \"form\" or \"url\", found {0}")]
    UnknownMode(String),
    #[error("elicitation mode `{0}` was not declared by this client")]
    Undeclared(&'static str),
    #[error("elicitation mode `{0}` is not supported by this host")]
    Unsupported(&'static str),
    #[error("`message` is required and must be a string")]
    MissingMessage,
    #[error("`message` is {len} characters long; the limit is {limit}")]
    MessageTooLong { len: usize, limit: usize },
    #[error("`requestedSchema` is required for a form request")]
    MissingSchema,
    #[error("`requestedSchema` has {count} properties; the limit is {limit}")]
    TooManyFields { count: usize, limit: usize },
    #[error("invalid `requestedSchema`: {0}")]
    Schema(#[from] SchemaError),
}

impl Refusal {
    /// The property the refusal is about, for `error.data`.
    pub(crate) fn field(&self) -> Option<String> {
        match self {
            Refusal::UnknownMode(_) | Refusal::Undeclared(_) | Refusal::Unsupported(_) => {
                Some("mode".into())
            }
            Refusal::MissingMessage | Refusal::MessageTooLong { .. } => Some("message".into()),
            Refusal::MissingSchema | Refusal::TooManyFields { .. } => {
                Some("requestedSchema".into())
            }
            Refusal::Schema(e) => Some(match &e.property {
                Some(p) => format!("requestedSchema.properties.{p}"),
                None => "requestedSchema".into(),
            }),
            Refusal::NotAnObject => None,
        }
    }
}

/// A request that passed admission.
#[derive(Debug, Clone)]
pub(crate) struct Admitted {
    pub(crate) message: String,
    pub(crate) schema: FormSchema,
}

pub(crate) struct Limits {
    pub(crate) max_message_chars: usize,
    pub(crate) max_fields: usize,
}

pub(crate) fn admit(
    params: &Value,
    declared: DeclaredModes,
    limits: &Limits,
) -> Result<Admitted, Refusal> {
    let o = params.as_object().ok_or(Refusal::NotAnObject)?;
    let mode = match o.get("mode") {
        None | Some(Value::Null) => ElicitationMode::Form,
        Some(Value::String(m)) if m == "form" => ElicitationMode::Form,
        Some(Value::String(m)) if m == "url" => ElicitationMode::Url,
        Some(other) => return Err(Refusal::UnknownMode(other.to_string())),
    };
    let allowed = match mode {
        ElicitationMode::Form => declared.form,
        ElicitationMode::Url => declared.url,
    };
    if !allowed {
        return Err(Refusal::Undeclared(mode.as_str()));
    }
    if mode == ElicitationMode::Url {
        // URL mode is not handled by this engine yet (a later capability); refuse honestly.
        return Err(Refusal::Unsupported("url"));
    }
    let message = o
        .get("message")
        .and_then(Value::as_str)
        .ok_or(Refusal::MissingMessage)?;
    let len = message.chars().count();
    if len > limits.max_message_chars {
        return Err(Refusal::MessageTooLong {
            len,
            limit: limits.max_message_chars,
        });
    }
    let schema = o.get("requestedSchema").ok_or(Refusal::MissingSchema)?;
    if let Some(count) = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(serde_json::Map::len)
        && count > limits.max_fields
    {
        return Err(Refusal::TooManyFields {
            count,
            limit: limits.max_fields,
        });
    }
    let parsed = FormSchema::parse(schema)?;
    Ok(Admitted {
        message: message.to_owned(),
        schema: parsed.schema,
    })
}
