//! How a view opens: its resource read (ahead, at connect, into the [`ViewCache`]) and checked (HTML, dialect, declaration), its policy built, its record and its bridge's
//! configuration prepared ([`Opening`]), for a call or for an app form ([`ViewFor`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use interlude_engine::bridge::ViewConfig;
use interlude_engine::csp::{CspProfile, view_policy_with};
use interlude_engine::url_safety::DevOrigin;
use interlude_engine::{CallId, RequestId, ViewId};
use interlude_protocol::apps::{ResourceUi, UiDialect, Visibility};
use rmcp::model::{JsonObject, ServerCapabilities};
use rmcp::service::{Peer, RoleClient};
use serde_json::{Value, json};

use super::cache::{Prepared, ViewCache};
use crate::hub::inputs::ViewUpdate;
use crate::record::registry::{ServerRecord, ViewRecord, ViewState};
use crate::views::Views;

/// The `_meta` server `server` listed resource `uri` with (`resources/list`), if any.
pub(crate) fn listing_meta(server: &ServerRecord, uri: &str) -> Option<JsonObject> {
    server
        .apps
        .resources
        .iter()
        .find(|r| r.uri == uri)
        .and_then(|r| r.meta.clone())
        .map(|m| m.0)
}

/// What a view is opened for.
pub(crate) enum ViewFor {
    /// Call `call` of tool `tool` (with its arguments): the view shows it.
    Call {
        call: CallId,
        tool: String,
        arguments: Option<JsonObject>,
    },
    /// A UI resource the result of call `call` of tool `tool` carried, at `index` in its
    /// content (MCP-UI's way): the view shows it beside the call.
    Embedded {
        call: CallId,
        tool: String,
        arguments: Option<JsonObject>,
        index: usize,
    },
    /// The app-rendered form `request` (raised by call `call` of tool `tool`, when known): the
    /// view renders it.
    Request {
        request: RequestId,
        call: Option<CallId>,
        tool: Option<String>,
    },
}

/// A view about to open: its record, what its bridge starts with, and how its resource is
/// read. The one way a view opens, for a call or for a question.
pub(crate) struct Opening {
    record: ViewRecord,
    config: ViewConfig,
    tools: BTreeMap<String, Visibility>,
    arguments: Option<JsonObject>,
    listing: Option<JsonObject>,
    profile: CspProfile,
    /// The origins on this machine the person allowed for development (the host's
    /// `UrlPolicy::dev_origins`): the only local origins a view's declaration may reach.
    dev_origins: Vec<DevOrigin>,
}

impl Opening {
    /// Prepares view `view` of resource `uri` of `server`, under the views' settings (`views`:
    /// the apps configuration, the host's name, the development origins).
    pub(crate) fn new(
        server: &ServerRecord,
        capabilities: Option<&ServerCapabilities>,
        view: ViewId,
        uri: String,
        purpose: ViewFor,
        views: &Views,
    ) -> Opening {
        let (apps, client_name) = (&views.apps, views.client_name.as_str());
        let (call, request, tool, arguments, embedded) = match purpose {
            ViewFor::Call {
                call,
                tool,
                arguments,
            } => (Some(call), None, tool, arguments, None),
            ViewFor::Embedded {
                call,
                tool,
                arguments,
                index,
            } => (Some(call), None, tool, arguments, Some(index)),
            ViewFor::Request {
                request,
                call,
                tool,
            } => (call, Some(request), tool.unwrap_or_default(), None, None),
        };
        let tool_json = server
            .tools
            .iter()
            .find(|t| !tool.is_empty() && t.name == tool.as_str())
            .and_then(|t| serde_json::to_value(t).ok())
            .unwrap_or_else(|| {
                if tool.is_empty() {
                    Value::Null
                } else {
                    json!({"name": tool, "inputSchema": {"type": "object"}})
                }
            });
        let listing = listing_meta(server, &uri);
        let tools = server
            .tools
            .iter()
            .map(|t| (t.name.to_string(), server.visibility(&t.name)))
            .collect();
        let profile = apps.csp_profile;
        let config = ViewConfig {
            resource_uri: uri.clone(),
            html: "".into(),
            dialect: UiDialect::Apps,
            server_name: server.name.clone(),
            tool: tool_json,
            call_request_id: None,
            policy: interlude_engine::csp::view_policy(&Default::default(), profile),
            host_context: apps.context.clone(),
            display_modes: vec!["inline".into(), "fullscreen".into(), "pip".into()],
            host_info: json!({"name": client_name, "version": env!("CARGO_PKG_VERSION")}),
            server_tools: capabilities.is_some_and(|c| c.tools.is_some()),
            server_resources: capabilities.is_some_and(|c| c.resources.is_some()),
            server_prompts: capabilities.is_some_and(|c| c.prompts.is_some()),
            teardown_ms: u64::try_from(apps.teardown.as_millis()).unwrap_or(u64::MAX),
            call_burst: apps.call_burst,
            calls_per_minute: apps.calls_per_minute,
            max_height: apps.max_height,
            renders_question: false,
            render_data: serde_json::Map::new(),
        };
        let record = ViewRecord {
            id: view,
            server: server.id,
            call,
            request,
            tool,
            resource_uri: uri,
            embedded,
            site: None,
            state: ViewState::Loading,
            html: None,
            dialect: UiDialect::Apps,
            csp: None,
            allow: String::new(),
            external: false,
            refused_domains: Vec::new(),
            prefers_border: None,
            domain: None,
            height: None,
            display_mode: "inline".into(),
            messages: Vec::new(),
            intents: Default::default(),
            notices: Default::default(),
            model_context: None,
            logs: Default::default(),
            console: Default::default(),
            downloads: Vec::new(),
            app_tools: Vec::new(),
            app_tool_results: Default::default(),
            opened_at_ms: crate::clock::now_ms(),
            live_at_ms: None,
        };
        Opening {
            record,
            config,
            tools,
            arguments,
            listing,
            profile,
            dev_origins: views.url_policy.dev_origins.clone(),
        }
    }

