//! The form model: one [`FormSchema`] of ordered [`Field`]s, each with a [`FieldKind`].
//!
//! This is the shape every surface renders and every validator checks. It is built by
//! [`FormSchema::parse`](crate::FormSchema::parse) and turned back into wire JSON by
//! [`FormSchema::to_json`]; it holds no wire detail that a surface would need to know.

use serde_json::{Map, Value, json};

/// The content of an accepted elicitation: property name → value (string, number, boolean or
/// array of strings), in the order the person's surface produced it.
pub type Content = Map<String, Value>;

/// A parsed `requestedSchema`: the ordered fields of a flat form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormSchema {
    /// The fields, in the order the server wrote them.
    pub fields: Vec<Field>,
    /// The `$schema` dialect the server named, kept so the schema can be re-emitted unchanged.
    pub dialect: Option<String>,
}

/// The result of a lenient parse: the schema plus what was tolerated.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The form model.
    pub schema: FormSchema,
    /// Keywords that were ignored or relaxed, for logs and developer surfaces: at most
    /// [`MAX_DIAGNOSTICS`](crate::limits::MAX_DIAGNOSTICS), then one that counts the rest.
    pub diagnostics: Vec<Diagnostic>,
}

/// Something tolerated while parsing: not an error, but worth telling a developer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The property concerned, or `None` for the top level.
    pub property: Option<String>,
    /// What was tolerated, in lowercase prose.
    pub message: String,
}

/// One property of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name, as it appears in the answer's content.
    pub name: String,
    /// A human label, when the server gave one.
    pub title: Option<String>,
    /// A longer explanation, when the server gave one.
    pub description: Option<String>,
    /// Whether the property is listed in `required`.
    pub required: bool,
    /// The widget-level type and its constraints.
    pub kind: FieldKind,
}

impl Field {
    /// Whether the schema declares a default (without building it).
    fn has_default(&self) -> bool {
        match &self.kind {
            FieldKind::Text { default, .. } | FieldKind::SingleSelect { default, .. } => {
                default.is_some()
            }
            FieldKind::Number { default, .. } => default.is_some(),
            FieldKind::Boolean { default } => default.is_some(),
            FieldKind::MultiSelect { default, .. } => default.is_some(),
        }
    }

    /// The default value as JSON, when the schema declares one.
    pub fn default_value(&self) -> Option<Value> {
        match &self.kind {
            FieldKind::Text { default, .. } => default.clone().map(Value::String),
            FieldKind::Number { default, .. } => default.and_then(number_value),
            FieldKind::Boolean { default } => default.map(Value::Bool),
            FieldKind::SingleSelect { default, .. } => default.clone().map(Value::String),
            FieldKind::MultiSelect { default, .. } => default
                .clone()
                .map(|v| Value::Array(v.into_iter().map(Value::String).collect())),
        }
    }
}

/// The string formats the subset allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StringFormat {
    /// `email`
    Email,
    /// `uri`
    Uri,
    /// `date` (RFC 3339 full-date)
    Date,
    /// `date-time` (RFC 3339 date-time)
    DateTime,
}

impl StringFormat {
    /// The keyword as written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            StringFormat::Email => "email",
            StringFormat::Uri => "uri",
            StringFormat::Date => "date",
            StringFormat::DateTime => "date-time",
        }
    }

    /// What a value of this format must be, as the end of a sentence ("Email must be …"): the
    /// kind of value and an example. Shared by every message about a format, in this crate and
    /// wherever tool arguments are checked.
    ///
    /// ```
    /// use interlude_schema::StringFormat;
    /// assert_eq!(StringFormat::Email.expectation(), "an e-mail address, such as ada@example.com");
    /// ```
    pub fn expectation(self) -> &'static str {
        match self {
            StringFormat::Email => "an e-mail address, such as ada@example.com",
            StringFormat::Uri => "an absolute URI, such as https://example.com",
            StringFormat::Date => "a date in the form YYYY-MM-DD, such as 2026-07-28",
            StringFormat::DateTime => "a date and time, such as 2026-07-28T09:30:00Z",
        }
    }

    /// The format a wire keyword names (`"date-time"` → [`StringFormat::DateTime`]); `None` for
    /// a format outside the subset.
    pub fn from_wire(s: &str) -> Option<Self> {
        Some(match s {
            "email" => StringFormat::Email,
            "uri" => StringFormat::Uri,
            "date" => StringFormat::Date,
            "date-time" => StringFormat::DateTime,
            _ => return None,
        })
    }
}

