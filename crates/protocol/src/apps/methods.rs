//! The methods a view, its sandbox proxy and the host exchange, with every older spelling.

use serde::Serialize;

use super::UiDialect;

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The view (the app in the inner iframe) to the host.
    ViewToHost,
    /// The host to the view.
    HostToView,
    /// Either way (`ping`, `notifications/cancelled`).
    Both,
    /// The sandbox proxy (outer iframe) to the host; never forwarded to the view.
    ProxyToHost,
    /// The host to the sandbox proxy; never forwarded to the view.
    HostToProxy,
}

/// A method of the view ⇄ host protocol (MCP Apps 2026-01-26), or a standard MCP method a view
/// may send to its server through the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Method {
    /// `ui/initialize` (request): the view's handshake.
    Initialize,
    /// `ui/notifications/initialized`: from here on the host may send notifications.
    Initialized,
    /// `ping` (request).
    Ping,
    /// `ui/notifications/tool-input`: the call's complete arguments.
    ToolInput,
    /// `ui/notifications/tool-input-partial`: arguments while they stream in.
    ToolInputPartial,
    /// `ui/notifications/tool-result`: the call's result.
    ToolResult,
    /// `ui/notifications/tool-cancelled`: the call ended without a result.
    ToolCancelled,
    /// `ui/notifications/host-context-changed`: the keys of the host context that changed.
    HostContextChanged,
    /// `ui/resource-teardown` (request): the view is about to go.
    ResourceTeardown,
    /// `ui/notifications/size-changed`: the view's content size.
    SizeChanged,
    /// `ui/notifications/request-teardown`: the view asks to be closed.
    RequestTeardown,
    /// `ui/open-link` (request).
    OpenLink,
    /// `ui/message` (request): a message for the conversation.
    Message,
    /// `ui/update-model-context` (request): what the model should know of the view's state.
    UpdateModelContext,
    /// `ui/request-display-mode` (request): inline, fullscreen or picture-in-picture.
    RequestDisplayMode,
    /// `ui/download-file` (request).
    DownloadFile,
    /// `notifications/message` (and the unshipped alias `ui/log`): a log line.
    Log,
    /// `ui/notifications/sandbox-proxy-ready`: the proxy is listening.
    SandboxProxyReady,
    /// `ui/notifications/sandbox-resource-ready`: the HTML (and CSP, permissions) for the proxy.
    SandboxResourceReady,
    /// `tools/call` (request), to the view's own server.
    ToolsCall,
    /// `tools/list` (request): to the server from a view, or to a view's own tools.
    ToolsList,
    /// `resources/read` (request).
    ResourcesRead,
    /// `resources/list` (request).
    ResourcesList,
    /// `resources/templates/list` (request).
    ResourceTemplatesList,
    /// `prompts/list` (request).
    PromptsList,
    /// `notifications/cancelled`.
    Cancelled,
    /// `notifications/progress`.
    Progress,
    /// `notifications/tools/list_changed`: a view's own tools changed (or, to a view, its
    /// server's).
    ToolsListChanged,
}

