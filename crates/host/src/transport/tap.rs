//! A wrapper around any rmcp client transport that sees every message pass, for two things the
//! rest of the host cannot see from above rmcp:
//!
//! - **which tool call a push-era request belongs to.** SEP-2260 (2025-11-25) says a server's
//!   `elicitation/create` must be associated with a request the client has in flight, but puts
//!   nothing on the wire to say which. The tap learns the JSON-RPC id of each `tools/call` as it
//!   leaves (the host tags the request with its [`CallId`] in rmcp's non-serialized extensions),
//!   and ties an incoming elicitation to a call by, in order: the HTTP response stream it
//!   arrived on (rmcp's `InboundStreamOrigin`); the `dev.interlude/relatedRequestId` `_meta` key
//!   that Interlude's server toolkit sends; the only call in flight, when there is exactly one.
//!   Otherwise it is tied to no call: never guessed. The result travels to the handler as a
//!   [`RaisedBy`] in the request's extensions.
//! - **that the connection ended**, as a signal rather than by polling: the token is cancelled
//!   when the peer's stream ends or the transport is dropped with the service.
//!
//! It changes the wire in one place only: the `initialize` request gets the seed-000
//! `capabilities.userInteraction` when the host declares it ([`Tap::declaring`]: rmcp's typed
//! capabilities have no room for it); and it says when the host's answer to a server request
//! leaves ([`Answered`]: the draft's `interaction/notify` must follow its answer). What it does
//! not do: decide anything about requests.

use std::sync::{Arc, Mutex};

use interlude_engine::{CallId, ServerId};
use interlude_protocol::related::RELATED_REQUEST_ID_KEY;
use rmcp::model::{
    ClientNotification, ClientRequest, GetExtensions, JsonRpcMessage, RequestId, ServerRequest,
};
use rmcp::service::{InboundStreamOrigin, RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio_util::sync::CancellationToken;

use crate::logs::protocol_log::{Direction, ProtocolLog};

/// Put in a `tools/call` request's extensions by the host: the call it belongs to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallTag(pub(crate) CallId);

/// Put in an incoming request's extensions by the tap: the call it was raised by, when known.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RaisedBy(pub(crate) CallId);

/// The `tools/call` requests in flight on one connection, by JSON-RPC id.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    calls: Mutex<crate::id_map::IdMap<RequestId, CallId>>,
}

impl InFlight {
    fn calls(&self) -> std::sync::MutexGuard<'_, crate::id_map::IdMap<RequestId, CallId>> {
        crate::sync::lock(&self.calls)
    }

    /// The call a server request belongs to (see the module documentation).
    fn tie(
        &self,
        origin: Option<&InboundStreamOrigin>,
        related: Option<RequestId>,
    ) -> Option<CallId> {
        let calls = self.calls();
        match origin {
            Some(InboundStreamOrigin::OutboundRequest(id)) => return calls.get(id).copied(),
            // The standalone stream: tied to no request by definition.
            Some(InboundStreamOrigin::Unassociated) => return None,
            None => {}
        }
        if let Some(id) = related {
            return calls.get(&id).copied();
        }
        let mut all = calls.values();
        match (all.next(), all.next()) {
            (Some(only), None) => Some(*only),
            _ => None,
        }
    }
}

/// How many server requests tied to calls the tap remembers for the log, at most.
const ASKED_KEPT: usize = 1024;

/// The tapped transport.
pub(crate) struct Tap<T> {
    inner: T,
    in_flight: Arc<InFlight>,
    closed: CancellationToken,
    /// Where every message is recorded, for which server.
    log: Option<(Arc<ProtocolLog>, ServerId, Arc<str>)>,
    /// The server's requests tied to a call, until the host answers them (for the log).
    asked: Mutex<crate::id_map::IdMap<RequestId, CallId>>,
    /// Write `capabilities.userInteraction` into the `initialize` that passes here (transports
    /// other than streamable HTTP, whose client does it itself), and into the log's copy.
    declare: Declare,
    /// Who waits for an answer to leave (only when the host declares the seed-000 draft).
    answered: Option<Arc<Answered>>,
    /// The lines messages arrived and left as, when the transport below keeps them: the log
    /// keeps those bytes instead of a copy of the message.
    lines: Option<crate::transport::child::RawLines>,
    /// Where a 2025-11-25 server's task support is read (each `tools/list` marked there).
    hints: Option<Arc<crate::transport::task_hints::TaskHints>>,
    /// Whether each logged message is linked to the HTTP exchange that carried it (a server
    /// reached over streamable HTTP: `network_log.rs`).
    pairing: bool,
}

