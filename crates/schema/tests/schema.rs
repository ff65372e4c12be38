//! Integration tests for `interlude-schema`: parsing every variant of the elicitation subset,
//! refusing what it cannot represent, validating answers, defaults, re-emission and derive.

// `3.14` is server-everything's literal default, not an approximation of pi.
#![allow(clippy::approx_constant)]
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use expect_test::expect;
use interlude_schema::{
    Choice, Content, Elicit, EnumStyle, Field, FieldError, FieldKind, FormSchema, MultiStyle,
    Parsed, SchemaError, SchemaErrorKind, StringFormat, schema_for,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn parse(v: &Value) -> Parsed {
    FormSchema::parse(v).unwrap_or_else(|e| panic!("schema should parse, got: {e}\n{v:#}"))
}

fn schema(v: &Value) -> FormSchema {
    parse(v).schema
}

fn content(v: Value) -> Content {
    match v {
        Value::Object(m) => m,
        other => panic!("content must be an object, got {other}"),
    }
}

fn field<'a>(s: &'a FormSchema, name: &str) -> &'a Field {
    s.field(name)
        .unwrap_or_else(|| panic!("no field `{name}` in {s:#?}"))
}

/// A one-property schema `{"type":"object","properties":{name: prop}}`.
/// A predicate on the kind of a [`SchemaError`].
type Check = fn(&SchemaErrorKind) -> bool;

fn single(name: &str, prop: Value) -> Value {
    json!({"type": "object", "properties": {name: prop}})
}

fn choice(value: &str, title: Option<&str>) -> Choice {
    Choice {
        value: value.into(),
        title: title.map(Into::into),
    }
}

fn untitled(values: &[&str]) -> Vec<Choice> {
    values.iter().map(|v| choice(v, None)).collect()
}

fn titled(pairs: &[(&str, &str)]) -> Vec<Choice> {
    pairs.iter().map(|(v, t)| choice(v, Some(t))).collect()
}

fn names(s: &FormSchema) -> Vec<&str> {
    s.fields.iter().map(|f| f.name.as_str()).collect()
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("expected an object, got {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn text(
    min_length: Option<u64>,
    max_length: Option<u64>,
    format: Option<StringFormat>,
    default: Option<&str>,
) -> FieldKind {
    FieldKind::Text {
        min_length,
        max_length,
        format,
        pattern: None,
        default: default.map(Into::into),
    }
}

fn number(
    integer: bool,
    minimum: Option<f64>,
    maximum: Option<f64>,
    default: Option<f64>,
) -> FieldKind {
    FieldKind::Number {
        integer,
        minimum,
        maximum,
        default,
    }
}

/// The exact `requestedSchema` that `@modelcontextprotocol/server-everything` sends from its
/// `trigger-elicitation-request` tool (`src/everything/tools/trigger-elicitation-request.ts`).
fn server_everything() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {
                "title": "String",
                "type": "string",
                "description": "Your full, legal name"
            },
            "check": {
                "title": "Boolean",
                "type": "boolean",
                "description": "Agree to the terms and conditions"
            },
            "firstLine": {
                "title": "String with default",
                "type": "string",
                "description": "Favorite first line of a story",
                "default": "It was a dark and stormy night."
            },
            "email": {
                "title": "String with email format",
                "type": "string",
                "format": "email",
                "description": "Your email address (will be verified, and never shared with anyone else)"
            },
            "homepage": {
                "type": "string",
                "format": "uri",
                "title": "String with uri format",
                "description": "Portfolio / personal website"
            },
            "birthdate": {
                "title": "String with date format",
                "type": "string",
                "format": "date",
                "description": "Your date of birth"
            },
            "integer": {
                "title": "Integer",
                "type": "integer",
                "description": "Your favorite integer (do not give us your phone number, pin, or other sensitive info)",
                "minimum": 1,
                "maximum": 100,
                "default": 42
            },
            "number": {
                "title": "Number in range 1-1000",
                "type": "number",
                "description": "Favorite number (there are no wrong answers)",
                "minimum": 0,
                "maximum": 1000,
                "default": 3.14
            },
            "untitledSingleSelectEnum": {
                "type": "string",
                "title": "Untitled Single Select Enum",
                "description": "Choose your favorite friend",
                "enum": ["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"],
                "default": "Monica"
            },
            "untitledMultipleSelectEnum": {
                "type": "array",
                "title": "Untitled Multiple Select Enum",
                "description": "Choose your favorite instruments",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "type": "string",
                    "enum": ["Guitar", "Piano", "Violin", "Drums", "Bass"]
                },
                "default": ["Guitar"]
            },
            "titledSingleSelectEnum": {
                "type": "string",
                "title": "Titled Single Select Enum",
                "description": "Choose your favorite hero",
                "oneOf": [
                    {"const": "hero-1", "title": "Superman"},
                    {"const": "hero-2", "title": "Green Lantern"},
                    {"const": "hero-3", "title": "Wonder Woman"}
                ],
                "default": "hero-1"
            },
            "titledMultipleSelectEnum": {
                "type": "array",
                "title": "Titled Multiple Select Enum",
                "description": "Choose your favorite types of fish",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        {"const": "fish-1", "title": "Tuna"},
                        {"const": "fish-2", "title": "Salmon"},
                        {"const": "fish-3", "title": "Trout"}
                    ]
                },
                "default": ["fish-1"]
            },
            "legacyTitledEnum": {
                "type": "string",
                "title": "Legacy Titled Single Select Enum",
                "description": "Choose your favorite type of pet",
                "enum": ["pet-1", "pet-2", "pet-3", "pet-4", "pet-5"],
                "enumNames": ["Cats", "Dogs", "Birds", "Fish", "Reptiles"],
                "default": "pet-1"
            }
        },
        "required": ["name"]
    })
}

const SERVER_EVERYTHING_FIELDS: [&str; 13] = [
    "name",
    "check",
    "firstLine",
    "email",
    "homepage",
    "birthdate",
    "integer",
    "number",
    "untitledSingleSelectEnum",
    "untitledMultipleSelectEnum",
    "titledSingleSelectEnum",
    "titledMultipleSelectEnum",
    "legacyTitledEnum",
];

/// The schema the conformance scenarios `elicitation-sep1034-defaults` (server) and
/// `elicitation-sep1034-client-defaults` (client) use.
fn sep1034() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        },
        "required": []
    })
}

/// The five enum variants of the conformance scenario `elicitation-sep1330-enums`.
fn sep1330() -> Value {
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {
                "type": "string",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]
                }
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// 1. Parsing every variant
// ---------------------------------------------------------------------------------------------

