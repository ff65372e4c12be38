//! The core: the engine, the record and the surface, fed one [`HostInput`] at a time with the
//! hub's lock held, in submission order; it applies each to the engine and the record and tells
//! the surface.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use interlude_engine::{
    AppFormEffect, AuditRecord, CallId, Effect, Engine, Input, Reply, RequestId, ServerId,
    UrlEffect, UrlInput, ViewInput,
};
use rmcp::model::ProgressToken;
use tokio::sync::oneshot;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::hub::inputs::{CallUpdate, HostInput, ProgressOf, Route, ServerUpdate};
use crate::hub::resolve::Resolver;
use crate::hub::surface::{AnswerSink, Surface};
use crate::record::registry::CallStatus;
use crate::record::registry::{HostEvent, Registry, ServerState};
use crate::sync::lock;
use crate::views::effects::ViewEffects;
use crate::views::{ViewCore, Views, of_call};

/// How many audit records a host keeps in memory (older ones are only in the log).
pub(super) const AUDIT_KEPT: usize = 10_000;

/// The engine, the surface, the record and the callers waiting for replies: touched only with
/// the hub's core lock held.
pub(super) struct Core<S> {
    pub(super) engine: Engine,
    pub(super) surface: S,
    pub(super) registry: Arc<Mutex<Registry>>,
    pub(super) responders: crate::id_map::IdMap<RequestId, oneshot::Sender<Reply>>,
    /// Who waits for word that a URL request's flow finished.
    pub(super) completions: crate::id_map::IdMap<RequestId, oneshot::Sender<()>>,
    pub(super) audit: Arc<Mutex<VecDeque<AuditRecord>>>,
    pub(super) start: Instant,
    pub(super) resolver: Resolver,
    /// Where lookups run when the input came from outside any runtime (a terminal thread).
    pub(super) runtime: Option<tokio::runtime::Handle>,
    /// App views: their calls and servers, their servers' peers, requests in flight.
    pub(super) views: Views,
    /// Whose each request in flight is (a tool call, an app view's request, or the seed-000
    /// interaction an `interaction/notify` tracks), by its server and the progress token it
    /// went with (rmcp gives every request one): where `notifications/progress` lands.
    pub(super) routes: crate::id_map::IdMap<(ServerId, ProgressToken), ProgressOf>,
    /// How to stop each call in flight.
    pub(super) cancels: crate::id_map::IdMap<CallId, CancellationToken>,
    /// The engine's effects, emptied after each input (kept for its capacity).
    pub(super) effects: Vec<interlude_engine::Effect>,
    /// What each server that asked lately says it is, for audit records, by its name here:
    /// forgotten whenever the record of servers changes.
    pub(super) titles: Vec<(Arc<str>, Option<Arc<str>>)>,
}

impl<S: Surface> ViewCore for Core<S> {
    fn views(&mut self) -> &mut Views {
        &mut self.views
    }

    fn record<R>(&self, f: impl FnOnce(&mut Registry) -> R) -> R {
        Core::record(self, f)
    }

    fn tell(&mut self, event: Option<HostEvent>, sink: &AnswerSink) {
        Core::tell(self, event, sink);
    }

    fn run(&mut self, input: Input, now_ms: u64, sink: &AnswerSink) {
        Core::run(self, input, now_ms, sink);
    }

    fn now_ms(&self) -> u64 {
        Core::now_ms(self)
    }

    fn resolver(&self) -> crate::hub::resolve::Resolver {
        self.resolver.clone()
    }

    fn spawn(
        &self,
        task: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Option<tokio::task::AbortHandle> {
        Core::spawn(self, task)
    }
}

impl<S: Surface> Core<S> {
    pub(super) fn record<R>(&self, f: impl FnOnce(&mut Registry) -> R) -> R {
        f(&mut lock(&self.registry))
    }

    /// Tells the surface, with the record unlocked (it may read it).
    pub(super) fn tell(&mut self, event: Option<HostEvent>, sink: &AnswerSink) {
        if let Some(event) = event {
            self.surface.on_event(&event, sink);
        }
    }

