//! The host's main loop and the surface boundary.
//!
//! One task owns the [`Engine`] and the [`Surface`]; everything else talks to it through one
//! closed enum of inputs. That keeps the engine single-threaded and the order of events total:
//! the audit log, the queue and the surface always agree.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_engine::{
    AuditRecord, DeclaredModes, Effect, ElicitParams, ElicitationView, Engine, EngineConfig,
    Incoming, Input, Notice, Reply, RequestId, SurfaceAnswer,
};
use interlude_protocol::ProtocolEra;
use interlude_schema::FieldError;
use rmcp::model::ProtocolVersion;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::connection::Connection;
use crate::spec::ServerSpec;

/// Where a person sees requests and answers them. Implemented by the web, terminal and headless
/// surfaces.
///
/// Methods are called from the host's main loop and must not block: a surface that needs time
/// (a person, a browser) keeps the [`AnswerSink`] and answers later, from any task.
pub trait Surface: Send + 'static {
    /// A request joined the queue (it is presented later, or at once). Surfaces that show the
    /// whole queue keep it; the default ignores it.
    fn queued(&mut self, view: &ElicitationView) {
        let _ = view;
    }
    /// Show this request; it is now the focused one. Answer through `sink`.
    fn present(&mut self, view: ElicitationView, sink: &AnswerSink);
    /// The answer given for `id` broke these rules; the request is still pending.
    fn invalid(&mut self, id: RequestId, errors: &[FieldError], sink: &AnswerSink) {
        let _ = (id, errors, sink);
    }
    /// The request `id` went away unanswered (its server disconnected, its call ended).
    fn closed(&mut self, id: RequestId, notice: &Notice) {
        let _ = (id, notice);
    }
    /// The request `id` was answered and this reply went to the server.
    fn replied(&mut self, id: RequestId, reply: &Reply) {
        let _ = (id, reply);
    }
}

/// A handle a surface answers through. Cheap to clone; answers after the host stopped are
/// dropped.
#[derive(Clone, Debug)]
pub struct AnswerSink {
    tx: mpsc::UnboundedSender<HostInput>,
}

impl AnswerSink {
    /// A sink whose answers go to the returned receiver instead of a host (for unit tests of
    /// surfaces).
    #[cfg(test)]
    pub(crate) fn detached() -> (AnswerSink, mpsc::UnboundedReceiver<HostInput>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (AnswerSink { tx }, rx)
    }

    /// Reports the person's answer to request `id`.
    pub fn answer(&self, id: RequestId, answer: SurfaceAnswer) {
        let _ = self.tx.send(HostInput::Answer { id, answer });
    }
}

/// Which protocol a host speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Prefer 2026-07-28 (discover); fall back to 2025-11-25 (initialize) for older servers.
    Auto,
    /// Use exactly this version (2026-07-28 via discover, anything older via initialize).
    Pin(ProtocolVersion),
}

/// Host settings.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Engine policy (limits, rate limiting).
    pub engine: EngineConfig,
    /// Protocol negotiation.
    pub protocol: ProtocolChoice,
    /// Limit on a tool call's active time (time nobody is being asked anything). None by default.
    pub call_timeout: Option<Duration>,
    /// Most `input_required` rounds one call may take.
    pub max_rounds: usize,
    /// The name this host gives in `clientInfo`.
    pub client_name: String,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            engine: EngineConfig::default(),
            protocol: ProtocolChoice::Auto,
            call_timeout: None,
            max_rounds: 32,
            client_name: "interlude".into(),
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
    /// The request failed at the transport or protocol level.
    #[error("request to `{server}` failed: {source}")]
    Service {
        /// The server's name.
        server: String,
        /// The rmcp error.
        #[source]
        source: Box<rmcp::ServiceError>,
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
}

pub(crate) enum HostInput {
    Elicit {
        id: RequestId,
        server: String,
        era: ProtocolEra,
        params: ElicitParams,
        tool: Option<String>,
        reply: oneshot::Sender<Reply>,
    },
    Answer {
        id: RequestId,
        answer: SurfaceAnswer,
    },
    Withdraw {
        id: RequestId,
        reason: String,
    },
    ServerGone {
        server: String,
        reason: String,
    },
}

/// The host: a handle to its main loop. Cheap to clone.
#[derive(Clone)]
pub struct Host {
    pub(crate) tx: mpsc::UnboundedSender<HostInput>,
    pub(crate) config: Arc<HostConfig>,
    next_id: Arc<AtomicU64>,
    audit: Arc<Mutex<VecDeque<AuditRecord>>>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host").finish_non_exhaustive()
    }
}

/// How many audit records a host keeps in memory (older ones are only in the log).
const AUDIT_KEPT: usize = 10_000;

