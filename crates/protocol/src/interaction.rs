//! The User Interaction draft (seed 000): `interaction/create`, `interaction/notify` and the
//! `-32003` "interaction required" error, as data. A compatibility path, off the main road: the
//! draft was superseded by URL-mode elicitation and never merged into the specification, but
//! servers and clients written against it exist.
//!
//! What the draft says, in short:
//! - a client declares `capabilities.userInteraction: {"types": ["ua", "prompt"], "progress":
//!   true}` in `initialize` (a top-level key rmcp's typed capabilities have no room for: see
//!   [`declare_in_initialize`] and [`normalize_initialize`]);
//! - a server sends `interaction/create {id, type, interaction}`: a `prompt` (`message`
//!   TextContent, `schema`) answered `{"content": {…}}`, or a `ua` (`url`, optional `message`)
//!   answered `{}` once the person consented and the link was opened;
//! - a server may answer any request with error `-32003` / `interaction_required`, the
//!   interaction (with its `id` and `type`) in `error.data`;
//! - a person who declines or cancels is an error `-1` ("User did not consent to the
//!   interaction") to the `interaction/create`;
//! - a client may send `interaction/notify {id, _meta.progressToken}`; the server sends
//!   progress on that token and answers once the interaction is complete (and never answers for
//!   an id it did not create for that client).
//!
//! What it does not do: decide anything (the host's engine admits and presents, the server
//! toolkit asks), or any I/O.
//!
//! ```
//! use interlude_protocol::interaction::{Interaction, parse_create};
//! use serde_json::json;
//!
//! let params = json!({"id": "i1", "type": "ua", "interaction": {
//!     "url": "https://example.com/sign-in",
//!     "message": {"type": "text", "text": "Sign in, please."}}});
//! let created = parse_create(&params).unwrap();
//! assert_eq!(created.id, "i1");
//! assert!(matches!(created.interaction, Interaction::Ua { .. }));
//! // What the engine admits: the same request, said as a URL-mode elicitation.
//! assert_eq!(created.as_elicitation()["mode"], "url");
//! ```

use rmcp::model::{ClientCapabilities, ErrorCode, ErrorData};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The capability's key, at the top level of the client's capabilities (and, leniently, under
/// `experimental`).
pub const CAPABILITY: &str = "userInteraction";

/// Server → client: present an interaction.
pub const CREATE_METHOD: &str = "interaction/create";

/// Client → server: track the progress of an interaction; answered once it is complete.
pub const NOTIFY_METHOD: &str = "interaction/notify";

/// The error a server answers a request with when the person must interact first.
pub const INTERACTION_REQUIRED: ErrorCode = ErrorCode(-32003);

/// The `error.message` of [`INTERACTION_REQUIRED`], exactly.
pub const INTERACTION_REQUIRED_MESSAGE: &str = "interaction_required";

/// The error a client answers `interaction/create` with when the person declined or cancelled.
pub const NOT_CONSENTED: ErrorCode = ErrorCode(-1);

/// The draft's message for [`NOT_CONSENTED`].
pub const NOT_CONSENTED_MESSAGE: &str = "User did not consent to the interaction";

/// The longest interaction id kept (the draft's examples are UUIDs).
pub const MAX_ID_CHARS: usize = 256;

/// A kind of interaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InteractionType {
    /// `ua`: open a URL in a user agent (the person's browser).
    Ua,
    /// `prompt`: fill in a form in the client.
    Prompt,
}

impl InteractionType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            InteractionType::Ua => "ua",
            InteractionType::Prompt => "prompt",
        }
    }

    /// The type called `name`, if the draft defines it.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "ua" => Some(InteractionType::Ua),
            "prompt" => Some(InteractionType::Prompt),
            _ => None,
        }
    }
}