#[test]
fn parses_every_variant() {
    let cases: Vec<(&str, Value, FieldKind)> = vec![
        (
            "string with lengths",
            json!({"type": "string", "minLength": 2, "maxLength": 5}),
            text(Some(2), Some(5), None, None),
        ),
        (
            "string email",
            json!({"type": "string", "format": "email"}),
            text(None, None, Some(StringFormat::Email), None),
        ),
        (
            "string uri",
            json!({"type": "string", "format": "uri"}),
            text(None, None, Some(StringFormat::Uri), None),
        ),
        (
            "string date",
            json!({"type": "string", "format": "date"}),
            text(None, None, Some(StringFormat::Date), None),
        ),
        (
            "string date-time",
            json!({"type": "string", "format": "date-time"}),
            text(None, None, Some(StringFormat::DateTime), None),
        ),
        (
            "number with bounds",
            json!({"type": "number", "minimum": 0.5, "maximum": 10}),
            number(false, Some(0.5), Some(10.0), None),
        ),
        (
            "integer with bounds",
            json!({"type": "integer", "minimum": -3, "maximum": 100}),
            number(true, Some(-3.0), Some(100.0), None),
        ),
        (
            "boolean",
            json!({"type": "boolean"}),
            FieldKind::Boolean { default: None },
        ),
        (
            "untitled enum",
            json!({"type": "string", "enum": ["red", "green"]}),
            FieldKind::SingleSelect {
                options: untitled(&["red", "green"]),
                style: EnumStyle::Untitled,
                default: None,
            },
        ),
        (
            "titled oneOf",
            json!({"type": "string", "oneOf": [
                {"const": "r", "title": "Red"},
                {"const": "g", "title": "Green"}
            ]}),
            FieldKind::SingleSelect {
                options: titled(&[("r", "Red"), ("g", "Green")]),
                style: EnumStyle::Titled,
                default: None,
            },
        ),
        (
            "legacy enum + enumNames",
            json!({"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]}),
            FieldKind::SingleSelect {
                options: titled(&[("r", "Red"), ("g", "Green")]),
                style: EnumStyle::Legacy,
                default: None,
            },
        ),
        (
            "multi-select items.enum",
            json!({"type": "array", "minItems": 1, "maxItems": 2,
                   "items": {"type": "string", "enum": ["a", "b", "c"]}}),
            FieldKind::MultiSelect {
                options: untitled(&["a", "b", "c"]),
                style: MultiStyle::Untitled,
                min_items: Some(1),
                max_items: Some(2),
                default: None,
            },
        ),
        (
            "multi-select items.anyOf",
            json!({"type": "array", "items": {"anyOf": [
                {"const": "a", "title": "Ay"},
                {"const": "b", "title": "Bee"}
            ]}}),
            FieldKind::MultiSelect {
                options: titled(&[("a", "Ay"), ("b", "Bee")]),
                style: MultiStyle::Titled,
                min_items: None,
                max_items: None,
                default: None,
            },
        ),
        (
            "multi-select items.oneOf (alias)",
            json!({"type": "array", "items": {"oneOf": [
                {"const": "a", "title": "Ay"},
                {"const": "b", "title": "Bee"}
            ]}}),
            FieldKind::MultiSelect {
                options: titled(&[("a", "Ay"), ("b", "Bee")]),
                style: MultiStyle::Titled,
                min_items: None,
                max_items: None,
                default: None,
            },
        ),
    ];
    for (case, prop, expected) in cases {
        let parsed = parse(&single("f", prop));
        assert_eq!(parsed.schema.fields.len(), 1, "{case}");
        let f = &parsed.schema.fields[0];
        assert_eq!(f.name, "f", "{case}");
        assert_eq!(f.kind, expected, "{case}");
        assert!(!f.required, "{case}: not listed in `required`");
        assert_eq!(parsed.diagnostics, vec![], "{case}: nothing tolerated");
    }
}

#[test]
fn titles_descriptions_and_required_are_read() {
    let s = schema(&json!({
        "type": "object",
        "properties": {
            "a": {"type": "string", "title": "The A", "description": "Longer text"},
            "b": {"type": "boolean"}
        },
        "required": ["a"]
    }));
    let a = field(&s, "a");
    assert_eq!(a.title.as_deref(), Some("The A"));
    assert_eq!(a.description.as_deref(), Some("Longer text"));
    assert_eq!(a.label(), "The A");
    assert!(a.required);
    let b = field(&s, "b");
    assert_eq!(b.title, None);
    assert_eq!(
        b.label(),
        "B",
        "an untitled property is labelled by its name, made readable"
    );
    assert!(!b.required);
}

#[test]
fn defaults_on_every_type() {
    let cases: Vec<(Value, Value)> = vec![
        (json!({"type": "string", "default": "hi"}), json!("hi")),
        (
            json!({"type": "string", "format": "email", "default": "a@b.co"}),
            json!("a@b.co"),
        ),
        (json!({"type": "number", "default": 2.5}), json!(2.5)),
        (json!({"type": "integer", "default": 7}), json!(7)),
        (json!({"type": "boolean", "default": false}), json!(false)),
        (
            json!({"type": "string", "enum": ["x", "y"], "default": "y"}),
            json!("y"),
        ),
        (
            json!({"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}], "default": "x"}),
            json!("x"),
        ),
        (
            json!({"type": "string", "enum": ["x", "y"], "enumNames": ["X", "Y"], "default": "y"}),
            json!("y"),
        ),
        (
            json!({"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "default": ["y", "x"]}),
            json!(["y", "x"]),
        ),
        (
            json!({"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}, "default": ["x"]}),
            json!(["x"]),
        ),
        (
            json!({"type": "array", "items": {"oneOf": [{"const": "x", "title": "X"}]}, "default": []}),
            json!([]),
        ),
    ];
    for (prop, expected) in cases {
        let wire = single("f", prop.clone());
        let s = schema(&wire);
        assert_eq!(
            s.fields[0].default_value(),
            Some(expected.clone()),
            "{prop}"
        );
        // ... and it survives re-emission.
        assert_eq!(
            s.to_json()["properties"]["f"]["default"],
            expected,
            "{prop}"
        );
    }
}

#[test]
fn dialect_is_kept() {
    let dialect = "https://json-schema.org/draft/2020-12/schema";
    let wire = json!({
        "$schema": dialect,
        "type": "object",
        "properties": {"a": {"type": "string"}}
    });
    let parsed = parse(&wire);
    assert_eq!(parsed.schema.dialect.as_deref(), Some(dialect));
    assert_eq!(parsed.diagnostics, vec![]);
    assert_eq!(parsed.schema.to_json(), wire);
    assert_eq!(keys(&parsed.schema.to_json())[0], "$schema");
}

#[test]
fn pattern_is_tolerated_with_a_diagnostic() {
    let parsed = parse(&single(
        "code",
        json!({"type": "string", "pattern": "^[a-z]+$", "maxLength": 8}),
    ));
    assert_eq!(
        parsed.schema.fields[0].kind,
        FieldKind::Text {
            min_length: None,
            max_length: Some(8),
            format: None,
            pattern: Some("^[a-z]+$".into()),
            default: None,
        }
    );
    assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
    let d = &parsed.diagnostics[0];
    assert_eq!(d.property.as_deref(), Some("code"));
    assert!(d.message.contains("pattern"), "{}", d.message);
    // Shown, not enforced: a value that does not match the pattern is accepted.
    assert_eq!(
        parsed.schema.validate(&content(json!({"code": "NOT_LOW"}))),
        Ok(())
    );
    // Kept on re-emission.
    assert_eq!(
        parsed.schema.to_json()["properties"]["code"]["pattern"],
        json!("^[a-z]+$")
    );
}

#[test]
fn unknown_keywords_are_tolerated_with_diagnostics() {
    let parsed = parse(&json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "a": {"type": "string", "x-widget": "textarea"},
            "b": {"type": "integer", "multipleOf": 5},
            "c": {"type": "string", "format": "hostname"}
        }
    }));
    assert_eq!(names(&parsed.schema), ["a", "b", "c"]);
    let diags: Vec<(Option<&str>, &str)> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.property.as_deref(), d.message.as_str()))
        .collect();
    assert_eq!(diags.len(), 4, "{diags:#?}");
    let has =
        |prop: Option<&str>, word: &str| diags.iter().any(|(p, m)| *p == prop && m.contains(word));
    assert!(has(None, "additionalProperties"), "{diags:#?}");
    assert!(has(Some("a"), "x-widget"), "{diags:#?}");
    assert!(has(Some("b"), "multipleOf"), "{diags:#?}");
    assert!(has(Some("c"), "hostname"), "{diags:#?}");
    // An unknown format is dropped, not enforced.
    assert_eq!(
        field(&parsed.schema, "c").kind,
        text(None, None, None, None)
    );
}

#[test]
fn property_order_is_kept() {
    let wire = json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "string"},
            "alpha": {"type": "integer"},
            "mid": {"type": "boolean"},
            "beta": {"type": "string", "enum": ["x"]}
        },
        "required": ["mid", "zeta"]
    });
    let s = schema(&wire);
    assert_eq!(names(&s), ["zeta", "alpha", "mid", "beta"]);
    let out = s.to_json();
    assert_eq!(keys(&out["properties"]), ["zeta", "alpha", "mid", "beta"]);
    // `required` is re-emitted in field order.
    assert_eq!(out["required"], json!(["zeta", "mid"]));
    // Prefill and apply_defaults follow field order too.
    let s = schema(&json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "string", "default": "z"},
            "alpha": {"type": "integer", "default": 1},
            "mid": {"type": "boolean", "default": true}
        }
    }));
    assert_eq!(
        s.prefill().keys().map(String::as_str).collect::<Vec<_>>(),
        ["zeta", "alpha", "mid"]
    );
}

