//! MCP Apps for server authors: serve `ui://` HTML resources that hosts render next to a tool's
//! result, link tools to them, mark tools only views may call, and tell whether the client
//! renders apps at all.
//!
//! A view is an HTML document the host shows in a sandboxed iframe; it talks to the host with
//! the view ⇄ host protocol (`ui/initialize`, `tools/call` back to this server, …). Hosts that
//! do not render apps ignore all of this and show the tool's `content` — so a tool's text
//! result must make sense on its own ([`supports_apps`] lets a tool say more when there is no
//! view).
//!
//! ```
//! use interlude_server::apps::{AppResource, Apps, Visibility, tool_meta};
//!
//! let apps = Apps::new().with(
//!     AppResource::new("ui://weather/dashboard.html", "<!doctype html><title>Weather</title>")
//!         .unwrap()
//!         .title("Weather dashboard")
//!         .connect_domains(["https://api.weather.example"]),
//! );
//! assert_eq!(apps.list()[0].mime_type.as_deref(), Some("text/html;profile=mcp-app"));
//! assert!(apps.read("ui://weather/dashboard.html").is_some());
//!
//! // In a `#[tool(meta = …)]` attribute: the view, under both keys hosts read.
//! let meta = tool_meta("ui://weather/dashboard.html", Visibility::DEFAULT);
//! assert_eq!(meta.0["ui/resourceUri"], "ui://weather/dashboard.html");
//! ```
//!
//! # A view inside a result (MCP-UI's way)
//!
//! Older than MCP Apps, and still what `@mcp-ui/server`'s `createUIResource` sends: the tool's
//! result itself carries the view, as an embedded `ui://` resource. Nothing of this crate is
//! needed — it is an ordinary embedded resource. Interlude renders it beside the call (and
//! understands MCP-UI's `postMessage` actions, `tool`, `prompt`, `intent`, `notify`, `link`);
//! so do Goose, LibreChat and Postman. A `text/uri-list` resource names a web page instead,
//! which Interlude frames only once the person chooses to. Keep a text item beside it for
//! hosts that render neither.
//!
//! ```
//! use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
//!
//! let html = r#"<button onclick="parent.postMessage({type: 'tool',
//!     payload: {toolName: 'refresh', params: {}}}, '*')">Refresh</button>"#;
//! let result = CallToolResult::success(vec![
//!     ContentBlock::text("Your dashboard (a view)."),
//!     ContentBlock::resource(
//!         ResourceContents::text(html, "ui://dashboard/1")
//!             .with_mime_type("text/html;profile=mcp-app"),
//!     ),
//! ]);
//! assert_eq!(result.content.len(), 2);
//! ```

//!
//! # Writing the view
//!
//! The view speaks JSON-RPC 2.0 with its host over `postMessage` (MCP Apps, stable revision
//! `2026-01-26`): it asks `ui/initialize` (`appInfo`, `appCapabilities`, `protocolVersion:
//! "2026-01-26"`), says `ui/notifications/initialized`, then receives the call's
//! `ui/notifications/tool-input` and `ui/notifications/tool-result`; it may call its server's
//! tools (`tools/call`, relayed by the host only to tools whose visibility includes `app`),
//! and it must say its size (`ui/notifications/size-changed`, `{width, height}`) whenever it
//! changes, or the host keeps the frame's first height. It answers the host's
//! `ui/resource-teardown` (and `ping`) with `{}`.
//!
//! Two ways to write one:
//!
//! - **One HTML document, no bundler**: inline [`VIEW_HELPER_JS`] (this crate's
//!   `assets/app-view.js`, no dependencies) in a `<script type="module">` and call its
//!   `connectView` after it. It does the handshake, resizes, answers the host, and — given
//!   `onQuestion` — renders questions asked with [`Ask::form_in_view`](crate::Ask::form_in_view).
//!   The `app_view` example (`cargo run -p interlude-server --example app_view`) is a complete
//!   one.
//!
//!   ```
//!   use interlude_server::apps::{AppResource, VIEW_HELPER_JS};
//!
//!   let script = r#"
//!     const view = await connectView({
//!       name: 'greeter', version: '1.0.0',
//!       onToolResult: (result) => {
//!         document.querySelector('#out').textContent = result.content?.[0]?.text ?? '';
//!       },
//!     });
//!     document.querySelector('#again').onclick = async () => {
//!       const result = await view.callTool('greet', {});
//!       document.querySelector('#out').textContent = result.content?.[0]?.text ?? '';
//!     };
//!   "#;
//!   let html = format!(
//!       "<!doctype html><p id=out></p><button id=again>Again</button>\
//!        <script type=module>{VIEW_HELPER_JS}\n{script}</script>"
//!   );
//!   let view = AppResource::new("ui://greeter/view.html", html).unwrap();
//!   # let _ = view;
//!   ```
//! - **With a bundler**: the `App` class of `@modelcontextprotocol/ext-apps` (npm) does the
//!   same in TypeScript: `const app = new App({name, version}, capabilities)`, set
//!   `app.ontoolresult`, `app.onteardown = async () => ({})` (without it the host's teardown is
//!   answered -32601), then `await app.connect()`; `app.callServerTool({name, arguments})`
//!   calls a tool, and the size is sent by itself. Bundle the view into one HTML file (Vite
//!   with `vite-plugin-singlefile`, say) and serve that file's text as the [`AppResource`]:
//!   a view's scripts are not fetched from the server, only what its CSP allows.
//!   For questions in such a view, [`ELICITATION_HELPER_JS`] registers the handler on the
//!   `App`.