/// `capabilities.userInteraction`.
///
/// ```
/// use interlude_protocol::interaction::{InteractionType, UserInteractionCapability};
/// let both = UserInteractionCapability::all();
/// assert!(both.supports(InteractionType::Ua) && both.supports(InteractionType::Prompt));
/// assert_eq!(serde_json::to_value(&both).unwrap(),
///            serde_json::json!({"types": ["ua", "prompt"], "progress": true}));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserInteractionCapability {
    /// The types the client supports (at least one; unknown names are kept, never sent to).
    #[serde(default)]
    pub types: Vec<String>,
    /// Whether the client may track progress with `interaction/notify`.
    #[serde(default)]
    pub progress: bool,
}

impl UserInteractionCapability {
    /// Both types of the draft, with progress: what Interlude's host declares.
    pub fn all() -> Self {
        UserInteractionCapability {
            types: vec!["ua".into(), "prompt".into()],
            progress: true,
        }
    }

    /// Whether `kind` is listed.
    pub fn supports(&self, kind: InteractionType) -> bool {
        self.types.iter().any(|t| t == kind.as_str())
    }

    /// The capability a client declared, read from rmcp's typed capabilities: under
    /// `experimental.userInteraction`, where a client may put it and where a server that ran
    /// [`normalize_initialize`] on the raw `initialize` finds the top-level one. None when
    /// absent or unreadable.
    pub fn declared_by(capabilities: &ClientCapabilities) -> Option<Self> {
        let value = capabilities.experimental.as_ref()?.get(CAPABILITY)?;
        serde_json::from_value(Value::Object(value.clone())).ok()
    }
}

/// Adds `capability` to the params of a raw `initialize` request (`params.capabilities
/// .userInteraction`), keeping everything else as it is. Params that are not an object are left
/// alone.
///
/// ```
/// use interlude_protocol::interaction::{UserInteractionCapability, declare_in_initialize};
/// let mut params = serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {}});
/// declare_in_initialize(&mut params, &UserInteractionCapability::all());
/// assert_eq!(params["capabilities"]["userInteraction"]["types"][1], "prompt");
/// ```
pub fn declare_in_initialize(params: &mut Value, capability: &UserInteractionCapability) {
    let Some(params) = params.as_object_mut() else {
        return;
    };
    let capabilities = params
        .entry("capabilities")
        .or_insert_with(|| Value::Object(Map::new()));
    if let (Some(capabilities), Ok(value)) = (
        capabilities.as_object_mut(),
        serde_json::to_value(capability),
    ) {
        capabilities.insert(CAPABILITY.to_owned(), value);
    }
}

/// For a server: if `message` is a raw JSON-RPC `initialize` request whose capabilities declare
/// `userInteraction` at the top level, copies it to `capabilities.experimental.userInteraction`
/// (unless one is there already), where rmcp's typed [`ClientCapabilities`] keep it and
/// [`UserInteractionCapability::declared_by`] reads it. Returns whether the message changed.
///
/// ```
/// use interlude_protocol::interaction::normalize_initialize;
/// let mut message = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
///     "params": {"capabilities": {"userInteraction": {"types": ["prompt"]}}}});
/// assert!(normalize_initialize(&mut message));
/// assert_eq!(message["params"]["capabilities"]["experimental"]["userInteraction"]["types"][0],
///            "prompt");
/// ```
pub fn normalize_initialize(message: &mut Value) -> bool {
    if message.get("method").and_then(Value::as_str) != Some("initialize") {
        return false;
    }
    let Some(capabilities) = message
        .get_mut("params")
        .and_then(|p| p.get_mut("capabilities"))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(Value::Object(declared)) = capabilities.get(CAPABILITY).cloned() else {
        return false;
    };
    let experimental = capabilities
        .entry("experimental")
        .or_insert_with(|| Value::Object(Map::new()));
    match experimental.as_object_mut() {
        Some(experimental) if !experimental.contains_key(CAPABILITY) => {
            experimental.insert(CAPABILITY.to_owned(), Value::Object(declared));
            true
        }
        _ => false,
    }
}

/// An interaction, as the draft defines its two types.
#[derive(Debug, Clone, PartialEq)]
pub enum Interaction {
    /// Open `url` in the person's browser.
    Ua {
        /// The link.
        url: String,
        /// Why, as plain text (optional in the draft).
        message: Option<String>,
    },
    /// Fill in a form.
    Prompt {
        /// The message, as plain text.
        message: String,
        /// The form's JSON Schema, as sent (the host admits it as an elicitation schema).
        schema: Value,
    },
}

