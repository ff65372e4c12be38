//! The size caps of a schema (issue 21, hole 2): a hostile server must not be able to stall the
//! host with one request. Every size a schema can carry is capped; a schema over a cap is refused
//! naming the property and the cap, a schema exactly at every cap is accepted, and the checks
//! stay linear (hash sets, not pairwise comparisons), which the tests at 100 000 choices would
//! show as minutes of CPU if they were not.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_schema::limits::{
    MAX_CHOICES, MAX_DEFAULT_CHARS, MAX_DESCRIPTION_CHARS, MAX_DIAGNOSTICS, MAX_DIALECT_CHARS,
    MAX_ECHO_CHARS, MAX_NAME_CHARS, MAX_PATTERN_CHARS, MAX_PROPERTIES, MAX_TITLE_CHARS,
    MAX_VALUE_CHARS,
};
use interlude_schema::{Content, FieldKind, FormSchema, SchemaError};
use serde_json::{Map, Value, json};

fn refused(wire: &Value) -> SchemaError {
    match FormSchema::parse(wire) {
        Ok(_) => panic!("expected a refusal"),
        Err(e) => e,
    }
}

fn single(name: &str, prop: Value) -> Value {
    json!({"type": "object", "properties": {name: prop}})
}

/// `n` distinct choice values.
fn values(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("choice-{i}")).collect()
}

fn titled(n: usize) -> Vec<Value> {
    values(n)
        .into_iter()
        .map(|v| json!({"const": v, "title": v}))
        .collect()
}

/// Every shape a field's choices can take, with `n` choices.
fn choice_shapes(n: usize) -> Vec<(&'static str, Value)> {
    vec![
        ("enum", json!({"type": "string", "enum": values(n)})),
        ("oneOf", json!({"type": "string", "oneOf": titled(n)})),
        ("anyOf", json!({"type": "string", "anyOf": titled(n)})),
        (
            "enumNames",
            json!({"type": "string", "enum": values(n), "enumNames": values(n)}),
        ),
        (
            "items.enum",
            json!({"type": "array", "items": {"type": "string", "enum": values(n)}}),
        ),
        (
            "items.anyOf",
            json!({"type": "array", "items": {"anyOf": titled(n)}}),
        ),
        (
            "items.oneOf",
            json!({"type": "array", "items": {"oneOf": titled(n)}}),
        ),
    ]
}

#[test]
fn a_hundred_thousand_choices_are_refused_naming_the_field_and_the_cap() {
    for (shape, prop) in choice_shapes(100_000) {
        let err = refused(&single("pick", prop));
        assert_eq!(err.property.as_deref(), Some("pick"), "{shape}");
        assert_eq!(
            err.to_string(),
            format!("property `pick`: has 100000 choices; the limit is {MAX_CHOICES}"),
            "{shape}"
        );
    }
}

#[test]
fn duplicate_choices_are_still_detected_at_any_distance() {
    for (shape, mut prop) in choice_shapes(MAX_CHOICES) {
        // The last choice repeats the first one.
        let list = match shape {
            "enum" | "enumNames" => &mut prop["enum"],
            "oneOf" | "anyOf" => &mut prop[shape],
            "items.enum" => &mut prop["items"]["enum"],
            _ => &mut prop["items"][&shape["items.".len()..]],
        };
        let first = list[0].clone();
        list[MAX_CHOICES - 1] = first;
        let err = refused(&single("pick", prop));
        assert_eq!(err.property.as_deref(), Some("pick"), "{shape}");
        assert_eq!(
            err.to_string(),
            "property `pick`: enum choices must be unique",
            "{shape}"
        );
    }
}

#[test]
fn choices_exactly_at_the_cap_are_accepted() {
    for (shape, prop) in choice_shapes(MAX_CHOICES) {
        let parsed = FormSchema::parse(&single("pick", prop))
            .unwrap_or_else(|e| panic!("{shape}: {e}"))
            .schema;
        let count = match &parsed.fields[0].kind {
            FieldKind::SingleSelect { options, .. } | FieldKind::MultiSelect { options, .. } => {
                options.len()
            }
            other => panic!("{shape}: {other:?}"),
        };
        assert_eq!(count, MAX_CHOICES, "{shape}");
    }
}

