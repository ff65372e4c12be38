//! Why a `requestedSchema` is refused: [`SchemaError`] (the property concerned and what is
//! wrong) and its [`SchemaErrorKind`]s, with the constructors the parser uses.
//!
//! Not here: diagnostics about tolerated keywords (those are not errors: `parse.rs` keeps them),
//! deciding what the subset refuses.

use crate::limits::{MAX_NAME_CHARS, echo, over};

/// A schema the subset cannot represent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", render(.property.as_deref(), .kind))]
pub struct SchemaError {
    /// The property concerned, or `None` when the problem is at the top level.
    pub property: Option<String>,
    /// What is wrong.
    pub kind: SchemaErrorKind,
}

fn render(property: Option<&str>, kind: &SchemaErrorKind) -> String {
    match property {
        Some(p) => format!("property `{p}`: {kind}"),
        None => format!("requestedSchema: {kind}"),
    }
}

/// The ways a schema can fall outside the subset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// The schema (or a property schema) is not a JSON object.
    #[error("expected a JSON object, found {found}")]
    NotAnObject {
        /// The JSON type found.
        found: &'static str,
    },
    /// The top-level `type` is something other than `object`.
    #[error("top-level type must be \"object\", found {found}")]
    TopLevelNotObject {
        /// What was found.
        found: String,
    },
    /// `properties` is missing or not an object.
    #[error("`properties` must be an object")]
    BadProperties,
    /// A property has no `type` (and no enum keyword to infer it from).
    #[error("missing `type`")]
    MissingType,
    /// A property has a type the subset does not allow.
    #[error("unsupported type {found} (allowed: string, number, integer, boolean, array of enum)")]
    UnsupportedType {
        /// What was found.
        found: String,
    },
    /// A nested object property.
    #[error("nested objects are not allowed in an elicitation form")]
    NestedObject,
    /// An array whose items are not an enum of strings.
    #[error("arrays must have `items` with `enum` or `anyOf` of string choices")]
    ArrayOfNonEnum,
    /// A `$ref`, `allOf` or similar composition.
    #[error("`{keyword}` is not supported in an elicitation form")]
    UnsupportedKeyword {
        /// The keyword.
        keyword: String,
    },
    /// A keyword with a value of the wrong JSON type.
    #[error("`{keyword}` must be {expected}")]
    BadKeyword {
        /// The keyword.
        keyword: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A `default` that does not fit the property.
    #[error("default {value} does not fit: {reason}")]
    BadDefault {
        /// The default as JSON text.
        value: String,
        /// Why.
        reason: String,
    },
    /// An enum with no choices, or with duplicate values.
    #[error("enum choices {reason}")]
    BadChoices {
        /// What is wrong with them.
        reason: &'static str,
    },
    /// `required` names a property that does not exist.
    #[error("listed in `required` but not defined in `properties`")]
    RequiredUndefined,
    /// A field with more choices than [`MAX_CHOICES`](crate::limits::MAX_CHOICES).
    #[error("has {count} choices; the limit is {limit}")]
    TooManyChoices {
        /// How many the schema lists.
        count: usize,
        /// The cap.
        limit: usize,
    },
    /// A list with more entries than its cap: `properties` or `required`
    /// ([`MAX_PROPERTIES`](crate::limits::MAX_PROPERTIES)).
    #[error("{what} has {count} entries; the limit is {limit}")]
    TooMany {
        /// The list, as the message names it (`` `properties` ``).
        what: &'static str,
        /// How many entries it has.
        count: usize,
        /// The cap.
        limit: usize,
    },
    /// A string longer than its cap (see [`limits`](crate::limits)), in characters.
    #[error("{what} is {len} characters long; the limit is {limit}")]
    TooLong {
        /// The string, as the message names it (`` `description` ``, "a choice's value").
        what: &'static str,
        /// Its length in characters.
        len: usize,
        /// The cap.
        limit: usize,
    },
}

pub(super) type PResult<T> = Result<T, SchemaError>;

/// An error about `property`. A name over [`MAX_NAME_CHARS`] (which is itself refused) or an
/// undefined one quoted from `required` is quoted cut, so an error never carries a megabyte of
/// the peer's text back.
pub(super) fn err(property: &str, kind: SchemaErrorKind) -> SchemaError {
    let property = if over(property, MAX_NAME_CHARS).is_none() {
        property.to_owned()
    } else {
        echo(property)
    };
    SchemaError {
        property: Some(property),
        kind,
    }
}

pub(super) fn top(kind: SchemaErrorKind) -> SchemaError {
    SchemaError {
        property: None,
        kind,
    }
}
