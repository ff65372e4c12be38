//! The headless surface: answers requests from a script or from the schema's defaults, for CI,
//! the CLI's `call` command and conformance runs.
//!
//! An answers script is JSON: one object used for every request of a run, or a list of objects
//! used one per request in order. Keys are property names; only the properties of the form being
//! answered are taken, so one object can cover several forms. `"action": "decline"` or
//! `"cancel"` answers that way instead of accepting. Omitted properties get their defaults from
//! the engine. An answer the engine finds invalid is not retried: the request is cancelled and
//! the failure recorded (a script cannot correct itself).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use interlude_engine::{ElicitationView, Notice, Reply, RequestId, SurfaceAnswer};
use interlude_schema::{Content, FieldError};
use serde_json::Value;

use crate::runtime::{AnswerSink, Surface};

/// One scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedAnswer {
    /// accept (with `values`), decline or cancel.
    pub action: ScriptedAction,
    /// Values by property name.
    pub values: Content,
}

/// The action of a scripted answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptedAction {
    /// Accept with the values (defaults fill the rest).
    Accept,
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
}

/// Where headless answers come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Answers {
    /// Accept every request with its defaults only.
    Defaults,
    /// The same answer for every request.
    Single(ScriptedAnswer),
    /// One answer per request, in order; requests beyond the list are cancelled.
    Script(Vec<ScriptedAnswer>),
}

/// An answers file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswersError {
    /// Neither an object nor a list of objects.
    #[error("answers must be a JSON object or a list of objects")]
    Shape,
    /// `action` is not one of the three.
    #[error(
        "answer {index}: `action` must be \"accept\", \"decline\" or \"cancel\", found {found}"
    )]
    Action {
        /// Position in the list (0 for a single object).
        index: usize,
        /// What was found.
        found: String,
    },
}

impl Answers {
    /// Reads an answers script (see the module documentation).
    ///
    /// ```
    /// use interlude_host::headless::{Answers, ScriptedAction};
    /// let a = Answers::from_json(&serde_json::json!([{"name": "Ada"}, {"action": "decline"}])).unwrap();
    /// let Answers::Script(list) = a else { unreachable!() };
    /// assert_eq!(list[1].action, ScriptedAction::Decline);
    /// ```
    pub fn from_json(value: &Value) -> Result<Self, AnswersError> {
        match value {
            Value::Object(o) => Ok(Answers::Single(entry(0, o)?)),
            Value::Array(list) => list
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_object()
                        .ok_or(AnswersError::Shape)
                        .and_then(|o| entry(i, o))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Answers::Script),
            _ => Err(AnswersError::Shape),
        }
    }
}

fn entry(index: usize, o: &serde_json::Map<String, Value>) -> Result<ScriptedAnswer, AnswersError> {
    let mut values = o.clone();
    let action = match values.remove("action") {
        None => ScriptedAction::Accept,
        Some(Value::String(s)) if s == "accept" => ScriptedAction::Accept,
        Some(Value::String(s)) if s == "decline" => ScriptedAction::Decline,
        Some(Value::String(s)) if s == "cancel" => ScriptedAction::Cancel,
        Some(other) => {
            return Err(AnswersError::Action {
                index,
                found: other.to_string(),
            });
        }
    };
    Ok(ScriptedAnswer { action, values })
}

/// What happened to one request, as the headless surface saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlessEvent {
    /// The request.
    pub id: RequestId,
    /// The requesting server.
    pub server: String,
    /// The message shown.
    pub message: String,
    /// The reply that went back, once there is one.
    pub reply: Option<Reply>,
    /// Validation errors the engine raised against the scripted answer.
    pub invalid: Vec<FieldError>,
    /// Set when the request was closed unanswered.
    pub closed: Option<String>,
}

/// How many requests the headless surface's log keeps.
const EVENTS_KEPT: usize = 10_000;

/// The headless surface.
#[derive(Debug, Clone)]
pub struct HeadlessSurface {
    answers: Answers,
    next: usize,
    log: Arc<Mutex<VecDeque<HeadlessEvent>>>,
}

impl HeadlessSurface {
    /// A surface answering from `answers`.
    pub fn new(answers: Answers) -> Self {
        HeadlessSurface {
            answers,
            next: 0,
            log: Arc::new(Mutex::new(VecDeque::new())),
        }
    }

