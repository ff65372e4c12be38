//! Answering a URL request on the terminal: the link shown in full with its registrable domain
//! picked out, its Unicode and punycode forms when they differ, the host's warnings, then the
//! person's consent before anything is opened. After consent the host checks where the name
//! points; only then is the link handed to the system's opener (`$BROWSER`, `xdg-open` or
//! `open`), in the person's own browser, and printed so it can be copied.
//!
//! What it does not do: fetch the link, or judge it (the engine's URL rules do, the same for
//! every surface).

use std::fmt;
use std::process::{Command, Stdio};

use inquire::Select;
use interlude_host::{
    Answer, AnswerSink, Notice, Reply, RequestId, UrlRequest, UrlStage, ViewLinkRequest,
    schema::Content,
    url_safety::{UrlCheck, Verdict},
};

use crate::TuiError;
use crate::form::Stop;
use crate::render::{Screen, Style, plain_line, styled};
use crate::surface::{Events, Outcome};

/// A choice in the link menu.
#[derive(Debug, Clone)]
struct Choice {
    label: String,
    answer: Answer<Content>,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// Shows the link, asks for consent, sends the answer and, once the host let it through, opens
/// the link. Returns an error only when the terminal or the host failed.
pub(crate) fn answer_url(
    screen: &Screen,
    events: &mut Events,
    server_name: &str,
    id: RequestId,
    url: UrlRequest,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    let who = format!("\"{}\"", plain_line(server_name));
    let link = Link {
        raw: &url.url,
        check: &url.check,
        stage: url.stage,
    };
    answer_link(screen, events, &who, id, &link, sink)
}

/// A link an app view asks to have opened: the same consent as a server's link, and the app
/// hears whether it was opened.
pub(crate) fn answer_view_link(
    screen: &Screen,
    events: &mut Events,
    server_name: &str,
    id: RequestId,
    link: ViewLinkRequest,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    let who = format!("the app of \"{}\"", plain_line(server_name));
    let asked = Link {
        raw: &link.url,
        check: &link.check,
        stage: UrlStage::Consent,
    };
    answer_link(screen, events, &who, id, &asked, sink)
}

/// The link a request asks to open, judged.
struct Link<'a> {
    raw: &'a str,
    check: &'a UrlCheck,
    stage: UrlStage,
}

/// Asks `who` (already quoted for a sentence) consents to `link`, and carries the answer out.
fn answer_link(
    screen: &Screen,
    events: &mut Events,
    who: &str,
    id: RequestId,
    link: &Link<'_>,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    show_link(screen, link.check, link.raw);
    let answer = match ask(who, link) {
        Ok(answer) => answer,
        Err(Stop::Escaped) => Answer::Cancelled,
        Err(Stop::Closed(notice)) => {
            tell_closed(screen, who, &notice);
            return Ok(());
        }
        Err(Stop::Terminal(e)) => {
            sink.answer(id, Answer::Cancelled);
            return Err(TuiError::from(e));
        }
    };
    if let Some(notice) = events.poll_closed(id) {
        tell_closed(screen, who, &notice);
        return Ok(());
    }
    let consenting = matches!(answer, Answer::Accepted(_));
    if consenting && link.stage == UrlStage::Consent {
        screen.line(styled(Style::Dim, "   Checking where the link points…"));
    }
    sink.answer(id, answer);
    match events.outcome(id) {
        Some(Outcome::Replied(Reply::Consented)) => {
            if link.stage == UrlStage::Waiting {
                screen.ok(&format!("Told {who} you are done; it goes on."));
                return Ok(());
            }
            let to_open = link
                .check
                .display
                .as_ref()
                .map_or(link.raw, |d| d.full.as_str());
            screen.ok(&format!(
                "Opening the link in your browser; {who} was told you consented."
            ));
            launch(screen, to_open);
        }
        Some(Outcome::Replied(Reply::Answered(a))) => {
            screen.notice(&format!(
                "{}; {who} was told. Nothing was opened.",
                if a == Answer::Declined {
                    "Declined"
                } else {
                    "Cancelled"
                }
            ));
        }
        Some(Outcome::Replied(
            Reply::Error { message, .. } | Reply::Sampled { text: message, .. },
        )) => screen.error(&format!(
            "The link was not opened: {}",
            plain_line(&message)
        )),
        Some(Outcome::Invalid(_)) => {
            // Consent carries no content: the engine has nothing to refuse in it.
            screen.error("The host refused the answer; nothing was opened.");
        }
        Some(Outcome::Closed(notice)) => tell_closed(screen, who, &notice),
        None => return Err(TuiError::HostStopped),
    }
    Ok(())
}

