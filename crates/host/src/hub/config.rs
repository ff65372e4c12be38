//! The host's settings ([`HostConfig`], [`ProtocolChoice`], [`AppsConfig`]) and its errors
//! ([`HostError`]).

use std::time::Duration;

use interlude_engine::csp::CspProfile;
use interlude_engine::{Declared, EngineConfig, ServerId};
use rmcp::model::ProtocolVersion;
use serde_json::{Map, Value, json};

use crate::hub::resolve::Resolver;

/// Which protocol a host speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Prefer 2026-07-28 (discover); fall back to 2025-11-25 (initialize) for older servers.
    Auto,
    /// Use exactly this version (2026-07-28 via discover, anything older via initialize).
    Pin(ProtocolVersion),
}

/// Settings of MCP Apps views.
#[derive(Debug, Clone)]
pub struct AppsConfig {
    /// What the host adds to every view's CSP beyond its declaration (never a domain).
    pub csp_profile: CspProfile,
    /// How long a view's teardown waits for its answer.
    pub teardown: std::time::Duration,
    /// Tool calls a view may make at once, and per minute.
    pub call_burst: u32,
    /// See [`AppsConfig::call_burst`].
    pub calls_per_minute: u32,
    /// The tallest a view may ask to be, in CSS pixels.
    pub max_height: u32,
    /// The host context every view starts with (`platform`, …); surfaces add theme, locale,
    /// time zone and sizes per view ([`crate::Host::view_context`]).
    pub context: Map<String, Value>,
}

impl Default for AppsConfig {
    fn default() -> Self {
        let mut context = Map::new();
        context.insert("platform".into(), json!("web"));
        AppsConfig {
            csp_profile: CspProfile::default(),
            teardown: std::time::Duration::from_secs(2),
            call_burst: 10,
            calls_per_minute: 120,
            max_height: 6_000,
            context,
        }
    }
}

/// Host settings.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Engine policy (limits, rate limiting).
    pub engine: EngineConfig,
    /// Protocol negotiation.
    pub protocol: ProtocolChoice,
    /// What the host declares to servers (and therefore admits): form and URL elicitation by
    /// default.
    pub declare: Declared,
    /// Limit on a tool call's active time (time nobody is being asked anything). None by default.
    pub call_timeout: Option<Duration>,
    /// Limit on a server's handshake (`server/discover` or `initialize`, the negotiation
    /// included): a server that never answers fails with that said instead of being waited for
    /// forever. 30 s by default.
    pub connect_timeout: Duration,
    /// Most `input_required` rounds one call may take.
    pub max_rounds: usize,
    /// The name this host gives in `clientInfo`.
    pub client_name: String,
    /// How a link's host name is looked up after the person consented to open it.
    pub resolver: Resolver,
    /// After a `-32042` (URL elicitation required) error to which the person consented, how
    /// long to wait for the servers' completion notifications before retrying the call once.
    pub url_wait: Duration,
    /// MCP Apps views (used when [`Declared::apps`](interlude_engine::Declared) is set).
    pub apps: AppsConfig,
    /// How many messages the protocol log keeps per server ([`Host::protocol_log`](crate::Host::protocol_log); 0 keeps
    /// none).
    pub protocol_log: usize,
    /// How many HTTP exchanges the network log keeps per server reached over HTTP
    /// ([`Host::network_log`](crate::Host::network_log); 0 keeps none).
    pub network_log: usize,
    /// Where to write every message to and from every server as JSON Lines (`{"t_ms",
    /// "server", "dir", "message"}`), when set. The file is created (or truncated) when the
    /// host starts; if it cannot be, the host runs without it and says so in the log.
    pub trace: Option<std::path::PathBuf>,
    /// Which protocol version each server spoke last time, so that a negotiated
    /// ([`ProtocolChoice::Auto`]) connection to a server known to speak a 2025 version starts
    /// with `initialize` instead of waiting on `server/discover` (see [`EraMemory`](crate::EraMemory)). This
    /// process only by default; the CLI keeps it in a file.
    pub eras: std::sync::Arc<crate::hub::eras::EraMemory>,
    /// The roots the host answers `roots/list` with (folders a server may work in, as
    /// `file://` URIs). Declared to every server (with `listChanged`); none by default, so a
    /// server learns it was given none. Change them with [`Host::set_roots`](crate::Host::set_roots).
    pub roots: Vec<crate::hub::roots::Root>,
    /// Declare `roots` (with `listChanged`) to every server, and answer `roots/list` with
    /// [`roots`](Self::roots). Off, the host says nothing of roots: a server's `roots/list`
    /// (or a 2026-07-28 round's) is refused as not declared, and a change of roots is told to
    /// nobody. On by default.
    pub declare_roots: bool,
    /// Declare the Tasks extension (`io.modelcontextprotocol/tasks`) to 2026-07-28 servers: a
    /// call they answer with a task is followed to its end (polled, its questions asked, its
    /// cancel sent); and call a 2025-11-25 server's tool as a task (`params.task`) when the
    /// server declares task calls and lists the tool as allowing or needing one. On by default.
    pub tasks: bool,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            engine: EngineConfig::default(),
            protocol: ProtocolChoice::Auto,
            declare: Declared::default(),
            call_timeout: None,
            connect_timeout: Duration::from_secs(30),
            max_rounds: 32,
            client_name: "interlude".into(),
            resolver: Resolver::system(),
            url_wait: Duration::from_secs(60),
            apps: AppsConfig::default(),
            protocol_log: crate::logs::protocol_log::KEPT_PER_SERVER,
            network_log: crate::logs::network_log::EXCHANGES_KEPT_PER_SERVER,
            trace: None,
            eras: std::sync::Arc::new(crate::hub::eras::EraMemory::in_memory()),
            roots: Vec::new(),
            declare_roots: true,
            tasks: true,
        }
    }
}

