//! Filling a [`FormSchema`] with terminal prompts: one prompt per field, validated with the same
//! rules the engine applies ([`FormSchema::validate_field`]), then a review of what would be sent.
//!
//! Used for elicitations (see `request.rs`) and for tool arguments whose input schema fits the
//! elicitation subset. It knows nothing of servers, queues or replies; it only turns a schema and
//! the current values into new values, or reports that the person pressed Esc / Ctrl-C.
//!
//! Widgets: text (formats and lengths as hints, checked on Enter), numbers as `CustomType` with
//! their bounds shown, booleans as `Confirm`, single choices as `Select` showing titles, several
//! choices as `MultiSelect` honouring `minItems` / `maxItems`. An optional field can always be
//! left empty, which omits it (the engine then applies its default, if any).

use std::fmt;
use std::sync::Arc;

use inquire::error::CustomUserError;
use inquire::list_option::ListOption;
use inquire::validator::Validation;
use inquire::{Confirm, InquireError, MultiSelect, Select};
use interlude_host::{
    Notice,
    schema::{Content, Field, FieldError, FieldKind, FormSchema, format_number, sentence_start},
};
use serde_json::{Number, Value};

use crate::line::LinePrompt;
use crate::render::{Screen, Style, plain_line, styled};

/// Why filling a form stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The person pressed Esc or Ctrl-C.
    Escaped,
    /// The request went away while it was being answered.
    Closed(Notice),
    /// The terminal failed (not a TTY, I/O error).
    Terminal(InquireError),
}

impl From<InquireError> for Stop {
    fn from(e: InquireError) -> Self {
        match e {
            InquireError::OperationCanceled | InquireError::OperationInterrupted => Stop::Escaped,
            other => Stop::Terminal(other),
        }
    }
}

/// Checks between prompts whether the request being answered went away.
pub(crate) type Watch<'w> = &'w mut dyn FnMut() -> Option<Notice>;

/// Prompts for the fields at `which` (indices into the schema's fields), in order, starting from
/// `values` and writing the answers back into it. `errors` are shown with their fields.
pub(crate) fn fill(
    schema: &Arc<FormSchema>,
    values: &mut Content,
    which: &[usize],
    errors: &[FieldError],
    watch: Watch<'_>,
) -> Result<(), Stop> {
    for &index in which {
        if let Some(notice) = watch() {
            return Err(Stop::Closed(notice));
        }
        let Some(field) = schema.fields.get(index) else {
            continue;
        };
        let error = errors
            .iter()
            .find(|e| e.field == field.name)
            .map(|e| e.message.as_str());
        match ask_field(schema, field, values.get(&field.name), error)? {
            Some(v) => {
                values.insert(field.name.clone(), v);
            }
            None => {
                values.remove(&field.name);
            }
        }
    }
    if let Some(notice) = watch() {
        return Err(Stop::Closed(notice));
    }
    Ok(())
}

/// Indices of every field.
pub(crate) fn all_fields(schema: &FormSchema) -> Vec<usize> {
    (0..schema.fields.len()).collect()
}

/// Indices of the fields named in `errors`.
pub(crate) fn fields_in_error(schema: &FormSchema, errors: &[FieldError]) -> Vec<usize> {
    schema
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| errors.iter().any(|e| e.field == f.name))
        .map(|(i, _)| i)
        .collect()
}

/// The content that would be sent: `values` with the schema's defaults applied, and whether each
/// shown value came from a default.
pub(crate) fn review_lines(schema: &FormSchema, values: &Content) -> Vec<String> {
    let width = schema
        .fields
        .iter()
        .map(|f| plain_line(&f.label()).chars().count())
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for field in &schema.fields {
        let label = plain_line(&field.label());
        let pad = " ".repeat(width.saturating_sub(label.chars().count()));
        let shown = match (values.get(&field.name), field.default_value()) {
            (Some(v), _) => format!("{}{}", display_value(field, v), sent_as(field, v)),
            (None, Some(d)) => format!(
                "{}{} {}",
                display_value(field, &d),
                sent_as(field, &d),
                styled(Style::Dim, "(default)")
            ),
            (None, None) => styled(Style::Dim, "(left empty, not sent)"),
        };
        lines.push(format!("    {label}{pad}  {shown}"));
    }
    lines
}

