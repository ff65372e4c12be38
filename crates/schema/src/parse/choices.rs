//! The choice fields of a `requestedSchema`: single selects (`enum`, `oneOf` with `const` and
//! `title`, the legacy `enumNames`) and multi selects (`type: "array"` of such choices), with
//! their defaults and the limits on how many choices and how long each is.
//!
//! Not here: the other field kinds and the properties' common keywords (`parse.rs`), how a
//! choice is shown (`present.rs`).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::error::{PResult, SchemaErrorKind, err};
use super::{bad_default, check_len, opt_u64};
use crate::limits::{MAX_CHOICES, MAX_TITLE_CHARS, MAX_VALUE_CHARS};
use crate::model::{Choice, EnumStyle, FieldKind, MultiStyle};

/// Refuses a list of more than [`MAX_CHOICES`] choices, before anything in it is read.
fn check_choice_count(name: &str, count: usize) -> PResult<()> {
    if count > MAX_CHOICES {
        return Err(err(
            name,
            SchemaErrorKind::TooManyChoices {
                count,
                limit: MAX_CHOICES,
            },
        ));
    }
    Ok(())
}

fn choice_value(name: &str, value: &str) -> PResult<String> {
    check_len(Some(name), "a choice's value", value, MAX_VALUE_CHARS)?;
    Ok(value.to_owned())
}

fn choice_title(name: &str, title: &str) -> PResult<String> {
    check_len(Some(name), "a choice's title", title, MAX_TITLE_CHARS)?;
    Ok(title.to_owned())
}

/// Reads `[{"const": "v", "title": "T"}, …]`.
fn titled_choices(name: &str, list: &Value, keyword: &'static str) -> PResult<Vec<Choice>> {
    let arr = list.as_array().ok_or_else(|| {
        err(
            name,
            SchemaErrorKind::BadKeyword {
                keyword,
                expected: "an array of {const, title} objects",
            },
        )
    })?;
    check_choice_count(name, arr.len())?;
    arr.iter()
        .map(|item| {
            let value = item.get("const").and_then(Value::as_str).ok_or_else(|| {
                err(
                    name,
                    SchemaErrorKind::BadKeyword {
                        keyword,
                        expected: "an array of {const, title} objects with string consts",
                    },
                )
            })?;
            let title = item
                .get("title")
                .and_then(Value::as_str)
                .map(|t| choice_title(name, t))
                .transpose()?;
            Ok(Choice {
                value: choice_value(name, value)?,
                title,
            })
        })
        .collect()
}

/// Reads an array of strings, each checked by `each`.
fn string_list(
    name: &str,
    v: &Value,
    keyword: &'static str,
    each: fn(&str, &str) -> PResult<String>,
) -> PResult<Vec<String>> {
    let bad = || {
        err(
            name,
            SchemaErrorKind::BadKeyword {
                keyword,
                expected: "an array of strings",
            },
        )
    };
    let arr = v.as_array().ok_or_else(bad)?;
    check_choice_count(name, arr.len())?;
    arr.iter()
        .map(|s| s.as_str().ok_or_else(bad).and_then(|s| each(name, s)))
        .collect()
}

/// Refuses an empty list of choices, or one that lists a value twice (a hash set: linear).
fn check_choices(name: &str, options: &[Choice]) -> PResult<()> {
    if options.is_empty() {
        return Err(err(
            name,
            SchemaErrorKind::BadChoices {
                reason: "must not be empty",
            },
        ));
    }
    let mut seen = HashSet::with_capacity(options.len());
    if !options.iter().all(|c| seen.insert(c.value.as_str())) {
        return Err(err(
            name,
            SchemaErrorKind::BadChoices {
                reason: "must be unique",
            },
        ));
    }
    Ok(())
}

