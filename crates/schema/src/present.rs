//! How a field reads to a person, derived once for every surface: its label, a hint that states
//! its constraints (written as sentences, never restating the type the description or the widget
//! already gives), the help text that puts the description and the hint together, and how a
//! value of it is shown back (choice titles, yes/no, lists).
//!
//! The web page and the terminal both use these, so a field is described the same way wherever
//! it is answered; the validation messages (`validate.rs`) name fields with the same label. What it does not do: decide widgets or key bindings (each surface's own
//! business), or escape anything (surfaces render text as text).

use std::borrow::Cow;
use std::collections::HashMap;

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

/// A label as it reads inside a sentence: its first word in lower case when that word is an
/// ordinary capitalised word ("Your email address" → "your email address"), unchanged when it
/// is a name or an acronym ("GitHub username", "URL", "API key") or when the label is written
/// in title case ("Favourite Genre").
///
/// ```
/// use interlude_schema::in_sentence;
/// assert_eq!(in_sentence("Your email address"), "your email address");
/// assert_eq!(in_sentence("GitHub username"), "GitHub username");
/// assert_eq!(in_sentence("URL"), "URL");
/// assert_eq!(in_sentence("Favourite Genre"), "Favourite Genre");
/// ```
pub fn in_sentence(label: &str) -> String {
    let mut words = label.split_whitespace();
    let first_word = words.next().unwrap_or_default();
    let mut chars = first_word.chars();
    let ordinary = chars.next().is_some_and(char::is_uppercase)
        && chars.clone().next().is_some()
        && chars.all(|c| !c.is_uppercase());
    let mut others = words.peekable();
    let title_case = others.peek().is_some()
        && others.all(|w| w.chars().next().is_none_or(|c| !c.is_lowercase()));
    if !ordinary || title_case {
        return label.to_owned();
    }
    let mut out = String::with_capacity(label.len());
    let mut rest = label.chars();
    if let Some(first) = rest.next() {
        out.extend(first.to_lowercase());
    }
    out.extend(rest);
    out
}

/// A label at the start of a sentence: its first letter in upper case ("age" → "Age").
///
/// ```
/// assert_eq!(interlude_schema::sentence_start("e-mail"), "E-mail");
/// ```
pub fn sentence_start(label: &str) -> String {
    let mut rest = label.chars();
    match rest.next() {
        Some(first) => first.to_uppercase().chain(rest).collect(),
        None => String::new(),
    }
}

/// `text` ending as a sentence does: with a full stop added when it has no closing punctuation.
fn closed(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?', '…']) {
        text.to_owned()
    } else {
        format!("{}.", text.trim_end_matches([':', ';', ',']))
    }
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

    /// What the field expects, beyond its type's widget, as sentences: an example of its format,
    /// lengths, bounds, how many choices, a pattern. It never names the kind of value a format
    /// stands for (the description and the widget say "e-mail address"; the hint shows one).
    /// `None` when there is nothing to say.
    ///
    /// ```
    /// use interlude_schema::FormSchema;
    /// let s = FormSchema::parse(&serde_json::json!({"type": "object", "properties": {
    ///     "age": {"type": "integer", "minimum": 18, "maximum": 150},
    ///     "email": {"type": "string", "format": "email", "description": "Your email address"},
    ///     "name": {"type": "string"}}})).unwrap().schema;
    /// assert_eq!(s.fields[0].hint().as_deref(), Some("Enter a whole number from 18 to 150."));
    /// assert_eq!(s.fields[1].hint().as_deref(), Some("For example, ada@example.com."));
    /// assert_eq!(s.fields[2].hint(), None);
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
                    parts.push(format!("The server expects the pattern {p}."));
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
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    /// The field's help text, written once: its description (closed as a sentence) followed by
    /// its [`hint`](Field::hint), or either alone; a hint the description already says is left
    /// out. `None` when there is neither. Both surfaces show exactly this under the label.
    ///
    /// ```
    /// use interlude_schema::FormSchema;
    /// let s = FormSchema::parse(&serde_json::json!({"type": "object", "properties": {
    ///     "email": {"type": "string", "format": "email", "description": "Your email address"},
    ///     "note": {"type": "string", "description": "Anything else?"}}})).unwrap().schema;
    /// assert_eq!(s.fields[0].help().as_deref(),
    ///     Some("Your email address. For example, ada@example.com."));
    /// assert_eq!(s.fields[1].help().as_deref(), Some("Anything else?"));
    /// ```
    pub fn help(&self) -> Option<String> {
        self.help_with(self.hint())
    }

    /// [`help`](Field::help) with another hint in place of the field's own (`None`: the
    /// description alone) — for a surface whose widget already shows what the hint would say,
    /// such as a native date picker.
    pub fn help_with(&self, hint: Option<String>) -> Option<String> {
        let description = self
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(closed);
        let hint = hint.filter(|h| {
            let said = |text: &str| text.trim_end_matches('.').to_lowercase();
            description
                .as_deref()
                .is_none_or(|d| !said(d).contains(&said(h)))
        });
        match (description, hint) {
            (Some(d), Some(h)) => Some(format!("{d} {h}")),
            (d, h) => d.or(h),
        }
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
        // One map of the choices (the first of a repeated value wins, as a search would find
        // it), so a list of n values reads in time linear in n and the choices.
        let labels: HashMap<&str, &str> = match (&self.kind, v) {
            (
                FieldKind::SingleSelect { options, .. } | FieldKind::MultiSelect { options, .. },
                Value::String(_) | Value::Array(_),
            ) => options
                .iter()
                .rev()
                .map(|c| (c.value.as_str(), c.label()))
                .collect(),
            _ => HashMap::new(),
        };
        let choice = |s: &str| -> String { labels.get(s).copied().unwrap_or(s).to_owned() };
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
        (Some(1), Some(1)) => Some("Use exactly one character.".to_owned()),
        (Some(lo), Some(hi)) if lo == hi => Some(format!("Use exactly {lo} characters.")),
        (Some(lo), Some(hi)) => Some(format!("Use {lo} to {hi} characters.")),
        // "At least one character" is what "required" already says.
        (Some(0 | 1), None) | (None, None) => None,
        (Some(lo), None) => Some(format!("Use at least {lo} characters.")),
        (None, Some(1)) => Some("Use at most one character.".to_owned()),
        (None, Some(hi)) => Some(format!("Use at most {hi} characters.")),
    }
}