/// A string of `n` characters, two bytes each (so caps are seen to count characters).
fn chars(n: usize) -> String {
    "é".repeat(n)
}

/// One schema with every size exactly at its cap.
fn everything_at_the_cap() -> Value {
    let mut props = Map::new();
    let long_name = |i: usize| {
        let prefix = format!("p{i}-");
        format!("{prefix}{}", "n".repeat(MAX_NAME_CHARS - prefix.len()))
    };
    props.insert(
        long_name(0),
        json!({
            "type": "string",
            "title": chars(MAX_TITLE_CHARS),
            "description": chars(MAX_DESCRIPTION_CHARS),
            "pattern": chars(MAX_PATTERN_CHARS),
            "default": chars(MAX_DEFAULT_CHARS),
        }),
    );
    let long_values: Vec<String> = (0..MAX_CHOICES)
        .map(|i| {
            let prefix = format!("{i}-");
            format!("{prefix}{}", chars(MAX_VALUE_CHARS - prefix.len()))
        })
        .collect();
    let long_titled: Vec<Value> = long_values
        .iter()
        .map(|v| json!({"const": v, "title": chars(MAX_TITLE_CHARS)}))
        .collect();
    props.insert(
        long_name(1),
        json!({"type": "string", "oneOf": long_titled, "default": long_values[MAX_CHOICES - 1]}),
    );
    props.insert(
        long_name(2),
        json!({"type": "array", "items": {"type": "string", "enum": long_values},
               "default": long_values}),
    );
    props.insert(
        long_name(3),
        json!({"type": "string", "enum": values(MAX_CHOICES),
               "enumNames": vec![chars(MAX_TITLE_CHARS); MAX_CHOICES]}),
    );
    for i in props.len()..MAX_PROPERTIES {
        props.insert(long_name(i), json!({"type": "boolean"}));
    }
    let required: Vec<String> = (0..MAX_PROPERTIES).map(long_name).collect();
    json!({
        "$schema": chars(MAX_DIALECT_CHARS),
        "type": "object",
        "properties": props,
        "required": required,
    })
}

#[test]
fn a_schema_exactly_at_every_cap_is_accepted_and_round_trips() {
    let wire = everything_at_the_cap();
    let parsed = FormSchema::parse(&wire).unwrap_or_else(|e| panic!("{e}"));
    let schema = parsed.schema;
    assert_eq!(schema.fields.len(), MAX_PROPERTIES);
    assert!(schema.fields.iter().all(|f| f.required));
    assert_eq!(FormSchema::parse(&schema.to_json()).unwrap().schema, schema);

    // Defaults at the cap apply, and the answer they make is valid.
    let mut answer = Content::new();
    for f in &schema.fields[4..] {
        answer.insert(f.name.clone(), json!(true));
    }
    answer.insert(schema.fields[3].name.clone(), json!("choice-0"));
    schema.apply_defaults(&mut answer);
    assert_eq!(schema.validate(&answer), Ok(()));
}

/// Sets one value of [`everything_at_the_cap`] one over its cap.
fn one_over(path: &[&str], value: Value) -> Value {
    let mut wire = everything_at_the_cap();
    let mut at = &mut wire;
    for key in path {
        at = if let Ok(i) = key.parse::<usize>() {
            &mut at[i]
        } else if let Some(k) = key.strip_prefix('#') {
            // The property whose name starts with `p<k>-`.
            let name = at
                .as_object()
                .unwrap()
                .keys()
                .find(|n| n.starts_with(&format!("p{k}-")))
                .unwrap()
                .clone();
            &mut at[&name]
        } else {
            &mut at[*key]
        };
    }
    *at = value;
    wire
}