/// A parsed `interaction/create` (or the `data` of a `-32003` error).
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedInteraction {
    /// The interaction's id, unique among the server's concurrent interactions.
    pub id: String,
    /// What it asks.
    pub interaction: Interaction,
}

/// Why interaction params could not be read: the field, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}` {problem}")]
pub struct InteractionError {
    /// The offending field, as a path (`interaction.url`).
    pub field: String,
    /// What is wrong, after the field's name ("is required and must be a string").
    pub problem: String,
}

impl InteractionError {
    fn new(field: &str, problem: &str) -> Self {
        InteractionError {
            field: field.to_owned(),
            problem: problem.to_owned(),
        }
    }
}

impl CreatedInteraction {
    /// Its type.
    pub fn kind(&self) -> InteractionType {
        match self.interaction {
            Interaction::Ua { .. } => InteractionType::Ua,
            Interaction::Prompt { .. } => InteractionType::Prompt,
        }
    }

    /// The same request said as an elicitation's params (a prompt is a form request, a `ua`
    /// is a URL request whose `elicitationId` is the interaction's id), for one admission of
    /// every kind. A `ua` without a message gets an empty one.
    pub fn as_elicitation(&self) -> Value {
        match &self.interaction {
            Interaction::Prompt { message, schema } => json!({
                "mode": "form",
                "message": message,
                "requestedSchema": schema,
            }),
            Interaction::Ua { url, message } => json!({
                "mode": "url",
                "message": message.as_deref().unwrap_or_default(),
                "url": url,
                "elicitationId": self.id,
            }),
        }
    }

    /// The `interaction/create` params.
    pub fn to_params(&self) -> Value {
        json!({
            "id": self.id,
            "type": self.kind().as_str(),
            "interaction": self.fields(),
        })
    }

    /// The `-32003` error carrying this interaction (`data` holds `id`, `type` and the
    /// interaction's fields side by side, as in the draft's example).
    pub fn to_required_error(&self) -> ErrorData {
        let mut data = Map::new();
        data.insert("id".into(), Value::from(self.id.clone()));
        data.insert("type".into(), Value::from(self.kind().as_str()));
        if let Value::Object(fields) = self.fields() {
            data.extend(fields);
        }
        ErrorData::new(
            INTERACTION_REQUIRED,
            INTERACTION_REQUIRED_MESSAGE,
            Some(Value::Object(data)),
        )
    }

    fn fields(&self) -> Value {
        match &self.interaction {
            Interaction::Ua { url, message } => {
                let mut o = Map::new();
                o.insert("url".into(), Value::from(url.clone()));
                if let Some(text) = message {
                    o.insert("message".into(), text_content(text));
                }
                Value::Object(o)
            }
            Interaction::Prompt { message, schema } => json!({
                "message": text_content(message),
                "schema": schema,
            }),
        }
    }
}