/// Who waits for the host's answer to a server request to leave (the seed-000 `interaction/
/// notify` goes only after the answer to its `interaction/create`), by the request's id.
#[derive(Debug, Default)]
pub(crate) struct Answered {
    waiting: Mutex<crate::id_map::IdMap<RequestId, tokio::sync::oneshot::Sender<()>>>,
}

impl Answered {
    /// Word once the host's answer to server request `id` has been written to the transport.
    pub(crate) fn wait(&self, id: RequestId) -> tokio::sync::oneshot::Receiver<()> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        {
            let mut waiting = crate::sync::lock(&self.waiting);
            // A request the server cancelled is never answered: its waiter must not stay.
            waiting.retain(|_, tx| !tx.is_closed());
            if waiting.len() < ANSWERS_WAITED {
                waiting.insert(id, tx);
            }
        }
        rx
    }

    /// Who waits for `message` to leave, if it is an awaited answer. Told only once the
    /// transport has written it: rmcp sends each message from a task of its own, so a request
    /// handed to the transport after an answer may reach the wire before it.
    fn waiter(
        &self,
        message: &TxJsonRpcMessage<RoleClient>,
    ) -> Option<tokio::sync::oneshot::Sender<()>> {
        let id = match message {
            JsonRpcMessage::Response(r) => &r.id,
            JsonRpcMessage::Error(e) => e.id.as_ref()?,
            _ => return None,
        };
        crate::sync::lock(&self.waiting).remove(id)
    }
}

/// How many answers the tap waits for at once, at most.
const ANSWERS_WAITED: usize = 1024;

/// How a message the host sends is rewritten before it goes (the seed-000 draft's capability
/// written into `initialize`): given by the session, which knows the draft; the transport only
/// applies it.
pub(crate) type Rewrite =
    fn(rmcp::model::ClientJsonRpcMessage) -> rmcp::model::ClientJsonRpcMessage;

/// Where outgoing messages are rewritten, if anywhere.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Declare {
    /// Nowhere: the host does not declare the draft.
    No,
    /// Here, on the wire.
    Here(Rewrite),
    /// By the transport below (the HTTP client): only the log's copy is changed here.
    Below(Rewrite),
}

impl<T> Tap<T> {
    pub(crate) fn new(inner: T, closed: CancellationToken) -> Self {
        Tap {
            inner,
            in_flight: Arc::default(),
            closed,
            log: None,
            asked: Mutex::default(),
            declare: Declare::No,
            answered: None,
            lines: None,
            hints: None,
            pairing: false,
        }
    }

    /// Links each logged message to the HTTP exchange that carried it.
    pub(crate) fn pairing(mut self, pairing: bool) -> Self {
        self.pairing = pairing;
        self
    }

    /// Marks each `tools/list` it sends in `hints`, so that its answer is read for a 2025-11-25
    /// server's task support.
    pub(crate) fn with_task_hints(
        mut self,
        hints: Option<Arc<crate::transport::task_hints::TaskHints>>,
    ) -> Self {
        self.hints = hints;
        self
    }

    /// Logs messages, both ways, as the lines `lines` keeps (see [`crate::transport::child::RawLines`]).
    pub(crate) fn with_lines(mut self, lines: Option<crate::transport::child::RawLines>) -> Self {
        self.lines = lines;
        self
    }

    /// Declares the seed-000 `userInteraction` capability in `initialize`, `where` says, and
    /// tells `answered` when an answer leaves.
    pub(crate) fn declaring(mut self, declare: Declare, answered: Arc<Answered>) -> Self {
        if !matches!(declare, Declare::No) {
            self.answered = Some(answered);
        }
        self.declare = declare;
        self
    }