impl Host {
    /// Starts the main loop on the current tokio runtime with `surface` as the person's side.
    pub fn start(config: HostConfig, surface: impl Surface) -> Host {
        let (tx, rx) = mpsc::unbounded_channel();
        let audit = Arc::new(Mutex::new(VecDeque::new()));
        let engine = Engine::new(config.engine.clone());
        let sink = AnswerSink { tx: tx.clone() };
        tokio::spawn(main_loop(engine, surface, sink, rx, audit.clone()));
        Host {
            tx,
            config: Arc::new(config),
            next_id: Arc::new(AtomicU64::new(1)),
            audit,
        }
    }

    /// Connects to a server and gives it `name` (shown to the person with every request).
    pub async fn connect(
        &self,
        name: impl Into<String>,
        spec: ServerSpec,
    ) -> Result<Connection, HostError> {
        Connection::open(self.clone(), name.into(), spec).await
    }

    /// A sink to answer requests through from outside the surface callbacks (e.g. an HTTP
    /// handler of the web surface).
    pub fn answer_sink(&self) -> AnswerSink {
        AnswerSink {
            tx: self.tx.clone(),
        }
    }

    /// Connects with a protocol choice of its own instead of the host's default.
    pub async fn connect_with(
        &self,
        name: impl Into<String>,
        spec: ServerSpec,
        protocol: ProtocolChoice,
    ) -> Result<Connection, HostError> {
        Connection::open_with(self.clone(), name.into(), spec, protocol).await
    }

    /// The audit records kept in memory, oldest first.
    pub fn audit_records(&self) -> Vec<AuditRecord> {
        self.audit
            .lock()
            .map(|a| a.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Asks the person through the engine and waits for the reply. Dropping the future
    /// withdraws the request.
    pub(crate) async fn elicit(
        &self,
        server: &str,
        era: ProtocolEra,
        params: ElicitParams,
        tool: Option<String>,
    ) -> Reply {
        let id = RequestId(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (reply_tx, reply_rx) = oneshot::channel();
        let sent = self.tx.send(HostInput::Elicit {
            id,
            server: server.to_owned(),
            era,
            params,
            tool,
            reply: reply_tx,
        });
        if sent.is_err() {
            return Reply::Cancel;
        }
        let mut guard = WithdrawOnDrop {
            tx: self.tx.clone(),
            id,
            armed: true,
        };
        let reply = reply_rx.await.unwrap_or(Reply::Cancel);
        guard.armed = false;
        reply
    }

    pub(crate) fn server_gone(&self, server: &str, reason: impl Into<String>) {
        let _ = self.tx.send(HostInput::ServerGone {
            server: server.to_owned(),
            reason: reason.into(),
        });
    }
}

struct WithdrawOnDrop {
    tx: mpsc::UnboundedSender<HostInput>,
    id: RequestId,
    armed: bool,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.tx.send(HostInput::Withdraw {
                id: self.id,
                reason: "the server no longer waits for this answer".into(),
            });
        }
    }
}

async fn main_loop(
    mut engine: Engine,
    mut surface: impl Surface,
    sink: AnswerSink,
    mut rx: mpsc::UnboundedReceiver<HostInput>,
    audit: Arc<Mutex<VecDeque<AuditRecord>>>,
) {
    let start = Instant::now();
    let mut responders: HashMap<RequestId, oneshot::Sender<Reply>> = HashMap::new();
    while let Some(input) = rx.recv().await {
        let now_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let input = match input {
            HostInput::Elicit {
                id,
                server,
                era,
                params,
                tool,
                reply,
            } => {
                responders.insert(id, reply);
                Input::Elicit(Incoming {
                    id,
                    server,
                    era,
                    declared: DeclaredModes::FORM,
                    params,
                    tool,
                })
            }
            HostInput::Answer { id, answer } => Input::Answer { id, answer },
            HostInput::Withdraw { id, reason } => Input::Withdraw { id, reason },
            HostInput::ServerGone { server, reason } => Input::ServerGone { server, reason },
        };
        for effect in engine.handle(input, now_ms) {
            match effect {
                Effect::Reply { id, reply } => {
                    surface.replied(id, &reply);
                    if let Some(tx) = responders.remove(&id) {
                        let _ = tx.send(reply);
                    }
                }
                Effect::Queued(view) => surface.queued(&view),
                Effect::Present(view) => surface.present(view, &sink),
                Effect::Invalid { id, errors } => surface.invalid(id, &errors, &sink),
                Effect::Closed { id, notice } => {
                    responders.remove(&id);
                    surface.closed(id, &notice);
                }
                Effect::Audit(record) => {
                    tracing::info!(
                        target: "interlude::audit",
                        record = %serde_json::to_string(&record).unwrap_or_default(),
                    );
                    if let Ok(mut log) = audit.lock() {
                        // A ring: dropping the oldest record must not move the other 10 000.
                        if log.len() >= AUDIT_KEPT {
                            log.pop_front();
                        }
                        log.push_back(record);
                    }
                }
            }
        }
    }
}