    pub(super) fn handle(&mut self, input: HostInput, sink: &AnswerSink) {
        let now_ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let input = match input {
            HostInput::Request {
                incoming,
                reply,
                completed,
            } => {
                self.responders.insert(incoming.id, reply);
                if let Some(tx) = completed {
                    // Nobody waits any more for flows whose waiter gave up.
                    self.completions.retain(|_, tx| !tx.is_closed());
                    self.completions.insert(incoming.id, tx);
                }
                Input::Request(incoming)
            }
            HostInput::Engine(input) => input,
            HostInput::Barrier(applied) => {
                // Its waiter may have given up: nothing to tell then.
                let _ = applied.send(());
                return;
            }
            HostInput::Server(update) => {
                self.titles.clear();
                let gone = match &update {
                    ServerUpdate::Failed { id, reason } => Some((*id, reason.clone())),
                    ServerUpdate::Closed { id } => {
                        Some((*id, "the connection to the server was closed".to_owned()))
                    }
                    _ => None,
                };
                let ready = match &update {
                    ServerUpdate::Ready { id, peer, .. } => {
                        self.views.peers.insert(*id, peer.clone());
                        Some(*id)
                    }
                    ServerUpdate::Failed { id, .. } | ServerUpdate::Closed { id } => {
                        self.views.peers.remove(id);
                        None
                    }
                    ServerUpdate::Resources { id, .. } => {
                        self.views.forget_resources(*id);
                        None
                    }
                    _ => None,
                };
                let tools_of = match &update {
                    ServerUpdate::Tools { id, .. } | ServerUpdate::Ready { id, .. } => Some(*id),
                    _ => None,
                };
                let event = self.record(|r| apply_server(r, update));
                self.tell(event, sink);
                // Its views' calls are checked against its tools as they are now.
                if let Some(server) = tools_of
                    && let Some(record) = self.record(|r| r.server(server))
                {
                    let tools = record
                        .tools
                        .iter()
                        .map(|t| (t.name.to_string(), record.visibility(&t.name)))
                        .collect();
                    self.run(Input::ServerTools { server, tools }, now_ms, sink);
                }
                if let Some(server) = ready {
                    of_call::prefetch(self, server);
                }
                match gone {
                    Some((server, reason)) => Input::ServerGone { server, reason },
                    None => return,
                }
            }
            HostInput::Call(update) => {
                let ended = match &update {
                    CallUpdate::Ended(id, _) => Some(*id),
                    _ => None,
                };
                match &update {
                    CallUpdate::Started { record, cancel } => {
                        self.cancels.insert(record.id, cancel.clone());
                    }
                    CallUpdate::Cancel(id) => {
                        if let Some(cancel) = self.cancels.get(id) {
                            cancel.cancel();
                        }
                        return;
                    }
                    CallUpdate::Ended(id, _) => {
                        self.cancels.remove(id);
                    }
                    CallUpdate::Round(_) | CallUpdate::Task(..) => {}
                }
                // The views a call's result embeds open before its end is applied: their
                // bridges then hear the result as any view of the call does.
                if let CallUpdate::Ended(id, CallStatus::Completed(result)) = &update {
                    of_call::open_embedded(self, *id, result, sink);
                }
                let started = match &update {
                    CallUpdate::Started { record, .. } => Some(Arc::clone(record)),
                    _ => None,
                };
                let (event, orphans) = self.record(|r| match update {
                    CallUpdate::Started { record, .. } => (Some(r.start_call(record)), Vec::new()),
                    CallUpdate::Round(id) => (r.call_round(id), Vec::new()),
                    CallUpdate::Task(id, task) => (r.call_task(id, task), Vec::new()),
                    CallUpdate::Ended(id, status) => (r.end_call(id, status), r.pending_of(id)),
                    CallUpdate::Cancel(_) => (None, Vec::new()),
                });
                self.tell(event, sink);
                if let Some(call) = started {
                    of_call::open_declared(self, &call, sink);
                }
                // A request whose call has ended can no longer serve it: close it, and the
                // server (if it still waits) gets a cancel.
                for id in orphans {
                    let reason = "the tool call that asked this has ended".to_owned();
                    self.run(Input::Withdraw { id, reason }, now_ms, sink);
                }
                if let Some(call) = ended {
                    self.call_ended_for_views(call, sink);
                }
                return;
            }
            HostInput::View(update) => {
                self.view_update(update, sink);
                return;
            }
            HostInput::RootsChanged => {
                for (server, peer) in &self.views.peers {
                    let (peer, server) = (peer.clone(), *server);
                    self.spawn(async move {
                        if let Err(e) = peer.notify_roots_list_changed().await {
                            tracing::debug!(?server, "cannot say the roots changed: {e}");
                        }
                    });
                }
                return;
            }
            HostInput::Route(Route::Watch { server, token, of }) => {
                self.routes.insert((server, token), of);
                return;
            }
            HostInput::Route(Route::Forget { server, token }) => {
                self.routes.remove(&(server, token));
                return;
            }
            HostInput::Progress {
                server,
                token,
                progress,
                total,
                message,
            } => {
                // Only a request of ours in flight: a stray or late token is nobody's progress.
                let Some(of) = self.routes.get(&(server, token)).cloned() else {
                    return;
                };
                let event = match of {
                    ProgressOf::Call(id) => {
                        self.record(|r| r.call_progress(id, progress, total, message))
                    }
                    ProgressOf::Interaction(elicitation_id) => self.record(|r| {
                        let id = r.open_flow(server, &elicitation_id)?;
                        r.change_request(id, |req| req.link_progress(progress, total, message))
                    }),
                    // A view's own request: its bridge tells the view, under the view's token.
                    ProgressOf::View(view, proxy) => {
                        let input = ViewInput::ServerProgress {
                            proxy,
                            progress,
                            total,
                            message,
                        };
                        self.run(Input::View { view, input }, now_ms, sink);
                        return;
                    }
                };
                self.tell(event, sink);
                return;
            }
        };
        self.run(input, now_ms, sink);
    }

