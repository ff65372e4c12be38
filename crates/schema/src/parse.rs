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

use serde_json::{Map, Value};

use crate::model::{
    Choice, Diagnostic, EnumStyle, Field, FieldKind, FormSchema, MultiStyle, Parsed, StringFormat,
};

/// A schema the subset cannot represent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", render(.property.as_deref(), .kind))]
pub struct SchemaError {
    /// The property concerned, or `None` when the problem is at the top level.
    pub property: Option<String>,
    /// What is wrong.
    pub kind: SchemaErrorKind,
}

fn render(property: Option<&str>, kind: &SchemaErrorKind) -> String {
    match property {
        Some(p) => format!("property `{p}`: {kind}"),
        None => format!("requestedSchema: {kind}"),
    }
}

/// The ways a schema can fall outside the subset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// The schema (or a property schema) is not a JSON object.
    #[error("expected a JSON object, found {found}")]
    NotAnObject {
        /// The JSON type found.
        found: &'static str,
    },
    /// The top-level `type` is something other than `object`.
    #[error("top-level type must be \"object\", found {found}")]
    TopLevelNotObject {
        /// What was found.
        found: String,
    },
    /// `properties` is missing or not an object.
    #[error("`properties` must be an object")]
    BadProperties,
    /// A property has no `type` (and no enum keyword to infer it from).
    #[error("missing `type`")]
    MissingType,
    /// A property has a type the subset does not allow.
    #[error("unsupported type {found} (allowed: string, number, integer, boolean, array of enum)")]
    UnsupportedType {
        /// What was found.
        found: String,
    },
    /// A nested object property.
    #[error("nested objects are not allowed in an elicitation form")]
    NestedObject,
    /// An array whose items are not an enum of strings.
    #[error("arrays must have `items` with `enum` or `anyOf` of string choices")]
    ArrayOfNonEnum,
    /// A `$ref`, `allOf` or similar composition.
    #[error("`{keyword}` is not supported in an elicitation form")]
    UnsupportedKeyword {
        /// The keyword.
        keyword: String,
    },
    /// A keyword with a value of the wrong JSON type.
    #[error("`{keyword}` must be {expected}")]
    BadKeyword {
        /// The keyword.
        keyword: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A `default` that does not fit the property.
    #[error("default {value} does not fit: {reason}")]
    BadDefault {
        /// The default as JSON text.
        value: String,
        /// Why.
        reason: String,
    },
    /// An enum with no choices, or with duplicate values.
    #[error("enum choices {reason}")]
    BadChoices {
        /// What is wrong with them.
        reason: &'static str,
    },
    /// `required` names a property that does not exist.
    #[error("listed in `required` but not defined in `properties`")]
    RequiredUndefined,
}

type PResult<T> = Result<T, SchemaError>;

fn err(property: &str, kind: SchemaErrorKind) -> SchemaError {
    SchemaError {
        property: Some(property.to_owned()),
        kind,
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
    /// tolerated and what is refused.
    pub fn parse(value: &Value) -> Result<Parsed, SchemaError> {
        let mut diags = Vec::new();
        let root = value.as_object().ok_or(SchemaError {
            property: None,
            kind: SchemaErrorKind::NotAnObject {
                found: json_type(value),
            },
        })?;
        match root.get("type") {
            None => diags.push(Diagnostic {
                property: None,
                message: "missing top-level `type`, read as \"object\"".into(),
            }),
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => {
                return Err(SchemaError {
                    property: None,
                    kind: SchemaErrorKind::TopLevelNotObject {
                        found: other.to_string(),
                    },
                });
            }
        }
        let dialect = match root.get("$schema") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                diags.push(Diagnostic {
                    property: None,
                    message: "ignored non-string `$schema`".into(),
                });
                None
            }
            None => None,
        };
        for key in root.keys() {
            if !matches!(
                key.as_str(),
                "type" | "properties" | "required" | "$schema" | "title" | "description"
            ) {
                diags.push(Diagnostic {
                    property: None,
                    message: format!("ignored top-level keyword `{key}`"),
                });
            }
        }
        let props = match root.get("properties") {
            None => &Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(SchemaError {
                    property: None,
                    kind: SchemaErrorKind::BadProperties,
                });
            }
        };
        let required: Vec<&str> = match root.get("required") {
            None => Vec::new(),
            Some(Value::Array(a)) => {
                let mut out = Vec::with_capacity(a.len());
                for v in a {
                    match v.as_str() {
                        Some(s) => out.push(s),
                        None => {
                            return Err(SchemaError {
                                property: None,
                                kind: SchemaErrorKind::BadKeyword {
                                    keyword: "required",
                                    expected: "an array of property names",
                                },
                            });
                        }
                    }
                }
                out
            }
            Some(_) => {
                return Err(SchemaError {
                    property: None,
                    kind: SchemaErrorKind::BadKeyword {
                        keyword: "required",
                        expected: "an array of property names",
                    },
                });
            }
        };
        for r in &required {
            if !props.contains_key(*r) {
                return Err(err(r, SchemaErrorKind::RequiredUndefined));
            }
        }
        let mut fields = Vec::with_capacity(props.len());
        for (name, prop) in props {
            let mut field = parse_property(name, prop, &mut diags)?;
            field.required = required.contains(&name.as_str());
            fields.push(field);
        }
        Ok(Parsed {
            schema: FormSchema { fields, dialect },
            diagnostics: diags,
        })
    }
}

