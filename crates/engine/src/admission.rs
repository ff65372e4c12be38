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

use crate::config::Declared;
use crate::ids::ViewId;
pub(crate) use crate::params::ElicitParams;
use serde_json::Value;

mod interaction;

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
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Refusal {
    NotAnObject,
    UnknownMode(String),
    Undeclared(&'static str),
    MissingMessage,
    MessageTooLong {
        len: usize,
        limit: usize,
    },
    MissingSchema,
    MissingUrl,
    UrlTooLong {
        len: usize,
        limit: usize,
    },
    BadElicitationId {
        limit: usize,
    },
    TooManyFields {
        count: usize,
        limit: usize,
    },
    Schema(SchemaError),
    /// A seed-000 `interaction/create` refused for what only the draft has (its declaration,
    /// its own fields), in the draft's words.
    Interaction {
        field: Option<String>,
        message: String,
    },
    /// A sampling request refused by its kind's rules ([`crate::kinds::sampling`]).
    Sampling {
        field: String,
        message: String,
    },
    /// A seed-000 interaction refused by the elicitation rules it is admitted by, said in the
    /// draft's names ([`Words::INTERACTION`]).
    Drafted(Box<Refusal>),
}

/// The names a refusal says things with: an elicitation's, or the seed-000 draft's for the same
/// fields and kinds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Words {
    params: &'static str,
    mode: &'static str,
    modes: &'static str,
    message: &'static str,
    schema: &'static str,
    url: &'static str,
    id: &'static str,
    form: &'static str,
    link: &'static str,
}

impl Words {
    /// An elicitation's (`elicitation/create`, an `input_required` round).
    pub(crate) const ELICITATION: Words = Words {
        params: "elicitation params",
        mode: "mode",
        modes: "\"form\" or \"url\"",
        message: "message",
        schema: "requestedSchema",
        url: "url",
        id: "elicitationId",
        form: "a form request",
        link: "a URL request",
    };
    /// The User Interaction draft's (`interaction/create`).
    pub(crate) const INTERACTION: Words = Words {
        params: "interaction params",
        mode: "type",
        modes: "\"prompt\" or \"ua\"",
        message: "interaction.message",
        schema: "interaction.schema",
        url: "interaction.url",
        id: "id",
        form: "a prompt interaction",
        link: "a ua interaction",
    };
}

impl Refusal {
    /// The property the refusal is about, for `error.data`.
    pub(crate) fn field(&self) -> Option<String> {
        self.field_in(&Words::ELICITATION)
    }

    fn field_in(&self, w: &Words) -> Option<String> {
        match self {
            Refusal::UnknownMode(_) | Refusal::Undeclared(_) => Some(w.mode.into()),
            Refusal::MissingMessage | Refusal::MessageTooLong { .. } => Some(w.message.into()),
            Refusal::MissingSchema | Refusal::TooManyFields { .. } => Some(w.schema.into()),
            Refusal::MissingUrl | Refusal::UrlTooLong { .. } => Some(w.url.into()),
            Refusal::BadElicitationId { .. } => Some(w.id.into()),
            Refusal::Schema(e) => Some(match &e.property {
                Some(p) => format!("{}.properties.{p}", w.schema),
                None => w.schema.into(),
            }),
            Refusal::Interaction { field, .. } => field.clone(),
            Refusal::Sampling { field, .. } => Some(field.clone()),
            Refusal::Drafted(inner) => inner.field_in(&Words::INTERACTION),
            Refusal::NotAnObject => None,
        }
    }

    /// The refusal in a sentence, in `w`'s names.
    fn said(&self, w: &Words) -> String {
        match self {
            Refusal::NotAnObject => format!("{} must be an object", w.params),
            Refusal::UnknownMode(found) => {
                format!("`{}` must be {}, found {found}", w.mode, w.modes)
            }
            Refusal::Undeclared(mode) => {
                format!("elicitation mode `{mode}` was not declared by this client")
            }
            Refusal::MissingMessage => format!("`{}` is required and must be a string", w.message),
            Refusal::MessageTooLong { len, limit } => {
                format!(
                    "`{}` is {len} characters long; the limit is {limit}",
                    w.message
                )
            }
            Refusal::MissingSchema => format!("`{}` is required for {}", w.schema, w.form),
            Refusal::MissingUrl => {
                format!(
                    "`{}` is required and must be a string for {}",
                    w.url, w.link
                )
            }
            Refusal::UrlTooLong { len, limit } => {
                format!("`{}` is {len} characters long; the limit is {limit}", w.url)
            }
            Refusal::BadElicitationId { limit } => {
                format!("`{}` must be a string of at most {limit} characters", w.id)
            }
            Refusal::TooManyFields { count, limit } => {
                format!(
                    "`{}` has {count} properties; the limit is {limit}",
                    w.schema
                )
            }
            Refusal::Schema(e) => format!("invalid `{}`: {e}", w.schema),
            Refusal::Interaction { message, .. } | Refusal::Sampling { message, .. } => {
                message.clone()
            }
            Refusal::Drafted(inner) => inner.said(&Words::INTERACTION),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said(&Words::ELICITATION))
    }
}

