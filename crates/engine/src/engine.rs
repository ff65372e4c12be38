//! The engine itself: its ids, its one enum of inputs, its one enum of effects, and
//! [`Engine::handle`], which routes each input to the part that decides it (admission, the
//! inbox, answers, rate limiting, audit).
//!
//! What it does not do: keep a clock, choose ids, talk to anyone. The driver passes the time and
//! the ids in and carries the effects out.

use std::collections::{BTreeMap, VecDeque};
use std::net::IpAddr;

use interlude_protocol::apps::Visibility;
use interlude_protocol::{Answer, ProtocolEra};
use interlude_schema::{Content, FieldError};
use rmcp::model::{ElicitResult, ErrorCode, ErrorData};
use serde_json::{Map, Value};

use crate::admission::{Admitted, AppView, ElicitParams, Limits, SchemaCache, admit, app_view};
use crate::audit::{AuditEvent, AuditRecord, redact};
use crate::bridge::{BridgeEffect, ViewBridge, ViewConfig};
use crate::codes;
use crate::inbox::{AppPending, Check, Inbox, Pending, UrlPending};
use crate::rate::Bucket;
use crate::request::{
    AppFormRequest, AppStage, FormRequest, RequestKind, RequestMethod, RequestView, UrlRequest,
    UrlStage,
};
use crate::url_safety::{UrlCheck, UrlPolicy, Verdict, check_url};

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
/// The host's id for one MCP Apps view (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ViewId(pub u64);

display_id!(RequestId, CallId, ServerId, ViewId);

/// What a host declared to its servers, as data: it decides what admission accepts.
///
/// ```
/// use interlude_engine::Declared;
/// assert!(Declared::default().form);
/// assert!(Declared::default().url);
/// assert!(!Declared::FORM.url);
/// assert!(Declared::FORM_AND_URL.with_apps().apps);
/// assert!(Declared::FORM_AND_URL.with_app_elicitation().apps);
/// assert!(!Declared::default().user_interaction);
/// assert!(Declared::default().with_user_interaction().user_interaction);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// `elicitation.form` (or the bare `elicitation: {}`).
    pub form: bool,
    /// `elicitation.url`.
    pub url: bool,
    /// The MCP Apps extension (`extensions["io.modelcontextprotocol/ui"]`): a surface renders
    /// `ui://` views.
    pub apps: bool,
    /// App-rendered elicitation (SEP-3118) is negotiated with this server: the host declared
    /// `elicitation` in its Apps extension **and** the server did in its own. Only then is a
    /// form request's `_meta.ui.resourceUri` shown in that view
    /// ([`RequestKind::AppForm`](crate::RequestKind::AppForm)); otherwise it is a plain form.
    pub app_elicitation: bool,
    /// The User Interaction draft (seed 000): `capabilities.userInteraction` with both types
    /// (`ua`, `prompt`) and progress. Off unless the person turns it on; without it an
    /// `interaction/create` is refused.
    pub user_interaction: bool,
}

impl Declared {
    /// Form elicitation only.
    pub const FORM: Declared = Declared {
        form: true,
        url: false,
        apps: false,
        app_elicitation: false,
        user_interaction: false,
    };

    /// Form and URL elicitation.
    pub const FORM_AND_URL: Declared = Declared {
        form: true,
        url: true,
        apps: false,
        app_elicitation: false,
        user_interaction: false,
    };

    /// The same, and MCP Apps.
    #[must_use]
    pub const fn with_apps(self) -> Declared {
        Declared { apps: true, ..self }
    }

    /// The same, and the User Interaction draft (seed 000).
    #[must_use]
    pub const fn with_user_interaction(self) -> Declared {
        Declared {
            user_interaction: true,
            ..self
        }
    }

    /// The same, and app-rendered elicitation (which needs the Apps extension too).
    #[must_use]
    pub const fn with_app_elicitation(self) -> Declared {
        Declared {
            apps: true,
            app_elicitation: true,
            ..self
        }
    }
}

