//! `interlude_engine::Engine::handle`: admission of every kind's params — typed by rmcp, raw
//! JSON, seed-000 interactions, a view's links — then the person's answers with arbitrary
//! content, URL consent and lookups, withdrawals, app views and their messages, servers going
//! away, in any order.
//!
//! Beyond "no panic": a request is replied to at most once, and an accepted answer that goes
//! back to a server is one the engine let through (it is an object).
#![no_main]

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use arbitrary::{Arbitrary, Result, Unstructured};
use interlude_engine::bridge::{BridgeEffect, ViewConfig};
use interlude_engine::{
    Answer, AppFormInput, CallId, Declared, Effect, ElicitParams, Engine, EngineConfig, Incoming,
    Input, RequestId, ServerId, UrlInput, ViewId, ViewInput,
};
use interlude_fuzz::{
    Content, Json, Schema, Url, ViewMessage, as_json, list, obj, small, value, word,
};
use interlude_protocol::ProtocolEra;
use interlude_protocol::apps::Visibility;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

/// `elicitation/create` params: a form or URL request shaped as the spec has them, or anything.
#[derive(Debug)]
struct Params(Value);

impl<'a> Arbitrary<'a> for Params {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        if u.ratio(1u8, 10u8)? {
            return value(u, 4).map(Params);
        }
        let mut p = Map::new();
        let url = u.ratio(1u8, 3u8)?;
        if u.ratio(3u8, 4u8)? {
            let mode = match u.int_in_range(0..=7u8)? {
                0 => Value::String(word(u)?),
                _ if url => "url".into(),
                _ => "form".into(),
            };
            p.insert("mode".into(), mode);
        }
        if u.ratio(15u8, 16u8)? {
            p.insert("message".into(), Value::String(word(u)?));
        }
        if url {
            p.insert("url".into(), Value::String(Url::arbitrary(u)?.0));
            if u.ratio(7u8, 8u8)? {
                p.insert("elicitationId".into(), Value::String(word(u)?));
            }
        } else if u.ratio(15u8, 16u8)? {
            p.insert("requestedSchema".into(), Schema::arbitrary(u)?.0);
        }
        if u.ratio(1u8, 5u8)? {
            let mut ui = Map::new();
            ui.insert("resourceUri".into(), "ui://fuzz/form.html".into());
            let mut meta = Map::new();
            meta.insert("ui".into(), Value::Object(ui));
            p.insert("_meta".into(), Value::Object(meta));
        }
        if u.ratio(1u8, 8u8)? {
            p.insert(word(u)?, value(u, 2)?);
        }
        Ok(Params(Value::Object(p)))
    }
}

/// `interaction/create` params of the seed-000 draft: a prompt or a `ua`, or anything.
#[derive(Debug)]
struct InteractionParams(Value);

impl<'a> Arbitrary<'a> for InteractionParams {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        if u.ratio(1u8, 10u8)? {
            return value(u, 4).map(InteractionParams);
        }
        let prompt = bool::arbitrary(u)?;
        let mut i = Map::new();
        let mut text = Map::new();
        text.insert("type".into(), "text".into());
        text.insert("text".into(), Value::String(word(u)?));
        i.insert("message".into(), Value::Object(text));
        if prompt {
            i.insert("schema".into(), Schema::arbitrary(u)?.0);
        } else {
            i.insert("url".into(), Value::String(Url::arbitrary(u)?.0));
        }
        let mut p = Map::new();
        p.insert("id".into(), Value::String(word(u)?));
        p.insert("type".into(), if prompt { "prompt" } else { "ua" }.into());
        p.insert("interaction".into(), Value::Object(i));
        Ok(InteractionParams(Value::Object(p)))
    }
}

#[derive(Debug, Arbitrary)]
enum Kind {
    Json(Params),
    Typed(Params),
    Interaction(InteractionParams),
    ViewLink { view: u8, question: u8, url: Url },
    Sampling(Params),
}

#[derive(Debug, Arbitrary)]
enum Reply {
    Accepted(Content),
    Declined,
    Cancelled,
}

