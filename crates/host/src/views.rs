//! MCP Apps views in the host: opening a view for a call (its resource read from the call's
//! server, its policy built), feeding the call's input and outcome to its bridge, and carrying
//! out what the bridge decides — messages for the surface to post, requests to the view's
//! server, links through the person's consent, sizes, modes, logs, teardown.
//!
//! The bridge itself is the engine's ([`interlude_engine::bridge`]); nothing here decides what
//! a view's message means. What this needs of the core that owns it is [`ViewCore`]: the core
//! implements it, and this file does not know the core.

use std::collections::HashMap;
use std::sync::Arc;

use interlude_engine::{
    AppFormInput, CallId, Declared, Input, RequestId, ServerId, ViewId, ViewInput, url_safety,
};
use rmcp::service::{Peer, RoleClient};
use serde_json::json;
use tokio::sync::oneshot;

pub(crate) mod cache;
pub(crate) mod effects;
pub mod embedded;
pub(crate) mod of_call;
pub(crate) mod opening;

use cache::ViewCache;
use effects::ViewEffects;
use opening::{Opening, ViewFor};

use crate::hub::config::AppsConfig;
use crate::hub::inputs::{HostInput, ViewUpdate};
use crate::hub::shared::{Ids, next};
use crate::hub::surface::AnswerSink;
use crate::logs::protocol_log::ProtocolLog;
use crate::record::registry::{CallStatus, HostEvent, Registry, ViewState};

/// What the core keeps about open views beyond the engine's bridges, and what opening one
/// takes.
pub(crate) struct Views {
    /// The servers' peers, for the requests views make of them (each from its `Ready` to its
    /// end).
    pub(crate) peers: HashMap<ServerId, Peer<RoleClient>>,
    /// Each view's call (if any) and server.
    of: HashMap<ViewId, (Option<CallId>, ServerId)>,
    /// Requests a view made of its server, in flight: each one's task stops waiting, and tells
    /// the server `notifications/cancelled` with the reason, when it gets word here (or when
    /// this end is dropped).
    in_flight: HashMap<(ViewId, u64), oneshot::Sender<String>>,
    /// Views' settings.
    apps: AppsConfig,
    /// The ids the host gives out (views are opened here).
    ids: Arc<Ids>,
    /// App views' resources, read ahead.
    cache: Arc<ViewCache>,
    /// The host's name, for views' `hostInfo`.
    client_name: String,
    /// What the host declares to servers (a view's requests of the person go with it; no view
    /// opens unless it declares MCP Apps).
    declared: Declared,
    /// The rules a web page an embedded view shows is judged by.
    url_policy: url_safety::UrlPolicy,
    /// The protocol log (views' traffic goes in beside their server's).
    log: Arc<ProtocolLog>,
}

impl Views {
    pub(crate) fn new(
        apps: AppsConfig,
        ids: Arc<Ids>,
        cache: Arc<ViewCache>,
        client_name: String,
        declared: Declared,
        url_policy: url_safety::UrlPolicy,
        log: Arc<ProtocolLog>,
    ) -> Views {
        Views {
            peers: HashMap::new(),
            of: HashMap::new(),
            in_flight: HashMap::new(),
            apps,
            ids,
            cache,
            client_name,
            declared,
            url_policy,
            log,
        }
    }
}

impl Views {
    /// Forgets what server `server`'s resources were (its list changed): views read ahead are
    /// read again when next opened.
    pub(crate) fn forget_resources(&mut self, server: ServerId) {
        self.cache.forget(server);
    }
}