use std::sync::Arc;

use interlude_protocol::apps::{
    EXTENSION_ID, MIME_TYPE, RESOURCE_URI_KEY, ResourceCsp, ResourceUi,
};
pub use interlude_protocol::apps::{Permissions, Visibility};
use rmcp::model::{
    ClientCapabilities, MetaObject, ReadResourceResult, Resource, ResourceContents,
    ServerCapabilities,
};
use serde_json::{Map, Value};

/// The MIME type of a view written for ChatGPT's Apps SDK.
pub const SKYBRIDGE_MIME_TYPE: &str = "text/html+skybridge";

/// The view-side helper for app-rendered elicitation, for views built on the MCP Apps SDK 2.x
/// (an ES module without dependencies: `ELICITATION_CAPABILITIES`, `handleElicitations(app,
/// render)`, `answerErrors(params)`). Serve it with your view, or copy it into your bundle; the
/// file is `assets/app-elicitation.js` in this crate.
///
/// ```
/// assert!(interlude_server::apps::ELICITATION_HELPER_JS.contains("export function handleElicitations"));
/// ```
pub const ELICITATION_HELPER_JS: &str = include_str!("../assets/app-elicitation.js");

/// The view-side helper for one-document views, without a bundler (an ES module without
/// dependencies, this crate's `assets/app-view.js`): `connectView(options)` does the MCP Apps
/// handshake (`ui/initialize` at protocol revision [`APPS_PROTOCOL_VERSION`]), sends
/// `ui/notifications/size-changed` as the document's size changes, hands the view the call's
/// input and result, calls the server's tools (`view.callTool(name, args)`), answers the host's
/// requests (`ui/resource-teardown`, `ping`) and, given `onQuestion`, the questions a server
/// asks in the view ([`Ask::form_in_view`](crate::Ask::form_in_view)). Inline it in the view's
/// `<script type="module">`, before the view's own code (see the module documentation).
///
/// ```
/// use interlude_server::apps::{APPS_PROTOCOL_VERSION, VIEW_HELPER_JS};
/// assert!(VIEW_HELPER_JS.contains("export async function connectView"));
/// assert!(VIEW_HELPER_JS.contains(APPS_PROTOCOL_VERSION));
/// ```
pub const VIEW_HELPER_JS: &str = include_str!("../assets/app-view.js");

/// The revision of the MCP Apps view ⇄ host protocol a view asks for in `ui/initialize`
/// (the stable one), as [`VIEW_HELPER_JS`] does.
///
/// ```
/// assert_eq!(interlude_server::apps::APPS_PROTOCOL_VERSION, "2026-01-26");
/// ```
pub const APPS_PROTOCOL_VERSION: &str = "2026-01-26";

/// A resource URI that is not `ui://…`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an app resource's URI must start with ui:// (got {0:?})")]
pub struct NotUiUri(pub String);