/// The link in full, the host with its registrable domain in bold, both forms of an
/// internationalised name, and every warning.
fn show_link(screen: &Screen, check: &UrlCheck, raw: &str) {
    match &check.display {
        Some(d) => {
            screen.line(format!("  Link:   {}", plain_line(&d.full)));
            let host = match &d.registrable_domain {
                Some(domain) => format!(
                    "{}{}{}",
                    plain_line(&d.host_prefix),
                    styled(Style::Strong, &plain_line(domain)),
                    plain_line(&d.host_suffix)
                ),
                None => styled(Style::Strong, &plain_line(&d.host_unicode)),
            };
            screen.line(format!("  Site:   {host}"));
            if d.host_ascii != d.host_unicode {
                screen.line(format!(
                    "          (spelled {} in ASCII)",
                    plain_line(&d.host_ascii)
                ));
            }
        }
        None => screen.line(format!("  Link:   {}", plain_line(raw))),
    }
    for reason in &check.reasons {
        let text = plain_line(&reason.to_string());
        match reason.verdict() {
            Verdict::Refuse => screen.error(&text),
            Verdict::Flag => screen.notice(&text),
            Verdict::Allow => screen.line(styled(Style::Dim, &format!("  {text}"))),
        }
    }
}

fn ask(who: &str, link: &Link<'_>) -> Result<Answer<Content>, Stop> {
    // A flagged link (a look-alike name, mixed scripts…) is named by its ASCII form, the one
    // that cannot pass for another site, and declining comes first: Enter declines.
    let flagged = link.check.verdict == Verdict::Flag && link.stage == UrlStage::Consent;
    let first = match link.stage {
        UrlStage::Consent if flagged => Choice {
            label: format!(
                "Open {} in my browser",
                link.check
                    .display
                    .as_ref()
                    .map_or("the link", |d| d.host_ascii.as_str())
            ),
            answer: Answer::Accepted(Content::new()),
        },
        UrlStage::Consent => Choice {
            label: "Open the link in my browser".into(),
            answer: Answer::Accepted(Content::new()),
        },
        UrlStage::Waiting => Choice {
            label: "I am done in the browser: go on".into(),
            answer: Answer::Accepted(Content::new()),
        },
    };
    let decline = Choice {
        label: "Decline: do not open it".into(),
        answer: Answer::Declined,
    };
    let cancel = Choice {
        label: "Cancel: dismiss without answering".into(),
        answer: Answer::Cancelled,
    };
    let choices = if flagged {
        vec![decline, first, cancel]
    } else {
        vec![first, decline, cancel]
    };
    let message = match link.stage {
        UrlStage::Consent if flagged => {
            format!("{who} asks you to open this link, which the host flagged. Open it?")
        }
        UrlStage::Consent => format!("{who} asks you to open this link. Open it?"),
        UrlStage::Waiting => format!("{who} is waiting for you to finish in the browser."),
    };
    let chosen = Select::new(&message, choices)
        .with_help_message("↑↓ to move, Enter to choose, Esc to cancel the request")
        .without_filtering()
        .prompt()?;
    Ok(chosen.answer)
}

/// Hands the link to the system's opener, and prints it either way.
pub(crate) fn open(screen: &Screen, server: &str, link: &str) {
    screen.ok(&format!(
        "Opening the link in your browser; \"{server}\" was told you consented."
    ));
    launch(screen, link);
}

/// Prints `link` and hands it to the system's opener (`$BROWSER`, else `xdg-open` or `open`).
pub(crate) fn launch(screen: &Screen, link: &str) {
    screen.line(format!("  {}", plain_line(link)));
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let program = opener.unwrap_or_else(|| {
        if cfg!(target_os = "macos") {
            "open".to_owned()
        } else {
            "xdg-open".to_owned()
        }
    });
    let started = Command::new(&program)
        .arg(link)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    if let Err(e) = started {
        screen.notice(&format!(
            "Could not start `{}` ({e}); open the link above yourself.",
            plain_line(&program)
        ));
    }
}

fn tell_closed(screen: &Screen, who: &str, notice: &Notice) {
    screen.notice(&format!(
        "The request from {who} was closed: {}. Nothing was opened.",
        plain_line(notice.text.trim_end_matches('.'))
    ));
}