#[derive(Debug, Arbitrary)]
enum Step {
    Request {
        server: u8,
        call: Option<u8>,
        mrtr: bool,
        declared: [bool; 6],
        kind: Kind,
    },
    Answer(u8, Reply),
    Withdraw(u8),
    Resolved(u8, Vec<IpAddr>),
    Completed(u8, u8),
    Done(u8),
    Fallback(u8),
    OpenView {
        view: u8,
        server: u8,
        request: Option<u8>,
    },
    FromView(u8, ViewMessage),
    Handshake(u8),
    ViewAnswer(u8, u8, Result<Json, ()>),
    Loading(u8),
    Teardown(u8),
    ServerTools(u8),
    ServerGone(u8),
    Time(u16),
}

/// The request `i` refers to: one the engine was given (most of the time), or an unknown one.
fn request(ids: &[RequestId], i: u8) -> RequestId {
    match ids.len() {
        0 => RequestId(1000 + u64::from(i)),
        n if usize::from(i) < 2 * n => ids[usize::from(i) % n],
        _ => RequestId(1000 + u64::from(i)),
    }
}

fn tools() -> BTreeMap<String, Visibility> {
    BTreeMap::from([
        ("both".to_owned(), Visibility::DEFAULT),
        ("model_only".to_owned(), Visibility::MODEL_ONLY),
        ("app_only".to_owned(), Visibility::APP_ONLY),
    ])
}

