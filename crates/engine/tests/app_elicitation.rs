//! App-rendered elicitation (SEP-3118) in the engine: a form request naming a `ui://` view is
//! shown in that view when both sides negotiated it; the view gets the request unchanged once
//! it is live, its answer is judged by the form's rules outside the view, and whenever the view
//! cannot be used the person gets the plain form — never a silent decline.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;

use interlude_engine::bridge::{BridgeEffect, ViewConfig};
use interlude_engine::{
    Answer, AppFormEffect, AppFormInput, AppStage, CallId, Declared, Effect, Engine, EngineConfig,
    Incoming, Input, Reply, RequestId, RequestKind, ServerId, ViewId, ViewInput,
};
use interlude_protocol::ProtocolEra;
use serde_json::{Value, json};

const SERVER: ServerId = ServerId(1);
const VIEW: ViewId = ViewId(7);

fn params() -> Value {
    json!({
        "mode": "form",
        "message": "Review the portfolio",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "confirmed": {"type": "boolean"},
                "selectedManagerId": {"type": "string", "enum": ["m-ava", "m-bruno"]}
            },
            "required": ["confirmed", "selectedManagerId"]
        },
        "_meta": {"ui": {"resourceUri": "ui://demo/portfolio"}, "dev.interlude/relatedRequestId": 3}
    })
}

fn ask(engine: &mut Engine, declared: Declared, params: Value) -> Vec<Effect> {
    engine.handle(
        Input::Request(Incoming {
            id: RequestId(1),
            server: SERVER,
            server_name: "demo".into(),
            call: Some(CallId(3)),
            era: ProtocolEra::Push,
            declared,
            params: params.into(),
        }),
        0,
    )
}

fn negotiated() -> Declared {
    Declared::FORM_AND_URL.with_app_elicitation()
}

fn open(engine: &mut Engine, now: u64) -> Vec<Effect> {
    engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::Open {
                config: Box::new(ViewConfig::for_tests("ui://demo/portfolio")),
                server: SERVER,
                tools: BTreeMap::new(),
                request: Some(RequestId(1)),
            },
        },
        now,
    )
}

fn from_view(engine: &mut Engine, message: Value, now: u64) -> Vec<Effect> {
    engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::FromView(message),
        },
        now,
    )
}

fn to_view(effects: &[Effect]) -> Vec<Value> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::View {
                effect: BridgeEffect::ToView(m),
                ..
            } => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn reply(effects: &[Effect]) -> Option<Reply> {
    effects.iter().find_map(|e| match e {
        Effect::Reply { reply, .. } => Some(reply.clone()),
        _ => None,
    })
}

/// Starts the view: `ui/initialize` (with `appCapabilities`), then `initialized`. Returns the
/// effects of `initialized` and the id the host gave the forwarded request.
fn start(engine: &mut Engine, app_capabilities: Value) -> (Vec<Effect>, Option<Value>) {
    let init = from_view(
        engine,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
               "params": {"appInfo": {"name": "p", "version": "1"}, "protocolVersion": "2026-01-26",
                          "appCapabilities": app_capabilities}}),
        10,
    );
    let answer = to_view(&init).into_iter().find(|m| m["id"] == 1).unwrap();
    assert_eq!(
        answer["result"]["hostCapabilities"]["elicitation"],
        json!({}),
        "a bound view is offered the capability: {answer}"
    );
    let live = from_view(
        engine,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
        11,
    );
    let forwarded = to_view(&live)
        .into_iter()
        .find(|m| m["method"] == "elicitation/create")
        .map(|m| m["id"].clone());
    (live, forwarded)
}

#[test]
fn a_negotiated_hint_makes_an_app_form_and_anything_else_a_plain_form() {
    let mut engine = Engine::new(EngineConfig::default());
    let effects = ask(&mut engine, negotiated(), params());
    let queued = effects.iter().find_map(|e| match e {
        Effect::Queued(v) => Some(v.clone()),
        _ => None,
    });
    let Some(RequestKind::AppForm(app)) = queued.map(|v| v.kind) else {
        panic!("an app form: {effects:?}");
    };
    assert_eq!(app.resource_uri, "ui://demo/portfolio");
    assert_eq!(app.stage, AppStage::View);
    assert_eq!(app.form.schema.fields.len(), 2);

    // Not negotiated (the host offers apps but not app-rendered questions): a plain form.
    for (declared, params) in [
        (Declared::FORM_AND_URL.with_apps(), params()),
        (Declared::FORM_AND_URL, params()),
        (negotiated(), {
            let mut p = params();
            p["_meta"]["ui"]["resourceUri"] = json!("https://example.com/view.html");
            p
        }),
    ] {
        let mut engine = Engine::new(EngineConfig::default());
        let effects = ask(&mut engine, declared, params);
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::Queued(v) if matches!(v.kind, RequestKind::Form(_)))),
            "{declared:?}: {effects:?}"
        );
    }
}