    /// Hands one input to the engine and carries out its effects.
    pub(super) fn run(&mut self, input: Input, now_ms: u64, sink: &AnswerSink) {
        // One vector for every input's effects (a `run` inside this one starts a new one).
        let mut effects = std::mem::take(&mut self.effects);
        self.engine.handle_into(input, now_ms, &mut effects);
        for effect in effects.drain(..) {
            match effect {
                Effect::Reply { id, reply } => {
                    if reply != Reply::Consented {
                        self.completions.remove(&id);
                    }
                    let event = self.record(|r| r.reply_request(id, reply.clone()));
                    self.tell(event, sink);
                    if let Some(tx) = self.responders.remove(&id) {
                        let _ = tx.send(reply);
                    }
                }
                Effect::Queued(request) => {
                    let app = match &request.kind {
                        interlude_engine::RequestKind::AppForm(app) => Some((
                            request.id,
                            request.server,
                            request.call,
                            app.resource_uri.clone(),
                        )),
                        _ => None,
                    };
                    let event = self.record(|r| r.queue_request(request));
                    self.tell(Some(event), sink);
                    if let Some((id, server, call, uri)) = app {
                        self.open_app_form_view(id, server, call, uri, sink);
                    }
                }
                Effect::AppForm(AppFormEffect::Fallback { id, reason }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.fall_back(reason)));
                    self.tell(event, sink);
                }
                Effect::Present(id) => {
                    let event = self.record(|r| r.present_request(id));
                    self.tell(event, sink);
                }
                Effect::Invalid { id, errors } => {
                    let event = self.record(|r| r.invalid_answer(id, errors));
                    self.tell(event, sink);
                }
                Effect::Url(UrlEffect::Resolve { id, host }) => self.resolve(id, host, sink),
                Effect::Url(UrlEffect::Open { id, url }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.link_opened(url)));
                    self.tell(event, sink);
                }
                Effect::Url(UrlEffect::Completed { id }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.link_completed()));
                    self.tell(event, sink);
                    if let Some(tx) = self.completions.remove(&id) {
                        let _ = tx.send(());
                    }
                }
                Effect::Url(UrlEffect::Done { id }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.link_done()));
                    self.tell(event, sink);
                    if let Some(tx) = self.completions.remove(&id) {
                        let _ = tx.send(());
                    }
                }
                Effect::Closed { id, notice } => {
                    self.responders.remove(&id);
                    self.completions.remove(&id);
                    let event = self.record(|r| r.close_request(id, notice));
                    self.tell(event, sink);
                }
                Effect::View { view, effect } => self.view_effect(view, effect, sink),
                Effect::Audit(mut record) => {
                    // Who asked, as the server says it is, beside the name it has here.
                    record.server_title = self.title_of(&record.server);
                    tracing::info!(
                        target: "interlude::audit",
                        record = %serde_json::to_string(&record).unwrap_or_default(),
                    );
                    let mut log = lock(&self.audit);
                    // A ring: dropping the oldest record must not move the other 10 000.
                    if log.len() >= AUDIT_KEPT {
                        log.pop_front();
                    }
                    log.push_back(record);
                }
            }
        }
        self.effects = effects;
    }
}

impl<S> Core<S> {
    /// What live server `name` says it is (`serverInfo.title`, else its name), if it said.
    fn title_of(&mut self, name: &Arc<str>) -> Option<Arc<str>> {
        if let Some((_, title)) = self.titles.iter().find(|(n, _)| n == name) {
            return title.clone();
        }
        let title = {
            let r = lock(&self.registry);
            r.live_server_named(name)
                .and_then(|id| r.server(id))
                .and_then(|server| Some(Arc::from(server.identity.as_ref()?.display_name())))
        };
        // A host has a few servers; this stays as small.
        if self.titles.len() >= 64 {
            self.titles.clear();
        }
        self.titles.push((name.clone(), title.clone()));
        title
    }