/// A seed: a list of steps, each one of
/// `{"request": params, "kind": "json"|"typed"|"interaction", "mrtr": false,
///   "declared": [form, url, apps, app_elicitation, user_interaction], "server": 0}`,
/// `{"answer": {…} | "decline" | "cancel", "to": i}`, `{"resolved": ["ip", …], "to": i}`,
/// `{"withdraw": i}`, `{"done": i}`, `{"completed": i, "server": 0}`, `{"fallback": i}`,
/// `{"open_view": v, "request": i}`, `{"from_view": v, "message": {…}}`, `{"handshake": v}`,
/// `{"view_link": "url", "question": q}`, `{"loading": v}`, `{"server_gone": 0}`,
/// `{"time": ms}` (`i` counts the requests given so far, from 0).
fn from_json(v: &Value) -> Vec<Step> {
    let steps = v.as_array().cloned().unwrap_or_default();
    steps
        .into_iter()
        .filter_map(|s| {
            let to = small(&s, "to");
            let n = |key: &str| small(&s, key);
            if let Some(params) = s.get("request") {
                let declared = list(&s, "declared");
                let flag = |i: usize| declared.get(i) == Some(&Value::Bool(true));
                let kind = match s.get("kind").and_then(Value::as_str) {
                    Some("typed") => Kind::Typed(Params(params.clone())),
                    Some("interaction") => Kind::Interaction(InteractionParams(params.clone())),
                    Some("sampling") => Kind::Sampling(Params(params.clone())),
                    _ => Kind::Json(Params(params.clone())),
                };
                return Some(Step::Request {
                    server: n("server"),
                    call: Some(1),
                    mrtr: s.get("mrtr") == Some(&Value::Bool(true)),
                    declared: [flag(0), flag(1), flag(2), flag(3), flag(4), flag(5)],
                    kind,
                });
            }
            if let Some(a) = s.get("answer") {
                let reply = match a {
                    Value::Object(c) => Reply::Accepted(Content(c.clone())),
                    Value::String(d) if d == "decline" => Reply::Declined,
                    _ => Reply::Cancelled,
                };
                return Some(Step::Answer(to, reply));
            }
            if let Some(url) = s.get("view_link").and_then(Value::as_str) {
                return Some(Step::Request {
                    server: 0,
                    call: None,
                    mrtr: false,
                    declared: [true, true, true, false, false, true],
                    kind: Kind::ViewLink {
                        view: 0,
                        question: n("question"),
                        url: Url(url.to_owned()),
                    },
                });
            }
            Some(if s.get("resolved").is_some() {
                let addresses = list(&s, "resolved")
                    .iter()
                    .filter_map(Value::as_str)
                    .filter_map(|a| a.parse().ok())
                    .collect();
                Step::Resolved(to, addresses)
            } else if s.get("withdraw").is_some() {
                Step::Withdraw(n("withdraw"))
            } else if s.get("done").is_some() {
                Step::Done(n("done"))
            } else if s.get("completed").is_some() {
                Step::Completed(n("server"), n("completed"))
            } else if s.get("fallback").is_some() {
                Step::Fallback(n("fallback"))
            } else if s.get("open_view").is_some() {
                Step::OpenView {
                    view: n("open_view"),
                    server: n("server"),
                    request: s.get("request_of").map(|_| n("request_of")),
                }
            } else if s.get("from_view").is_some() {
                Step::FromView(
                    n("from_view"),
                    ViewMessage(Value::Object(obj(&s, "message"))),
                )
            } else if s.get("handshake").is_some() {
                Step::Handshake(n("handshake"))
            } else if s.get("loading").is_some() {
                Step::Loading(n("loading"))
            } else if s.get("server_gone").is_some() {
                Step::ServerGone(n("server_gone"))
            } else if s.get("time").is_some() {
                Step::Time(u16::from(n("time")) * 100)
            } else {
                return None;
            })
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let steps = match as_json(data) {
        Some(v) => from_json(&v),
        None => match Vec::<Step>::arbitrary_take_rest(Unstructured::new(data)) {
            Ok(steps) => steps,
            Err(_) => return,
        },
    };
    run(steps);
});

fn run(steps: Vec<Step>) {
    let mut engine = Engine::new(EngineConfig::default());
    let mut now = 0u64;
    let mut ids: Vec<RequestId> = Vec::new();
    let mut ids_by_elicitation: Vec<String> = Vec::new();
    let mut replied: HashMap<RequestId, usize> = HashMap::new();
    let mut questions: Vec<(ViewId, u64)> = Vec::new();
    for step in steps.into_iter().take(48) {
        now += 1;
        let input = match step {
            Step::Request {
                server,
                call,
                mrtr,
                declared,
                kind,
            } => {
                let id = RequestId(ids.len() as u64 + 1);
                ids.push(id);
                let params = match kind {
                    Kind::Json(p) => {
                        if let Some(e) = p.0.get("elicitationId").and_then(Value::as_str) {
                            ids_by_elicitation.push(e.to_owned());
                        }
                        ElicitParams::Json(p.0)
                    }
                    Kind::Typed(p) => match serde_json::from_value(p.0.clone()) {
                        Ok(typed) => ElicitParams::Typed(Box::new(typed)),
                        Err(_) => ElicitParams::Json(p.0),
                    },
                    Kind::Interaction(p) => ElicitParams::Interaction(p.0),
                    Kind::Sampling(p) => ElicitParams::Sampling(p.0),
                    Kind::ViewLink {
                        view,
                        question,
                        url,
                    } => {
                        let (view, question) = questions
                            .get(usize::from(question))
                            .copied()
                            .unwrap_or((ViewId(u64::from(view % 4)), u64::from(question)));
                        ElicitParams::ViewLink {
                            view,
                            question,
                            url: url.0,
                        }
                    }
                };
                Input::Request(Incoming {
                    id,
                    server: ServerId(u64::from(server % 3)),
                    server_name: format!("server {}", server % 3),
                    call: call.map(|c| CallId(u64::from(c))),
                    era: if mrtr {
                        ProtocolEra::Mrtr
                    } else {
                        ProtocolEra::Push
                    },
                    declared: Declared {
                        form: declared[0],
                        url: declared[1],
                        apps: declared[2],
                        app_elicitation: declared[3],
                        user_interaction: declared[4],
                        sampling: declared[5],
                    },
                    params,
                })
            }
            Step::Answer(i, reply) => Input::Answer {
                id: request(&ids, i),
                answer: match reply {
                    Reply::Accepted(c) => Answer::Accepted(c.0),
                    Reply::Declined => Answer::Declined,
                    Reply::Cancelled => Answer::Cancelled,
                },
            },
            Step::Withdraw(i) => Input::Withdraw {
                id: request(&ids, i),
                reason: "withdrawn".into(),
            },
            Step::Resolved(i, addresses) => Input::Url(UrlInput::Resolved {
                id: request(&ids, i),
                addresses: addresses.into_iter().take(4).collect(),
            }),
            Step::Completed(server, i) => Input::Url(UrlInput::Completed {
                server: ServerId(u64::from(server % 3)),
                elicitation_id: ids_by_elicitation
                    .get(usize::from(i))
                    .cloned()
                    .unwrap_or_else(|| i.to_string()),
            }),
            Step::Done(i) => Input::Url(UrlInput::Done {
                id: request(&ids, i),
            }),
            Step::Fallback(i) => Input::AppForm(AppFormInput::Fallback {
                id: request(&ids, i),
                reason: "no view".into(),
            }),
            Step::OpenView {
                view,
                server,
                request: r,
            } => {
                let mut config = ViewConfig::for_tests("ui://fuzz/form.html");
                config.renders_question = r.is_some();
                Input::View {
                    view: ViewId(u64::from(view % 4)),
                    input: ViewInput::Open {
                        config: Box::new(config),
                        server: ServerId(u64::from(server % 3)),
                        tools: tools(),
                        request: r.map(|i| request(&ids, i)),
                    },
                }
            }
            Step::FromView(view, m) => Input::View {
                view: ViewId(u64::from(view % 4)),
                input: ViewInput::FromView(m.0),
            },
            Step::Handshake(view) => {
                let view = ViewId(u64::from(view % 4));
                engine.handle(
                    Input::View {
                        view,
                        input: ViewInput::FromView(serde_json::json!({
                            "jsonrpc": "2.0", "id": 0, "method": "ui/initialize",
                            "params": {"appInfo": {"name": "fuzz", "version": "1"},
                                       "appCapabilities": {}, "protocolVersion": "2026-01-26"}})),
                    },
                    now,
                );
                Input::View {
                    view,
                    input: ViewInput::FromView(serde_json::json!({
                        "jsonrpc": "2.0", "method": "ui/notifications/initialized"})),
                }
            }
            Step::ViewAnswer(view, question, reply) => {
                let (view, question) = questions
                    .get(usize::from(question))
                    .copied()
                    .unwrap_or((ViewId(u64::from(view % 4)), u64::from(question)));
                Input::View {
                    view,
                    input: ViewInput::Answer {
                        question,
                        reply: reply.map(|j| j.0).map_err(|()| "declined".to_owned()),
                    },
                }
            }
            Step::Loading(view) => Input::View {
                view: ViewId(u64::from(view % 4)),
                input: ViewInput::Loading,
            },
            Step::Teardown(view) => Input::View {
                view: ViewId(u64::from(view % 4)),
                input: ViewInput::Teardown("fuzz".into()),
            },
            Step::ServerTools(server) => Input::ServerTools {
                server: ServerId(u64::from(server % 3)),
                tools: tools(),
            },
            Step::ServerGone(server) => Input::ServerGone {
                server: ServerId(u64::from(server % 3)),
                reason: "gone".into(),
            },
            Step::Time(ms) => {
                now += u64::from(ms) * 16;
                Input::View {
                    view: ViewId(0),
                    input: ViewInput::Tick,
                }
            }
        };
        interlude_fuzz::debug(&input);
        for effect in engine.handle(input, now) {
            interlude_fuzz::debug(&format_args!("  -> {effect:?}"));
            match effect {
                Effect::Reply { id, reply } => {
                    let n = replied.entry(id).or_default();
                    *n += 1;
                    assert_eq!(*n, 1, "request {id} was replied to twice: {reply:?}");
                }
                Effect::View {
                    view,
                    effect: BridgeEffect::Ask { question, .. },
                } => questions.push((view, question)),
                _ => {}
            }
        }
        let _ = (engine.presented(), engine.pending());
    }
}
