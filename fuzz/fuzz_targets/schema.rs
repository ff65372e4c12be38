//! `interlude_schema`: parse an arbitrary `requestedSchema`, then validate, default and present
//! arbitrary answers against what was accepted.
//!
//! Beyond "no panic", what must hold for every schema the parser accepts:
//! - its wire form ([`FormSchema::to_json`]) parses again into the same form;
//! - every default it kept passes its own field's validation;
//! - an answer made of the defaults alone (`prefill`) raises no error for a field that has one.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use interlude_fuzz::{Content, Json, Schema, as_json, list};
use interlude_schema::FormSchema;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Case {
    schema: Schema,
    answers: Vec<Content>,
    values: Vec<Json>,
}

/// A seed: `{"schema": …, "answers": [{…}], "values": […]}`, or a schema alone.
fn from_json(v: serde_json::Value) -> Case {
    let Some(schema) = v.get("schema").cloned() else {
        return Case {
            schema: Schema(v),
            answers: Vec::new(),
            values: Vec::new(),
        };
    };
    Case {
        schema: Schema(schema),
        answers: list(&v, "answers")
            .into_iter()
            .filter_map(|a| a.as_object().cloned().map(Content))
            .collect(),
        values: list(&v, "values").into_iter().map(Json).collect(),
    }
}

fuzz_target!(|data: &[u8]| {
    let case = match as_json(data) {
        Some(v) => from_json(v),
        None => match Case::arbitrary_take_rest(Unstructured::new(data)) {
            Ok(case) => case,
            Err(_) => return,
        },
    };
    check(case);
});

fn check(case: Case) {
    let Ok(parsed) = FormSchema::parse(&case.schema.0) else {
        return;
    };
    let schema = parsed.schema;
    for d in &parsed.diagnostics {
        let _ = d.message.len();
    }

    let wire = schema.to_json();
    let again = FormSchema::parse(&wire)
        .unwrap_or_else(|e| panic!("the wire form of an accepted schema is refused: {e}\n{wire}"));
    assert_eq!(
        again.schema, schema,
        "the wire form parses into another form: {wire}"
    );

    for field in &schema.fields {
        if let Some(default) = field.default_value() {
            if let Err(e) = schema.validate_field(&field.name, &default) {
                panic!(
                    "the default of `{}` fails its own field: {} ({default})",
                    field.name, e.message
                );
            }
            let _ = field.display_value(&default);
        }
        let _ = (field.label(), field.hint(), field.help());
        let _ = schema.required_message(&field.name);
        for v in &case.values {
            let _ = schema.validate_field(&field.name, &v.0);
            let _ = field.display_value(&v.0);
        }
    }

    let prefill = schema.prefill();
    if let Err(errors) = schema.validate(&prefill) {
        for e in &errors {
            assert!(
                !prefill.contains_key(&e.field),
                "a default fails validation of the prefilled form: {} ({})",
                e.field,
                e.message
            );
        }
    }

    for answer in case.answers {
        let mut content = answer.0;
        let _ = schema.validate(&content);
        schema.apply_defaults(&mut content);
        let _ = schema.validate(&content);
    }
}