/// Host failures. Peer-caused failures never panic: they end up here.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// Could not start or reach the server.
    #[error("cannot connect to `{server}`: {reason}")]
    Connect {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// A live server already has this name.
    #[error("a server named `{server}` is already connected")]
    DuplicateName {
        /// The name.
        server: String,
    },
    /// No live server has this id.
    #[error("no connected server with id {server}")]
    NoSuchServer {
        /// The id.
        server: ServerId,
    },
    /// A request failed at the transport or protocol level: the server answered with an
    /// error, went away, or sent something that is not a message.
    #[error("{what} on `{server}` failed: {reason}")]
    Service {
        /// The server's name.
        server: String,
        /// What failed, e.g. "the call to `ask`".
        what: String,
        /// Why, in a sentence (the server's error, how it ended, what it sent).
        reason: String,
        /// The rmcp error, for programs (its words are in `reason`).
        error: Box<rmcp::ServiceError>,
    },
    /// The call exceeded its active-time budget.
    #[error("tool call to `{server}` timed out after {budget:?} of active time")]
    Timeout {
        /// The server's name.
        server: String,
        /// The budget.
        budget: Duration,
    },
    /// The server asked for something the host refused (e.g. a schema outside the subset in an
    /// `input_required` round, or a request kind the host did not declare).
    #[error("server `{server}` asked for input the host refused: {reason}")]
    Refused {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// The call needed something of the person first (a link opened: `-32042`, the draft's
    /// `-32003`) and the person declined or cancelled: nothing was refused, nothing failed —
    /// the call ends without it.
    #[error("the call to `{server}` needs {needed}, and the person {answered}")]
    NotGiven {
        /// The server's name.
        server: String,
        /// What the call needed, in words (`a link opened first (-32042)`).
        needed: String,
        /// What the person did: `declined` or `cancelled`.
        answered: &'static str,
    },
    /// A value the host was given is not one it can use.
    #[error("{reason}")]
    Invalid {
        /// What is wrong, in a sentence naming the value.
        reason: String,
    },
    /// The server kept returning `input_required`.
    #[error("server `{server}` did not finish the call within {rounds} input rounds")]
    TooManyRounds {
        /// The server's name.
        server: String,
        /// The cap.
        rounds: usize,
    },
    /// The server answered with something the host does not handle (e.g. a task).
    #[error("unexpected response from `{server}`: {what}")]
    Unexpected {
        /// The server's name.
        server: String,
        /// What came.
        what: String,
    },
    /// The call became a task, and the task ended without a result: the server's error, its
    /// own cancel, or its time ran out.
    #[error("the task of the call to `{server}` {reason}")]
    Task {
        /// The server's name.
        server: String,
        /// What became of it, in words (`failed: …`, `was cancelled by the server`).
        reason: String,
    },
    /// The server does not offer what was asked of it (it did not declare it, or refused it in
    /// this era), e.g. a subscription to its resources.
    #[error("`{server}` does not offer {what}")]
    NotOffered {
        /// The server's name.
        server: String,
        /// What it does not offer, and why when known, in words.
        what: String,
    },
    /// The person cancelled the call ([`Host::cancel_call`](crate::Host::cancel_call)); the server was told.
    #[error("the call to `{server}` was cancelled")]
    Cancelled {
        /// The server's name.
        server: String,
    },
}

impl HostError {
    /// The call needed `needed` of the person, who answered `answer` instead of consenting.
    pub(crate) fn not_given<T>(
        server: &str,
        needed: String,
        answer: &interlude_protocol::Answer<T>,
    ) -> HostError {
        let answered = match answer {
            interlude_protocol::Answer::Declined => "declined",
            // Consent carries no content: an "accept" that is not one is no consent either.
            interlude_protocol::Answer::Cancelled | interlude_protocol::Answer::Accepted(_) => {
                "cancelled"
            }
        };
        HostError::NotGiven {
            server: server.to_owned(),
            needed,
            answered,
        }
    }
}
