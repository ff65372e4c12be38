//! The restricted JSON-Schema subset that MCP form elicitation allows, as a surface-neutral form
//! model.
//!
//! What this crate does:
//! - **parse** a `requestedSchema` leniently ([`FormSchema::parse`]): every variant of the
//!   2025-06-18, 2025-11-25 and 2026-07-28 revisions (string with length and format, number and
//!   integer with bounds, boolean, untitled enum, titled `oneOf`, legacy `enum`+`enumNames`,
//!   multi-select with `items.enum`, `items.anyOf` or the `items.oneOf` alias), `default` on every
//!   type, property order kept; `$schema`, `pattern` and unknown keywords are tolerated and
//!   reported as [`Diagnostic`]s; unsupported shapes are refused with a [`SchemaError`] that names
//!   the property; every size a schema can carry is capped ([`limits`]: 1 000 choices per
//!   field, 256 properties, a few thousand characters per text…), so parsing, validating and
//!   presenting take time linear in a bounded input, and a schema over a cap is refused naming
//!   the property and the cap;
//! - **validate** an answer against every constraint with one message per field, a sentence
//!   that names the field by its label ([`FormSchema::validate`]);
//! - **defaults**: prefill ([`FormSchema::prefill`]) and apply on accept
//!   ([`FormSchema::apply_defaults`]);
//! - **present** a field the same way on every surface: [`Field::label`], [`Field::hint`] and
//!   [`Field::help`] (sentences, each said once), [`Field::display_value`];
//! - **derive** a schema from a Rust type ([`Elicit`], on `schemars::JsonSchema`): field order
//!   kept, plain Rust enums without extra attributes, `Option<T>` not required, doc comments as
//!   descriptions, `#[serde(rename)]` honoured, unsupported field types refused at first use with
//!   the field named.
//!
//! What it deliberately does not do: any I/O, anything async, any knowledge of JSON-RPC or of a
//! protocol era. The wire envelope lives in `interlude-protocol`.
//!
//! # Example
//! ```
//! use interlude_schema::{FormSchema, Content};
//! use serde_json::json;
//!
//! let schema = FormSchema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "name": {"type": "string", "minLength": 1},
//!         "age": {"type": "integer", "minimum": 18, "default": 30}
//!     },
//!     "required": ["name"]
//! }))?.schema;
//!
//! let mut answer: Content = serde_json::from_value(json!({"name": "Ada"}))?;
//! schema.apply_defaults(&mut answer);
//! assert_eq!(answer["age"], json!(30));
//! assert!(schema.validate(&answer).is_ok());
//!
//! let bad: Content = serde_json::from_value(json!({"name": "Ada", "age": 12}))?;
//! let errors = schema.validate(&bad).unwrap_err();
//! assert_eq!(errors[0].field, "age");
//! assert_eq!(errors[0].message, "Age must be at least 18.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod derive;
mod formats;
pub mod limits;
mod model;
mod parse;
mod present;
mod validate;

pub use derive::{Elicit, schema_for};
pub use model::{
    Choice, Content, Diagnostic, EnumStyle, Field, FieldKind, FormSchema, MultiStyle, Parsed,
    StringFormat,
};
pub use parse::{SchemaError, SchemaErrorKind, same_in_order};
pub use present::{format_number, humanize, in_sentence, sentence_start};
pub use validate::FieldError;
