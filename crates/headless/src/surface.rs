//! The headless surface: answers requests from a script or from the schema's defaults, for CI,
//! the CLI's `call` command and conformance runs.
//!
//! What it deliberately does not do: open or fetch a link (it hands consented links to a
//! callback), correct an answer the engine refused, or pretend to be a model.
//!
//! An answers script is JSON: one object used for every request of a run, or a list of objects
//! used one per request in order. Keys are property names; only the properties of the form being
//! answered are taken, so one object can cover several forms. `"action": "decline"` or
//! `"cancel"` answers that way instead of accepting. Omitted properties get their defaults from
//! the engine. An answer the engine finds invalid is not retried: the request is cancelled and
//! the failure recorded (a script cannot correct itself).

use std::time::Duration;

use interlude_host::schema::Content;
use interlude_host::{
    Answer, AnswerSink, CallId, CallProgress, CallRecord, HostEvent, LinkState, RequestId,
    RequestKind, Surface, UrlStage,
};
use serde_json::Value;

/// One scripted answer: accept with these values (defaults fill the rest), decline or cancel.
pub type ScriptedAnswer = Answer<Content>;

/// Where headless answers come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Answers {
    /// Accept every request with its defaults only.
    Defaults,
    /// The same answer for every request.
    Single(ScriptedAnswer),
    /// One answer per request, in order; requests beyond the list are cancelled.
    Script(Vec<ScriptedAnswer>),
    /// One answer per request, in order, from a queue the caller refills as it goes (between
    /// calls, say: `interlude replay` gives each recorded call its own answers); a request
    /// that finds it empty is cancelled.
    Queue(AnswerQueue),
}

/// A queue of answers shared between a [`HeadlessSurface`] and its caller
/// ([`Answers::Queue`]). Cheap to clone; clones are the same queue.
///
/// ```
/// use interlude_headless::{AnswerQueue, Answers, HeadlessSurface};
/// use interlude_host::Answer;
/// let queue = AnswerQueue::default();
/// let surface = HeadlessSurface::new(Answers::Queue(queue.clone()));
/// queue.replace(vec![Answer::Declined]);
/// assert_eq!(queue.len(), 1);
/// # drop(surface);
/// ```
#[derive(Debug, Clone, Default)]
pub struct AnswerQueue(
    std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<ScriptedAnswer>>>,
);

impl AnswerQueue {
    /// Puts these answers in the queue instead of what it held.
    pub fn replace(&self, answers: Vec<ScriptedAnswer>) {
        *crate::sync::lock(&self.0) = answers.into();
    }

    /// How many answers are left.
    pub fn len(&self) -> usize {
        crate::sync::lock(&self.0).len()
    }

    /// Whether none is left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn pop(&self) -> Option<ScriptedAnswer> {
        crate::sync::lock(&self.0).pop_front()
    }
}

impl PartialEq for AnswerQueue {
    /// The same queue (not merely the same answers).
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
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
    /// use interlude_headless::Answers;
    /// use interlude_host::Answer;
    /// let a = Answers::from_json(&serde_json::json!([{"name": "Ada"}, {"action": "decline"}])).unwrap();
    /// let Answers::Script(list) = a else { unreachable!() };
    /// assert_eq!(list[1], Answer::Declined);
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
    match values.remove("action") {
        None => Ok(Answer::Accepted(values)),
        Some(Value::String(s)) if s == "accept" => Ok(Answer::Accepted(values)),
        Some(Value::String(s)) if s == "decline" => Ok(Answer::Declined),
        Some(Value::String(s)) if s == "cancel" => Ok(Answer::Cancelled),
        Some(other) => Err(AnswersError::Action {
            index,
            found: other.to_string(),
        }),
    }
}

/// How long the headless surface waits before saying "done" to a link it consented to earlier
/// in the same call (the server's flow is polled at this pace).
pub const LINK_POLL: Duration = Duration::from_secs(1);

/// What the headless surface does with a link consented to (it never opens one).
type OnLink = Box<dyn FnMut(&str) + Send>;

/// The headless surface: answers every presented request from its script, at once. What
/// happened is in the host's record ([`Host::snapshot`](interlude_host::Host::snapshot)): each request
/// with its reply or notice, and the engine's complaints about an answer it refused.
pub struct HeadlessSurface {
    answers: Answers,
    next: usize,
    on_link: Option<OnLink>,
    on_progress: Option<OnProgress>,
    /// The progress updates already handed to `on_progress`, per call in flight.
    progress_seen: std::collections::HashMap<CallId, u64>,
    /// The requests whose link was handed over already.
    links_given: std::collections::HashSet<RequestId>,
}

/// What to do with a call's progress (see [`HeadlessSurface::on_progress`]).
type OnProgress = Box<dyn FnMut(&CallRecord, &CallProgress) + Send>;

