//! Answering a sampling request on the terminal: a server asks for a model's reply, and with no
//! model attached the person is the model. The conversation is shown as plain text (who said
//! what, binary parts described), then the system prompt and what the server wishes of the
//! model; the person types the reply line by line (an empty line ends it) and sends it,
//! rewrites it, declines (the server hears the spec's "user rejected" error) or cancels.

use std::fmt;

use inquire::Select;
use interlude_host::{
    Answer, AnswerSink, Reply, RequestId, SamplingPart, SamplingRequest, SamplingRole,
    sampling::REPLY_FIELD, schema::Content,
};
use serde_json::Value;

use super::{tell_closed, tell_reply};
use crate::TuiError;
use crate::form::Stop;
use crate::line::LinePrompt;
use crate::render::{Screen, Style, plain_line, styled};
use crate::surface::{Events, Outcome};

/// The most lines one reply may have.
const MAX_LINES: usize = 200;

pub(crate) fn answer_sampling(
    screen: &Screen,
    events: &mut Events,
    server_name: &str,
    id: RequestId,
    sampling: SamplingRequest,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    let server = plain_line(server_name);
    show(screen, &sampling);
    screen.line(styled(
        Style::Dim,
        "   No model is attached: you write the reply. An empty line ends it · Esc cancels the request",
    ));
    loop {
        let answer = match write_reply(events, id, &sampling) {
            Ok(answer) => answer,
            Err(Stop::Escaped) => Written::Cancel,
            Err(Stop::Closed(notice)) => {
                tell_closed(screen, &server, &notice);
                return Ok(());
            }
            Err(Stop::Terminal(e)) => {
                sink.answer(id, Answer::Cancelled);
                return Err(TuiError::from(e));
            }
        };
        let Some(answer) = answer.into_answer() else {
            continue;
        };
        if let Some(notice) = events.poll_closed(id) {
            tell_closed(screen, &server, &notice);
            return Ok(());
        }
        sink.answer(id, answer);
        match events.outcome(id) {
            Some(Outcome::Replied(Reply::Sampled { model, .. })) => {
                screen.ok(&format!(
                    "Sent your reply to \"{server}\" as the model ({}).",
                    plain_line(&model)
                ));
                return Ok(());
            }
            Some(Outcome::Replied(reply)) => {
                tell_reply(screen, &server, &reply);
                return Ok(());
            }
            Some(Outcome::Invalid(errors)) => {
                for e in errors {
                    screen.error(&plain_line(&e.message));
                }
            }
            Some(Outcome::Closed(notice)) => {
                tell_closed(screen, &server, &notice);
                return Ok(());
            }
            None => return Err(TuiError::HostStopped),
        }
    }
}

/// The conversation and the server's wishes, as plain text.
fn show(screen: &Screen, s: &SamplingRequest) {
    if let Some(system) = &s.system_prompt {
        screen.line(styled(Style::Strong, "  System prompt:"));
        screen.quoted(system);
    }
    for turn in &s.messages {
        let who = match turn.role {
            SamplingRole::User => "User",
            SamplingRole::Assistant => "Assistant (model)",
        };
        screen.line(styled(Style::Strong, &format!("  {who}:")));
        for part in &turn.parts {
            match part {
                SamplingPart::Text(text) => screen.quoted(text),
                SamplingPart::Image { mime_type, bytes } => screen.line(styled(
                    Style::Dim,
                    &format!(
                        "   [image, {}, {bytes} bytes: not shown]",
                        plain_line(mime_type)
                    ),
                )),
                SamplingPart::Audio { mime_type, bytes } => screen.line(styled(
                    Style::Dim,
                    &format!(
                        "   [audio, {}, {bytes} bytes: not played]",
                        plain_line(mime_type)
                    ),
                )),
                SamplingPart::ToolUse { name, input } => screen.quoted(&format!(
                    "[the model called {} with {}]",
                    plain_line(name),
                    plain_line(input)
                )),
                SamplingPart::ToolResult { tool_use_id, text } => screen.quoted(&format!(
                    "[result of call {}] {text}",
                    plain_line(tool_use_id)
                )),
            }
        }
    }
    let mut wishes = vec![format!("at most {} tokens", s.max_tokens)];
    if !s.model_hints.is_empty() {
        wishes.push(format!(
            "models preferred: {}",
            plain_line(&s.model_hints.join(", "))
        ));
    }
    if let Some(t) = s.temperature {
        wishes.push(format!("temperature {t}"));
    }
    if !s.stop_sequences.is_empty() {
        let stops: Vec<String> = s
            .stop_sequences
            .iter()
            .map(|x| plain_line(&format!("{x:?}")))
            .collect();
        wishes.push(format!("stop at {}", stops.join(", ")));
    }
    if let Some(context) = &s.include_context {
        wishes.push(format!("context asked for: {}", plain_line(context)));
    }
    if !s.tools.is_empty() {
        wishes.push(format!(
            "tools offered: {}",
            plain_line(&s.tools.join(", "))
        ));
    }
    screen.line(styled(
        Style::Dim,
        &format!("   The server asks for {}.", wishes.join("; ")),
    ));
}