#[test]
fn the_live_view_gets_the_request_unchanged_and_its_valid_answer_reaches_the_server() {
    let mut engine = Engine::new(EngineConfig::default());
    ask(&mut engine, negotiated(), params());
    open(&mut engine, 5);
    let (live, forwarded) = start(&mut engine, json!({"elicitation": {}}));
    let request = to_view(&live)
        .into_iter()
        .find(|m| m["method"] == "elicitation/create")
        .expect("the request is forwarded once the view is live");
    let mut sent = request["params"].clone();
    assert_eq!(sent, params(), "forwarded unchanged");
    sent["_meta"].as_object_mut().unwrap().clear();

    let answered = from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": forwarded.unwrap(),
               "result": {"action": "accept", "content": {"confirmed": true, "selectedManagerId": "m-bruno"}}}),
        20,
    );
    let Some(Reply::Answered(Answer::Accepted(content))) = reply(&answered) else {
        panic!("the answer goes to the server: {answered:?}");
    };
    assert_eq!(content["selectedManagerId"], "m-bruno");
    // The view is torn down (and not told its own answer was cancelled).
    let messages = to_view(&answered);
    assert!(
        messages
            .iter()
            .any(|m| m["method"] == "ui/resource-teardown"),
        "{messages:?}"
    );
    assert!(
        !messages
            .iter()
            .any(|m| m["method"] == "notifications/cancelled")
    );
}

#[test]
fn an_answer_outside_the_schema_is_not_sent_and_the_view_is_told_why() {
    let mut engine = Engine::new(EngineConfig::default());
    ask(&mut engine, negotiated(), params());
    open(&mut engine, 5);
    let (_, forwarded) = start(&mut engine, json!({"elicitation": {}}));
    let refused = from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": forwarded.clone().unwrap(),
               "result": {"action": "accept", "content": {"confirmed": "yes", "selectedManagerId": "m-zed"}}}),
        20,
    );
    assert_eq!(reply(&refused), None, "nothing reaches the server");
    let errors = refused
        .iter()
        .find_map(|e| match e {
            Effect::Invalid { errors, .. } => Some(errors.clone()),
            _ => None,
        })
        .expect("the surface hears it");
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert!(
        fields.contains(&"confirmed") && fields.contains(&"selectedManagerId"),
        "{fields:?}"
    );
    let again = to_view(&refused)
        .into_iter()
        .find(|m| m["method"] == "elicitation/create")
        .expect("the view is asked again");
    assert_ne!(again["id"], forwarded.unwrap(), "a new request");
    let told = &again["params"]["_meta"]["dev.interlude/answerErrors"];
    assert_eq!(told.as_array().map(Vec::len), Some(errors.len()), "{told}");
    assert_eq!(
        again["params"]["_meta"]["ui"]["resourceUri"],
        "ui://demo/portfolio"
    );

    // An unknown action is refused the same way.
    let odd = from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": again["id"], "result": {"action": "maybe"}}),
        30,
    );
    assert_eq!(reply(&odd), None);
    assert!(
        odd.iter()
            .any(|e| matches!(e, Effect::Invalid { errors, .. } if errors[0].field == "action"))
    );
}

/// An accept with no content from the view is judged by the same path as a surface's answer:
/// the required fields are missing, nothing reaches the server, and the view is asked again
/// with the reasons (before the kinds were modules, the view was not told).
#[test]
fn an_empty_accept_from_the_view_is_judged_like_any_answer_and_the_view_is_told_why() {
    let mut engine = Engine::new(EngineConfig::default());
    ask(&mut engine, negotiated(), params());
    open(&mut engine, 5);
    let (_, forwarded) = start(&mut engine, json!({"elicitation": {}}));
    let refused = from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": forwarded.clone().unwrap(), "result": {"action": "accept"}}),
        20,
    );
    assert_eq!(reply(&refused), None, "nothing reaches the server");
    assert!(
        refused
            .iter()
            .any(|e| matches!(e, Effect::Invalid { errors, .. }
            if errors.iter().any(|e| e.field == "confirmed"))),
        "{refused:?}"
    );
    let again = to_view(&refused)
        .into_iter()
        .find(|m| m["method"] == "elicitation/create")
        .expect("the view is asked again");
    let told = &again["params"]["_meta"]["dev.interlude/answerErrors"];
    assert!(
        told.as_array()
            .is_some_and(|e| e.iter().any(|e| e["field"] == "confirmed")),
        "{told}"
    );
    // Its valid answer then goes through, with the same request still pending.
    let answered = from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": again["id"],
               "result": {"action": "accept", "content": {"confirmed": true, "selectedManagerId": "m-ava"}}}),
        30,
    );
    assert!(
        matches!(reply(&answered), Some(Reply::Answered(Answer::Accepted(c))) if c["confirmed"] == true)
    );
}