#[test]
fn server_everything_schema_parses_and_round_trips() {
    let wire = server_everything();
    let parsed = parse(&wire);
    assert_eq!(
        parsed.diagnostics,
        vec![],
        "the real schema needs no leniency"
    );
    let s = &parsed.schema;
    assert_eq!(names(s), SERVER_EVERYTHING_FIELDS);
    assert_eq!(
        s.fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>(),
        ["name"]
    );

    assert_eq!(field(s, "name").kind, text(None, None, None, None));
    assert_eq!(field(s, "name").label(), "String");
    assert_eq!(field(s, "check").kind, FieldKind::Boolean { default: None });
    assert_eq!(
        field(s, "firstLine").kind,
        text(None, None, None, Some("It was a dark and stormy night."))
    );
    assert_eq!(
        field(s, "email").kind,
        text(None, None, Some(StringFormat::Email), None)
    );
    assert_eq!(
        field(s, "homepage").kind,
        text(None, None, Some(StringFormat::Uri), None)
    );
    assert_eq!(
        field(s, "birthdate").kind,
        text(None, None, Some(StringFormat::Date), None)
    );
    assert_eq!(
        field(s, "integer").kind,
        number(true, Some(1.0), Some(100.0), Some(42.0))
    );
    assert_eq!(
        field(s, "number").kind,
        number(false, Some(0.0), Some(1000.0), Some(3.14))
    );
    assert_eq!(
        field(s, "untitledSingleSelectEnum").kind,
        FieldKind::SingleSelect {
            options: untitled(&["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"]),
            style: EnumStyle::Untitled,
            default: Some("Monica".into()),
        }
    );
    assert_eq!(
        field(s, "untitledMultipleSelectEnum").kind,
        FieldKind::MultiSelect {
            options: untitled(&["Guitar", "Piano", "Violin", "Drums", "Bass"]),
            style: MultiStyle::Untitled,
            min_items: Some(1),
            max_items: Some(3),
            default: Some(vec!["Guitar".into()]),
        }
    );
    assert_eq!(
        field(s, "titledSingleSelectEnum").kind,
        FieldKind::SingleSelect {
            options: titled(&[
                ("hero-1", "Superman"),
                ("hero-2", "Green Lantern"),
                ("hero-3", "Wonder Woman")
            ]),
            style: EnumStyle::Titled,
            default: Some("hero-1".into()),
        }
    );
    assert_eq!(
        field(s, "titledMultipleSelectEnum").kind,
        FieldKind::MultiSelect {
            options: titled(&[
                ("fish-1", "Tuna"),
                ("fish-2", "Salmon"),
                ("fish-3", "Trout")
            ]),
            style: MultiStyle::Titled,
            min_items: Some(1),
            max_items: Some(3),
            default: Some(vec!["fish-1".into()]),
        }
    );
    assert_eq!(
        field(s, "legacyTitledEnum").kind,
        FieldKind::SingleSelect {
            options: titled(&[
                ("pet-1", "Cats"),
                ("pet-2", "Dogs"),
                ("pet-3", "Birds"),
                ("pet-4", "Fish"),
                ("pet-5", "Reptiles")
            ]),
            style: EnumStyle::Legacy,
            default: Some("pet-1".into()),
        }
    );

    // Re-emission is the same JSON (object equality ignores key order; property order is
    // checked separately).
    let out = s.to_json();
    assert_eq!(out, wire, "re-emitted:\n{out:#}");
    assert_eq!(keys(&out["properties"]), SERVER_EVERYTHING_FIELDS);
    let props = &out["properties"];
    assert!(props["titledSingleSelectEnum"]["oneOf"].is_array());
    assert!(props["titledSingleSelectEnum"].get("enum").is_none());
    assert!(props["titledMultipleSelectEnum"]["items"]["anyOf"].is_array());
    assert!(
        props["titledMultipleSelectEnum"]["items"]
            .get("enum")
            .is_none()
    );
    assert_eq!(
        props["legacyTitledEnum"]["enumNames"],
        json!(["Cats", "Dogs", "Birds", "Fish", "Reptiles"])
    );
    for name in SERVER_EVERYTHING_FIELDS {
        assert_eq!(
            props[name].get("default"),
            wire["properties"][name].get("default"),
            "{name}"
        );
    }
    // Whole numbers stay whole on the wire.
    assert_eq!(props["integer"]["default"].to_string(), "42");
    assert_eq!(props["number"]["minimum"].to_string(), "0");
    assert_eq!(props["number"]["maximum"].to_string(), "1000");
    // And re-parsing the output gives the same model.
    assert_eq!(&schema(&out), s);
}

#[test]
fn sep1034_schema_keeps_every_default() {
    let wire = sep1034();
    let parsed = parse(&wire);
    assert_eq!(parsed.diagnostics, vec![]);
    let s = &parsed.schema;
    assert_eq!(names(s), ["name", "age", "score", "status", "verified"]);
    assert!(s.fields.iter().all(|f| !f.required));
    assert_eq!(
        field(s, "name").kind,
        text(None, None, None, Some("John Doe"))
    );
    assert_eq!(field(s, "age").kind, number(true, None, None, Some(30.0)));
    assert_eq!(
        field(s, "score").kind,
        number(false, None, None, Some(95.5))
    );
    assert_eq!(
        field(s, "verified").kind,
        FieldKind::Boolean {
            default: Some(true)
        }
    );

    let out = s.to_json();
    // An empty `required` may be dropped; every property is re-emitted exactly.
    assert_eq!(
        out["properties"], wire["properties"],
        "re-emitted:\n{out:#}"
    );
    assert!(out.get("required").is_none_or(|r| r == &json!([])));

    // The conformance checks, on the re-emitted schema.
    let p = &out["properties"];
    assert_eq!(
        (&p["name"]["type"], &p["name"]["default"]),
        (&json!("string"), &json!("John Doe"))
    );
    assert_eq!(p["age"]["type"], "integer");
    assert_eq!(p["age"]["default"].as_i64(), Some(30));
    assert_eq!(p["age"]["default"].to_string(), "30");
    assert_eq!(p["score"]["type"], "number");
    assert_eq!(p["score"]["default"], json!(95.5));
    assert_eq!(p["status"]["type"], "string");
    let values = p["status"]["enum"].as_array().expect("status.enum");
    assert_eq!(p["status"]["default"], "active");
    assert!(values.contains(&p["status"]["default"]));
    assert_eq!(p["verified"]["type"], "boolean");
    assert_eq!(p["verified"]["default"], json!(true));
}