    /// Milliseconds since the host started (the engine's clock).
    pub(super) fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Runs `task` on the current runtime, or the one the host was started in; `None` when
    /// there is none (nothing can run: logged).
    pub(super) fn spawn(
        &self,
        task: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Option<tokio::task::AbortHandle> {
        match tokio::runtime::Handle::try_current()
            .ok()
            .or_else(|| self.runtime.clone())
        {
            Some(runtime) => Some(runtime.spawn(task).abort_handle()),
            None => {
                tracing::warn!("no async runtime to run a host task in");
                None
            }
        }
    }

    /// Looks up a link's host name (the person consented) and hands the addresses back to the
    /// engine as an input of its own.
    pub(super) fn resolve(&self, id: RequestId, host: String, sink: &AnswerSink) {
        let resolver = self.resolver.clone();
        let hub = sink.hub.clone();
        let lookup = async move {
            let addresses = resolver.lookup(host).await;
            hub.submit(HostInput::Engine(Input::Url(UrlInput::Resolved {
                id,
                addresses,
            })));
        };
        match tokio::runtime::Handle::try_current()
            .ok()
            .or_else(|| self.runtime.clone())
        {
            Some(runtime) => {
                runtime.spawn(lookup);
            }
            None => {
                // No runtime anywhere: the link cannot be checked, so it is not opened.
                tracing::warn!("no async runtime to look up a link's host name in");
                sink.hub
                    .submit(HostInput::Engine(Input::Url(UrlInput::Resolved {
                        id,
                        addresses: Vec::new(),
                    })));
            }
        }
    }
}

pub(super) fn apply_server(r: &mut Registry, update: ServerUpdate) -> Option<HostEvent> {
    match update {
        ServerUpdate::Added { record, accepted } => {
            let free = r.live_server_named(&record.name).is_none();
            let _ = accepted.send(free);
            free.then(|| r.add_server(*record))
        }
        ServerUpdate::Ready {
            id,
            identity,
            tools,
            apps,
            resources,
            subscribing,
            ..
        } => r.change_server(id, |s| {
            s.state = ServerState::Ready;
            s.negotiation = None;
            s.identity = Some(identity);
            s.set_tools(tools);
            s.apps.declared = apps;
            s.apps.resources = resources;
            s.catalog.subscribing = subscribing;
        }),
        ServerUpdate::Subscribed { id, uri } => {
            let mut taken = false;
            let event = r.change_server(id, |s| {
                taken = s.catalog.subscribed(&uri, crate::clock::now_ms())
            });
            if !taken {
                tracing::warn!(server = ?id, "a subscription past the most kept was not recorded");
            }
            event
        }
        ServerUpdate::Unsubscribed { id, uri } => r.change_server(id, |s| match uri {
            Some(uri) => {
                s.catalog.subscriptions.remove(&uri);
            }
            None => s.catalog.subscriptions.clear(),
        }),
        ServerUpdate::ResourceUpdated { id, uri } => {
            // Nothing is kept, and nobody told, of a resource nobody subscribed to.
            let subscribed = r.server(id).is_some_and(|s| s.catalog.is_subscribed(&uri));
            if !subscribed {
                return None;
            }
            let server = r.change_server(id, |s| {
                s.catalog.updated(&uri, crate::clock::now_ms());
            })?;
            let HostEvent::ServerChanged(server) = server else {
                return None;
            };
            Some(HostEvent::ResourceUpdated { server, uri })
        }
        ServerUpdate::ListChanged { id, list } => {
            let HostEvent::ServerChanged(server) =
                r.change_server(id, |s| s.catalog.list_changed(list))?
            else {
                return None;
            };
            Some(HostEvent::ListChanged { server, list })
        }
        ServerUpdate::Tools { id, tools } => r.change_server(id, |s| s.set_tools(tools)),
        ServerUpdate::Resources { id, resources } => {
            r.change_server(id, |s| s.apps.resources = resources)
        }
        ServerUpdate::Failed { id, reason } => r.change_server(id, |s| {
            // A closed server stays closed: its transport ending afterwards is no failure.
            if s.state != ServerState::Closed {
                s.state = ServerState::Failed { reason };
            }
            s.negotiation = None;
        }),
        ServerUpdate::Closed { id } => r.change_server(id, |s| s.state = ServerState::Closed),
        ServerUpdate::Logged(log) => Some(HostEvent::ServerLogged(Arc::new(log))),
        ServerUpdate::Removed { id } => r.remove_server(id),
    }
}
