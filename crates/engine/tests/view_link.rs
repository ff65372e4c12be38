//! A view link in the engine: an app view's `ui/open-link` becomes a request of its own kind,
//! judged by the URL rules and opened only after the person's consent; the view hears how it
//! ended — `{}` once the link was handed to the person, a refusal naming why otherwise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;

use interlude_engine::bridge::{BridgeEffect, PersonQuestion, ViewConfig};
use interlude_engine::{
    Answer, CallId, Declared, Effect, ElicitParams, Engine, EngineConfig, Incoming, Input, Reply,
    RequestId, RequestKind, RequestMethod, ServerId, UrlEffect, UrlInput, ViewId, ViewInput,
};
use interlude_protocol::ProtocolEra;
use interlude_schema::Content;
use serde_json::{Value, json};

const SERVER: ServerId = ServerId(1);
const VIEW: ViewId = ViewId(7);
const LINK: RequestId = RequestId(40);

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

fn from_view(engine: &mut Engine, message: Value) -> Vec<Effect> {
    engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::FromView(message),
        },
        20,
    )
}

/// An engine with a live view of a call (no app form), as the host opens one.
fn live_view() -> Engine {
    let mut engine = Engine::new(EngineConfig::default());
    engine.handle(
        Input::View {
            view: VIEW,
            input: ViewInput::Open {
                config: Box::new(ViewConfig::for_tests("ui://demo/app")),
                server: SERVER,
                tools: BTreeMap::new(),
                request: None,
            },
        },
        0,
    );
    from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
               "params": {"appInfo": {"name": "a", "version": "1"}, "protocolVersion": "2026-01-26",
                          "appCapabilities": {}}}),
    );
    from_view(
        &mut engine,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    engine
}

/// The view asks for `url` (its request id 9); the host turns the bridge's question into a
/// request under id [`LINK`], as `interlude-host` does. Returns that request's effects.
fn view_asks(engine: &mut Engine, url: &str) -> Vec<Effect> {
    let effects = from_view(
        engine,
        json!({"jsonrpc": "2.0", "id": 9, "method": "ui/open-link", "params": {"url": url}}),
    );
    let question = effects
        .iter()
        .find_map(|e| match e {
            Effect::View {
                view,
                effect:
                    BridgeEffect::Ask {
                        question,
                        what: PersonQuestion::OpenLink { url: asked },
                    },
            } if *view == VIEW && asked == url => Some(*question),
            _ => None,
        })
        .expect("the bridge asks the person about the link");
    engine.handle(
        Input::Request(Incoming {
            id: LINK,
            server: SERVER,
            server_name: "demo".into(),
            call: Some(CallId(3)),
            era: ProtocolEra::Mrtr,
            declared: Declared::default(),
            params: ElicitParams::ViewLink {
                view: VIEW,
                question,
                url: url.to_owned(),
            },
        }),
        30,
    )
}

fn reply_of(effects: &[Effect]) -> Option<&Reply> {
    effects.iter().find_map(|e| match e {
        Effect::Reply { id, reply } if *id == LINK => Some(reply),
        _ => None,
    })
}

/// The view's answer to its `ui/open-link` (id 9), if it got one.
fn view_answer(effects: &[Effect]) -> Option<Value> {
    to_view(effects).into_iter().find(|m| m["id"] == 9)
}

#[test]
fn a_views_link_is_a_request_of_its_own_kind_presented_to_the_person() {
    let mut engine = live_view();
    let effects = view_asks(&mut engine, "https://modelcontextprotocol.io/docs");
    let queued = effects
        .iter()
        .find_map(|e| match e {
            Effect::Queued(view) => Some(view),
            _ => None,
        })
        .expect("queued");
    assert_eq!(queued.id, LINK);
    assert_eq!(queued.method, RequestMethod::OpenLink);
    assert_eq!(queued.method.as_str(), "ui/open-link");
    assert_eq!(
        queued.message(),
        "The app of \"demo\" asks you to open a link."
    );
    let RequestKind::ViewLink(link) = &queued.kind else {
        panic!("a view link, not {:?}", queued.kind)
    };
    assert_eq!(
        (link.url.as_str(), link.view),
        ("https://modelcontextprotocol.io/docs", VIEW)
    );
    assert!(effects.contains(&Effect::Present(LINK)));
    assert_eq!(view_answer(&effects), None, "the view waits for the person");
}