#[test]
fn sep1330_schema_keeps_all_five_enum_shapes() {
    let wire = sep1330();
    let parsed = parse(&wire);
    assert_eq!(parsed.diagnostics, vec![]);
    let s = &parsed.schema;
    assert_eq!(
        names(s),
        [
            "untitledSingle",
            "titledSingle",
            "legacyEnum",
            "untitledMulti",
            "titledMulti"
        ]
    );
    let style = |name: &str| match &field(s, name).kind {
        FieldKind::SingleSelect { style, .. } => format!("single {style:?}"),
        FieldKind::MultiSelect { style, .. } => format!("multi {style:?}"),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(style("untitledSingle"), "single Untitled");
    assert_eq!(style("titledSingle"), "single Titled");
    assert_eq!(style("legacyEnum"), "single Legacy");
    assert_eq!(style("untitledMulti"), "multi Untitled");
    assert_eq!(style("titledMulti"), "multi Titled");

    let out = s.to_json();
    assert_eq!(out, wire, "re-emitted:\n{out:#}");

    // The five conformance checks, on the re-emitted schema.
    let p = &out["properties"];
    let titled_ok = |list: &Value| {
        list.as_array().is_some_and(|a| {
            !a.is_empty()
                && a.iter()
                    .all(|c| c["const"].is_string() && c["title"].is_string())
        })
    };
    let us = &p["untitledSingle"];
    assert!(us["type"] == "string" && us["enum"].is_array());
    assert!(us.get("oneOf").is_none() && us.get("enumNames").is_none());
    let ts = &p["titledSingle"];
    assert!(ts["type"] == "string" && titled_ok(&ts["oneOf"]) && ts.get("enum").is_none());
    let le = &p["legacyEnum"];
    assert!(le["type"] == "string");
    assert_eq!(
        le["enum"].as_array().map(Vec::len),
        le["enumNames"].as_array().map(Vec::len)
    );
    assert_eq!(
        le["enumNames"],
        json!(["Option One", "Option Two", "Option Three"])
    );
    let um = &p["untitledMulti"];
    assert!(um["type"] == "array" && um["items"]["type"] == "string");
    assert!(um["items"]["enum"].is_array() && um["items"].get("anyOf").is_none());
    let tm = &p["titledMulti"];
    assert!(tm["type"] == "array" && titled_ok(&tm["items"]["anyOf"]));
    assert!(tm["items"].get("enum").is_none());

    // The harness's answer is valid.
    let answer = content(json!({
        "untitledSingle": "option1",
        "titledSingle": "value1",
        "legacyEnum": "opt1",
        "untitledMulti": ["option1", "option2"],
        "titledMulti": ["value1", "value2"]
    }));
    assert_eq!(s.validate(&answer), Ok(()));
}

#[test]
fn items_one_of_alias_is_emitted_as_any_of() {
    let s = schema(&single(
        "pick",
        json!({"type": "array", "minItems": 1, "items": {"oneOf": [
            {"const": "a", "title": "Ay"},
            {"const": "b", "title": "Bee"}
        ]}, "default": ["b"]}),
    ));
    assert_eq!(
        s.to_json()["properties"]["pick"],
        json!({
            "type": "array",
            "minItems": 1,
            "items": {"anyOf": [
                {"const": "a", "title": "Ay"},
                {"const": "b", "title": "Bee"}
            ]},
            "default": ["b"]
        })
    );
}

// ---------------------------------------------------------------------------------------------
// 2. Rejections naming the property
// ---------------------------------------------------------------------------------------------

#[test]
fn rejections_name_the_property() {
    // Each schema has a valid property `ok` first, so the error must name the right one.
    let cases: Vec<(&str, Value, Check)> = vec![
        (
            "address",
            json!({"type": "object", "properties": {"street": {"type": "string"}}}),
            |k| matches!(k, SchemaErrorKind::NestedObject),
        ),
        (
            "tags",
            json!({"type": "array", "items": {"type": "string"}}),
            |k| matches!(k, SchemaErrorKind::ArrayOfNonEnum),
        ),
        ("bare_list", json!({"type": "array"}), |k| {
            matches!(k, SchemaErrorKind::ArrayOfNonEnum)
        }),
        (
            "numbers",
            json!({"type": "array", "items": {"type": "number", "enum": [1, 2]}}),
            |k| matches!(k, SchemaErrorKind::ArrayOfNonEnum),
        ),
        (
            "when",
            json!({"type": "datetime"}),
            |k| matches!(k, SchemaErrorKind::UnsupportedType { found } if found.contains("datetime")),
        ),
        ("nothing", json!({"type": "null"}), |k| {
            matches!(k, SchemaErrorKind::UnsupportedType { .. })
        }),
        ("either", json!({"type": ["string", "number"]}), |k| {
            matches!(k, SchemaErrorKind::UnsupportedType { .. })
        }),
        ("untyped", json!({"title": "No type here"}), |k| {
            matches!(k, SchemaErrorKind::MissingType)
        }),
        (
            "linked",
            json!({"$ref": "#/definitions/Thing"}),
            |k| matches!(k, SchemaErrorKind::UnsupportedKeyword { keyword } if keyword == "$ref"),
        ),
        (
            "combined",
            json!({"allOf": [{"type": "string"}]}),
            |k| matches!(k, SchemaErrorKind::UnsupportedKeyword { keyword } if keyword == "allOf"),
        ),
        (
            "str_default",
            json!({"type": "string", "default": 5}),
            |k| matches!(k, SchemaErrorKind::BadDefault { value, .. } if value == "5"),
        ),
        (
            "num_default",
            json!({"type": "number", "default": "5"}),
            |k| matches!(k, SchemaErrorKind::BadDefault { .. }),
        ),
        (
            "int_default",
            json!({"type": "integer", "default": 2.5}),
            |k| matches!(k, SchemaErrorKind::BadDefault { value, .. } if value == "2.5"),
        ),
        (
            "bool_default",
            json!({"type": "boolean", "default": "true"}),
            |k| matches!(k, SchemaErrorKind::BadDefault { .. }),
        ),
        (
            "multi_default",
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": "a"}),
            |k| matches!(k, SchemaErrorKind::BadDefault { .. }),
        ),
        (
            "enum_default",
            json!({"type": "string", "enum": ["a", "b"], "default": "c"}),
            |k| matches!(k, SchemaErrorKind::BadDefault { value, .. } if value == "\"c\""),
        ),
        (
            "titled_default",
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "A"}),
            |k| matches!(k, SchemaErrorKind::BadDefault { .. }),
        ),
        (
            "multi_enum_default",
            json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}, "default": ["a", "z"]}),
            |k| matches!(k, SchemaErrorKind::BadDefault { .. }),
        ),
        (
            "legacy",
            json!({"type": "string", "enum": ["a", "b", "c"], "enumNames": ["A", "B"]}),
            |k| {
                matches!(
                    k,
                    SchemaErrorKind::BadKeyword {
                        keyword: "enumNames",
                        ..
                    }
                )
            },
        ),
        ("empty_enum", json!({"type": "string", "enum": []}), |k| {
            matches!(k, SchemaErrorKind::BadChoices { .. })
        }),
        (
            "dup_enum",
            json!({"type": "string", "enum": ["a", "a"]}),
            |k| matches!(k, SchemaErrorKind::BadChoices { .. }),
        ),
        ("not_a_schema", json!(true), |k| {
            matches!(k, SchemaErrorKind::NotAnObject { found: "boolean" })
        }),
    ];
    for (prop, prop_schema, check) in cases {
        let wire = json!({
            "type": "object",
            "properties": {"ok": {"type": "string"}, prop: prop_schema}
        });
        let err: SchemaError = match FormSchema::parse(&wire) {
            Ok(p) => panic!("{prop}: expected an error, parsed {:#?}", p.schema),
            Err(e) => e,
        };
        assert_eq!(err.property.as_deref(), Some(prop), "{prop}: {err:?}");
        assert!(check(&err.kind), "{prop}: unexpected kind {:?}", err.kind);
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("`{prop}`")),
            "{prop}: message {msg:?}"
        );
    }
}

