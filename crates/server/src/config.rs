//! Per-server configuration of [`Ask`](crate::Ask): the key that seals `requestState`, how long a
//! sealed state stays valid, and an optional timeout for push-era requests.

use std::sync::Arc;
use std::time::Duration;

mod interactions;
mod requestor;
mod tasks;

pub use interactions::Interactions;
pub use requestor::Requestor;
pub(crate) use tasks::ServesTasks;
pub use tasks::{TaskSupport, Tasks};

/// How a server asks: shared by every tool call of one server (cheap to clone).
#[derive(Clone, Debug)]
pub struct AskConfig {
    /// Seals and opens `requestState`.
    pub(crate) seal: Arc<crate::state_seal::StateSeal>,
    pub(crate) state_ttl: Duration,
    pub(crate) timeout: Option<Duration>,
    /// The seed-000 interactions this server created, per client.
    pub(crate) interactions: Arc<Interactions>,
    /// 2026-07-28: answers of a call without `requestState` are taken.
    pub(crate) stateless_answers: bool,
    /// The server's tasks (the Tasks extension).
    pub(crate) tasks: Tasks,
}

/// The default lifetime of a sealed `requestState`: a person may take a while to answer, but an
/// answer given yesterday should not complete a call today.
pub(crate) const DEFAULT_STATE_TTL: Duration = Duration::from_secs(60 * 60);

impl AskConfig {
    /// A configuration with a fresh random sealing key. Enough for one process; servers running
    /// as several replicas must share a key ([`AskConfig::with_key`]).
    ///
    /// Create it **once per server** and clone it into every handler instance: streamable HTTP
    /// serves each 2026-07-28 request with a fresh instance, and a retry must open the state an
    /// earlier instance sealed (a new key per instance fails with "invalid requestState").
    pub fn new() -> Self {
        Self::from_seal(crate::state_seal::StateSeal::random())
    }

    /// A configuration sealing with `key` (at least 32 bytes; shorter keys are refused).
    ///
    /// ```
    /// let config = interlude_server::AskConfig::with_key([7u8; 32]).unwrap();
    /// assert!(interlude_server::AskConfig::with_key([7u8; 8]).is_err());
    /// # let _ = config;
    /// ```
    pub fn with_key(key: impl Into<Vec<u8>>) -> Result<Self, rmcp::model::RequestStateError> {
        crate::state_seal::StateSeal::new(key.into()).map(Self::from_seal)
    }

    fn from_seal(seal: crate::state_seal::StateSeal) -> Self {
        AskConfig {
            seal: Arc::new(seal),
            state_ttl: DEFAULT_STATE_TTL,
            timeout: None,
            interactions: Arc::default(),
            stateless_answers: false,
            tasks: Tasks::default(),
        }
    }

    /// The server's tasks, for its `tasks/get`, `tasks/update` and `tasks/cancel` handlers
    /// (see [`Ask::task`](crate::Ask::task)).
    pub fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// Keeps the server's tasks in `store` as well as in memory, so that a restart loses no
    /// ended task's outcome (see [`Tasks`]). Give it the store the server's URL flows use.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use interlude_server::AskConfig;
    /// use interlude_server::url::SqliteStore;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = Arc::new(SqliteStore::in_memory()?);
    /// let config = AskConfig::new().with_task_store(store);
    /// # let _ = config;
    /// # Ok(()) }
    /// ```
    pub fn with_task_store(mut self, store: Arc<dyn crate::url::FlowStore>) -> Self {
        self.tasks = Tasks::with_store(store);
        self
    }

    /// The User Interaction draft's interactions this server created (seed 000), to answer
    /// `interaction/notify` with ([`Interactions::notify`](crate::interaction::Interactions::notify)).
    pub fn interactions(&self) -> &Interactions {
        &self.interactions
    }

    /// Limits how long a push-era `elicitation/create` may wait for the person. None by default.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets how long a sealed `requestState` remains valid (default one hour).
    pub fn with_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// 2026-07-28: whether a call that carries no `requestState` may still answer questions,
    /// through `inputResponses` under their keys (off by default).
    ///
    /// Off, an answer is only taken for a question the sealed state of the previous round says
    /// was asked; a first call's `inputResponses` are ignored and its questions go out. On, a
    /// client that answers before it is asked — it knows the key, say `user_name` — gets the
    /// call done in one round: the answer is checked like any other (a form's against its
    /// schema), keys no question uses are ignored, and from then on the answers travel sealed
    /// as usual. It gives a client nothing it could not give anyway (the answers are its own),
    /// but it does let a call finish without the server ever seeing the question go out. URL
    /// questions never take such an answer: their flow must have been started by the server.
    ///
    /// ```
    /// let config = interlude_server::AskConfig::new().with_stateless_answers(true);
    /// # let _ = config;
    /// ```
    pub fn with_stateless_answers(mut self, allowed: bool) -> Self {
        self.stateless_answers = allowed;
        self
    }
}

impl Default for AskConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// A server whose tools take [`Ask`](crate::Ask) as an extractor: it says where its
/// [`AskConfig`] is. Tools that take `Ask` need it, and rmcp's `ServerHandler` (where
/// [`asking`](crate::asking) checks both).
///
/// ```
/// use interlude_server::{AskConfig, AskServer};
///
/// #[derive(Clone)]
/// struct Server {
///     ask: AskConfig,
/// }
///
/// impl AskServer for Server {
///     fn ask_config(&self) -> &AskConfig {
///         &self.ask
///     }
/// }
/// ```
///
/// Without it, `#[asking]` says so:
///
/// ```compile_fail,E0277
/// use interlude_server::{Ask, AskConfig, ToolResult, asking};
/// use rmcp::model::CallToolResult;
/// use rmcp::{tool, tool_handler, tool_router};
///
/// #[derive(Clone)]
/// struct Server {
///     ask: AskConfig,
/// }
///
/// #[asking]
/// #[tool_router]
/// impl Server {
///     #[tool(description = "Asks")]
///     async fn asks(&self, ask: Ask) -> ToolResult {
///         Ok(CallToolResult::success(vec![]))
///     }
/// }
///
/// #[tool_handler]
/// impl rmcp::ServerHandler for Server {}
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `AskServer`, which tools taking `Ask` need",
    label = "implement `interlude_server::AskServer` for `{Self}`",
    note = "add `impl interlude_server::AskServer for {Self} {{ fn ask_config(&self) -> \
            &interlude_server::AskConfig {{ &self.ask }} }}`, with one `AskConfig` created once per \
            server and cloned into each instance"
)]
pub trait AskServer {
    /// The configuration every `Ask` of this server uses.
    fn ask_config(&self) -> &AskConfig;
}
