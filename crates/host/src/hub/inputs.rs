//! What reaches the host's core through the hub: [`HostInput`], the engine's inputs wrapped as
//! they are, plus changes to the record (a server added or changed, a call started, moved on or
//! ended, a view changed), where servers' progress leads, and their progress itself.
//!
//! Everything the core owns changes only through these: the record, the engine, each call's
//! cancellation, each server's peer, where each request's progress leads.

use std::collections::BTreeMap;
use std::sync::Arc;

use interlude_engine::bridge::ViewConfig;
use interlude_engine::{CallId, Incoming, Input, Reply, RequestId, ServerId, ViewId};
use interlude_protocol::apps::{UiDialect, Visibility};
use rmcp::model::{JsonObject, ProgressToken, Resource, Tool};
use rmcp::service::{Peer, RoleClient};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::record::catalog::{ListKind, Subscribing};
use crate::record::registry::{CallRecord, CallStatus, ServerIdentity, ServerRecord, ViewRecord};

/// A change to a server's record.
pub(crate) enum ServerUpdate {
    /// A server to add, unless a live one has its name (`accepted` says which).
    Added {
        record: Box<ServerRecord>,
        accepted: oneshot::Sender<bool>,
    },
    Ready {
        id: ServerId,
        identity: ServerIdentity,
        tools: Vec<Tool>,
        /// Its MCP Apps declaration, if any.
        apps: Option<JsonObject>,
        resources: Vec<Resource>,
        /// Whether, and how, its resources can be subscribed to.
        subscribing: Subscribing,
        /// Its peer, for the requests its app views make of it (dropped when it goes).
        peer: Peer<RoleClient>,
    },
    Tools {
        id: ServerId,
        tools: Vec<Tool>,
    },
    Resources {
        id: ServerId,
        resources: Vec<Resource>,
    },
    /// A person subscribed to resource `uri` (the server took it).
    Subscribed {
        id: ServerId,
        uri: String,
    },
    /// A person unsubscribed from `uri`; `None`: from every resource (the subscriptions ended
    /// on the server's side).
    Unsubscribed {
        id: ServerId,
        uri: Option<String>,
    },
    /// The server said resource `uri` changed (kept only when subscribed to).
    ResourceUpdated {
        id: ServerId,
        uri: String,
    },
    /// The server said its `list` changed (its tools, if those, were updated just before).
    ListChanged {
        id: ServerId,
        list: ListKind,
    },
    /// It could not connect or went away; its pending requests close with `reason`.
    Failed {
        id: ServerId,
        reason: String,
    },
    /// The host closed it; its pending requests close.
    Closed {
        id: ServerId,
    },
    /// It logged something (`notifications/message`).
    Logged(crate::record::registry::ServerLog),
    /// Take it off the record (it is over).
    Removed {
        id: ServerId,
    },
}

/// A change to a call's record.
pub(crate) enum CallUpdate {
    /// It started; `cancel` stops it (kept until it ends).
    Started {
        record: std::sync::Arc<CallRecord>,
        cancel: CancellationToken,
    },
    /// Stop it, if it is still running (its server is told by whoever runs it).
    Cancel(CallId),
    Round(CallId),
    /// Its task, as its server last said it is.
    Task(CallId, crate::record::registry::CallTask),
    Ended(CallId, CallStatus),
}

/// Everything the core handles: the engine's inputs (a server's request comes with the channel
/// its reply goes back on) and changes to the record.
pub(crate) enum HostInput {
    /// A request for a person, as a server (or a view) made it; the reply goes back on `reply`,
    /// and, for a URL request the person consented to, word of its completion on `completed`.
    Request {
        incoming: Incoming,
        reply: oneshot::Sender<Reply>,
        completed: Option<oneshot::Sender<()>>,
    },
    /// Any other input of the engine (answers, withdrawals).
    Engine(Input),
    Server(ServerUpdate),
    Call(CallUpdate),
    View(ViewUpdate),
    /// Nothing to do but say so: every input submitted before it has been applied when
    /// `applied` fires (the hub is first in, first out). Whoever needs the record to show what it
    /// submitted (a connection that is ready) waits on it.
    Barrier(oneshot::Sender<()>),
    /// Where a server's progress on a request in flight leads, or that it leads nowhere any
    /// more.
    Route(Route),
    /// The host's roots changed: every ready server hears `notifications/roots/list_changed`.
    RootsChanged,
    /// A server's `notifications/progress`: it lands where its token's route leads (nowhere
    /// for a stray or late token).
    Progress {
        server: ServerId,
        token: ProgressToken,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
}

/// A change to where servers' progress leads.
pub(crate) enum Route {
    /// Progress `server` reports under `token` is `of`'s.
    Watch {
        server: ServerId,
        token: ProgressToken,
        of: ProgressOf,
    },
    /// The request is answered: its token leads nowhere.
    Forget {
        server: ServerId,
        token: ProgressToken,
    },
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

/// What the core does with views.
pub(crate) enum ViewUpdate {
    /// A call opened a view: record it (its resource is being read).
    Start(Box<ViewRecord>),
    /// Its resource is read: open its bridge, give it the call's input.
    Ready {
        view: ViewId,
        html: Arc<str>,
        dialect: UiDialect,
        config: Box<ViewConfig>,
        tools: BTreeMap<String, Visibility>,
        arguments: Option<JsonObject>,
        /// The app-rendered form it renders, if any.
        request: Option<RequestId>,
        csp: String,
        allow: String,
        external: bool,
        refused_domains: Vec<String>,
        prefers_border: Option<bool>,
        domain: Option<String>,
    },
    /// It cannot open (the form it was to render, if any, is shown plain instead).
    Failed {
        view: ViewId,
        reason: String,
        request: Option<RequestId>,
    },
    /// Close it.
    Close { view: ViewId, reason: String },
    /// The person chose to show the web page an embedded view carries, framed: its host name
    /// is looked up first.
    ShowSite { view: ViewId },
    /// The page's host name was looked up: framed if the addresses pass the URL rules.
    SiteResolved {
        view: ViewId,
        addresses: Vec<std::net::IpAddr>,
    },
    /// The person saved (or not) the files it offered.
    Download {
        view: ViewId,
        question: u64,
        saved: bool,
    },
}
