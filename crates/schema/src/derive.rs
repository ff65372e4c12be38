//! Deriving a form from a Rust type, on top of `schemars::JsonSchema`.
//!
//! schemars' draft-07 output is post-processed into the subset: subschemas are inlined (so plain
//! Rust enums work with no `#[schemars(inline)]`), the `null` branch of `Option<T>` is dropped
//! (the field is simply not required), doc comments on unit variants become choice titles, and
//! the result goes through the same parser as wire schemas, so an unsupported field type is
//! refused at first use with the field named. Property order is the declaration order (the
//! workspace builds `serde_json` with `preserve_order`).
//!
//! Not done here: deriving validation beyond the subset (serde's own errors still apply when the
//! accepted content is deserialized).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::model::FormSchema;
use crate::parse::{SchemaError, SchemaErrorKind};

/// A Rust type a server can ask a person for: a struct of primitive fields, deserializable from
/// the accepted content.
///
/// Implemented for every `T: JsonSchema + DeserializeOwned + 'static`; there is nothing to
/// implement by hand.
///
/// # Example
/// ```
/// use interlude_schema::{Elicit, FieldKind};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// enum Genre { Jazz, Rock, Classical }
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Taste {
///     /// Your favourite genre
///     genre: Genre,
///     #[serde(rename = "alsoLikes")]
///     also_likes: Option<String>,
/// }
///
/// let schema = Taste::form_schema()?;
/// assert_eq!(schema.fields[0].name, "genre");
/// assert_eq!(schema.fields[0].description.as_deref(), Some("Your favourite genre"));
/// assert!(matches!(schema.fields[0].kind, FieldKind::SingleSelect { .. }));
/// assert_eq!(schema.fields[1].name, "alsoLikes");
/// assert!(!schema.fields[1].required);
/// # Ok::<(), interlude_schema::SchemaError>(())
/// ```
pub trait Elicit: DeserializeOwned + 'static {
    /// The form for this type, computed once per type and cached.
    fn form_schema() -> Result<FormSchema, SchemaError>;
}

impl<T: JsonSchema + DeserializeOwned + 'static> Elicit for T {
    fn form_schema() -> Result<FormSchema, SchemaError> {
        type Cache = RwLock<HashMap<TypeId, Arc<Result<FormSchema, SchemaError>>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let id = TypeId::of::<T>();
        if let Ok(map) = cache.read()
            && let Some(hit) = map.get(&id)
        {
            return (**hit).clone();
        }
        let computed = schema_for::<T>();
        if let Ok(mut map) = cache.write() {
            map.insert(id, Arc::new(computed.clone()));
        }
        computed
    }
}

/// Computes the form for `T` without the cache (see [`Elicit::form_schema`]).
pub fn schema_for<T: JsonSchema>() -> Result<FormSchema, SchemaError> {
    let mut settings = SchemaSettings::draft07();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let root = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let mut root = match root {
        Value::Object(o) => o,
        _ => {
            return Err(SchemaError {
                property: None,
                kind: SchemaErrorKind::TopLevelNotObject {
                    found: "a non-object schema".into(),
                },
            });
        }
    };
    // The type's own name is not something to show a person.
    root.remove("title");
    root.remove("description");
    if let Some(Value::Object(props)) = root.get_mut("properties") {
        for prop in props.values_mut() {
            normalize_property(prop);
        }
    }
    FormSchema::parse(&Value::Object(root)).map(|p| p.schema)
}

/// Rewrites what schemars emits into the subset's spelling, without inventing anything.
fn normalize_property(prop: &mut Value) {
    let Some(o) = prop.as_object_mut() else {
        return;
    };
    // Option<T> as `anyOf: [T, {type: null}]`: keep T, merge its keywords in.
    if let Some(Value::Array(branches)) = o.get("anyOf").cloned() {
        let non_null: Vec<&Value> = branches
            .iter()
            .filter(|b| b.get("type") != Some(&Value::String("null".into())))
            .collect();
        if non_null.len() == 1
            && branches.len() == 2
            && let Some(Value::Object(inner)) = non_null.first().map(|v| (*v).clone())
        {
            o.remove("anyOf");
            for (k, v) in inner {
                o.entry(k).or_insert(v);
            }
        }
    }
    // Option<T> as `type: [T, "null"]`.
    if let Some(Value::Array(types)) = o.get("type") {
        let non_null: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if let [one] = non_null.as_slice() {
            o.insert("type".into(), one.clone());
        }
    }
    // Option<Enum> can add `null` to the enum values.
    if let Some(Value::Array(values)) = o.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    // Unit variants with doc comments: `oneOf: [{const, description}]` → titles.
    if let Some(Value::Array(choices)) = o.get_mut("oneOf") {
        let mut flat = Vec::with_capacity(choices.len());
        for mut c in std::mem::take(choices) {
            if let Some(co) = c.as_object_mut() {
                if let Some(Value::Array(values)) = co.get("enum").cloned() {
                    if let [v] = values.as_slice() {
                        co.remove("enum");
                        co.insert("const".into(), v.clone());
                    } else {
                        // When only some variants are documented, schemars groups the others
                        // into one `{"enum": [...]}` branch: one untitled choice each.
                        flat.extend(values.into_iter().map(|v| serde_json::json!({"const": v})));
                        continue;
                    }
                }
                if !co.contains_key("title")
                    && let Some(d) = co.remove("description")
                {
                    co.insert("title".into(), d);
                }
            }
            flat.push(c);
        }
        *choices = flat;
        o.entry("type").or_insert(Value::String("string".into()));
    }
    // `Vec<Enum>`: recurse into items.
    if let Some(items) = o.get_mut("items") {
        normalize_property(items);
        if let Some(io) = items.as_object_mut()
            && let Some(one_of) = io.remove("oneOf")
        {
            io.remove("type");
            io.insert("anyOf".into(), one_of);
        }
    }
    // schemars spells numeric widths as formats (`int32`, `uint8`, `double`): not subset formats.
    if matches!(
        o.get("type").and_then(Value::as_str),
        Some("integer" | "number")
    ) {
        o.remove("format");
    }
    let _: &mut Map<String, Value> = o;
}