#[test]
fn required_naming_an_undefined_property_is_refused() {
    let err = FormSchema::parse(&json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name", "ghost"]
    }))
    .unwrap_err();
    assert_eq!(err.property.as_deref(), Some("ghost"));
    assert_eq!(err.kind, SchemaErrorKind::RequiredUndefined);
    assert!(err.to_string().contains("ghost"), "{err}");
}

#[test]
fn non_object_schemas_are_refused_at_the_top_level() {
    let cases: Vec<(Value, Check)> = vec![
        (json!([]), |k| {
            matches!(k, SchemaErrorKind::NotAnObject { found: "array" })
        }),
        (json!("object"), |k| {
            matches!(k, SchemaErrorKind::NotAnObject { found: "string" })
        }),
        (
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}}),
            |k| matches!(k, SchemaErrorKind::TopLevelNotObject { found } if found.contains("array")),
        ),
        (json!({"type": "object", "properties": []}), |k| {
            matches!(k, SchemaErrorKind::BadProperties)
        }),
    ];
    for (wire, check) in cases {
        let err = FormSchema::parse(&wire).unwrap_err();
        assert_eq!(err.property, None, "{wire}");
        assert!(check(&err.kind), "{wire}: {:?}", err.kind);
        assert!(err.to_string().starts_with("requestedSchema: "), "{err}");
    }
}

#[test]
fn rejection_messages_read_well() {
    let render = |prop: Value| match FormSchema::parse(&single("p", prop)) {
        Ok(_) => "parsed".to_owned(),
        Err(e) => e.to_string(),
    };
    let actual = [
        render(json!({"type": "object"})),
        render(json!({"type": "array", "items": {"type": "string"}})),
        render(json!({"type": "date"})),
        render(json!({"$ref": "#/x"})),
        render(json!({"description": "?"})),
        render(json!({"type": "integer", "default": 1.5})),
        render(json!({"type": "string", "enum": ["a"], "default": "b"})),
        render(json!({"type": "string", "enum": ["a"], "enumNames": []})),
    ]
    .join("\n");
    expect![[r#"
        property `p`: nested objects are not allowed in an elicitation form
        property `p`: arrays must have `items` with `enum` or `anyOf` of string choices
        property `p`: unsupported type "date" (allowed: string, number, integer, boolean, array of enum)
        property `p`: `$ref` is not supported in an elicitation form
        property `p`: missing `type`
        property `p`: default 1.5 does not fit: expected an integer
        property `p`: default "b" does not fit: expected one of the enum values
        property `p`: `enumNames` must be as long as `enum`"#]]
    .assert_eq(&actual);
}

// ---------------------------------------------------------------------------------------------
// 3. Validation
// ---------------------------------------------------------------------------------------------

/// One field per constraint, none required (required-ness is tested separately).
fn constraints() -> FormSchema {
    schema(&json!({
        "type": "object",
        "properties": {
            "nonEmpty": {"type": "string", "minLength": 1},
            "short": {"type": "string", "minLength": 3, "maxLength": 5},
            "email": {"type": "string", "format": "email"},
            "uri": {"type": "string", "format": "uri"},
            "date": {"type": "string", "format": "date"},
            "dateTime": {"type": "string", "format": "date-time"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10},
            "atLeast": {"type": "number", "minimum": 0.5},
            "atMost": {"type": "integer", "maximum": 99},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "color": {"type": "string", "enum": ["red", "green", "blue"]},
            "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
            "tags": {
                "type": "array",
                "minItems": 2,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["a", "b", "c", "d"]}
            },
            "one": {
                "type": "array",
                "minItems": 1,
                "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}
            }
        }
    }))
}

#[test]
fn every_constraint_violated_once() {
    let s = constraints();
    let cases: Vec<(&str, Value, &str)> = vec![
        ("nonEmpty", json!(""), "Non empty must not be empty."),
        (
            "short",
            json!("ab"),
            "Short must be at least 3 characters long.",
        ),
        (
            "short",
            json!("abcdef"),
            "Short must be at most 5 characters long.",
        ),
        (
            "short",
            json!("ééééé é"),
            "Short must be at most 5 characters long.",
        ),
        (
            "email",
            json!("ada.example.com"),
            "Email must be an e-mail address, such as ada@example.com.",
        ),
        (
            "email",
            json!("ada@localhost"),
            "Email must be an e-mail address, such as ada@example.com.",
        ),
        (
            "email",
            json!("ada@@example.com"),
            "Email must be an e-mail address, such as ada@example.com.",
        ),
        (
            "uri",
            json!("example.com/path"),
            "Uri must be an absolute URI, such as https://example.com.",
        ),
        (
            "date",
            json!("2023-02-29"),
            "Date must be a date in the form YYYY-MM-DD, such as 2026-07-28.",
        ),
        (
            "date",
            json!("28/07/2026"),
            "Date must be a date in the form YYYY-MM-DD, such as 2026-07-28.",
        ),
        (
            "dateTime",
            json!("2026-07-28T09:30"),
            "Date time must be a date and time, such as 2026-07-28T09:30:00Z.",
        ),
        ("count", json!(2.5), "Count must be a whole number."),
        ("count", json!(0), "Count must be between 1 and 10."),
        ("count", json!(11), "Count must be between 1 and 10."),
        ("atLeast", json!(0.25), "At least must be at least 0.5."),
        ("atMost", json!(100), "At most must be at most 99."),
        // Wrong JSON types, one per kind.
        ("short", json!(12345), "Short must be text."),
        ("ratio", json!("0.5"), "Ratio must be a number."),
        ("count", json!("5"), "Count must be a whole number."),
        ("flag", json!("true"), "Flag must be yes or no."),
        ("flag", json!(1), "Flag must be yes or no."),
        ("color", json!(1), "Color must be one of the choices."),
        ("tags", json!("a"), "Tags must be a list of choices."),
        ("tags", json!(["a", 2]), "Tags must be a list of choices."),
        // Enum membership.
        (
            "color",
            json!("purple"),
            "Color must be one of the choices.",
        ),
        (
            "hero",
            json!("Superman"),
            "Hero must be one of the choices.",
        ),
        (
            "tags",
            json!(["a", "z"]),
            "Tags has \u{201c}z\u{201d}, which is not one of the choices.",
        ),
        (
            "one",
            json!(["X"]),
            "One has \u{201c}X\u{201d}, which is not one of the choices.",
        ),
        (
            "tags",
            json!(["a", "b", "a"]),
            "Tags has \u{201c}a\u{201d} twice.",
        ),
        // Item counts.
        ("tags", json!(["a"]), "Choose at least 2 for tags."),
        ("one", json!([]), "Choose at least one for one."),
        (
            "tags",
            json!(["a", "b", "c", "d"]),
            "Choose at most 3 for tags.",
        ),
    ];
    for (name, value, message) in cases {
        let answer = content(json!({ name: value.clone() }));
        let expected = vec![FieldError {
            field: name.into(),
            message: message.into(),
        }];
        assert_eq!(
            s.validate(&answer),
            Err(expected.clone()),
            "{name} = {value}"
        );
        // The single-field check agrees with the whole-form check.
        assert_eq!(
            s.validate_field(name, &value),
            Err(expected[0].clone()),
            "{name} = {value}"
        );
        assert_eq!(
            expected[0].to_string(),
            format!("{name}: {message}"),
            "Display names the field"
        );
    }
}

#[test]
fn values_on_the_edge_are_accepted() {
    let s = constraints();
    let cases: Vec<(&str, Value)> = vec![
        ("nonEmpty", json!("x")),
        ("short", json!("abc")),
        ("short", json!("ééééé")), // 5 characters, 10 bytes
        ("email", json!("ada@example.com")),
        ("uri", json!("https://example.com/x?y=1")),
        ("uri", json!("mailto:ada@example.com")),
        ("date", json!("2024-02-29")),
        ("dateTime", json!("2026-07-28T09:30:00Z")),
        ("dateTime", json!("2026-07-28T09:30:00.5+02:00")),
        ("count", json!(1)),
        ("count", json!(10)),
        ("count", json!(3.0)),
        ("atLeast", json!(0.5)),
        ("atMost", json!(-5)),
        ("ratio", json!(-1.25)),
        ("flag", json!(false)),
        ("color", json!("blue")),
        ("hero", json!("h1")),
        ("tags", json!(["d", "a"])),
        ("tags", json!(["a", "b", "c"])),
        ("one", json!(["y"])),
    ];
    for (name, value) in cases {
        let answer = content(json!({ name: value.clone() }));
        assert_eq!(s.validate(&answer), Ok(()), "{name} = {value}");
        assert_eq!(s.validate_field(name, &value), Ok(()), "{name} = {value}");
    }
    // An empty answer is fine when nothing is required.
    assert_eq!(s.validate(&Content::new()), Ok(()));
}

#[test]
fn required_and_unknown_properties() {
    let s = schema(&json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer"}
        },
        "required": ["name"]
    }));
    let err = |field: &str, message: &str| FieldError {
        field: field.into(),
        message: message.into(),
    };
    assert_eq!(
        s.validate(&content(json!({"age": 3}))),
        Err(vec![err("name", "Enter name.")])
    );
    assert_eq!(
        s.validate(&content(json!({"name": null}))),
        Err(vec![err("name", "Enter name.")])
    );
    assert_eq!(s.required_message("name").as_deref(), Some("Enter name."));
    assert_eq!(s.required_message("nickname"), None);
    let unknown = "\u{201c}nickname\u{201d} is not part of the requested form.";
    assert_eq!(
        s.validate(&content(json!({"name": "Ada", "nickname": "A"}))),
        Err(vec![err("nickname", unknown)])
    );
    assert_eq!(
        s.validate_field("nickname", &json!("A")),
        Err(err("nickname", unknown))
    );
    // A larger form finds unknown properties the same way (looked up in a set, not scanned).
    let mut properties = serde_json::Map::new();
    for i in 0..12 {
        properties.insert(format!("f{i}"), json!({"type": "string"}));
    }
    let wide = schema(&json!({"type": "object", "properties": properties}));
    assert_eq!(
        wide.validate(&content(json!({"f0": "a", "f11": "b", "nickname": "A"}))),
        Err(vec![err("nickname", unknown)])
    );
    assert_eq!(
        wide.validate(&content(json!({"f0": "a", "f11": "b"}))),
        Ok(())
    );
    // An optional field may be omitted or null.
    assert_eq!(s.validate(&content(json!({"name": "Ada"}))), Ok(()));
    assert_eq!(
        s.validate(&content(json!({"name": "Ada", "age": null}))),
        Ok(())
    );
}