/// For a choice shown by its title: the value that goes to the server, dimmed (`= "student"`).
fn sent_as(field: &Field, v: &Value) -> String {
    let choice = matches!(
        field.kind,
        FieldKind::SingleSelect { .. } | FieldKind::MultiSelect { .. }
    );
    let raw = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if !choice || field.display_value(v) == raw {
        return String::new();
    }
    format!(
        " {}",
        styled(Style::Dim, &format!("= {}", plain_line(&v.to_string())))
    )
}

/// Writes field errors as a list (each message names its field).
pub(crate) fn show_errors(screen: &Screen, errors: &[FieldError]) {
    for e in errors {
        screen.line(format!(
            "    {} {}",
            styled(Style::Error, "•"),
            plain_line(&e.message)
        ));
    }
}

/// A value as the person should read it (the schema's own wording, made safe for a terminal).
pub(crate) fn display_value(field: &Field, v: &Value) -> String {
    match v {
        Value::Array(items) if items.is_empty() => styled(Style::Dim, "(none)"),
        _ => plain_line(&field.display_value(v)),
    }
}

/// The prompt label: the field's label and a required marker.
fn label(field: &Field) -> String {
    let label = plain_line(&field.label());
    if field.required {
        format!("{label} *")
    } else {
        label
    }
}

/// A date-time as a person types it in local time — `2026-09-15 10:30` (seconds optional, a
/// space or `T` between) — as RFC 3339 with this machine's offset for that moment; `None` for
/// anything else (RFC 3339 as typed, or something the schema's check will refuse), and for a
/// local time that does not exist or is ambiguous (a clock change).
pub(crate) fn local_date_time(input: &str) -> Option<String> {
    use chrono::{Local, NaiveDateTime, SecondsFormat, TimeZone};
    let s = input.trim();
    let naive = [
        "%Y-%m-%d %H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%dT%H:%M:%S",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())?;
    let local = Local.from_local_datetime(&naive).single()?;
    Some(local.to_rfc3339_opts(SecondsFormat::Secs, false))
}

/// The help line: the engine's complaint first, then the field's help (its description and
/// hint, as the web page shows them), then how to answer here.
fn help(field: &Field, hints: &[String], error: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(e) = error {
        parts.push(format!("✗ {}", plain_line(e)));
    }
    if let Some(h) = field.help() {
        parts.push(plain_line(&h));
    }
    parts.extend(hints.iter().cloned());
    parts.join(" · ")
}

const OPTIONAL_HINT: &str = "Optional: leave it empty to omit it.";

/// The same, for a field that starts with a value.
const OPTIONAL_FILLED_HINT: &str = "Optional: Ctrl-U empties it, to omit it.";

/// The optional-field hint for a field that starts with `value`.
fn optional_hint(value: &str) -> String {
    if value.is_empty() {
        OPTIONAL_HINT
    } else {
        OPTIONAL_FILLED_HINT
    }
    .to_owned()
}

/// The message for a required field left empty, as the engine words it.
fn required_message(schema: &FormSchema, name: &str) -> String {
    schema
        .required_message(name)
        .unwrap_or_else(|| "Enter a value.".to_owned())
}

/// Checks one value with the engine's rules, for a text prompt; the message is the engine's.
fn checked(schema: &FormSchema, name: &str, value: &Value) -> Result<(), String> {
    schema.validate_field(name, value).map_err(|e| e.message)
}

/// Checks one value with the engine's rules, for an inquire prompt; the message is the engine's.
fn check(schema: &FormSchema, name: &str, value: &Value) -> Validation {
    match schema.validate_field(name, value) {
        Ok(()) => Validation::Valid,
        Err(e) => Validation::Invalid(e.message.into()),
    }
}

