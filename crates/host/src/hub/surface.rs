//! The boundary every surface plugs into: [`Surface`] (the host tells it what happened) and
//! [`AnswerSink`] (it tells the host what the person did).
//!
//! What it does not do: render anything. The web page, the terminal and the headless script
//! are implementations elsewhere.

use std::sync::Arc;

use interlude_engine::{Answer, Input, RequestId};
use interlude_schema::Content;

use crate::hub::Hub;
use crate::hub::inputs::HostInput;
use crate::record::registry::HostEvent;

/// Where a person sees what the host does and answers what servers ask. Implemented by the web,
/// terminal and headless surfaces.
///
/// [`Surface::on_event`] is called with the host's core locked, on whichever task or thread
/// handed the host an input, one event at a time and in the order things happened. It must not
/// block: a surface that needs time (a person, a browser) keeps the [`AnswerSink`] and answers
/// later, from any task or thread. Answering from inside the callback is fine (the answer is
/// handled right after it). A surface keeps no registry of its own: the events carry the
/// records, and [`Host::snapshot`](crate::Host::snapshot) has all of them.
///
/// Each presented request's [`RequestKind`](interlude_engine::RequestKind) is matched without a
/// wildcard arm, so a new kind fails to compile until every surface shows it (or says plainly
/// that it cannot).
///
/// ```
/// use interlude_host::{AnswerSink, HostEvent, Surface};
/// use interlude_engine::{Answer, RequestKind};
///
/// /// Declines everything, loudly.
/// struct Refuser;
///
/// impl Surface for Refuser {
///     fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
///         if let HostEvent::RequestPresented(record) = event {
///             match &record.request.kind {
///                 RequestKind::Form(_)
///                 | RequestKind::Url(_)
///                 | RequestKind::AppForm(_)
///                 | RequestKind::ViewLink(_)
///                 | RequestKind::Sampling(_) => sink.answer(record.request.id, Answer::Declined),
///             }
///         }
///     }
/// }
/// ```
pub trait Surface: Send + 'static {
    /// Something happened: a server, a call or a request changed (see [`HostEvent`]). On
    /// [`HostEvent::RequestPresented`] the surface shows the request and, sooner or later,
    /// answers it through `sink`.
    fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink);
}

/// Two surfaces over one host — the terminal, say, with a web page it hands app views to. Both
/// hear every event, in order, the first one first; either may answer a request, and the engine
/// takes the first answer (a later one, for a request already answered, is ignored).
///
/// ```
/// use interlude_host::{AnswerSink, Host, HostConfig, HostEvent, Surface};
///
/// struct Printer(&'static str);
///
/// impl Surface for Printer {
///     fn on_event(&mut self, event: &HostEvent, _sink: &AnswerSink) {
///         println!("{}: {event:?}", self.0);
///     }
/// }
///
/// # #[tokio::main] async fn main() {
/// let host = Host::start(HostConfig::default(), (Printer("one"), Printer("two")));
/// # drop(host); }
/// ```
impl<A: Surface, B: Surface> Surface for (A, B) {
    fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
        self.0.on_event(event, sink);
        self.1.on_event(event, sink);
    }
}

/// A surface that may not be there: `None` hears nothing (a recorder only when asked for, say).
///
/// ```
/// use interlude_host::{AnswerSink, Host, HostConfig, HostEvent, Surface};
///
/// struct Printer;
///
/// impl Surface for Printer {
///     fn on_event(&mut self, event: &HostEvent, _sink: &AnswerSink) {
///         println!("{event:?}");
///     }
/// }
///
/// # #[tokio::main] async fn main() {
/// let verbose = false;
/// let printer = verbose.then_some(Printer);
/// let host = Host::start(HostConfig::default(), printer);
/// # drop(host); }
/// ```
impl<S: Surface> Surface for Option<S> {
    fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
        if let Some(surface) = self {
            surface.on_event(event, sink);
        }
    }
}

/// A handle a surface answers through. Cheap to clone.
#[derive(Clone)]
pub struct AnswerSink {
    pub(crate) hub: Arc<Hub>,
}

impl std::fmt::Debug for AnswerSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerSink").finish_non_exhaustive()
    }
}

impl AnswerSink {
    /// Reports what the person did with request `id`.
    pub fn answer(&self, id: RequestId, answer: Answer<Content>) {
        self.hub
            .submit(HostInput::Engine(Input::Answer { id, answer }));
    }
}