#[test]
fn one_over_each_cap_is_refused_naming_the_property_and_the_cap() {
    let over = |n: usize| json!(chars(n + 1));
    let cases: Vec<(&str, Value, Option<&str>, String)> = vec![
        (
            "title",
            one_over(&["properties", "#0", "title"], over(MAX_TITLE_CHARS)),
            Some("p0-"),
            format!("`title` is 1001 characters long; the limit is {MAX_TITLE_CHARS}"),
        ),
        (
            "description",
            one_over(
                &["properties", "#0", "description"],
                over(MAX_DESCRIPTION_CHARS),
            ),
            Some("p0-"),
            format!("`description` is 4097 characters long; the limit is {MAX_DESCRIPTION_CHARS}"),
        ),
        (
            "pattern",
            one_over(&["properties", "#0", "pattern"], over(MAX_PATTERN_CHARS)),
            Some("p0-"),
            format!("`pattern` is 1001 characters long; the limit is {MAX_PATTERN_CHARS}"),
        ),
        (
            "text default",
            one_over(&["properties", "#0", "default"], over(MAX_DEFAULT_CHARS)),
            Some("p0-"),
            format!("`default` is 4097 characters long; the limit is {MAX_DEFAULT_CHARS}"),
        ),
        (
            "choice title",
            one_over(
                &["properties", "#1", "oneOf", "7", "title"],
                over(MAX_TITLE_CHARS),
            ),
            Some("p1-"),
            format!("a choice's title is 1001 characters long; the limit is {MAX_TITLE_CHARS}"),
        ),
        (
            "choice const",
            one_over(
                &["properties", "#1", "oneOf", "7", "const"],
                over(MAX_VALUE_CHARS),
            ),
            Some("p1-"),
            format!("a choice's value is 1001 characters long; the limit is {MAX_VALUE_CHARS}"),
        ),
        (
            "enum value",
            one_over(
                &["properties", "#2", "items", "enum", "7"],
                over(MAX_VALUE_CHARS),
            ),
            Some("p2-"),
            format!("a choice's value is 1001 characters long; the limit is {MAX_VALUE_CHARS}"),
        ),
        (
            "enumNames entry",
            one_over(
                &["properties", "#3", "enumNames", "7"],
                over(MAX_TITLE_CHARS),
            ),
            Some("p3-"),
            format!("a choice's title is 1001 characters long; the limit is {MAX_TITLE_CHARS}"),
        ),
        (
            "$schema",
            one_over(&["$schema"], over(MAX_DIALECT_CHARS)),
            None,
            format!("`$schema` is 1001 characters long; the limit is {MAX_DIALECT_CHARS}"),
        ),
    ];
    for (what, wire, property, message) in cases {
        let err = refused(&wire);
        match property {
            Some(prefix) => {
                let p = err.property.as_deref().unwrap_or_default();
                assert!(p.starts_with(prefix), "{what}: property {p:?}");
                assert!(err.to_string().ends_with(&message), "{what}: {err}");
            }
            None => {
                assert_eq!(err.property, None, "{what}");
                assert_eq!(err.to_string(), format!("requestedSchema: {message}"));
            }
        }
    }
}

#[test]
fn one_property_too_many_and_a_too_long_name_are_refused() {
    let mut wire = everything_at_the_cap();
    wire["properties"]
        .as_object_mut()
        .unwrap()
        .insert("extra".into(), json!({"type": "boolean"}));
    let err = refused(&wire);
    assert_eq!(err.property, None);
    assert_eq!(
        err.to_string(),
        format!("requestedSchema: `properties` has 257 entries; the limit is {MAX_PROPERTIES}")
    );

    let mut wire = everything_at_the_cap();
    let mut required = wire["required"].as_array().unwrap().clone();
    required.push(required[0].clone());
    wire["required"] = Value::Array(required);
    let err = refused(&wire);
    assert_eq!(
        err.to_string(),
        format!("requestedSchema: `required` has 257 entries; the limit is {MAX_PROPERTIES}")
    );

    let name = "n".repeat(MAX_NAME_CHARS + 1);
    let err = refused(&single(&name, json!({"type": "string"})));
    let shown = err.property.clone().unwrap();
    assert_eq!(shown.chars().count(), MAX_ECHO_CHARS + 1, "cut: {shown}");
    assert!(shown.ends_with('…'));
    assert_eq!(
        err.to_string(),
        format!(
            "property `{shown}`: the property name is 257 characters long; the limit is \
             {MAX_NAME_CHARS}"
        )
    );
}

