//! The host's core and the surface boundary.
//!
//! One [`Core`] owns the [`Engine`] and the [`Surface`]; everything else talks to it through one
//! closed enum of inputs, appended to one queue. Whoever appends an input and finds the core free
//! drains the queue then and there, in order; whoever finds it busy leaves the input to the task
//! draining it (see [`Hub::submit`]). So the engine runs single-threaded and the order of events
//! is total — the audit log, the queue and the surface always agree — without a task of its own:
//! a request reaches the engine, and a scripted or already-given answer comes back, with no hop
//! between tasks (at 32 concurrent calls a dedicated task cost a fifth of the throughput).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError, Weak};
use std::time::Duration;

use interlude_engine::{
    AuditRecord, DeclaredModes, Effect, ElicitParams, ElicitationView, Engine, EngineConfig,
    Incoming, Input, Notice, Reply, RequestId, SurfaceAnswer,
};
use interlude_protocol::ProtocolEra;
use interlude_schema::FieldError;
use rmcp::model::ProtocolVersion;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::connection::Connection;
use crate::spec::ServerSpec;

/// Where a person sees requests and answers them. Implemented by the web, terminal and headless
/// surfaces.
///
/// Methods are called with the host's core locked, on whichever task or thread handed the host
/// an input, one call at a time and in the order of events. They must not block: a surface that
/// needs time (a person, a browser) keeps the [`AnswerSink`] and answers later, from any task or
/// thread. Answering from inside a callback is fine (the answer is handled right after it).
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

/// A handle a surface answers through. Cheap to clone.
#[derive(Clone)]
pub struct AnswerSink {
    hub: Arc<Hub>,
}

impl std::fmt::Debug for AnswerSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerSink").finish_non_exhaustive()
    }
}

impl AnswerSink {
    /// A sink whose answers are collected in the returned list instead of reaching a host (for
    /// unit tests of surfaces).
    #[cfg(test)]
    pub(crate) fn detached() -> (AnswerSink, Arc<Mutex<Vec<HostInput>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let hub = Arc::new(Hub::new(Box::new(move |input, _: &Weak<Hub>| {
            if let Ok(mut log) = log.lock() {
                log.push(input);
            }
        })));
        (AnswerSink { hub }, seen)
    }

    /// Reports the person's answer to request `id`.
    pub fn answer(&self, id: RequestId, answer: SurfaceAnswer) {
        self.hub.submit(HostInput::Answer { id, answer });
    }
}

/// What handles one input with the core locked (the core's state lives in the closure).
type Handler = Box<dyn FnMut(HostInput, &Weak<Hub>) + Send>;

/// The queue of inputs and the one core that handles them.
pub(crate) struct Hub {
    queue: Mutex<VecDeque<HostInput>>,
    core: Mutex<Handler>,
    me: Weak<Hub>,
}

impl Hub {
    fn new(handler: Handler) -> Hub {
        Hub {
            queue: Mutex::new(VecDeque::new()),
            core: Mutex::new(handler),
            me: Weak::new(),
        }
    }

    fn start(handler: Handler) -> Arc<Hub> {
        Arc::new_cyclic(|me| Hub {
            me: me.clone(),
            ..Hub::new(handler)
        })
    }