impl std::error::Error for Refusal {}

impl From<SchemaError> for Refusal {
    fn from(e: SchemaError) -> Self {
        Refusal::Schema(e)
    }
}

/// A request that passed admission.
#[derive(Debug, Clone)]
pub(crate) enum Admitted {
    Form {
        message: String,
        schema: Arc<FormSchema>,
        /// The `requestedSchema` as the server sent it, as JSON (parsed once, here, and handed
        /// on with the request: the host's record keeps it for recordings).
        requested: Arc<Value>,
    },
    Url {
        message: String,
        url: String,
        /// Absent on 2026-07-28 (and, leniently, from a 2025 server that left it out).
        elicitation_id: Option<String>,
    },
    ViewLink {
        url: String,
        view: ViewId,
        question: u64,
    },
    Sampling(Box<crate::request::SamplingRequest>),
}

/// The forms of the last few typed requests, parsed, with their JSON: servers ask the same
/// forms again and again. rmcp's equality of schemas includes their property order, which is
/// the form's order.
#[derive(Debug, Default)]
pub(crate) struct SchemaCache {
    recent: VecDeque<(ElicitationSchema, Parsed)>,
    /// The same for schemas that came as JSON, compared with their properties' order.
    recent_json: VecDeque<Parsed>,
    /// The last parsed schema's property names, for the audit log: a server asks with the
    /// same schema again and again, and the cache hands out the same `Arc` for it.
    names: Option<(Arc<FormSchema>, Arc<[String]>)>,
}

/// A `requestedSchema`, parsed once: the form model and the JSON it came as.
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    pub(crate) form: Arc<FormSchema>,
    pub(crate) requested: Arc<Value>,
}

/// How many distinct schemas the engine remembers.
const SCHEMAS_KEPT: usize = 16;

impl SchemaCache {
    fn parse(&mut self, schema: &ElicitationSchema) -> Result<Parsed, Refusal> {
        if let Some((_, parsed)) = self.recent.iter().find(|(s, _)| s == schema) {
            return Ok(parsed.clone());
        }
        // One parser for every path: the typed schema goes back to JSON once, here.
        let json = serde_json::to_value(schema).map_err(|_| Refusal::MissingSchema)?;
        let parsed = Parsed {
            form: Arc::new(FormSchema::parse(&json)?.schema),
            requested: Arc::new(json),
        };
        if self.recent.len() >= SCHEMAS_KEPT {
            self.recent.pop_back();
        }
        self.recent.push_front((schema.clone(), parsed.clone()));
        Ok(parsed)
    }

    /// [`SchemaCache::parse`] for a schema that came as JSON.
    fn parse_json(&mut self, schema: &Value) -> Result<Parsed, Refusal> {
        if let Some(parsed) = self
            .recent_json
            .iter()
            .find(|p| interlude_schema::same_in_order(&p.requested, schema))
        {
            return Ok(parsed.clone());
        }
        let parsed = Parsed {
            form: Arc::new(FormSchema::parse(schema)?.schema),
            requested: Arc::new(schema.clone()),
        };
        if self.recent_json.len() >= SCHEMAS_KEPT {
            self.recent_json.pop_back();
        }
        self.recent_json.push_front(parsed.clone());
        Ok(parsed)
    }

    /// `schema`'s property names, in order (shared while the same schema comes again).
    pub(crate) fn names(&mut self, schema: &Arc<FormSchema>) -> Arc<[String]> {
        if let Some((last, names)) = &self.names
            && Arc::ptr_eq(last, schema)
        {
            return names.clone();
        }
        let names: Arc<[String]> = schema.fields.iter().map(|f| f.name.clone()).collect();
        self.names = Some((schema.clone(), names.clone()));
        names
    }
}

pub(crate) struct Limits {
    pub(crate) max_message_chars: usize,
    pub(crate) max_fields: usize,
    pub(crate) max_url_chars: usize,
}

/// The longest `elicitationId` kept (they are UUIDs in practice).
const MAX_ELICITATION_ID: usize = 256;

