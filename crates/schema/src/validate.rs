//! Validation of an answer's content against the form: every constraint of the subset, one
//! message per offending field, written as a sentence that names the field by its label
//! ("Enter your email address.", "Age must be at least 18."), so that every surface shows it as
//! it is.
//!
//! The same rules run in three places (the server toolkit after an accept, the host engine before
//! an answer leaves, and the surfaces for inline messages), so that a value one side accepts the
//! other never refuses.

use std::collections::HashSet;

use serde_json::Value;

use crate::formats;
use crate::model::{Content, Field, FieldKind, FormSchema};
use crate::present::{format_number as fmt_num, in_sentence, sentence_start};

/// A field whose value breaks a constraint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// The property name.
    pub field: String,
    /// What is wrong, as a sentence a person can act on that names the field by its label
    /// ("Enter your email address.", "Age must be at least 18."): surfaces show it as it is.
    pub message: String,
}

fn fe(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// The message for a required field left empty: what to do, naming the field.
fn required(field: &Field) -> String {
    let label = field.label();
    match field.kind {
        FieldKind::Text { .. } | FieldKind::Number { .. } => {
            format!("Enter {}.", in_sentence(&label))
        }
        FieldKind::SingleSelect { .. } | FieldKind::MultiSelect { .. } => {
            format!("Choose {}.", in_sentence(&label))
        }
        FieldKind::Boolean { .. } => format!("{} needs a yes or a no.", sentence_start(&label)),
    }
}

/// Up to this many fields, a property of the answer is looked for among them one by one (at
/// most this many comparisons each, so checking stays linear in the answer).
const SCANNED_FIELDS: usize = 8;

/// The message for a property the form does not have.
fn unknown(name: &str) -> String {
    format!("\u{201c}{name}\u{201d} is not part of the requested form.")
}

impl FormSchema {
    /// Checks `content` against every field: required properties present, values of the right
    /// type and within their bounds, formats, enum membership, item counts, and no property the
    /// schema does not define. Returns every problem found, in field order.
    ///
    /// Takes time linear in the schema and the content: property names and choices are looked
    /// up in hash sets (a form of up to eight fields is scanned instead), never compared
    /// pairwise.
    pub fn validate(&self, content: &Content) -> Result<(), Vec<FieldError>> {
        let mut errors = Vec::new();
        for field in &self.fields {
            match content.get(&field.name) {
                None | Some(Value::Null) => {
                    if field.required {
                        errors.push(fe(&field.name, required(field)));
                    }
                }
                Some(v) => {
                    if let Err(e) = validate_value(field, v) {
                        errors.push(e);
                    }
                }
            }
        }
        // Properties the form does not have: a small form's fields are scanned (no set to
        // build for the usual answer), a larger one's are looked up in a set.
        let names: Option<HashSet<&str>> = (self.fields.len() > SCANNED_FIELDS)
            .then(|| self.fields.iter().map(|f| f.name.as_str()).collect());
        for key in content.keys() {
            let known = match &names {
                Some(names) => names.contains(key.as_str()),
                None => self.fields.iter().any(|f| f.name == *key),
            };
            if !known {
                errors.push(fe(key, unknown(key)));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Checks one field's value; `Ok` when `name` is not a field of this form is not offered:
    /// an unknown name is an error.
    pub fn validate_field(&self, name: &str, value: &Value) -> Result<(), FieldError> {
        match self.field(name) {
            Some(field) => validate_value(field, value),
            None => Err(fe(name, unknown(name))),
        }
    }

    /// The message for `name` left empty when it is required: what [`FormSchema::validate`]
    /// says then ("Enter your email address."). `None` for a name the form does not have.
    pub fn required_message(&self, name: &str) -> Option<String> {
        self.field(name).map(required)
    }
}

fn validate_value(field: &Field, v: &Value) -> Result<(), FieldError> {
    let name = field.name.as_str();
    // The label is only made (humanized, capitalized) for an error: a valid answer costs nothing.
    let label = || sentence_start(&field.label());
    let err = |message: String| fe(name, message);
    match &field.kind {
        FieldKind::Text {
            min_length,
            max_length,
            format,
            ..
        } => {
            let s = v
                .as_str()
                .ok_or_else(|| err(format!("{label} must be text.", label = label())))?;
            let len = s.chars().count() as u64;
            if let Some(min) = min_length
                && len < *min
            {
                return Err(err(if *min == 1 {
                    format!("{label} must not be empty.", label = label())
                } else {
                    format!(
                        "{label} must be at least {min} characters long.",
                        label = label()
                    )
                }));
            }
            if let Some(max) = max_length
                && len > *max
            {
                return Err(err(format!(
                    "{label} must be at most {max} characters long.",
                    label = label()
                )));
            }
            if let Some(f) = format
                && !formats::matches(*f, s)
            {
                return Err(err(format!(
                    "{label} must be {}.",
                    f.expectation(),
                    label = label()
                )));
            }
            Ok(())
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => {
            let what = if *integer {
                "a whole number"
            } else {
                "a number"
            };
            let n = v
                .as_f64()
                .ok_or_else(|| err(format!("{label} must be {what}.", label = label())))?;
            if *integer && (n.fract() != 0.0 || !(v.is_i64() || v.is_u64() || n.is_finite())) {
                return Err(err(format!(
                    "{label} must be a whole number.",
                    label = label()
                )));
            }
            match (minimum, maximum) {
                (Some(lo), Some(hi)) if n < *lo || n > *hi => Err(err(format!(
                    "{label} must be between {} and {}.",
                    fmt_num(*lo),
                    fmt_num(*hi),
                    label = label()
                ))),
                (Some(lo), _) if n < *lo => Err(err(format!(
                    "{label} must be at least {}.",
                    fmt_num(*lo),
                    label = label()
                ))),
                (_, Some(hi)) if n > *hi => Err(err(format!(
                    "{label} must be at most {}.",
                    fmt_num(*hi),
                    label = label()
                ))),
                _ => Ok(()),
            }
        }
        FieldKind::Boolean { .. } => {
            if v.is_boolean() {
                Ok(())
            } else {
                Err(err(format!("{label} must be yes or no.", label = label())))
            }
        }
        FieldKind::SingleSelect { options, .. } => {
            let one_of = || {
                err(format!(
                    "{label} must be one of the choices.",
                    label = label()
                ))
            };
            let s = v.as_str().ok_or_else(one_of)?;
            if options.iter().any(|c| c.value == s) {
                Ok(())
            } else {
                Err(one_of())
            }
        }
        FieldKind::MultiSelect {
            options,
            min_items,
            max_items,
            ..
        } => {
            let list = || {
                err(format!(
                    "{label} must be a list of choices.",
                    label = label()
                ))
            };
            let arr = v.as_array().ok_or_else(list)?;
            let values: HashSet<&str> = options.iter().map(|c| c.value.as_str()).collect();
            let mut seen = HashSet::with_capacity(arr.len().min(options.len()));
            for item in arr {
                let Some(s) = item.as_str() else {
                    return Err(list());
                };
                if !values.contains(s) {
                    return Err(err(format!(
                        "{label} has \u{201c}{s}\u{201d}, which is not one of the choices.",
                        label = label()
                    )));
                }
                if !seen.insert(s) {
                    return Err(err(format!(
                        "{label} has \u{201c}{s}\u{201d} twice.",
                        label = label()
                    )));
                }
            }
            let n = arr.len() as u64;
            if let Some(min) = min_items
                && n < *min
            {
                return Err(err(if *min == 1 {
                    format!("Choose at least one for {}.", in_sentence(&field.label()))
                } else {
                    format!("Choose at least {min} for {}.", in_sentence(&field.label()))
                }));
            }
            if let Some(max) = max_items
                && n > *max
            {
                return Err(err(format!(
                    "Choose at most {max} for {}.",
                    in_sentence(&field.label())
                )));
            }
            Ok(())
        }
    }
}
