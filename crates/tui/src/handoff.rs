//! Handing what a terminal cannot show to a web page over the same host: a call's MCP Apps view,
//! and a question a server asks in its app view (app-rendered elicitation, SEP-3118).
//!
//! The terminal does not know how the page is served: whoever starts the terminal (the
//! `interlude` CLI) gives it a [`Handoff`], which starts a page on first use and says where it
//! is. The page and the terminal are two surfaces of one host, so an answer given in either
//! reaches the server once, and the other hears how the request ended.
//!
//! A question in a view: the person chooses where to answer — in the browser, in the server's
//! view; here, as the plain form; or not at all. While the browser has it, the terminal waits for
//! the request's end and reads single letters (`f` the plain form here instead, `c` cancel, `o`
//! open the page again); Ctrl-C cancels. If the view cannot be used (it does not start, does not
//! render questions, or the page asked for the plain form) the terminal offers the plain form.

use std::fmt;

use inquire::{Confirm, InquireError, Select};
use interlude_host::{
    AnswerSink, AppFormRequest, AppStage, CallRecord, Host, RequestId, ViewId, ViewState,
};

use crate::TuiError;
use crate::form::show_errors;
use crate::render::{Screen, Style, plain_line, styled};
use crate::request::{answer_form, tell_closed, tell_reply};
use crate::surface::{Events, UiEvent};
use crate::ui::{KEY_POLL, typed_letter};

/// What the terminal hands to a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandoffTarget {
    /// A call's app view.
    View(ViewId),
    /// A question asked in an app view; the page shows it as its current request.
    Request(RequestId),
}

/// A web page over the terminal's own host, to which it hands what it cannot show.
///
/// ```
/// use interlude_tui::{Handoff, HandoffTarget};
///
/// /// A page already being served at a fixed address.
/// struct Page(String);
///
/// impl Handoff for Page {
///     fn address(&self, target: HandoffTarget) -> Result<String, String> {
///         Ok(match target {
///             HandoffTarget::View(view) => format!("{}#view-{}", self.0, view.0),
///             _ => self.0.clone(),
///         })
///     }
/// }
/// ```
pub trait Handoff: Send + Sync + 'static {
    /// The address of a page showing `target`, the page started first if it is not running;
    /// or why there is none, in a sentence.
    fn address(&self, target: HandoffTarget) -> Result<String, String>;
}

impl fmt::Debug for dyn Handoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Handoff")
    }
}

/// Where the person answers a question asked in an app view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Where {
    Browser,
    Here,
    Cancel,
}

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Where::Browser => "In the browser, in the server's own view",
            Where::Here => "Here, as a plain form",
            Where::Cancel => "Cancel: dismiss without answering",
        })
    }
}

/// Answers question `id`, asked in app view `app.resource_uri`: in the browser or here.
#[allow(clippy::too_many_arguments)]
pub(crate) fn answer_app_form(
    screen: &Screen,
    events: &mut Events,
    host: &Host,
    handoff: &dyn Handoff,
    server_name: &str,
    id: RequestId,
    app: AppFormRequest,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    let server = plain_line(server_name);
    if let AppStage::Form { reason } = &app.stage {
        screen.line(styled(
            Style::Dim,
            &format!(
                "   The server asked this in its app view, which cannot be used: {}",
                plain_line(reason)
            ),
        ));
        return answer_form(screen, events, server_name, id, app.form, sink);
    }
    screen.line(styled(
        Style::Dim,
        &format!(
            "   The server asks this in its app view ({}), which a browser can show.",
            plain_line(&app.resource_uri)
        ),
    ));
    let chosen = Select::new(
        "Where do you answer?",
        vec![Where::Browser, Where::Here, Where::Cancel],
    )
    .with_help_message("↑↓ to move, Enter to choose, Esc to cancel the request")
    .without_filtering()
    .prompt();
    let place = match chosen {
        Ok(place) => place,
        Err(InquireError::OperationCanceled | InquireError::OperationInterrupted) => Where::Cancel,
        Err(e) => {
            sink.answer(id, interlude_host::Answer::Cancelled);
            return Err(e.into());
        }
    };
    if let Some(notice) = events.poll_closed(id) {
        tell_closed(screen, &server, &notice);
        return Ok(());
    }
    match place {
        Where::Here => {
            host.show_plain_form(id, "the person answers in the terminal");
            answer_form(screen, events, server_name, id, app.form, sink)
        }
        Where::Cancel => cancel(screen, events, &server, id, sink),
        Where::Browser => match handoff.address(HandoffTarget::Request(id)) {
            Ok(address) => {
                screen.ok("The question is on the Interlude page in your browser:");
                launch(screen, &address);
                wait_for_browser(screen, events, host, &server, id, app, sink, &address)
            }
            Err(why) => {
                screen.error(&format!(
                    "No page can be opened ({}); answer here.",
                    plain_line(&why)
                ));
                host.show_plain_form(id, "the terminal could not open a page");
                answer_form(screen, events, server_name, id, app.form, sink)
            }
        },
    }
}