pub(crate) fn admit(
    params: &ElicitParams,
    declared: Declared,
    limits: &Limits,
    schemas: &mut SchemaCache,
) -> Result<Admitted, Refusal> {
    match params {
        ElicitParams::Typed(typed) => admit_typed(typed, declared, limits, schemas),
        ElicitParams::Json(value) => admit_json(value, declared, limits, schemas),
        ElicitParams::Interaction(value) => interaction::admit(value, declared, limits, schemas),
        ElicitParams::ViewLink {
            view,
            question,
            url,
        } => {
            check_url_length(url, limits)?;
            Ok(Admitted::ViewLink {
                url: url.clone(),
                view: *view,
                question: *question,
            })
        }
        ElicitParams::Sampling(value) => {
            if !declared.sampling {
                return Err(Refusal::Sampling {
                    field: "method".into(),
                    message: "sampling was not declared by this client".into(),
                });
            }
            // A conversation may quote a document: its parts get more room than a form's
            // message, and the transport's cap on a message bounds the whole.
            let limits = crate::kinds::sampling::SamplingLimits {
                max_text_chars: limits
                    .max_message_chars
                    .max(crate::kinds::sampling::MAX_TEXT_CHARS),
            };
            crate::kinds::sampling::admit(value, &limits)
                .map(|request| Admitted::Sampling(Box::new(request)))
                .map_err(|r| Refusal::Sampling {
                    field: r.field,
                    message: r.message,
                })
        }
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
            let Parsed { form, requested } = schemas.parse(requested_schema)?;
            Ok(Admitted::Form {
                message: message.clone(),
                schema: form,
                requested,
            })
        }
        ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } => admit_url(message, url, Some(elicitation_id), declared, limits),
        // A kind of request newer than this engine: judge it by its JSON.
        other => admit_json(
            &serde_json::to_value(other).unwrap_or(Value::Null),
            declared,
            limits,
            schemas,
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

fn admit_json(
    params: &Value,
    declared: Declared,
    limits: &Limits,
    schemas: &mut SchemaCache,
) -> Result<Admitted, Refusal> {
    let o = params.as_object().ok_or(Refusal::NotAnObject)?;
    let mode = match o.get("mode") {
        None | Some(Value::Null) => ElicitationMode::Form,
        Some(Value::String(m)) if m == "form" => ElicitationMode::Form,
        Some(Value::String(m)) if m == "url" => ElicitationMode::Url,
        Some(other) => return Err(Refusal::UnknownMode(other.to_string())),
    };
    check_mode(mode, declared)?;
    let message = o
        .get("message")
        .and_then(Value::as_str)
        .ok_or(Refusal::MissingMessage)?;
    if mode == ElicitationMode::Url {
        let url = o
            .get("url")
            .and_then(Value::as_str)
            .ok_or(Refusal::MissingUrl)?;
        let id = match o.get("elicitationId") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id.as_str()),
            Some(_) => {
                return Err(Refusal::BadElicitationId {
                    limit: MAX_ELICITATION_ID,
                });
            }
        };
        return admit_url(message, url, id, declared, limits);
    }
    check_message(message, limits)?;
    let schema = o.get("requestedSchema").ok_or(Refusal::MissingSchema)?;
    if let Some(count) = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(serde_json::Map::len)
    {
        check_field_count(count, limits)?;
    }
    let Parsed { form, requested } = schemas.parse_json(schema)?;
    Ok(Admitted::Form {
        message: message.to_owned(),
        schema: form,
        requested,
    })
}

/// A URL request's fields, checked for presence and size (the link itself is judged by the
/// URL safety rules, after admission).
/// A link is there and not longer than the limit.
fn check_url_length(url: &str, limits: &Limits) -> Result<(), Refusal> {
    if url.is_empty() {
        return Err(Refusal::MissingUrl);
    }
    let len = url.chars().count();
    if len > limits.max_url_chars {
        return Err(Refusal::UrlTooLong {
            len,
            limit: limits.max_url_chars,
        });
    }
    Ok(())
}