/// Asks for one field. `Ok(None)` = left empty (omitted).
fn ask_field(
    schema: &Arc<FormSchema>,
    field: &Field,
    current: Option<&Value>,
    error: Option<&str>,
) -> Result<Option<Value>, InquireError> {
    let message = label(field);
    match &field.kind {
        FieldKind::Text { format, .. } => {
            let date_time = *format == Some(interlude_host::schema::StringFormat::DateTime);
            let mut hints: Vec<String> = Vec::new();
            if date_time {
                hints.push("Local time works too, such as 2026-09-15 10:30.".to_owned());
            }
            let initial = current.and_then(Value::as_str).unwrap_or_default();
            if !field.required {
                hints.push(optional_hint(initial));
            }
            let help = help(field, &hints, error);
            let required = field
                .required
                .then(|| required_message(schema, &field.name));
            let check = |input: &str| -> Result<(), String> {
                if input.is_empty() {
                    return match &required {
                        Some(message) => Err(message.clone()),
                        None => Ok(()),
                    };
                }
                let sent = if date_time {
                    local_date_time(input).unwrap_or_else(|| input.to_owned())
                } else {
                    input.to_owned()
                };
                checked(schema, &field.name, &Value::String(sent))
            };
            let answer = LinePrompt::new(&message)
                .with_initial_value(initial)
                .with_help_message(&help)
                .with_check(check)
                .prompt()?;
            let answer = if date_time {
                local_date_time(&answer).unwrap_or(answer)
            } else {
                answer
            };
            Ok((!answer.is_empty()).then_some(Value::String(answer)))
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => {
            let starting = current.map(Value::to_string).unwrap_or_default();
            let mut hints: Vec<String> = Vec::new();
            if !field.required {
                hints.push(optional_hint(&starting));
            }
            let help = help(field, &hints, error);
            let placeholder = match (minimum, maximum) {
                (Some(lo), Some(hi)) => format!("{}–{}", format_number(*lo), format_number(*hi)),
                (Some(lo), None) => format!("≥ {}", format_number(*lo)),
                (None, Some(hi)) => format!("≤ {}", format_number(*hi)),
                (None, None) => String::new(),
            };
            let integer = *integer;
            let required = field
                .required
                .then(|| required_message(schema, &field.name));
            let not_a_number = format!(
                "{} must be {}.",
                sentence_start(&field.label()),
                if integer {
                    "a whole number"
                } else {
                    "a number"
                }
            );
            let check = |input: &str| -> Result<(), String> {
                match NumAnswer::parse(input, integer) {
                    Err(()) => Err(not_a_number.clone()),
                    Ok(NumAnswer(None)) => match &required {
                        Some(message) => Err(message.clone()),
                        None => Ok(()),
                    },
                    Ok(NumAnswer(Some(num))) => checked(schema, &field.name, &Value::Number(num)),
                }
            };
            let answer = LinePrompt::new(&message)
                .with_initial_value(&starting)
                .with_help_message(&help)
                .with_placeholder(&placeholder)
                .with_check(check)
                .with_shown_answer(|input| {
                    NumAnswer::parse(input, integer)
                        .map_or_else(|()| input.to_owned(), |n| n.to_string())
                })
                .prompt()?;
            Ok(NumAnswer::parse(&answer, integer)
                .ok()
                .and_then(|n| n.0)
                .map(Value::Number))
        }
        FieldKind::Boolean { .. } => {
            let current = current.and_then(Value::as_bool);
            if current.is_none() && !field.required {
                // Confirm cannot be left empty: an optional yes/no without a default takes
                // y, n or nothing.
                let hints = vec![format!("Type y or n. {OPTIONAL_HINT}")];
                let help = help(field, &hints, error);
                let answer = LinePrompt::new(&message)
                    .with_placeholder("y/n")
                    .with_help_message(&help)
                    .with_check(|input| {
                        TriBool::parse(input)
                            .map(|_| ())
                            .map_err(|()| "Type y or n, or leave it empty.".into())
                    })
                    .with_shown_answer(|input| {
                        TriBool::parse(input).map_or_else(|()| input.to_owned(), |b| b.to_string())
                    })
                    .prompt()?;
                let answer = TriBool::parse(&answer).unwrap_or(TriBool(None));
                return Ok(answer.0.map(Value::Bool));
            }
            let help = help(field, &[], error);
            let mut prompt = Confirm::new(&message).with_error_message("Type y or n.");
            if !help.is_empty() {
                prompt = prompt.with_help_message(&help);
            }
            if let Some(b) = current {
                prompt = prompt.with_default(b);
            }
            Ok(Some(Value::Bool(prompt.prompt()?)))
        }
        FieldKind::SingleSelect { options, .. } => {
            let mut items: Vec<Opt> = options
                .iter()
                .map(|c| Opt {
                    label: plain_line(c.label()),
                    value: Some(c.value.clone()),
                })
                .collect();
            if !field.required {
                items.push(Opt {
                    label: "(leave empty)".into(),
                    value: None,
                });
            }
            let current = current.and_then(Value::as_str);
            let cursor = match current {
                Some(v) => items
                    .iter()
                    .position(|o| o.value.as_deref() == Some(v))
                    .unwrap_or(0),
                // Nothing chosen yet: an optional field starts on "leave empty", so Enter
                // never answers something the person did not pick.
                None if !field.required => items.len().saturating_sub(1),
                None => 0,
            };
            let hints = vec!["↑↓ to move, Enter to choose, type to filter".to_owned()];
            let help = help(field, &hints, error);
            let chosen = Select::new(&message, items)
                .with_starting_cursor(cursor)
                .with_help_message(&help)
                .prompt()?;
            Ok(chosen.value.map(Value::String))
        }
        FieldKind::MultiSelect { options, .. } => {
            let items: Vec<Opt> = options
                .iter()
                .map(|c| Opt {
                    label: plain_line(c.label()),
                    value: Some(c.value.clone()),
                })
                .collect();
            let selected: Vec<usize> = current
                .and_then(Value::as_array)
                .map(|vals| {
                    items
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| {
                            vals.iter()
                                .any(|v| v.as_str().is_some() && v.as_str() == o.value.as_deref())
                        })
                        .map(|(i, _)| i)
                        .collect()
                })
                .unwrap_or_default();
            let mut hints: Vec<String> = field.hint().into_iter().collect();
            if !field.required {
                hints.push("Optional: choose none to omit it.".to_owned());
            }
            hints.push("Space to tick, Enter to confirm, → all, ← none".to_owned());
            let help = help(field, &hints, error);
            let validator = {
                let schema = Arc::clone(schema);
                let name = field.name.clone();
                let required = field.required;
                move |chosen: &[ListOption<&Opt>]| -> Result<Validation, CustomUserError> {
                    if chosen.is_empty() && !required {
                        return Ok(Validation::Valid);
                    }
                    Ok(check(
                        &schema,
                        &name,
                        &Opt::values(chosen.iter().map(|o| o.value)),
                    ))
                }
            };
            let chosen = MultiSelect::new(&message, items)
                .with_default(&selected)
                .with_help_message(&help)
                .with_validator(validator)
                .prompt()?;
            if chosen.is_empty() && !field.required {
                return Ok(None);
            }
            Ok(Some(Opt::values(chosen.iter())))
        }
    }
}

