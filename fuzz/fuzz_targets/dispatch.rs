//! The server toolkit's request dispatch: a server of `interlude_server` (an `AskServer` whose
//! `#[asking]` tools ask one or two questions, and a plain tool) served by rmcp in this
//! process, fed arbitrary JSON-RPC from a client — a handshake of either era or none, tool
//! calls with arbitrary arguments, answers and `requestState`, answers to the server's own
//! `elicitation/create`, cancellations, raw JSON and raw lines. It must answer or drop, never
//! panic (a panic in any of its tasks aborts the target).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use interlude_fuzz::server::{TOOLS, input_required, mrtr_call, mrtr_meta, session};
use interlude_fuzz::{Content, Json, as_json};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

#[derive(Debug, Arbitrary)]
enum Step {
    /// `initialize` (a 2025 version, or the given text) and `notifications/initialized`.
    Initialize {
        version: u8,
        form: bool,
        url: bool,
        interaction: bool,
    },
    /// A 2026-07-28 `tools/call` with the request metadata of that era.
    MrtrCall {
        tool: u8,
        arguments: Option<Content>,
        responses: Option<Responses>,
        state: StateChoice,
    },
    /// A `tools/call` without that metadata (a 2025 session's).
    PushCall {
        tool: u8,
        arguments: Option<Content>,
    },
    /// Answer the server's latest request (an `elicitation/create`) or another id.
    Answer {
        which: u8,
        reply: ElicitReply,
    },
    Cancel {
        id: u8,
    },
    Discover,
    ListTools {
        mrtr: bool,
    },
    Ping,
    Raw(Json),
    Line(String),
}

#[derive(Debug, Arbitrary)]
enum Responses {
    /// Answers under the keys the server asked last.
    Asked(Vec<ElicitReply>),
    Any(Json),
}

#[derive(Debug, Arbitrary)]
enum StateChoice {
    None,
    /// The state the server sealed last.
    Last,
    Text(String),
}

#[derive(Debug, Arbitrary)]
enum ElicitReply {
    Accept(Content),
    AcceptName(String),
    Decline,
    Cancel,
    Error(i32),
    Any(Json),
}

impl ElicitReply {
    fn result(self) -> Value {
        match self {
            ElicitReply::Accept(c) => json!({"action": "accept", "content": Value::Object(c.0)}),
            ElicitReply::AcceptName(n) => json!({"action": "accept", "content": {"name": n}}),
            ElicitReply::Decline => json!({"action": "decline"}),
            ElicitReply::Cancel => json!({"action": "cancel"}),
            ElicitReply::Error(_) | ElicitReply::Any(_) => json!({}),
        }
    }

    fn message(self, id: Value) -> Value {
        match self {
            ElicitReply::Error(code) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "no"}})
            }
            ElicitReply::Any(v) => json!({"jsonrpc": "2.0", "id": id, "result": v.0}),
            other => json!({"jsonrpc": "2.0", "id": id, "result": other.result()}),
        }
    }
}

const VERSIONS: &[&str] = &[
    "2025-06-18",
    "2025-11-25",
    "2025-03-26",
    "2024-11-05",
    "2026-07-28",
    "",
];

/// Puts the session's last sealed state for every `"$STATE"` and the id of the server's last
/// request for every `"$ASKED"` in a seed's message.
fn fill(v: &mut Value, state: Option<&str>, asked: &Value) {
    match v {
        Value::String(s) if s == "$STATE" => {
            *v = state.map_or(Value::Null, |s| Value::String(s.to_owned()));
        }
        Value::String(s) if s == "$ASKED" => *v = asked.clone(),
        Value::Array(items) => items.iter_mut().for_each(|i| fill(i, state, asked)),
        Value::Object(m) => m.values_mut().for_each(|i| fill(i, state, asked)),
        _ => {}
    }
}

/// A seed: the messages a client sends, in order (the server runs until idle after each), with
/// `"$STATE"` and `"$ASKED"` filled in (see [`fill`]); a string is sent as a raw line.
fn scripted(messages: Vec<Value>) {
    session(|mut s| async move {
        let mut state: Option<String> = None;
        let mut asked = Value::Null;
        for mut m in messages.into_iter().take(24) {
            fill(&mut m, state.as_deref(), &asked);
            match &m {
                Value::String(line) => s.send_line(line).await,
                other => s.send(other).await,
            }
            for r in s.settle().await {
                if let Some((sealed, _)) = input_required(&r) {
                    state = Some(sealed);
                }
                if r.get("method").is_some()
                    && let Some(id) = r.get("id")
                {
                    asked = id.clone();
                }
            }
        }
    });
}

