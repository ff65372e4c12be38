//! How a field reads to a person, derived once for every surface: its label, a hint that states
//! its constraints, and how a value of it is shown back (choice titles, yes/no, lists).
//!
//! The web page and the terminal both use these, so a field is described the same way wherever
//! it is answered. What it does not do: decide widgets or key bindings (each surface's own
//! business), or escape anything (surfaces render text as text).

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Field, FieldKind, StringFormat};

/// A label for a property without a title: `firstLine` / `first_line` → "First line".
///
/// ```
/// assert_eq!(interlude_schema::humanize("firstLine"), "First line");
/// assert_eq!(interlude_schema::humanize("api_key"), "Api key");
/// ```
pub fn humanize(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == ' ' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    let mut out = words.join(" ");
    if let Some(first) = out.chars().next() {
        let upper: String = first.to_uppercase().collect();
        out.replace_range(..first.len_utf8(), &upper);
    }
    if out.is_empty() { name.to_owned() } else { out }
}

/// A number as a person writes it: `18`, not `18.0`.
///
/// ```
/// assert_eq!(interlude_schema::format_number(18.0), "18");
/// assert_eq!(interlude_schema::format_number(0.5), "0.5");
/// ```
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

impl Field {
    /// The label a surface shows: the title, or else the property name made readable.
    ///
    /// ```
    /// use interlude_schema::FormSchema;
    /// let s = FormSchema::parse(&serde_json::json!({"type": "object", "properties": {
    ///     "firstName": {"type": "string"}, "age": {"type": "integer", "title": "Your age"}}}))
    ///     .unwrap().schema;
    /// assert_eq!(s.fields[0].label(), "First name");
    /// assert_eq!(s.fields[1].label(), "Your age");
    /// ```
    pub fn label(&self) -> Cow<'_, str> {
        match &self.title {
            Some(t) => Cow::Borrowed(t),
            None => Cow::Owned(humanize(&self.name)),
        }
    }

    /// What the field expects, beyond its type's widget: format, lengths, bounds, how many
    /// choices, a pattern. `None` when there is nothing to say.
    ///
    /// ```
    /// use interlude_schema::FormSchema;
    /// let s = FormSchema::parse(&serde_json::json!({"type": "object", "properties": {
    ///     "age": {"type": "integer", "minimum": 18, "maximum": 150},
    ///     "name": {"type": "string"}}})).unwrap().schema;
    /// assert_eq!(s.fields[0].hint().as_deref(), Some("a whole number from 18 to 150"));
    /// assert_eq!(s.fields[1].hint(), None);
    /// ```
    pub fn hint(&self) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        match &self.kind {
            FieldKind::Text {
                min_length,
                max_length,
                format,
                pattern,
                ..
            } => {
                if let Some(f) = format {
                    parts.push(format_hint(*f).to_owned());
                }
                parts.extend(length_hint(*min_length, *max_length));
                if let Some(p) = pattern {
                    parts.push(format!("expected pattern {p}"));
                }
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
                ..
            } => parts.push(bounds_hint(*integer, *minimum, *maximum)),
            FieldKind::Boolean { .. } | FieldKind::SingleSelect { .. } => {}
            FieldKind::MultiSelect {
                min_items,
                max_items,
                ..
            } => parts.extend(items_hint(*min_items, *max_items)),
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    /// A value of this field as the person should read it: choice titles rather than raw
    /// values, yes/no for booleans, lists joined with commas, "(none)" for an empty list.
    ///
    /// ```
    /// use interlude_schema::FormSchema;
    /// use serde_json::json;
    /// let s = FormSchema::parse(&json!({"type": "object", "properties": {
    ///     "genre": {"type": "string", "oneOf": [{"const": "jazz", "title": "Jazz"}]},
    ///     "ok": {"type": "boolean"}}})).unwrap().schema;
    /// assert_eq!(s.fields[0].display_value(&json!("jazz")), "Jazz");
    /// assert_eq!(s.fields[1].display_value(&json!(true)), "yes");
    /// ```
    pub fn display_value(&self, v: &Value) -> String {
        let choice = |s: &str| -> String {
            match &self.kind {
                FieldKind::SingleSelect { options, .. }
                | FieldKind::MultiSelect { options, .. } => options
                    .iter()
                    .find(|c| c.value == s)
                    .map_or_else(|| s.to_owned(), |c| c.label().to_owned()),
                _ => s.to_owned(),
            }
        };
        match v {
            Value::String(s) => choice(s),
            Value::Bool(true) => "yes".into(),
            Value::Bool(false) => "no".into(),
            Value::Number(n) => n.to_string(),
            Value::Array(items) if items.is_empty() => "(none)".into(),
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), choice))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        }
    }
}

fn length_hint(min: Option<u64>, max: Option<u64>) -> Option<String> {
    match (min, max) {
        (Some(lo), Some(hi)) if lo == hi => Some(format!("exactly {lo} characters")),
        (Some(lo), Some(hi)) => Some(format!("{lo} to {hi} characters")),
        // "At least one character" is what "required" already says.
        (Some(0 | 1), None) | (None, None) => None,
        (Some(lo), None) => Some(format!("at least {lo} characters")),
        (None, Some(hi)) => Some(format!("at most {hi} characters")),
    }
}

fn format_hint(f: StringFormat) -> &'static str {
    match f {
        StringFormat::Email => "an e-mail address",
        StringFormat::Uri => "a full address, such as https://example.com",
        StringFormat::Date => "a date, YYYY-MM-DD",
        StringFormat::DateTime => "a date and time, such as 2026-07-28T09:30:00Z",
    }
}

fn bounds_hint(integer: bool, min: Option<f64>, max: Option<f64>) -> String {
    let what = if integer {
        "a whole number"
    } else {
        "a number"
    };
    match (min, max) {
        (Some(lo), Some(hi)) => {
            format!("{what} from {} to {}", format_number(lo), format_number(hi))
        }
        (Some(lo), None) => format!("{what}, at least {}", format_number(lo)),
        (None, Some(hi)) => format!("{what}, at most {}", format_number(hi)),
        (None, None) => what.to_owned(),
    }
}

fn items_hint(min: Option<u64>, max: Option<u64>) -> Option<String> {
    match (min, max) {
        (Some(lo), Some(hi)) if lo == hi => Some(format!("choose {lo}")),
        (Some(lo), Some(hi)) => Some(format!("choose {lo} to {hi}")),
        (Some(0), None) | (None, None) => None,
        (Some(lo), None) => Some(format!("choose at least {lo}")),
        (None, Some(hi)) => Some(format!("choose at most {hi}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_property_names() {
        assert_eq!(humanize("firstLine"), "First line");
        assert_eq!(
            humanize("untitledSingleSelectEnum"),
            "Untitled single select enum"
        );
        assert_eq!(humanize("api_key"), "Api key");
        assert_eq!(humanize("name"), "Name");
        assert_eq!(humanize("URL"), "Url");
        assert_eq!(humanize("_"), "_");
    }

    #[test]
    fn hints_state_each_constraint_once() {
        assert_eq!(
            length_hint(Some(2), Some(60)).as_deref(),
            Some("2 to 60 characters")
        );
        assert_eq!(length_hint(Some(1), None), None);
        assert_eq!(
            items_hint(Some(1), Some(3)).as_deref(),
            Some("choose 1 to 3")
        );
        assert_eq!(
            bounds_hint(false, Some(0.5), None),
            "a number, at least 0.5"
        );
    }
}