/// One app view: a `ui://` HTML document and what it declares (the domains it reaches, the
/// permissions it asks for, how it wants to be framed).
#[derive(Debug, Clone)]
pub struct AppResource {
    uri: String,
    mime_type: &'static str,
    name: String,
    title: Option<String>,
    description: Option<String>,
    html: Arc<str>,
    ui: ResourceUi,
}

impl AppResource {
    /// A view at `uri` (`ui://…`) with its HTML. It declares nothing yet: hosts give it the
    /// restrictive default policy (inline script and style, no network).
    pub fn new(uri: impl Into<String>, html: impl Into<Arc<str>>) -> Result<Self, NotUiUri> {
        let uri = uri.into();
        let valid = uri.len() > 5
            && uri
                .get(..5)
                .is_some_and(|scheme| scheme.eq_ignore_ascii_case("ui://"));
        if !valid {
            return Err(NotUiUri(uri));
        }
        Ok(AppResource {
            mime_type: MIME_TYPE,
            name: uri.clone(),
            uri,
            title: None,
            description: None,
            html: html.into(),
            ui: ResourceUi::default(),
        })
    }

    /// Its URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The same view for hosts of ChatGPT's Apps SDK: MIME type `text/html+skybridge`; the
    /// view uses `window.openai` (Interlude's web surface provides it on top of MCP Apps).
    #[must_use]
    pub fn apps_sdk(mut self) -> Self {
        self.mime_type = SKYBRIDGE_MIME_TYPE;
        self
    }

    /// A title for people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// A description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    fn csp(&mut self) -> &mut ResourceCsp {
        self.ui.csp.get_or_insert_with(ResourceCsp::default)
    }

    /// Origins the view may fetch from or open sockets to (`connectDomains`).
    #[must_use]
    pub fn connect_domains<S: Into<String>>(
        mut self,
        domains: impl IntoIterator<Item = S>,
    ) -> Self {
        self.csp()
            .connect_domains
            .extend(domains.into_iter().map(Into::into));
        self
    }

    /// Origins the view loads scripts, styles, images, fonts and media from
    /// (`resourceDomains`).
    #[must_use]
    pub fn resource_domains<S: Into<String>>(
        mut self,
        domains: impl IntoIterator<Item = S>,
    ) -> Self {
        self.csp()
            .resource_domains
            .extend(domains.into_iter().map(Into::into));
        self
    }

    /// Origins the view may frame (`frameDomains`).
    #[must_use]
    pub fn frame_domains<S: Into<String>>(mut self, domains: impl IntoIterator<Item = S>) -> Self {
        self.csp()
            .frame_domains
            .get_or_insert_with(Vec::new)
            .extend(domains.into_iter().map(Into::into));
        self
    }

    /// Browser permissions the view asks for (the host may grant them).
    #[must_use]
    pub fn permissions(mut self, permissions: Permissions) -> Self {
        self.ui.permissions = permissions;
        self
    }

    /// Asks for an origin of the view's own (`_meta.ui.domain`, host-specific): a host that
    /// honours it keeps the view's storage apart from the server's other views.
    #[must_use]
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.ui.domain = Some(domain.into());
        self
    }

    /// Whether the view wants the host's border and background around it.
    #[must_use]
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.ui.prefers_border = Some(border);
        self
    }

    /// `_meta` with the `ui` object, or none when nothing is declared.
    fn meta(&self) -> Option<MetaObject> {
        let ui = self.ui.to_wire();
        if ui.is_empty() {
            return None;
        }
        let mut meta = Map::new();
        meta.insert("ui".into(), Value::Object(ui));
        Some(MetaObject(meta))
    }

    /// Its entry in `resources/list`.
    pub fn listing(&self) -> Resource {
        let mut resource = Resource::new(self.uri.clone(), self.name.clone());
        resource.title = self.title.clone();
        resource.description = self.description.clone();
        resource.mime_type = Some(self.mime_type.to_owned());
        resource.meta = self.meta();
        resource
    }

    /// Its content, for `resources/read`: the HTML with the MIME type and the `_meta.ui`
    /// (hosts read the content item's metadata first).
    pub fn contents(&self) -> ResourceContents {
        ResourceContents::TextResourceContents {
            uri: self.uri.clone(),
            mime_type: Some(self.mime_type.to_owned()),
            text: self.html.to_string(),
            meta: self.meta(),
        }
    }
}

