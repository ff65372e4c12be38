//! The engine itself: its ids, its one enum of inputs, its one enum of effects, and
//! [`Engine::handle`], which routes each input to the part that decides it (admission, the
//! inbox, answers, rate limiting, audit).
//!
//! What it does not do: keep a clock, choose ids, talk to anyone. The driver passes the time and
//! the ids in and carries the effects out.

use std::collections::BTreeMap;

use interlude_protocol::{Answer, ProtocolEra};
use interlude_schema::{Content, FieldError};
use rmcp::model::{ElicitResult, ErrorCode, ErrorData};
use serde_json::Value;

use crate::admission::{ElicitParams, Limits, SchemaCache, admit};
use crate::audit::{AuditEvent, AuditRecord, redact};
use crate::codes;
use crate::inbox::{Check, Inbox, Pending};
use crate::rate::Bucket;
use crate::request::{FormRequest, RequestKind, RequestView};

/// The host's id for one request to a person (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// The host's id for one tool call (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallId(pub u64);

/// The host's id for one server connection (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerId(pub u64);

macro_rules! display_id {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    )*};
}
display_id!(RequestId, CallId, ServerId);

/// What a host declared to its servers, as data: it decides what admission accepts.
///
/// ```
/// use interlude_engine::Declared;
/// assert!(Declared::default().form);
/// assert!(!Declared::default().url);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// `elicitation.form` (or the bare `elicitation: {}`).
    pub form: bool,
    /// `elicitation.url`.
    pub url: bool,
}

impl Declared {
    /// Form elicitation only.
    pub const FORM: Declared = Declared {
        form: true,
        url: false,
    };
}

impl Default for Declared {
    /// What Interlude declares unless configured otherwise: form elicitation (URL mode is not
    /// handled yet, so it is not declared).
    fn default() -> Self {
        Declared::FORM
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
    /// The requesting server.
    pub server: ServerId,
    /// The requesting server's name, for the person and the audit log.
    pub server_name: String,
    /// The tool call that raised it, when the host knows it exactly.
    pub call: Option<CallId>,
    /// How it travelled.
    pub era: ProtocolEra,
    /// What the host declared to this server.
    pub declared: Declared,
    /// The `elicitation/create` params (typed by rmcp, or raw JSON).
    pub params: ElicitParams,
}

/// Everything that can happen to the engine.
#[derive(Debug, Clone)]
pub enum Input {
    /// A server asked for something.
    Request(Incoming),
    /// A surface answered the request `id`.
    Answer {
        /// The request.
        id: RequestId,
        /// What the person did (defaults are applied by the engine for omitted fields).
        answer: Answer<Content>,
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
        /// The server.
        server: ServerId,
        /// Why, for the person.
        reason: String,
    },
}

/// The reply that goes back to the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The person's answer: validated content with defaults applied, a decline or a cancel.
    Answered(Answer<Content>),
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

impl Reply {
    /// The reply on the wire: an `ElicitResult`, or the JSON-RPC error.
    ///
    /// ```
    /// use interlude_engine::{Answer, Reply};
    /// let result = Reply::Answered(Answer::Declined).into_result().unwrap();
    /// assert_eq!(serde_json::to_value(result).unwrap(), serde_json::json!({"action": "decline"}));
    /// ```
    pub fn into_result(self) -> Result<ElicitResult, ErrorData> {
        match self {
            Reply::Answered(answer) => Ok(answer.into_result()),
            Reply::Error {
                code,
                message,
                data,
            } => Err(ErrorData::new(ErrorCode(code), message, data)),
        }
    }
}

/// Something a surface should tell the person about a request that went away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The server concerned (its name).
    pub server: String,
    /// What happened, in a sentence.
    pub text: String,
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
    /// [`Effect::Present`] follows). The view moves to the driver here: the engine keeps only
    /// what it needs to judge the answer.
    Queued(RequestView),
    /// Show request `id` to the person (it is now the focused one).
    Present(RequestId),
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

/// The engine state. Drive it with [`Engine::handle`].
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    inbox: Inbox,
    buckets: BTreeMap<String, Bucket>,
    schemas: SchemaCache,
}

impl Engine {
    /// A new, empty engine.
    pub fn new(config: EngineConfig) -> Self {
        Engine {
            config,
            inbox: Inbox::default(),
            buckets: BTreeMap::new(),
            schemas: SchemaCache::default(),
        }
    }

    /// The request being presented, if any.
    pub fn presented(&self) -> Option<RequestId> {
        self.inbox.presented()
    }

    /// Every pending request, the presented one first, then in arrival order.
    pub fn pending(&self) -> Vec<RequestId> {
        self.inbox.pending()
    }

