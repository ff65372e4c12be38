//! The size caps of a schema: every size a `requestedSchema` can carry has one, so that parsing,
//! validating, applying defaults and presenting a form all take time linear in a message that
//! is itself bounded by these caps. A schema over any cap is refused by
//! [`FormSchema::parse`](crate::FormSchema::parse) with a [`SchemaError`](crate::SchemaError)
//! that names the property and the cap.
//!
//! The caps are generous for forms a person fills in (a real form has a handful of fields, a
//! select a few dozen choices, a description a sentence or a paragraph) and small enough that one
//! hostile server cannot make the host spend seconds on one request. Lengths are counted in
//! Unicode scalar values (`char`s), like `minLength` and `maxLength`.
//!
//! The engine's own `max_fields` (64 by default) is stricter than [`MAX_PROPERTIES`]; the cap
//! here holds for every other caller (tool input schemas read as forms, the server toolkit).
//!
//! ```
//! use interlude_schema::{FormSchema, SchemaErrorKind, limits};
//! use serde_json::json;
//!
//! let many: Vec<String> = (0..=limits::MAX_CHOICES).map(|i| format!("c{i}")).collect();
//! let err = FormSchema::parse(&json!({"type": "object", "properties": {
//!     "pick": {"type": "string", "enum": many}}})).unwrap_err();
//! assert_eq!(err.property.as_deref(), Some("pick"));
//! assert_eq!(err.kind, SchemaErrorKind::TooManyChoices { count: 1001, limit: 1000 });
//! assert_eq!(err.to_string(), "property `pick`: has 1001 choices; the limit is 1000");
//! ```

/// Properties in one schema (`properties`), and entries in `required`.
pub const MAX_PROPERTIES: usize = 256;

/// Characters in a property name.
pub const MAX_NAME_CHARS: usize = 256;

/// Characters in a field's `title`, in a choice's title (`oneOf`/`anyOf` `title`) and in each
/// legacy `enumNames` entry.
pub const MAX_TITLE_CHARS: usize = 1_000;

/// Characters in a field's `description`: a few paragraphs.
pub const MAX_DESCRIPTION_CHARS: usize = 4_096;

/// Choices in one field: `enum`, `oneOf`/`anyOf`, `items.enum`, `items.anyOf`/`items.oneOf`.
pub const MAX_CHOICES: usize = 1_000;

/// Characters in one choice's value (an `enum` entry or a `const`).
pub const MAX_VALUE_CHARS: usize = 1_000;

/// Characters in a text field's `default`.
pub const MAX_DEFAULT_CHARS: usize = 4_096;

/// Characters in a `pattern` (shown, never enforced).
pub const MAX_PATTERN_CHARS: usize = 1_000;

/// Characters in the top-level `$schema` (kept and re-emitted).
pub const MAX_DIALECT_CHARS: usize = 1_000;

/// Diagnostics kept for one parse; past this, one more says how many were left out.
pub const MAX_DIAGNOSTICS: usize = 64;

/// Characters of peer text (a name, a value, a keyword) quoted back in an error or a
/// diagnostic; longer text is cut and ends with `…`.
pub const MAX_ECHO_CHARS: usize = 80;

/// `text` as quoted back to the peer: at most [`MAX_ECHO_CHARS`] characters, cut with `…`.
pub(crate) fn echo(text: &str) -> String {
    match text.char_indices().nth(MAX_ECHO_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or_default()),
    }
}

/// The length of `text` in characters, when it is over `limit`; `None` when it fits. Linear in
/// `text`, and constant when its byte length already fits.
pub(crate) fn over(text: &str, limit: usize) -> Option<usize> {
    if text.len() <= limit {
        return None;
    }
    let len = text.chars().count();
    (len > limit).then_some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_cuts_long_text_on_a_character_boundary() {
        assert_eq!(echo("short"), "short");
        let exactly = "é".repeat(MAX_ECHO_CHARS);
        assert_eq!(echo(&exactly), exactly);
        let long = "é".repeat(MAX_ECHO_CHARS + 1);
        assert_eq!(echo(&long), format!("{exactly}…"));
    }

    #[test]
    fn over_counts_characters_not_bytes() {
        assert_eq!(over(&"é".repeat(10), 10), None);
        assert_eq!(over(&"é".repeat(11), 10), Some(11));
        assert_eq!(over("", 0), None);
    }
}