    /// A shared view of what happened so far: the last 10 000 requests, oldest first (a long
    /// headless run must not grow without bound).
    pub fn log(&self) -> Arc<Mutex<VecDeque<HeadlessEvent>>> {
        self.log.clone()
    }

    fn with_event(&self, id: RequestId, f: impl FnOnce(&mut HeadlessEvent)) {
        if let Ok(mut log) = self.log.lock()
            && let Some(e) = log.iter_mut().rev().find(|e| e.id == id)
        {
            f(e);
        }
    }
}

impl Surface for HeadlessSurface {
    fn present(&mut self, view: ElicitationView, sink: &AnswerSink) {
        if let Ok(mut log) = self.log.lock() {
            if log.len() >= EVENTS_KEPT {
                log.pop_front();
            }
            log.push_back(HeadlessEvent {
                id: view.id,
                server: view.server.clone(),
                message: view.message.clone(),
                reply: None,
                invalid: Vec::new(),
                closed: None,
            });
        }
        let scripted = match &self.answers {
            Answers::Defaults => Some(ScriptedAnswer {
                action: ScriptedAction::Accept,
                values: Content::new(),
            }),
            Answers::Single(a) => Some(a.clone()),
            Answers::Script(list) => {
                let a = list.get(self.next).cloned();
                self.next += 1;
                a
            }
        };
        let answer = match scripted {
            None => SurfaceAnswer::Cancel,
            Some(ScriptedAnswer {
                action: ScriptedAction::Decline,
                ..
            }) => SurfaceAnswer::Decline,
            Some(ScriptedAnswer {
                action: ScriptedAction::Cancel,
                ..
            }) => SurfaceAnswer::Cancel,
            Some(ScriptedAnswer { values, .. }) => SurfaceAnswer::Accept(
                values
                    .into_iter()
                    .filter(|(k, _)| view.schema.field(k).is_some())
                    .collect(),
            ),
        };
        sink.answer(view.id, answer);
    }

    fn invalid(&mut self, id: RequestId, errors: &[FieldError], sink: &AnswerSink) {
        self.with_event(id, |e| e.invalid = errors.to_vec());
        sink.answer(id, SurfaceAnswer::Cancel);
    }

    fn closed(&mut self, id: RequestId, notice: &Notice) {
        self.with_event(id, |e| e.closed = Some(notice.text.clone()));
    }

    fn replied(&mut self, id: RequestId, reply: &Reply) {
        self.with_event(id, |e| e.reply = Some(reply.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::HostInput;
    use interlude_protocol::ProtocolEra;
    use interlude_schema::FormSchema;
    use serde_json::json;

    fn view(id: u64) -> ElicitationView {
        let schema = FormSchema::parse(&json!({"type": "object",
            "properties": {"name": {"type": "string"}}}))
        .unwrap()
        .schema;
        ElicitationView {
            id: RequestId(id),
            server: "s".into(),
            message: format!("request {id}"),
            schema: Arc::new(schema),
            prefill: Content::new(),
            era: ProtocolEra::Push,
            tool: None,
        }
    }

    #[test]
    fn answers_with_the_form_s_properties_only_and_keeps_a_bounded_log() {
        let answer = Answers::from_json(&json!({"name": "Ada", "other": 1})).unwrap();
        let mut surface = HeadlessSurface::new(answer);
        let (sink, seen) = AnswerSink::detached();
        for id in 1..=(EVENTS_KEPT as u64 + 5) {
            surface.present(view(id), &sink);
        }
        let first = seen.lock().unwrap().remove(0);
        let HostInput::Answer { id, answer } = first else {
            panic!("no answer sent");
        };
        assert_eq!(id, RequestId(1));
        assert_eq!(
            answer,
            SurfaceAnswer::Accept(json!({"name": "Ada"}).as_object().unwrap().clone())
        );
        let log = surface.log();
        let log = log.lock().unwrap();
        assert_eq!(log.len(), EVENTS_KEPT);
        assert_eq!(
            log.front().unwrap().id,
            RequestId(6),
            "oldest dropped first"
        );
        assert_eq!(
            log.back().unwrap().message,
            format!("request {}", EVENTS_KEPT + 5)
        );
    }
}