impl Default for Declared {
    /// What Interlude declares unless configured otherwise: form and URL elicitation.
    fn default() -> Self {
        Declared::FORM_AND_URL
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
    /// Longest `url` of a URL request, in characters.
    pub max_url_chars: usize,
    /// Which links may be opened (strict by default: https to public hosts only).
    pub url_policy: UrlPolicy,
    /// Look a link's host name up after consent and refuse it when it points somewhere the
    /// policy forbids (default true). A driver that never opens links (a headless run that
    /// only prints them) may turn it off.
    pub resolve_links: bool,
    /// How long an app-rendered form's view may take to start (`ui/notifications/initialized`)
    /// once its request is shown and a surface began loading it ([`ViewInput::Loading`]), in
    /// milliseconds, before the person gets the plain form instead.
    pub app_start_ms: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            max_message_chars: 16 * 1024,
            max_fields: 64,
            rate_burst: 20,
            rate_per_minute: 60,
            max_url_chars: 8 * 1024,
            url_policy: UrlPolicy::default(),
            resolve_links: true,
            app_start_ms: 10_000,
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
    /// The host looked up the host name of URL request `id`'s link, after the person consented
    /// ([`Effect::Resolve`]); no addresses means the name did not resolve.
    Resolved {
        /// The request.
        id: RequestId,
        /// Every address the name resolved to.
        addresses: Vec<IpAddr>,
    },
    /// A server said the URL flow `elicitation_id` finished (2025-11-25
    /// `notifications/elicitation/complete`). Unknown and repeated ids are ignored.
    UrlCompleted {
        /// The server that sent it (an id only counts from the server that asked).
        server: ServerId,
        /// The flow.
        elicitation_id: String,
    },
    /// The person says they are done in the browser with the link of URL request `id`, which
    /// they consented to earlier and whose server has not yet said its flow finished (a
    /// 2025-11-25 notification may come late, or never). The wait for it ends
    /// ([`Effect::LinkDone`]); a notification after this is ignored. Ignored for a link nothing
    /// waits for.
    LinkDone {
        /// The request.
        id: RequestId,
    },
    /// Something for app view `view` ([`ViewInput`]).
    View {
        /// The view.
        view: ViewId,
        /// What happened.
        input: ViewInput,
    },
    /// App-rendered form `id` cannot use its view (its resource did not load, the surface has
    /// no views, the person asked for the plain form): present the plain form instead
    /// ([`Effect::Fallback`]). Ignored for other requests and after a fallback.
    Fallback {
        /// The request.
        id: RequestId,
        /// Why, for the person.
        reason: String,
    },
    /// Server `server`'s tools changed: who may call which, for its views' `tools/call`.
    ServerTools {
        /// The server.
        server: ServerId,
        /// Each tool and its visibility.
        tools: BTreeMap<String, Visibility>,
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
    /// The person consented to open a URL request's link (URL-mode `accept`, which carries no
    /// content).
    Consented,
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
            Reply::Consented => Ok(ElicitResult::new(rmcp::model::ElicitationAction::Accept)),
            Reply::Error {
                code,
                message,
                data,
            } => Err(ErrorData::new(ErrorCode(code), message, data)),
        }
    }