/// What the views' code needs of the core that owns them: its views, the record, the surface,
/// the engine, the clock and somewhere to run tasks. Every other method is provided here.
pub(crate) trait ViewCore: Sized {
    /// The core's views.
    fn views(&mut self) -> &mut Views;
    /// Reads or changes the record.
    fn record<R>(&self, f: impl FnOnce(&mut Registry) -> R) -> R;
    /// Tells the surface.
    fn tell(&mut self, event: Option<HostEvent>, sink: &AnswerSink);
    /// Hands one input to the engine and carries out its effects.
    fn run(&mut self, input: Input, now_ms: u64, sink: &AnswerSink);
    /// Milliseconds since the host started (the engine's clock).
    fn now_ms(&self) -> u64;
    /// How the host looks up host names (a framed page's, before it is framed).
    fn resolver(&self) -> crate::hub::resolve::Resolver;
    /// Runs `task` where the host's tasks run; `None` when nothing can run it.
    fn spawn(
        &self,
        task: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Option<tokio::task::AbortHandle>;

    fn view_update(&mut self, update: ViewUpdate, sink: &AnswerSink) {
        let now_ms = self.now_ms();
        match update {
            ViewUpdate::Start(record) => {
                self.views()
                    .of
                    .insert(record.id, (record.call, record.server));
                let event = self.record(|r| r.add_view(*record));
                self.tell(Some(event), sink);
            }
            ViewUpdate::Ready {
                view,
                html,
                dialect,
                config,
                tools,
                arguments,
                request,
                csp,
                allow,
                external,
                refused_domains,
                prefers_border,
                domain,
            } => {
                let Some((call, server)) = self.views().of.get(&view).copied() else {
                    return;
                };
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        v.state = ViewState::Open;
                        v.html = Some(html);
                        v.dialect = dialect;
                        v.csp = Some(csp);
                        v.allow = allow;
                        v.external = external;
                        v.refused_domains = refused_domains;
                        v.prefers_border = prefers_border;
                        v.domain = domain;
                    })
                });
                self.tell(event, sink);
                self.run(
                    Input::View {
                        view,
                        input: ViewInput::Open {
                            config,
                            server,
                            tools,
                            request,
                        },
                    },
                    now_ms,
                    sink,
                );
                // A question's view gets the question, not the call's input and outcome.
                if request.is_some() {
                    return;
                }
                self.run(
                    Input::View {
                        view,
                        input: ViewInput::ToolInput(arguments),
                    },
                    now_ms,
                    sink,
                );
                // The call may have ended while the resource was read.
                if let Some(record) = call.and_then(|call| self.record(|r| r.call(call)))
                    && record.status != CallStatus::Running
                {
                    self.call_outcome_to_view(view, &record.status, now_ms, sink);
                }
            }
            ViewUpdate::Close { view, reason } => self.teardown_view(view, &reason, sink),
            ViewUpdate::ShowSite { view } => {
                let host = self.record(|r| {
                    let v = r.view(view)?;
                    let site = v.site.as_ref().filter(|s| !s.framed)?;
                    (v.state == ViewState::Open
                        && site.check.verdict != url_safety::Verdict::Refuse)
                        .then(|| site.check.display.as_ref().map(|d| d.host_ascii.clone()))?
                });
                let Some(host) = host else {
                    return;
                };
                let resolver = self.resolver();
                let hub = sink.hub.clone();
                let lookup = async move {
                    // An IP literal in brackets is looked up without them.
                    let name = host
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .to_owned();
                    let addresses = resolver.lookup(name).await;
                    hub.submit(HostInput::View(ViewUpdate::SiteResolved {
                        view,
                        addresses,
                    }));
                };
                if self.spawn(lookup).is_none() {
                    sink.hub.submit(HostInput::View(ViewUpdate::SiteResolved {
                        view,
                        addresses: Vec::new(),
                    }));
                }
            }
            ViewUpdate::SiteResolved { view, addresses } => {
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        let Some(site) = v.site.as_mut() else {
                            return;
                        };
                        let check = site.check.with_resolved(&addresses);
                        if check.verdict == url_safety::Verdict::Refuse {
                            let why: Vec<String> =
                                check.reasons.iter().map(ToString::to_string).collect();
                            v.state = ViewState::Failed {
                                reason: format!(
                                    "the page {} is refused: {}",
                                    site.url,
                                    why.join("; ")
                                ),
                            };
                        } else {
                            site.framed = true;
                        }
                        site.check = check;
                    })
                });
                let failed = event.as_ref().is_some_and(|e| {
                    matches!(e, HostEvent::ViewChanged(v) if matches!(v.state, ViewState::Failed { .. }))
                });
                self.tell(event, sink);
                if failed {
                    self.teardown_view(view, "its page was refused", sink);
                }
            }
            ViewUpdate::Download {
                view,
                question,
                saved,
            } => {
                let event = self.record(|r| {
                    r.change_view(view, |v| v.downloads.retain(|d| d.question != question))
                });
                self.tell(event, sink);
                let reply = if saved {
                    Ok(json!({}))
                } else {
                    Err("the person did not save the files".to_owned())
                };
                self.run(
                    Input::View {
                        view,
                        input: ViewInput::Answer { question, reply },
                    },
                    now_ms,
                    sink,
                );
            }
            ViewUpdate::Failed {
                view,
                reason,
                request,
            } => {
                tracing::warn!(%view, "the app view cannot open: {reason}");
                self.views().of.remove(&view);
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        v.state = ViewState::Failed {
                            reason: reason.clone(),
                        }
                    })
                });
                self.tell(event, sink);
                if let Some(id) = request {
                    let reason = format!("its app view could not be opened ({reason})");
                    self.run(
                        Input::AppForm(AppFormInput::Fallback { id, reason }),
                        now_ms,
                        sink,
                    );
                }
            }
        }
    }

    /// Opens the view app-rendered form `request` of `server` asks for (SEP-3118): from that
    /// server's resources only, bound to that request. A server that is gone, or a view that
    /// cannot be read, leaves the person the plain form.
    fn open_app_form_view(
        &mut self,
        request: RequestId,
        server: ServerId,
        call: Option<CallId>,
        uri: String,
        sink: &AnswerSink,
    ) {
        let now_ms = self.now_ms();
        let peer = self.views().peers.get(&server).cloned();
        let (Some(record), Some(peer)) = (self.record(|r| r.server(server)), peer) else {
            let reason = "its server's app views cannot be reached".to_owned();
            self.run(
                Input::AppForm(AppFormInput::Fallback {
                    id: request,
                    reason,
                }),
                now_ms,
                sink,
            );
            return;
        };
        let capabilities = peer.peer_info().map(|i| i.capabilities.clone());
        let tool = call.and_then(|c| self.record(|r| r.call(c)).map(|c| c.tool.clone()));
        let views = self.views();
        let view = ViewId(next(&views.ids.view));
        let opening = Opening::new(
            &record,
            capabilities.as_ref(),
            view,
            uri,
            ViewFor::Request {
                request,
                call,
                tool,
            },
            views,
        );
        let cache = views.cache.clone();
        self.view_update(ViewUpdate::Start(Box::new(opening.record())), sink);
        if let Some(ready) = opening.ready_from(&cache) {
            self.view_update(ready, sink);
            return;
        }
        let hub = sink.hub.clone();
        self.spawn(async move {
            let ready = opening.read(&cache, &peer).await;
            hub.submit(HostInput::View(ready));
        });
    }

    /// A call ended: its views hear the result, or that there is none.
    fn call_ended_for_views(&mut self, call: CallId, sink: &AnswerSink) {
        let now_ms = self.now_ms();
        let Some(record) = self.record(|r| r.call(call)) else {
            return;
        };
        for view in record.views.clone() {
            self.call_outcome_to_view(view, &record.status, now_ms, sink);
        }
    }

    fn call_outcome_to_view(
        &mut self,
        view: ViewId,
        status: &CallStatus,
        now_ms: u64,
        sink: &AnswerSink,
    ) {
        let input = match status {
            CallStatus::Running => return,
            CallStatus::Completed(result) => match serde_json::to_value(result) {
                Ok(result) => ViewInput::ToolResult(result),
                Err(e) => ViewInput::ToolCancelled(format!("the result could not be read: {e}")),
            },
            CallStatus::Failed { reason } | CallStatus::Cancelled { reason } => {
                ViewInput::ToolCancelled(reason.clone())
            }
        };
        self.run(Input::View { view, input }, now_ms, sink);
    }
}
