//! Form fields as the page renders them: a flat, widget-oriented JSON shape derived from the
//! schema crate's model, with the label and help text every surface shares (`Field::label`,
//! `Field::help`: the description and the hint, each said once, as sentences). The page never
//! interprets JSON Schema itself.

use interlude_host::schema::{FieldKind, FormSchema, StringFormat};
use serde::Serialize;
use serde_json::Value;

/// One choice of a select.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OptionView {
    pub(crate) value: String,
    pub(crate) label: String,
}

/// One field, ready for a widget.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FieldView {
    pub(crate) name: String,
    pub(crate) label: String,
    /// The description and what the field expects beyond its widget, in the words the terminal
    /// uses too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) help: Option<String>,
    pub(crate) required: bool,
    /// `text`, `email`, `url`, `date`, `datetime`, `number`, `integer`, `boolean`, `select`,
    /// `multiselect`.
    pub(crate) widget: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) min_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) max_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) minimum: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) maximum: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) options: Vec<OptionView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) min_items: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) max_items: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default: Option<Value>,
}

/// The page's fields for a form.
pub(crate) fn fields_of(schema: &FormSchema) -> Vec<FieldView> {
    schema
        .fields
        .iter()
        .map(|f| {
            let mut v = FieldView {
                name: f.name.clone(),
                label: f.label().into_owned(),
                help: None,
                required: f.required,
                widget: "text",
                min_length: None,
                max_length: None,
                pattern: None,
                minimum: None,
                maximum: None,
                options: Vec::new(),
                min_items: None,
                max_items: None,
                default: f.default_value(),
            };
            match &f.kind {
                FieldKind::Text {
                    min_length,
                    max_length,
                    format,
                    pattern,
                    ..
                } => {
                    v.widget = match format {
                        None => "text",
                        Some(StringFormat::Email) => "email",
                        Some(StringFormat::Uri) => "url",
                        Some(StringFormat::Date) => "date",
                        Some(StringFormat::DateTime) => "datetime",
                    };
                    v.min_length = *min_length;
                    v.max_length = *max_length;
                    v.pattern = pattern.clone();
                }
                FieldKind::Number {
                    integer,
                    minimum,
                    maximum,
                    ..
                } => {
                    v.widget = if *integer { "integer" } else { "number" };
                    v.minimum = *minimum;
                    v.maximum = *maximum;
                }
                FieldKind::Boolean { .. } => v.widget = "boolean",
                FieldKind::SingleSelect { options, .. } => {
                    v.widget = "select";
                    v.options = options
                        .iter()
                        .map(|c| OptionView {
                            value: c.value.clone(),
                            label: c.label().to_owned(),
                        })
                        .collect();
                }
                FieldKind::MultiSelect {
                    options,
                    min_items,
                    max_items,
                    ..
                } => {
                    v.widget = "multiselect";
                    v.options = options
                        .iter()
                        .map(|c| OptionView {
                            value: c.value.clone(),
                            label: c.label().to_owned(),
                        })
                        .collect();
                    v.min_items = *min_items;
                    v.max_items = *max_items;
                }
            }
            // A date or date-time widget is a native picker: the written format the hint gives
            // for typing (the terminal's case) would contradict what the picker shows.
            v.help = if matches!(v.widget, "date" | "datetime") {
                f.help_with(None)
            } else {
                f.help()
            };
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::fields_of;
    use interlude_host::schema::FormSchema;
    use serde_json::json;

    #[test]
    fn help_comes_from_the_schema_without_hints_for_native_pickers() {
        let schema = FormSchema::parse(&json!({"type": "object", "properties": {
            "email": {"type": "string", "format": "email", "description": "Your email address"},
            "day": {"type": "string", "format": "date", "description": "Day you arrive"},
            "age": {"type": "integer", "minimum": 18}}}))
        .unwrap()
        .schema;
        let fields = fields_of(&schema);
        assert_eq!(
            fields[0].help.as_deref(),
            Some("Your email address. For example, ada@example.com.")
        );
        assert_eq!(
            fields[1].help.as_deref(),
            Some("Day you arrive."),
            "the date picker shows its own format"
        );
        assert_eq!(
            fields[2].help.as_deref(),
            Some("Enter a whole number of at least 18.")
        );
        assert_eq!(fields[2].label, "Age");
    }
}