/// A choice as shown in a list.
#[derive(Debug, Clone)]
struct Opt {
    label: String,
    /// `None` for "leave empty".
    value: Option<String>,
}

impl Opt {
    fn values<'o>(chosen: impl Iterator<Item = &'o Opt>) -> Value {
        Value::Array(
            chosen
                .filter_map(|o| o.value.clone().map(Value::String))
                .collect(),
        )
    }
}

impl fmt::Display for Opt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// A number prompt's answer: `None` when left empty.
#[derive(Debug, Clone, PartialEq)]
struct NumAnswer(Option<Number>);

impl NumAnswer {
    /// Parses what was typed. Whole values of integer fields become JSON integers (so `1e3`
    /// reaches the server as `1000`, not `1000.0`); anything else goes to the engine's rules.
    fn parse(s: &str, integer: bool) -> Result<Self, ()> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(NumAnswer(None));
        }
        if let Ok(i) = s.parse::<i64>() {
            return Ok(NumAnswer(Some(i.into())));
        }
        if let Ok(u) = s.parse::<u64>() {
            return Ok(NumAnswer(Some(u.into())));
        }
        let f: f64 = s.parse().map_err(|_| ())?;
        if integer && f.fract() == 0.0 && f.abs() < 9.0e15 {
            // Exact below 2^53; the cast cannot truncate.
            #[allow(clippy::cast_possible_truncation)]
            return Ok(NumAnswer(Some((f as i64).into())));
        }
        Number::from_f64(f).map(|n| NumAnswer(Some(n))).ok_or(())
    }
}