fn parse_property(name: &str, prop: &Value, diags: &mut Vec<Diagnostic>) -> PResult<Field> {
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
    let title = opt_str(name, o, "title")?;
    let description = opt_str(name, o, "description")?;
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
                    diags.push(Diagnostic {
                        property: Some(name.to_owned()),
                        message: "read nullable type list as its non-null type".into(),
                    });
                    one
                }
                _ => {
                    return Err(err(
                        name,
                        SchemaErrorKind::UnsupportedType {
                            found: Value::Array(types.clone()).to_string(),
                        },
                    ));
                }
            }
        }
        Some(other) => {
            return Err(err(
                name,
                SchemaErrorKind::UnsupportedType {
                    found: other.to_string(),
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
                    found: format!("\"{other}\""),
                },
            ));
        }
    };
    for key in o.keys() {
        if !ANNOTATIONS.contains(&key.as_str()) && !known.contains(&key.as_str()) {
            diags.push(Diagnostic {
                property: Some(name.to_owned()),
                message: format!("ignored keyword `{key}`"),
            });
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

fn opt_str(name: &str, o: &Map<String, Value>, key: &'static str) -> PResult<Option<String>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(err(
            name,
            SchemaErrorKind::BadKeyword {
                keyword: key,
                expected: "a string",
            },
        )),
    }
}

