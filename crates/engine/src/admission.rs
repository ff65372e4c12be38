//! Admission of an incoming elicitation: the one place its params become typed values.
//!
//! Rules (2025-11-25 and 2026-07-28 `client/elicitation.mdx`, "Error Handling"): a request without
//! `mode` is a form request; a mode the host did not declare is refused with -32602; a form
//! request's `requestedSchema` must parse into the subset, else -32602 naming the property.
//! Size limits are ours: a person cannot read a 1 MiB message, and a peer must not make the host
//! hold one.

use std::collections::VecDeque;
use std::sync::Arc;

use interlude_schema::{FormSchema, SchemaError};
use rmcp::model::{ElicitRequestParams, ElicitationSchema};

use crate::engine::Declared;
use serde_json::Value;

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
    pub(crate) schema: Arc<FormSchema>,
}

/// The params of an elicitation request, as they reached the host.
///
/// ```
/// use interlude_engine::ElicitParams;
/// use serde_json::json;
///
/// let raw = json!({"message": "Name?", "requestedSchema": {"type": "object",
///     "properties": {"name": {"type": "string"}}}});
/// // What rmcp typed (the usual path) …
/// let typed: rmcp::model::ElicitRequestParams = serde_json::from_value(raw.clone()).unwrap();
/// assert!(matches!(ElicitParams::from(typed), ElicitParams::Typed(_)));
/// // … or raw JSON, for what rmcp could not type.
/// assert!(matches!(ElicitParams::from(raw), ElicitParams::Json(_)));
/// ```
#[derive(Debug, Clone)]
pub enum ElicitParams {
    /// Typed by rmcp: the usual path (push requests through rmcp's client handler, and
    /// `input_required` rounds).
    Typed(Box<ElicitRequestParams>),
    /// Raw JSON: what rmcp could not type (a schema outside its model arrives as a custom
    /// request), or a driver without rmcp types.
    Json(Value),
}

impl From<Value> for ElicitParams {
    fn from(value: Value) -> Self {
        ElicitParams::Json(value)
    }
}

impl From<ElicitRequestParams> for ElicitParams {
    fn from(params: ElicitRequestParams) -> Self {
        ElicitParams::Typed(Box::new(params))
    }
}

/// The forms of the last few typed requests, parsed: servers ask the same forms again and
/// again. rmcp's equality of schemas includes their property order, which is the form's order.
#[derive(Debug, Default)]
pub(crate) struct SchemaCache {
    recent: VecDeque<(ElicitationSchema, Arc<FormSchema>)>,
}

/// How many distinct schemas the engine remembers.
const SCHEMAS_KEPT: usize = 16;

impl SchemaCache {
    fn parse(&mut self, schema: &ElicitationSchema) -> Result<Arc<FormSchema>, Refusal> {
        if let Some((_, parsed)) = self.recent.iter().find(|(s, _)| s == schema) {
            return Ok(parsed.clone());
        }
        // One parser for every path: the typed schema goes back to JSON once, here.
        let json = serde_json::to_value(schema).map_err(|_| Refusal::MissingSchema)?;
        let parsed = Arc::new(FormSchema::parse(&json)?.schema);
        if self.recent.len() >= SCHEMAS_KEPT {
            self.recent.pop_back();
        }
        self.recent.push_front((schema.clone(), parsed.clone()));
        Ok(parsed)
    }
}

pub(crate) struct Limits {
    pub(crate) max_message_chars: usize,
    pub(crate) max_fields: usize,
}

pub(crate) fn admit(
    params: &ElicitParams,
    declared: Declared,
    limits: &Limits,
    schemas: &mut SchemaCache,
) -> Result<Admitted, Refusal> {
    match params {
        ElicitParams::Typed(typed) => admit_typed(typed, declared, limits, schemas),
        ElicitParams::Json(value) => admit_json(value, declared, limits),
    }
}

fn admit_typed(
    params: &ElicitRequestParams,
    declared: Declared,
    limits: &Limits,
    schemas: &mut SchemaCache,
) -> Result<Admitted, Refusal> {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            check_mode(ElicitationMode::Form, declared)?;
            check_message(message, limits)?;
            check_field_count(requested_schema.properties.len(), limits)?;
            Ok(Admitted {
                message: message.clone(),
                schema: schemas.parse(requested_schema)?,
            })
        }
        ElicitRequestParams::UrlElicitationParams { .. } => {
            check_mode(ElicitationMode::Url, declared)?;
            Err(Refusal::Unsupported("url"))
        }
        // A kind of request newer than this engine: judge it by its JSON.
        other => admit_json(
            &serde_json::to_value(other).unwrap_or(Value::Null),
            declared,
            limits,
        ),
    }
}

fn check_mode(mode: ElicitationMode, declared: Declared) -> Result<(), Refusal> {
    let allowed = match mode {
        ElicitationMode::Form => declared.form,
        ElicitationMode::Url => declared.url,
    };
    if allowed {
        Ok(())
    } else {
        Err(Refusal::Undeclared(mode.as_str()))
    }
}

fn check_message(message: &str, limits: &Limits) -> Result<(), Refusal> {
    let len = message.chars().count();
    if len > limits.max_message_chars {
        return Err(Refusal::MessageTooLong {
            len,
            limit: limits.max_message_chars,
        });
    }
    Ok(())
}

