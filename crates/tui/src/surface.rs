//! The [`Surface`] half of the terminal surface: the host's core calls it, and it only
//! forwards the host's events over a channel to the one thread that owns the terminal.
//!
//! It never blocks and never touches the terminal (the host's core must stay responsive while a
//! person takes their time). The terminal thread reads the channel through [`Events`]; what it
//! needs to know beyond an event (how many requests wait, which tool a call was) it reads from
//! the host's record, never from a registry of its own.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use interlude_host::{
    AnswerSink, AppStage, CallRecord, HostEvent, LinkState, Notice, Reply, Request, RequestId,
    RequestKind, RequestStatus, Surface, schema::FieldError,
};

/// What the terminal thread is told.
#[derive(Debug)]
pub(crate) enum UiEvent {
    /// Show this request now; answer through the sink.
    Present(Box<Request>, AnswerSink),
    /// The answer to `id` was refused by the engine.
    Invalid(RequestId, Vec<FieldError>),
    /// The request went away unanswered.
    Closed(RequestId, Notice),
    /// The reply to the request left for the server.
    Replied(RequestId, Reply),
    /// A tool call ended (its record says how).
    CallEnded(Arc<CallRecord>),
    /// A link the person consented to is open, and the host waits for its server's word that
    /// the flow finished (2025-11-25): the person may say they are done instead.
    LinkWaiting {
        /// The URL request.
        id: RequestId,
        /// The server that asked.
        server: String,
        /// The link, as opened.
        url: String,
    },
    /// The wait for request `id`'s link is over (the server or the person said it finished).
    LinkFinished(RequestId),
    /// A question asked in an app view is shown as its plain form from now on, for this reason.
    FellBack(RequestId, String),
    /// A call's server reported progress (in its record).
    Progress(Arc<CallRecord>),
    /// A server reported progress on the flow of link `id` (a tracked seed-000 `ua`), as text.
    LinkProgress(RequestId, String),
    /// Ctrl-C while no prompt was on screen.
    Interrupt,
}

/// What servers said of their catalogs (a resource subscribed to changed, a list changed), as
/// lines for the terminal to print at a calm moment: the last [`HEARD_KEPT`], and how many
/// older ones were dropped, whatever a chatty server sends while a prompt is on screen.
#[derive(Debug, Default)]
pub(crate) struct HeardLines {
    lines: VecDeque<String>,
    dropped: u64,
}

/// How many lines of [`HeardLines`] wait at most.
const HEARD_KEPT: usize = 50;

/// The queue of [`HeardLines`], shared by the surface (which fills it) and the terminal thread.
pub(crate) type Heard = Arc<Mutex<HeardLines>>;

impl HeardLines {
    fn push(&mut self, line: String) {
        if self.lines.len() >= HEARD_KEPT {
            self.lines.pop_front();
            self.dropped = self.dropped.saturating_add(1);
        }
        self.lines.push_back(line);
    }
}

/// Takes the lines waiting in `heard` (and says how many were dropped), oldest first.
pub(crate) fn take_heard(heard: &Heard) -> (Vec<String>, u64) {
    let mut heard = heard
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dropped = std::mem::take(&mut heard.dropped);
    (heard.lines.drain(..).collect(), dropped)
}

/// A time of day on this computer's clock, `hh:mm:ss`.
pub(crate) fn clock(ms: u64) -> String {
    use chrono::TimeZone;
    i64::try_from(ms)
        .ok()
        .and_then(|ms| chrono::Local.timestamp_millis_opt(ms).single())
        .map_or_else(
            || "--:--:--".to_owned(),
            |t| t.format("%H:%M:%S").to_string(),
        )
}

/// The terminal's half that the host drives ([`Surface`]): it forwards what the terminal needs
/// to the terminal's thread and nothing else. Made by [`terminal`](crate::terminal).
#[derive(Debug)]
pub struct TerminalSurface {
    tx: mpsc::Sender<UiEvent>,
    heard: Heard,
    /// What the terminal was told of each request's kind state so far, so that a
    /// [`HostEvent::RequestChanged`] is told as the one thing that changed.
    told: HashMap<RequestId, Told>,
}

/// What the terminal thread heard of a request's kind state.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Told {
    /// Its link waits for the server's word.
    waiting: bool,
    /// The progress updates of its link's flow.
    progress: u64,
    /// Its link's flow finished.
    finished: bool,
    /// It fell back to the plain form.
    fell_back: bool,
}

impl TerminalSurface {
    pub(crate) fn new(tx: mpsc::Sender<UiEvent>, heard: Heard) -> Self {
        TerminalSurface {
            tx,
            heard,
            told: HashMap::new(),
        }
    }

    fn heard(&self, line: String) {
        self.heard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(line);
    }