/// Issue 12: every message is one sentence naming the field, what to do when it is required,
/// and a field's help says the description and the hint once each.
#[test]
fn messages_and_hints_are_sentences_said_once() {
    let s = schema(&json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email", "title": "Your email address",
                      "description": "Where we write to you"},
            "contact": {"type": "string", "format": "email", "description": "Your email address"},
            "age": {"type": "integer", "minimum": 18, "description": "Your age"},
            "genre": {"type": "string", "enum": ["jazz", "rock"], "title": "Favourite Genre"},
            "topics": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "agree": {"type": "boolean"},
            "note": {"type": "string", "maxLength": 10,
                     "description": "Use at most 10 characters"}
        },
        "required": ["email", "age", "genre", "topics", "agree"]
    }));
    let errors = s.validate(&Content::new()).unwrap_err();
    let got: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        got,
        [
            "Enter your email address.",
            "Enter age.",
            "Choose Favourite Genre.",
            "Choose topics.",
            "Agree needs a yes or a no.",
        ]
    );
    let young = s.validate_field("age", &json!(12)).unwrap_err();
    assert_eq!(young.message, "Age must be at least 18.");
    // Every message of every constraint is a sentence: a capital first, a full stop last.
    let c = constraints();
    for (name, value) in [
        ("nonEmpty", json!("")),
        ("email", json!("x")),
        ("count", json!(0)),
        ("tags", json!(["z"])),
        ("tags", json!([])),
        ("flag", json!(0)),
    ] {
        let message = c.validate_field(name, &value).unwrap_err().message;
        assert!(message.starts_with(char::is_uppercase), "{message}");
        assert!(message.ends_with('.'), "{message}");
    }

    // The hint shows an example instead of naming again what the description says.
    let contact = field(&s, "contact");
    assert_eq!(
        contact.hint().as_deref(),
        Some("For example, ada@example.com.")
    );
    assert_eq!(
        contact.help().as_deref(),
        Some("Your email address. For example, ada@example.com.")
    );
    assert!(!contact.help().unwrap().contains("an e-mail address"));
    assert_eq!(
        field(&s, "age").help().as_deref(),
        Some("Your age. Enter a whole number of at least 18.")
    );
    // A hint the description already gives is not said twice.
    assert_eq!(
        field(&s, "note").help().as_deref(),
        Some("Use at most 10 characters.")
    );
    assert_eq!(field(&s, "agree").help(), None);
    assert_eq!(
        field(&s, "email").help_with(None).as_deref(),
        Some("Where we write to you.")
    );
}

#[test]
fn a_fully_valid_answer_passes() {
    let s = schema(&server_everything());
    let answer = content(json!({
        "name": "Ada Lovelace",
        "check": true,
        "firstLine": "Call me Ishmael.",
        "email": "ada@example.com",
        "homepage": "https://ada.example.com",
        "birthdate": "1815-12-10",
        "integer": 7,
        "number": 2.71,
        "untitledSingleSelectEnum": "Rachel",
        "untitledMultipleSelectEnum": ["Guitar", "Piano"],
        "titledSingleSelectEnum": "hero-2",
        "titledMultipleSelectEnum": ["fish-2"],
        "legacyTitledEnum": "pet-3"
    }));
    assert_eq!(s.validate(&answer), Ok(()));
    // The minimal answer server-everything's own transcript shows is valid as well.
    assert_eq!(s.validate(&content(json!({"name": "Ada"}))), Ok(()));
}

