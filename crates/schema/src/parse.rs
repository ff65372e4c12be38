//! Lenient parsing of a wire `requestedSchema` into the form model.
//!
//! Lenient means: keywords the subset does not define (`$schema`, `pattern`, `nullable`,
//! `additionalProperties`, vendor keys…) are tolerated and reported as diagnostics; a request
//! without `type: "object"` at the top is read as an object. Strict means: any property whose
//! shape the subset cannot represent (nested objects, arrays of non-enums, unknown or missing
//! types, `$ref`, defaults of the wrong type) is refused with an error naming the property,
//! because showing a person half a form is worse than showing none.
//!
//! Sources: 2025-11-25 and 2026-07-28 `schema.ts` (`PrimitiveSchemaDefinition`), SEP-1034
//! (defaults), SEP-1330 (enum variants).
//!
//! This file reads the schema's top level and each property's common keywords and its text,
//! number and boolean fields; beside it, `parse/choices.rs` reads the choice fields (single and
//! multi select) and `parse/error.rs` says why a schema is refused. Not here: validating an
//! answer (`validate.rs`), presenting a field (`present.rs`).

mod choices;
mod error;

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::limits::{
    MAX_DEFAULT_CHARS, MAX_DESCRIPTION_CHARS, MAX_DIAGNOSTICS, MAX_DIALECT_CHARS, MAX_NAME_CHARS,
    MAX_PATTERN_CHARS, MAX_PROPERTIES, MAX_TITLE_CHARS, echo, over,
};
use crate::model::{Diagnostic, Field, FieldKind, FormSchema, Parsed, StringFormat};
use choices::{parse_multi_select, parse_single_select};
use error::{PResult, err, top};
pub use error::{SchemaError, SchemaErrorKind};

/// Refuses `text` when it is longer than `limit` characters.
pub(super) fn check_len(
    property: Option<&str>,
    what: &'static str,
    text: &str,
    limit: usize,
) -> PResult<()> {
    match over(text, limit) {
        None => Ok(()),
        Some(len) => {
            let kind = SchemaErrorKind::TooLong { what, len, limit };
            Err(match property {
                Some(p) => err(p, kind),
                None => top(kind),
            })
        }
    }
}

/// The diagnostics of one parse, at most [`MAX_DIAGNOSTICS`] kept; the rest are counted.
#[derive(Default)]
struct Diags {
    kept: Vec<Diagnostic>,
    dropped: usize,
}

impl Diags {
    fn push(&mut self, property: Option<&str>, message: String) {
        if self.kept.len() < MAX_DIAGNOSTICS {
            self.kept.push(Diagnostic {
                property: property.map(str::to_owned),
                message,
            });
        } else {
            self.dropped += 1;
        }
    }

