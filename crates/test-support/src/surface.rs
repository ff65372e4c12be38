//! A scripted surface for host tests: it answers each presented request with the next step of
//! its script and records every event the host sends, in order, so a test can assert what a
//! person would have seen and what went back to the server.
//!
//! What it does not do: render anything, or decide anything a real surface would not.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_engine::{Answer, Notice, Reply, Request, RequestId};
use interlude_host::{AnswerSink, HostEvent, RequestStatus, Surface};
use interlude_schema::{Content, FieldError};
use tokio::sync::mpsc;

/// What the surface does with the next request it is shown (or the next refused answer).
#[derive(Clone, Debug)]
pub enum Step {
    /// Answer at once.
    Answer(Answer<Content>),
    /// Answer after a while (a person taking their time).
    After(Duration, Answer<Content>),
    /// Never answer.
    Never,
}

impl Step {
    /// Accept with these values (a JSON object).
    pub fn accept(values: serde_json::Value) -> Step {
        Step::Answer(Answer::Accepted(
            values.as_object().cloned().unwrap_or_default(),
        ))
    }
}

/// Everything the surface was told.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// Every event, in order.
    pub events: Vec<HostEvent>,
    /// The requests presented, in order.
    pub presented: Vec<Request>,
    /// The engine's complaints about refused answers, in order.
    pub invalid: Vec<Vec<FieldError>>,
    /// Notices of requests closed unanswered.
    pub closed: Vec<Notice>,
    /// Replies that went to servers for requests the surface saw.
    pub replies: Vec<Reply>,
}

/// The scripted, recording surface. Cheap to clone (clones share the script and the record).
#[derive(Clone)]
pub struct RecordingSurface {
    steps: Arc<Mutex<Vec<Step>>>,
    seen: Arc<Mutex<Seen>>,
    feed: Arc<Mutex<Option<mpsc::UnboundedSender<HostEvent>>>>,
}

impl RecordingSurface {
    /// A surface that plays `steps` in order (then never answers).
    pub fn new(steps: Vec<Step>) -> Self {
        RecordingSurface {
            steps: Arc::new(Mutex::new(steps.into_iter().rev().collect())),
            seen: Arc::default(),
            feed: Arc::default(),
        }
    }

    /// What it was told so far.
    pub fn seen(&self) -> Seen {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Every event from now on, as a stream a test can await (no polling).
    pub fn events(&self) -> mpsc::UnboundedReceiver<HostEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut feed) = self.feed.lock() {
            *feed = Some(tx);
        }
        rx
    }

    fn play(&self, id: RequestId, sink: &AnswerSink) {
        let step = self
            .steps
            .lock()
            .ok()
            .and_then(|mut s| s.pop())
            .unwrap_or(Step::Never);
        match step {
            Step::Answer(a) => sink.answer(id, a),
            Step::After(d, a) => {
                let sink = sink.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(d).await;
                    sink.answer(id, a);
                });
            }
            Step::Never => {}
        }
    }
}

impl Surface for RecordingSurface {
    fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.events.push(event.clone());
            match event {
                HostEvent::RequestPresented(r) => seen.presented.push(r.request.clone()),
                HostEvent::RequestInvalid(r) => seen.invalid.push(r.errors.clone()),
                HostEvent::RequestClosed(r) => {
                    if let RequestStatus::Closed(n) = &r.status {
                        seen.closed.push(n.clone());
                    }
                }
                HostEvent::RequestReplied(r) => {
                    if let RequestStatus::Replied(reply) = &r.status {
                        seen.replies.push(reply.clone());
                    }
                }
                _ => {}
            }
        }
        if let Ok(feed) = self.feed.lock()
            && let Some(tx) = feed.as_ref()
        {
            let _ = tx.send(event.clone());
        }
        match event {
            HostEvent::RequestPresented(r) | HostEvent::RequestInvalid(r) => {
                self.play(r.request.id, sink);
            }
            _ => {}
        }
    }
}