/// A `TextContent` object.
fn text_content(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

/// Reads `interaction/create` params. Fields are named as the draft names them
/// (`interaction.url`, `interaction.schema`).
pub fn parse_create(params: &Value) -> Result<CreatedInteraction, InteractionError> {
    let o = params
        .as_object()
        .ok_or_else(|| InteractionError::new("params", "must be an object"))?;
    let interaction = o
        .get("interaction")
        .and_then(Value::as_object)
        .ok_or_else(|| InteractionError::new("interaction", "is required and must be an object"))?;
    parse(o, interaction, "interaction.")
}

/// Reads the `data` of a `-32003` error: `id`, `type` and the interaction's fields side by
/// side (leniently, also nested under `interaction` as in `interaction/create`).
pub fn parse_required(data: Option<&Value>) -> Result<CreatedInteraction, InteractionError> {
    let o = data
        .and_then(Value::as_object)
        .ok_or_else(|| InteractionError::new("error.data", "is required and must be an object"))?;
    match o.get("interaction").and_then(Value::as_object) {
        Some(nested) => parse(o, nested, "error.data.interaction."),
        None => parse(o, o, "error.data."),
    }
}

fn parse(
    outer: &Map<String, Value>,
    fields: &Map<String, Value>,
    prefix: &str,
) -> Result<CreatedInteraction, InteractionError> {
    let top = if prefix.starts_with("error.data") {
        "error.data."
    } else {
        ""
    };
    let id = match outer.get("id") {
        Some(Value::String(id)) if !id.is_empty() && id.chars().count() <= MAX_ID_CHARS => {
            id.clone()
        }
        // A number is an id too, for lenient peers; kept as its text.
        Some(Value::Number(n)) => n.to_string(),
        _ => {
            return Err(InteractionError::new(
                &format!("{top}id"),
                &format!("is required and must be a string of 1 to {MAX_ID_CHARS} characters"),
            ));
        }
    };
    let kind = match outer.get("type").and_then(Value::as_str) {
        Some(name) => InteractionType::parse(name).ok_or_else(|| {
            InteractionError::new(
                &format!("{top}type"),
                &format!("must be \"ua\" or \"prompt\", found \"{name}\""),
            )
        })?,
        None => {
            return Err(InteractionError::new(
                &format!("{top}type"),
                "is required and must be \"ua\" or \"prompt\"",
            ));
        }
    };
    let message = |required: bool| -> Result<Option<String>, InteractionError> {
        let field = format!("{prefix}message");
        match fields.get("message") {
            None | Some(Value::Null) if !required => Ok(None),
            // Lenient: a bare string is the text.
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(Value::Object(content)) => {
                match (
                    content.get("type").and_then(Value::as_str),
                    content.get("text"),
                ) {
                    (Some("text"), Some(Value::String(text))) => Ok(Some(text.clone())),
                    _ => Err(InteractionError::new(
                        &field,
                        "must be a TextContent object ({\"type\": \"text\", \"text\": …})",
                    )),
                }
            }
            _ => Err(InteractionError::new(
                &field,
                "is required and must be a TextContent object ({\"type\": \"text\", \"text\": …})",
            )),
        }
    };
    let interaction = match kind {
        InteractionType::Ua => {
            let url = fields
                .get("url")
                .and_then(Value::as_str)
                .filter(|u| !u.is_empty())
                .ok_or_else(|| {
                    InteractionError::new(
                        &format!("{prefix}url"),
                        "is required and must be a non-empty string",
                    )
                })?;
            Interaction::Ua {
                url: url.to_owned(),
                message: message(false)?,
            }
        }
        InteractionType::Prompt => {
            let schema = fields
                .get("schema")
                .filter(|s| s.is_object())
                .cloned()
                .ok_or_else(|| {
                    InteractionError::new(
                        &format!("{prefix}schema"),
                        "is required and must be a JSON Schema object",
                    )
                })?;
            Interaction::Prompt {
                message: message(true)?.unwrap_or_default(),
                schema,
            }
        }
    };
    Ok(CreatedInteraction { id, interaction })
}

/// The client's result for an accepted `prompt`: `{"content": {…}}`.
pub fn prompt_result(content: Map<String, Value>) -> Value {
    json!({ "content": content })
}

/// The client's result for a `ua` the person consented to and that was opened: `{}`.
pub fn ua_result() -> Value {
    Value::Object(Map::new())
}

/// The client's error for an interaction the person declined or cancelled: code `-1` and the
/// draft's message, with `data.action` (`"decline"` or `"cancel"`) for servers that care which.
pub fn not_consented(action: &str) -> ErrorData {
    ErrorData::new(
        NOT_CONSENTED,
        NOT_CONSENTED_MESSAGE,
        Some(json!({ "action": action })),
    )
}

/// The `interaction/notify` params for interaction `id` (rmcp adds `_meta.progressToken` to
/// every request it sends).
pub fn notify_params(id: &str) -> Value {
    json!({ "id": id })
}

/// The interaction id an `interaction/notify` names, if it names one as a string.
pub fn notify_id(params: Option<&Value>) -> Option<&str> {
    params?.get("id")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_examples_read_as_written() {
        let prompt = json!({"id": "c8ec9a71", "type": "prompt", "interaction": {
            "message": {"type": "text", "text": "Let us know some information about you."},
            "schema": {"type": "object", "properties": {"name": {"type": "string"}},
                       "required": ["name"]}}});
        let created = parse_create(&prompt).unwrap();
        assert_eq!(created.kind(), InteractionType::Prompt);
        assert_eq!(created.to_params(), prompt, "re-emitted exactly");
        let elicit = created.as_elicitation();
        assert_eq!(elicit["mode"], "form");
        assert_eq!(elicit["message"], "Let us know some information about you.");

        let error_data = json!({"id": "c8ec9a71", "type": "ua",
            "url": "https://oauth.example.com/authorize?client_id=abc123",
            "message": {"type": "text", "text": "Authorization is required."}});
        let required = parse_required(Some(&error_data)).unwrap();
        assert_eq!(
            required.interaction,
            Interaction::Ua {
                url: "https://oauth.example.com/authorize?client_id=abc123".into(),
                message: Some("Authorization is required.".into()),
            }
        );
        let error = required.to_required_error();
        assert_eq!(error.code, INTERACTION_REQUIRED);
        assert_eq!(error.message, "interaction_required");
        assert_eq!(error.data, Some(error_data));
    }

    #[test]
    fn bad_params_name_the_field() {
        let cases = [
            (json!([]), "params"),
            (json!({"id": "a", "type": "ua"}), "interaction"),
            (json!({"type": "ua", "interaction": {"url": "x"}}), "id"),
            (
                json!({"id": "a", "type": "form", "interaction": {}}),
                "type",
            ),
            (
                json!({"id": "a", "type": "ua", "interaction": {}}),
                "interaction.url",
            ),
            (
                json!({"id": "a", "type": "prompt", "interaction": {"message": {"type": "text", "text": "x"}}}),
                "interaction.schema",
            ),
            (
                json!({"id": "a", "type": "prompt", "interaction": {"schema": {}}}),
                "interaction.message",
            ),
            (
                json!({"id": "a", "type": "ua", "interaction": {"url": "https://x", "message": {"type": "image"}}}),
                "interaction.message",
            ),
        ];
        for (params, field) in cases {
            let error = parse_create(&params).unwrap_err();
            assert_eq!(error.field, field, "{params}");
        }
        assert_eq!(parse_required(None).unwrap_err().field, "error.data");
        assert_eq!(
            parse_required(Some(&json!({"id": "a", "type": "ua"})))
                .unwrap_err()
                .field,
            "error.data.url"
        );
    }

    #[test]
    fn the_capability_is_declared_top_level_and_read_from_experimental() {
        let mut message = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}}});
        if let Some(params) = message.get_mut("params") {
            declare_in_initialize(params, &UserInteractionCapability::all());
        }
        assert_eq!(
            message["params"]["capabilities"]["userInteraction"],
            json!({"types": ["ua", "prompt"], "progress": true})
        );
        assert!(normalize_initialize(&mut message));
        assert!(!normalize_initialize(&mut message), "once");
        let caps: ClientCapabilities =
            serde_json::from_value(message["params"]["capabilities"].clone()).unwrap();
        let declared = UserInteractionCapability::declared_by(&caps).unwrap();
        assert!(declared.progress && declared.supports(InteractionType::Ua));

        let mut other = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert!(!normalize_initialize(&mut other));
        let none: ClientCapabilities = serde_json::from_value(json!({})).unwrap();
        assert_eq!(UserInteractionCapability::declared_by(&none), None);
    }

    #[test]
    fn answers_have_the_drafts_shapes() {
        let mut content = Map::new();
        content.insert("name".into(), json!("Monalisa"));
        assert_eq!(
            prompt_result(content),
            json!({"content": {"name": "Monalisa"}})
        );
        assert_eq!(ua_result(), json!({}));
        let refused = not_consented("decline");
        assert_eq!(refused.code.0, -1);
        assert_eq!(refused.message, NOT_CONSENTED_MESSAGE);
        assert_eq!(notify_id(Some(&notify_params("i9"))), Some("i9"));
    }
}
