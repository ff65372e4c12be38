//! The engine's core: [`Engine::handle`] takes one input and dispatches it. The core keeps only
//! what every kind of request shares — the inbox, rate limits, the audit, declines, cancels and
//! withdrawals, the open views — and hands the rest to the request's kind (`kinds/`).
//!
//! The core never matches on a request's kind where the kind is none of its business: the
//! person's acceptance, a link's consent and the end of a request go through the kind's hooks
//! ([`Kind`](crate::kinds::Kind)), each called from one place.
//!
//! What it does not do: keep a clock, choose ids, talk to anyone. The driver passes the time and
//! the ids in and carries the effects out.

use std::collections::BTreeMap;

use interlude_protocol::Answer;
use interlude_schema::{Content, FieldError};

use crate::admission::{Admitted, ElicitParams, Limits, SchemaCache, admit};
use crate::audit::AuditEvent;
use crate::bridge::{BridgeEffect, ViewBridge};
use crate::codes;
use crate::config::EngineConfig;
use crate::ids::{RequestId, ServerId, ViewId};
use crate::inbox::Inbox;
use crate::io::{AppFormEffect, AppFormInput, Effect, Incoming, Input, Notice, Reply, UrlInput};
use crate::io::{UrlEffect, ViewInput};
use crate::kinds::app_form::{self, AppFormPending};
use crate::kinds::form::FormPending;
use crate::kinds::sampling::{self, SamplingPending};
use crate::kinds::url::{self, Links};
use crate::kinds::view_link::{self, Asker};
use crate::kinds::{Acceptance, Aftermath, Ending, Pending, PendingKind};
use crate::out::Out;
use crate::rate::Bucket;
use crate::request::{Header, RequestKind};
use crate::views::{Verdict, Views};

/// The engine state. Drive it with [`Engine::handle`].
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    inbox: Inbox<Pending>,
    buckets: BTreeMap<String, Bucket>,
    schemas: SchemaCache,
    /// Links the person consented to (the URL kind's memory across requests).
    links: Links,
    /// Open app views.
    views: Views,
}

/// Where an answer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    /// A surface's controls (a card, a prompt, the host's own buttons around a view).
    Surface,
    /// The app view bound to the request (an app form answered in its view).
    View(ViewId),
}

