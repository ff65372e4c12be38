//! The engine's vocabulary: every [`Input`] it takes and every [`Effect`] it asks its driver to
//! carry out, with the [`Reply`] that goes back to a server.
//!
//! What all kinds of request share is flat (a request arrives, is answered, withdrawn, queued,
//! presented, closed); what belongs to one kind is nested under that kind ([`UrlInput`],
//! [`AppFormInput`], [`UrlEffect`], [`AppFormEffect`]), and what belongs to an MCP Apps view
//! under [`ViewInput`] and [`BridgeEffect`]. A new kind adds one nested enum on each side.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use interlude_protocol::apps::Visibility;
use interlude_protocol::{Answer, ProtocolEra};
use interlude_schema::{Content, FieldError};
use rmcp::model::{ElicitResult, ErrorCode, ErrorData};
use serde_json::{Map, Value};

use crate::audit::AuditRecord;
use crate::bridge::{BridgeEffect, ViewConfig};
use crate::config::Declared;
use crate::ids::{CallId, RequestId, ServerId, ViewId};
use crate::params::ElicitParams;
use crate::request::Request;

/// A request as it reaches the engine: raw params, parsed here.
#[derive(Debug, Clone)]
pub struct Incoming {
    /// The host's id for it.
    pub id: RequestId,
    /// The requesting server.
    pub server: ServerId,
    /// The requesting server's name, for the person and the audit log (shared: every request
    /// of a server carries it).
    pub server_name: Arc<str>,
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
    /// Something that concerns URL requests only.
    Url(UrlInput),
    /// Something that concerns app forms only.
    AppForm(AppFormInput),
    /// Something for app view `view` ([`ViewInput`]).
    View {
        /// The view.
        view: ViewId,
        /// What happened.
        input: ViewInput,
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

/// What happens to URL requests ([`Input::Url`]).
#[derive(Debug, Clone)]
pub enum UrlInput {
    /// The host looked up the host name of URL request `id`'s link, after the person consented
    /// ([`UrlEffect::Resolve`]); no addresses means the name did not resolve.
    Resolved {
        /// The request.
        id: RequestId,
        /// Every address the name resolved to.
        addresses: Vec<IpAddr>,
    },
    /// A server said the URL flow `elicitation_id` finished (2025-11-25
    /// `notifications/elicitation/complete`). Unknown and repeated ids are ignored.
    Completed {
        /// The server that sent it (an id only counts from the server that asked).
        server: ServerId,
        /// The flow.
        elicitation_id: String,
    },
    /// The person says they are done in the browser with the link of URL request `id`, which
    /// they consented to earlier and whose server has not yet said its flow finished (a
    /// 2025-11-25 notification may come late, or never). The wait for it ends
    /// ([`UrlEffect::Done`]); a notification after this is ignored. Ignored for a link nothing
    /// waits for.
    Done {
        /// The request.
        id: RequestId,
    },
}

/// What happens to app forms ([`Input::AppForm`]).
#[derive(Debug, Clone)]
pub enum AppFormInput {
    /// App form `id` cannot use its view (its resource did not load, the surface has no views,
    /// the person asked for the plain form): present the plain form instead
    /// ([`AppFormEffect::Fallback`]). Ignored for other requests and after a fallback.
    Fallback {
        /// The request.
        id: RequestId,
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
    /// The reply the person wrote to a sampling request, and the model name it carries.
    Sampled {
        /// The reply.
        text: String,
        /// The model name (the person's, or
        /// [`DEFAULT_MODEL`](crate::sampling::DEFAULT_MODEL)).
        model: String,
    },
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

/// How a link's request ended, as code that opens links reads a [`Reply`]
/// ([`Reply::into_link_outcome`]): consent, the person's no, or a refusal.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkOutcome {
    /// The person consented: the link is opened.
    Consented,
    /// The person did not consent: a decline or a cancel.
    NotGiven(Answer<Content>),
    /// The request was refused, for this reason (an error's message).
    Refused(String),
}

impl Reply {
    /// How a link's request ended: what a link's code branches on, without naming the replies
    /// a link never gets. A reply no link is given (a model's, from sampling) reads as a
    /// refusal with its text. Moves the reply's parts out; nothing is copied.
    ///
    /// ```
    /// use interlude_engine::{Answer, LinkOutcome, Reply};
    /// assert_eq!(Reply::Consented.into_link_outcome(), LinkOutcome::Consented);
    /// assert_eq!(Reply::Answered(Answer::Declined).into_link_outcome(),
    ///            LinkOutcome::NotGiven(Answer::Declined));
    /// let error = Reply::Error { code: -32602, message: "refused".into(), data: None };
    /// assert_eq!(error.into_link_outcome(), LinkOutcome::Refused("refused".into()));
    /// ```
    pub fn into_link_outcome(self) -> LinkOutcome {
        match self {
            Reply::Consented => LinkOutcome::Consented,
            Reply::Answered(answer) => LinkOutcome::NotGiven(answer),
            Reply::Error { message, .. } | Reply::Sampled { text: message, .. } => {
                LinkOutcome::Refused(message)
            }
        }
    }

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
            Reply::Sampled { .. } => Err(ErrorData::new(
                ErrorCode(crate::codes::INTERNAL_ERROR),
                "a sampling reply is not an elicitation result",
                None,
            )),
            Reply::Error {
                code,
                message,
                data,
            } => Err(ErrorData::new(ErrorCode(code), message, data)),
        }
    }

    /// The reply on the wire to `sampling/createMessage`: the `CreateMessageResult` of the
    /// reply the person wrote, or, when they declined or cancelled, the spec's "user rejected"
    /// error (code `-1`, with `data.action`).
    ///
    /// ```
    /// use interlude_engine::{Answer, Reply};
    /// use serde_json::json;
    /// let reply = Reply::Sampled { text: "Paris.".into(), model: "interlude-person".into() };
    /// assert_eq!(reply.into_sampling_result().unwrap(), json!({
    ///     "role": "assistant", "content": {"type": "text", "text": "Paris."},
    ///     "model": "interlude-person", "stopReason": "endTurn"}));
    /// let refused = Reply::Answered(Answer::Declined).into_sampling_result().unwrap_err();
    /// assert_eq!(refused.code.0, -1);
    /// ```
    pub fn into_sampling_result(self) -> Result<Value, ErrorData> {
        match self {
            Reply::Sampled { text, model } => Ok(sampling_result(&text, &model)),
            Reply::Answered(Answer::Accepted(_)) | Reply::Consented => Err(ErrorData::new(
                ErrorCode(crate::codes::INTERNAL_ERROR),
                "an elicitation answer is not a sampling result",
                None,
            )),
            Reply::Answered(answer) => Err(ErrorData::new(
                ErrorCode(crate::codes::USER_REJECTED),
                match answer {
                    Answer::Cancelled => "The user cancelled the sampling request",
                    _ => "User rejected sampling request",
                },
                Some(serde_json::json!({ "action": answer.action_str() })),
            )),
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
            Reply::Sampled { .. } => Err(ErrorData::new(
                ErrorCode(crate::codes::INTERNAL_ERROR),
                "a sampling reply is not an interaction result",
                None,
            )),
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
    /// [`Effect::Present`] follows). The request moves to the driver here: the engine keeps
    /// only what it needs to judge the answer.
    Queued(Request),
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
    /// Something to do for a URL request.
    Url(UrlEffect),
    /// Something to do for an app form.
    AppForm(AppFormEffect),
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

/// What to do for a URL request ([`Effect::Url`]).
#[derive(Debug, Clone, PartialEq)]
pub enum UrlEffect {
    /// The person consented to URL request `id`: look up `host` (only now, never before
    /// consent) and answer with [`UrlInput::Resolved`]. A host name in a private range, for
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
    /// ([`UrlInput::Done`]): stop waiting for it.
    Done {
        /// The request (replied to earlier, when the person consented).
        id: RequestId,
    },
}

/// What to do for an app form ([`Effect::AppForm`]).
#[derive(Debug, Clone, PartialEq)]
pub enum AppFormEffect {
    /// App form `id` is shown as the plain form from now on, for `reason` (its view, if one
    /// was open, is being torn down).
    Fallback {
        /// The request.
        id: RequestId,
        /// Why, for the person.
        reason: String,
    },
}

/// What happens to an app view ([`Input::View`]); each maps onto a [`ViewBridge`](crate::bridge::ViewBridge) method.
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
        /// The form request it renders ([`RequestKind::AppForm`](crate::request::RequestKind::AppForm)), if any: the engine binds
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
    /// [`EngineConfig::app_start_ms`](crate::config::EngineConfig::app_start_ms) of being both loaded and shown, or the person gets the
    /// plain form.
    Loading,
    /// Time passed (a teardown's deadline).
    Tick,
}

/// The `CreateMessageResult` for a reply the person wrote.
fn sampling_result(text: &str, model: &str) -> Value {
    serde_json::json!({
        "role": "assistant",
        "content": { "type": "text", "text": text },
        "model": model,
        "stopReason": "endTurn",
    })
}