/// The app views of one server: what `resources/list` and `resources/read` answer, and the
/// capability to declare. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Apps {
    resources: Arc<Vec<AppResource>>,
}

impl Apps {
    /// No views yet.
    pub fn new() -> Self {
        Apps::default()
    }

    /// Adds a view (one with the same URI is replaced).
    #[must_use]
    pub fn with(mut self, resource: AppResource) -> Self {
        let list = Arc::make_mut(&mut self.resources);
        list.retain(|r| r.uri != resource.uri);
        list.push(resource);
        self
    }

    /// Every view, for `resources/list`.
    pub fn list(&self) -> Vec<Resource> {
        self.resources.iter().map(AppResource::listing).collect()
    }

    /// The view at `uri`, for `resources/read` (`.into()` makes the handler's response);
    /// `None` when this server has no such view.
    pub fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        self.resources
            .iter()
            .find(|r| r.uri == uri)
            .map(|r| ReadResourceResult::new(vec![r.contents()]))
    }

    /// Declares the extension (`capabilities.extensions["io.modelcontextprotocol/ui"]`) and
    /// resources, for a server's `get_info`.
    pub fn declare(capabilities: &mut ServerCapabilities) {
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .entry(EXTENSION_ID.to_owned())
            .or_default();
        if capabilities.resources.is_none() {
            capabilities.resources = Some(Default::default());
        }
    }

    /// [`Apps::declare`], and that this server asks questions in its views (app-rendered
    /// elicitation, SEP-3118: `elicitation: {}` inside the extension). Without it a host shows
    /// [`Ask::form_in_view`](crate::Ask::form_in_view)'s questions as plain forms.
    ///
    /// ```
    /// use interlude_server::apps::Apps;
    /// let mut capabilities = rmcp::model::ServerCapabilities::default();
    /// Apps::declare_with_elicitation(&mut capabilities);
    /// let ui = &capabilities.extensions.unwrap()["io.modelcontextprotocol/ui"];
    /// assert_eq!(ui["elicitation"], serde_json::json!({}));
    /// ```
    pub fn declare_with_elicitation(capabilities: &mut ServerCapabilities) {
        Apps::declare(capabilities);
        if let Some(ui) = capabilities
            .extensions
            .as_mut()
            .and_then(|e| e.get_mut(EXTENSION_ID))
        {
            ui.insert("elicitation".into(), Value::Object(Map::new()));
        }
    }
}

/// A tool's `_meta` linking it to its view under both keys hosts read (`_meta.ui.resourceUri`,
/// and the flat `ui/resourceUri` of older hosts), with who may call it.
pub fn tool_meta(resource_uri: &str, visibility: Visibility) -> MetaObject {
    let mut ui = Map::new();
    ui.insert("resourceUri".into(), Value::from(resource_uri));
    if visibility != Visibility::DEFAULT {
        ui.insert("visibility".into(), visibility.to_wire());
    }
    let mut meta = Map::new();
    meta.insert("ui".into(), Value::Object(ui));
    meta.insert(RESOURCE_URI_KEY.into(), Value::from(resource_uri));
    MetaObject(meta)
}

/// A tool's `_meta` for a tool without a view of its own, called only by the server's views
/// (`visibility: ["app"]`): hidden from the model.
///
/// ```
/// let meta = interlude_server::apps::app_only_meta();
/// assert_eq!(meta.0["ui"]["visibility"], serde_json::json!(["app"]));
/// ```
pub fn app_only_meta() -> MetaObject {
    let mut ui = Map::new();
    ui.insert("visibility".into(), Visibility::APP_ONLY.to_wire());
    let mut meta = Map::new();
    meta.insert("ui".into(), Value::Object(ui));
    MetaObject(meta)
}

