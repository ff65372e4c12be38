//! Property tests of the schema subset (issue 21): whatever JSON a peer sends, `parse` answers
//! without panicking, and what it accepts re-emits to a schema that parses to the same form;
//! every form of the subset survives the round trip through the wire; `validate` and
//! `apply_defaults` handle any content; and an answer built within a form's constraints is
//! valid, so what one side (the host) accepts, the other (the server) accepts too, both running
//! the same `validate` on the same parsed form.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_schema::{
    Choice, Content, EnumStyle, Field, FieldKind, FormSchema, MultiStyle, StringFormat,
};
use proptest::prelude::*;
use serde_json::{Map, Number, Value, json};

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

/// Any short string: ASCII most of the time, any `char` some of the time.
fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'z'),
            1 => prop::sample::select(vec!['A', 'Z', '0', '9', '_', '-', ' ', '.', '@']),
            1 => any::<char>(),
        ],
        0..max,
    )
    .prop_map(String::from_iter)
}

/// Any JSON value, a few levels deep, with the keywords of the subset among its keys.
fn any_json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        3 => prop::sample::select(vec![
            "type", "properties", "required", "title", "description", "default", "enum",
            "enumNames", "oneOf", "anyOf", "items", "const", "minLength", "maxLength",
            "minimum", "maximum", "minItems", "maxItems", "format", "pattern", "$schema",
            "$ref", "string", "number", "integer", "boolean", "array", "object", "null",
        ])
        .prop_map(str::to_owned),
        1 => text(6),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            "object",
            "string",
            "number",
            "integer",
            "boolean",
            "array",
            "email",
            "uri",
            "date",
            "date-time",
            "a",
            "b",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
        text(8).prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 96, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..8)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A property schema near the subset: plausible keywords with plausible (or wrong) values.
fn property_json() -> impl Strategy<Value = Value> {
    let strings = || prop::collection::vec(text(4).prop_map(Value::String), 0..5);
    let titled = || {
        prop::collection::vec(
            (text(4), prop::option::of(text(4))).prop_map(|(v, t)| match t {
                Some(t) => json!({"const": v, "title": t}),
                None => json!({"const": v}),
            }),
            0..5,
        )
    };
    let small = || {
        prop_oneof![
            (0_u32..10).prop_map(Value::from),
            (-5.0_f64..5.0).prop_map(Value::from),
            Just(json!("3")),
        ]
    };
    let entry = prop_oneof![
        prop::sample::select(vec![
            "string", "number", "integer", "boolean", "array", "object"
        ])
        .prop_map(|t| ("type", json!(t))),
        Just(("type", json!(["string", "null"]))),
        strings().prop_map(|v| ("enum", Value::Array(v))),
        strings().prop_map(|v| ("enumNames", Value::Array(v))),
        titled().prop_map(|v| ("oneOf", Value::Array(v))),
        titled().prop_map(|v| ("anyOf", Value::Array(v))),
        strings().prop_map(|v| ("items", json!({"type": "string", "enum": v}))),
        titled().prop_map(|v| ("items", json!({"anyOf": v}))),
        small().prop_map(|v| ("minLength", v)),
        small().prop_map(|v| ("maxLength", v)),
        small().prop_map(|v| ("minimum", v)),
        small().prop_map(|v| ("maximum", v)),
        small().prop_map(|v| ("minItems", v)),
        small().prop_map(|v| ("maxItems", v)),
        prop::sample::select(vec!["email", "uri", "date", "date-time", "color"])
            .prop_map(|f| ("format", json!(f))),
        text(6).prop_map(|p| ("pattern", json!(p))),
        text(6).prop_map(|t| ("title", json!(t))),
        text(12).prop_map(|d| ("description", json!(d))),
        any_json().prop_map(|d| ("default", d)),
        text(3).prop_map(|d| ("default", json!(d))),
        strings().prop_map(|d| ("default", Value::Array(d))),
        any_json().prop_map(|v| ("x-vendor", v)),
    ];
    let kind = prop::sample::select(vec!["string", "number", "integer", "boolean", "array"]);
    (kind, prop::collection::vec(entry, 0..5)).prop_map(|(kind, entries)| {
        let mut o = Map::new();
        o.insert("type".to_owned(), json!(kind));
        o.extend(entries.into_iter().map(|(k, v)| (k.to_owned(), v)));
        Value::Object(o)
    })
}

/// A whole number or a half, as servers write bounds.
fn bound() -> impl Strategy<Value = f64> {
    (-1000_i32..1000, any::<bool>())
        .prop_map(|(n, half)| f64::from(n) + if half { 0.5 } else { 0.0 })
}

