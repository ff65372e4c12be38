//! A tool's arguments checked against its `inputSchema` before the call leaves: full JSON Schema
//! (the `jsonschema` crate, the dialect the schema names, 2020-12 by default, formats checked),
//! not the elicitation subset. Every surface calls it — the web page's tool form and its inline
//! messages, `interlude call --args`, the terminal's argument prompts — so that a call a server
//! would refuse for its shape is refused here first, with messages a person can act on.
//!
//! Each problem is an [`ArgumentError`]: where it is (a JSON Pointer), the top-level argument it
//! concerns, and one sentence that names the field the way a person reads it — the property's
//! `title`, else its name made readable, nested fields as a path ("Address › City"), items of a
//! list by number ("Tags › item 2"): "Enter city.", "Age must be at least 18.".
//!
//! What it deliberately does not do: fetch anything. A `$ref` to another document is not
//! followed (no network, no files), so a schema that needs one cannot be checked; neither can a
//! schema that is not valid JSON Schema. Then nothing is refused here and the server decides, as
//! it would without this check. The schema belongs to the server: the check may cost a person a
//! refused call, never a crashed host (a failure inside the validator counts as "cannot check").

use std::panic::{AssertUnwindSafe, catch_unwind};

use interlude_schema::{StringFormat, format_number, humanize, in_sentence, sentence_start};
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError};
use rmcp::model::JsonObject;
use serde::Serialize;
use serde_json::Value;

/// One problem with a tool's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ArgumentError {
    /// Where the problem is, as a JSON Pointer into the arguments (`/address/city`); for a
    /// missing property, where it would be; `""` for the arguments as a whole.
    pub pointer: String,
    /// The top-level argument it concerns (the property name), which is the field of a form
    /// that shows the arguments; `""` for the arguments as a whole.
    pub field: String,
    /// What is wrong, as one sentence naming the field ("Enter city.", "Age must be at least
    /// 18.").
    pub message: String,
}

/// Checks `arguments` against the tool's `input_schema`. `Err` lists every problem found, in
/// the order the validator met them; `Ok` too when the schema cannot be used to check (see the
/// module's documentation).
///
/// ```
/// use interlude_host::check_arguments;
/// let schema = serde_json::json!({"type": "object",
///     "properties": {"age": {"type": "integer", "minimum": 18}}, "required": ["age"]});
/// let schema = schema.as_object().unwrap();
/// let errors = check_arguments(schema, &serde_json::Map::new()).unwrap_err();
/// assert_eq!(errors[0].message, "Enter age.");
/// let young = serde_json::json!({"age": 12});
/// let errors = check_arguments(schema, young.as_object().unwrap()).unwrap_err();
/// assert_eq!(errors[0].message, "Age must be at least 18.");
/// assert_eq!(errors[0].field, "age");
/// ```
pub fn check_arguments(
    input_schema: &JsonObject,
    arguments: &JsonObject,
) -> Result<(), Vec<ArgumentError>> {
    let schema = Value::Object(input_schema.clone());
    let instance = Value::Object(arguments.clone());
    let checked = catch_unwind(AssertUnwindSafe(|| -> Option<Vec<ArgumentError>> {
        let validator = match jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
        {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!("a tool's input schema cannot be used to check arguments: {e}");
                return None;
            }
        };
        let namer = Namer {
            schema: &schema,
            instance: &instance,
        };
        Some(
            validator
                .iter_errors(&instance)
                .flat_map(|e| namer.explain(&e))
                .collect(),
        )
    }));
    match checked {
        Ok(Some(errors)) if !errors.is_empty() => Err(errors),
        Ok(_) => Ok(()),
        Err(_) => {
            tracing::warn!("checking a tool's arguments failed inside the validator; not checked");
            Ok(())
        }
    }
}