/// How a single-select enum was written, so it can be re-emitted in the same shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnumStyle {
    /// `{"type":"string","enum":[…]}`
    Untitled,
    /// `{"type":"string","oneOf":[{"const","title"}…]}`
    Titled,
    /// `{"type":"string","enum":[…],"enumNames":[…]}` (deprecated, still accepted)
    Legacy,
}

/// How a multi-select enum was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultiStyle {
    /// `items: {"type":"string","enum":[…]}`
    Untitled,
    /// `items: {"anyOf":[{"const","title"}…]}` (`oneOf` accepted as an alias on input)
    Titled,
}

/// One choice of an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The value sent back to the server.
    pub value: String,
    /// The label shown to the person, when the schema gives one.
    pub title: Option<String>,
}

impl Choice {
    /// The label a surface shows: the title, or else the value.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.value)
    }
}

/// The kind of a field and its constraints.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// A string, optionally with length bounds and a format.
    Text {
        /// `minLength`, in Unicode scalar values.
        min_length: Option<u64>,
        /// `maxLength`, in Unicode scalar values.
        max_length: Option<u64>,
        /// `format`.
        format: Option<StringFormat>,
        /// `pattern`: not part of any revision's schema, kept only so it can be shown; never
        /// enforced (the spec gives it no semantics).
        pattern: Option<String>,
        /// `default`.
        default: Option<String>,
    },
    /// A number (`integer: false`) or an integer.
    Number {
        /// `type: "integer"`.
        integer: bool,
        /// `minimum` (inclusive).
        minimum: Option<f64>,
        /// `maximum` (inclusive).
        maximum: Option<f64>,
        /// `default`.
        default: Option<f64>,
    },
    /// A boolean.
    Boolean {
        /// `default`.
        default: Option<bool>,
    },
    /// One value out of a list.
    SingleSelect {
        /// The choices, in order.
        options: Vec<Choice>,
        /// The wire shape.
        style: EnumStyle,
        /// `default`, one of the values.
        default: Option<String>,
    },
    /// Several values out of a list.
    MultiSelect {
        /// The choices, in order.
        options: Vec<Choice>,
        /// The wire shape.
        style: MultiStyle,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
        /// `default`, each one of the values.
        default: Option<Vec<String>>,
    },
}