    fn finish(mut self) -> Vec<Diagnostic> {
        if self.dropped > 0 {
            self.kept.push(Diagnostic {
                property: None,
                message: format!("{} more diagnostics not kept", self.dropped),
            });
        }
        self.kept
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Keywords that may appear on any property without changing its meaning.
const ANNOTATIONS: &[&str] = &[
    "type",
    "title",
    "description",
    "default",
    "$comment",
    "examples",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
];

const COMPOSITION: &[&str] = &["$ref", "allOf", "not", "if", "then", "else", "$defs"];

impl FormSchema {
    /// Parses a wire `requestedSchema`. See the module documentation of this crate for what is
    /// tolerated and what is refused, and [`limits`](crate::limits) for the size caps: a schema
    /// over any of them is refused naming the property and the cap.
    ///
    /// Takes time linear in the size of `value` (duplicate choices are found with a hash set,
    /// `required` is read once into one).
    ///
    /// ```
    /// use interlude_schema::FormSchema;
    /// use serde_json::json;
    ///
    /// let parsed = FormSchema::parse(&json!({"type": "object", "properties": {
    ///     "name": {"type": "string", "pattern": "^[a-z]+$"}}}))?;
    /// assert_eq!(parsed.schema.fields[0].name, "name");
    /// assert_eq!(parsed.diagnostics.len(), 1, "pattern is shown, not enforced");
    ///
    /// let err = FormSchema::parse(&json!({"type": "object", "properties": {
    ///     "note": {"type": "string", "description": "x".repeat(5_000)}}})).unwrap_err();
    /// assert_eq!(err.to_string(),
    ///     "property `note`: `description` is 5000 characters long; the limit is 4096");
    /// # Ok::<(), interlude_schema::SchemaError>(())
    /// ```
    pub fn parse(value: &Value) -> Result<Parsed, SchemaError> {
        let mut diags = Diags::default();
        let root = value.as_object().ok_or(top(SchemaErrorKind::NotAnObject {
            found: json_type(value),
        }))?;
        match root.get("type") {
            None => diags.push(None, "missing top-level `type`, read as \"object\"".into()),
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => {
                return Err(top(SchemaErrorKind::TopLevelNotObject {
                    found: echo(&other.to_string()),
                }));
            }
        }
        let dialect = match root.get("$schema") {
            Some(Value::String(s)) => {
                check_len(None, "`$schema`", s, MAX_DIALECT_CHARS)?;
                Some(s.clone())
            }
            Some(_) => {
                diags.push(None, "ignored non-string `$schema`".into());
                None
            }
            None => None,
        };
        for key in root.keys() {
            if !matches!(
                key.as_str(),
                "type" | "properties" | "required" | "$schema" | "title" | "description"
            ) {
                diags.push(None, format!("ignored top-level keyword `{}`", echo(key)));
            }
        }
        let props = match root.get("properties") {
            None => &Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(top(SchemaErrorKind::BadProperties)),
        };
        if props.len() > MAX_PROPERTIES {
            return Err(top(SchemaErrorKind::TooMany {
                what: "`properties`",
                count: props.len(),
                limit: MAX_PROPERTIES,
            }));
        }
        let bad_required = || {
            top(SchemaErrorKind::BadKeyword {
                keyword: "required",
                expected: "an array of property names",
            })
        };
        let required: HashSet<&str> = match root.get("required") {
            None => HashSet::new(),
            Some(Value::Array(a)) => {
                if a.len() > MAX_PROPERTIES {
                    return Err(top(SchemaErrorKind::TooMany {
                        what: "`required`",
                        count: a.len(),
                        limit: MAX_PROPERTIES,
                    }));
                }
                let names = a
                    .iter()
                    .map(|v| v.as_str().ok_or_else(bad_required))
                    .collect::<PResult<HashSet<&str>>>()?;
                if let Some(undefined) = a
                    .iter()
                    .filter_map(Value::as_str)
                    .find(|name| !props.contains_key(*name))
                {
                    return Err(err(undefined, SchemaErrorKind::RequiredUndefined));
                }
                names
            }
            Some(_) => return Err(bad_required()),
        };
        let mut fields = Vec::with_capacity(props.len());
        for (name, prop) in props {
            let mut field = parse_property(name, prop, &mut diags)?;
            field.required = required.contains(name.as_str());
            fields.push(field);
        }
        Ok(Parsed {
            schema: FormSchema { fields, dialect },
            diagnostics: diags.finish(),
        })
    }
}

fn parse_property(name: &str, prop: &Value, diags: &mut Diags) -> PResult<Field> {
    check_len(Some(name), "the property name", name, MAX_NAME_CHARS)?;
    let o = prop.as_object().ok_or_else(|| {
        err(
            name,
            SchemaErrorKind::NotAnObject {
                found: json_type(prop),
            },
        )
    })?;
    for kw in COMPOSITION {
        if o.contains_key(*kw) {
            return Err(err(
                name,
                SchemaErrorKind::UnsupportedKeyword {
                    keyword: (*kw).to_owned(),
                },
            ));
        }
    }
    let title = opt_str(name, o, "title", MAX_TITLE_CHARS)?;
    let description = opt_str(name, o, "description", MAX_DESCRIPTION_CHARS)?;
    let ty = match o.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => {
            // `["string", "null"]`: the nullable form some generators emit. Keep the non-null
            // type; the property is simply optional.
            let non_null: Vec<&str> = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match *non_null.as_slice() {
                [one] => {
                    diags.push(
                        Some(name),
                        "read nullable type list as its non-null type".into(),
                    );
                    one
                }
                _ => {
                    return Err(err(
                        name,
                        SchemaErrorKind::UnsupportedType {
                            found: echo(&Value::Array(types.clone()).to_string()),
                        },
                    ));
                }
            }
        }
        Some(other) => {
            return Err(err(
                name,
                SchemaErrorKind::UnsupportedType {
                    found: echo(&other.to_string()),
                },
            ));
        }
        // An enum keyword without `type` is unambiguous enough to read as a string enum.
        None if o.contains_key("enum") || o.contains_key("oneOf") => "string",
        None => return Err(err(name, SchemaErrorKind::MissingType)),
    };
    let (kind, known): (FieldKind, &[&str]) = match ty {
        "string"
            if o.contains_key("enum") || o.contains_key("oneOf") || o.contains_key("anyOf") =>
        {
            (
                parse_single_select(name, o)?,
                &["enum", "enumNames", "oneOf", "anyOf"],
            )
        }
        "string" => (
            parse_text(name, o, diags)?,
            &["minLength", "maxLength", "format", "pattern"],
        ),
        "number" | "integer" => (
            parse_number(name, o, ty == "integer")?,
            &["minimum", "maximum", "format"],
        ),
        "boolean" => (
            FieldKind::Boolean {
                default: match o.get("default") {
                    None | Some(Value::Null) => None,
                    Some(Value::Bool(b)) => Some(*b),
                    Some(v) => return Err(bad_default(name, v, "expected a boolean")),
                },
            },
            &[],
        ),
        "array" => (
            parse_multi_select(name, o)?,
            &["items", "minItems", "maxItems", "uniqueItems"],
        ),
        "object" => return Err(err(name, SchemaErrorKind::NestedObject)),
        other => {
            return Err(err(
                name,
                SchemaErrorKind::UnsupportedType {
                    found: echo(&format!("\"{other}\"")),
                },
            ));
        }
    };
    for key in o.keys() {
        if !ANNOTATIONS.contains(&key.as_str()) && !known.contains(&key.as_str()) {
            diags.push(Some(name), format!("ignored keyword `{}`", echo(key)));
        }
    }
    Ok(Field {
        name: name.to_owned(),
        title,
        description,
        required: false,
        kind,
    })
}

/// An optional string keyword of at most `limit` characters.
fn opt_str(
    name: &str,
    o: &Map<String, Value>,
    key: &'static str,
    limit: usize,
) -> PResult<Option<String>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let what = match key {
                "title" => "`title`",
                "description" => "`description`",
                "pattern" => "`pattern`",
                _ => "a keyword",
            };
            check_len(Some(name), what, s, limit)?;
            Ok(Some(s.clone()))
        }
        Some(_) => Err(err(
            name,
            SchemaErrorKind::BadKeyword {
                keyword: key,
                expected: "a string",
            },
        )),
    }
}