/// Reads arguments a person typed as JSON: an object, or one [`ArgumentError`] for the
/// arguments as a whole that says what is wrong and where ("The arguments are not valid JSON:
/// expected `,` or `}` at line 2, column 5.").
///
/// ```
/// let err = interlude_host::parse_arguments("{\"a\": }").unwrap_err();
/// assert_eq!(err.message, "The arguments are not valid JSON: expected value at line 1, column 7.");
/// assert!(interlude_host::parse_arguments("[1]").is_err());
/// assert_eq!(interlude_host::parse_arguments(" ").unwrap().len(), 0);
/// ```
pub fn parse_arguments(text: &str) -> Result<JsonObject, ArgumentError> {
    let whole = |message: String| ArgumentError {
        pointer: String::new(),
        field: String::new(),
        message,
    };
    if text.trim().is_empty() {
        return Ok(JsonObject::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(whole(
            "The arguments must be a JSON object, such as {\"key\": 1}.".to_owned(),
        )),
        Err(e) => {
            // serde_json says "… at line L column C"; the position is said once, our way.
            let said = e.to_string();
            let what = said
                .rsplit_once(" at line ")
                .map_or(said.as_str(), |(what, _)| what);
            Err(whole(format!(
                "The arguments are not valid JSON: {what} at line {}, column {}.",
                e.line(),
                e.column()
            )))
        }
    }
}

/// Names fields the way a person reads them, from the schema (titles) and the instance (which
/// segments are list items).
struct Namer<'a> {
    schema: &'a Value,
    instance: &'a Value,
}

/// A field's name, at the start of a sentence and inside one.
struct Name {
    start: String,
    inside: String,
}

/// One step of a pointer.
enum Step {
    Key(String),
    Index(usize),
}

