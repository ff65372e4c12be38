//! Answering a form on the terminal: the message as plain text, the fields, a review of what
//! would be sent, and the final choice (accept, edit, decline, cancel). Then it waits for what
//! the engine made of the answer: sent, refused as invalid (the person corrects the fields
//! named), or closed.

use std::fmt;

use inquire::Select;
use interlude_host::{
    Answer, AnswerSink, FormRequest,
    schema::{Content, FieldError, FormSchema},
};

use super::{tell_closed, tell_reply};
use crate::TuiError;
use crate::form::{
    Stop, all_fields, display_value, fields_in_error, fill, review_lines, show_errors,
};
use crate::render::{Screen, Style, plain_line, styled};
use crate::surface::{Events, Outcome};

/// The person's last word on a filled form.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Decision {
    Accept,
    /// Ask these fields again.
    Edit(Vec<usize>),
    Decline,
    Cancel,
}

pub(crate) fn answer_form(
    screen: &Screen,
    events: &mut Events,
    server_name: &str,
    id: interlude_host::RequestId,
    form: FormRequest,
    sink: &AnswerSink,
) -> Result<(), TuiError> {
    let server = plain_line(server_name);
    form_hint(screen, &form);
    let schema = form.schema;
    let mut values: Content = form.prefill;
    let mut todo = all_fields(&schema);
    let mut errors: Vec<FieldError> = Vec::new();
    loop {
        let step = fill(&schema, &mut values, &todo, &errors, &mut || {
            events.poll_closed(id)
        })
        .and_then(|()| review(screen, &server, &schema, &values));
        let decision = match step {
            Ok(d) => d,
            Err(Stop::Escaped) => Decision::Cancel,
            Err(Stop::Closed(notice)) => {
                tell_closed(screen, &server, &notice);
                return Ok(());
            }
            Err(Stop::Terminal(e)) => {
                // Leave no server waiting on a terminal that is gone.
                sink.answer(id, Answer::Cancelled);
                return Err(TuiError::from(e));
            }
        };
        errors.clear();
        let answer = match decision {
            Decision::Edit(which) => {
                todo = which;
                continue;
            }
            Decision::Accept => {
                let mut sent = values.clone();
                schema.apply_defaults(&mut sent);
                if let Err(errs) = schema.validate(&sent) {
                    screen.error("Some answers need another look:");
                    show_errors(screen, &errs);
                    todo = fields_in_error(&schema, &errs);
                    errors = errs;
                    continue;
                }
                Answer::Accepted(values.clone())
            }
            Decision::Decline => Answer::Declined,
            Decision::Cancel => Answer::Cancelled,
        };
        if let Some(notice) = events.poll_closed(id) {
            tell_closed(screen, &server, &notice);
            return Ok(());
        }
        sink.answer(id, answer);
        match events.outcome(id) {
            Some(Outcome::Replied(reply)) => {
                tell_reply(screen, &server, &reply);
                return Ok(());
            }
            Some(Outcome::Invalid(errs)) => {
                screen.error(&format!("\"{server}\" cannot be sent these answers yet:"));
                show_errors(screen, &errs);
                todo = fields_in_error(&schema, &errs);
                if todo.is_empty() {
                    todo = all_fields(&schema);
                }
                errors = errs;
            }
            Some(Outcome::Closed(notice)) => {
                tell_closed(screen, &server, &notice);
                return Ok(());
            }
            None => return Err(TuiError::HostStopped),
        }
    }
}

fn form_hint(screen: &Screen, form: &FormRequest) {
    if form.schema.fields.is_empty() {
        screen.line(styled(Style::Dim, "   Esc cancels the request."));
    } else {
        screen.line(styled(
            Style::Dim,
            "   * required · optional fields may be left empty · Esc cancels the request",
        ));
    }
}

/// A choice in the final menu.
#[derive(Debug, Clone)]
struct Choice {
    label: &'static str,
    decision: Decision,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label)
    }
}

/// Shows what would be sent and asks what to do with it.
fn review(
    screen: &Screen,
    server: &str,
    schema: &FormSchema,
    values: &Content,
) -> Result<Decision, Stop> {
    let mut choices = Vec::new();
    if schema.fields.is_empty() {
        choices.push(Choice {
            label: "Accept",
            decision: Decision::Accept,
        });
    } else {
        screen.line(format!("  Review: this is what \"{server}\" will receive"));
        screen.lines(review_lines(schema, values));
        choices.push(Choice {
            label: "Accept: send these answers",
            decision: Decision::Accept,
        });
        choices.push(Choice {
            label: "Edit an answer",
            decision: Decision::Edit(Vec::new()),
        });
    }
    choices.push(Choice {
        label: "Decline: refuse to answer",
        decision: Decision::Decline,
    });
    choices.push(Choice {
        label: "Cancel: dismiss without answering",
        decision: Decision::Cancel,
    });
    let message = format!("Your answer to \"{server}\"?");
    let chosen = Select::new(&message, choices)
        .with_help_message("↑↓ to move, Enter to choose, Esc to cancel the request")
        .without_filtering()
        .prompt()?;
    match chosen.decision {
        Decision::Edit(_) => pick_fields(schema, values).map(Decision::Edit),
        other => Ok(other),
    }
}

/// An entry of the "which answer?" menu.
#[derive(Debug, Clone)]
struct FieldChoice {
    label: String,
    /// `None` = every field.
    index: Option<usize>,
}

impl fmt::Display for FieldChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

fn pick_fields(schema: &FormSchema, values: &Content) -> Result<Vec<usize>, Stop> {
    if schema.fields.len() == 1 {
        return Ok(vec![0]);
    }
    let mut items: Vec<FieldChoice> = schema
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let value = values
                .get(&f.name)
                .map_or_else(|| "(empty)".to_owned(), |v| display_value(f, v));
            FieldChoice {
                label: format!("{}: {value}", plain_line(&f.label())),
                index: Some(i),
            }
        })
        .collect();
    items.push(FieldChoice {
        label: "All of them, in order".into(),
        index: None,
    });
    let chosen = Select::new("Which answer?", items)
        .with_help_message("↑↓ to move, Enter to choose, Esc to cancel the request")
        .prompt()?;
    Ok(match chosen.index {
        Some(i) => vec![i],
        None => all_fields(schema),
    })
}