fn check_field_count(count: usize, limits: &Limits) -> Result<(), Refusal> {
    if count > limits.max_fields {
        return Err(Refusal::TooManyFields {
            count,
            limit: limits.max_fields,
        });
    }
    Ok(())
}

fn admit_json(params: &Value, declared: Declared, limits: &Limits) -> Result<Admitted, Refusal> {
    let o = params.as_object().ok_or(Refusal::NotAnObject)?;
    let mode = match o.get("mode") {
        None | Some(Value::Null) => ElicitationMode::Form,
        Some(Value::String(m)) if m == "form" => ElicitationMode::Form,
        Some(Value::String(m)) if m == "url" => ElicitationMode::Url,
        Some(other) => return Err(Refusal::UnknownMode(other.to_string())),
    };
    check_mode(mode, declared)?;
    if mode == ElicitationMode::Url {
        // URL mode is not handled by this engine yet (a later capability); refuse honestly.
        return Err(Refusal::Unsupported("url"));
    }
    let message = o
        .get("message")
        .and_then(Value::as_str)
        .ok_or(Refusal::MissingMessage)?;
    check_message(message, limits)?;
    let schema = o.get("requestedSchema").ok_or(Refusal::MissingSchema)?;
    if let Some(count) = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(serde_json::Map::len)
    {
        check_field_count(count, limits)?;
    }
    Ok(Admitted {
        message: message.to_owned(),
        schema: Arc::new(FormSchema::parse(schema)?.schema),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn typed(schema: Value) -> ElicitationSchema {
        serde_json::from_value(schema).unwrap()
    }

    #[test]
    fn equal_typed_schemas_reuse_the_parse_and_order_is_part_of_equality() {
        let a = typed(json!({"type": "object",
            "properties": {"x": {"type": "string"}, "y": {"type": "number"}}}));
        let b = typed(json!({"type": "object",
            "properties": {"y": {"type": "number"}, "x": {"type": "string"}}}));
        let mut cache = SchemaCache::default();
        let first = cache.parse(&a).unwrap();
        assert!(
            Arc::ptr_eq(&first, &cache.parse(&a.clone()).unwrap()),
            "reused"
        );
        let second = cache.parse(&b).unwrap();
        let names: Vec<&str> = second.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["y", "x"]);
        let names: Vec<&str> = first.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["x", "y"]);
    }

    #[test]
    fn the_cache_stays_small() {
        let mut cache = SchemaCache::default();
        for i in 0..(SCHEMAS_KEPT + 5) {
            let s = typed(json!({"type": "object",
                "properties": {format!("f{i}"): {"type": "string"}}}));
            cache.parse(&s).unwrap();
        }
        assert_eq!(cache.recent.len(), SCHEMAS_KEPT);
    }

    #[test]
    fn typed_and_json_params_are_admitted_alike() {
        let json = json!({"message": "Name?", "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string", "minLength": 2, "default": "Ada"}},
            "required": ["name"]}});
        let typed: ElicitRequestParams = serde_json::from_value(json.clone()).unwrap();
        let limits = Limits {
            max_message_chars: 100,
            max_fields: 4,
        };
        let mut cache = SchemaCache::default();
        let a = admit(
            &ElicitParams::Json(json),
            Declared::FORM,
            &limits,
            &mut cache,
        )
        .unwrap();
        let b = admit(
            &ElicitParams::from(typed),
            Declared::FORM,
            &limits,
            &mut cache,
        )
        .unwrap();
        assert_eq!(a.message, b.message);
        assert_eq!(a.schema, b.schema);
    }

    #[test]
    fn typed_url_requests_are_refused_as_undeclared_or_unsupported() {
        let url: ElicitRequestParams = serde_json::from_value(json!({"mode": "url",
            "message": "Sign in", "url": "https://example.com/", "elicitationId": "e"}))
        .unwrap();
        let limits = Limits {
            max_message_chars: 100,
            max_fields: 4,
        };
        let mut cache = SchemaCache::default();
        let params = ElicitParams::from(url);
        let e = admit(&params, Declared::FORM, &limits, &mut cache).unwrap_err();
        assert_eq!(e, Refusal::Undeclared("url"));
        let both = Declared {
            form: true,
            url: true,
        };
        let e = admit(&params, both, &limits, &mut cache).unwrap_err();
        assert_eq!(e, Refusal::Unsupported("url"));
    }

    #[test]
    fn typed_limits_apply() {
        let params: ElicitRequestParams = serde_json::from_value(json!({"message": "x".repeat(20),
            "requestedSchema": {"type": "object", "properties": {
                "a": {"type": "string"}, "b": {"type": "string"}}}}))
        .unwrap();
        let params = ElicitParams::from(params);
        let mut cache = SchemaCache::default();
        let short = Limits {
            max_message_chars: 10,
            max_fields: 4,
        };
        assert!(matches!(
            admit(&params, Declared::FORM, &short, &mut cache),
            Err(Refusal::MessageTooLong { len: 20, limit: 10 })
        ));
        let narrow = Limits {
            max_message_chars: 100,
            max_fields: 1,
        };
        assert!(matches!(
            admit(&params, Declared::FORM, &narrow, &mut cache),
            Err(Refusal::TooManyFields { count: 2, limit: 1 })
        ));
    }
}