pub(super) fn opt_u64(
    name: &str,
    o: &Map<String, Value>,
    key: &'static str,
) -> PResult<Option<u64>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
                    .map(|f| {
                        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                        let n = f as u64;
                        n
                    })
            })
            .map(Some)
            .ok_or_else(|| {
                err(
                    name,
                    SchemaErrorKind::BadKeyword {
                        keyword: key,
                        expected: "a non-negative integer",
                    },
                )
            }),
    }
}

fn opt_f64(name: &str, o: &Map<String, Value>, key: &'static str) -> PResult<Option<f64>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or_else(|| {
            err(
                name,
                SchemaErrorKind::BadKeyword {
                    keyword: key,
                    expected: "a number",
                },
            )
        }),
    }
}

pub(super) fn bad_default(name: &str, v: &Value, reason: impl Into<String>) -> SchemaError {
    err(
        name,
        SchemaErrorKind::BadDefault {
            value: echo(&v.to_string()),
            reason: reason.into(),
        },
    )
}

fn parse_text(name: &str, o: &Map<String, Value>, diags: &mut Diags) -> PResult<FieldKind> {
    let min_length = opt_u64(name, o, "minLength")?;
    let max_length = opt_u64(name, o, "maxLength")?;
    let format = match o.get("format") {
        None | Some(Value::Null) => None,
        Some(Value::String(f)) => match StringFormat::from_wire(f) {
            Some(f) => Some(f),
            None => {
                diags.push(
                    Some(name),
                    format!("ignored unknown string format `{}`", echo(f)),
                );
                None
            }
        },
        Some(_) => {
            return Err(err(
                name,
                SchemaErrorKind::BadKeyword {
                    keyword: "format",
                    expected: "a string",
                },
            ));
        }
    };
    let pattern = opt_str(name, o, "pattern", MAX_PATTERN_CHARS)?;
    if pattern.is_some() {
        diags.push(
            Some(name),
            "`pattern` is not part of the elicitation subset; shown, not enforced".into(),
        );
    }
    let default = match o.get("default") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            check_len(Some(name), "`default`", s, MAX_DEFAULT_CHARS)?;
            Some(s.clone())
        }
        Some(v) => return Err(bad_default(name, v, "expected a string")),
    };
    Ok(FieldKind::Text {
        min_length,
        max_length,
        format,
        pattern,
        default,
    })
}

fn parse_number(name: &str, o: &Map<String, Value>, integer: bool) -> PResult<FieldKind> {
    let minimum = opt_f64(name, o, "minimum")?;
    let maximum = opt_f64(name, o, "maximum")?;
    let default = match o.get("default") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let n = v
                .as_f64()
                .ok_or_else(|| bad_default(name, v, "expected a number"))?;
            if integer && n.fract() != 0.0 {
                return Err(bad_default(name, v, "expected an integer"));
            }
            Some(n)
        }
    };
    Ok(FieldKind::Number {
        integer,
        minimum,
        maximum,
        default,
    })
}

/// Whether `a` and `b` are the same JSON, objects' keys in the same order: the same
/// `requestedSchema` (`==` on JSON objects ignores key order, and a form's order is its
/// properties' order).
///
/// ```
/// use serde_json::json;
/// let a = json!({"properties": {"x": {"type": "string"}, "y": {"type": "number"}}});
/// let b = json!({"properties": {"y": {"type": "number"}, "x": {"type": "string"}}});
/// assert_eq!(a, b);
/// assert!(!interlude_schema::same_in_order(&a, &b));
/// assert!(interlude_schema::same_in_order(&a, &a.clone()));
/// ```
pub fn same_in_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_in_order(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_in_order(a, b))
        }
        _ => a == b,
    }
}
