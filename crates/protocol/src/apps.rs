//! MCP Apps (the `io.modelcontextprotocol/ui` extension, stable 2026-01-26): the names, the
//! metadata a server attaches to tools and `ui://` resources, and the methods a view and its
//! host exchange — with the older spellings apps still use, read as aliases:
//!
//! - seed 001 (the MCP-UI draft): `mcp-ui/…` methods and `_meta` keys, MIME type `text/html`;
//! - the early SEP draft: `text/html+mcp`, `ui/size-change`, `ui/notifications/sandbox-ready`, …;
//! - ChatGPT's Apps SDK ("skybridge"): `text/html+skybridge`, `openai/outputTemplate`,
//!   `openai/widgetCSP`, `openai/widgetAccessible`, …
//!
//! Reading is lenient about spelling and strict about meaning: a `resourceUri` that is not a
//! `ui://` URI is an error naming the key, never a view.
//!
//! ```
//! use interlude_protocol::apps::{ToolUi, Visibility};
//! use serde_json::json;
//!
//! let meta = json!({"ui": {"resourceUri": "ui://clock/view.html", "visibility": ["app"]}});
//! let ui = ToolUi::from_meta(meta.as_object().unwrap()).unwrap().unwrap();
//! assert_eq!(ui.resource_uri.as_deref(), Some("ui://clock/view.html"));
//! assert_eq!(ui.visibility, Visibility::APP_ONLY);
//! assert!(!ui.visibility.model);
//! ```

mod meta;
mod methods;

pub use meta::{
    Permissions, ResourceCsp, ResourceUi, ToolUi, UiDialect, UiMetaError, Visibility, is_app_mime,
};
pub use methods::{Direction, Method, canonical};

/// The extension's id in `capabilities.extensions` (client and server).
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML resource.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The version of the view ⇄ host protocol this host speaks (`ui/initialize`).
pub const BRIDGE_VERSION: &str = "2026-01-26";

/// The flat tool `_meta` key for the view's resource (deprecated in favour of
/// `_meta.ui.resourceUri`, still written by servers for older hosts).
pub const RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// What a host declares under [`EXTENSION_ID`] in its client capabilities: the MIME types it
/// renders, and `elicitation: {}` when it renders app-rendered elicitations (SEP-3118).
///
/// ```
/// let declared = interlude_protocol::apps::client_extension(true);
/// assert_eq!(declared["mimeTypes"][0], "text/html;profile=mcp-app");
/// assert!(declared.contains_key("elicitation"));
/// ```
pub fn client_extension(elicitation: bool) -> serde_json::Map<String, serde_json::Value> {
    let mut declared = serde_json::Map::new();
    declared.insert("mimeTypes".into(), serde_json::json!([MIME_TYPE]));
    if elicitation {
        declared.insert("elicitation".into(), serde_json::json!({}));
    }
    declared
}

/// The `_meta` key under which a host that refused a view's answer to a forwarded
/// `elicitation/create` (content outside the requested schema) tells the view why, when it
/// forwards the same request again: a list of `{"field", "message"}`. Interlude's own
/// addition to SEP-3118, which leaves the view uninformed; views that do not know it just show
/// the question again.
pub const ANSWER_ERRORS_META_KEY: &str = "dev.interlude/answerErrors";

/// Whether an extension declaration (the client's or the server's value under
/// [`EXTENSION_ID`]) offers app-rendered elicitation (SEP-3118: an `elicitation` object in it).
///
/// ```
/// use interlude_protocol::apps::{client_extension, declares_elicitation};
/// assert!(declares_elicitation(Some(&serde_json::Value::Object(client_extension(true)))));
/// assert!(!declares_elicitation(Some(&serde_json::Value::Object(client_extension(false)))));
/// assert!(!declares_elicitation(None));
/// ```
pub fn declares_elicitation(extension: Option<&serde_json::Value>) -> bool {
    extension
        .and_then(|e| e.get("elicitation"))
        .is_some_and(serde_json::Value::is_object)
}

/// The view a form `elicitation/create` asks to be shown in (SEP-3118): the string at
/// `_meta.ui.resourceUri`, as sent (a host checks it is a `ui://` URI of the asking server).
///
/// ```
/// use interlude_protocol::apps::elicitation_view;
/// let meta = serde_json::json!({"ui": {"resourceUri": "ui://demo/portfolio"}});
/// assert_eq!(elicitation_view(meta.as_object().unwrap()), Some("ui://demo/portfolio"));
/// assert_eq!(elicitation_view(&Default::default()), None);
/// ```
pub fn elicitation_view(meta: &serde_json::Map<String, serde_json::Value>) -> Option<&str> {
    meta.get("ui")?.get("resourceUri")?.as_str()
}