#[test]
fn consent_opens_the_link_after_its_name_is_looked_up_and_the_view_hears_it_opened() {
    let mut engine = live_view();
    view_asks(&mut engine, "https://modelcontextprotocol.io/docs");
    let accepted = engine.handle(
        Input::Answer {
            id: LINK,
            answer: Answer::Accepted(Content::new()),
        },
        40,
    );
    assert!(
        accepted.iter().any(|e| matches!(e,
            Effect::Url(UrlEffect::Resolve { id, host }) if *id == LINK && host == "modelcontextprotocol.io")),
        "the name is looked up only now: {accepted:?}"
    );
    assert_eq!(view_answer(&accepted), None, "nothing before the lookup");
    let resolved = engine.handle(
        Input::Url(UrlInput::Resolved {
            id: LINK,
            addresses: vec!["151.101.1.1".parse().unwrap()],
        }),
        50,
    );
    assert!(resolved.iter().any(|e| matches!(e,
        Effect::Url(UrlEffect::Open { id, url }) if *id == LINK && url == "https://modelcontextprotocol.io/docs")));
    assert_eq!(reply_of(&resolved), Some(&Reply::Consented));
    assert_eq!(view_answer(&resolved).unwrap()["result"], json!({}));
    assert!(engine.pending().is_empty());
}

#[test]
fn a_link_resolving_to_a_private_address_is_refused_and_the_view_told_why() {
    let mut engine = live_view();
    view_asks(&mut engine, "https://intranet.modelcontextprotocol.io/");
    engine.handle(
        Input::Answer {
            id: LINK,
            answer: Answer::Accepted(Content::new()),
        },
        40,
    );
    let resolved = engine.handle(
        Input::Url(UrlInput::Resolved {
            id: LINK,
            addresses: vec!["10.0.0.8".parse().unwrap()],
        }),
        50,
    );
    assert!(
        !resolved
            .iter()
            .any(|e| matches!(e, Effect::Url(UrlEffect::Open { .. }))),
        "never opened"
    );
    assert!(matches!(reply_of(&resolved), Some(Reply::Error { .. })));
    let answer = view_answer(&resolved).unwrap();
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the link was not opened") && message.contains("refuses"),
        "{answer}"
    );
}

#[test]
fn declining_or_cancelling_answers_the_view_with_the_persons_choice() {
    for (answer, said) in [
        (Answer::Declined, "declined"),
        (Answer::Cancelled, "cancelled"),
    ] {
        let mut engine = live_view();
        view_asks(&mut engine, "https://modelcontextprotocol.io/");
        let effects = engine.handle(Input::Answer { id: LINK, answer }, 40);
        let reply = view_answer(&effects).unwrap();
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains(said), "{reply}");
        assert!(engine.pending().is_empty());
    }
}

#[test]
fn a_link_the_rules_refuse_is_shown_refused_and_the_view_answered_at_once() {
    let mut engine = live_view();
    let effects = view_asks(&mut engine, "http://127.0.0.1:8080/admin");
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Queued(v) if v.id == LINK)),
        "shown, so the person knows the view tried it"
    );
    assert!(!effects.contains(&Effect::Present(LINK)));
    assert!(matches!(reply_of(&effects), Some(Reply::Error { .. })));
    let answer = view_answer(&effects).unwrap();
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the link was not opened"),
        "{answer}"
    );
}

#[test]
fn a_withdrawn_view_link_tells_the_view_why() {
    let mut engine = live_view();
    view_asks(&mut engine, "https://modelcontextprotocol.io/");
    let effects = engine.handle(
        Input::Withdraw {
            id: LINK,
            reason: "the app view was closed".into(),
        },
        40,
    );
    let answer = view_answer(&effects).unwrap();
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the app view was closed"),
        "{answer}"
    );
}

#[test]
fn a_view_link_over_the_length_limit_is_refused_naming_the_url() {
    let mut engine = live_view();
    let long = format!("https://modelcontextprotocol.io/{}", "a".repeat(10_000));
    let effects = view_asks(&mut engine, &long);
    match reply_of(&effects) {
        Some(Reply::Error { data, message, .. }) => {
            assert_eq!(data.as_ref().unwrap()["field"], "url", "{message}");
        }
        other => panic!("refused, not {other:?}"),
    }
}