fuzz_target!(|data: &[u8]| {
    if let Some(Value::Array(messages)) = as_json(data) {
        scripted(messages);
        return;
    }
    if let Ok(steps) = Vec::<Step>::arbitrary_take_rest(Unstructured::new(data)) {
        run(steps);
    }
});

fn run(steps: Vec<Step>) {
    session(|mut s| async move {
        let mut next_id = 100u64;
        let mut last_state: Option<(String, Vec<String>)> = None;
        for step in steps.into_iter().take(24) {
            next_id += 1;
            let id = next_id;
            match step {
                Step::Initialize {
                    version,
                    form,
                    url,
                    interaction,
                } => {
                    let mut caps = serde_json::Map::new();
                    if form || url {
                        let mut e = serde_json::Map::new();
                        if form {
                            e.insert("form".into(), json!({}));
                        }
                        if url {
                            e.insert("url".into(), json!({}));
                        }
                        caps.insert("elicitation".into(), Value::Object(e));
                    }
                    if interaction {
                        caps.insert(
                            "userInteraction".into(),
                            json!({"types": ["ua", "prompt"], "progress": true}),
                        );
                    }
                    let v = VERSIONS[usize::from(version) % VERSIONS.len()];
                    s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
                        "params": {"protocolVersion": v, "capabilities": caps,
                                   "clientInfo": {"name": "fuzz", "version": "1"}}}))
                        .await;
                    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                        .await;
                }
                Step::MrtrCall {
                    tool,
                    arguments,
                    responses,
                    state,
                } => {
                    let responses = responses.map(|r| match r {
                        Responses::Asked(replies) => {
                            let keys = last_state
                                .as_ref()
                                .map(|(_, k)| k.clone())
                                .unwrap_or_default();
                            let mut m = serde_json::Map::new();
                            for (k, r) in keys.into_iter().zip(replies) {
                                m.insert(k, r.result());
                            }
                            Value::Object(m)
                        }
                        Responses::Any(v) => v.0,
                    });
                    let state = match state {
                        StateChoice::None => None,
                        StateChoice::Last => last_state.as_ref().map(|(s, _)| s.clone()),
                        StateChoice::Text(t) => Some(t),
                    };
                    let call = mrtr_call(
                        id,
                        TOOLS[usize::from(tool) % TOOLS.len()],
                        arguments.map(|a| a.0),
                        responses,
                        state.as_deref(),
                    );
                    s.send(&call).await;
                }
                Step::PushCall { tool, arguments } => {
                    let mut params = serde_json::Map::new();
                    params.insert("name".into(), TOOLS[usize::from(tool) % TOOLS.len()].into());
                    if let Some(a) = arguments {
                        params.insert("arguments".into(), Value::Object(a.0));
                    }
                    s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                                   "params": params}))
                        .await;
                }
                Step::Answer { which, reply } => {
                    let asked: Vec<Value> = s
                        .received
                        .iter()
                        .filter(|m| m.get("method").is_some())
                        .filter_map(|m| m.get("id").cloned())
                        .collect();
                    let target = match asked.len() {
                        0 => json!(which),
                        n => asked[usize::from(which) % n].clone(),
                    };
                    s.send(&reply.message(target)).await;
                }
                Step::Cancel { id: which } => {
                    s.send(
                        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                   "params": {"requestId": 100 + u64::from(which),
                                              "reason": "fuzz"}}),
                    )
                    .await;
                }
                Step::Discover => {
                    s.send(
                        &json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
                                   "params": {"_meta": mrtr_meta(true)}}),
                    )
                    .await;
                }
                Step::ListTools { mrtr } => {
                    let params = if mrtr {
                        json!({"_meta": mrtr_meta(false)})
                    } else {
                        json!({})
                    };
                    s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
                                   "params": params}))
                        .await;
                }
                Step::Ping => {
                    s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
                        .await;
                }
                Step::Raw(v) => s.send(&v.0).await,
                Step::Line(l) => s.send_line(&l).await,
            }
            for m in s.settle().await {
                if let Some(found) = input_required(&m) {
                    last_state = Some(found);
                }
            }
        }
    });
}