    /// Tells the terminal thread what changed in `record`'s kind state since it last heard.
    fn changed(&mut self, record: &interlude_host::RequestRecord) {
        let id = record.request.id;
        let before = self.told.get(&id).copied().unwrap_or_default();
        let mut now = before;
        if record.awaits_link()
            && !before.waiting
            && let Some(LinkState::Opened { url }) = record.link()
        {
            now.waiting = true;
            self.send(UiEvent::LinkWaiting {
                id,
                server: record.request.server_name.to_string(),
                url: url.clone(),
            });
        }
        if let Some(progress) = record.progress()
            && progress.updates != before.progress
        {
            now.progress = progress.updates;
            self.send(UiEvent::LinkProgress(id, progress.to_string()));
        }
        if matches!(
            record.link(),
            Some(LinkState::Completed { .. } | LinkState::Done { .. })
        ) && !before.finished
        {
            now.finished = true;
            self.send(UiEvent::LinkFinished(id));
        }
        if let RequestKind::AppForm(app) = &record.request.kind
            && let AppStage::Form { reason } = &app.stage
            && !before.fell_back
        {
            now.fell_back = true;
            self.send(UiEvent::FellBack(id, reason.clone()));
        }
        // A link whose flow is over hears nothing more: it is forgotten.
        let over = matches!(
            record.link(),
            Some(LinkState::Completed { .. } | LinkState::Done { .. } | LinkState::Ended { .. })
        );
        if over {
            self.told.remove(&id);
        } else if now != before {
            self.told.insert(id, now);
        }
    }

    fn send(&self, event: UiEvent) {
        // The terminal thread is gone only when the session is over; nothing left to tell.
        let _ = self.tx.send(event);
    }
}

impl Surface for TerminalSurface {
    fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
        match event {
            HostEvent::RequestPresented(record) => self.send(UiEvent::Present(
                Box::new(record.request.clone()),
                sink.clone(),
            )),
            HostEvent::RequestInvalid(record) => {
                self.send(UiEvent::Invalid(record.request.id, record.errors.clone()));
            }
            HostEvent::RequestClosed(record) => {
                self.told.remove(&record.request.id);
                if let RequestStatus::Closed(notice) = &record.status {
                    self.send(UiEvent::Closed(record.request.id, notice.clone()));
                }
            }
            HostEvent::RequestReplied(record) => {
                if let RequestStatus::Replied(reply) = &record.status {
                    // A consented link still has its flow ahead; anything else is over.
                    if *reply != Reply::Consented {
                        self.told.remove(&record.request.id);
                    }
                    self.send(UiEvent::Replied(record.request.id, reply.clone()));
                }
            }
            HostEvent::CallEnded(record) => self.send(UiEvent::CallEnded(record.clone())),
            HostEvent::CallProgressed(record)
                if record.progress.is_some() || record.task.is_some() =>
            {
                self.send(UiEvent::Progress(record.clone()));
            }
            HostEvent::RequestChanged(record) => self.changed(record),
            HostEvent::ResourceUpdated { server, uri } => {
                let at = server
                    .catalog
                    .subscriptions
                    .get(uri)
                    .and_then(|w| w.updated_at_ms)
                    .unwrap_or_default();
                self.heard(format!(
                    "⟳ {}  \"{}\" says {} changed",
                    clock(at),
                    crate::render::plain_line(&server.name),
                    crate::render::plain_line(uri)
                ));
            }
            // The lists the catalog shows; a tool list is read from the record when the menu
            // is drawn.
            HostEvent::ListChanged { server, list } if *list != interlude_host::ListKind::Tools => {
                self.heard(format!(
                    "⟳ {}  \"{}\" says its {} changed",
                    clock(now_ms()),
                    crate::render::plain_line(&server.name),
                    list.as_str()
                ));
            }
            // Servers, calls starting, requests joining the queue: read from the record when
            // needed.
            _ => {}
        }
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What happened to the request being answered, as far as the terminal thread has heard.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The reply went to the server.
    Replied(Reply),
    /// The engine refused the answer; the request is still open.
    Invalid(Vec<FieldError>),
    /// The request went away.
    Closed(Notice),
}

/// The terminal thread's end of the channel, with the bookkeeping of waiting requests.
#[derive(Debug)]
pub(crate) struct Events {
    rx: mpsc::Receiver<UiEvent>,
    /// Events read early (while looking for something else) and not yet handled.
    backlog: VecDeque<UiEvent>,
    /// Notices about requests that closed while waiting in the queue, to show at a calm moment.
    notices: Vec<Notice>,
}

impl Events {
    pub(crate) fn new(rx: mpsc::Receiver<UiEvent>) -> Self {
        Events {
            rx,
            backlog: VecDeque::new(),
            notices: Vec::new(),
        }
    }