/// Every spelling: `(name, method, dialect it belongs to)`. The first entry of a method is its
/// current name; standard MCP names count as [`UiDialect::Apps`].
const NAMES: &[(&str, Method, UiDialect)] = &[
    ("ui/initialize", Method::Initialize, UiDialect::Apps),
    ("initialize", Method::Initialize, UiDialect::Seed),
    (
        "ui/notifications/initialized",
        Method::Initialized,
        UiDialect::Apps,
    ),
    (
        "notifications/initialized",
        Method::Initialized,
        UiDialect::Seed,
    ),
    ("ping", Method::Ping, UiDialect::Apps),
    (
        "ui/notifications/tool-input",
        Method::ToolInput,
        UiDialect::Apps,
    ),
    (
        "mcp-ui/notifications/tool-input",
        Method::ToolInput,
        UiDialect::Seed,
    ),
    (
        "ui/notifications/tool-input-partial",
        Method::ToolInputPartial,
        UiDialect::Apps,
    ),
    (
        "mcp-ui/notifications/tool-input-partial",
        Method::ToolInputPartial,
        UiDialect::Seed,
    ),
    (
        "ui/notifications/tool-result",
        Method::ToolResult,
        UiDialect::Apps,
    ),
    ("mcp-ui/tool-result", Method::ToolResult, UiDialect::Seed),
    (
        "ui/notifications/tool-cancelled",
        Method::ToolCancelled,
        UiDialect::Apps,
    ),
    (
        "ui/tool-cancelled",
        Method::ToolCancelled,
        UiDialect::EarlyDraft,
    ),
    (
        "mcp-ui/tool-cancelled",
        Method::ToolCancelled,
        UiDialect::Seed,
    ),
    (
        "ui/notifications/host-context-changed",
        Method::HostContextChanged,
        UiDialect::Apps,
    ),
    (
        "ui/host-context-change",
        Method::HostContextChanged,
        UiDialect::EarlyDraft,
    ),
    (
        "ui/notifications/host-context-change",
        Method::HostContextChanged,
        UiDialect::EarlyDraft,
    ),
    (
        "mcp-ui/host-context-change",
        Method::HostContextChanged,
        UiDialect::Seed,
    ),
    (
        "ui/resource-teardown",
        Method::ResourceTeardown,
        UiDialect::Apps,
    ),
    (
        "ui/notifications/size-changed",
        Method::SizeChanged,
        UiDialect::Apps,
    ),
    ("ui/size-change", Method::SizeChanged, UiDialect::EarlyDraft),
    (
        "ui/notifications/size-change",
        Method::SizeChanged,
        UiDialect::EarlyDraft,
    ),
    ("mcp-ui/size-change", Method::SizeChanged, UiDialect::Seed),
    (
        "ui/notifications/request-teardown",
        Method::RequestTeardown,
        UiDialect::Apps,
    ),
    ("ui/open-link", Method::OpenLink, UiDialect::Apps),
    ("ui/message", Method::Message, UiDialect::Apps),
    (
        "ui/update-model-context",
        Method::UpdateModelContext,
        UiDialect::Apps,
    ),
    (
        "ui/request-display-mode",
        Method::RequestDisplayMode,
        UiDialect::Apps,
    ),
    ("ui/download-file", Method::DownloadFile, UiDialect::Apps),
    ("notifications/message", Method::Log, UiDialect::Apps),
    ("ui/log", Method::Log, UiDialect::EarlyDraft),
    (
        "ui/notifications/sandbox-proxy-ready",
        Method::SandboxProxyReady,
        UiDialect::Apps,
    ),
    (
        "ui/notifications/sandbox-ready",
        Method::SandboxProxyReady,
        UiDialect::EarlyDraft,
    ),
    (
        "mcp-ui/sandbox-ready",
        Method::SandboxProxyReady,
        UiDialect::Seed,
    ),
    (
        "ui/notifications/sandbox-resource-ready",
        Method::SandboxResourceReady,
        UiDialect::Apps,
    ),
    (
        "ui/sandbox-resource-ready",
        Method::SandboxResourceReady,
        UiDialect::EarlyDraft,
    ),
    (
        "mcp-ui/sandbox-resource-ready",
        Method::SandboxResourceReady,
        UiDialect::Seed,
    ),
    ("tools/call", Method::ToolsCall, UiDialect::Apps),
    ("tools/list", Method::ToolsList, UiDialect::Apps),
    ("resources/read", Method::ResourcesRead, UiDialect::Apps),
    ("resources/list", Method::ResourcesList, UiDialect::Apps),
    (
        "resources/templates/list",
        Method::ResourceTemplatesList,
        UiDialect::Apps,
    ),
    ("prompts/list", Method::PromptsList, UiDialect::Apps),
    (
        "notifications/cancelled",
        Method::Cancelled,
        UiDialect::Apps,
    ),
    ("notifications/progress", Method::Progress, UiDialect::Apps),
    (
        "notifications/tools/list_changed",
        Method::ToolsListChanged,
        UiDialect::Apps,
    ),
];