/// Whether a client renders apps: it declares the extension with the app MIME type.
///
/// ```
/// use interlude_server::apps::supports_apps;
/// use rmcp::model::ClientCapabilities;
///
/// let caps: ClientCapabilities = serde_json::from_value(serde_json::json!({
///     "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
/// })).unwrap();
/// assert!(supports_apps(Some(&caps)));
/// assert!(!supports_apps(Some(&ClientCapabilities::default())));
/// ```
pub fn supports_apps(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|c| c.extensions.as_ref())
        .and_then(|e| e.get(EXTENSION_ID))
        .and_then(|ui| ui.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// Whether a client renders questions in app views (SEP-3118): it renders apps, declares form
/// elicitation, and offers `elicitation` inside the Apps extension.
///
/// ```
/// use interlude_server::apps::supports_app_elicitation;
/// use rmcp::model::ClientCapabilities;
///
/// let caps: ClientCapabilities = serde_json::from_value(serde_json::json!({
///     "elicitation": {"form": {}},
///     "extensions": {"io.modelcontextprotocol/ui": {
///         "mimeTypes": ["text/html;profile=mcp-app"], "elicitation": {}}}
/// })).unwrap();
/// assert!(supports_app_elicitation(Some(&caps)));
/// let mut without = caps.clone();
/// without.elicitation = None;
/// assert!(!supports_app_elicitation(Some(&without)));
/// ```
pub fn supports_app_elicitation(capabilities: Option<&ClientCapabilities>) -> bool {
    let form = capabilities
        .and_then(|c| c.elicitation.as_ref())
        .is_some_and(|e| e.form.is_some() || e.url.is_none());
    form && supports_apps(capabilities)
        && capabilities
            .and_then(|c| c.extensions.as_ref())
            .and_then(|e| e.get(EXTENSION_ID))
            .and_then(|ui| ui.get("elicitation"))
            .is_some_and(Value::is_object)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use interlude_protocol::apps::ToolUi;

    #[test]
    fn a_resource_declares_what_it_was_given_and_reads_back_the_same() {
        let resource = AppResource::new("ui://demo/weather.html", "<p>hi</p>")
            .unwrap()
            .connect_domains(["https://api.example"])
            .frame_domains(["https://maps.example"])
            .permissions(Permissions {
                geolocation: true,
                ..Permissions::default()
            })
            .prefers_border(false);
        let listing = resource.listing();
        let ResourceContents::TextResourceContents {
            meta,
            mime_type,
            text,
            ..
        } = resource.contents()
        else {
            panic!("text");
        };
        assert_eq!(text, "<p>hi</p>");
        assert_eq!(mime_type.as_deref(), Some(MIME_TYPE));
        let read = ResourceUi::from_meta(
            listing.meta.as_ref().map(|m| &m.0),
            meta.as_ref().map(|m| &m.0),
        )
        .unwrap();
        let csp = read.csp.unwrap();
        assert_eq!(csp.connect_domains, ["https://api.example"]);
        assert_eq!(
            csp.frame_domains,
            Some(vec!["https://maps.example".to_owned()])
        );
        assert!(read.permissions.geolocation);
        assert_eq!(read.prefers_border, Some(false));
        // Nothing declared: no `_meta` at all.
        assert!(
            AppResource::new("ui://a/b", "x")
                .unwrap()
                .listing()
                .meta
                .is_none()
        );
        assert!(AppResource::new("https://a/b", "x").is_err());
    }

    #[test]
    fn tool_meta_reads_back_as_the_view_and_visibility_it_names() {
        for visibility in [
            Visibility::DEFAULT,
            Visibility::MODEL_ONLY,
            Visibility::APP_ONLY,
        ] {
            let meta = tool_meta("ui://demo/v.html", visibility);
            let ui = ToolUi::from_meta(&meta.0).unwrap().unwrap();
            assert_eq!(ui.resource_uri.as_deref(), Some("ui://demo/v.html"));
            assert_eq!(ui.visibility, visibility);
        }
        let ui = ToolUi::from_meta(&app_only_meta().0).unwrap().unwrap();
        assert_eq!(
            (ui.resource_uri, ui.visibility),
            (None, Visibility::APP_ONLY)
        );
    }

    #[test]
    fn declaring_adds_the_extension_and_resources() {
        let mut caps = ServerCapabilities::default();
        Apps::declare(&mut caps);
        assert!(caps.extensions.unwrap().contains_key(EXTENSION_ID));
        assert!(caps.resources.is_some());
    }
}
