//! The elicitation inbox: admission, the queue, answers and their validation.
//!
//! Invariants:
//! - at most one request is presented at a time; the others wait in arrival order;
//! - every admitted request ends in exactly one [`Effect::Reply`] or one [`Effect::Closed`];
//! - an answer is validated (after defaults) before its reply is emitted; an invalid answer
//!   produces [`Effect::Invalid`] and the request stays pending and presented.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use interlude_protocol::ProtocolEra;
use interlude_schema::{Content, FieldError, FormSchema};
use serde_json::Value;

use crate::admission::{DeclaredModes, ElicitParams, Limits, SchemaCache, admit};
use crate::audit::{AuditEvent, AuditRecord, redact};
use crate::codes;
use crate::rate::Bucket;

/// The host's id for one request to a person (unique within a host; chosen by the caller).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Policy knobs.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Longest `message` accepted, in characters.
    pub max_message_chars: usize,
    /// Most properties in one form.
    pub max_fields: usize,
    /// Requests a server may make at once before rate limiting applies.
    pub rate_burst: u32,
    /// Sustained requests per minute per server.
    pub rate_per_minute: u32,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            max_message_chars: 16 * 1024,
            max_fields: 64,
            rate_burst: 20,
            rate_per_minute: 60,
        }
    }
}

/// A request as it reaches the engine: raw params, parsed here.
#[derive(Debug, Clone)]
pub struct Incoming {
    /// The host's id for it.
    pub id: RequestId,
    /// The requesting server's name.
    pub server: String,
    /// How it travelled.
    pub era: ProtocolEra,
    /// What the host declared to this server.
    pub declared: DeclaredModes,
    /// The `elicitation/create` params (typed by rmcp, or raw JSON).
    pub params: ElicitParams,
    /// The tool call that raised it, when known.
    pub tool: Option<String>,
}

/// What the person did, as a surface reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum SurfaceAnswer {
    /// Submit this content (defaults are applied by the engine for omitted fields).
    Accept(Content),
    /// Refuse.
    Decline,
    /// Dismiss.
    Cancel,
}

/// Everything that can happen to the engine.
#[derive(Debug, Clone)]
pub enum Input {
    /// A server asked for something.
    Elicit(Incoming),
    /// A surface answered the request `id`.
    Answer {
        /// The request.
        id: RequestId,
        /// The answer.
        answer: SurfaceAnswer,
    },
    /// The request can no longer be answered (its call ended, the server cancelled it).
    Withdraw {
        /// The request.
        id: RequestId,
        /// Why, for the person.
        reason: String,
    },
    /// A server disconnected: everything it asked is closed.
    ServerGone {
        /// The server's name.
        server: String,
        /// Why, for the person.
        reason: String,
    },
}

/// The reply that goes back to the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `action: accept` with validated content, defaults applied.
    Accept(Content),
    /// `action: decline`.
    Decline,
    /// `action: cancel`.
    Cancel,
    /// A JSON-RPC error.
    Error {
        /// The code (see [`codes`](crate::codes)).
        code: i32,
        /// The message, naming the offending field.
        message: String,
        /// `error.data`.
        data: Option<Value>,
    },
}

/// Something a surface should tell the person about a request that went away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The server concerned.
    pub server: String,
    /// What happened, in a sentence.
    pub text: String,
}

/// What a surface renders for one pending request.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationView {
    /// The request's id, to answer with.
    pub id: RequestId,
    /// The requesting server's name: show it prominently.
    pub server: String,
    /// The message, as plain text (never rendered as markup or with live links).
    pub message: String,
    /// The form (shared: servers ask the same forms again and again, and views are cloned for
    /// every surface that keeps one).
    pub schema: Arc<FormSchema>,
    /// Initial values: the declared defaults.
    pub prefill: Content,
    /// How the request travelled.
    pub era: ProtocolEra,
    /// The tool call that raised it, when known.
    pub tool: Option<String>,
}