    /// The reply on the wire to a seed-000 `interaction/create` (the User Interaction draft):
    /// `{"content": {…}}` for an answered prompt, `{}` for a link the person consented to, and
    /// for a decline or cancel the draft's error (code `-1`, "User did not consent to the
    /// interaction", with `data.action`).
    ///
    /// ```
    /// use interlude_engine::{Answer, Reply};
    /// use serde_json::json;
    /// let content = json!({"name": "Ada"}).as_object().cloned().unwrap();
    /// assert_eq!(Reply::Answered(Answer::Accepted(content)).into_interaction_result().unwrap(),
    ///            json!({"content": {"name": "Ada"}}));
    /// assert_eq!(Reply::Consented.into_interaction_result().unwrap(), json!({}));
    /// let refused = Reply::Answered(Answer::Declined).into_interaction_result().unwrap_err();
    /// assert_eq!(refused.code.0, -1);
    /// ```
    pub fn into_interaction_result(self) -> Result<Value, ErrorData> {
        use interlude_protocol::interaction::{not_consented, prompt_result, ua_result};
        match self {
            Reply::Answered(Answer::Accepted(content)) => Ok(prompt_result(content)),
            Reply::Answered(answer) => Err(not_consented(answer.action_str())),
            Reply::Consented => Ok(ua_result()),
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
    /// The person consented to URL request `id`: look up `host` (only now, never before
    /// consent) and answer with [`Input::Resolved`]. A host name in a private range, for
    /// instance, refuses the link even though its name looked public.
    Resolve {
        /// The request.
        id: RequestId,
        /// The host name, in ASCII (punycode).
        host: String,
    },
    /// URL request `id`'s link passed every check after the person consented: open it in the
    /// person's own browser (never in a view the host can inspect), or hand it to them.
    Open {
        /// The request (already replied to).
        id: RequestId,
        /// The link, as the URL parser serialized it.
        url: String,
    },
    /// The server said the flow of URL request `id` finished in the browser.
    Completed {
        /// The request (replied to earlier, when the person consented).
        id: RequestId,
    },
    /// The person said they are done with URL request `id`'s link before its server said so
    /// ([`Input::LinkDone`]): stop waiting for it.
    LinkDone {
        /// The request (replied to earlier, when the person consented).
        id: RequestId,
    },
    /// App-rendered form `id` is shown as the plain form from now on, for `reason` (its view,
    /// if one was open, is being torn down).
    Fallback {
        /// The request.
        id: RequestId,
        /// Why, for the person.
        reason: String,
    },
    /// Carry out `effect` for app view `view` (see [`BridgeEffect`]); after
    /// [`BridgeEffect::Destroy`] the engine has forgotten the view.
    View {
        /// The view.
        view: ViewId,
        /// What to do.
        effect: BridgeEffect,
    },
    /// Record this.
    Audit(AuditRecord),
}

/// What happens to an app view ([`Input::View`]); each maps onto a [`ViewBridge`] method.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ViewInput {
    /// The view opens for a call to a tool of `server`, whose tools' visibility is `tools`, or
    /// to render the app-rendered form `request` of that server.
    Open {
        /// The view's configuration.
        config: Box<ViewConfig>,
        /// Its server.
        server: ServerId,
        /// The server's tools and who may call them.
        tools: BTreeMap<String, Visibility>,
        /// The form request it renders ([`RequestKind::AppForm`]), if any: the engine binds
        /// them and gives the view the request's params.
        request: Option<RequestId>,
    },
    /// A message from the view or its sandbox proxy.
    FromView(Value),
    /// The call's complete arguments.
    ToolInput(Option<Map<String, Value>>),
    /// The call's result (`CallToolResult` as JSON).
    ToolResult(Value),
    /// The call ended without a result.
    ToolCancelled(String),
    /// The host's context changed (the keys given).
    HostContext(Map<String, Value>),
    /// The server answered a request the view made ([`BridgeEffect::ToServer`]).
    ServerReply {
        /// The bridge's number for the request.
        proxy: u64,
        /// The result, or the error's code and message.
        reply: Result<Value, (i32, String)>,
    },
    /// The server reported progress (`notifications/progress`) on a request the view made
    /// ([`BridgeEffect::ToServer`]); the view hears it under its own progress token.
    ServerProgress {
        /// The bridge's number for the request.
        proxy: u64,
        /// The progress so far.
        progress: f64,
        /// The total, if the server knows it.
        total: Option<f64>,
        /// The server's words on it.
        message: Option<String>,
    },
    /// The person answered a question asked for the view ([`BridgeEffect::Ask`]).
    Answer {
        /// The bridge's number for the question.
        question: u64,
        /// The result for the view, or why not.
        reply: Result<Value, String>,
    },
    /// The person calls the view's own tool `name` (in a model's place).
    CallViewTool {
        /// The tool.
        name: String,
        /// Its arguments.
        arguments: Map<String, Value>,
    },
    /// The person puts the view in this display mode from the host's controls.
    DisplayMode(String),
    /// Close the view (`ui/resource-teardown`, then destroy).
    Teardown(String),
    /// A surface began loading the view's document (the web surface: its sandbox served the
    /// proxy document). A view rendering a form request must be live within
    /// [`EngineConfig::app_start_ms`] of being both loaded and shown, or the person gets the
    /// plain form.
    Loading,
    /// Time passed (a teardown's deadline).
    Tick,
}

/// How many consented links the engine remembers per host, to recognise a 2026-07-28 server
/// asking again for the same link in the same call, and to match completion notifications.
const URLS_KEPT: usize = 1024;

/// An app view and what its bridge needs to know of its server.
#[derive(Debug)]
struct OpenView {
    bridge: ViewBridge,
    server: ServerId,
    tools: BTreeMap<String, Visibility>,
    /// The form request it renders.
    request: Option<RequestId>,
}

/// A link the person consented to.
#[derive(Debug)]
struct Consented {
    id: RequestId,
    server: ServerId,
    server_name: String,
    call: Option<CallId>,
    url: String,
    elicitation_id: Option<String>,
    /// The completion notification has not arrived yet.
    waiting: bool,
}

/// The engine state. Drive it with [`Engine::handle`].
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    inbox: Inbox,
    /// Open app views.
    views: BTreeMap<ViewId, OpenView>,
    buckets: BTreeMap<String, Bucket>,
    schemas: SchemaCache,
    /// Links the person consented to, oldest first.
    consented: VecDeque<Consented>,
    /// The form request whose answer is being taken from its own app view.
    answering: Option<RequestId>,
}