    /// The web page the view shows (an embedded external URL).
    pub(crate) fn set_site(&mut self, site: crate::record::registry::ExternalSite) {
        self.record.site = Some(site);
    }

    /// The view's record as it starts (loading).
    pub(crate) fn record(&self) -> ViewRecord {
        self.record.clone()
    }

    /// The update at once, when the resource was read ahead.
    pub(crate) fn ready_from(&self, cache: &ViewCache) -> Option<ViewUpdate> {
        let prepared = cache.get(self.record.server, &self.record.resource_uri)?;
        Some(self.ready(Ok(prepared)))
    }

    /// Reads the resource from the server (and keeps it): the update that follows.
    pub(crate) async fn read(self, cache: &ViewCache, peer: &Peer<RoleClient>) -> ViewUpdate {
        let prepared = cache
            .read(
                peer,
                self.record.server,
                self.listing.clone(),
                &self.record.resource_uri,
            )
            .await;
        self.ready(prepared)
    }

    /// The update for an embedded HTML resource: its document and its own `_meta` (its
    /// `ui.csp` honoured; none declared is the default-deny policy), no read from the server.
    pub(crate) fn ready_embedded(
        &mut self,
        html: &str,
        dialect: UiDialect,
        meta: Option<&JsonObject>,
    ) -> ViewUpdate {
        if let Some(data) = meta
            .and_then(|m| m.get("mcpui.dev/ui-initial-render-data"))
            .and_then(Value::as_object)
        {
            self.config.render_data = data.clone();
        }
        let prepared = ResourceUi::from_meta(None, meta)
            .map(|ui| {
                Arc::new(Prepared {
                    html: html.into(),
                    dialect,
                    ui,
                })
            })
            .map_err(|e| format!("{}: {e}", self.record.resource_uri));
        self.ready(prepared)
    }

    fn ready(&self, prepared: Result<Arc<Prepared>, String>) -> ViewUpdate {
        let view = self.record.id;
        let request = self.record.request;
        let prepared = match prepared {
            Ok(prepared) => prepared,
            Err(reason) => {
                return ViewUpdate::Failed {
                    view,
                    reason,
                    request,
                };
            }
        };
        let (policy, refused_domains) =
            policy_fields(&prepared.ui, self.profile, &self.dev_origins);
        tracing::info!(%view, uri = %self.config.resource_uri, csp = %policy.csp, "app view opening");
        let mut config = self.config.clone();
        config.html = prepared.html.clone();
        config.dialect = prepared.dialect;
        let (csp, allow, external) = (policy.csp.clone(), policy.allow.clone(), policy.external);
        config.policy = policy;
        ViewUpdate::Ready {
            view,
            dialect: prepared.dialect,
            html: prepared.html.clone(),
            config: Box::new(config),
            tools: self.tools.clone(),
            arguments: self.arguments.clone(),
            request,
            csp,
            allow,
            external,
            refused_domains,
            prefers_border: prepared.ui.prefers_border,
            domain: prepared.ui.domain.clone().filter(|d| !d.trim().is_empty()),
        }
    }
}

/// The policy and its record fields, for a view's resource: each refused entry as `list
/// "entry": why` (e.g. `connectDomains "http://127.0.0.1:*": reaches this machine (loopback)`),
/// which the record keeps and the page shows with the view.
pub(crate) fn policy_fields(
    ui: &ResourceUi,
    profile: CspProfile,
    dev_origins: &[DevOrigin],
) -> (interlude_engine::csp::ViewPolicy, Vec<String>) {
    let policy = view_policy_with(ui, profile, dev_origins);
    let refused = policy
        .dropped
        .iter()
        .map(|d| format!("{} {:?}: {}", d.list, d.entry, d.reason))
        .collect();
    (policy, refused)
}
