//! What changed between a recorded call and the same call made again: in what the server asked
//! (kind, message, schema, view, link origin, sampling conversation), in what became of each
//! request, and in how the call ended (its result, field by field).
//!
//! What it deliberately does not do: judge whether a difference matters (the caller ignores
//! pointers it names), or compare what the person was shown beyond what a recording keeps.

use serde_json::Value;

use super::{Asked, RecordedCall, RecordedOutcome, RecordedRequest};

/// The most differences reported inside one JSON value (a result or a schema); beyond it, one
/// more line says how many were left out.
const MAX_JSON_DIFFERENCES: usize = 20;

/// One difference, in a sentence: where (`request 2`, `the result`, `the call`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Where: `request N`, `the call` or `the result`.
    pub place: String,
    /// What changed, in a sentence.
    pub what: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.what)
    }
}

/// A part of a call's result that a replay does not compare (a time, a random id), as a JSON
/// Pointer into the `CallToolResult` in which `*` stands for any one key or index:
/// `/content/*/text`, `/structuredContent/generatedAt`.
///
/// ```
/// use interlude_headless::recording::IgnorePointer;
/// let p = IgnorePointer::parse("/content/*/text").unwrap();
/// assert!(p.covers(&["content", "0", "text"]));
/// assert!(p.covers(&["content", "0", "text", "more"]));
/// assert!(!p.covers(&["content", "0"]));
/// assert!(IgnorePointer::parse("content").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnorePointer {
    segments: Vec<String>,
}

impl IgnorePointer {
    /// Reads a pointer: empty (the whole result) or `/`-separated segments, `~1` for `/` and
    /// `~0` for `~` inside one, as JSON Pointer has them.
    pub fn parse(text: &str) -> Result<IgnorePointer, String> {
        if text.is_empty() {
            return Ok(IgnorePointer {
                segments: Vec::new(),
            });
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(format!(
                "`{text}` is not a JSON Pointer: it must start with `/` (e.g. /content/0/text)"
            ));
        };
        Ok(IgnorePointer {
            segments: rest
                .split('/')
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .collect(),
        })
    }

    /// Whether the value at `path` (segments from the result's root) is ignored.
    pub fn covers<S: AsRef<str>>(&self, path: &[S]) -> bool {
        path.len() >= self.segments.len()
            && self
                .segments
                .iter()
                .zip(path)
                .all(|(want, got)| want == "*" || want == got.as_ref())
    }
}

/// Every difference between `before` (recorded) and `now` (the same call made again), in
/// order: the requests one by one, then the call's end. Parts of the result under an `ignore`
/// pointer are not compared.
///
/// ```
/// use interlude_headless::recording::{compare, Recording};
/// let before = Recording::from_json(r#"{"format": "interlude-recording", "version": 1,
///   "calls": [{"server": "s", "tool": "t",
///     "outcome": {"status": "completed", "result": {"content": [{"type": "text", "text": "hi"}]}}}]}"#)
///     .unwrap().calls.remove(0);
/// let mut now = before.clone();
/// now.outcome = interlude_headless::recording::RecordedOutcome::Completed {
///     result: serde_json::json!({"content": [{"type": "text", "text": "hello"}]}),
/// };
/// let differences = compare(&before, &now, &[]);
/// assert_eq!(differences[0].to_string(),
///     r#"the result: differs at /content/0/text: was "hi", now "hello""#);
/// ```
pub fn compare(
    before: &RecordedCall,
    now: &RecordedCall,
    ignore: &[IgnorePointer],
) -> Vec<Difference> {
    let mut out = Vec::new();
    let count = before.requests.len().max(now.requests.len());
    for i in 0..count {
        let place = format!("request {}", i + 1);
        match (before.requests.get(i), now.requests.get(i)) {
            (Some(b), Some(n)) => requests(&place, b, n, &mut out),
            (Some(b), None) => out.push(Difference {
                place,
                what: format!(
                    "was asked before ({} {}), not now",
                    b.asked.kind(),
                    quoted(b.asked.message())
                ),
            }),
            (None, Some(n)) => out.push(Difference {
                place,
                what: format!(
                    "is new: {} {} (answered {})",
                    n.asked.kind(),
                    quoted(n.asked.message()),
                    n.answer.action()
                ),
            }),
            (None, None) => {}
        }
    }
    match (&before.outcome, &now.outcome) {
        (RecordedOutcome::Completed { result: b }, RecordedOutcome::Completed { result: n }) => {
            let mut found = Vec::new();
            json(&mut Vec::new(), b, n, ignore, &mut found);
            push_json("the result", "differs", found, &mut out);
        }
        (b, n) if b.status() != n.status() => out.push(Difference {
            place: "the call".into(),
            what: format!("{} before, {} now{}", b.status(), n.status(), reason_of(n)),
        }),
        // Failed or cancelled both times: the sentence may name a port or a time; the status is
        // what a replay holds the server to.
        _ => {}
    }
    out
}