    /// Records every message in `log`, as server `server`'s (`name`).
    pub(crate) fn logged(mut self, log: Arc<ProtocolLog>, server: ServerId, name: String) -> Self {
        self.log = Some((log, server, name.into()));
        self
    }

    /// Hands `message` to the protocol log: a clone (`keep`), with its id and kind; the log
    /// serializes and redacts it only when someone reads it.
    fn record<R, P, N: serde::Serialize>(
        &self,
        dir: Direction,
        message: &JsonRpcMessage<R, P, N>,
        call: Option<CallId>,
        keep: impl FnOnce(&JsonRpcMessage<R, P, N>) -> crate::logs::protocol_log::Raw,
    ) {
        if let Some(shape) = self.shape(dir, message, call) {
            self.record_raw(dir, keep(message), shape);
        }
    }

    /// What the log keeps of `message` beside its bytes (its id, kind, call and link), or
    /// `None` when nothing is logged.
    fn shape<R, P, N: serde::Serialize>(
        &self,
        dir: Direction,
        message: &JsonRpcMessage<R, P, N>,
        call: Option<CallId>,
    ) -> Option<crate::logs::protocol_log::Shape> {
        if !self.logging() {
            return None;
        }
        let (id, is_request) = match message {
            JsonRpcMessage::Request(r) => (Some(&r.id), true),
            JsonRpcMessage::Notification(_) => (None, true),
            JsonRpcMessage::Response(r) => (Some(&r.id), false),
            JsonRpcMessage::Error(e) => (e.id.as_ref(), false),
        };
        let id = id.map(crate::logs::protocol_log::LogId::of_server);
        let exchange = if !self.pairing {
            None
        } else if let Some(id) = &id {
            Some(crate::logs::network_log::ExchangeKey::Id {
                dir,
                request: is_request,
                id: id.clone(),
            })
        } else if let JsonRpcMessage::Notification(n) = message {
            // A notification is known by its method (only here, for HTTP servers).
            serde_json::to_value(&n.notification)
                .ok()
                .and_then(|v| Some(v.get("method")?.as_str()?.to_owned()))
                .map(|method| crate::logs::network_log::ExchangeKey::Note { dir, method })
        } else {
            None
        };
        Some(crate::logs::protocol_log::Shape {
            id,
            is_request,
            call,
            exchange,
        })
    }

    /// Hands `raw` to the protocol log, with its `shape`.
    fn record_raw(
        &self,
        dir: Direction,
        raw: crate::logs::protocol_log::Raw,
        shape: crate::logs::protocol_log::Shape,
    ) {
        if let Some((log, server, name)) = self.log.as_ref() {
            log.record(*server, name, dir, raw, shape);
        }
    }

    /// Whether messages go to a protocol log that keeps or writes them.
    fn logging(&self) -> bool {
        self.log.as_ref().is_some_and(|(log, _, _)| log.enabled())
    }

