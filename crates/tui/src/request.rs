//! One request for a person on the terminal: the header naming the requesting server and what
//! it asks, then the module of the request's kind answers it — a form (`request/form.rs`), a
//! link (`request/url.rs`), a question asked in an app view (`request/app_form.rs`), a model's
//! reply the person writes (`request/sampling.rs`).
//!
//! Esc or Ctrl-C at any prompt cancels the request. A request that goes away while it is being
//! answered (its server disconnected, its call ended) is noticed between prompts and before
//! anything is sent, and the person is told; nothing is sent for it.
//!
//! What it does not do: decide validity on its own terms (it uses the schema's rules, the same
//! the engine applies), keep state between requests, or know about tools.

use interlude_host::{
    Answer, AnswerSink, Host, Notice, Reply, Request, RequestKind, RequestMethod,
};

use crate::TuiError;
use crate::handoff::Handoff;
use crate::render::{Screen, Style, plain_line, styled};
use crate::surface::Events;

pub(crate) mod app_form;
pub(crate) mod form;
pub(crate) mod sampling;
pub(crate) mod url;

use form::answer_form;

/// Shows `view`, lets the person answer it, sends the answer through `sink` and waits until the
/// request is finished. Returns an error only when the terminal or the host failed.
pub(crate) fn answer(
    screen: &Screen,
    events: &mut Events,
    host: &Host,
    handoff: Option<&dyn Handoff>,
    request: Request,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    header(screen, host, &request);
    // Every kind of request is handled here, without a wildcard: a new kind fails to compile
    // until the terminal shows it (or says plainly where it can be answered).
    match request.kind {
        RequestKind::Form(form) => {
            answer_form(screen, events, &request.server_name, request.id, form, sink)
        }
        RequestKind::Url(url) => {
            url::answer_url(screen, events, &request.server_name, request.id, *url, sink)
        }
        RequestKind::Sampling(asked) => sampling::answer_sampling(
            screen,
            events,
            &request.server_name,
            request.id,
            *asked,
            sink,
        ),
        RequestKind::ViewLink(asked) => url::answer_view_link(
            screen,
            events,
            &request.server_name,
            request.id,
            *asked,
            sink,
        ),
        // With a page to hand it to, the person chooses where to answer; without one, the
        // question's own form, and where the request is.
        RequestKind::AppForm(app) => match handoff {
            Some(handoff) => app_form::answer_app_form(
                screen,
                events,
                host,
                handoff,
                &request.server_name,
                request.id,
                *app,
                sink,
            ),
            None => {
                screen.line(styled(
                    Style::Dim,
                    &format!(
                        "   The server would show this in its app request ({}); a terminal shows its form.",
                        plain_line(&app.resource_uri)
                    ),
                ));
                answer_form(
                    screen,
                    events,
                    &request.server_name,
                    request.id,
                    app.form,
                    sink,
                )
            }
        },
    }
}

/// Who asks, for which call, and how many more wait: all from the host's record.
fn header(screen: &Screen, host: &Host, request: &Request) {
    let server = plain_line(&request.server_name);
    let waiting = host
        .snapshot()
        .requests
        .iter()
        .filter(|r| r.status.is_pending() && r.request.id != request.id)
        .count();
    // What the server says it is, and the name it has here when that differs.
    let said = host
        .server(request.server)
        .and_then(|s| s.identity.as_ref().map(|i| plain_line(i.display_name())))
        .filter(|said| *said != server);
    let title = styled(
        Style::Strong,
        &match said {
            Some(said) => format!("━━ Request from \"{said}\" (server \"{server}\") ━━"),
            None => format!("━━ Request from server \"{server}\" ━━"),
        },
    );
    let queue = match waiting {
        0 => String::new(),
        n => format!("  {}", styled(Style::Warn, &format!("({n} more waiting)"))),
    };
    screen.blank();
    screen.line(format!("{title}{queue}"));
    if let Some(call) = request.call.and_then(|c| host.call(c)) {
        screen.line(styled(
            Style::Dim,
            &format!(
                "   asked by its tool call {} (call #{})",
                plain_line(&call.tool),
                call.id
            ),
        ));
    }
    if request.method == RequestMethod::Interaction {
        screen.line(styled(
            Style::Dim,
            &format!("   asked through the {}", request.method.label()),
        ));
    }
    screen.quoted(request.message());
}

/// How a request ended, told in a line: shared by the kinds that show a form or a reply, so
/// that none names another kind's reply.
pub(crate) fn tell_closed(screen: &Screen, server: &str, notice: &Notice) {
    screen.notice(&format!(
        "The request from \"{server}\" was closed: {}. Nothing was sent.",
        plain_line(notice.text.trim_end_matches('.'))
    ));
}

pub(crate) fn tell_reply(screen: &Screen, server: &str, reply: &Reply) {
    match reply {
        Reply::Answered(Answer::Accepted(_)) => {
            screen.ok(&format!("Sent your answers to \"{server}\"."));
        }
        Reply::Answered(Answer::Declined) => {
            screen.notice(&format!("Declined; \"{server}\" was told."));
        }
        Reply::Answered(Answer::Cancelled) => {
            screen.notice(&format!("Cancelled; \"{server}\" was told."));
        }
        Reply::Consented => screen.ok(&format!("\"{server}\" was told you consented.")),
        Reply::Sampled { .. } => screen.ok(&format!("Sent your reply to \"{server}\".")),
        Reply::Error { message, .. } => screen.error(&format!(
            "The request from \"{server}\" was refused: {}",
            plain_line(message)
        )),
    }
}