/// What the person decided.
enum Written {
    Send(String),
    Rewrite,
    Decline,
    Cancel,
}

impl Written {
    fn into_answer(self) -> Option<Answer<Content>> {
        match self {
            Written::Send(text) => {
                let mut content = Content::new();
                content.insert(REPLY_FIELD.to_owned(), Value::String(text));
                Some(Answer::Accepted(content))
            }
            Written::Rewrite => None,
            Written::Decline => Some(Answer::Declined),
            Written::Cancel => Some(Answer::Cancelled),
        }
    }
}

impl From<Answer<Content>> for Written {
    fn from(a: Answer<Content>) -> Self {
        match a {
            Answer::Declined => Written::Decline,
            _ => Written::Cancel,
        }
    }
}

/// A choice in the final menu.
struct Choice {
    label: &'static str,
    send: bool,
    answer: Option<Answer<Content>>,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label)
    }
}

/// The reply, line by line, then what to do with it.
fn write_reply(events: &mut Events, id: RequestId, s: &SamplingRequest) -> Result<Written, Stop> {
    let mut lines: Vec<String> = Vec::new();
    let help = format!(
        "at most {} tokens · an empty line ends the reply",
        s.max_tokens
    );
    loop {
        if let Some(notice) = events.poll_closed(id) {
            return Err(Stop::Closed(notice));
        }
        let label = if lines.is_empty() {
            "Your reply, as the model:"
        } else {
            "…"
        };
        let line = LinePrompt::new(label).with_help_message(&help).prompt()?;
        if line.is_empty() || lines.len() >= MAX_LINES {
            break;
        }
        lines.push(line);
    }
    if let Some(notice) = events.poll_closed(id) {
        return Err(Stop::Closed(notice));
    }
    let text = lines.join("\n");
    let mut choices = Vec::new();
    if !text.trim().is_empty() {
        choices.push(Choice {
            label: "Send this reply",
            send: true,
            answer: None,
        });
    }
    choices.push(Choice {
        label: if text.trim().is_empty() {
            "Write the reply"
        } else {
            "Write it again"
        },
        send: false,
        answer: None,
    });
    choices.push(Choice {
        label: "Decline: send no reply (the server hears you refused)",
        send: false,
        answer: Some(Answer::Declined),
    });
    choices.push(Choice {
        label: "Cancel: dismiss without answering",
        send: false,
        answer: Some(Answer::Cancelled),
    });
    let chosen = Select::new("What now?", choices)
        .with_help_message("↑↓ to move, Enter to choose, Esc to cancel the request")
        .without_filtering()
        .prompt()?;
    Ok(match (chosen.send, chosen.answer) {
        (true, _) => Written::Send(text),
        (false, Some(answer)) => Written::from(answer),
        (false, None) => Written::Rewrite,
    })
}