    fn queue(&self) -> MutexGuard<'_, VecDeque<HostInput>> {
        // A poisoned queue only means a panic elsewhere while it was held; its content is intact.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Appends `input` and, when no one else is handling inputs, handles the queue to the end.
    ///
    /// Whoever holds the core drains the queue and then, after releasing the core, looks again:
    /// an input appended after its last look found the core still held (so its submitter left
    /// it) and is picked up here. Inputs submitted from inside a callback (a surface answering
    /// at once) find the core held by their own caller and wait for the drain they are part of.
    pub(crate) fn submit(&self, input: HostInput) {
        self.queue().push_back(input);
        loop {
            let mut core = match self.core.try_lock() {
                Ok(core) => core,
                Err(TryLockError::WouldBlock) => return,
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
            };
            loop {
                let next = self.queue().pop_front();
                let Some(input) = next else { break };
                core(input, &self.me);
            }
            drop(core);
            if self.queue().is_empty() {
                return;
            }
        }
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

/// The host: a handle to its core. Cheap to clone.
#[derive(Clone)]
pub struct Host {
    hub: Arc<Hub>,
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
    /// Starts a host with `surface` as the person's side. Connections need a tokio runtime; the
    /// host itself runs no task of its own.
    pub fn start(config: HostConfig, surface: impl Surface) -> Host {
        let audit = Arc::new(Mutex::new(VecDeque::new()));
        let mut core = Core {
            engine: Engine::new(config.engine.clone()),
            surface,
            responders: HashMap::new(),
            audit: audit.clone(),
            start: Instant::now(),
        };
        let hub = Hub::start(Box::new(move |input, hub: &Weak<Hub>| {
            if let Some(hub) = hub.upgrade() {
                core.handle(input, &AnswerSink { hub });
            }
        }));
        Host {
            hub,
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
            hub: self.hub.clone(),
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
        // Armed before the request is submitted: a reply that is already there when the future
        // is dropped is still withdrawn harmlessly (the engine ignores unknown ids).
        let mut guard = WithdrawOnDrop {
            hub: self.hub.clone(),
            id,
            armed: true,
        };
        self.hub.submit(HostInput::Elicit {
            id,
            server: server.to_owned(),
            era,
            params,
            tool,
            reply: reply_tx,
        });
        let reply = reply_rx.await.unwrap_or(Reply::Cancel);
        guard.armed = false;
        reply
    }

    pub(crate) fn server_gone(&self, server: &str, reason: impl Into<String>) {
        self.hub.submit(HostInput::ServerGone {
            server: server.to_owned(),
            reason: reason.into(),
        });
    }
}

struct WithdrawOnDrop {
    hub: Arc<Hub>,
    id: RequestId,
    armed: bool,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.hub.submit(HostInput::Withdraw {
                id: self.id,
                reason: "the server no longer waits for this answer".into(),
            });
        }
    }
}

/// The engine, the surface and the callers waiting for replies: touched only with the hub's core
/// lock held.
struct Core<S> {
    engine: Engine,
    surface: S,
    responders: HashMap<RequestId, oneshot::Sender<Reply>>,
    audit: Arc<Mutex<VecDeque<AuditRecord>>>,
    start: Instant,
}

impl<S: Surface> Core<S> {
    fn handle(&mut self, input: HostInput, sink: &AnswerSink) {
        let now_ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let input = match input {
            HostInput::Elicit {
                id,
                server,
                era,
                params,
                tool,
                reply,
            } => {
                self.responders.insert(id, reply);
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
        for effect in self.engine.handle(input, now_ms) {
            match effect {
                Effect::Reply { id, reply } => {
                    self.surface.replied(id, &reply);
                    if let Some(tx) = self.responders.remove(&id) {
                        let _ = tx.send(reply);
                    }
                }
                Effect::Queued(view) => self.surface.queued(&view),
                Effect::Present(view) => self.surface.present(view, sink),
                Effect::Invalid { id, errors } => self.surface.invalid(id, &errors, sink),
                Effect::Closed { id, notice } => {
                    self.responders.remove(&id);
                    self.surface.closed(id, &notice);
                }
                Effect::Audit(record) => {
                    tracing::info!(
                        target: "interlude::audit",
                        record = %serde_json::to_string(&record).unwrap_or_default(),
                    );
                    if let Ok(mut log) = self.audit.lock() {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn withdraw(id: u64) -> HostInput {
        HostInput::Withdraw {
            id: RequestId(id),
            reason: String::new(),
        }
    }

    fn id_of(input: &HostInput) -> u64 {
        match input {
            HostInput::Withdraw { id, .. } | HostInput::Answer { id, .. } => id.0,
            _ => u64::MAX,
        }
    }

    /// Eight threads submit at once: every input is handled exactly once, never two at a time,
    /// and each thread's inputs in the order it submitted them.
    #[test]
    fn concurrent_submissions_are_all_handled_once_in_order() {
        const THREADS: u64 = 8;
        const EACH: u64 = 5_000;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let busy = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (log, flag) = (seen.clone(), busy.clone());
        let hub = Hub::start(Box::new(move |input, _: &Weak<Hub>| {
            assert!(
                !flag.swap(true, Ordering::SeqCst),
                "two inputs handled at once"
            );
            log.lock().unwrap().push(id_of(&input));
            flag.store(false, Ordering::SeqCst);
        }));
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let hub = hub.clone();
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        hub.submit(withdraw(t * EACH + i));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len() as u64, THREADS * EACH, "an input was lost");
        for t in 0..THREADS {
            let mine: Vec<u64> = seen.iter().copied().filter(|id| id / EACH == t).collect();
            let expected: Vec<u64> = (t * EACH..(t + 1) * EACH).collect();
            assert_eq!(
                mine, expected,
                "thread {t}'s inputs out of order or duplicated"
            );
        }
    }

    /// A callback that submits (a surface answering at once) neither deadlocks nor jumps the
    /// queue: its input is handled after the one being handled.
    #[test]
    fn inputs_submitted_from_a_callback_follow_the_current_one() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let hub = Hub::start(Box::new(move |input, hub: &Weak<Hub>| {
            let id = id_of(&input);
            log.lock().unwrap().push(id);
            if id < 3
                && let Some(hub) = hub.upgrade()
            {
                hub.submit(withdraw(id + 10));
                log.lock().unwrap().push(100 + id);
            }
        }));
        hub.submit(withdraw(1));
        hub.submit(withdraw(2));
        assert_eq!(*seen.lock().unwrap(), [1, 101, 11, 2, 102, 12]);
    }
}