pub(super) fn parse_single_select(name: &str, o: &Map<String, Value>) -> PResult<FieldKind> {
    let (options, style) = if let Some(list) = o.get("oneOf").or_else(|| o.get("anyOf")) {
        (titled_choices(name, list, "oneOf")?, EnumStyle::Titled)
    } else if let Some(values) = o.get("enum") {
        let values = string_list(name, values, "enum", choice_value)?;
        match o.get("enumNames") {
            Some(names) => {
                let as_long = || {
                    err(
                        name,
                        SchemaErrorKind::BadKeyword {
                            keyword: "enumNames",
                            expected: "as long as `enum`",
                        },
                    )
                };
                if names.as_array().is_some_and(|n| n.len() != values.len()) {
                    return Err(as_long());
                }
                let names = string_list(name, names, "enumNames", choice_title)?;
                (
                    values
                        .into_iter()
                        .zip(names)
                        .map(|(value, title)| Choice {
                            value,
                            title: Some(title),
                        })
                        .collect(),
                    EnumStyle::Legacy,
                )
            }
            None => (
                values
                    .into_iter()
                    .map(|value| Choice { value, title: None })
                    .collect(),
                EnumStyle::Untitled,
            ),
        }
    } else {
        return Err(err(name, SchemaErrorKind::MissingType));
    };
    check_choices(name, &options)?;
    let default = match o.get("default") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if options.iter().any(|c| &c.value == s) => Some(s.clone()),
        Some(v) => return Err(bad_default(name, v, "expected one of the enum values")),
    };
    Ok(FieldKind::SingleSelect {
        options,
        style,
        default,
    })
}

pub(super) fn parse_multi_select(name: &str, o: &Map<String, Value>) -> PResult<FieldKind> {
    let items = o
        .get("items")
        .and_then(Value::as_object)
        .ok_or_else(|| err(name, SchemaErrorKind::ArrayOfNonEnum))?;
    let (options, style) = if let Some(list) = items.get("anyOf").or_else(|| items.get("oneOf")) {
        (
            titled_choices(name, list, "items.anyOf")?,
            MultiStyle::Titled,
        )
    } else if let Some(values) = items.get("enum") {
        if let Some(t) = items.get("type")
            && t != "string"
        {
            return Err(err(name, SchemaErrorKind::ArrayOfNonEnum));
        }
        (
            string_list(name, values, "items.enum", choice_value)?
                .into_iter()
                .map(|value| Choice { value, title: None })
                .collect(),
            MultiStyle::Untitled,
        )
    } else {
        return Err(err(name, SchemaErrorKind::ArrayOfNonEnum));
    };
    check_choices(name, &options)?;
    let min_items = opt_u64(name, o, "minItems")?;
    let max_items = opt_u64(name, o, "maxItems")?;
    let default = match o.get("default") {
        None | Some(Value::Null) => None,
        Some(v) => Some(multi_default(name, v, &options)?),
    };
    Ok(FieldKind::MultiSelect {
        options,
        style,
        min_items,
        max_items,
        default,
    })
}

/// A multi-select's `default`: distinct values, each one of the choices (hash sets: linear).
fn multi_default(name: &str, v: &Value, options: &[Choice]) -> PResult<Vec<String>> {
    let list = v
        .as_array()
        .ok_or_else(|| bad_default(name, v, "expected an array of enum values"))?;
    if list.len() > options.len() {
        return Err(bad_default(name, v, "expected distinct enum values"));
    }
    let values: HashSet<&str> = options.iter().map(|c| c.value.as_str()).collect();
    let mut seen = HashSet::with_capacity(list.len());
    let mut out = Vec::with_capacity(list.len());
    for item in list {
        match item.as_str() {
            Some(s) if values.contains(s) => {
                if !seen.insert(s) {
                    return Err(bad_default(name, v, "expected distinct enum values"));
                }
                out.push(s.to_owned());
            }
            _ => return Err(bad_default(name, v, "expected an array of enum values")),
        }
    }
    Ok(out)
}