impl Namer<'_> {
    /// The pointer's steps, read against the instance: a segment under an array is an index.
    fn steps(&self, pointer: &str) -> Vec<Step> {
        let mut here = Some(self.instance);
        let mut steps = Vec::new();
        for raw in pointer.split('/').skip(1) {
            let key = raw.replace("~1", "/").replace("~0", "~");
            match (here, key.parse::<usize>()) {
                (Some(Value::Array(items)), Ok(i)) => {
                    here = items.get(i);
                    steps.push(Step::Index(i));
                }
                _ => {
                    here = here.and_then(|h| h.get(&key));
                    steps.push(Step::Key(key));
                }
            }
        }
        steps
    }

    /// A person's name for the value at `steps`: each property by its title (else its name
    /// made readable), list items by their number, joined with " › ".
    fn name(&self, steps: &[Step]) -> Name {
        if steps.is_empty() {
            return Name {
                start: "The tool's input".to_owned(),
                inside: "the tool's input".to_owned(),
            };
        }
        let mut schema = Some(self.schema);
        let mut parts: Vec<String> = Vec::new();
        for step in steps {
            schema = schema.map(|s| self.resolve(s));
            match step {
                Step::Key(key) => {
                    let sub = schema.and_then(|s| s.get("properties")?.get(key.as_str()));
                    let sub = sub.map(|s| self.resolve(s));
                    let title = sub
                        .and_then(|s| s.get("title")?.as_str())
                        .map(str::trim)
                        .filter(|t| !t.is_empty());
                    parts.push(title.map_or_else(|| humanize(key), str::to_owned));
                    schema = sub;
                }
                Step::Index(i) => {
                    parts.push(format!("item {}", i + 1));
                    schema = schema.and_then(|s| {
                        s.get("prefixItems")
                            .and_then(|p| p.get(*i))
                            .or_else(|| s.get("items").filter(|i| i.is_object()))
                    });
                }
            }
        }
        let path = parts.join(" \u{203a} ");
        Name {
            start: sentence_start(&path),
            inside: if parts.len() == 1 {
                in_sentence(&path)
            } else {
                path
            },
        }
    }

    /// A local `$ref` (`#/$defs/…`) followed, at most a few times; anything else as it is.
    fn resolve<'s>(&'s self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..8 {
            let Some(target) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|pointer| self.schema.pointer(pointer))
            else {
                break;
            };
            schema = target;
        }
        schema
    }

    /// The schema at `steps`, for what a missing property expects.
    fn schema_at(&self, steps: &[Step]) -> Option<&Value> {
        let mut schema = Some(self.resolve(self.schema));
        for step in steps {
            schema = match step {
                Step::Key(key) => schema.and_then(|s| s.get("properties")?.get(key.as_str())),
                Step::Index(_) => schema.and_then(|s| s.get("items")),
            }
            .map(|s| self.resolve(s));
        }
        schema
    }

    /// The problems one validation error stands for (one, or one per unexpected property).
    fn explain(&self, error: &ValidationError<'_>) -> Vec<ArgumentError> {
        let mut steps = self.steps(error.instance_path().as_str());
        let pointer = error.instance_path().as_str().to_owned();
        let problem = |steps: &[Step], pointer: String, message: String| {
            let field = match steps.first() {
                Some(Step::Key(k)) => k.clone(),
                Some(Step::Index(i)) => i.to_string(),
                None => String::new(),
            };
            ArgumentError {
                pointer,
                field,
                message,
            }
        };
        let unexpected = |keys: &[String]| -> Vec<ArgumentError> {
            let parent = self.name(&steps_clone(&steps));
            keys.iter()
                .map(|key| {
                    let mut at = steps_clone(&steps);
                    at.push(Step::Key(key.clone()));
                    let message = if steps.is_empty() {
                        format!("\u{201c}{key}\u{201d} is not an argument of this tool.")
                    } else {
                        format!("{} has no field \u{201c}{key}\u{201d}.", parent.start)
                    };
                    problem(&at, format!("{pointer}/{}", escape(key)), message)
                })
                .collect()
        };
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                let key = property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned);
                steps.push(Step::Key(key.clone()));
                let name = self.name(&steps);
                let message = match self.schema_at(&steps) {
                    Some(s) if s.get("enum").is_some() || s.get("oneOf").is_some() => {
                        format!("Choose {}.", name.inside)
                    }
                    Some(s)
                        if matches!(
                            s.get("type").and_then(Value::as_str),
                            Some("string" | "number" | "integer")
                        ) =>
                    {
                        format!("Enter {}.", name.inside)
                    }
                    _ => format!("{} is required.", name.start),
                };
                vec![problem(
                    &steps,
                    format!("{pointer}/{}", escape(&key)),
                    message,
                )]
            }
            ValidationErrorKind::AdditionalProperties { unexpected: keys }
            | ValidationErrorKind::UnevaluatedProperties { unexpected: keys } => unexpected(keys),
            kind => {
                let name = self.name(&steps);
                vec![problem(&steps, pointer, sentence(&name, kind))]
            }
        }
    }
}

fn steps_clone(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .map(|s| match s {
            Step::Key(k) => Step::Key(k.clone()),
            Step::Index(i) => Step::Index(*i),
        })
        .collect()
}

/// A key as a JSON Pointer segment.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A value as a person reads it in a sentence: text in quotes, numbers as written.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\u{201c}{s}\u{201d}"),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), format_number),
        Value::Bool(true) => "true".to_owned(),
        Value::Bool(false) => "false".to_owned(),
        other => other.to_string(),
    }
}

