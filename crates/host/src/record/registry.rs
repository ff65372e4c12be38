//! The host's record of everything a person may want to see: servers (who they say they are,
//! their tools, their state), tool calls (status, result, and the exact ids of the requests
//! they raised) and requests for a person (pending and recently finished).
//!
//! Only the host's core writes it, one input at a time, and every change comes out as a
//! [`HostEvent`] carrying the changed record. Records are shared (`Arc`): an event and a
//! snapshot cost a reference count, not a copy. Surfaces read it ([`HostSnapshot`]) and keep no
//! registry of their own.
//!
//! What it does not do: decide anything about requests (the engine does), or talk to servers.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use interlude_engine::{CallId, Notice, Reply, Request, RequestId, ServerId, ViewId};
use interlude_schema::FieldError;
use rmcp::model::{CallToolResult, JsonObject};

use crate::clock::now_ms;
use crate::record::catalog::ListKind;
use crate::record::progress::CallProgress;
use crate::record::request::{RequestRecord, RequestState, RequestStatus};
pub use crate::record::server::{ServerApps, ServerIdentity, ServerRecord, ServerState};
pub use crate::record::view::{ExternalSite, FileOffer, OfferedFile, ViewRecord, ViewState};

/// Where a tool call stands.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CallStatus {
    /// In flight.
    Running,
    /// The server returned a result (which may be a tool error: `is_error`), shared with the
    /// caller's [`CallOutcome`](crate::CallOutcome).
    Completed(std::sync::Arc<CallToolResult>),
    /// It failed before a result: transport, protocol, refusal or timeout.
    Failed {
        /// Why, in a sentence.
        reason: String,
    },
    /// The person cancelled it, or the caller abandoned it; the server was told
    /// (`notifications/cancelled`).
    Cancelled {
        /// How, in a sentence.
        reason: String,
    },
}

impl CallStatus {
    /// `running`, `done`, `tool-error`, `failed` or `cancelled`.
    pub fn as_str(&self) -> &'static str {
        match self {
            CallStatus::Running => "running",
            CallStatus::Completed(r) if r.is_error == Some(true) => "tool-error",
            CallStatus::Completed(_) => "done",
            CallStatus::Failed { .. } => "failed",
            CallStatus::Cancelled { .. } => "cancelled",
        }
    }
}

/// One `notifications/message` of a server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerLog {
    /// The server.
    pub server: ServerId,
    /// Its configured name.
    pub server_name: String,
    /// The level, as the server sent it (`debug` … `emergency`).
    pub level: String,
    /// The logger's name, if given.
    pub logger: Option<String>,
    /// What it logged.
    pub data: serde_json::Value,
    /// When it arrived, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    /// The host's id for it.
    pub id: CallId,
    /// The server called.
    pub server: ServerId,
    /// That server's name (shared with its requests).
    pub server_name: std::sync::Arc<str>,
    /// The tool.
    pub tool: String,
    /// The arguments sent.
    pub arguments: Option<JsonObject>,
    /// Where it stands.
    pub status: CallStatus,
    /// `input_required` rounds so far (2026-07-28; 0 on the push era).
    pub rounds: usize,
    /// The requests for a person it raised, in order (exact: never guessed).
    pub requests: Vec<RequestId>,
    /// The MCP Apps views it opened (its tool's view), in order.
    pub views: Vec<ViewId>,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// When it ended, likewise.
    pub ended_at_ms: Option<u64>,
    /// Its server's last word on its progress, if any.
    pub progress: Option<CallProgress>,
    /// The task it became, if its server answered with one (the Tasks extension).
    pub task: Option<CallTask>,
}