fn reason_of(outcome: &RecordedOutcome) -> String {
    match outcome {
        RecordedOutcome::Completed { .. } => String::new(),
        RecordedOutcome::Failed { reason } | RecordedOutcome::Cancelled { reason } => {
            format!(": {reason}")
        }
    }
}

/// The differences between two requests at the same place.
fn requests(place: &str, b: &RecordedRequest, n: &RecordedRequest, out: &mut Vec<Difference>) {
    let mut say = |what: String| {
        out.push(Difference {
            place: place.to_owned(),
            what,
        });
    };
    if b.asked.kind() != n.asked.kind() {
        say(format!(
            "was a {} ({}), now a {} ({})",
            b.asked.kind(),
            quoted(b.asked.message()),
            n.asked.kind(),
            quoted(n.asked.message())
        ));
        return;
    }
    match (&b.asked, &n.asked) {
        (
            Asked::Form {
                message: bm,
                requested_schema: bs,
                view: bv,
            },
            Asked::Form {
                message: nm,
                requested_schema: ns,
                view: nv,
            },
        ) => {
            if bm != nm {
                say(format!(
                    "its message was {}, now {}",
                    quoted(bm),
                    quoted(nm)
                ));
            }
            if bv != nv {
                let shown = |v: &Option<String>| {
                    v.as_ref()
                        .map_or_else(|| "a plain form".to_owned(), |v| format!("asked in {v}"))
                };
                say(format!("was {}, now {}", shown(bv), shown(nv)));
            }
            let mut found = Vec::new();
            json(&mut Vec::new(), bs, ns, &[], &mut found);
            let mut schema = Vec::new();
            push_json(place, "its schema differs", found, &mut schema);
            out.extend(schema);
        }
        (
            Asked::Url {
                message: bm,
                origin: bo,
            },
            Asked::Url {
                message: nm,
                origin: no,
            },
        ) => {
            if bm != nm {
                say(format!(
                    "its message was {}, now {}",
                    quoted(bm),
                    quoted(nm)
                ));
            }
            if bo != no {
                say(format!("its link's origin was {bo}, now {no}"));
            }
        }
        (
            Asked::Sampling {
                messages: bm,
                system_prompt: bp,
                max_tokens: bt,
            },
            Asked::Sampling {
                messages: nm,
                system_prompt: np,
                max_tokens: nt,
            },
        ) => {
            if bm != nm {
                say(format!(
                    "its conversation was {}, now {}",
                    short(&Value::from(bm.clone())),
                    short(&Value::from(nm.clone()))
                ));
            }
            if bp != np {
                let p = |p: &Option<String>| p.as_deref().map_or_else(|| "none".into(), quoted);
                say(format!("its system prompt was {}, now {}", p(bp), p(np)));
            }
            if bt != nt {
                say(format!("its token limit was {bt}, now {nt}"));
            }
        }
        _ => {}
    }
    if b.answer.action() != n.answer.action() {
        let why = if n.problems.is_empty() {
            String::new()
        } else {
            format!(
                " (the recorded answer no longer fits: {})",
                n.problems.join("; ")
            )
        };
        out.push(Difference {
            place: place.to_owned(),
            what: format!(
                "was answered {} before, {} now{why}",
                b.answer.action(),
                n.answer.action()
            ),
        });
    }
}

/// Turns the JSON differences found into sentences, at most [`MAX_JSON_DIFFERENCES`].
fn push_json(place: &str, lead: &str, found: Vec<String>, out: &mut Vec<Difference>) {
    let total = found.len();
    for what in found.into_iter().take(MAX_JSON_DIFFERENCES) {
        out.push(Difference {
            place: place.to_owned(),
            what: format!("{lead} {what}"),
        });
    }
    if total > MAX_JSON_DIFFERENCES {
        out.push(Difference {
            place: place.to_owned(),
            what: match total - MAX_JSON_DIFFERENCES {
                1 => "and 1 more difference".to_owned(),
                more => format!("and {more} more differences"),
            },
        });
    }
}

