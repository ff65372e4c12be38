//! What connections and their handlers share with the host ([`Shared`]): the way into the core,
//! the settings, the ids it hands out, the record (read here, written only by the core), the
//! views read ahead and the protocol log.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use interlude_engine::{CallId, ElicitParams, Incoming, Input, Reply, RequestId, ServerId};
use interlude_protocol::{Answer, ProtocolEra};
use rmcp::model::ProgressToken;
use tokio::sync::oneshot;

use super::config::HostConfig;
use super::inputs::{HostInput, ProgressOf, Route};
use crate::hub::Hub;
use crate::logs::protocol_log::ProtocolLog;
use crate::record::registry::Registry;

/// Ids handed out by a host.
#[derive(Debug, Default)]
pub(crate) struct Ids {
    pub(crate) request: AtomicU64,
    pub(crate) call: AtomicU64,
    pub(crate) server: AtomicU64,
    pub(crate) view: AtomicU64,
}

pub(crate) fn next(counter: &AtomicU64) -> u64 {
    counter.fetch_add(1, Ordering::Relaxed) + 1
}

/// What connections and their handlers share with the host: the way into the core, the
/// settings, the ids and the record. Holds no connection, so nothing here keeps one alive; what
/// the core owns (each call's cancellation, each server's peer, where progress leads) changes
/// only through the hub.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) hub: Arc<Hub>,
    pub(crate) config: Arc<HostConfig>,
    pub(crate) ids: Arc<Ids>,
    /// Written only by the core; read here for a snapshot.
    pub(crate) registry: Arc<Mutex<Registry>>,
    /// Every message to and from every server.
    pub(crate) log: Arc<ProtocolLog>,
    /// The roots `roots/list` is answered with (the configuration's, until changed).
    pub(crate) roots: Arc<Mutex<Arc<[crate::hub::roots::Root]>>>,
}

impl Shared {
    pub(crate) fn submit(&self, input: HostInput) {
        self.hub.submit(input);
    }

    /// The record, locked for reading (the core alone changes it).
    pub(crate) fn registry(&self) -> MutexGuard<'_, Registry> {
        crate::sync::lock(&self.registry)
    }

    /// The roots to answer `roots/list` with, now.
    pub(crate) fn roots(&self) -> Arc<[crate::hub::roots::Root]> {
        crate::sync::lock(&self.roots).clone()
    }

    pub(crate) fn next_call(&self) -> CallId {
        CallId(next(&self.ids.call))
    }

    /// Progress `server` reports under `token` is `of`'s, until [`Shared::forget_progress`].
    pub(crate) fn watch(&self, server: ServerId, token: ProgressToken, of: ProgressOf) {
        self.submit(HostInput::Route(Route::Watch { server, token, of }));
    }

    /// Progress `server` reports under `token` leads nowhere any more.
    pub(crate) fn forget_progress(&self, server: ServerId, token: ProgressToken) {
        self.submit(HostInput::Route(Route::Forget { server, token }));
    }

    pub(crate) fn next_server(&self) -> ServerId {
        ServerId(next(&self.ids.server))
    }

    /// Asks the person through the engine and waits for the reply. Dropping the future
    /// withdraws the request.
    pub(crate) async fn request(
        &self,
        server: ServerId,
        server_name: &Arc<str>,
        era: ProtocolEra,
        params: ElicitParams,
        call: Option<CallId>,
    ) -> Reply {
        self.request_tracked(server, server_name, era, params, call, None)
            .await
    }

    /// [`Shared::request`], and word on `completed` when the server says the flow of a URL
    /// request the person consented to finished.
    pub(crate) async fn request_tracked(
        &self,
        server: ServerId,
        server_name: &Arc<str>,
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
        self.hub.submit(HostInput::Request {
            incoming: Incoming {
                id,
                server,
                server_name: server_name.clone(),
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

struct WithdrawOnDrop {
    hub: Arc<Hub>,
    id: RequestId,
    armed: bool,
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
