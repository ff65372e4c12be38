//! A question a server asks in its app view (app-rendered elicitation, SEP-3118), on the
//! terminal: the person chooses where to answer — in the browser, in the server's view (through
//! the [`Handoff`]); here, as the plain form; or not at all. While the browser has it, the
//! terminal waits for the request's end and reads single letters (`f` the plain form here
//! instead, `c` cancel, `o` open the page again); Ctrl-C cancels. If the view cannot be used (it
//! does not start, does not render questions, or the page asked for the plain form) the
//! terminal offers the plain form.

use std::fmt;

use inquire::{InquireError, Select};
use interlude_host::{AnswerSink, AppFormRequest, AppStage, Host, RequestId};

use super::form::answer_form;
use super::{tell_closed, tell_reply};
use crate::TuiError;
use crate::form::show_errors;
use crate::handoff::{Handoff, HandoffTarget, launch};
use crate::keys::{KEY_POLL, typed_letter};
use crate::render::{Screen, Style, plain_line, styled};
use crate::surface::{Events, UiEvent};

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