    fn asked(&self) -> std::sync::MutexGuard<'_, crate::id_map::IdMap<RequestId, CallId>> {
        crate::sync::lock(&self.asked)
    }

    /// The call an outgoing message belongs to, for the log (before `outgoing` forgets it).
    fn call_of_outgoing(&self, message: &TxJsonRpcMessage<RoleClient>) -> Option<CallId> {
        match message {
            JsonRpcMessage::Request(r) => match &r.request {
                ClientRequest::CallToolRequest(call) => {
                    call.extensions.get::<CallTag>().map(|t| t.0)
                }
                _ => None,
            },
            JsonRpcMessage::Notification(n) => match &n.notification {
                ClientNotification::CancelledNotification(c) => c
                    .params
                    .request_id
                    .as_ref()
                    .and_then(|id| self.in_flight.calls().get(id).copied()),
                _ => None,
            },
            JsonRpcMessage::Response(r) => self.asked().remove(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref().and_then(|id| self.asked().remove(id)),
        }
    }

    /// The call an incoming response belongs to (before `incoming` forgets it).
    fn call_of_response(&self, message: &RxJsonRpcMessage<RoleClient>) -> Option<CallId> {
        let id = match message {
            JsonRpcMessage::Response(r) => &r.id,
            JsonRpcMessage::Error(e) => e.id.as_ref()?,
            _ => return None,
        };
        self.in_flight.calls().get(id).copied()
    }

    /// The call an incoming request was tied to (after `incoming` tied it), remembered until
    /// the host answers it.
    fn call_of_request(&self, message: &RxJsonRpcMessage<RoleClient>) -> Option<CallId> {
        let JsonRpcMessage::Request(r) = message else {
            return None;
        };
        let call = r.request.extensions().get::<RaisedBy>()?.0;
        let mut asked = self.asked();
        // A server that never hears back must not make this grow without bound.
        if asked.len() >= ASKED_KEPT {
            asked.clear();
        }
        asked.insert(r.id.clone(), call);
        Some(call)
    }

    fn outgoing(&self, message: &TxJsonRpcMessage<RoleClient>) {
        match message {
            JsonRpcMessage::Request(r) => {
                // A call's own requests: its `tools/call`, and (2025-11-25 tasks) the custom
                // `tools/call` and `tasks/result` that carry it, on whose stream its questions
                // come.
                let tag = match &r.request {
                    ClientRequest::CallToolRequest(call) => call.extensions.get::<CallTag>(),
                    ClientRequest::CustomRequest(custom) => custom.extensions.get::<CallTag>(),
                    _ => None,
                };
                if let Some(CallTag(id)) = tag {
                    self.in_flight.calls().insert(r.id.clone(), *id);
                }
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.in_flight.calls().remove(id);
                }
            }
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {}
        }
    }

    fn incoming(&self, message: &mut RxJsonRpcMessage<RoleClient>) {
        match message {
            JsonRpcMessage::Response(r) => {
                self.in_flight.calls().remove(&r.id);
            }
            JsonRpcMessage::Error(e) => {
                if let Some(id) = &e.id {
                    self.in_flight.calls().remove(id);
                }
            }
            JsonRpcMessage::Request(r) => {
                let related = related_request(&r.request);
                // Every request a person answers is tied to its call: a form or link, the
                // draft's interaction, a model's reply.
                let is_elicitation = match &r.request {
                    ServerRequest::ElicitRequest(_) | ServerRequest::CreateMessageRequest(_) => {
                        true
                    }
                    ServerRequest::CustomRequest(c) => {
                        c.method == "elicitation/create"
                            || c.method == interlude_protocol::interaction::CREATE_METHOD
                    }
                    _ => false,
                };
                if is_elicitation {
                    let origin = r.request.extensions().get::<InboundStreamOrigin>();
                    if let Some(call) = self.in_flight.tie(origin, related) {
                        r.request.extensions_mut().insert(RaisedBy(call));
                    }
                }
            }
            JsonRpcMessage::Notification(_) => {}
        }
    }
}

/// The `dev.interlude/relatedRequestId` an elicitation names, when it names one. rmcp keeps a
/// request's `_meta` in its extensions; the params are looked at too, for a request built by
/// hand.
fn related_request(request: &ServerRequest) -> Option<RequestId> {
    use rmcp::model::GetMeta;
    if let Some(value) = request.get_meta().get(RELATED_REQUEST_ID_KEY) {
        return serde_json::from_value(value.clone()).ok();
    }
    let value = match request {
        ServerRequest::ElicitRequest(e) => {
            use rmcp::model::RequestParamsMeta;
            e.params.meta()?.get(RELATED_REQUEST_ID_KEY)?.clone()
        }
        ServerRequest::CustomRequest(c) => c
            .params
            .as_ref()?
            .get("_meta")?
            .get(RELATED_REQUEST_ID_KEY)?
            .clone(),
        _ => return None,
    };
    serde_json::from_value(value).ok()
}