/// "one item", "2 items".
fn count(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("one {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// "a", "a or b", "a, b or c".
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn kind_of(t: JsonType) -> &'static str {
    match t {
        JsonType::String => "text",
        JsonType::Integer => "a whole number",
        JsonType::Number => "a number",
        JsonType::Boolean => "true or false",
        JsonType::Array => "a list",
        JsonType::Object => "a JSON object",
        JsonType::Null => "null",
    }
}

/// The sentence for every kind of problem but a missing or unexpected property.
fn sentence(name: &Name, kind: &ValidationErrorKind) -> String {
    let n = &name.start;
    match kind {
        ValidationErrorKind::Type { kind } => {
            let kinds: Vec<String> = match kind {
                TypeKind::Single(t) => vec![kind_of(*t).to_owned()],
                // "or null" says nothing to a person: an optional field may be left out.
                TypeKind::Multiple(set) => {
                    let some: Vec<JsonType> = set.iter().filter(|t| *t != JsonType::Null).collect();
                    let shown = if some.is_empty() {
                        set.iter().collect()
                    } else {
                        some
                    };
                    shown.into_iter().map(|t| kind_of(t).to_owned()).collect()
                }
            };
            format!("{n} must be {}.", or_list(&kinds))
        }
        ValidationErrorKind::Minimum { limit } => format!("{n} must be at least {}.", shown(limit)),
        ValidationErrorKind::Maximum { limit } => format!("{n} must be at most {}.", shown(limit)),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("{n} must be more than {}.", shown(limit))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("{n} must be less than {}.", shown(limit))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("{n} must be a multiple of {}.", format_number(*multiple_of))
        }
        ValidationErrorKind::MinLength { limit: 1 } => format!("{n} must not be empty."),
        ValidationErrorKind::MinLength { limit } => {
            format!("{n} must be at least {} long.", count(*limit, "character"))
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("{n} must be at most {} long.", count(*limit, "character"))
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("{n} must match the pattern {pattern}.")
        }
        ValidationErrorKind::Format { format } => match StringFormat::from_wire(format) {
            Some(f) => format!("{n} must be {}.", f.expectation()),
            None => format!("{n} must be in the {format} format."),
        },
        ValidationErrorKind::Enum { options } => match options.as_array() {
            Some(values) if values.len() <= 8 => {
                let values: Vec<String> = values.iter().map(shown).collect();
                format!("{n} must be {}.", or_list(&values))
            }
            _ => format!("{n} must be one of the allowed values."),
        },
        ValidationErrorKind::Constant { expected_value } => {
            format!("{n} must be {}.", shown(expected_value))
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("{n} needs at least {}.", count(*limit, "item"))
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("{n} takes at most {}.", count(*limit, "item"))
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("{n} takes at most {}.", count(*limit as u64, "item"))
        }
        ValidationErrorKind::UniqueItems => format!("{n} lists the same item twice."),
        ValidationErrorKind::Contains => format!("{n} has no item of the kind it needs."),
        ValidationErrorKind::MinProperties { limit } => {
            format!("{n} needs at least {}.", count(*limit, "field"))
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("{n} takes at most {}.", count(*limit, "field"))
        }
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            format!("{n} does not have any of the shapes it may take.")
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            format!("{n} fits more than one of the shapes it may take, and must fit exactly one.")
        }
        ValidationErrorKind::Not { .. } => format!("{n} has a value it must not have."),
        ValidationErrorKind::FalseSchema => format!("{n} is not allowed."),
        ValidationErrorKind::PropertyNames { .. } => format!("{n} has a field with a wrong name."),
        ValidationErrorKind::UnevaluatedItems { .. } => {
            format!("{n} has more items than it takes.")
        }
        other => format!("{n} is not valid ({}).", other.keyword()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: Value, args: Value) -> Result<(), Vec<ArgumentError>> {
        check_arguments(schema.as_object().unwrap(), args.as_object().unwrap())
    }

    fn messages(schema: Value, args: Value) -> Vec<(String, String, String)> {
        check(schema, args)
            .unwrap_err()
            .into_iter()
            .map(|e| (e.pointer, e.field, e.message))
            .collect()
    }

    fn one(schema: Value, args: Value) -> String {
        let mut all = messages(schema, args);
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0).2
    }

    #[test]
    fn required_fields_are_enforced_with_what_to_do() {
        let schema = json!({"type": "object", "properties": {
            "email": {"type": "string", "title": "Your email address"},
            "age": {"type": "integer"},
            "genre": {"type": "string", "enum": ["jazz", "rock"]},
            "address": {"type": "object"},
            "agree": {"type": "boolean"}},
            "required": ["email", "age", "genre", "address", "agree"]});
        let got = messages(schema.clone(), json!({}));
        let got: Vec<(&str, &str, &str)> = got
            .iter()
            .map(|(p, f, m)| (p.as_str(), f.as_str(), m.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("/email", "email", "Enter your email address."),
                ("/age", "age", "Enter age."),
                ("/genre", "genre", "Choose genre."),
                ("/address", "address", "Address is required."),
                ("/agree", "agree", "Agree is required."),
            ]
        );
        assert_eq!(
            check(
                schema,
                json!({"email": "a", "age": 1, "genre": "jazz", "address": {}, "agree": true})
            ),
            Ok(())
        );
    }

    #[test]
    fn wrong_types_say_what_is_expected() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string"}, "count": {"type": "integer"},
            "ratio": {"type": "number"}, "on": {"type": "boolean"},
            "tags": {"type": "array"}, "either": {"type": ["string", "null"]},
            "mixed": {"type": ["string", "integer"]}}});
        assert_eq!(
            one(schema.clone(), json!({"name": 1})),
            "Name must be text."
        );
        assert_eq!(
            one(schema.clone(), json!({"count": 2.5})),
            "Count must be a whole number."
        );
        assert_eq!(
            one(schema.clone(), json!({"ratio": "1"})),
            "Ratio must be a number."
        );
        assert_eq!(
            one(schema.clone(), json!({"on": "yes"})),
            "On must be true or false."
        );
        assert_eq!(
            one(schema.clone(), json!({"tags": "a"})),
            "Tags must be a list."
        );
        assert_eq!(
            one(schema.clone(), json!({"mixed": true})),
            "Mixed must be a whole number or text."
        );
        assert_eq!(one(schema, json!({"either": 3})), "Either must be text.");
    }

    #[test]
    fn bounds_lengths_formats_and_patterns() {
        let schema = json!({"type": "object", "properties": {
            "age": {"type": "integer", "minimum": 18, "maximum": 150},
            "step": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
            "name": {"type": "string", "minLength": 1, "maxLength": 5},
            "code": {"type": "string", "minLength": 3, "pattern": "^[A-Z]+$"},
            "email": {"type": "string", "format": "email"},
            "day": {"type": "string", "format": "date"},
            "ip": {"type": "string", "format": "ipv4"}}});
        assert_eq!(
            one(schema.clone(), json!({"age": 12})),
            "Age must be at least 18."
        );
        assert_eq!(
            one(schema.clone(), json!({"age": 200})),
            "Age must be at most 150."
        );
        assert_eq!(
            one(schema.clone(), json!({"step": 0})),
            "Step must be more than 0."
        );
        assert_eq!(
            one(schema.clone(), json!({"step": 0.3})),
            "Step must be a multiple of 0.5."
        );
        assert_eq!(
            one(schema.clone(), json!({"name": ""})),
            "Name must not be empty."
        );
        assert_eq!(
            one(schema.clone(), json!({"name": "abcdef"})),
            "Name must be at most 5 characters long."
        );
        assert_eq!(
            one(schema.clone(), json!({"code": "ABc"})),
            "Code must match the pattern ^[A-Z]+$."
        );
        assert_eq!(
            one(schema.clone(), json!({"email": "nope"})),
            "Email must be an e-mail address, such as ada@example.com."
        );
        assert_eq!(
            one(schema.clone(), json!({"day": "2023-02-29"})),
            "Day must be a date in the form YYYY-MM-DD, such as 2026-07-28."
        );
        assert_eq!(
            one(schema, json!({"ip": "1.2.3"})),
            "Ip must be in the ipv4 format."
        );
    }

    #[test]
    fn enums_and_constants_list_what_is_allowed() {
        let schema = json!({"type": "object", "properties": {
            "unit": {"enum": ["c", "f", 3]},
            "many": {"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9]},
            "kind": {"const": "fixed"}}});
        assert_eq!(
            one(schema.clone(), json!({"unit": "k"})),
            "Unit must be \u{201c}c\u{201d}, \u{201c}f\u{201d} or 3."
        );
        assert_eq!(
            one(schema.clone(), json!({"many": 0})),
            "Many must be one of the allowed values."
        );
        assert_eq!(
            one(schema, json!({"kind": "other"})),
            "Kind must be \u{201c}fixed\u{201d}."
        );
    }

    #[test]
    fn nested_fields_and_list_items_are_named_as_a_path() {
        let schema = json!({"type": "object", "properties": {
            "address": {"type": "object", "title": "Postal address",
                "properties": {"city": {"type": "string", "minLength": 1},
                               "zipCode": {"type": "string", "pattern": "^[0-9]{5}$"}},
                "required": ["city"], "additionalProperties": false},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3,
                     "uniqueItems": true},
            "owner": {"$ref": "#/$defs/person"}},
            "$defs": {"person": {"type": "object", "properties": {
                "name": {"type": "string", "title": "Full name"}}, "required": ["name"]}},
            "additionalProperties": false});
        let got = messages(
            schema.clone(),
            json!({"address": {"zipCode": "12", "country": "FR"}, "tags": ["a", 2],
                   "owner": {}, "extra": 1}),
        );
        let got: Vec<(&str, &str, &str)> = got
            .iter()
            .map(|(p, f, m)| (p.as_str(), f.as_str(), m.as_str()))
            .collect();
        for expected in [
            (
                "/address/city",
                "address",
                "Enter Postal address \u{203a} City.",
            ),
            (
                "/address/zipCode",
                "address",
                "Postal address \u{203a} Zip code must match the pattern ^[0-9]{5}$.",
            ),
            (
                "/address/country",
                "address",
                "Postal address has no field \u{201c}country\u{201d}.",
            ),
            ("/tags/1", "tags", "Tags \u{203a} item 2 must be text."),
            ("/owner/name", "owner", "Enter Owner \u{203a} Full name."),
            (
                "/extra",
                "extra",
                "\u{201c}extra\u{201d} is not an argument of this tool.",
            ),
        ] {
            assert!(got.contains(&expected), "{expected:?} not in {got:#?}");
        }
        assert_eq!(got.len(), 6, "{got:#?}");
        assert_eq!(
            one(schema.clone(), json!({"tags": ["a", "a"]})),
            "Tags lists the same item twice."
        );
        assert_eq!(
            one(schema, json!({"tags": ["a", "b", "c", "d"]})),
            "Tags takes at most 3 items."
        );
    }

    #[test]
    fn every_message_is_a_sentence() {
        let schema = json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "b": {"not": {"type": "string"}},
            "c": {"type": "array", "minItems": 1, "contains": {"type": "integer"}},
            "d": {"type": "object", "minProperties": 2}}, "required": ["e"]});
        let all = messages(schema, json!({"a": true, "b": "x", "c": [], "d": {}}));
        assert_eq!(all.len(), 6, "{all:#?}");
        for (_, _, m) in all {
            assert!(m.starts_with(char::is_uppercase), "{m}");
            assert!(m.ends_with('.'), "{m}");
            assert!(!m.contains("  "), "{m}");
        }
    }

    #[test]
    fn a_schema_that_cannot_check_lets_the_server_decide() {
        // Not valid JSON Schema, and a reference to another document (never fetched).
        assert_eq!(check(json!({"type": 12}), json!({"x": 1})), Ok(()));
        assert_eq!(
            check(
                json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}}),
                json!({"x": 1})
            ),
            Ok(())
        );
        // No constraints: anything goes.
        assert_eq!(check(json!({"type": "object"}), json!({"x": [1]})), Ok(()));
    }

    #[test]
    fn the_arguments_as_a_whole() {
        assert_eq!(
            one(json!({"type": "object", "minProperties": 1}), json!({})),
            "The tool's input needs at least one field."
        );
        let err = parse_arguments("{\"a\": 1,\n \"b\" }").unwrap_err();
        assert_eq!(
            err.message,
            "The arguments are not valid JSON: expected `:` at line 2, column 6."
        );
        assert_eq!((err.pointer.as_str(), err.field.as_str()), ("", ""));
        assert_eq!(
            parse_arguments("3").unwrap_err().message,
            "The arguments must be a JSON object, such as {\"key\": 1}."
        );
        assert_eq!(parse_arguments(r#"{"a": [1]}"#).unwrap()["a"], json!([1]));
    }
}
