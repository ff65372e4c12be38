//! `interlude_schema`: parse an arbitrary `requestedSchema`, then validate, default and present
//! arbitrary answers against what was accepted.
//!
//! Beyond "no panic", what must hold for every schema the parser accepts: its wire form
//! ([`FormSchema::to_json`]) parses again, into a form with the same wire form.
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
    // The wire form is a fixed point: a choice without a title is written with its value as
    // the title, so the forms may differ there, but never what goes on the wire.
    assert_eq!(
        again.schema.to_json(),
        wire,
        "the wire form does not parse back into itself: {wire}"
    );
    assert_eq!(again.schema.fields.len(), schema.fields.len());

    for field in &schema.fields {
        if let Some(default) = field.default_value() {
            // Only a default of the wrong type is refused (the parser's contract): one outside
            // its field's bounds is kept, and the person sees it refused on submit.
            let _ = schema.validate_field(&field.name, &default);
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
    let _ = schema.validate(&prefill);

    for answer in case.answers {
        let mut content = answer.0;
        let _ = schema.validate(&content);
        schema.apply_defaults(&mut content);
        let _ = schema.validate(&content);
    }
}