/// What the engine asks its driver to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this reply to the server for request `id`; the request is finished.
    Reply {
        /// The request.
        id: RequestId,
        /// The reply.
        reply: Reply,
    },
    /// A request was admitted and joined the queue (it may be presented at once, in which case
    /// [`Effect::Present`] follows). Surfaces that show the whole queue track it from here.
    Queued(ElicitationView),
    /// Show this request to the person (it is now the focused one).
    Present(ElicitationView),
    /// The surface's answer to `id` broke these rules; the request stays presented.
    Invalid {
        /// The request.
        id: RequestId,
        /// One error per field.
        errors: Vec<FieldError>,
    },
    /// The request `id` went away without a reply; tell the person.
    Closed {
        /// The request.
        id: RequestId,
        /// What to say.
        notice: Notice,
    },
    /// Record this.
    Audit(AuditRecord),
}

#[derive(Debug)]
struct Pending {
    view: ElicitationView,
}

/// The engine state. Drive it with [`Engine::handle`].
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    pending: HashMap<RequestId, Pending>,
    queue: VecDeque<RequestId>,
    presented: Option<RequestId>,
    buckets: BTreeMap<String, Bucket>,
    schemas: SchemaCache,
}

impl Engine {
    /// A new, empty engine.
    pub fn new(config: EngineConfig) -> Self {
        Engine {
            config,
            pending: HashMap::new(),
            queue: VecDeque::new(),
            presented: None,
            buckets: BTreeMap::new(),
            schemas: SchemaCache::default(),
        }
    }

    /// The request being presented, if any.
    pub fn presented(&self) -> Option<&ElicitationView> {
        self.presented
            .and_then(|id| self.pending.get(&id))
            .map(|p| &p.view)
    }

    /// Every pending request, the presented one first, then in arrival order.
    pub fn pending(&self) -> Vec<&ElicitationView> {
        self.presented
            .iter()
            .chain(self.queue.iter())
            .filter_map(|id| self.pending.get(id).map(|p| &p.view))
            .collect()
    }

    /// Handles one input at time `now_ms` and returns what to do, in order.
    pub fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Effect> {
        let mut out = Vec::new();
        match input {
            Input::Elicit(incoming) => self.on_elicit(incoming, now_ms, &mut out),
            Input::Answer { id, answer } => self.on_answer(id, answer, now_ms, &mut out),
            Input::Withdraw { id, reason } => self.close(id, reason, now_ms, &mut out),
            Input::ServerGone { server, reason } => {
                let ids: Vec<RequestId> = self
                    .pending
                    .iter()
                    .filter(|(_, p)| p.view.server == server)
                    .map(|(id, _)| *id)
                    .collect();
                let mut ids = ids;
                ids.sort();
                for id in ids {
                    self.close(id, reason.clone(), now_ms, &mut out);
                }
                // The rate-limit bucket is kept: reconnecting must not refill a server's allowance.
            }
        }
        self.present_next(&mut out);
        out
    }

    fn audit(out: &mut Vec<Effect>, now_ms: u64, id: RequestId, server: &str, event: AuditEvent) {
        out.push(Effect::Audit(AuditRecord {
            at_ms: now_ms,
            request: id.0,
            server: server.to_owned(),
            event,
        }));
    }