/// The places where `b` and `n` differ, each as `at POINTER: was X, now Y`.
fn json(
    path: &mut Vec<String>,
    b: &Value,
    n: &Value,
    ignore: &[IgnorePointer],
    out: &mut Vec<String>,
) {
    if ignore.iter().any(|p| p.covers(path)) || out.len() > MAX_JSON_DIFFERENCES {
        return;
    }
    match (b, n) {
        (Value::Object(bo), Value::Object(no)) => {
            let mut keys: Vec<&String> = bo.keys().chain(no.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                path.push(key.clone());
                match (bo.get(key), no.get(key)) {
                    (Some(bv), Some(nv)) => json(path, bv, nv, ignore, out),
                    (bv, nv) if !ignore.iter().any(|p| p.covers(path)) => {
                        out.push(at(path, bv, nv));
                    }
                    _ => {}
                }
                path.pop();
            }
        }
        (Value::Array(ba), Value::Array(na)) => {
            for i in 0..ba.len().max(na.len()) {
                path.push(i.to_string());
                match (ba.get(i), na.get(i)) {
                    (Some(bv), Some(nv)) => json(path, bv, nv, ignore, out),
                    (bv, nv) if !ignore.iter().any(|p| p.covers(path)) => {
                        out.push(at(path, bv, nv));
                    }
                    _ => {}
                }
                path.pop();
            }
        }
        // 1 and 1.0 are the same number.
        (Value::Number(bn), Value::Number(nn)) if bn.as_f64() == nn.as_f64() => {}
        _ if b == n => {}
        _ => out.push(at(path, Some(b), Some(n))),
    }
}

fn at(path: &[String], b: Option<&Value>, n: Option<&Value>) -> String {
    let pointer: String = if path.is_empty() {
        "the top".to_owned()
    } else {
        path.iter()
            .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
            .collect()
    };
    let shown = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), short);
    format!("at {pointer}: was {}, now {}", shown(b), shown(n))
}

/// A value as compact JSON, cut at 120 characters.
fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn quoted(text: &str) -> String {
    short(&Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::super::RecordedAnswer;
    use super::*;
    use serde_json::json;

    fn form(message: &str, schema: Value, answer: RecordedAnswer) -> RecordedRequest {
        RecordedRequest {
            asked: Asked::Form {
                message: message.into(),
                requested_schema: schema,
                view: None,
            },
            answer,
            problems: Vec::new(),
        }
    }

    fn call(requests: Vec<RecordedRequest>, result: Value) -> RecordedCall {
        RecordedCall {
            server: "s".into(),
            tool: "t".into(),
            arguments: None,
            requests,
            outcome: RecordedOutcome::Completed { result },
        }
    }

    fn accept() -> RecordedAnswer {
        RecordedAnswer::Accept {
            content: serde_json::Map::new(),
        }
    }

    #[test]
    fn the_same_call_has_no_difference() {
        let c = call(
            vec![form("Name?", json!({"type": "object"}), accept())],
            json!({"content": [1.0]}),
        );
        let mut again = c.clone();
        again.outcome = RecordedOutcome::Completed {
            result: json!({"content": [1]}),
        };
        assert_eq!(compare(&c, &again, &[]), []);
    }

    #[test]
    fn a_different_question_is_named_with_its_field() {
        let before = call(
            vec![form(
                "Name?",
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                accept(),
            )],
            json!({}),
        );
        let now = call(
            vec![
                form(
                    "Full name?",
                    json!({"type": "object", "properties": {"name": {"type": "string"},
                           "phone": {"type": "string"}}}),
                    RecordedAnswer::Cancel,
                ),
                form("More?", json!({}), RecordedAnswer::Decline),
            ],
            json!({}),
        );
        let said: Vec<String> = compare(&before, &now, &[])
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            said,
            [
                r#"request 1: its message was "Name?", now "Full name?""#,
                r#"request 1: its schema differs at /properties/phone: was absent, now {"type":"string"}"#,
                "request 1: was answered accept before, cancel now",
                r#"request 2: is new: form "More?" (answered decline)"#,
            ]
        );
    }

    #[test]
    fn ignored_parts_of_a_result_are_not_compared() {
        let before = call(
            vec![],
            json!({"content": [{"text": "at 10:00", "type": "text"}]}),
        );
        let now = call(
            vec![],
            json!({"content": [{"text": "at 10:01", "type": "text"}]}),
        );
        assert_eq!(compare(&before, &now, &[]).len(), 1);
        let ignore = [IgnorePointer::parse("/content/*/text").unwrap()];
        assert_eq!(compare(&before, &now, &ignore), []);
    }

    #[test]
    fn a_call_that_ends_otherwise_says_how() {
        let before = call(vec![], json!({}));
        let mut now = before.clone();
        now.outcome = RecordedOutcome::Failed {
            reason: "the server exited".into(),
        };
        assert_eq!(
            compare(&before, &now, &[])[0].to_string(),
            "the call: completed before, failed now: the server exited"
        );
    }
}