/// A number as JSON. Whole values are written as JSON integers whatever the field's type, so a
/// schema written by a JavaScript server (`"minimum": 0` on a `number`) is re-emitted unchanged
/// rather than as `0.0`.
pub(crate) fn number_value(n: f64) -> Option<Value> {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        // Exact for |n| < 2^53; the cast cannot truncate.
        #[allow(clippy::cast_possible_truncation)]
        return Some(Value::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(Value::Number)
}

impl FormSchema {
    /// Builds an empty schema (no fields): the "confirm only" form.
    pub fn empty() -> Self {
        FormSchema {
            fields: Vec::new(),
            dialect: None,
        }
    }

    /// Looks a field up by property name.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The values a form starts with: every declared default, in field order.
    pub fn prefill(&self) -> Content {
        self.fields
            .iter()
            .filter_map(|f| f.default_value().map(|v| (f.name.clone(), v)))
            .collect()
    }

    /// Fills every property the answer omits with its declared default (SEP-1034), keeping the
    /// schema's field order for the added properties.
    pub fn apply_defaults(&self, content: &mut Content) {
        for field in &self.fields {
            // Whether there is a default first: most fields have none, and it costs no lookup.
            if field.has_default()
                && !content.contains_key(&field.name)
                && let Some(v) = field.default_value()
            {
                content.insert(field.name.clone(), v);
            }
        }
    }

    /// Emits the schema as wire JSON (`requestedSchema`), in field order. Titled multi-selects
    /// are written with `items.anyOf`, the shape the spec settled on.
    pub fn to_json(&self) -> Value {
        let mut root = Map::new();
        if let Some(d) = &self.dialect {
            root.insert("$schema".into(), Value::String(d.clone()));
        }
        root.insert("type".into(), json!("object"));
        let mut props = Map::new();
        for f in &self.fields {
            props.insert(f.name.clone(), field_json(f));
        }
        root.insert("properties".into(), Value::Object(props));
        let required: Vec<Value> = self
            .fields
            .iter()
            .filter(|f| f.required)
            .map(|f| Value::String(f.name.clone()))
            .collect();
        if !required.is_empty() {
            root.insert("required".into(), Value::Array(required));
        }
        Value::Object(root)
    }
}

fn field_json(f: &Field) -> Value {
    let mut o = Map::new();
    let put_common = |o: &mut Map<String, Value>| {
        if let Some(t) = &f.title {
            o.insert("title".into(), json!(t));
        }
        if let Some(d) = &f.description {
            o.insert("description".into(), json!(d));
        }
    };
    match &f.kind {
        FieldKind::Text {
            min_length,
            max_length,
            format,
            pattern,
            default,
        } => {
            o.insert("type".into(), json!("string"));
            put_common(&mut o);
            if let Some(v) = min_length {
                o.insert("minLength".into(), json!(v));
            }
            if let Some(v) = max_length {
                o.insert("maxLength".into(), json!(v));
            }
            if let Some(v) = format {
                o.insert("format".into(), json!(v.as_str()));
            }
            if let Some(v) = pattern {
                o.insert("pattern".into(), json!(v));
            }
            if let Some(v) = default {
                o.insert("default".into(), json!(v));
            }
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            default,
        } => {
            o.insert(
                "type".into(),
                json!(if *integer { "integer" } else { "number" }),
            );
            put_common(&mut o);
            if let Some(v) = minimum.and_then(number_value) {
                o.insert("minimum".into(), v);
            }
            if let Some(v) = maximum.and_then(number_value) {
                o.insert("maximum".into(), v);
            }
            if let Some(v) = default.and_then(number_value) {
                o.insert("default".into(), v);
            }
        }
        FieldKind::Boolean { default } => {
            o.insert("type".into(), json!("boolean"));
            put_common(&mut o);
            if let Some(v) = default {
                o.insert("default".into(), json!(v));
            }
        }
        FieldKind::SingleSelect {
            options,
            style,
            default,
        } => {
            o.insert("type".into(), json!("string"));
            put_common(&mut o);
            match style {
                EnumStyle::Untitled => {
                    o.insert("enum".into(), json!(values(options)));
                }
                EnumStyle::Legacy => {
                    o.insert("enum".into(), json!(values(options)));
                    let names: Vec<&str> = options.iter().map(Choice::label).collect();
                    o.insert("enumNames".into(), json!(names));
                }
                EnumStyle::Titled => {
                    o.insert("oneOf".into(), titled(options));
                }
            }
            if let Some(v) = default {
                o.insert("default".into(), json!(v));
            }
        }
        FieldKind::MultiSelect {
            options,
            style,
            min_items,
            max_items,
            default,
        } => {
            o.insert("type".into(), json!("array"));
            put_common(&mut o);
            if let Some(v) = min_items {
                o.insert("minItems".into(), json!(v));
            }
            if let Some(v) = max_items {
                o.insert("maxItems".into(), json!(v));
            }
            let items = match style {
                MultiStyle::Untitled => json!({"type": "string", "enum": values(options)}),
                MultiStyle::Titled => json!({"anyOf": titled(options)}),
            };
            o.insert("items".into(), items);
            if let Some(v) = default {
                o.insert("default".into(), json!(v));
            }
        }
    }
    Value::Object(o)
}

fn values(options: &[Choice]) -> Vec<&str> {
    options.iter().map(|c| c.value.as_str()).collect()
}

fn titled(options: &[Choice]) -> Value {
    Value::Array(
        options
            .iter()
            .map(|c| json!({"const": c.value, "title": c.label()}))
            .collect(),
    )
}