    /// Notices about queued requests that went away, taken once.
    pub(crate) fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// The next event to act on, waiting for it. `None` when the host is gone.
    pub(crate) fn next(&mut self) -> Option<UiEvent> {
        if let Some(e) = self.backlog.pop_front() {
            return Some(e);
        }
        self.rx.recv().ok()
    }

    /// Like [`Events::next`] but gives up after `timeout` (`Ok(None)`); `Err(())` when the host
    /// is gone.
    pub(crate) fn next_timeout(&mut self, timeout: Duration) -> Result<Option<UiEvent>, ()> {
        if let Some(e) = self.backlog.pop_front() {
            return Ok(Some(e));
        }
        match self.rx.recv_timeout(timeout) {
            Ok(event) => Ok(Some(event)),
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(()),
        }
    }

    /// Gives back events read while waiting for something else, to be handled next, in order.
    pub(crate) fn defer(&mut self, events: Vec<UiEvent>) {
        for event in events.into_iter().rev() {
            self.backlog.push_front(event);
        }
    }

    /// Reads whatever arrived without waiting; returns the notice if request `id` was closed.
    /// Everything else is kept for later, in order.
    pub(crate) fn poll_closed(&mut self, id: RequestId) -> Option<Notice> {
        let mut found = None;
        while let Ok(event) = self.rx.try_recv() {
            match event {
                UiEvent::Closed(cid, notice) if cid == id => found = Some(notice),
                UiEvent::Closed(_, notice) => self.notices.push(notice),
                // Ctrl-C between two prompts: the prompts handle their own.
                UiEvent::Interrupt => {}
                other => self.backlog.push_back(other),
            }
        }
        // A closing seen earlier and kept in the backlog counts too.
        if found.is_none()
            && let Some(pos) = self
                .backlog
                .iter()
                .position(|e| matches!(e, UiEvent::Closed(cid, _) if *cid == id))
            && let Some(UiEvent::Closed(_, notice)) = self.backlog.remove(pos)
        {
            found = Some(notice);
        }
        found
    }

    /// Waits for what became of request `id` after an answer was sent. Events about other
    /// things are kept for later.
    pub(crate) fn outcome(&mut self, id: RequestId) -> Option<Outcome> {
        if let Some(pos) = self.backlog.iter().position(|e| concerns(e, id)) {
            return self.backlog.remove(pos).and_then(|e| as_outcome(e, id));
        }
        loop {
            let event = self.rx.recv().ok()?;
            if concerns(&event, id) {
                return as_outcome(event, id);
            }
            match event {
                UiEvent::Closed(_, notice) => self.notices.push(notice),
                UiEvent::Interrupt => {}
                other => self.backlog.push_back(other),
            }
        }
    }
}

fn concerns(event: &UiEvent, id: RequestId) -> bool {
    matches!(event,
        UiEvent::Replied(i, _) | UiEvent::Invalid(i, _) | UiEvent::Closed(i, _) if *i == id)
}

fn as_outcome(event: UiEvent, id: RequestId) -> Option<Outcome> {
    match event {
        UiEvent::Replied(i, reply) if i == id => Some(Outcome::Replied(reply)),
        UiEvent::Invalid(i, errors) if i == id => Some(Outcome::Invalid(errors)),
        UiEvent::Closed(i, notice) if i == id => Some(Outcome::Closed(notice)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_is_found_between_prompts_and_the_rest_kept() {
        let (tx, rx) = mpsc::channel();
        let mut events = Events::new(rx);
        let a = RequestId(1);
        let b = RequestId(2);
        tx.send(UiEvent::Interrupt).unwrap();
        tx.send(UiEvent::Replied(
            b,
            Reply::Answered(interlude_host::Answer::Declined),
        ))
        .unwrap();
        assert!(events.poll_closed(a).is_none());
        tx.send(UiEvent::Closed(
            a,
            Notice {
                server: "s".into(),
                text: "gone".into(),
            },
        ))
        .unwrap();
        assert_eq!(events.poll_closed(a).unwrap().text, "gone");
        // The interrupt between prompts was dropped; the other request's reply was kept.
        assert!(matches!(events.next(), Some(UiEvent::Replied(id, _)) if id == b));
    }

    #[test]
    fn outcome_skips_unrelated_events() {
        let (tx, rx) = mpsc::channel();
        let mut events = Events::new(rx);
        tx.send(UiEvent::Interrupt).unwrap();
        tx.send(UiEvent::Replied(
            RequestId(3),
            Reply::Answered(interlude_host::Answer::Declined),
        ))
        .unwrap();
        assert!(matches!(
            events.outcome(RequestId(3)),
            Some(Outcome::Replied(Reply::Answered(
                interlude_host::Answer::Declined
            )))
        ));
    }
}