fn opt_u64(name: &str, o: &Map<String, Value>, key: &'static str) -> PResult<Option<u64>> {
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

fn bad_default(name: &str, v: &Value, reason: impl Into<String>) -> SchemaError {
    err(
        name,
        SchemaErrorKind::BadDefault {
            value: v.to_string(),
            reason: reason.into(),
        },
    )
}

fn parse_text(
    name: &str,
    o: &Map<String, Value>,
    diags: &mut Vec<Diagnostic>,
) -> PResult<FieldKind> {
    let min_length = opt_u64(name, o, "minLength")?;
    let max_length = opt_u64(name, o, "maxLength")?;
    let format = match o.get("format") {
        None | Some(Value::Null) => None,
        Some(Value::String(f)) => match StringFormat::from_wire(f) {
            Some(f) => Some(f),
            None => {
                diags.push(Diagnostic {
                    property: Some(name.to_owned()),
                    message: format!("ignored unknown string format `{f}`"),
                });
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
    let pattern = opt_str(name, o, "pattern")?;
    if pattern.is_some() {
        diags.push(Diagnostic {
            property: Some(name.to_owned()),
            message: "`pattern` is not part of the elicitation subset; shown, not enforced".into(),
        });
    }
    let default = match o.get("default") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
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

/// Reads `[{"const": "v", "title": "T"}, …]`.
fn titled_choices(name: &str, list: &Value, keyword: &'static str) -> PResult<Vec<Choice>> {
    let arr = list.as_array().ok_or_else(|| {
        err(
            name,
            SchemaErrorKind::BadKeyword {
                keyword,
                expected: "an array of {const, title} objects",
            },
        )
    })?;
    arr.iter()
        .map(|item| {
            let value = item
                .get("const")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    err(
                        name,
                        SchemaErrorKind::BadKeyword {
                            keyword,
                            expected: "an array of {const, title} objects with string consts",
                        },
                    )
                })?
                .to_owned();
            let title = item.get("title").and_then(Value::as_str).map(str::to_owned);
            Ok(Choice { value, title })
        })
        .collect()
}

fn string_list(name: &str, v: &Value, keyword: &'static str) -> PResult<Vec<String>> {
    let arr = v.as_array().ok_or_else(|| {
        err(
            name,
            SchemaErrorKind::BadKeyword {
                keyword,
                expected: "an array of strings",
            },
        )
    })?;
    arr.iter()
        .map(|s| {
            s.as_str().map(str::to_owned).ok_or_else(|| {
                err(
                    name,
                    SchemaErrorKind::BadKeyword {
                        keyword,
                        expected: "an array of strings",
                    },
                )
            })
        })
        .collect()
}

fn check_choices(name: &str, options: &[Choice]) -> PResult<()> {
    if options.is_empty() {
        return Err(err(
            name,
            SchemaErrorKind::BadChoices {
                reason: "must not be empty",
            },
        ));
    }
    for (i, c) in options.iter().enumerate() {
        if options.iter().take(i).any(|p| p.value == c.value) {
            return Err(err(
                name,
                SchemaErrorKind::BadChoices {
                    reason: "must be unique",
                },
            ));
        }
    }
    Ok(())
}

fn parse_single_select(name: &str, o: &Map<String, Value>) -> PResult<FieldKind> {
    let (options, style) = if let Some(list) = o.get("oneOf").or_else(|| o.get("anyOf")) {
        (titled_choices(name, list, "oneOf")?, EnumStyle::Titled)
    } else if let Some(values) = o.get("enum") {
        let values = string_list(name, values, "enum")?;
        match o.get("enumNames") {
            Some(names) => {
                let names = string_list(name, names, "enumNames")?;
                if names.len() != values.len() {
                    return Err(err(
                        name,
                        SchemaErrorKind::BadKeyword {
                            keyword: "enumNames",
                            expected: "as long as `enum`",
                        },
                    ));
                }
                (
                    values
                        .into_iter()
                        .zip(names)
                        .map(|(value, title)| Choice {
                            value,
                            title: Some(title),
                        })
                        .collect(),
                    EnumStyle::Legacy,
                )
            }
            None => (
                values
                    .into_iter()
                    .map(|value| Choice { value, title: None })
                    .collect(),
                EnumStyle::Untitled,
            ),
        }
    } else {
        return Err(err(name, SchemaErrorKind::MissingType));
    };
    check_choices(name, &options)?;
    let default = match o.get("default") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if options.iter().any(|c| &c.value == s) => Some(s.clone()),
        Some(v) => return Err(bad_default(name, v, "expected one of the enum values")),
    };
    Ok(FieldKind::SingleSelect {
        options,
        style,
        default,
    })
}

fn parse_multi_select(name: &str, o: &Map<String, Value>) -> PResult<FieldKind> {
    let items = o
        .get("items")
        .and_then(Value::as_object)
        .ok_or_else(|| err(name, SchemaErrorKind::ArrayOfNonEnum))?;
    let (options, style) = if let Some(list) = items.get("anyOf").or_else(|| items.get("oneOf")) {
        (
            titled_choices(name, list, "items.anyOf")?,
            MultiStyle::Titled,
        )
    } else if let Some(values) = items.get("enum") {
        if let Some(t) = items.get("type")
            && t != "string"
        {
            return Err(err(name, SchemaErrorKind::ArrayOfNonEnum));
        }
        (
            string_list(name, values, "items.enum")?
                .into_iter()
                .map(|value| Choice { value, title: None })
                .collect(),
            MultiStyle::Untitled,
        )
    } else {
        return Err(err(name, SchemaErrorKind::ArrayOfNonEnum));
    };
    check_choices(name, &options)?;
    let min_items = opt_u64(name, o, "minItems")?;
    let max_items = opt_u64(name, o, "maxItems")?;
    let default = match o.get("default") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let list = v
                .as_array()
                .ok_or_else(|| bad_default(name, v, "expected an array of enum values"))?;
            let mut out = Vec::with_capacity(list.len());
            for item in list {
                match item.as_str() {
                    Some(s) if options.iter().any(|c| c.value == s) => out.push(s.to_owned()),
                    _ => return Err(bad_default(name, v, "expected an array of enum values")),
                }
            }
            Some(out)
        }
    };
    Ok(FieldKind::MultiSelect {
        options,
        style,
        min_items,
        max_items,
        default,
    })
}