#[test]
fn a_view_without_the_capability_gives_way_to_the_plain_form() {
    let mut engine = Engine::new(EngineConfig::default());
    ask(&mut engine, negotiated(), params());
    open(&mut engine, 5);
    let (live, forwarded) = start(&mut engine, json!({}));
    assert_eq!(forwarded, None, "nothing is forwarded to it");
    assert!(
        live.iter()
            .any(|e| matches!(e, Effect::AppForm(AppFormEffect::Fallback { id: RequestId(1), reason }) if reason.contains("appCapabilities.elicitation"))),
        "{live:?}"
    );
    assert!(
        to_view(&live)
            .iter()
            .any(|m| m["method"] == "ui/resource-teardown")
    );
    assert_eq!(reply(&live), None, "never a silent decline");
    // The person answers the plain form.
    let answered = engine.handle(
        Input::Answer {
            id: RequestId(1),
            answer: Answer::Declined,
        },
        40,
    );
    assert_eq!(reply(&answered), Some(Reply::Answered(Answer::Declined)));
}

#[test]
fn a_view_that_does_not_start_in_time_gives_way_to_the_plain_form() {
    let config = EngineConfig {
        app_start_ms: 1_000,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(config);
    let asked = ask(&mut engine, negotiated(), params());
    assert!(asked.contains(&Effect::Present(RequestId(1))));
    let opened = open(&mut engine, 100);
    assert!(
        !opened.iter().any(|e| matches!(
            e,
            Effect::View {
                effect: BridgeEffect::Wake { .. },
                ..
            }
        )),
        "no clock before a surface loads the view: {opened:?}"
    );
    // Nobody frames the view for a long while (no page open, a terminal asking the person
    // where to answer): that is no failure of the view.
    let idle = engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::Tick,
        },
        60_000,
    );
    assert!(
        !idle
            .iter()
            .any(|e| matches!(e, Effect::AppForm(AppFormEffect::Fallback { .. }))),
        "{idle:?}"
    );
    let loading = engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::Loading,
        },
        60_000,
    );
    let Some(at_ms) = loading.iter().find_map(|e| match e {
        Effect::View {
            effect: BridgeEffect::Wake { at_ms },
            ..
        } => Some(*at_ms),
        _ => None,
    }) else {
        panic!("a deadline is set: {loading:?}");
    };
    assert_eq!(at_ms, 61_000);
    let early = engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::Tick,
        },
        60_500,
    );
    assert!(
        !early
            .iter()
            .any(|e| matches!(e, Effect::AppForm(AppFormEffect::Fallback { .. })))
    );
    let late = engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::Tick,
        },
        at_ms,
    );
    assert!(
        late.iter().any(
            |e| matches!(e, Effect::AppForm(AppFormEffect::Fallback { reason, .. }) if reason.contains("did not start"))
        ),
        "{late:?}"
    );
    assert!(late.iter().any(|e| matches!(
        e,
        Effect::View {
            effect: BridgeEffect::Destroy,
            ..
        }
    )));
}

#[test]
fn the_person_cancelling_from_the_host_reaches_the_server_and_the_view() {
    let mut engine = Engine::new(EngineConfig::default());
    ask(&mut engine, negotiated(), params());
    open(&mut engine, 5);
    let (_, forwarded) = start(&mut engine, json!({"elicitation": {}}));
    let cancelled = engine.handle(
        Input::Answer {
            id: RequestId(1),
            answer: Answer::Cancelled,
        },
        50,
    );
    assert_eq!(reply(&cancelled), Some(Reply::Answered(Answer::Cancelled)));
    let messages = to_view(&cancelled);
    let notice = messages
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("the view hears it");
    assert_eq!(notice["params"]["requestId"], forwarded.clone().unwrap());
    assert!(
        messages
            .iter()
            .any(|m| m["method"] == "ui/resource-teardown")
    );
    // A late answer from the view is dropped.
    let late = from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": forwarded.unwrap(), "result": {"action": "accept"}}),
        60,
    );
    assert_eq!(reply(&late), None);
}

#[test]
fn a_view_for_a_request_already_gone_never_opens() {
    let mut engine = Engine::new(EngineConfig::default());
    ask(&mut engine, negotiated(), params());
    engine.handle(
        Input::Withdraw {
            id: RequestId(1),
            reason: "gone".into(),
        },
        2,
    );
    let opened = open(&mut engine, 5);
    assert_eq!(
        opened,
        vec![Effect::View {
            view: VIEW,
            effect: BridgeEffect::Destroy
        }]
    );
}

#[test]
fn the_host_can_fall_back_when_the_view_cannot_load() {
    let mut engine = Engine::new(EngineConfig::default());
    ask(&mut engine, negotiated(), params());
    let fallback = engine.handle(
        Input::AppForm(AppFormInput::Fallback {
            id: RequestId(1),
            reason: "its view could not be read".into(),
        }),
        5,
    );
    assert!(fallback.contains(&Effect::AppForm(AppFormEffect::Fallback {
        id: RequestId(1),
        reason: "its view could not be read".into()
    })));
    // Once only.
    let again = engine.handle(
        Input::AppForm(AppFormInput::Fallback {
            id: RequestId(1),
            reason: "again".into(),
        }),
        6,
    );
    assert!(
        !again
            .iter()
            .any(|e| matches!(e, Effect::AppForm(AppFormEffect::Fallback { .. })))
    );
    // A view opened after the fallback does not bind.
    assert!(open(&mut engine, 7).iter().any(|e| matches!(
        e,
        Effect::View {
            effect: BridgeEffect::Destroy,
            ..
        }
    )));
}