/// An example of the format: what kind of value it is, the description and the widget say.
fn format_hint(f: StringFormat) -> &'static str {
    match f {
        StringFormat::Email => "For example, ada@example.com.",
        StringFormat::Uri => "A full address, for example https://example.com.",
        StringFormat::Date => "Year, month and day, for example 2026-07-28.",
        StringFormat::DateTime => "For example, 2026-07-28T09:30:00Z.",
    }
}

fn bounds_hint(integer: bool, min: Option<f64>, max: Option<f64>) -> String {
    let what = if integer {
        "a whole number"
    } else {
        "a number"
    };
    match (min, max) {
        (Some(lo), Some(hi)) => format!(
            "Enter {what} from {} to {}.",
            format_number(lo),
            format_number(hi)
        ),
        (Some(lo), None) => format!("Enter {what} of at least {}.", format_number(lo)),
        (None, Some(hi)) => format!("Enter {what} of at most {}.", format_number(hi)),
        (None, None) => format!("Enter {what}."),
    }
}

fn items_hint(min: Option<u64>, max: Option<u64>) -> Option<String> {
    match (min, max) {
        (Some(lo), Some(hi)) if lo == hi => Some(format!("Choose exactly {lo}.")),
        (Some(lo), Some(hi)) => Some(format!("Choose {lo} to {hi}.")),
        (Some(0), None) | (None, None) => None,
        (Some(lo), None) => Some(format!("Choose at least {lo}.")),
        (None, Some(hi)) => Some(format!("Choose at most {hi}.")),
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
    fn hints_state_each_constraint_once_as_a_sentence() {
        assert_eq!(
            length_hint(Some(2), Some(60)).as_deref(),
            Some("Use 2 to 60 characters.")
        );
        assert_eq!(length_hint(Some(1), None), None);
        assert_eq!(
            items_hint(Some(1), Some(3)).as_deref(),
            Some("Choose 1 to 3.")
        );
        assert_eq!(
            bounds_hint(false, Some(0.5), None),
            "Enter a number of at least 0.5."
        );
        for hint in [
            length_hint(Some(3), None),
            length_hint(None, Some(1)),
            items_hint(Some(2), Some(2)),
            Some(bounds_hint(true, None, None)),
        ]
        .into_iter()
        .flatten()
        .chain(
            [
                StringFormat::Email,
                StringFormat::Uri,
                StringFormat::Date,
                StringFormat::DateTime,
            ]
            .map(|f| format_hint(f).to_owned()),
        ) {
            assert!(hint.ends_with('.'), "{hint}");
            assert!(hint.starts_with(char::is_uppercase), "{hint}");
        }
    }

    #[test]
    fn labels_inside_and_at_the_start_of_sentences() {
        assert_eq!(in_sentence("Your email address"), "your email address");
        assert_eq!(in_sentence("Age"), "age");
        assert_eq!(in_sentence("GitHub username"), "GitHub username");
        assert_eq!(in_sentence("URL"), "URL");
        assert_eq!(in_sentence("API key"), "API key");
        assert_eq!(in_sentence("Your GitHub username"), "your GitHub username");
        assert_eq!(
            in_sentence("Titled Multiple Select Enum"),
            "Titled Multiple Select Enum"
        );
        assert_eq!(
            in_sentence("Number in range 1-1000"),
            "number in range 1-1000"
        );
        assert_eq!(in_sentence("A"), "A");
        assert_eq!(in_sentence("élan"), "élan");
        assert_eq!(in_sentence(""), "");
        assert_eq!(sentence_start("talk slot"), "Talk slot");
        assert_eq!(sentence_start("Éa"), "Éa");
        assert_eq!(sentence_start(""), "");
    }

    #[test]
    fn descriptions_are_closed_as_sentences() {
        assert_eq!(closed("Your email address"), "Your email address.");
        assert_eq!(closed("Anything else?"), "Anything else?");
        assert_eq!(closed("Pick one:"), "Pick one.");
        assert_eq!(closed("Your age (18 or older)"), "Your age (18 or older).");
        assert_eq!(closed(" Done. "), "Done.");
    }
}
