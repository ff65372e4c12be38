//! What reaches the host's core through the hub: [`HostInput`], the engine's inputs wrapped as
//! they are, plus changes to the record (a server added or changed, a call started, moved on or
//! ended, a view changed, a link's progress).

use interlude_engine::{CallId, Incoming, Input, Reply, ServerId};
use rmcp::model::{JsonObject, Resource, Tool};
use tokio::sync::oneshot;

use super::views::ViewUpdate;
use crate::registry::{CallRecord, CallStatus, ServerIdentity, ServerRecord};

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
    },
    Tools {
        id: ServerId,
        tools: Vec<Tool>,
    },
    Resources {
        id: ServerId,
        resources: Vec<Resource>,
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
    Logged(crate::registry::ServerLog),
    /// Take it off the record (it is over).
    Removed {
        id: ServerId,
    },
}

/// A change to a call's record.
pub(crate) enum CallUpdate {
    Started(Box<CallRecord>),
    Round(CallId),
    /// Its server's `notifications/progress`.
    Progress {
        id: CallId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Ended(CallId, CallStatus),
}

/// Everything the core handles: the engine's inputs (a server's request comes with the channel
/// its reply goes back on) and changes to the record.
pub(crate) enum HostInput {
    /// A server asked for something; the reply goes back on `reply`, and, for a URL request
    /// the person consented to, word of its completion on `completed`.
    Ask {
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
    /// A server's progress on the flow of its link `elicitation_id` (a seed-000 `ua`).
    LinkProgress {
        server: ServerId,
        elicitation_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
}