    fn on_elicit(&mut self, incoming: Incoming, now_ms: u64, out: &mut Vec<Effect>) {
        let Incoming {
            id,
            server,
            era,
            declared,
            params,
            tool,
        } = incoming;
        if self.pending.contains_key(&id) {
            // Ids are the driver's to keep unique; a reused id must not orphan the first request.
            out.push(Effect::Reply {
                id,
                reply: Reply::Error {
                    code: codes::INTERNAL_ERROR,
                    message: format!("request id {id} is already pending"),
                    data: None,
                },
            });
            return;
        }
        let limits = Limits {
            max_message_chars: self.config.max_message_chars,
            max_fields: self.config.max_fields,
        };
        let admitted = match admit(&params, declared, &limits, &mut self.schemas) {
            Ok(a) => a,
            Err(refusal) => {
                let message = refusal.to_string();
                Self::audit(
                    out,
                    now_ms,
                    id,
                    &server,
                    AuditEvent::Refused {
                        reason: message.clone(),
                    },
                );
                let data = refusal.field().map(|f| serde_json::json!({ "field": f }));
                out.push(Effect::Reply {
                    id,
                    reply: Reply::Error {
                        code: codes::INVALID_PARAMS,
                        message,
                        data,
                    },
                });
                return;
            }
        };
        let (burst, per_minute) = (self.config.rate_burst, self.config.rate_per_minute);
        let bucket = self
            .buckets
            .entry(server.clone())
            .or_insert_with(|| Bucket::new(burst, now_ms));
        if !bucket.take(burst, per_minute, now_ms) {
            let message = format!(
                "too many elicitations from server `{server}`; the limit is {per_minute} per minute"
            );
            Self::audit(
                out,
                now_ms,
                id,
                &server,
                AuditEvent::Refused {
                    reason: message.clone(),
                },
            );
            out.push(Effect::Reply {
                id,
                reply: Reply::Error {
                    code: codes::RATE_LIMITED,
                    message,
                    data: None,
                },
            });
            return;
        }
        Self::audit(
            out,
            now_ms,
            id,
            &server,
            AuditEvent::Received {
                era: era.to_string(),
                message: admitted.message.clone(),
                fields: admitted
                    .schema
                    .fields
                    .iter()
                    .map(|f| f.name.clone())
                    .collect(),
            },
        );
        let prefill = admitted.schema.prefill();
        let view = ElicitationView {
            id,
            server,
            message: admitted.message,
            schema: admitted.schema,
            prefill,
            era,
            tool,
        };
        out.push(Effect::Queued(view.clone()));
        self.pending.insert(id, Pending { view });
        self.queue.push_back(id);
    }

    fn on_answer(
        &mut self,
        id: RequestId,
        answer: SurfaceAnswer,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let Some(p) = self.pending.get(&id) else {
            // Late or duplicate answer (another tab, a request already withdrawn): nothing to do.
            return;
        };
        let server = p.view.server.clone();
        let (reply, event) = match answer {
            SurfaceAnswer::Accept(mut content) => {
                // `null` is not a content value on the wire (string, number, boolean, string[]);
                // validation treats it as omitted, so the reply does too (and defaults apply).
                content.retain(|_, v| !v.is_null());
                p.view.schema.apply_defaults(&mut content);
                if let Err(errors) = p.view.schema.validate(&content) {
                    out.push(Effect::Invalid { id, errors });
                    return;
                }
                let event = AuditEvent::Accepted {
                    content: redact(&content),
                };
                (Reply::Accept(content), event)
            }
            SurfaceAnswer::Decline => (Reply::Decline, AuditEvent::Declined),
            SurfaceAnswer::Cancel => (Reply::Cancel, AuditEvent::Cancelled),
        };
        self.remove(id);
        Self::audit(out, now_ms, id, &server, event);
        out.push(Effect::Reply { id, reply });
    }

    fn close(&mut self, id: RequestId, reason: String, now_ms: u64, out: &mut Vec<Effect>) {
        let Some(p) = self.remove(id) else {
            return;
        };
        Self::audit(
            out,
            now_ms,
            id,
            &p.view.server,
            AuditEvent::Withdrawn {
                reason: reason.clone(),
            },
        );
        out.push(Effect::Closed {
            id,
            notice: Notice {
                server: p.view.server,
                text: reason,
            },
        });
    }

    fn remove(&mut self, id: RequestId) -> Option<Pending> {
        if self.presented == Some(id) {
            self.presented = None;
        }
        self.queue.retain(|q| *q != id);
        self.pending.remove(&id)
    }

    fn present_next(&mut self, out: &mut Vec<Effect>) {
        if self.presented.is_some() {
            return;
        }
        while let Some(next) = self.queue.pop_front() {
            if let Some(p) = self.pending.get(&next) {
                self.presented = Some(next);
                out.push(Effect::Present(p.view.clone()));
                return;
            }
        }
    }
}