/// Distinct choice values.
fn values() -> impl Strategy<Value = Vec<String>> {
    prop::collection::btree_set(text(6), 1..6).prop_map(|s| s.into_iter().collect())
}

fn kind() -> impl Strategy<Value = FieldKind> {
    let format = prop::option::of(prop::sample::select(vec![
        StringFormat::Email,
        StringFormat::Uri,
        StringFormat::Date,
        StringFormat::DateTime,
    ]));
    let text_kind = (
        format,
        0_u64..4,
        0_u64..6,
        any::<bool>(),
        prop::option::of(text(8)),
        prop::option::of(text(8)),
    )
        .prop_map(|(format, min, extra, bounded, pattern, default)| {
            // With a format, no lengths: an answer within both can always be written.
            let (min_length, max_length) = match (format, bounded) {
                (Some(_), _) => (None, None),
                (None, true) => (Some(min), Some(min + extra)),
                (None, false) => (Some(min), None),
            };
            FieldKind::Text {
                min_length,
                max_length,
                format,
                pattern,
                default,
            }
        });
    let number_kind = (
        any::<bool>(),
        prop::option::of(bound()),
        prop::option::of(0.0_f64..100.0),
        prop::option::of(bound()),
    )
        .prop_map(|(integer, minimum, span, default)| {
            let whole = |n: f64| if integer { n.floor() } else { n };
            let minimum = minimum.map(whole);
            FieldKind::Number {
                integer,
                minimum,
                maximum: span.map(|s| whole(minimum.unwrap_or(0.0) + s)),
                default: default.map(whole),
            }
        });
    let boolean_kind =
        prop::option::of(any::<bool>()).prop_map(|default| FieldKind::Boolean { default });
    let single_kind = (
        values(),
        prop::sample::select(vec![
            EnumStyle::Untitled,
            EnumStyle::Titled,
            EnumStyle::Legacy,
        ]),
        any::<prop::sample::Index>(),
        any::<bool>(),
        text(6),
    )
        .prop_map(|(values, style, pick, has_default, title)| {
            let default = has_default.then(|| pick.get(&values).clone());
            FieldKind::SingleSelect {
                options: choices(values, style != EnumStyle::Untitled, &title),
                style,
                default,
            }
        });
    let multi_kind = (
        values(),
        any::<bool>(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        any::<bool>(),
        text(6),
    )
        .prop_map(|(values, titled, a, b, has_default, title)| {
            let (lo, hi) = {
                let (a, b) = (a.index(values.len() + 1), b.index(values.len() + 1));
                (a.min(b) as u64, a.max(b) as u64)
            };
            let default = has_default.then(|| values[..lo as usize].to_vec());
            FieldKind::MultiSelect {
                options: choices(values, titled, &title),
                style: if titled {
                    MultiStyle::Titled
                } else {
                    MultiStyle::Untitled
                },
                min_items: Some(lo),
                max_items: Some(hi),
                default,
            }
        });
    prop_oneof![
        text_kind,
        number_kind,
        boolean_kind,
        single_kind,
        multi_kind
    ]
}

fn choices(values: Vec<String>, titled: bool, title: &str) -> Vec<Choice> {
    values
        .into_iter()
        .map(|value| Choice {
            title: titled.then(|| format!("{title}{value}")),
            value,
        })
        .collect()
}

/// A form of the subset, as the model holds it.
fn form() -> impl Strategy<Value = FormSchema> {
    let field = (
        text(10),
        prop::option::of(text(12)),
        prop::option::of(text(24)),
        any::<bool>(),
        kind(),
    )
        .prop_map(|(name, title, description, required, kind)| Field {
            name,
            title,
            description,
            required,
            kind,
        });
    (
        prop::collection::vec(field, 0..8),
        prop::option::of(text(12)),
    )
        .prop_map(|(fields, dialect)| {
            // Property names are unique: keep the first of each.
            let mut seen = std::collections::HashSet::new();
            let fields = fields
                .into_iter()
                .filter(|f| seen.insert(f.name.clone()))
                .collect();
            FormSchema { fields, dialect }
        })
}

/// A value within `field`'s constraints.
fn valid_value(field: &Field, pick: usize) -> Value {
    match &field.kind {
        FieldKind::Text {
            min_length, format, ..
        } => match format {
            Some(StringFormat::Email) => json!("ada@example.com"),
            Some(StringFormat::Uri) => json!("https://example.com/x"),
            Some(StringFormat::Date) => json!("2026-07-28"),
            Some(StringFormat::DateTime) => json!("2026-07-28T09:30:00Z"),
            None => json!("é".repeat(min_length.unwrap_or(0) as usize)),
        },
        FieldKind::Number {
            minimum, maximum, ..
        } => {
            let n = minimum.or(*maximum).unwrap_or(0.0);
            if n.fract() == 0.0 {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        FieldKind::Boolean { .. } => json!(pick.is_multiple_of(2)),
        FieldKind::SingleSelect { options, .. } => json!(options[pick % options.len()].value),
        FieldKind::MultiSelect {
            options, min_items, ..
        } => {
            let n = min_items.unwrap_or(0) as usize;
            json!(options[..n].iter().map(|c| &c.value).collect::<Vec<_>>())
        }
    }
}

/// The form as a person sees it: a titled choice without a title is re-emitted with its value
/// as its title (the spec's titled shapes require one), which shows the same.
fn shown(mut form: FormSchema) -> FormSchema {
    for field in &mut form.fields {
        let options = match &mut field.kind {
            FieldKind::SingleSelect {
                options,
                style: EnumStyle::Titled | EnumStyle::Legacy,
                ..
            }
            | FieldKind::MultiSelect {
                options,
                style: MultiStyle::Titled,
                ..
            } => options,
            _ => continue,
        };
        for c in options {
            c.title = Some(c.label().to_owned());
        }
    }
    form
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Any JSON: no panic; an accepted schema re-emits to the same form.
    #[test]
    fn parse_takes_any_json_and_what_it_accepts_round_trips(wire in any_json()) {
        if let Ok(parsed) = FormSchema::parse(&wire) {
            let again = FormSchema::parse(&parsed.schema.to_json())
                .unwrap_or_else(|e| panic!("re-emitted schema refused: {e}"));
            prop_assert_eq!(shown(again.schema), shown(parsed.schema));
        }
    }

    /// The same with an object of properties at the top, so the property rules are reached.
    #[test]
    fn parse_takes_any_properties(props in prop::collection::vec((text(6), prop_oneof![
                                      4 => property_json(), 1 => any_json()]), 0..3),
                                  required in prop::collection::vec(text(6), 0..3)) {
        let wire = json!({
            "type": "object",
            "properties": props.into_iter().collect::<Map<_, _>>(),
            "required": required,
        });
        if let Ok(parsed) = FormSchema::parse(&wire) {
            let again = FormSchema::parse(&parsed.schema.to_json()).unwrap();
            prop_assert_eq!(shown(again.schema), shown(parsed.schema));
        }
    }

    /// Every form of the subset goes to the wire and back unchanged.
    #[test]
    fn every_form_round_trips_through_the_wire(form in form()) {
        let parsed = FormSchema::parse(&form.to_json())
            .unwrap_or_else(|e| panic!("{e}\n{:#}", form.to_json()));
        prop_assert_eq!(&parsed.schema, &form);
    }

    /// `validate` and `apply_defaults` handle any content; defaults fill exactly the missing
    /// properties and change nothing else.
    #[test]
    fn validate_and_defaults_take_any_content(
        form in form(),
        content in prop::collection::vec((text(6), any_json()), 0..6),
        known in prop::collection::vec((any::<prop::sample::Index>(), any_json()), 0..4),
    ) {
        let mut content: Content = content.into_iter().collect();
        if !form.fields.is_empty() {
            for (i, v) in known {
                content.insert(i.get(&form.fields).name.clone(), v);
            }
        }
        let _ = form.validate(&content);
        let before = content.clone();
        form.apply_defaults(&mut content);
        for (k, v) in &before {
            prop_assert_eq!(content.get(k), Some(v));
        }
        for f in &form.fields {
            if !before.contains_key(&f.name) {
                prop_assert_eq!(content.get(&f.name).cloned(), f.default_value());
            }
        }
        let _ = form.validate(&content);
    }

    /// An answer within every constraint is valid, on the form and on the form after a trip
    /// through the wire (the host's copy and the server's).
    #[test]
    fn an_answer_within_the_constraints_is_valid(form in form(), pick in any::<usize>()) {
        let answer: Content = form
            .fields
            .iter()
            .map(|f| (f.name.clone(), valid_value(f, pick)))
            .collect();
        prop_assert_eq!(form.validate(&answer), Ok(()));
        let wire = FormSchema::parse(&form.to_json()).unwrap().schema;
        prop_assert_eq!(wire.validate(&answer), Ok(()));
    }
}
