//! `interlude_protocol::interaction`, the seed-000 draft's parser: `interaction/create` params
//! (`parse_create`) and the `data` of a `-32003` error (`parse_required`), from arbitrary JSON.
//!
//! What must hold for whatever parses: its own wire forms (`to_params`, the error's `data`)
//! parse back into the same interaction, and its elicitation form is an object.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use interlude_fuzz::{Json, as_json};
use interlude_protocol::interaction::{CreatedInteraction, parse_create, parse_required};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

#[derive(Debug, Arbitrary)]
enum Case {
    /// `interaction/create` params as they come.
    Create(Json),
    /// An `error.data`, or none.
    Required(Option<Json>),
    /// Params made of the parts the parser looks for, each arbitrary.
    Shaped {
        id: Option<Json>,
        kind: Option<Json>,
        interaction: Option<Json>,
        nested: bool,
    },
}

fn check(created: &CreatedInteraction) {
    let params = created.to_params();
    let back = parse_create(&params)
        .unwrap_or_else(|e| panic!("to_params of a parsed interaction is refused: {e}\n{params}"));
    assert_eq!(&back, created, "to_params does not parse back: {params}");
    let error = created.to_required_error();
    let back = parse_required(error.data.as_ref()).unwrap_or_else(|e| {
        panic!("the -32003 data of a parsed interaction is refused: {e}\n{error:?}")
    });
    assert_eq!(&back, created, "the -32003 data does not parse back");
    assert!(created.as_elicitation().is_object());
    let _ = created.kind().as_str();
}

fuzz_target!(|data: &[u8]| {
    // A seed is the params (or the error's data) as JSON: both parsers read it.
    if let Some(v) = as_json(data) {
        run(Case::Create(Json(v.clone())));
        run(Case::Required(Some(Json(v))));
        return;
    }
    if let Ok(case) = Case::arbitrary_take_rest(Unstructured::new(data)) {
        run(case);
    }
});

fn run(case: Case) {
    match case {
        Case::Create(v) => {
            if let Ok(c) = parse_create(&v.0) {
                check(&c);
            }
        }
        Case::Required(v) => {
            if let Ok(c) = parse_required(v.as_ref().map(|j| &j.0)) {
                check(&c);
            }
        }
        Case::Shaped {
            id,
            kind,
            interaction,
            nested,
        } => {
            let mut o = Map::new();
            if let Some(id) = id {
                o.insert("id".into(), id.0);
            }
            if let Some(kind) = kind {
                o.insert("type".into(), kind.0);
            }
            if let Some(i) = interaction {
                if nested {
                    o.insert("interaction".into(), i.0);
                } else if let Value::Object(fields) = i.0 {
                    o.extend(fields);
                }
            }
            let v = Value::Object(o);
            if let Ok(c) = parse_create(&v) {
                check(&c);
            }
            if let Ok(c) = parse_required(Some(&v)) {
                check(&c);
            }
        }
    }
}