#[test]
fn a_five_megabyte_description_is_refused() {
    let err = refused(&single(
        "note",
        json!({"type": "string", "description": "x".repeat(5_000_000)}),
    ));
    assert_eq!(err.property.as_deref(), Some("note"));
    assert_eq!(
        err.to_string(),
        format!(
            "property `note`: `description` is 5000000 characters long; the limit is \
             {MAX_DESCRIPTION_CHARS}"
        )
    );
}

#[test]
fn peer_text_quoted_in_errors_is_cut() {
    let huge = "g".repeat(1_000_000);
    let cases = [
        // An undefined name in `required`.
        json!({"type": "object", "properties": {}, "required": [huge]}),
        // A default that does not fit, quoted back.
        single("d", json!({"type": "integer", "default": huge})),
        single(
            "d",
            json!({"type": "array", "items": {"enum": ["a"]}, "default": [huge]}),
        ),
        // An unsupported type, quoted back.
        single("t", json!({"type": huge})),
        single("t", json!({"type": [huge, "number"]})),
        json!({"type": huge}),
    ];
    for wire in cases {
        let err = refused(&wire);
        let text = err.to_string();
        assert!(text.len() < 400, "{} bytes: {:.200}", text.len(), text);
    }
}

#[test]
fn diagnostics_are_capped() {
    let mut prop = Map::new();
    prop.insert("type".into(), json!("string"));
    for i in 0..10_000 {
        prop.insert(format!("x-vendor-{i}-{}", "k".repeat(500)), json!(i));
    }
    let mut wire = single("p", Value::Object(prop));
    for i in 0..10_000 {
        wire[format!("top-{i}")] = json!(i);
    }
    let parsed = FormSchema::parse(&wire).unwrap();
    assert_eq!(parsed.diagnostics.len(), MAX_DIAGNOSTICS + 1);
    assert_eq!(
        parsed.diagnostics[MAX_DIAGNOSTICS].message,
        format!("{} more diagnostics not kept", 20_000 - MAX_DIAGNOSTICS)
    );
    assert!(
        parsed
            .diagnostics
            .iter()
            .all(|d| d.message.chars().count() < MAX_ECHO_CHARS + 40),
        "keywords are quoted cut"
    );
}

#[test]
fn a_multi_select_default_must_not_repeat_a_value() {
    let err = refused(&single(
        "tags",
        json!({"type": "array", "items": {"enum": ["a", "b"]}, "default": ["a", "b", "a"]}),
    ));
    assert_eq!(err.property.as_deref(), Some("tags"));
    assert_eq!(
        err.to_string(),
        "property `tags`: default [\"a\",\"b\",\"a\"] does not fit: expected distinct enum values"
    );
}

#[test]
fn validation_at_the_cap_checks_every_item_and_finds_a_late_repeat() {
    let schema = FormSchema::parse(&single(
        "tags",
        json!({"type": "array", "items": {"enum": values(MAX_CHOICES)}}),
    ))
    .unwrap()
    .schema;
    let mut all: Content = Content::new();
    all.insert("tags".into(), json!(values(MAX_CHOICES)));
    assert_eq!(schema.validate(&all), Ok(()));

    let mut twice = values(MAX_CHOICES);
    twice.push("choice-0".into());
    all.insert("tags".into(), json!(twice));
    let errors = schema.validate(&all).unwrap_err();
    assert_eq!(errors[0].message, "Tags has “choice-0” twice.");

    // An answer with many properties the form does not have: one error each, in order.
    let mut noisy = Content::new();
    for i in 0..100_000 {
        noisy.insert(format!("k{i}"), json!(i));
    }
    let errors = schema.validate(&noisy).unwrap_err();
    assert_eq!(errors.len(), 100_000);
    assert_eq!(errors[99_999].field, "k99999");
}