#[test]
fn multiple_errors_are_all_reported_in_field_order() {
    let s = schema(&server_everything());
    // Written in an order different from the schema's on purpose.
    let answer = content(json!({
        "legacyTitledEnum": "Cats",
        "bogus": 1,
        "titledMultipleSelectEnum": [],
        "number": 1000.5,
        "email": "nope",
        "check": "yes"
    }));
    let errors = s.validate(&answer).unwrap_err();
    let got: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.field.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("name", "Enter string."),
            ("check", "Boolean must be yes or no."),
            (
                "email",
                "String with email format must be an e-mail address, such as ada@example.com."
            ),
            (
                "number",
                "Number in range 1-1000 must be between 0 and 1000."
            ),
            (
                "titledMultipleSelectEnum",
                "Choose at least one for Titled Multiple Select Enum."
            ),
            (
                "legacyTitledEnum",
                "Legacy Titled Single Select Enum must be one of the choices."
            ),
            (
                "bogus",
                "\u{201c}bogus\u{201d} is not part of the requested form."
            ),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// 4. Defaults
// ---------------------------------------------------------------------------------------------

#[test]
fn prefill_contains_every_default() {
    let s = schema(&server_everything());
    let prefill = s.prefill();
    assert_eq!(
        Value::Object(prefill.clone()),
        json!({
            "firstLine": "It was a dark and stormy night.",
            "integer": 42,
            "number": 3.14,
            "untitledSingleSelectEnum": "Monica",
            "untitledMultipleSelectEnum": ["Guitar"],
            "titledSingleSelectEnum": "hero-1",
            "titledMultipleSelectEnum": ["fish-1"],
            "legacyTitledEnum": "pet-1"
        })
    );
    assert_eq!(
        prefill.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "firstLine",
            "integer",
            "number",
            "untitledSingleSelectEnum",
            "untitledMultipleSelectEnum",
            "titledSingleSelectEnum",
            "titledMultipleSelectEnum",
            "legacyTitledEnum"
        ]
    );
    // Defaults are valid values; with the one required field filled the prefill is an answer.
    let mut answer = prefill;
    answer.insert("name".into(), json!("Ada"));
    assert_eq!(s.validate(&answer), Ok(()));

    let s = schema(&sep1034());
    assert_eq!(
        Value::Object(s.prefill()),
        json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
    );
}

#[test]
fn apply_defaults_fills_only_missing_ones() {
    let s = schema(&server_everything());
    let mut answer = content(json!({
        "name": "Ada",
        "integer": 7,
        "untitledMultipleSelectEnum": ["Drums", "Bass"],
        "legacyTitledEnum": "pet-5",
        "firstLine": ""
    }));
    s.apply_defaults(&mut answer);
    assert_eq!(
        Value::Object(answer.clone()),
        json!({
            "name": "Ada",
            "integer": 7,
            "untitledMultipleSelectEnum": ["Drums", "Bass"],
            "legacyTitledEnum": "pet-5",
            "firstLine": "",
            "number": 3.14,
            "untitledSingleSelectEnum": "Monica",
            "titledSingleSelectEnum": "hero-1",
            "titledMultipleSelectEnum": ["fish-1"]
        })
    );
    // Given values keep their position; added ones follow in field order.
    assert_eq!(
        answer.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "name",
            "integer",
            "untitledMultipleSelectEnum",
            "legacyTitledEnum",
            "firstLine",
            "number",
            "untitledSingleSelectEnum",
            "titledSingleSelectEnum",
            "titledMultipleSelectEnum"
        ]
    );
    // Fields without a default are not invented.
    for absent in ["check", "email", "homepage", "birthdate"] {
        assert!(!answer.contains_key(absent), "{absent}");
    }
    // Applying twice changes nothing.
    let before = answer.clone();
    s.apply_defaults(&mut answer);
    assert_eq!(answer, before);
}

#[test]
fn sep1034_client_defaults_scenario() {
    // The conformance client scenario: accept with nothing typed, defaults filled in.
    let s = schema(&sep1034());
    let mut answer = Content::new();
    s.apply_defaults(&mut answer);
    assert_eq!(s.validate(&answer), Ok(()));
    assert!(answer["name"].is_string());
    assert!(answer["age"].is_number());
    assert!(answer["score"].is_number());
    assert_eq!(answer["status"], "active");
    assert!(answer["verified"].is_boolean());
}

#[test]
fn integer_defaults_are_json_integers() {
    let s = schema(&sep1034());
    let age = s.prefill()["age"].clone();
    assert!(age.is_i64(), "{age:?}");
    assert_eq!(serde_json::to_string(&age).unwrap(), "30");

    let mut answer = Content::new();
    s.apply_defaults(&mut answer);
    assert_eq!(serde_json::to_string(&answer["age"]).unwrap(), "30");
    assert_eq!(
        serde_json::to_string(&s.to_json()["properties"]["age"]["default"]).unwrap(),
        "30"
    );

    // A whole-valued float default on an integer field is emitted as an integer too.
    let s = schema(&single(
        "n",
        json!({"type": "integer", "minimum": 0.0, "default": 30.0}),
    ));
    assert_eq!(serde_json::to_string(&s.prefill()["n"]).unwrap(), "30");
    assert_eq!(
        serde_json::to_string(&s.to_json()["properties"]["n"]).unwrap(),
        r#"{"type":"integer","minimum":0,"default":30}"#
    );
    // Large integers stay exact.
    let s = schema(&single(
        "big",
        json!({"type": "integer", "default": 4_000_000_000_i64}),
    ));
    assert_eq!(
        serde_json::to_string(&s.prefill()["big"]).unwrap(),
        "4000000000"
    );
}

// ---------------------------------------------------------------------------------------------
// 5. Derive
// ---------------------------------------------------------------------------------------------