impl std::fmt::Debug for HeadlessSurface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeadlessSurface")
            .field("answers", &self.answers)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl HeadlessSurface {
    /// A surface answering from `answers`.
    pub fn new(answers: Answers) -> Self {
        HeadlessSurface {
            answers,
            next: 0,
            on_link: None,
            on_progress: None,
            progress_seen: std::collections::HashMap::new(),
            links_given: std::collections::HashSet::new(),
        }
    }

    /// Calls `f` with each call's record and its progress whenever its server reports
    /// progress (`notifications/progress`); the CLI prints it to a terminal.
    ///
    /// ```
    /// use interlude_headless::{Answers, HeadlessSurface};
    /// let surface = HeadlessSurface::new(Answers::Defaults).on_progress(|call, p| {
    ///     eprintln!("{}: {} of {:?}", call.tool, p.progress, p.total);
    /// });
    /// # let _ = surface;
    /// ```
    #[must_use]
    pub fn on_progress(
        mut self,
        f: impl FnMut(&CallRecord, &CallProgress) + Send + 'static,
    ) -> Self {
        self.on_progress = Some(Box::new(f));
        self
    }

    /// Calls `f` with every link the script consented to, once it passed the host's checks
    /// (the link is never opened or fetched by the surface).
    ///
    /// ```
    /// use interlude_headless::{Answers, HeadlessSurface};
    /// let surface = HeadlessSurface::new(Answers::Defaults)
    ///     .on_link(|url| tracing::info!(%url, "open this link to continue"));
    /// # let _ = surface;
    /// ```
    #[must_use]
    pub fn on_link(mut self, f: impl FnMut(&str) + Send + 'static) -> Self {
        self.on_link = Some(Box::new(f));
        self
    }

    /// The answer to a URL request (see the module documentation).
    fn link_answer(&mut self, stage: UrlStage) -> Option<Answer<Content>> {
        if stage == UrlStage::Waiting {
            return None;
        }
        if self.answers == Answers::Defaults {
            return Some(Answer::Declined);
        }
        Some(match self.scripted() {
            Some(Answer::Accepted(values)) if values.is_empty() => Answer::Accepted(values),
            Some(Answer::Accepted(_)) => Answer::Declined,
            Some(other) => other,
            // Without a word from the script, a link is declined: never opened by default.
            None => Answer::Declined,
        })
    }

    fn scripted(&mut self) -> Option<ScriptedAnswer> {
        match &self.answers {
            Answers::Defaults => Some(Answer::Accepted(Content::new())),
            Answers::Single(a) => Some(a.clone()),
            Answers::Script(list) => {
                let a = list.get(self.next).cloned();
                self.next += 1;
                a
            }
            Answers::Queue(queue) => queue.pop(),
        }
    }
}

impl HeadlessSurface {
    /// The script's answer to a form: only the form's own properties (one object may cover
    /// several forms); no answer left cancels.
    fn form_answer(&mut self, form: &interlude_host::FormRequest) -> Answer<Content> {
        // The one answer to everything is read where it is, not copied whole and then cut.
        if let Answers::Single(Answer::Accepted(values)) = &self.answers {
            return Answer::Accepted(
                values
                    .iter()
                    .filter(|(k, _)| form.schema.field(k).is_some())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
        }
        match self.scripted() {
            Some(Answer::Accepted(values)) => Answer::Accepted(
                values
                    .into_iter()
                    .filter(|(k, _)| form.schema.field(k).is_some())
                    .collect(),
            ),
            Some(other) => other,
            None => Answer::Cancelled,
        }
    }
}

impl HeadlessSurface {
    /// The script's reply to a sampling request: an answer with a `text` (and optionally a
    /// `model`) is the reply; anything else, or no answer left, refuses it (a script is no
    /// model).
    fn sampling_answer(&mut self) -> Answer<Content> {
        use interlude_host::sampling::{MODEL_FIELD, REPLY_FIELD};
        match self.scripted() {
            Some(Answer::Accepted(values)) if values.contains_key(REPLY_FIELD) => Answer::Accepted(
                values
                    .into_iter()
                    .filter(|(k, _)| k == REPLY_FIELD || k == MODEL_FIELD)
                    .collect(),
            ),
            Some(Answer::Cancelled) => Answer::Cancelled,
            Some(_) | None => Answer::Declined,
        }
    }
}

impl Surface for HeadlessSurface {
    fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
        match event {
            HostEvent::RequestPresented(record) => {
                let request = &record.request;
                let answer = match &request.kind {
                    RequestKind::Form(form) => self.form_answer(form),
                    // An app-rendered form is the plain form it also is: no view here.
                    RequestKind::AppForm(app) => self.form_answer(&app.form),
                    RequestKind::Url(url) => match self.link_answer(url.stage) {
                        Some(answer) => answer,
                        None => {
                            done_later(request.id, sink);
                            return;
                        }
                    },
                    // A view's link is consented to, or not, by the same rule as a server's.
                    RequestKind::ViewLink(_) => self
                        .link_answer(UrlStage::Consent)
                        .unwrap_or(Answer::Declined),
                    RequestKind::Sampling(_) => self.sampling_answer(),
                };
                sink.answer(request.id, answer);
            }
            // A link is handed over once, when it becomes opened (its later changes are its
            // flow's progress and end).
            HostEvent::RequestChanged(record) => {
                if let (Some(f), Some(LinkState::Opened { url })) =
                    (&mut self.on_link, record.link())
                    && self.links_given.insert(record.request.id)
                {
                    f(url);
                }
            }
            // A script cannot correct itself: an answer the engine refused cancels the request
            // (the record keeps the engine's complaints).
            HostEvent::RequestInvalid(record) => sink.answer(record.request.id, Answer::Cancelled),
            // Once per progress notification (a call also moves on by its rounds).
            HostEvent::CallProgressed(record) => {
                if let (Some(f), Some(progress)) = (&mut self.on_progress, &record.progress)
                    && self.progress_seen.insert(record.id, progress.updates)
                        != Some(progress.updates)
                {
                    f(record, progress);
                }
            }
            HostEvent::CallEnded(record) => {
                self.progress_seen.remove(&record.id);
            }
            _ => {}
        }
    }
}

/// Says "done" to a link consented to earlier in the call, after [`LINK_POLL`]; without a
/// runtime to wait on, at once.
fn done_later(id: RequestId, sink: &AnswerSink) {
    let done = Answer::Accepted(Content::new());
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            let sink = sink.clone();
            runtime.spawn(async move {
                tokio::time::sleep(LINK_POLL).await;
                sink.answer(id, done);
            });
        }
        Err(_) => sink.answer(id, done),
    }
}