    /// Handles one input at time `now_ms` and returns what to do, in order.
    pub fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Effect> {
        let mut out = Vec::new();
        match input {
            Input::Request(incoming) => self.on_request(incoming, now_ms, &mut out),
            Input::Answer { id, answer } => self.on_answer(id, answer, now_ms, &mut out),
            Input::Withdraw { id, reason } => self.close(id, reason, now_ms, &mut out),
            Input::ServerGone { server, reason } => {
                for id in self.inbox.of_server(server) {
                    self.close(id, reason.clone(), now_ms, &mut out);
                }
                // The rate-limit bucket is kept: reconnecting must not refill a server's allowance.
            }
        }
        if let Some(id) = self.inbox.present_next() {
            out.push(Effect::Present(id));
        }
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

    fn refuse(
        out: &mut Vec<Effect>,
        now_ms: u64,
        id: RequestId,
        server: &str,
        code: i32,
        message: String,
        data: Option<Value>,
    ) {
        Self::audit(
            out,
            now_ms,
            id,
            server,
            AuditEvent::Refused {
                reason: message.clone(),
            },
        );
        out.push(Effect::Reply {
            id,
            reply: Reply::Error {
                code,
                message,
                data,
            },
        });
    }

    fn on_request(&mut self, incoming: Incoming, now_ms: u64, out: &mut Vec<Effect>) {
        let Incoming {
            id,
            server,
            server_name,
            call,
            era,
            declared,
            params,
        } = incoming;
        if self.inbox.contains(id) {
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
                let data = refusal.field().map(|f| serde_json::json!({ "field": f }));
                let message = refusal.to_string();
                Self::refuse(
                    out,
                    now_ms,
                    id,
                    &server_name,
                    codes::INVALID_PARAMS,
                    message,
                    data,
                );
                return;
            }
        };
        let (burst, per_minute) = (self.config.rate_burst, self.config.rate_per_minute);
        if !self.buckets.contains_key(&server_name) {
            self.buckets
                .insert(server_name.clone(), Bucket::new(burst, now_ms));
        }
        let allowed = self
            .buckets
            .get_mut(&server_name)
            .is_some_and(|bucket| bucket.take(burst, per_minute, now_ms));
        if !allowed {
            let message = format!(
                "too many elicitations from server `{server_name}`; the limit is {per_minute} per minute"
            );
            Self::refuse(
                out,
                now_ms,
                id,
                &server_name,
                codes::RATE_LIMITED,
                message,
                None,
            );
            return;
        }
        Self::audit(
            out,
            now_ms,
            id,
            &server_name,
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
        let check = Check::Form(admitted.schema.clone());
        let view = RequestView {
            id,
            server,
            server_name: server_name.clone(),
            call,
            era,
            kind: RequestKind::Form(FormRequest {
                message: admitted.message,
                schema: admitted.schema,
                prefill,
            }),
        };
        out.push(Effect::Queued(view));
        self.inbox.admit(
            id,
            Pending {
                server,
                server_name,
                check,
            },
        );
    }

    fn on_answer(
        &mut self,
        id: RequestId,
        answer: Answer<Content>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let Some(pending) = self.inbox.get(id) else {
            // Late or duplicate answer (another tab, a request already withdrawn): nothing to do.
            return;
        };
        let (answer, event) = match (answer, &pending.check) {
            (Answer::Accepted(mut content), Check::Form(schema)) => {
                // `null` is not a content value on the wire (string, number, boolean, string[]);
                // validation treats it as omitted, so the reply does too (and defaults apply).
                content.retain(|_, v| !v.is_null());
                schema.apply_defaults(&mut content);
                if let Err(errors) = schema.validate(&content) {
                    out.push(Effect::Invalid { id, errors });
                    return;
                }
                let event = AuditEvent::Accepted {
                    content: redact(&content),
                };
                (Answer::Accepted(content), event)
            }
            (Answer::Declined, _) => (Answer::Declined, AuditEvent::Declined),
            (Answer::Cancelled, _) => (Answer::Cancelled, AuditEvent::Cancelled),
        };
        if let Some(p) = self.inbox.remove(id) {
            Self::audit(out, now_ms, id, &p.server_name, event);
        }
        out.push(Effect::Reply {
            id,
            reply: Reply::Answered(answer),
        });
    }

    fn close(&mut self, id: RequestId, reason: String, now_ms: u64, out: &mut Vec<Effect>) {
        let Some(p) = self.inbox.remove(id) else {
            return;
        };
        Self::audit(
            out,
            now_ms,
            id,
            &p.server_name,
            AuditEvent::Withdrawn {
                reason: reason.clone(),
            },
        );
        out.push(Effect::Closed {
            id,
            notice: Notice {
                server: p.server_name,
                text: reason,
            },
        });
    }
}