/// A genre. (Plain enum: no schemars or serde attributes.)
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Genre {
    Jazz,
    Rock,
    Classical,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
enum Size {
    /// Small cup
    Small,
    /// Extra large cup
    ExtraLarge,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Order {
    /// Who the order is for
    zeta_name: String,
    genre: Genre,
    /// How big
    #[serde(rename = "cupSize")]
    size: Size,
    also: Vec<Genre>,
    sizes: Vec<Size>,
    quantity: u32,
    note: Option<String>,
    favourite: Option<Genre>,
    maybe_size: Option<Size>,
    alpha: bool,
    ratio: f64,
    offset: Option<i64>,
}

#[test]
fn derive_keeps_field_order_and_names() {
    let s = schema_for::<Order>().unwrap();
    assert_eq!(
        names(&s),
        [
            "zeta_name",
            "genre",
            "cupSize",
            "also",
            "sizes",
            "quantity",
            "note",
            "favourite",
            "maybe_size",
            "alpha",
            "ratio",
            "offset"
        ]
    );
    assert_eq!(keys(&s.to_json()["properties"]), names(&s));
    assert_eq!(s.dialect, None);
}

#[test]
fn derive_maps_each_rust_type() {
    let s = schema_for::<Order>().unwrap();
    let required: Vec<&str> = s
        .fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        required,
        [
            "zeta_name",
            "genre",
            "cupSize",
            "also",
            "sizes",
            "quantity",
            "alpha",
            "ratio"
        ],
        "Option<T> fields are not required, everything else is"
    );

    assert_eq!(field(&s, "zeta_name").kind, text(None, None, None, None));
    assert_eq!(
        field(&s, "zeta_name").description.as_deref(),
        Some("Who the order is for")
    );
    assert_eq!(field(&s, "cupSize").description.as_deref(), Some("How big"));
    // No type name leaks in as a label.
    assert!(s.fields.iter().all(|f| f.title.is_none()), "{s:#?}");

    // A plain Rust enum: a single-select of the variant names.
    let FieldKind::SingleSelect { options, .. } = &field(&s, "genre").kind else {
        panic!("{:?}", field(&s, "genre").kind)
    };
    assert_eq!(options, &untitled(&["Jazz", "Rock", "Classical"]));
    let FieldKind::SingleSelect { options, .. } = &field(&s, "favourite").kind else {
        panic!("{:?}", field(&s, "favourite").kind)
    };
    assert_eq!(
        options,
        &untitled(&["Jazz", "Rock", "Classical"]),
        "no null choice"
    );

    // Unit-variant doc comments become choice titles; serde's renames are the values.
    let sizes = titled(&[("small", "Small cup"), ("extra-large", "Extra large cup")]);
    let FieldKind::SingleSelect { options, style, .. } = &field(&s, "cupSize").kind else {
        panic!("{:?}", field(&s, "cupSize").kind)
    };
    assert_eq!((options, *style), (&sizes, EnumStyle::Titled));
    let FieldKind::SingleSelect { options, .. } = &field(&s, "maybe_size").kind else {
        panic!("{:?}", field(&s, "maybe_size").kind)
    };
    assert_eq!(options, &sizes);

    // Vec<Enum> is a multi-select.
    assert_eq!(
        field(&s, "also").kind,
        FieldKind::MultiSelect {
            options: untitled(&["Jazz", "Rock", "Classical"]),
            style: MultiStyle::Untitled,
            min_items: None,
            max_items: None,
            default: None,
        }
    );
    assert_eq!(
        field(&s, "sizes").kind,
        FieldKind::MultiSelect {
            options: sizes.clone(),
            style: MultiStyle::Titled,
            min_items: None,
            max_items: None,
            default: None,
        }
    );

    // Numbers: u32 keeps its lower bound; schemars' width formats are dropped.
    assert_eq!(
        field(&s, "quantity").kind,
        number(true, Some(0.0), None, None)
    );
    assert_eq!(field(&s, "ratio").kind, number(false, None, None, None));
    assert_eq!(field(&s, "offset").kind, number(true, None, None, None));
    assert_eq!(
        field(&s, "alpha").kind,
        FieldKind::Boolean { default: None }
    );
    assert_eq!(field(&s, "note").kind, text(None, None, None, None));

    let out = s.to_json();
    assert_eq!(
        out["properties"]["quantity"],
        json!({"type": "integer", "minimum": 0})
    );
    assert!(out["properties"]["sizes"]["items"]["anyOf"].is_array());
}

#[test]
fn derived_form_round_trips_through_the_parser() {
    let s = Order::form_schema().unwrap();
    let reparsed = parse(&s.to_json());
    assert_eq!(reparsed.diagnostics, vec![]);
    assert_eq!(reparsed.schema, s);
    // Cached: the same answer the second time.
    assert_eq!(Order::form_schema().unwrap(), s);
}

#[test]
fn accepted_content_deserializes_into_the_type() {
    let s = Order::form_schema().unwrap();
    let answer = content(json!({
        "zeta_name": "Ada",
        "genre": "Rock",
        "cupSize": "extra-large",
        "also": ["Jazz", "Classical"],
        "sizes": [],
        "quantity": 3,
        "favourite": "Jazz",
        "alpha": true,
        "ratio": 0.5
    }));
    assert_eq!(s.validate(&answer), Ok(()));
    let order: Order = serde_json::from_value(Value::Object(answer)).unwrap();
    assert_eq!(
        order,
        Order {
            zeta_name: "Ada".into(),
            genre: Genre::Rock,
            size: Size::ExtraLarge,
            also: vec![Genre::Jazz, Genre::Classical],
            sizes: vec![],
            quantity: 3,
            note: None,
            favourite: Some(Genre::Jazz),
            maybe_size: None,
            alpha: true,
            ratio: 0.5,
            offset: None,
        }
    );

    // What the form refuses is what serde would refuse too.
    let bad = content(json!({
        "zeta_name": "Ada", "genre": "Polka", "cupSize": "small", "also": [], "sizes": [],
        "quantity": -1, "alpha": true, "ratio": 1
    }));
    let fields: Vec<String> = s
        .validate(&bad)
        .unwrap_err()
        .into_iter()
        .map(|e| e.field)
        .collect();
    assert_eq!(fields, ["genre", "quantity"]);
    assert!(serde_json::from_value::<Order>(Value::Object(bad)).is_err());
}

/// With some variants documented and some not.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
enum Mixed {
    /// The first one
    First,
    Second,
    Third,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct WithMixed {
    pick: Mixed,
    picks: Vec<Mixed>,
}

#[test]
fn derive_partly_documented_enum() {
    let s = schema_for::<WithMixed>().unwrap();
    for name in ["pick", "picks"] {
        let options = match &field(&s, name).kind {
            FieldKind::SingleSelect { options, .. } | FieldKind::MultiSelect { options, .. } => {
                options
            }
            other => panic!("{name}: {other:?}"),
        };
        let mut values: Vec<&str> = options.iter().map(|c| c.value.as_str()).collect();
        values.sort_unstable();
        assert_eq!(values, ["First", "Second", "Third"], "{name}");
        let first = options.iter().find(|c| c.value == "First").unwrap();
        assert_eq!(first.label(), "The first one", "{name}");
        let second = options.iter().find(|c| c.value == "Second").unwrap();
        assert_eq!(second.label(), "Second", "{name}");
    }
    let answer = content(json!({"pick": "Third", "picks": ["First", "Second"]}));
    assert_eq!(s.validate(&answer), Ok(()));
    let v: WithMixed = serde_json::from_value(Value::Object(answer)).unwrap();
    assert_eq!(v.pick, Mixed::Third);
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct WithNested {
    name: String,
    #[serde(rename = "homeAddress")]
    home: Address,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct WithStrings {
    name: String,
    labels: Vec<String>,
}

#[test]
fn derive_refuses_unsupported_fields_naming_them() {
    let err = WithNested::form_schema().unwrap_err();
    assert_eq!(err.property.as_deref(), Some("homeAddress"));
    assert_eq!(err.kind, SchemaErrorKind::NestedObject);
    assert!(err.to_string().contains("homeAddress"), "{err}");
    // The cached error is the same error.
    assert_eq!(WithNested::form_schema().unwrap_err(), err);

    let err = schema_for::<WithStrings>().unwrap_err();
    assert_eq!(err.property.as_deref(), Some("labels"));
    assert_eq!(err.kind, SchemaErrorKind::ArrayOfNonEnum);
    assert!(err.to_string().contains("labels"), "{err}");
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct WithDefaults {
    #[serde(default)]
    count: u32,
    #[serde(default = "default_mood")]
    mood: Genre,
}

fn default_mood() -> Genre {
    Genre::Jazz
}

#[test]
fn derive_serde_defaults_become_schema_defaults() {
    let s = schema_for::<WithDefaults>().unwrap();
    assert!(s.fields.iter().all(|f| !f.required), "{s:#?}");
    assert_eq!(
        Value::Object(s.prefill()),
        json!({"count": 0, "mood": "Jazz"})
    );
    assert_eq!(serde_json::to_string(&s.prefill()["count"]).unwrap(), "0");
}