fn admit_url(
    message: &str,
    url: &str,
    elicitation_id: Option<&str>,
    declared: Declared,
    limits: &Limits,
) -> Result<Admitted, Refusal> {
    check_mode(ElicitationMode::Url, declared)?;
    check_message(message, limits)?;
    check_url_length(url, limits)?;
    // rmcp fills a missing id with "" (it became optional in 2026-07-28): the same as absent.
    let elicitation_id = match elicitation_id {
        None | Some("") => None,
        Some(id) if id.chars().count() > MAX_ELICITATION_ID => {
            return Err(Refusal::BadElicitationId {
                limit: MAX_ELICITATION_ID,
            });
        }
        Some(id) => Some(id.to_owned()),
    };
    Ok(Admitted::Url {
        message: message.to_owned(),
        url: url.to_owned(),
        elicitation_id,
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
        let first = cache.parse(&a).unwrap().form;
        let again = cache.parse(&a.clone()).unwrap();
        assert!(Arc::ptr_eq(&first, &again.form), "reused");
        // The JSON the server sent is handed on with it, the same each time.
        assert_eq!(again.requested["properties"]["x"]["type"], "string");
        assert!(Arc::ptr_eq(
            &again.requested,
            &cache.parse(&a).unwrap().requested
        ));
        let second = cache.parse(&b).unwrap().form;
        let names: Vec<&str> = second.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["y", "x"]);
        let names: Vec<&str> = first.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["x", "y"]);
    }

    #[test]
    fn a_schemas_names_are_shared_while_it_comes_again() {
        let a = typed(json!({"type": "object",
            "properties": {"x": {"type": "string"}, "y": {"type": "number"}}}));
        let b = typed(json!({"type": "object", "properties": {"z": {"type": "string"}}}));
        let mut cache = SchemaCache::default();
        let first = cache.parse(&a).unwrap().form;
        let names = cache.names(&first);
        assert_eq!(&*names, ["x", "y"]);
        let again = cache.parse(&a).unwrap().form;
        assert!(Arc::ptr_eq(&names, &cache.names(&again)), "shared");
        let other = cache.parse(&b).unwrap().form;
        assert_eq!(&*cache.names(&other), ["z"]);
        assert_eq!(&*cache.names(&first), ["x", "y"], "not another schema's");
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
            max_url_chars: 100,
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
        let (
            Admitted::Form {
                message: ma,
                schema: sa,
                ..
            },
            Admitted::Form {
                message: mb,
                schema: sb,
                ..
            },
        ) = (a, b)
        else {
            panic!("both are forms");
        };
        assert_eq!(ma, mb);
        assert_eq!(sa, sb);
    }

    #[test]
    fn url_requests_are_refused_when_undeclared_and_admitted_alike_when_declared() {
        let url: ElicitRequestParams = serde_json::from_value(json!({"mode": "url",
            "message": "Sign in", "url": "https://example.com/", "elicitationId": "e"}))
        .unwrap();
        let limits = Limits {
            max_message_chars: 100,
            max_fields: 4,
            max_url_chars: 100,
        };
        let mut cache = SchemaCache::default();
        let params = ElicitParams::from(url);
        let e = admit(&params, Declared::FORM, &limits, &mut cache).unwrap_err();
        assert_eq!(e, Refusal::Undeclared("url"));
        let both = Declared::FORM_AND_URL;
        let typed = admit(&params, both, &limits, &mut cache).unwrap();
        let raw = json!({"mode": "url", "message": "Sign in", "url": "https://example.com/",
            "elicitationId": "e"});
        let json = admit(&ElicitParams::Json(raw), both, &limits, &mut cache).unwrap();
        for admitted in [typed, json] {
            let Admitted::Url {
                message,
                url,
                elicitation_id,
            } = admitted
            else {
                panic!("a URL request");
            };
            assert_eq!(
                (message.as_str(), url.as_str()),
                ("Sign in", "https://example.com/")
            );
            assert_eq!(elicitation_id.as_deref(), Some("e"));
        }
        // 2026-07-28 sends no id; rmcp types it as "".
        let no_id: ElicitRequestParams = serde_json::from_value(json!({"mode": "url",
            "message": "Sign in", "url": "https://example.com/"}))
        .unwrap();
        let Admitted::Url { elicitation_id, .. } =
            admit(&ElicitParams::from(no_id), both, &limits, &mut cache).unwrap()
        else {
            panic!("a URL request");
        };
        assert_eq!(elicitation_id, None);
        let long = ElicitParams::Json(json!({"mode": "url", "message": "m",
            "url": format!("https://example.com/{}", "a".repeat(200))}));
        let e = admit(&long, both, &limits, &mut cache).unwrap_err();
        assert!(matches!(e, Refusal::UrlTooLong { limit: 100, .. }));
        assert_eq!(e.field().as_deref(), Some("url"));
        let missing = ElicitParams::Json(json!({"mode": "url", "message": "m"}));
        assert_eq!(
            admit(&missing, both, &limits, &mut cache).unwrap_err(),
            Refusal::MissingUrl
        );
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
            max_url_chars: 100,
        };
        assert!(matches!(
            admit(&params, Declared::FORM, &short, &mut cache),
            Err(Refusal::MessageTooLong { len: 20, limit: 10 })
        ));
        let narrow = Limits {
            max_message_chars: 100,
            max_fields: 1,
            max_url_chars: 100,
        };
        assert!(matches!(
            admit(&params, Declared::FORM, &narrow, &mut cache),
            Err(Refusal::TooManyFields { count: 2, limit: 1 })
        ));
    }
}