impl Engine {
    /// A new, empty engine.
    pub fn new(config: EngineConfig) -> Self {
        Engine {
            config,
            inbox: Inbox::default(),
            views: BTreeMap::new(),
            buckets: BTreeMap::new(),
            schemas: SchemaCache::default(),
            consented: VecDeque::new(),
            answering: None,
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
            Input::Resolved { id, addresses } => self.on_resolved(id, &addresses, now_ms, &mut out),
            Input::UrlCompleted {
                server,
                elicitation_id,
            } => self.on_url_completed(server, &elicitation_id, now_ms, &mut out),
            Input::LinkDone { id } => self.on_link_done(id, now_ms, &mut out),
            Input::Fallback { id, reason } => self.fall_back(id, reason, now_ms, &mut out),
            Input::View { view, input } => self.on_view(view, input, now_ms, &mut out),
            Input::ServerTools { server, tools } => {
                for open in self.views.values_mut().filter(|v| v.server == server) {
                    open.tools = tools.clone();
                }
            }
            Input::ServerGone { server, reason } => {
                for id in self.inbox.of_server(server) {
                    self.close(id, reason.clone(), now_ms, &mut out);
                }
                let views: Vec<ViewId> = self
                    .views
                    .iter()
                    .filter(|(_, v)| v.server == server)
                    .map(|(id, _)| *id)
                    .collect();
                for view in views {
                    self.on_view(
                        view,
                        ViewInput::ToolCancelled(reason.clone()),
                        now_ms,
                        &mut out,
                    );
                    self.on_view(view, ViewInput::Teardown(reason.clone()), now_ms, &mut out);
                    // Its server is gone: nobody will answer a teardown either.
                    if let Some(open) = self.views.remove(&view) {
                        drop(open);
                        out.push(Effect::View {
                            view,
                            effect: BridgeEffect::Destroy,
                        });
                    }
                }
                self.consented.retain(|c| c.server != server);
                // The rate-limit bucket is kept: reconnecting must not refill a server's allowance.
            }
        }
        if let Some(id) = self.inbox.present_next() {
            out.push(Effect::Present(id));
            self.shown(id, now_ms, &mut out);
        }
        out
    }

    /// Request `id` is presented: an app-rendered form's view starts its clock.
    fn shown(&mut self, id: RequestId, now_ms: u64, out: &mut Vec<Effect>) {
        let Some(app) = self.inbox.get_mut(id).and_then(|p| p.app.as_mut()) else {
            return;
        };
        app.shown = true;
        if let Some(view) = app.view {
            let start_ms = self.config.app_start_ms;
            self.view_effects(view, |b| b.elicitation_shown(now_ms, start_ms), now_ms, out);
        }
    }

    /// App-rendered form `id` is shown as the plain form from now on.
    fn fall_back(&mut self, id: RequestId, reason: String, now_ms: u64, out: &mut Vec<Effect>) {
        let Some(pending) = self.inbox.get_mut(id) else {
            return;
        };
        let server_name = pending.server_name.clone();
        let Some(app) = pending.app.as_mut().filter(|a| !a.fallen_back) else {
            return;
        };
        app.fallen_back = true;
        let view = app.view.take();
        Self::audit(
            out,
            now_ms,
            id,
            &server_name,
            AuditEvent::FellBack {
                reason: reason.clone(),
            },
        );
        out.push(Effect::Fallback { id, reason });
        if let Some(view) = view {
            self.release_view(
                view,
                Some("the host shows its own form instead"),
                now_ms,
                out,
            );
        }
    }

    /// The request a view renders is over: the view hears it (a forwarded request still open
    /// is cancelled) and is torn down.
    fn release_view(
        &mut self,
        view: ViewId,
        reason: Option<&str>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        if let Some(open) = self.views.get_mut(&view) {
            open.request = None;
        }
        self.view_effects(view, |b| b.elicitation_closed(reason), now_ms, out);
        let why = reason.unwrap_or("answered").to_owned();
        self.on_view(view, ViewInput::Teardown(why), now_ms, out);
    }