/// Cancels request `id` and says what became of it.
fn cancel(
    screen: &Screen,
    events: &mut Events,
    server: &str,
    id: RequestId,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    sink.answer(id, interlude_host::Answer::Cancelled);
    match events.outcome(id) {
        Some(crate::surface::Outcome::Replied(reply)) => tell_reply(screen, server, &reply),
        Some(crate::surface::Outcome::Closed(notice)) => tell_closed(screen, server, &notice),
        Some(crate::surface::Outcome::Invalid(_)) => {}
        None => return Err(TuiError::HostStopped),
    }
    Ok(())
}

/// The browser has question `id`: waits for how it ends, reading the person's letters.
#[allow(clippy::too_many_arguments)]
fn wait_for_browser(
    screen: &Screen,
    events: &mut Events,
    host: &Host,
    server: &str,
    id: RequestId,
    app: AppFormRequest,
    sink: &AnswerSink,
    address: &str,
) -> Result<(), TuiError> {
    screen.line(styled(
        Style::Dim,
        "   Answer in the server's view there. Type f and Enter to answer here instead, c and \
         Enter to cancel the request, o and Enter to open the page again; Ctrl-C cancels.",
    ));
    // Events about other things, given back once this request is over.
    let mut later = Vec::new();
    let result = loop {
        let event = match events.next_timeout(KEY_POLL) {
            Err(()) => break Err(TuiError::HostStopped),
            Ok(Some(event)) => event,
            Ok(None) => {
                match typed_letter() {
                    Some('f') => {
                        host.show_plain_form(id, "the person answers in the terminal");
                        break answer_form(screen, events, server, id, app.form, sink);
                    }
                    Some('c') => break cancel(screen, events, server, id, sink),
                    Some('o') => launch(screen, address),
                    _ => {}
                }
                continue;
            }
        };
        match event {
            UiEvent::Replied(i, reply) if i == id => {
                screen.line(styled(Style::Dim, "   Answered in the browser."));
                tell_reply(screen, server, &reply);
                break Ok(());
            }
            UiEvent::Closed(i, notice) if i == id => {
                tell_closed(screen, server, &notice);
                break Ok(());
            }
            UiEvent::Invalid(i, errors) if i == id => {
                screen.error(&format!(
                    "The view's answer was not sent to \"{server}\"; the view was told why:"
                ));
                show_errors(screen, &errors);
            }
            UiEvent::FellBack(i, reason) if i == id => {
                screen.notice(&format!(
                    "The view cannot be used ({}); answer here (the page shows the same form).",
                    plain_line(&reason)
                ));
                break answer_form(screen, events, server, id, app.form, sink);
            }
            UiEvent::Interrupt => break cancel(screen, events, server, id, sink),
            other => later.push(other),
        }
    };
    events.defer(later);
    result
}

/// After a call: offers to open each of its app views that is still open in the browser.
pub(crate) fn offer_views(
    screen: &Screen,
    host: &Host,
    handoff: &dyn Handoff,
    call: &CallRecord,
) -> Result<(), TuiError> {
    for view in call.views.iter().filter_map(|v| host.view(*v)) {
        if !matches!(view.state, ViewState::Open | ViewState::Loading) {
            continue;
        }
        let question = format!(
            "This result has an app view ({}). Open it in the browser?",
            plain_line(&view.resource_uri)
        );
        let open = match Confirm::new(&question)
            .with_default(false)
            .with_help_message("a terminal cannot show it; the Interlude page can")
            .prompt()
        {
            Ok(open) => open,
            Err(InquireError::OperationCanceled | InquireError::OperationInterrupted) => false,
            Err(e) => return Err(e.into()),
        };
        if !open {
            continue;
        }
        match handoff.address(HandoffTarget::View(view.id)) {
            Ok(address) => {
                screen.ok("The view is on the Interlude page in your browser:");
                launch(screen, &address);
            }
            Err(why) => screen.error(&format!("No page can be opened: {}", plain_line(&why))),
        }
    }
    Ok(())
}

/// Prints `address` and hands it to the system's opener.
fn launch(screen: &Screen, address: &str) {
    crate::link::launch(screen, address);
}