/// The task a call became (the Tasks extension): what `tasks/get` said last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTask {
    /// The server's id of the task.
    pub id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`: as the server last
    /// said, until the call ends — a call cancelled or failed while its task still worked or
    /// waited leaves it `cancelled` or `failed` (the host no longer follows it).
    pub status: String,
    /// What the server says it is doing.
    pub status_message: Option<String>,
    /// How long the server keeps it, in milliseconds (`None`: as long as it likes).
    pub ttl_ms: Option<u64>,
    /// How often the server asks to be polled, in milliseconds.
    pub poll_interval_ms: Option<u64>,
}

/// Something that changed, with the record as it is now. Surfaces receive every one of these,
/// in order ([`Surface::on_event`](crate::Surface::on_event)).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum HostEvent {
    /// A server was added (connecting).
    ServerAdded(Arc<ServerRecord>),
    /// A server that had failed or closed was taken off the record.
    ServerRemoved(ServerId),
    /// A server's state, identity or tools changed, or a resource of it was subscribed to or
    /// unsubscribed from ([`ServerRecord::catalog`]).
    ServerChanged(Arc<ServerRecord>),
    /// A server said a resource subscribed to changed (`notifications/resources/updated`);
    /// the record has when, in [`ServerRecord::catalog`]. Read it again to see how.
    ResourceUpdated {
        /// The server, as the record has it now.
        server: Arc<ServerRecord>,
        /// The resource.
        uri: String,
    },
    /// A server said one of its lists changed (`notifications/…/list_changed`); its tools are
    /// listed again on the record first. A surface showing its resources or prompts asks for
    /// them again.
    ListChanged {
        /// The server, as the record has it now.
        server: Arc<ServerRecord>,
        /// Which list.
        list: ListKind,
    },
    /// A server logged something (`notifications/message`); the protocol log keeps it too.
    ServerLogged(Arc<ServerLog>),
    /// A tool call started.
    CallStarted(Arc<CallRecord>),
    /// A tool call moved on: another `input_required` round, or its server reported progress
    /// ([`CallRecord::progress`]).
    CallProgressed(Arc<CallRecord>),
    /// A tool call ended.
    CallEnded(Arc<CallRecord>),
    /// A request for the person was admitted and joined the queue.
    RequestQueued(Arc<RequestRecord>),
    /// The request is now the one shown to the person: present it, answer through the sink.
    RequestPresented(Arc<RequestRecord>),
    /// The person's answer to the request broke its rules (see its `errors`); still pending.
    RequestInvalid(Arc<RequestRecord>),
    /// The request went away unanswered (see its status for the notice).
    RequestClosed(Arc<RequestRecord>),
    /// The request was answered; its status holds the reply that went to the server.
    RequestReplied(Arc<RequestRecord>),
    /// What the request's kind has become changed ([`RequestRecord::state`], or an app form's
    /// stage): a link passed every check after the person consented and is for them to open
    /// ([`LinkState::Opened`](crate::record::request::LinkState::Opened)), its flow finished or the person said
    /// they were done, its server reported progress on it; an app form is shown as the plain
    /// form from now on ([`AppStage::Form`](interlude_engine::AppStage::Form)).
    RequestChanged(Arc<RequestRecord>),
    /// A call opened an app view (loading its resource).
    ViewOpened(Arc<ViewRecord>),
    /// An app view changed: opened, resized, said something, failed or closed.
    ViewChanged(Arc<ViewRecord>),
    /// Post this JSON-RPC message to app view `view` (the bridge decided it; the surface only
    /// carries it).
    ViewMessage {
        /// The view.
        view: ViewId,
        /// The message.
        message: serde_json::Value,
    },
}

/// Everything the host knows, at one moment, in creation order.
#[derive(Debug, Clone, Default)]
pub struct HostSnapshot {
    /// Every server added and not removed.
    pub servers: Vec<Arc<ServerRecord>>,
    /// Running calls, and the most recent finished ones.
    pub calls: Vec<Arc<CallRecord>>,
    /// Pending requests, and the most recent finished ones.
    pub requests: Vec<Arc<RequestRecord>>,
    /// The request shown to the person now.
    pub presented: Option<RequestId>,
    /// App views, open and recent.
    pub views: Vec<Arc<ViewRecord>>,
}

/// How many finished calls and finished requests the record keeps (running calls and pending
/// requests are always kept).
pub(crate) const FINISHED_KEPT: usize = 500;

/// The record itself.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    servers: BTreeMap<ServerId, Arc<ServerRecord>>,
    calls: BTreeMap<CallId, Arc<CallRecord>>,
    requests: BTreeMap<RequestId, Arc<RequestRecord>>,
    finished_calls: VecDeque<CallId>,
    finished_requests: VecDeque<RequestId>,
    presented: Option<RequestId>,
    views: BTreeMap<ViewId, Arc<ViewRecord>>,
    finished_views: VecDeque<ViewId>,
    /// Each server's place in the list: the order servers were first added, a server added again
    /// in place of one that is over (Retry) taking the place of the one it replaces.
    places: crate::id_map::IdMap<ServerId, u64>,
    next_place: u64,
}

impl Registry {
    pub(crate) fn snapshot(&self) -> HostSnapshot {
        HostSnapshot {
            servers: self.servers(),
            calls: self.calls.values().cloned().collect(),
            requests: self.requests.values().cloned().collect(),
            presented: self.presented,
            views: self.views.values().cloned().collect(),
        }
    }

    /// Every server on the record, in the order they were added (a server added again in place
    /// of one that is over keeps that one's place).
    pub(crate) fn servers(&self) -> Vec<Arc<ServerRecord>> {
        let mut servers: Vec<Arc<ServerRecord>> = self.servers.values().cloned().collect();
        servers.sort_by_key(|s| self.places.get(&s.id).copied().unwrap_or(u64::MAX));
        servers
    }

    pub(crate) fn view(&self, id: ViewId) -> Option<Arc<ViewRecord>> {
        self.views.get(&id).cloned()
    }

    pub(crate) fn add_view(&mut self, record: ViewRecord) -> HostEvent {
        if record.request.is_none()
            && let Some(call) = record.call.and_then(|c| self.calls.get_mut(&c))
        {
            Arc::make_mut(call).views.push(record.id);
        }
        let record = Arc::new(record);
        self.views.insert(record.id, record.clone());
        HostEvent::ViewOpened(record)
    }

    /// Changes view `id` with `f`; a view that becomes closed or failed joins the bounded
    /// history.
    pub(crate) fn change_view(
        &mut self,
        id: ViewId,
        f: impl FnOnce(&mut ViewRecord),
    ) -> Option<HostEvent> {
        let record = self.views.get_mut(&id)?;
        let r = Arc::make_mut(record);
        let was_live = matches!(r.state, ViewState::Loading | ViewState::Open);
        f(r);
        let event = HostEvent::ViewChanged(record.clone());
        if was_live && !matches!(record.state, ViewState::Loading | ViewState::Open) {
            self.finished_views.push_back(id);
            while self.finished_views.len() > FINISHED_KEPT {
                if let Some(old) = self.finished_views.pop_front() {
                    self.views.remove(&old);
                }
            }
        }
        Some(event)
    }

    pub(crate) fn server(&self, id: ServerId) -> Option<Arc<ServerRecord>> {
        self.servers.get(&id).cloned()
    }

    pub(crate) fn call(&self, id: CallId) -> Option<Arc<CallRecord>> {
        self.calls.get(&id).cloned()
    }

    pub(crate) fn request(&self, id: RequestId) -> Option<Arc<RequestRecord>> {
        self.requests.get(&id).cloned()
    }

    /// A live (not failed, not closed) server with this name.
    pub(crate) fn live_server_named(&self, name: &str) -> Option<ServerId> {
        self.servers
            .values()
            .find(|s| s.name == name && !s.state.is_over())
            .map(|s| s.id)
    }

    // ---- servers -------------------------------------------------------------------------

    pub(crate) fn add_server(&mut self, record: ServerRecord) -> HostEvent {
        // A server added again under the name of one that is over replaces it.
        let stale: Vec<ServerId> = self
            .servers
            .values()
            .filter(|s| s.name == record.name && s.state.is_over())
            .map(|s| s.id)
            .collect();
        let mut place = None;
        for id in stale {
            self.servers.remove(&id);
            place = place.or(self.places.remove(&id));
        }
        let place = place.unwrap_or_else(|| {
            self.next_place += 1;
            self.next_place
        });
        self.places.insert(record.id, place);
        let record = Arc::new(record);
        self.servers.insert(record.id, record.clone());
        HostEvent::ServerAdded(record)
    }

    /// Takes server `id` off the record, if it is over (failed or closed).
    pub(crate) fn remove_server(&mut self, id: ServerId) -> Option<HostEvent> {
        if !self.servers.get(&id)?.state.is_over() {
            return None;
        }
        self.servers.remove(&id);
        self.places.remove(&id);
        Some(HostEvent::ServerRemoved(id))
    }

    pub(crate) fn change_server(
        &mut self,
        id: ServerId,
        change: impl FnOnce(&mut ServerRecord),
    ) -> Option<HostEvent> {
        let record = self.servers.get_mut(&id)?;
        change(Arc::make_mut(record));
        Some(HostEvent::ServerChanged(record.clone()))
    }

    // ---- calls ---------------------------------------------------------------------------

    pub(crate) fn start_call(&mut self, record: Arc<CallRecord>) -> HostEvent {
        self.calls.insert(record.id, record.clone());
        HostEvent::CallStarted(record)
    }

    /// Call `id`'s task as its server last said it is (ignored once the call is over, or when
    /// nothing changed).
    pub(crate) fn call_task(&mut self, id: CallId, task: CallTask) -> Option<HostEvent> {
        let record = self.calls.get_mut(&id)?;
        if record.status != CallStatus::Running || record.task.as_ref() == Some(&task) {
            return None;
        }
        Arc::make_mut(record).task = Some(task);
        Some(HostEvent::CallProgressed(record.clone()))
    }

    pub(crate) fn call_round(&mut self, id: CallId) -> Option<HostEvent> {
        let record = self.calls.get_mut(&id)?;
        Arc::make_mut(record).rounds += 1;
        Some(HostEvent::CallProgressed(record.clone()))
    }

    /// The server reported progress on call `id` (ignored once the call is over).
    pub(crate) fn call_progress(
        &mut self,
        id: CallId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Option<HostEvent> {
        let record = self.calls.get_mut(&id)?;
        if record.status != CallStatus::Running {
            return None;
        }
        let r = Arc::make_mut(record);
        r.progress = Some(CallProgress::after(
            r.progress.as_ref(),
            progress,
            total,
            message,
        ));
        Some(HostEvent::CallProgressed(record.clone()))
    }

    pub(crate) fn end_call(&mut self, id: CallId, status: CallStatus) -> Option<HostEvent> {
        let record = self.calls.get_mut(&id)?;
        if record.status != CallStatus::Running {
            return None;
        }
        let r = Arc::make_mut(record);
        // A task the host stops following takes the call's end: the record does not go on
        // saying it works, or waits for the person.
        if let Some(task) = &mut r.task
            && matches!(task.status.as_str(), "working" | "input_required")
        {
            match &status {
                CallStatus::Cancelled { .. } => task.status = "cancelled".to_owned(),
                CallStatus::Failed { .. } => task.status = "failed".to_owned(),
                CallStatus::Running | CallStatus::Completed(_) => {}
            }
        }
        r.status = status;
        r.ended_at_ms = Some(now_ms());
        let event = HostEvent::CallEnded(record.clone());
        // Links of the call still "opened" are no longer waited for.
        for request in &record.requests {
            if let Some(req) = self.requests.get_mut(request)
                && matches!(
                    req.link(),
                    Some(crate::record::request::LinkState::Opened { .. })
                )
            {
                Arc::make_mut(req).link_ended();
            }
        }
        self.finished_calls.push_back(id);
        while self.finished_calls.len() > FINISHED_KEPT {
            if let Some(old) = self.finished_calls.pop_front() {
                self.calls.remove(&old);
            }
        }
        Some(event)
    }

    /// The requests of call `id` still waiting for the person.
    pub(crate) fn pending_of(&self, id: CallId) -> Vec<RequestId> {
        self.calls.get(&id).map_or_else(Vec::new, |call| {
            call.requests
                .iter()
                .filter(|r| {
                    self.requests
                        .get(r)
                        .is_some_and(|record| record.status.is_pending())
                })
                .copied()
                .collect()
        })
    }

    // ---- requests ------------------------------------------------------------------------

    pub(crate) fn queue_request(&mut self, request: Request) -> HostEvent {
        if let Some(call) = request.call.and_then(|c| self.calls.get_mut(&c)) {
            Arc::make_mut(call).requests.push(request.id);
        }
        let record = Arc::new(RequestRecord {
            status: RequestStatus::Queued,
            errors: Vec::new(),
            received_at_ms: now_ms(),
            state: RequestState::new(&request.kind),
            request,
        });
        self.requests.insert(record.request.id, record.clone());
        HostEvent::RequestQueued(record)
    }

    pub(crate) fn present_request(&mut self, id: RequestId) -> Option<HostEvent> {
        let record = self.requests.get_mut(&id)?;
        Arc::make_mut(record).status = RequestStatus::Presented;
        self.presented = Some(id);
        Some(HostEvent::RequestPresented(record.clone()))
    }

    /// Changes what request `id`'s kind has become with `change` (one of its kind's
    /// transitions, which says whether it applied): a [`HostEvent::RequestChanged`] when it did.
    pub(crate) fn change_request(
        &mut self,
        id: RequestId,
        change: impl FnOnce(&mut RequestRecord) -> bool,
    ) -> Option<HostEvent> {
        let record = self.requests.get_mut(&id)?;
        let mut next = RequestRecord::clone(record);
        if !change(&mut next) {
            return None;
        }
        *record = Arc::new(next);
        Some(HostEvent::RequestChanged(record.clone()))
    }

    /// The latest request of `server` whose link's flow is `elicitation_id` and still open.
    pub(crate) fn open_flow(&self, server: ServerId, elicitation_id: &str) -> Option<RequestId> {
        self.requests
            .values()
            .rev()
            .find(|r| r.is_open_flow(server, elicitation_id))
            .map(|r| r.request.id)
    }

    pub(crate) fn invalid_answer(
        &mut self,
        id: RequestId,
        errors: Vec<FieldError>,
    ) -> Option<HostEvent> {
        let record = self.requests.get_mut(&id)?;
        Arc::make_mut(record).errors = errors;
        Some(HostEvent::RequestInvalid(record.clone()))
    }

    pub(crate) fn reply_request(&mut self, id: RequestId, reply: Reply) -> Option<HostEvent> {
        self.finish_request(id, RequestStatus::Replied(reply))
            .map(HostEvent::RequestReplied)
    }

    pub(crate) fn close_request(&mut self, id: RequestId, notice: Notice) -> Option<HostEvent> {
        self.finish_request(id, RequestStatus::Closed(notice))
            .map(HostEvent::RequestClosed)
    }

    fn finish_request(
        &mut self,
        id: RequestId,
        status: RequestStatus,
    ) -> Option<Arc<RequestRecord>> {
        let record = self.requests.get_mut(&id)?;
        Arc::make_mut(record).status = status;
        let record = record.clone();
        if self.presented == Some(id) {
            self.presented = None;
        }
        self.finished_requests.push_back(id);
        while self.finished_requests.len() > FINISHED_KEPT {
            if let Some(old) = self.finished_requests.pop_front() {
                self.requests.remove(&old);
            }
        }
        Some(record)
    }
}

#[cfg(test)]
mod tests {

    fn progress(progress: f64, total: Option<f64>, message: Option<&str>) -> CallProgress {
        CallProgress {
            progress,
            total,
            message: message.map(str::to_owned),
            updates: 1,
            at_ms: 0,
        }
    }

    #[test]
    fn progress_reads_as_how_far_and_what() {
        assert_eq!(
            progress(3.0, Some(10.0), Some("copying")).to_string(),
            "3 of 10 (30%) — copying"
        );
        assert_eq!(progress(2.5, None, None).to_string(), "2.5");
        assert_eq!(
            progress(12.0, Some(10.0), None).to_string(),
            "12 of 10 (100%)"
        );
    }

    use super::*;
    use interlude_engine::{FormRequest, RequestKind};
    use interlude_protocol::ProtocolEra;
    use interlude_schema::{Content, FormSchema};

    fn view(id: u64, call: Option<u64>) -> Request {
        Request {
            id: RequestId(id),
            server: ServerId(1),
            server_name: "s".into(),
            call: call.map(CallId),
            era: ProtocolEra::Push,
            method: interlude_engine::RequestMethod::Elicitation,
            kind: RequestKind::Form(FormRequest {
                message: format!("request {id}"),
                schema: Arc::new(FormSchema::empty()),
                prefill: Content::new(),
                requested_schema: Arc::new(serde_json::json!({"type": "object"})),
            }),
        }
    }

    fn call(id: u64) -> CallRecord {
        CallRecord {
            id: CallId(id),
            server: ServerId(1),
            server_name: "s".into(),
            tool: "t".into(),
            arguments: None,
            status: CallStatus::Running,
            rounds: 0,
            requests: Vec::new(),
            views: Vec::new(),
            started_at_ms: 0,
            ended_at_ms: None,
            progress: None,
            task: None,
        }
    }

    #[test]
    fn requests_are_tied_to_the_call_named_in_their_view() {
        let mut r = Registry::default();
        r.start_call(Arc::new(call(1)));
        r.start_call(Arc::new(call(2)));
        r.queue_request(view(10, Some(2)));
        r.queue_request(view(11, None));
        r.queue_request(view(12, Some(1)));
        assert_eq!(r.call(CallId(1)).unwrap().requests, [RequestId(12)]);
        assert_eq!(r.call(CallId(2)).unwrap().requests, [RequestId(10)]);
    }

    #[test]
    fn finished_requests_and_calls_are_bounded_and_pending_ones_kept() {
        let mut r = Registry::default();
        r.queue_request(view(0, None));
        for id in 1..=(FINISHED_KEPT as u64 + 5) {
            r.queue_request(view(id, None));
            r.reply_request(
                RequestId(id),
                Reply::Answered(interlude_engine::Answer::Declined),
            );
            r.start_call(Arc::new(call(id)));
            r.end_call(CallId(id), CallStatus::Failed { reason: "x".into() });
        }
        let s = r.snapshot();
        assert_eq!(s.requests.len(), FINISHED_KEPT + 1);
        assert_eq!(
            s.requests[0].request.id,
            RequestId(0),
            "the pending one stays"
        );
        assert_eq!(
            s.requests[1].request.id,
            RequestId(6),
            "oldest finished dropped first"
        );
        assert_eq!(s.calls.len(), FINISHED_KEPT);
    }

    #[test]
    fn a_call_ends_once() {
        let mut r = Registry::default();
        r.start_call(Arc::new(call(1)));
        assert!(
            r.end_call(CallId(1), CallStatus::Failed { reason: "a".into() })
                .is_some()
        );
        assert!(
            r.end_call(CallId(1), CallStatus::Failed { reason: "b".into() })
                .is_none()
        );
    }
}