/// The method a name means, and the dialect of that spelling; `None` for a name this protocol
/// does not have (the host answers such a request `-32601`).
///
/// ```
/// use interlude_protocol::apps::{Method, UiDialect, canonical};
///
/// assert_eq!(canonical("ui/size-change"), Some((Method::SizeChanged, UiDialect::EarlyDraft)));
/// assert_eq!(canonical("mcp-ui/tool-result"), Some((Method::ToolResult, UiDialect::Seed)));
/// assert_eq!(canonical("ui/notifications/size-changed").map(|m| m.0.name()),
///            Some("ui/notifications/size-changed"));
/// assert_eq!(canonical("sampling/createMessage"), None);
/// ```
pub fn canonical(name: &str) -> Option<(Method, UiDialect)> {
    NAMES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, method, dialect)| (*method, *dialect))
}

impl Method {
    /// Its current name.
    pub fn name(self) -> &'static str {
        self.name_in(UiDialect::Apps)
    }

    /// Its name as a view of `dialect` knows it (what the host sends such a view); the current
    /// name where that dialect had none of its own.
    pub fn name_in(self, dialect: UiDialect) -> &'static str {
        let mut current = "";
        for (name, method, of) in NAMES {
            if *method != self {
                continue;
            }
            if *of == dialect {
                return name;
            }
            if current.is_empty() {
                current = name;
            }
        }
        current
    }

    /// Who sends it.
    pub fn direction(self) -> Direction {
        use Method::*;
        match self {
            Initialize
            | Initialized
            | SizeChanged
            | RequestTeardown
            | OpenLink
            | Message
            | UpdateModelContext
            | RequestDisplayMode
            | DownloadFile
            | Log
            | ResourcesRead
            | ResourcesList
            | ResourceTemplatesList
            | PromptsList => Direction::ViewToHost,
            ToolInput | ToolInputPartial | ToolResult | ToolCancelled | HostContextChanged
            | ResourceTeardown => Direction::HostToView,
            Ping | Cancelled | Progress | ToolsCall | ToolsList | ToolsListChanged => {
                Direction::Both
            }
            SandboxProxyReady => Direction::ProxyToHost,
            SandboxResourceReady => Direction::HostToProxy,
        }
    }

    /// Whether it is a request (has an id and wants a response) rather than a notification.
    pub fn is_request(self) -> bool {
        use Method::*;
        matches!(
            self,
            Initialize
                | Ping
                | ResourceTeardown
                | OpenLink
                | Message
                | UpdateModelContext
                | RequestDisplayMode
                | DownloadFile
                | ToolsCall
                | ToolsList
                | ResourcesRead
                | ResourcesList
                | ResourceTemplatesList
                | PromptsList
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_spelled_once_and_maps_back() {
        for (i, (name, method, dialect)) in NAMES.iter().enumerate() {
            assert!(
                NAMES.iter().skip(i + 1).all(|(n, _, _)| n != name),
                "{name} twice"
            );
            assert_eq!(canonical(name), Some((*method, *dialect)));
        }
    }

    #[test]
    fn a_view_hears_the_names_of_its_own_dialect() {
        assert_eq!(
            Method::ToolResult.name_in(UiDialect::Seed),
            "mcp-ui/tool-result"
        );
        assert_eq!(
            Method::ToolCancelled.name_in(UiDialect::EarlyDraft),
            "ui/tool-cancelled"
        );
        assert_eq!(
            Method::HostContextChanged.name_in(UiDialect::EarlyDraft),
            "ui/host-context-change"
        );
        // The early draft had the current name for the result; the Apps SDK speaks the
        // current protocol underneath its shim.
        assert_eq!(
            Method::ToolResult.name_in(UiDialect::EarlyDraft),
            "ui/notifications/tool-result"
        );
        assert_eq!(
            Method::ToolInput.name_in(UiDialect::Skybridge),
            "ui/notifications/tool-input"
        );
        assert_eq!(
            Method::ResourceTeardown.name_in(UiDialect::Seed),
            "ui/resource-teardown"
        );
    }

    #[test]
    fn the_proxy_messages_are_never_for_the_view() {
        for (name, method, _) in NAMES {
            if name.contains("sandbox") {
                assert!(matches!(
                    method.direction(),
                    Direction::ProxyToHost | Direction::HostToProxy
                ));
            }
        }
    }
}