    /// Runs `f` on view `view`'s bridge and hands its effects out.
    fn view_effects(
        &mut self,
        view: ViewId,
        f: impl FnOnce(&mut ViewBridge) -> Vec<BridgeEffect>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let Some(open) = self.views.get_mut(&view) else {
            return;
        };
        let effects = f(&mut open.bridge);
        self.view_out(view, effects, now_ms, out);
    }

    fn audit(out: &mut Vec<Effect>, now_ms: u64, id: RequestId, server: &str, event: AuditEvent) {
        out.push(Effect::Audit(AuditRecord {
            at_ms: now_ms,
            request: id.0,
            server: server.to_owned(),
            server_title: None,
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
            max_url_chars: self.config.max_url_chars,
        };
        let app = app_view(&params, declared);
        let method = params.method();
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
        let header = Header {
            id,
            server,
            server_name,
            call,
            era,
            method,
        };
        match admitted {
            Admitted::Form { message, schema } => {
                self.queue_form(header, message, schema, app, now_ms, out);
            }
            Admitted::Url {
                message,
                url,
                elicitation_id,
            } => self.queue_url(header, message, url, elicitation_id, now_ms, out),
        }
    }

    fn queue_form(
        &mut self,
        header: Header,
        message: String,
        schema: std::sync::Arc<interlude_schema::FormSchema>,
        app: Option<AppView>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let fields = schema.fields.iter().map(|f| f.name.clone()).collect();
        Self::received(&header, &message, fields, None, now_ms, out);
        let prefill = schema.prefill();
        let check = Check::Form(schema.clone());
        let form = FormRequest {
            message,
            schema,
            prefill,
        };
        let id = header.id;
        let Some(app) = app else {
            self.enqueue(header, RequestKind::Form(form), Some(check), out);
            return;
        };
        let kind = RequestKind::AppForm(Box::new(AppFormRequest {
            form,
            resource_uri: app.resource_uri,
            stage: AppStage::View,
        }));
        self.enqueue(header, kind, Some(check), out);
        if let Some(pending) = self.inbox.get_mut(id) {
            pending.app = Some(Box::new(AppPending {
                params: app.params,
                view: None,
                shown: false,
                fallen_back: false,
            }));
        }
    }

    /// Queues a URL request, judged by the URL rules first. A refused link is still shown (the
    /// person should know a server tried it) and refused to the server at once.
    fn queue_url(
        &mut self,
        header: Header,
        message: String,
        url: String,
        elicitation_id: Option<String>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let check = check_url(&url, &self.config.url_policy);
        let link = Some(audit_link(&check, &url));
        Self::received(&header, &message, Vec::new(), link, now_ms, out);
        let (id, server, call) = (header.id, header.server, header.call);
        let again = call.is_some()
            && self
                .consented
                .iter()
                .any(|c| c.server == server && c.call == call && c.url == url);
        let stage = if again {
            UrlStage::Waiting
        } else {
            UrlStage::Consent
        };
        let kind = RequestKind::Url(Box::new(UrlRequest {
            message,
            url: url.clone(),
            elicitation_id: elicitation_id.clone(),
            check: check.clone(),
            stage,
        }));
        if check.verdict == Verdict::Refuse {
            let server_name = header.server_name.clone();
            self.enqueue(header, kind, None, out);
            let message = format!("the host refuses to open this link: {}", reasons(&check));
            let data = Some(serde_json::json!({ "field": "url" }));
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
        let pending = Check::Url(Box::new(UrlPending {
            url,
            elicitation_id,
            call,
            check,
            stage,
            resolving: false,
        }));
        self.enqueue(header, kind, Some(pending), out);
    }

    /// Audits a request's arrival.
    fn received(
        header: &Header,
        message: &str,
        fields: Vec<String>,
        link: Option<String>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let event = AuditEvent::Received {
            era: header.era.to_string(),
            method: header.method.as_str().to_owned(),
            message: message.to_owned(),
            fields,
            link,
        };
        Self::audit(out, now_ms, header.id, &header.server_name, event);
    }

    /// Announces a request to the driver and, unless it was refused at once (`check` is
    /// `None`), queues it for the person.
    fn enqueue(
        &mut self,
        header: Header,
        kind: RequestKind,
        check: Option<Check>,
        out: &mut Vec<Effect>,
    ) {
        let Header {
            id,
            server,
            server_name,
            call,
            era,
            method,
        } = header;
        out.push(Effect::Queued(RequestView {
            id,
            server,
            server_name: server_name.clone(),
            call,
            era,
            method,
            kind,
        }));
        if let Some(check) = check {
            self.inbox.admit(
                id,
                Pending {
                    server,
                    server_name,
                    check,
                    app: None,
                },
            );
        }
    }

    fn on_answer(
        &mut self,
        id: RequestId,
        answer: Answer<Content>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let Some(pending) = self.inbox.get_mut(id) else {
            // Late or duplicate answer (another tab, a request already withdrawn): nothing to do.
            return;
        };
        let (reply, event) = match (answer, &mut pending.check) {
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
                (Reply::Answered(Answer::Accepted(content)), event)
            }
            // Consent carries no content: whatever a surface sent along is dropped, never sent.
            (Answer::Accepted(_), Check::Url(url)) => {
                if url.resolving {
                    return;
                }
                if url.stage == UrlStage::Consent {
                    if self.config.resolve_links
                        && let Some(host) = name_to_resolve(&url.check)
                    {
                        // Looked up only now that the person consented; the reply waits for it.
                        url.resolving = true;
                        out.push(Effect::Resolve { id, host });
                        return;
                    }
                    self.consent(id, now_ms, out);
                    return;
                }
                (Reply::Consented, AuditEvent::Done)
            }
            (Answer::Declined, _) => (Reply::Answered(Answer::Declined), AuditEvent::Declined),
            (Answer::Cancelled, _) => (Reply::Answered(Answer::Cancelled), AuditEvent::Cancelled),
        };
        let removed = self.inbox.remove(id);
        let view = removed
            .as_ref()
            .and_then(|p| p.app.as_ref())
            .and_then(|a| a.view);
        if let Some(p) = removed {
            Self::audit(out, now_ms, id, &p.server_name, event);
        }
        out.push(Effect::Reply { id, reply });
        if let Some(view) = view {
            // Answered in the view itself, or from the host's own controls (the view hears it).
            let from_view = self.answering == Some(id);
            let reason = (!from_view).then_some("the person answered outside the view");
            self.release_view(view, reason, now_ms, out);
        }
    }

    /// The link's host name was looked up after consent: open it, or refuse it after all.
    fn on_resolved(
        &mut self,
        id: RequestId,
        addresses: &[IpAddr],
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let Some(Pending {
            check: Check::Url(url),
            ..
        }) = self.inbox.get(id)
        else {
            return;
        };
        if !url.resolving {
            return;
        }
        let refusal = if addresses.is_empty() {
            Some("its host name does not resolve".to_owned())
        } else {
            let check = url.check.with_resolved(addresses);
            (check.verdict == Verdict::Refuse).then(|| reasons(&check))
        };
        match refusal {
            None => self.consent(id, now_ms, out),
            Some(why) => {
                if let Some(p) = self.inbox.remove(id) {
                    let message = format!("the host refuses to open this link: {why}");
                    Self::refuse(
                        out,
                        now_ms,
                        id,
                        &p.server_name,
                        codes::INVALID_PARAMS,
                        message,
                        Some(serde_json::json!({ "field": "url" })),
                    );
                }
            }
        }
    }

    /// The person consented and the link passed every check: reply, open, remember it.
    fn consent(&mut self, id: RequestId, now_ms: u64, out: &mut Vec<Effect>) {
        let Some(Pending {
            server,
            server_name,
            check: Check::Url(url),
            ..
        }) = self.inbox.remove(id)
        else {
            return;
        };
        let open = url
            .check
            .display
            .as_ref()
            .map_or_else(|| url.url.clone(), |d| d.full.clone());
        Self::audit(out, now_ms, id, &server_name, AuditEvent::Consented);
        out.push(Effect::Reply {
            id,
            reply: Reply::Consented,
        });
        out.push(Effect::Open { id, url: open });
        if self.consented.len() >= URLS_KEPT {
            self.consented.pop_front();
        }
        self.consented.push_back(Consented {
            id,
            server,
            server_name,
            call: url.call,
            waiting: url.elicitation_id.is_some(),
            url: url.url,
            elicitation_id: url.elicitation_id,
        });
    }

    fn on_url_completed(
        &mut self,
        server: ServerId,
        elicitation_id: &str,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let Some(flow) = self.consented.iter_mut().find(|c| {
            c.waiting && c.server == server && c.elicitation_id.as_deref() == Some(elicitation_id)
        }) else {
            return;
        };
        flow.waiting = false;
        let (id, name) = (flow.id, flow.server_name.clone());
        Self::audit(out, now_ms, id, &name, AuditEvent::Completed);
        out.push(Effect::Completed { id });
    }

    fn on_view(&mut self, view: ViewId, input: ViewInput, now_ms: u64, out: &mut Vec<Effect>) {
        if let ViewInput::Open {
            mut config,
            server,
            tools,
            request,
        } = input
        {
            // A view for a form request renders it only while the request waits for it.
            let bound = request.and_then(|id| {
                let pending = self.inbox.get_mut(id)?;
                let app = pending.app.as_mut()?;
                if app.fallen_back || app.view.is_some() || pending.server != server {
                    return None;
                }
                app.view = Some(view);
                config.elicitation = Some(app.params.clone());
                Some((id, app.shown))
            });
            if request.is_some() && bound.is_none() {
                // Its request was answered or withdrawn meanwhile: the view never opens.
                out.push(Effect::View {
                    view,
                    effect: BridgeEffect::Destroy,
                });
                return;
            }
            let mut bridge = ViewBridge::new(*config, now_ms);
            let started = match bound {
                Some((_, true)) => bridge.elicitation_shown(now_ms, self.config.app_start_ms),
                _ => Vec::new(),
            };
            self.views.insert(
                view,
                OpenView {
                    bridge,
                    server,
                    tools,
                    request: bound.map(|(id, _)| id),
                },
            );
            self.view_out(view, started, now_ms, out);
            return;
        }
        let Some(open) = self.views.get_mut(&view) else {
            return;
        };
        let effects = match input {
            ViewInput::Open { .. } => Vec::new(),
            ViewInput::FromView(message) => {
                let tools = &open.tools;
                open.bridge
                    .from_view(&message, now_ms, &|name| tools.get(name).copied())
            }
            ViewInput::ToolInput(arguments) => open.bridge.tool_input(arguments),
            ViewInput::ToolResult(result) => open.bridge.tool_result(result),
            ViewInput::ToolCancelled(reason) => open.bridge.tool_cancelled(&reason),
            ViewInput::HostContext(changes) => open.bridge.host_context(changes),
            ViewInput::ServerReply { proxy, reply } => open.bridge.server_reply(proxy, reply),
            ViewInput::ServerProgress {
                proxy,
                progress,
                total,
                message,
            } => open
                .bridge
                .server_progress(proxy, progress, total, message.as_deref()),
            ViewInput::Answer { question, reply } => open.bridge.answer(question, reply),
            ViewInput::CallViewTool { name, arguments } => open
                .bridge
                .call_view_tool(&name, arguments)
                .map(|(_, effects)| effects)
                .unwrap_or_default(),
            ViewInput::DisplayMode(mode) => open.bridge.set_display_mode(&mode),
            ViewInput::Teardown(reason) => open.bridge.teardown(&reason, now_ms),
            ViewInput::Loading => open.bridge.loading(now_ms, self.config.app_start_ms),
            ViewInput::Tick => open.bridge.tick(now_ms),
        };
        self.view_out(view, effects, now_ms, out);
    }

    /// Hands view `view`'s bridge effects out; what concerns the form request it renders is
    /// the engine's to act on (the view's answer is judged like any form answer).
    fn view_out(
        &mut self,
        view: ViewId,
        effects: Vec<BridgeEffect>,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let request = self.views.get(&view).and_then(|v| v.request);
        let mut destroyed = false;
        let mut verdicts = Vec::new();
        for effect in effects {
            match effect {
                BridgeEffect::ElicitationAnswer(result) => {
                    if let Some(id) = request {
                        verdicts.push((id, Ok(result)));
                    }
                }
                BridgeEffect::ElicitationUnusable(reason) => {
                    if let Some(id) = request {
                        verdicts.push((id, Err(reason)));
                    }
                }
                effect => {
                    destroyed |= effect == BridgeEffect::Destroy;
                    out.push(Effect::View { view, effect });
                }
            }
        }
        if destroyed {
            self.views.remove(&view);
        }
        for (id, verdict) in verdicts {
            match verdict {
                Ok(result) => self.view_answered(id, view, &result, now_ms, out),
                Err(reason) => self.fall_back(id, reason, now_ms, out),
            }
        }
    }

    /// The view bound to form request `id` answered it with `result` (an `ElicitResult`):
    /// judged outside the view by the form's rules. A bad answer is not sent; the view gets
    /// the request again with the reasons, and the surface hears them too.
    fn view_answered(
        &mut self,
        id: RequestId,
        view: ViewId,
        result: &Value,
        now_ms: u64,
        out: &mut Vec<Effect>,
    ) {
        let Some(Pending {
            check: Check::Form(schema),
            ..
        }) = self.inbox.get(id)
        else {
            return;
        };
        let field_error = |field: &str, message: &str| interlude_schema::FieldError {
            field: field.into(),
            message: message.into(),
        };
        let answer = match result.get("action").and_then(Value::as_str) {
            Some("accept") => match result.get("content") {
                None | Some(Value::Null) => Ok(Content::new()),
                Some(Value::Object(content)) => {
                    let mut content = content.clone();
                    content.retain(|_, v| !v.is_null());
                    let mut checked = content.clone();
                    schema.apply_defaults(&mut checked);
                    schema.validate(&checked).map(|()| content)
                }
                Some(_) => Err(vec![field_error(
                    "content",
                    "The answer's content must be an object.",
                )]),
            }
            .map(Answer::Accepted),
            Some("decline") => Ok(Answer::Declined),
            Some("cancel") => Ok(Answer::Cancelled),
            _ => Err(vec![field_error(
                "action",
                "The answer's action must be \"accept\", \"decline\" or \"cancel\".",
            )]),
        };
        match answer {
            Ok(answer) => {
                self.answering = Some(id);
                self.on_answer(id, answer, now_ms, out);
                self.answering = None;
            }
            Err(errors) => {
                out.push(Effect::Invalid {
                    id,
                    errors: errors.clone(),
                });
                self.view_effects(view, |b| b.elicitation_refused(&errors), now_ms, out);
            }
        }
    }

    /// The views open now.
    pub fn views(&self) -> impl Iterator<Item = (ViewId, &ViewBridge)> {
        self.views.iter().map(|(id, v)| (*id, &v.bridge))
    }

    fn on_link_done(&mut self, id: RequestId, now_ms: u64, out: &mut Vec<Effect>) {
        let Some(flow) = self.consented.iter_mut().find(|c| c.waiting && c.id == id) else {
            return;
        };
        flow.waiting = false;
        let name = flow.server_name.clone();
        Self::audit(out, now_ms, id, &name, AuditEvent::Done);
        out.push(Effect::LinkDone { id });
    }

    fn close(&mut self, id: RequestId, reason: String, now_ms: u64, out: &mut Vec<Effect>) {
        let Some(p) = self.inbox.remove(id) else {
            return;
        };
        if let Some(view) = p.app.as_ref().and_then(|a| a.view) {
            self.release_view(view, Some(&reason), now_ms, out);
        }
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

/// Who asked, for which call, how: the part of a request every kind shares.
struct Header {
    id: RequestId,
    server: ServerId,
    server_name: String,
    call: Option<CallId>,
    era: ProtocolEra,
    method: RequestMethod,
}

/// The reasons of a verdict, in one sentence.
fn reasons(check: &UrlCheck) -> String {
    let all: Vec<String> = check
        .reasons
        .iter()
        .filter(|r| r.verdict() == Verdict::Refuse)
        .map(ToString::to_string)
        .collect();
    if all.is_empty() {
        "it is not a link the host can open".to_owned()
    } else {
        all.join("; ")
    }
}

/// The host name to look up before opening, when the link names one (an address literal was
/// judged already).
fn name_to_resolve(check: &UrlCheck) -> Option<String> {
    let host = &check.display.as_ref()?.host_ascii;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<IpAddr>().is_ok() {
        None
    } else {
        Some(host.clone())
    }
}

/// What the audit log keeps of a link: scheme, host and path, not the query or fragment (a
/// server must not put secrets in a link, but a log must not keep one when it does).
fn audit_link(check: &UrlCheck, raw: &str) -> String {
    match &check.display {
        Some(d) => {
            let path = d
                .path_and_query
                .split(['?', '#'])
                .next()
                .unwrap_or_default();
            format!("{}://{}{}", d.scheme, d.host_ascii, path)
        }
        None => format!("(unparseable, {} characters)", raw.chars().count()),
    }
}