impl Engine {
    /// A new, empty engine.
    pub fn new(config: EngineConfig) -> Self {
        Engine {
            config,
            inbox: Inbox::default(),
            buckets: BTreeMap::new(),
            schemas: SchemaCache::default(),
            links: Links::default(),
            views: Views::default(),
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
        let mut effects = Vec::new();
        self.handle_into(input, now_ms, &mut effects);
        effects
    }

    /// As [`Engine::handle`], but the effects are appended to `effects`: a driver that handles
    /// input after input can keep one vector (and its capacity) for all of them.
    ///
    /// ```
    /// use interlude_engine::{Engine, EngineConfig, Input, RequestId};
    /// let mut engine = Engine::new(EngineConfig::default());
    /// let mut effects = Vec::new();
    /// let withdraw = Input::Withdraw { id: RequestId(1), reason: "gone".into() };
    /// engine.handle_into(withdraw, 0, &mut effects);
    /// assert!(effects.is_empty(), "nothing was pending");
    /// ```
    pub fn handle_into(&mut self, input: Input, now_ms: u64, effects: &mut Vec<Effect>) {
        let mut out = Out::with(now_ms, std::mem::take(effects));
        match input {
            Input::Request(incoming) => self.on_request(incoming, &mut out),
            Input::Answer { id, answer } => self.on_answer(id, answer, Via::Surface, &mut out),
            Input::Withdraw { id, reason } => self.close(id, reason, &mut out),
            Input::Url(input) => self.on_url(input, &mut out),
            Input::AppForm(AppFormInput::Fallback { id, reason }) => {
                self.fall_back(id, reason, &mut out);
            }
            Input::View { view, input } => self.on_view(view, input, &mut out),
            Input::ServerTools { server, tools } => self.views.set_tools(server, &tools),
            Input::ServerGone { server, reason } => self.server_gone(server, &reason, &mut out),
        }
        if let Some(id) = self.inbox.present_next() {
            out.push(Effect::Present(id));
            self.shown(id, &mut out);
        }
        *effects = out.into_effects();
    }

    fn on_request(&mut self, incoming: Incoming, out: &mut Out) {
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
            out.reply(
                id,
                Reply::Error {
                    code: codes::INTERNAL_ERROR,
                    message: format!("request id {id} is already pending"),
                    data: None,
                },
            );
            return;
        }
        let limits = Limits {
            max_message_chars: self.config.max_message_chars,
            max_fields: self.config.max_fields,
            max_url_chars: self.config.max_url_chars,
        };
        let app = app_form::app_view(&params, declared);
        let method = params.method();
        // A view's link refused here is the view's to hear about too.
        let asker = match &params {
            ElicitParams::ViewLink { view, question, .. } => Some(Asker {
                view: *view,
                question: *question,
            }),
            _ => None,
        };
        let admitted = match admit(&params, declared, &limits, &mut self.schemas) {
            Ok(a) => a,
            Err(refusal) => {
                let data = refusal.field().map(|f| serde_json::json!({ "field": f }));
                let message = refusal.to_string();
                if let Some(asker) = asker {
                    self.answer_view(asker, view_link::not_opened(&message), out);
                }
                out.refuse(id, &server_name, codes::INVALID_PARAMS, message, data);
                return;
            }
        };
        if !self.rate_allows(&server_name, out.now_ms) {
            let per_minute = self.config.rate_per_minute;
            let message = format!(
                "too many {} from server `{server_name}`; the limit is {per_minute} per minute",
                method.plural()
            );
            if let Some(asker) = asker {
                self.answer_view(asker, view_link::not_opened(&message), out);
            }
            out.refuse(id, &server_name, codes::RATE_LIMITED, message, None);
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
        let (kind, pending) = match admitted {
            Admitted::Form {
                message,
                schema,
                requested,
            } => {
                let names = self.schemas.names(&schema);
                let (form, pending) =
                    FormPending::queue(&header, message, schema, requested, names, out);
                match app {
                    None => (RequestKind::Form(form), PendingKind::Form(pending)),
                    Some(app) => {
                        let (kind, pending) = AppFormPending::queue(form, pending, app);
                        (kind, PendingKind::AppForm(Box::new(pending)))
                    }
                }
            }
            Admitted::Url {
                message,
                url,
                elicitation_id,
            } => {
                let policy = &self.config.url_policy;
                let links = &self.links;
                let (kind, pending) =
                    url::queue(&header, message, url, elicitation_id, links, policy, out);
                match pending {
                    Ok(pending) => (kind, PendingKind::Url(Box::new(pending))),
                    Err(message) => {
                        // Shown, so the person knows a server tried it, and refused at once.
                        let server_name = header.server_name.clone();
                        out.push(Effect::Queued(header.into_request(kind)));
                        let data = Some(serde_json::json!({ "field": "url" }));
                        out.refuse(id, &server_name, codes::INVALID_PARAMS, message, data);
                        return;
                    }
                }
            }
            Admitted::Sampling(request) => {
                let request = sampling::queue(&header, *request, out);
                (
                    RequestKind::Sampling(Box::new(request)),
                    PendingKind::Sampling(SamplingPending),
                )
            }
            Admitted::ViewLink {
                url,
                view,
                question,
            } => {
                let asker = Asker { view, question };
                let policy = &self.config.url_policy;
                let (kind, pending) = view_link::queue(&header, url, asker, policy, out);
                match pending {
                    Ok(pending) => (kind, PendingKind::ViewLink(Box::new(pending))),
                    Err(message) => {
                        // Shown, so the person knows the view tried it; the view hears why.
                        let server_name = header.server_name.clone();
                        out.push(Effect::Queued(header.into_request(kind)));
                        let data = Some(serde_json::json!({ "field": "url" }));
                        let why = view_link::not_opened(&message);
                        out.refuse(id, &server_name, codes::INVALID_PARAMS, message, data);
                        self.answer_view(asker, why, out);
                        return;
                    }
                }
            }
        };
        let Header {
            server,
            server_name,
            ..
        } = header.clone();
        out.push(Effect::Queued(header.into_request(kind)));
        self.inbox.admit(
            id,
            Pending {
                server,
                server_name,
                kind: pending,
            },
        );
    }

    /// Takes one request from `server_name`'s allowance.
    fn rate_allows(&mut self, server_name: &str, now_ms: u64) -> bool {
        let (burst, per_minute) = (self.config.rate_burst, self.config.rate_per_minute);
        // Looked up by the borrowed name: a server's name is copied once, for its first request.
        if let Some(bucket) = self.buckets.get_mut(server_name) {
            return bucket.take(burst, per_minute, now_ms);
        }
        self.buckets
            .entry(server_name.to_owned())
            .or_insert_with(|| Bucket::new(burst, now_ms))
            .take(burst, per_minute, now_ms)
    }

    /// Request `id` is presented: an app form's view may start its clock.
    fn shown(&mut self, id: RequestId, out: &mut Out) {
        let start_ms = self.config.app_start_ms;
        if let Some(app) = self.app_form(id) {
            let wake = app.show(out.now_ms, start_ms);
            Self::wake(app.view(), wake, out);
        }
    }

    /// App form `id`, if it is one and pending.
    fn app_form(&mut self, id: RequestId) -> Option<&mut AppFormPending> {
        match self.inbox.get_mut(id) {
            Some(Pending {
                kind: PendingKind::AppForm(app),
                ..
            }) => Some(app),
            _ => None,
        }
    }

    /// An app form's view must be live by `at_ms`: the driver wakes the view then.
    fn wake(view: Option<ViewId>, at_ms: Option<u64>, out: &mut Out) {
        if let (Some(view), Some(at_ms)) = (view, at_ms) {
            out.push(Effect::View {
                view,
                effect: BridgeEffect::Wake { at_ms },
            });
        }
    }

    /// The person's answer to request `id`, from a surface or from the request's own view.
    fn on_answer(&mut self, id: RequestId, answer: Answer<Content>, via: Via, out: &mut Out) {
        let Some(pending) = self.inbox.get_mut(id) else {
            // Late or duplicate answer (another tab, a request already withdrawn): nothing to do.
            return;
        };
        let (reply, event) = match answer {
            Answer::Declined => (Reply::Answered(Answer::Declined), AuditEvent::Declined),
            Answer::Cancelled => (Reply::Answered(Answer::Cancelled), AuditEvent::Cancelled),
            Answer::Accepted(content) => match pending.kind.accepted(content, &self.config) {
                Acceptance::Reply(reply, event) => (reply, event),
                Acceptance::Invalid(errors) => {
                    self.invalid(id, errors, via, out);
                    return;
                }
                Acceptance::Link(accepted) => {
                    self.link_accepted(id, accepted, via, out);
                    return;
                }
            },
        };
        self.finish(id, reply, event, via, out);
    }

    /// The person accepted link `id` (a URL request's or a view link's): what that leads to.
    fn link_accepted(&mut self, id: RequestId, accepted: url::Accepted, via: Via, out: &mut Out) {
        match accepted {
            url::Accepted::Ignored => {}
            url::Accepted::Resolve(host) => {
                out.push(Effect::Url(UrlEffect::Resolve { id, host }));
            }
            url::Accepted::Consent => self.consent(id, out),
            url::Accepted::Done => {
                self.finish(id, Reply::Consented, AuditEvent::Done, via, out);
            }
        }
    }

    /// Tells the view that asked for a link how it ended.
    fn answer_view(
        &mut self,
        asker: Asker,
        reply: Result<serde_json::Value, String>,
        out: &mut Out,
    ) {
        let Asker { view, question } = asker;
        self.on_view(view, ViewInput::Answer { question, reply }, out);
    }

    /// The answer to `id` broke these rules: it is not sent; the surface hears why, and so
    /// does the view it came from.
    fn invalid(&mut self, id: RequestId, errors: Vec<FieldError>, via: Via, out: &mut Out) {
        out.push(Effect::Invalid {
            id,
            errors: errors.clone(),
        });
        if let Via::View(view) = via
            && let Some(params) = self.app_form(id).and_then(|app| app.ask_again(&errors))
        {
            self.view_run(view, |b| b.ask(params), out);
        }
    }

    /// Request `id` is answered: reply, and release what its kind holds.
    fn finish(&mut self, id: RequestId, reply: Reply, event: AuditEvent, via: Via, out: &mut Out) {
        let Some(pending) = self.inbox.remove(id) else {
            return;
        };
        out.audit(id, &pending.server_name, event);
        let ending = Ending::Answered {
            declined: matches!(reply, Reply::Answered(Answer::Declined)),
            in_view: via != Via::Surface,
        };
        out.reply(id, reply);
        self.ended(&pending.kind, ending, out);
    }

    /// A request of kind `kind` ended as `ending` (it is out of the inbox, its reply or closing
    /// out): what its kind says is left to do. The one place the end of a request reaches its
    /// kind.
    fn ended(&mut self, kind: &PendingKind, ending: Ending<'_>, out: &mut Out) {
        match kind.ended(ending) {
            Aftermath::Nothing => {}
            Aftermath::ReleaseView { view, reason } => self.release_view(view, reason, out),
            Aftermath::AnswerView { asker, reply } => self.answer_view(asker, reply, out),
        }
    }

    fn on_url(&mut self, input: UrlInput, out: &mut Out) {
        match input {
            UrlInput::Resolved { id, addresses } => {
                let resolved = self
                    .inbox
                    .get(id)
                    .and_then(|p| p.kind.consent())
                    .and_then(|link| link.resolved(&addresses));
                match resolved {
                    None => {}
                    Some(Ok(())) => self.consent(id, out),
                    Some(Err(why)) => {
                        if let Some(p) = self.inbox.remove(id) {
                            let data = Some(serde_json::json!({ "field": "url" }));
                            let message = url::refusal(&why);
                            let server = p.server_name;
                            out.refuse(id, &server, codes::INVALID_PARAMS, message.clone(), data);
                            self.ended(&p.kind, Ending::Closed { why: &message }, out);
                        }
                    }
                }
            }
            UrlInput::Completed {
                server,
                elicitation_id,
            } => self.links.completed(server, &elicitation_id, out),
            UrlInput::Done { id } => self.links.done(id, out),
        }
    }

    /// The person consented to request `id`'s link and it passed every check: a URL request's
    /// is replied, opened and remembered; any other kind's link is replied and opened, and its
    /// kind hears it (a view link's view is told).
    fn consent(&mut self, id: RequestId, out: &mut Out) {
        let is_link = self
            .inbox
            .get(id)
            .is_some_and(|p| p.kind.consent().is_some());
        let Some(pending) = is_link.then(|| self.inbox.remove(id)).flatten() else {
            return;
        };
        let Pending {
            server,
            server_name,
            kind,
        } = pending;
        // A URL request's link is remembered across requests (the URL kind's memory).
        if let PendingKind::Url(link) = kind {
            self.links.consent(id, server, server_name, *link, out);
            return;
        }
        out.audit(id, &server_name, AuditEvent::Consented);
        out.reply(id, Reply::Consented);
        if let Some(link) = kind.consent() {
            let url = link.to_open();
            out.push(Effect::Url(UrlEffect::Open { id, url }));
        }
        self.ended(&kind, Ending::Consented, out);
    }

    /// App form `id` is shown as the plain form from now on.
    fn fall_back(&mut self, id: RequestId, reason: String, out: &mut Out) {
        let Some(Pending {
            server_name,
            kind: PendingKind::AppForm(app),
            ..
        }) = self.inbox.get_mut(id)
        else {
            return;
        };
        let Some(view) = app.fall_back() else {
            return;
        };
        let event = AuditEvent::FellBack {
            reason: reason.clone(),
        };
        out.audit(id, server_name, event);
        out.push(Effect::AppForm(AppFormEffect::Fallback { id, reason }));
        if let Some(view) = view {
            self.release_view(view, Some("the host shows its own form instead"), out);
        }
    }

    /// The app form a view renders is over: the view hears it (a forwarded request still open
    /// is cancelled) and is torn down.
    fn release_view(&mut self, view: ViewId, reason: Option<&str>, out: &mut Out) {
        self.views.unbind(view);
        self.view_run(view, |b| b.withdraw_question(reason), out);
        let why = reason.unwrap_or("answered").to_owned();
        self.on_view(view, ViewInput::Teardown(why), out);
    }

    fn on_view(&mut self, view: ViewId, input: ViewInput, out: &mut Out) {
        let (now_ms, start_ms) = (out.now_ms, self.config.app_start_ms);
        let ViewInput::Open {
            mut config,
            server,
            tools,
            request,
        } = input
        else {
            let app_form = self.views.request_of(view);
            let tick = matches!(input, ViewInput::Tick);
            if matches!(input, ViewInput::Loading)
                && let Some(app) = app_form.and_then(|id| self.app_form(id))
            {
                let wake = app.loading(now_ms, start_ms);
                Self::wake(Some(view), wake, out);
            }
            let verdicts = self.views.input(view, input, out);
            self.verdicts(verdicts, out);
            if tick
                && let Some(id) = app_form
                && self.app_form(id).is_some_and(|app| app.late(now_ms))
            {
                self.fall_back(id, "its app view did not start in time".into(), out);
            }
            return;
        };
        // A view for an app form renders it only while the request waits for it.
        let bound = request.filter(|id| match self.inbox.get_mut(*id) {
            Some(Pending {
                server: of,
                kind: PendingKind::AppForm(app),
                ..
            }) if *of == server => app.bind(view),
            _ => false,
        });
        config.renders_question = bound.is_some();
        if request.is_some() && bound.is_none() {
            // Its request was answered or withdrawn meanwhile: the view never opens.
            out.push(Effect::View {
                view,
                effect: BridgeEffect::Destroy,
            });
            return;
        }
        let bridge = ViewBridge::new(*config, now_ms);
        self.views.open(view, bridge, server, tools, bound);
    }

    /// Runs `f` on view `view`'s bridge, and acts on what it says of its app form.
    fn view_run(
        &mut self,
        view: ViewId,
        f: impl FnOnce(&mut ViewBridge) -> Vec<BridgeEffect>,
        out: &mut Out,
    ) {
        let verdicts = self.views.run(view, f, out);
        self.verdicts(verdicts, out);
    }

    /// What views said of the app forms they render: an answer is judged outside the view by
    /// the form's rules; a view that cannot render its form gives way to the plain form.
    fn verdicts(&mut self, verdicts: Vec<Verdict>, out: &mut Out) {
        for verdict in verdicts {
            match verdict {
                Verdict::Answer(id, view, result) => match app_form::read_answer(&result) {
                    Ok(answer) => self.on_answer(id, answer, Via::View(view), out),
                    Err(errors) => self.invalid(id, errors, Via::View(view), out),
                },
                Verdict::Unusable(id, reason) => self.fall_back(id, reason, out),
                Verdict::Live(id, view, renders) => {
                    let live = self.app_form(id).map(|app| app.live(renders));
                    match live {
                        Some(app_form::Live::Ask(params)) => {
                            self.view_run(view, |b| b.ask(params), out);
                        }
                        Some(app_form::Live::FallBack(reason)) => self.fall_back(id, reason, out),
                        Some(app_form::Live::Nothing) | None => {}
                    }
                }
            }
        }
    }

    /// Request `id` can no longer be answered.
    fn close(&mut self, id: RequestId, reason: String, out: &mut Out) {
        let Some(p) = self.inbox.remove(id) else {
            return;
        };
        self.ended(&p.kind, Ending::Closed { why: &reason }, out);
        let event = AuditEvent::Withdrawn {
            reason: reason.clone(),
        };
        out.audit(id, &p.server_name, event);
        out.push(Effect::Closed {
            id,
            notice: Notice {
                server: p.server_name.to_string(),
                text: reason,
            },
        });
    }

    /// Server `server` disconnected: everything it asked is closed, its views torn down.
    fn server_gone(&mut self, server: ServerId, reason: &str, out: &mut Out) {
        for id in self.inbox.of_server(server) {
            self.close(id, reason.to_owned(), out);
        }
        for view in self.views.of_server(server) {
            let cancelled = ViewInput::ToolCancelled(reason.to_owned());
            self.on_view(view, cancelled, out);
            self.on_view(view, ViewInput::Teardown(reason.to_owned()), out);
            // Its server is gone: nobody will answer a teardown either.
            if self.views.forget(view) {
                out.push(Effect::View {
                    view,
                    effect: BridgeEffect::Destroy,
                });
            }
        }
        self.links.forget_server(server);
        // The rate-limit bucket is kept: reconnecting must not refill a server's allowance.
    }
}
