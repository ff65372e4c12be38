//! A server as the record keeps it: who it says it is ([`ServerIdentity`]), where it stands
//! ([`ServerState`]), its tools with their views and visibility, its catalog ([`ServerRecord`],
//! [`ServerApps`]).
//!
//! What it does not do: talk to the server (the session does) or change itself (the registry
//! does, in the core).

use std::collections::BTreeMap;

use interlude_engine::ServerId;
use interlude_protocol::ProtocolEra;
use interlude_protocol::apps::{ToolUi, Visibility};
use rmcp::model::{JsonObject, Resource, Tool};

use crate::record::catalog::ServerCatalog;

/// Who a server says it is (from `initialize` / `server/discover`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerIdentity {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.title`, when given.
    pub title: Option<String>,
    /// `serverInfo.version`.
    pub version: String,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The era of that version.
    pub era: ProtocolEra,
    /// It declared `logging`: it takes `logging/setLevel`.
    pub logging: bool,
}

impl ServerIdentity {
    /// The name to show: the title, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

/// Where a connection stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Starting the server or negotiating.
    Connecting,
    /// Connected; tools listed.
    Ready,
    /// It could not connect, or it went away without being asked to.
    Failed {
        /// Why, in a sentence a person understands.
        reason: String,
    },
    /// The host closed it.
    Closed,
}

impl ServerState {
    /// A short word for it: `connecting`, `ready`, `failed`, `closed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerState::Connecting => "connecting",
            ServerState::Ready => "ready",
            ServerState::Failed { .. } => "failed",
            ServerState::Closed => "closed",
        }
    }

    /// Whether the connection is over (failed or closed).
    pub fn is_over(&self) -> bool {
        matches!(self, ServerState::Failed { .. } | ServerState::Closed)
    }
}

/// One server connection.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRecord {
    /// The host's id for it.
    pub id: ServerId,
    /// The name it was given (configuration, command line, or the person).
    pub name: String,
    /// `stdio`, `http` or `in-process`.
    pub transport: &'static str,
    /// What was connected to: the command line or the URL.
    pub target: String,
    /// Where it stands.
    pub state: ServerState,
    /// What it said about itself, once connected.
    pub identity: Option<ServerIdentity>,
    /// Its tools, each with its full `_meta` (MCP Apps read it), in the server's order. Set
    /// by the host through `ServerRecord::set_tools`, which keeps [`ServerRecord::apps`] in step.
    pub tools: Vec<Tool>,
    /// What it offers for MCP Apps: its declaration, its tools' views and visibility, its
    /// resources.
    pub apps: ServerApps,
    /// While it connects: how the protocol version is being negotiated, in a sentence (a
    /// server that ignores `server/discover` takes 10 s; the person sees why).
    pub negotiation: Option<String>,
    /// How it was started (for [`Host::retry`](crate::Host::retry)); `None` for a transport
    /// the caller built.
    pub spec: Option<crate::transport::spec::ServerSpec>,
    /// Its catalog beyond the lists: whether its resources can be subscribed to, those that
    /// are, and how often it said a list changed.
    pub catalog: ServerCatalog,
}

/// A server's MCP Apps side, as the host read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerApps {
    /// Its `capabilities.extensions["io.modelcontextprotocol/ui"]`, if it declared the extension.
    pub declared: Option<JsonObject>,
    /// Each tool's app metadata, by tool name; a tool that says nothing about apps is absent
    /// (it is plain: visible to the model and to views).
    pub tools: BTreeMap<String, ToolUi>,
    /// Tools whose app metadata is unusable, each with why; such a tool stays plain and shows
    /// no view.
    pub problems: Vec<String>,
    /// Its resources (`resources/list`), when it has the capability.
    pub resources: Vec<Resource>,
}

impl ServerRecord {
    /// Replaces its tools and reads their app metadata again.
    pub(crate) fn set_tools(&mut self, tools: Vec<Tool>) {
        self.apps.tools.clear();
        self.apps.problems.clear();
        for tool in &tools {
            let Some(meta) = &tool.meta else { continue };
            match ToolUi::from_meta(&meta.0) {
                Ok(Some(ui)) => {
                    self.apps.tools.insert(tool.name.to_string(), ui);
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(server = %self.name, tool = %tool.name, "unusable app metadata: {e}");
                    self.apps
                        .problems
                        .push(format!("tool `{}`: {e}", tool.name));
                }
            }
        }
        self.tools = tools;
    }

    /// The app metadata of tool `name`, if it has any.
    pub fn tool_ui(&self, name: &str) -> Option<&ToolUi> {
        self.apps.tools.get(name)
    }

    /// Who may call tool `name` (plain tools: both the model and views).
    pub fn visibility(&self, name: &str) -> Visibility {
        self.tool_ui(name)
            .map_or(Visibility::DEFAULT, |ui| ui.visibility)
    }

    /// The tools for any list meant for a model (or a person standing in for one): those
    /// without `model` visibility — called only by the server's views — are left out.
    pub fn model_tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().filter(|t| self.visibility(&t.name).model)
    }

    /// Checks `arguments` (`None`: none given) against tool `tool`'s `inputSchema`
    /// ([`check_arguments`](crate::check_arguments)); a tool this server did not list is left
    /// to the server.
    pub fn check_arguments(
        &self,
        tool: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<(), Vec<crate::record::arguments::ArgumentError>> {
        let Some(tool) = self.tools.iter().find(|t| t.name == tool) else {
            return Ok(());
        };
        let none = JsonObject::new();
        crate::record::arguments::check_arguments(&tool.input_schema, arguments.unwrap_or(&none))
    }
}
