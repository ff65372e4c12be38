//! App views as the page shows them: where the page frames each from, what it said, and the
//! web page an embedded one shows.

use super::links::{LinkEntry, link_entry};
use super::*;

/// One app view: where the page frames it from, and what it said.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ViewEntry {
    id: u64,
    /// The call it shows (or that raised the question it renders).
    call: Option<u64>,
    /// The app-rendered form it renders: the page frames it in that request's card.
    request: Option<u64>,
    /// It said `initialized`.
    live: bool,
    server: String,
    tool: String,
    resource_uri: String,
    /// `loading`, `open`, `failed` or `closed`.
    state: ViewStateEntry,
    error: Option<String>,
    /// The proxy document's address (the page adds its own origin as `h`), once open.
    src: Option<String>,
    /// The view's sandbox origin: messages from its frame must come from it.
    origin: Option<String>,
    allow: String,
    height: Option<u32>,
    display_mode: String,
    prefers_border: Option<bool>,
    /// Its resource declared other sites it talks to.
    external: bool,
    refused_domains: Vec<String>,
    /// Where its call's result carried it (MCP-UI: the index in the result's `content`).
    embedded: Option<usize>,
    /// The web page it shows (an embedded external URL), judged by the URL rules, and whether
    /// the person chose to show it framed.
    site: Option<SiteEntry>,
    /// What it put in the conversation (`ui/message`, MCP-UI's `prompt`): content blocks.
    messages: Vec<Value>,
    /// What it asked to have done (MCP-UI's `intent`): `{intent, params}`.
    intents: Vec<Value>,
    /// Its notices (MCP-UI's `notify`).
    notices: Vec<String>,
    /// Its last log lines.
    logs: Vec<Value>,
    /// Its console's lines, oldest first: `{level, text}`.
    console: Vec<Value>,
    model_context: Option<Value>,
    /// Files it offers to save: `{question, files: [{name, mimeType, size}]}` (the content is
    /// fetched when the person saves).
    downloads: Vec<Value>,
    /// The view's own tools (`{name, description}`), and its latest results.
    app_tools: Vec<Value>,
    app_tool_results: Vec<Value>,
}

/// An embedded web page, as the person sees it before choosing to show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct SiteEntry {
    /// The link as a consent screen shows it (its `stage` is always `consent`).
    link: LinkEntry,
    /// The person chose to show it framed.
    framed: bool,
}

/// Where an app view stands, as the page reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum ViewStateEntry {
    Loading,
    Open,
    Failed,
    Closed,
}

pub(super) fn view_entry(v: &ViewRecord, snapshot: &HostSnapshot, sandbox: &Sandbox) -> ViewEntry {
    let server = snapshot
        .servers
        .iter()
        .find(|s| s.id == v.server)
        .map_or_else(String::new, |s| s.name.clone());
    let (state, error) = match &v.state {
        ViewState::Loading => (ViewStateEntry::Loading, None),
        ViewState::Open => (ViewStateEntry::Open, None),
        ViewState::Failed { reason } => (ViewStateEntry::Failed, Some(reason.clone())),
        ViewState::Closed => (ViewStateEntry::Closed, None),
    };
    ViewEntry {
        id: v.id.0,
        call: v.call.map(|c| c.0),
        request: v.request.map(|r| r.0),
        live: v.live_at_ms.is_some(),
        server,
        tool: v.tool.clone(),
        resource_uri: v.resource_uri.clone(),
        state,
        error,
        // An embedded web page is framed only once the person chose to.
        src: (state == ViewStateEntry::Open && v.site.as_ref().is_none_or(|s| s.framed))
            .then(|| sandbox.src(v))
            .flatten(),
        origin: sandbox.origin(v),
        allow: v.allow.clone(),
        height: v.height,
        display_mode: v.display_mode.clone(),
        prefers_border: v.prefers_border,
        external: v.external,
        refused_domains: v.refused_domains.clone(),
        embedded: v.embedded,
        site: v.site.as_ref().map(|site| SiteEntry {
            link: link_entry(&site.url, &site.check, UrlStage::Consent, None, false),
            framed: site.framed,
        }),
        messages: v.messages.clone(),
        intents: v
            .intents
            .iter()
            .map(|(intent, params)| serde_json::json!({"intent": intent, "params": params}))
            .collect(),
        notices: v.notices.iter().cloned().collect(),
        logs: v
            .logs
            .iter()
            .rev()
            .take(5)
            .map(|(level, data)| serde_json::json!({"level": level, "data": data}))
            .collect(),
        console: v
            .console
            .iter()
            .map(|(level, text)| serde_json::json!({"level": level, "text": text}))
            .collect(),
        model_context: v.model_context.clone(),
        downloads: v
            .downloads
            .iter()
            .map(|d| {
                let files: Vec<Value> = d
                    .files
                    .iter()
                    .map(|f| serde_json::json!({"name": f.name, "mimeType": f.mime_type, "size": f.size}))
                    .collect();
                serde_json::json!({"question": d.question, "files": files})
            })
            .collect(),
        app_tools: v
            .app_tools
            .iter()
            .map(|t| serde_json::json!({"name": t.get("name"), "description": t.get("description")}))
            .collect(),
        app_tool_results: v
            .app_tool_results
            .iter()
            .map(|(name, result)| match result {
                Ok(r) => serde_json::json!({"name": name, "result": r}),
                Err(e) => serde_json::json!({"name": name, "error": e}),
            })
            .collect(),
    }
}
