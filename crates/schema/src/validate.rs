//! Validation of an answer's content against the form: every constraint of the subset, one
//! message per offending field.
//!
//! The same rules run in three places (the server toolkit after an accept, the host engine before
//! an answer leaves, and the surfaces for inline messages), so that a value one side accepts the
//! other never refuses.

use serde_json::Value;

use crate::formats;
use crate::model::{Content, Field, FieldKind, FormSchema};

/// A field whose value breaks a constraint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// The property name.
    pub field: String,
    /// What is wrong, in words a person can act on.
    pub message: String,
}

fn fe(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.to_owned(),
        message: message.into(),
    }
}

use crate::present::format_number as fmt_num;

impl FormSchema {
    /// Checks `content` against every field: required properties present, values of the right
    /// type and within their bounds, formats, enum membership, item counts, and no property the
    /// schema does not define. Returns every problem found, in field order.
    pub fn validate(&self, content: &Content) -> Result<(), Vec<FieldError>> {
        let mut errors = Vec::new();
        for field in &self.fields {
            match content.get(&field.name) {
                None | Some(Value::Null) => {
                    if field.required {
                        errors.push(fe(&field.name, "is required"));
                    }
                }
                Some(v) => {
                    if let Err(e) = validate_value(field, v) {
                        errors.push(e);
                    }
                }
            }
        }
        for key in content.keys() {
            if self.field(key).is_none() {
                errors.push(fe(key, "is not part of the requested form"));
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
            None => Err(fe(name, "is not part of the requested form")),
        }
    }
}

fn validate_value(field: &Field, v: &Value) -> Result<(), FieldError> {
    let name = field.name.as_str();
    match &field.kind {
        FieldKind::Text {
            min_length,
            max_length,
            format,
            ..
        } => {
            let s = v.as_str().ok_or_else(|| fe(name, "must be text"))?;
            let len = s.chars().count() as u64;
            if let Some(min) = min_length
                && len < *min
            {
                return Err(fe(
                    name,
                    if *min == 1 {
                        "must not be empty".to_owned()
                    } else {
                        format!("must be at least {min} characters long")
                    },
                ));
            }
            if let Some(max) = max_length
                && len > *max
            {
                return Err(fe(name, format!("must be at most {max} characters long")));
            }
            if let Some(f) = format
                && let Some(msg) = formats::check(*f, s)
            {
                return Err(fe(name, msg));
            }
            Ok(())
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => {
            let n = v.as_f64().ok_or_else(|| {
                fe(
                    name,
                    if *integer {
                        "must be a whole number"
                    } else {
                        "must be a number"
                    },
                )
            })?;
            if *integer && (n.fract() != 0.0 || !(v.is_i64() || v.is_u64() || n.is_finite())) {
                return Err(fe(name, "must be a whole number"));
            }
            match (minimum, maximum) {
                (Some(lo), Some(hi)) if n < *lo || n > *hi => Err(fe(
                    name,
                    format!("must be between {} and {}", fmt_num(*lo), fmt_num(*hi)),
                )),
                (Some(lo), _) if n < *lo => {
                    Err(fe(name, format!("must be at least {}", fmt_num(*lo))))
                }
                (_, Some(hi)) if n > *hi => {
                    Err(fe(name, format!("must be at most {}", fmt_num(*hi))))
                }
                _ => Ok(()),
            }
        }
        FieldKind::Boolean { .. } => {
            if v.is_boolean() {
                Ok(())
            } else {
                Err(fe(name, "must be true or false"))
            }
        }
        FieldKind::SingleSelect { options, .. } => {
            let s = v
                .as_str()
                .ok_or_else(|| fe(name, "must be one of the choices"))?;
            if options.iter().any(|c| c.value == s) {
                Ok(())
            } else {
                Err(fe(name, "must be one of the choices"))
            }
        }
        FieldKind::MultiSelect {
            options,
            min_items,
            max_items,
            ..
        } => {
            let arr = v
                .as_array()
                .ok_or_else(|| fe(name, "must be a list of choices"))?;
            for (i, item) in arr.iter().enumerate() {
                let Some(s) = item.as_str() else {
                    return Err(fe(name, "must be a list of choices"));
                };
                if !options.iter().any(|c| c.value == s) {
                    return Err(fe(name, format!("\"{s}\" is not one of the choices")));
                }
                if arr.iter().take(i).any(|p| p.as_str() == Some(s)) {
                    return Err(fe(name, format!("\"{s}\" is chosen twice")));
                }
            }
            let n = arr.len() as u64;
            if let Some(min) = min_items
                && n < *min
            {
                return Err(fe(
                    name,
                    if *min == 1 {
                        "choose at least one".to_owned()
                    } else {
                        format!("choose at least {min}")
                    },
                ));
            }
            if let Some(max) = max_items
                && n > *max
            {
                return Err(fe(name, format!("choose at most {max}")));
            }
            Ok(())
        }
    }
}