impl std::str::FromStr for NumAnswer {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        NumAnswer::parse(s, false)
    }
}

impl fmt::Display for NumAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("(empty)"),
        }
    }
}

/// An optional yes/no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TriBool(Option<bool>);

impl TriBool {
    fn parse(s: &str) -> Result<Self, ()> {
        match s.trim().to_lowercase().as_str() {
            "" => Ok(TriBool(None)),
            "y" | "yes" | "true" => Ok(TriBool(Some(true))),
            "n" | "no" | "false" => Ok(TriBool(Some(false))),
            _ => Err(()),
        }
    }
}

impl std::str::FromStr for TriBool {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        TriBool::parse(s)
    }
}

impl fmt::Display for TriBool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Some(true) => "yes",
            Some(false) => "no",
            None => "(empty)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> FormSchema {
        FormSchema::parse(&v).unwrap().schema
    }

    #[test]
    fn numbers_parse_as_the_engine_expects() {
        assert_eq!(NumAnswer::parse("", true), Ok(NumAnswer(None)));
        assert_eq!(
            NumAnswer::parse(" 42 ", true),
            Ok(NumAnswer(Some(42.into())))
        );
        assert_eq!(
            NumAnswer::parse("1e3", true),
            Ok(NumAnswer(Some(1000.into())))
        );
        let half = NumAnswer::parse("2.5", true).unwrap().0.unwrap();
        assert_eq!(half.as_f64(), Some(2.5));
        assert!(NumAnswer::parse("inf", false).is_err());
        assert!(NumAnswer::parse("abc", false).is_err());
        let s =
            schema(json!({"type":"object","properties":{"age":{"type":"integer","minimum":18}}}));
        assert_eq!(
            check(&s, "age", &Value::Number(half)),
            Validation::Invalid("Age must be a whole number.".into())
        );
    }

    #[test]
    fn optional_yes_no_may_stay_empty() {
        assert_eq!(TriBool::parse(""), Ok(TriBool(None)));
        assert_eq!(TriBool::parse("Y"), Ok(TriBool(Some(true))));
        assert_eq!(TriBool::parse("no"), Ok(TriBool(Some(false))));
        assert!(TriBool::parse("maybe").is_err());
    }

    #[test]
    fn review_shows_titles_defaults_and_gaps() {
        let s = schema(json!({"type":"object","properties":{
            "genre":{"type":"string","oneOf":[{"const":"jazz","title":"Jazz"}]},
            "age":{"type":"integer","default":30},
            "note":{"type":"string"}
        }}));
        let mut values = Content::new();
        values.insert("genre".into(), json!("jazz"));
        let lines = review_lines(&s, &values).join("\n");
        assert!(lines.contains("Jazz"), "{lines}");
        assert!(lines.contains("30"), "{lines}");
        assert!(lines.contains("(default)"), "{lines}");
        assert!(lines.contains("not sent"), "{lines}");
    }
}

#[cfg(test)]
mod local_time_tests {
    #![allow(clippy::unwrap_used)]
    use super::local_date_time;

    #[test]
    fn a_local_date_time_becomes_rfc_3339_with_this_machines_offset() {
        let sent = local_date_time("2026-09-15 10:30").unwrap();
        assert!(sent.starts_with("2026-09-15T10:30:00"), "{sent}");
        let parsed = chrono::DateTime::parse_from_rfc3339(&sent).unwrap();
        assert_eq!(parsed.naive_local().to_string(), "2026-09-15 10:30:00");
        assert_eq!(
            local_date_time(" 2026-09-15T10:30:45 ").unwrap().get(..19),
            Some("2026-09-15T10:30:45")
        );
        // RFC 3339 as typed, and what is no date-time, are left to the schema's check.
        assert_eq!(local_date_time("2026-09-15T10:30:00Z"), None);
        assert_eq!(local_date_time("tomorrow at ten"), None);
        assert_eq!(local_date_time("2026-02-30 10:00"), None);
    }
}
