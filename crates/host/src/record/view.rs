//! An MCP Apps view as the record keeps it ([`ViewRecord`]): where it stands, what it offered to
//! save, the web page it shows, what it said.
//!
//! What it does not do: run the view's bridge (the engine does) or open it (`crate::views`).

use std::collections::VecDeque;
use std::sync::Arc;

use interlude_engine::{CallId, RequestId, ServerId, ViewId};

/// Where an app view stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewState {
    /// Its resource is being read from the server.
    Loading,
    /// Its resource is read and its bridge open: the surface shows it.
    Open,
    /// It could not open (the resource could not be read or is not an app); the call's text
    /// result stands alone.
    Failed {
        /// Why, in a sentence.
        reason: String,
    },
    /// It was closed.
    Closed,
}

/// A file a view offers to save (`ui/download-file`), waiting for the person.
#[derive(Debug, Clone, PartialEq)]
pub struct FileOffer {
    /// The question's number, to answer with [`Host::answer_download`](crate::Host::answer_download).
    pub question: u64,
    /// The files: name (the resource URI's last segment, cleaned), MIME type, and content
    /// (`text`, or base64 `blob`).
    pub files: Vec<OfferedFile>,
}

/// One file of a [`FileOffer`].
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedFile {
    /// A file name safe to save under.
    pub name: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Text content, or base64 (`blob`).
    pub text: Option<String>,
    /// See [`OfferedFile::text`].
    pub blob: Option<String>,
    /// Its size in bytes (of the text, or of the decoded blob).
    pub size: usize,
}

/// One MCP Apps view: the `ui://` resource a tool's call shows its result in, with what the
/// surface needs to show it and what the view said.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewRecord {
    /// The host's id for it.
    pub id: ViewId,
    /// The server whose resource it is (and the only one it may reach).
    pub server: ServerId,
    /// The call it shows, or the call that raised the request it renders (when known).
    pub call: Option<CallId>,
    /// The app-rendered form (SEP-3118) it renders, if that is what it is for: the surface
    /// shows it in that request's card, not beside a call.
    pub request: Option<RequestId>,
    /// The tool called (empty for a request's view raised outside any known call).
    pub tool: String,
    /// Its resource.
    pub resource_uri: String,
    /// Where its call's result carried it, when the server embedded it there (MCP-UI's way:
    /// the index in the result's `content`); `None` for a view the tool declares
    /// (`_meta.ui.resourceUri`) and for a question's view.
    pub embedded: Option<usize>,
    /// The web page it shows, for an embedded external URL: framed only once the person
    /// chose to ([`Host::show_site`](crate::Host::show_site)).
    pub site: Option<ExternalSite>,
    /// Where it stands.
    pub state: ViewState,
    /// Its HTML, once its resource is read (the surface serves it to the view's frame).
    pub html: Option<Arc<str>>,
    /// The dialect its resource is written in (the surface adds the Apps SDK's `window.openai`
    /// for [`UiDialect::Skybridge`](interlude_protocol::apps::UiDialect)).
    pub dialect: interlude_protocol::apps::UiDialect,
    /// Its `Content-Security-Policy` and iframe `allow` list, once its resource is read.
    pub csp: Option<String>,
    /// See [`ViewRecord::csp`].
    pub allow: String,
    /// The resource declared other sites it talks to (the person may be told).
    pub external: bool,
    /// Declared CSP entries the host refused, with why.
    pub refused_domains: Vec<String>,
    /// Whether it wants a border and background.
    pub prefers_border: Option<bool>,
    /// The origin of its own it declared (`_meta.ui.domain`), once its resource is read: a
    /// surface gives it an origin apart from its server's other views.
    pub domain: Option<String>,
    /// The height it asked for (`size-changed`), in CSS pixels.
    pub height: Option<u32>,
    /// The display mode it is shown in.
    pub display_mode: String,
    /// What it put in the conversation (`ui/message`, MCP-UI's `prompt`), in order.
    pub messages: Vec<serde_json::Value>,
    /// What it asked to have done (MCP-UI's `intent`: name and parameters), the last 20.
    pub intents: VecDeque<(String, serde_json::Value)>,
    /// Its notices for the person (MCP-UI's `notify`), the last 20.
    pub notices: VecDeque<String>,
    /// What it last said a model should know (`ui/update-model-context`).
    pub model_context: Option<serde_json::Value>,
    /// Its latest log lines (level, data), the last 50.
    pub logs: VecDeque<(String, serde_json::Value)>,
    /// Its console's latest lines (level, text), the last 200: `console.log` and friends, and
    /// its uncaught errors.
    pub console: VecDeque<(String, String)>,
    /// Files it offers to save, waiting for the person.
    pub downloads: Vec<FileOffer>,
    /// The tools the view itself offers (`Tool` objects as JSON), for a model — or the person
    /// in its place — to call ([`Host::call_view_tool`](crate::Host::call_view_tool)).
    pub app_tools: Vec<serde_json::Value>,
    /// The latest calls of those tools (tool name, result or error), the last 5.
    pub app_tool_results: VecDeque<(String, Result<serde_json::Value, String>)>,
    /// When it was opened, and when it said `initialized` (live), in milliseconds since the
    /// Unix epoch.
    pub opened_at_ms: u64,
    /// See [`ViewRecord::opened_at_ms`].
    pub live_at_ms: Option<u64>,
}

/// A web page a server embedded in a tool result (an external URL), as the host judged it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalSite {
    /// The page's address.
    pub url: String,
    /// The URL rules' verdict on it, with how to show it (the registrable domain apart).
    pub check: interlude_engine::url_safety::UrlCheck,
    /// The person chose to show it framed (sandboxed, without its own origin's rights).
    pub framed: bool,
}