impl<T> Drop for Tap<T> {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

impl<T> Transport<RoleClient> for Tap<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // The seed-000 capability goes into `initialize` (here, or below for the log's copy).
        let item = match self.declare {
            Declare::Here(rewrite) => rewrite(item),
            Declare::No | Declare::Below(_) => item,
        };
        // Which call a message belongs to only matters to the log: not looked up without one.
        let logging = self.logging();
        let call = logging.then(|| self.call_of_outgoing(&item)).flatten();
        self.outgoing(&item);
        if let Some(hints) = &self.hints
            && let JsonRpcMessage::Request(request) = &item
            && matches!(request.request, ClientRequest::ListToolsRequest(_))
        {
            hints.watch();
        }
        let waiter = self.answered.as_ref().and_then(|a| a.waiter(&item));
        // A transport that keeps the line it wrote (a child's stdin) gives the log those bytes;
        // otherwise the log keeps a copy of the message.
        let sent = match (&self.lines, self.declare) {
            (Some(lines), Declare::No | Declare::Here(_)) => {
                // The send future holds the transport: what the log needs is taken first.
                let logged = self
                    .shape(Direction::Send, &item, call)
                    .zip(self.log.clone())
                    .map(|(shape, log)| (shape, log, lines.clone()));
                let sent = self.inner.send(item);
                if let Some((shape, (log, server, name), lines)) = logged
                    && let Some(line) = lines.take_sent()
                {
                    let raw = crate::logs::protocol_log::Raw::Line(line);
                    log.record(server, &name, Direction::Send, raw, shape);
                }
                sent
            }
            _ => {
                self.record(Direction::Send, &item, call, |m| match self.declare {
                    Declare::Below(rewrite) => crate::logs::protocol_log::Raw::Sent(
                        std::sync::Arc::new(rewrite(m.clone())),
                    ),
                    Declare::No | Declare::Here(_) => {
                        crate::logs::protocol_log::Raw::Sent(std::sync::Arc::new(m.clone()))
                    }
                });
                self.inner.send(item)
            }
        };
        async move {
            let result = sent.await;
            if let Some(waiter) = waiter {
                let _ = waiter.send(());
            }
            result
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let mut message = self.inner.receive().await;
        match &mut message {
            Some(m) => {
                let logging = self.logging();
                let call = logging.then(|| self.call_of_response(m)).flatten();
                self.incoming(m);
                let call = call.or_else(|| logging.then(|| self.call_of_request(m)).flatten());
                let lines = self.lines.as_ref();
                self.record(Direction::Recv, m, call, |m| {
                    match lines.and_then(crate::transport::child::RawLines::take) {
                        Some(line) => crate::logs::protocol_log::Raw::Line(line.into()),
                        None => {
                            crate::logs::protocol_log::Raw::Received(std::sync::Arc::new(m.clone()))
                        }
                    }
                });
            }
            None => self.closed.cancel(),
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_flight(ids: &[(i64, u64)]) -> InFlight {
        let f = InFlight::default();
        for (rpc, call) in ids {
            f.calls().insert(RequestId::Number(*rpc), CallId(*call));
        }
        f
    }

    #[test]
    fn the_stream_a_request_came_on_names_its_call() {
        let f = in_flight(&[(1, 10), (2, 20)]);
        let origin = InboundStreamOrigin::OutboundRequest(RequestId::Number(2));
        assert_eq!(f.tie(Some(&origin), None).map(|c| c.0), Some(20));
        assert_eq!(
            f.tie(Some(&InboundStreamOrigin::Unassociated), None),
            None.map(CallId),
            "the standalone stream belongs to no call"
        );
    }

    #[test]
    fn the_related_request_meta_names_its_call_and_one_call_in_flight_is_that_call() {
        let f = in_flight(&[(1, 10), (2, 20)]);
        assert_eq!(
            f.tie(None, Some(RequestId::Number(1))).map(|c| c.0),
            Some(10)
        );
        assert_eq!(
            f.tie(None, Some(RequestId::Number(9))),
            None,
            "not a call in flight"
        );
        assert_eq!(
            f.tie(None, None),
            None,
            "two calls in flight: never guessed"
        );
        let one = in_flight(&[(5, 50)]);
        assert_eq!(one.tie(None, None).map(|c| c.0), Some(50));
        assert_eq!(InFlight::default().tie(None, None), None);
    }
}
