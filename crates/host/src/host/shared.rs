//! What connections and their handlers share with the host ([`Shared`]), the ids it hands out,
//! and where each request in flight's progress leads ([`ProgressOf`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use interlude_engine::{CallId, ElicitParams, Incoming, Input, Reply, RequestId, ServerId, ViewId};
use interlude_protocol::{Answer, ProtocolEra};
use rmcp::service::RoleClient;
use tokio::sync::oneshot;

use super::config::HostConfig;
use super::inputs::HostInput;
use super::views::{self};
use crate::hub::Hub;
use crate::registry::Registry;

/// Ids handed out by a host.
#[derive(Debug, Default)]
pub(super) struct Ids {
    pub(super) request: AtomicU64,
    pub(super) call: AtomicU64,
    pub(super) server: AtomicU64,
    pub(super) view: AtomicU64,
}

pub(super) fn next(counter: &AtomicU64) -> u64 {
    counter.fetch_add(1, Ordering::Relaxed) + 1
}

/// Whose a request in flight to a server is, for its `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProgressOf {
    /// A tool call's `tools/call`: the progress lands on the call's record.
    Call(CallId),
    /// A request app view `0` made of its server (the bridge's number `1` for it): the view
    /// hears it under its own token.
    View(ViewId, u64),
    /// A seed-000 `ua` interaction (its id), tracked with `interaction/notify`: the progress
    /// lands on its request's record.
    Interaction(String),
}

/// Where each server's progress tokens in flight lead.
pub(crate) type ProgressRoutes =
    Arc<Mutex<HashMap<(ServerId, rmcp::model::ProgressToken), ProgressOf>>>;

/// What connections and their handlers share with the host: the way into the core, the
/// settings, the ids and the record. Holds no connection, so nothing here keeps one alive.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(super) hub: Arc<Hub>,
    pub(crate) config: Arc<HostConfig>,
    pub(super) ids: Arc<Ids>,
    pub(super) registry: Arc<Mutex<Registry>>,
    /// How to cancel each call in flight.
    pub(super) cancels: Arc<Mutex<HashMap<CallId, tokio_util::sync::CancellationToken>>>,
    /// Whose each request in flight is (a tool call, an app view's request, or the seed-000
    /// interaction an `interaction/notify` tracks), by its server and the progress token it
    /// went with (rmcp gives every request one): where `notifications/progress` lands.
    pub(super) progress: ProgressRoutes,
    /// Each ready server's peer, for the requests its app views make.
    pub(crate) peers: Arc<Mutex<HashMap<ServerId, rmcp::service::Peer<RoleClient>>>>,
    /// App views' resources, read ahead.
    pub(crate) view_cache: Arc<views::ViewCache>,
    /// Every message to and from every server.
    pub(crate) log: Arc<crate::protocol_log::ProtocolLog>,
}

impl Shared {
    pub(crate) fn submit(&self, input: HostInput) {
        self.hub.submit(input);
    }

    pub(crate) fn registry(&self) -> MutexGuard<'_, Registry> {
        // A poisoned record only means a panic elsewhere while it was held.
        self.registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn next_call(&self) -> CallId {
        CallId(next(&self.ids.call))
    }

    pub(crate) fn next_view(&self) -> ViewId {
        ViewId(next(&self.ids.view))
    }

    /// A token cancelling call `id`, kept until [`Link::forget_call`].
    pub(crate) fn cancel_token(&self, id: CallId) -> tokio_util::sync::CancellationToken {
        let token = tokio_util::sync::CancellationToken::new();
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.insert(id, token.clone());
        }
        token
    }

    pub(crate) fn forget_call(&self, id: CallId) {
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.remove(&id);
        }
    }

    /// Progress reported under `token` by `server` is call `call`'s (until forgotten).
    pub(crate) fn watch_progress(
        &self,
        server: ServerId,
        token: rmcp::model::ProgressToken,
        call: CallId,
    ) {
        self.watch(server, token, ProgressOf::Call(call));
    }

    /// Watches `server`'s progress on `token` for whatever `of` is.
    pub(crate) fn watch(
        &self,
        server: ServerId,
        token: rmcp::model::ProgressToken,
        of: ProgressOf,
    ) {
        if let Ok(mut progress) = self.progress.lock() {
            progress.insert((server, token), of);
        }
    }

    pub(crate) fn forget_progress(&self, server: ServerId, token: &rmcp::model::ProgressToken) {
        if let Ok(mut progress) = self.progress.lock() {
            progress.remove(&(server, token.clone()));
        }
    }

    /// Whose progress `server` reports under `token`, if the request is in flight.
    pub(crate) fn progress_of(
        &self,
        server: ServerId,
        token: &rmcp::model::ProgressToken,
    ) -> Option<ProgressOf> {
        self.progress
            .lock()
            .ok()
            .and_then(|p| p.get(&(server, token.clone())).cloned())
    }

    pub(crate) fn next_server(&self) -> ServerId {
        ServerId(next(&self.ids.server))
    }

    /// Asks the person through the engine and waits for the reply. Dropping the future
    /// withdraws the request.
    pub(crate) async fn elicit(
        &self,
        server: ServerId,
        server_name: &str,
        era: ProtocolEra,
        params: ElicitParams,
        call: Option<CallId>,
    ) -> Reply {
        self.elicit_tracked(server, server_name, era, params, call, None)
            .await
    }

    /// [`Link::elicit`], and word on `completed` when the server says the flow of a URL
    /// request the person consented to finished.
    pub(crate) async fn elicit_tracked(
        &self,
        server: ServerId,
        server_name: &str,
        era: ProtocolEra,
        params: ElicitParams,
        call: Option<CallId>,
        completed: Option<oneshot::Sender<()>>,
    ) -> Reply {
        let id = RequestId(next(&self.ids.request));
        let (reply_tx, reply_rx) = oneshot::channel();
        // App-rendered questions count only when the server declared them too.
        let mut declared = self.config.declare;
        if declared.app_elicitation {
            declared.app_elicitation = self.registry().server(server).is_some_and(|s| {
                s.apps
                    .declared
                    .as_ref()
                    .and_then(|d| d.get("elicitation"))
                    .is_some_and(serde_json::Value::is_object)
            });
        }
        // Armed before the request is submitted: a reply that is already there when the future
        // is dropped is still withdrawn harmlessly (the engine ignores unknown ids).
        let mut guard = WithdrawOnDrop {
            hub: self.hub.clone(),
            id,
            armed: true,
        };
        self.hub.submit(HostInput::Ask {
            incoming: Incoming {
                id,
                server,
                server_name: server_name.to_owned(),
                call,
                era,
                declared,
                params,
            },
            reply: reply_tx,
            completed,
        });
        let reply = reply_rx.await.unwrap_or(Reply::Answered(Answer::Cancelled));
        guard.armed = false;
        reply
    }
}

pub(super) struct WithdrawOnDrop {
    pub(super) hub: Arc<Hub>,
    pub(super) id: RequestId,
    pub(super) armed: bool,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.hub.submit(HostInput::Engine(Input::Withdraw {
                id: self.id,
                reason: "the server no longer waits for this answer".into(),
            }));
        }
    }
}
