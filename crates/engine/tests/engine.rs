//! Behaviour of the engine through its public API: admission, the queue, answers, withdrawal,
//! server disconnects, rate limiting and the audit log.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_engine::url_safety::Verdict;
use interlude_engine::{
    Answer, AuditEvent, AuditRecord, CallId, Declared, Effect, Engine, EngineConfig, FormRequest,
    Incoming, Input, Reply, Request, RequestId, RequestKind, ServerId, UrlEffect, UrlInput,
    UrlRequest, UrlStage, codes,
};
use interlude_protocol::ProtocolEra;
use interlude_schema::{Content, FieldError};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn engine() -> Engine {
    Engine::new(EngineConfig::default())
}

fn elicit_in(id: u64, server: &str, era: ProtocolEra, params: Value) -> Input {
    Input::Request(Incoming {
        id: RequestId(id),
        server: server_id(server),
        server_name: server.into(),
        call: Some(CallId(100 + id)),
        era,
        declared: Declared::FORM,
        params: params.into(),
    })
}

/// The test's servers are named by one letter or word; their ids follow from the name.
fn server_id(name: &str) -> ServerId {
    ServerId(name.bytes().map(u64::from).sum())
}

fn elicit(id: u64, server: &str, params: Value) -> Input {
    elicit_in(id, server, ProtocolEra::Push, params)
}

fn name_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"name": {"type": "string", "minLength": 1}},
        "required": ["name"]
    })
}

/// A valid form request in 2025-06-18 style (no `mode`).
fn form(message: &str) -> Value {
    json!({"message": message, "requestedSchema": name_schema()})
}

fn content(v: Value) -> Content {
    serde_json::from_value(v).expect("content must be a JSON object")
}

fn answer(id: u64, answer: Answer<Content>) -> Input {
    Input::Answer {
        id: RequestId(id),
        answer,
    }
}

fn accept(id: u64, v: Value) -> Input {
    answer(id, Answer::Accepted(content(v)))
}

/// The views presented by these effects (each presented request's view is the one queued in the
/// same batch; a request queued earlier is presented by id only).
fn presents(effects: &[Effect]) -> Vec<&Request> {
    presented_ids(effects)
        .into_iter()
        .map(|id| {
            effects
                .iter()
                .find_map(|e| match e {
                    Effect::Queued(v) if v.id.0 == id => Some(v),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("request {id} presented without its view: {effects:#?}"))
        })
        .collect()
}

fn presented_ids(effects: &[Effect]) -> Vec<u64> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Present(id) => Some(id.0),
            _ => None,
        })
        .collect()
}

/// The form of a view (a test that gets another kind fails here).
fn form_of(request: &Request) -> &FormRequest {
    match &request.kind {
        RequestKind::Form(form) => form,
        RequestKind::Url(url) => panic!("expected a form, got a URL request for {}", url.url),
        RequestKind::AppForm(app) => {
            panic!("expected a plain form, got one for {}", app.resource_uri)
        }
        RequestKind::ViewLink(link) => panic!("expected a form, got a request's link {}", link.url),
        RequestKind::Sampling(_) => panic!("expected a form, got a sampling request"),
    }
}

fn replies(effects: &[Effect]) -> Vec<(u64, &Reply)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Reply { id, reply } => Some((id.0, reply)),
            _ => None,
        })
        .collect()
}

fn closed(effects: &[Effect]) -> Vec<(u64, &str, &str)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Closed { id, notice } => {
                Some((id.0, notice.server.as_str(), notice.text.as_str()))
            }
            _ => None,
        })
        .collect()
}

fn invalids(effects: &[Effect]) -> Vec<(u64, &[FieldError])> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Invalid { id, errors } => Some((id.0, errors.as_slice())),
            _ => None,
        })
        .collect()
}

fn audits(effects: &[Effect]) -> Vec<&AuditRecord> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Audit(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn pending_ids(engine: &Engine) -> Vec<u64> {
    engine.pending().iter().map(|id| id.0).collect()
}

fn presented_id(engine: &Engine) -> Option<u64> {
    engine.presented().map(|id| id.0)
}

/// Position of the first effect matching `pred`.
fn position(effects: &[Effect], pred: impl Fn(&Effect) -> bool) -> usize {
    effects
        .iter()
        .position(pred)
        .unwrap_or_else(|| panic!("no matching effect in {effects:#?}"))
}

/// Asserts that `id` was admitted: one `Received` audit record, no reply.
fn assert_admitted(effects: &[Effect], id: u64) {
    assert!(
        replies(effects).is_empty(),
        "admitted request {id} got a reply: {effects:#?}"
    );
    let received: Vec<_> = audits(effects)
        .into_iter()
        .filter(|r| r.request == id && matches!(r.event, AuditEvent::Received { .. }))
        .collect();
    assert_eq!(
        received.len(),
        1,
        "one Received record for {id}: {effects:#?}"
    );
}

/// Asserts the effects of a refused request: exactly one reply, a JSON-RPC error with `code`,
/// nothing presented, and a `Refused` audit record with the same reason. Returns the message and
/// `error.data`.
fn assert_refused(effects: &[Effect], id: u64, code: i32) -> (String, Option<Value>) {
    assert!(
        presents(effects).is_empty(),
        "a refused request must not be presented: {effects:#?}"
    );
    assert!(invalids(effects).is_empty());
    assert!(closed(effects).is_empty());
    let r = replies(effects);
    assert_eq!(r.len(), 1, "exactly one reply: {effects:#?}");
    let (rid, reply) = r[0];
    assert_eq!(rid, id);
    let Reply::Error {
        code: got,
        message,
        data,
    } = reply
    else {
        panic!("expected an error reply, got {reply:?}");
    };
    assert_eq!(*got, code, "error code, message {message:?}");
    let a = audits(effects);
    assert_eq!(a.len(), 1, "exactly one audit record: {effects:#?}");
    assert_eq!(a[0].request, id);
    match &a[0].event {
        AuditEvent::Refused { reason } => assert_eq!(reason, message),
        other => panic!("expected a Refused audit record, got {other:?}"),
    }
    (message.clone(), data.clone())
}

fn field_of(data: &Option<Value>) -> Option<&str> {
    data.as_ref()
        .and_then(|d| d.get("field"))
        .and_then(Value::as_str)
}

// ---------------------------------------------------------------------------------------------
// 1. Admission
// ---------------------------------------------------------------------------------------------

#[test]
fn form_request_without_mode_is_admitted_and_presented() {
    let mut e = engine();
    let fx = e.handle(elicit(1, "alpha", form("Your name?")), 5);
    assert_admitted(&fx, 1);
    let p = presents(&fx);
    assert_eq!(p.len(), 1);
    let v = p[0];
    assert_eq!(v.id, RequestId(1));
    assert_eq!(v.server, server_id("alpha"));
    assert_eq!(&*v.server_name, "alpha");
    assert_eq!(v.message(), "Your name?");
    assert_eq!(v.era, ProtocolEra::Push);
    assert_eq!(
        v.call,
        Some(CallId(101)),
        "the call it was raised by, as given"
    );
    assert_eq!(form_of(v).schema.fields.len(), 1);
    assert_eq!(form_of(v).schema.fields[0].name, "name");
    assert!(form_of(v).schema.fields[0].required);
    assert_eq!(presented_id(&e), Some(1));
    assert_eq!(pending_ids(&e), vec![1]);
}

#[test]
fn form_request_with_mode_form_is_admitted() {
    let mut e = engine();
    let params = json!({"mode": "form", "message": "Your name?", "requestedSchema": name_schema()});
    let fx = e.handle(elicit(1, "alpha", params), 0);
    assert_admitted(&fx, 1);
    assert_eq!(presented_ids(&fx), vec![1]);
}

#[test]
fn url_mode_when_only_form_declared_is_refused_naming_mode() {
    let mut e = engine();
    let params = json!({
        "mode": "url",
        "message": "Open this",
        "url": "https://example.com/x",
        "elicitationId": "abc"
    });
    let fx = e.handle(elicit(1, "alpha", params), 0);
    let (message, data) = assert_refused(&fx, 1, codes::INVALID_PARAMS);
    assert_eq!(codes::INVALID_PARAMS, -32602);
    assert!(message.contains("mode"), "{message}");
    assert_eq!(field_of(&data), Some("mode"));
    assert!(e.pending().is_empty());
    assert!(e.presented().is_none());
}

#[test]
fn unknown_mode_is_refused() {
    for mode in [json!("carrier-pigeon"), json!(42), json!("FORM")] {
        let mut e = engine();
        let params = json!({"mode": mode, "message": "Hi", "requestedSchema": name_schema()});
        let fx = e.handle(elicit(7, "alpha", params), 0);
        let (message, data) = assert_refused(&fx, 7, -32602);
        assert!(message.contains("mode"), "{message}");
        assert_eq!(field_of(&data), Some("mode"), "mode {mode}");
        assert!(e.pending().is_empty());
    }
}

#[test]
fn missing_or_non_string_message_is_refused_naming_message() {
    for params in [
        json!({"requestedSchema": name_schema()}),
        json!({"message": 12, "requestedSchema": name_schema()}),
        json!({"message": null, "requestedSchema": name_schema()}),
    ] {
        let mut e = engine();
        let fx = e.handle(elicit(1, "alpha", params.clone()), 0);
        let (message, data) = assert_refused(&fx, 1, -32602);
        assert!(message.contains("message"), "{message}");
        assert_eq!(field_of(&data), Some("message"), "params {params}");
        assert!(e.pending().is_empty());
    }
}

#[test]
fn message_over_the_limit_is_refused_and_at_the_limit_admitted() {
    let config = EngineConfig {
        max_message_chars: 10,
        ..Default::default()
    };
    let mut e = Engine::new(config);

    // Eleven characters: one too many.
    let fx = e.handle(elicit(1, "alpha", form("abcdefghijk")), 0);
    let (message, data) = assert_refused(&fx, 1, -32602);
    assert!(message.contains("message"), "{message}");
    assert_eq!(field_of(&data), Some("message"));
    assert!(e.pending().is_empty());
    assert!(e.presented().is_none());

    // Ten characters, twenty bytes: the limit counts characters.
    let fx = e.handle(elicit(2, "alpha", form("éééééééééé")), 0);
    assert_admitted(&fx, 2);
    assert_eq!(presented_ids(&fx), vec![2]);
}

#[test]
fn nested_object_property_is_refused_naming_the_property() {
    let mut e = engine();
    let params = json!({
        "message": "Where do you live?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}}
                }
            }
        }
    });
    let fx = e.handle(elicit(1, "alpha", params), 0);
    let (message, data) = assert_refused(&fx, 1, -32602);
    assert!(message.contains("address"), "{message}");
    assert_eq!(field_of(&data), Some("requestedSchema.properties.address"));
    assert!(e.pending().is_empty());
    assert!(e.presented().is_none());
}

#[test]
fn too_many_fields_is_refused() {
    let config = EngineConfig {
        max_fields: 3,
        ..Default::default()
    };
    let mut e = Engine::new(config);
    let schema = |n: usize| {
        let props: serde_json::Map<String, Value> = (0..n)
            .map(|i| (format!("f{i}"), json!({"type": "string"})))
            .collect();
        json!({"type": "object", "properties": props})
    };
    let fx = e.handle(
        elicit(
            1,
            "alpha",
            json!({"message": "m", "requestedSchema": schema(4)}),
        ),
        0,
    );
    let (message, data) = assert_refused(&fx, 1, -32602);
    assert!(message.contains("requestedSchema"), "{message}");
    assert_eq!(field_of(&data), Some("requestedSchema"));
    assert!(e.pending().is_empty());

    let fx = e.handle(
        elicit(
            2,
            "alpha",
            json!({"message": "m", "requestedSchema": schema(3)}),
        ),
        0,
    );
    assert_admitted(&fx, 2);
    assert_eq!(presented_ids(&fx), vec![2]);
}

#[test]
fn params_not_an_object_are_refused() {
    for params in [json!(["message"]), json!(null), json!("hello"), json!(3)] {
        let mut e = engine();
        let fx = e.handle(elicit(1, "alpha", params.clone()), 0);
        assert_refused(&fx, 1, -32602);
        assert!(e.pending().is_empty(), "params {params}");
    }
}

#[test]
fn missing_schema_is_refused() {
    let mut e = engine();
    let fx = e.handle(elicit(1, "alpha", json!({"message": "m"})), 0);
    let (_, data) = assert_refused(&fx, 1, -32602);
    assert_eq!(field_of(&data), Some("requestedSchema"));
}

#[test]
fn a_refusal_does_not_disturb_the_presented_request() {
    let mut e = engine();
    e.handle(elicit(1, "alpha", form("first")), 0);
    let fx = e.handle(
        elicit(2, "alpha", json!({"mode": "url", "message": "x"})),
        1,
    );
    assert_refused(&fx, 2, -32602);
    assert_eq!(presented_id(&e), Some(1));
    assert_eq!(pending_ids(&e), vec![1]);
}

// ---------------------------------------------------------------------------------------------
// 2. Queue
// ---------------------------------------------------------------------------------------------

#[test]
fn one_request_is_presented_at_a_time_in_arrival_order() {
    let mut e = engine();
    let fx1 = e.handle(elicit(1, "alpha", form("one")), 0);
    let fx2 = e.handle(elicit(2, "beta", form("two")), 1);
    let fx3 = e.handle(elicit(3, "alpha", form("three")), 2);
    assert_eq!(presented_ids(&fx1), vec![1]);
    assert_admitted(&fx2, 2);
    assert!(presents(&fx2).is_empty(), "second must wait: {fx2:#?}");
    assert_admitted(&fx3, 3);
    assert!(presents(&fx3).is_empty(), "third must wait: {fx3:#?}");

    assert_eq!(presented_id(&e), Some(1));
    assert_eq!(pending_ids(&e), vec![1, 2, 3]);

    // Answer the first: its reply, then the second is presented.
    let fx = e.handle(answer(1, Answer::Declined), 10);
    assert_eq!(replies(&fx), vec![(1, &Reply::Answered(Answer::Declined))]);
    assert_eq!(presented_ids(&fx), vec![2]);
    let reply_at = position(&fx, |e| matches!(e, Effect::Reply { .. }));
    let present_at = position(&fx, |e| matches!(e, Effect::Present(_)));
    assert!(
        reply_at < present_at,
        "reply before the next present: {fx:#?}"
    );
    assert_eq!(presented_id(&e), Some(2));
    assert_eq!(pending_ids(&e), vec![2, 3]);

    let fx = e.handle(accept(2, json!({"name": "Ada"})), 11);
    assert_eq!(
        replies(&fx),
        vec![(
            2,
            &Reply::Answered(Answer::Accepted(content(json!({"name": "Ada"}))))
        )]
    );
    assert_eq!(presented_ids(&fx), vec![3]);
    assert_eq!(pending_ids(&e), vec![3]);

    let fx = e.handle(answer(3, Answer::Cancelled), 12);
    assert_eq!(replies(&fx), vec![(3, &Reply::Answered(Answer::Cancelled))]);
    assert!(presents(&fx).is_empty());
    assert!(e.pending().is_empty());
    assert!(e.presented().is_none());

    // A new request after the inbox drained is presented at once.
    let fx = e.handle(elicit(4, "beta", form("four")), 13);
    assert_eq!(presented_ids(&fx), vec![4]);
}

// ---------------------------------------------------------------------------------------------
// 3. Answers
// ---------------------------------------------------------------------------------------------

fn profile_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 18, "default": 30},
            "newsletter": {"type": "boolean", "default": true},
            "color": {"type": "string", "enum": ["red", "green"], "default": "green"}
        },
        "required": ["name", "email"]
    })
}

fn profile_request(id: u64) -> Input {
    elicit(
        id,
        "alpha",
        json!({"message": "Profile", "requestedSchema": profile_schema()}),
    )
}

#[test]
fn presented_view_prefills_defaults() {
    let mut e = engine();
    let fx = e.handle(profile_request(1), 0);
    let v = presents(&fx)[0];
    assert_eq!(
        Value::Object(form_of(v).prefill.clone()),
        json!({"age": 30, "newsletter": true, "color": "green"})
    );
}

#[test]
fn accept_applies_defaults_for_omitted_fields() {
    let mut e = engine();
    e.handle(profile_request(1), 0);
    let fx = e.handle(
        accept(1, json!({"name": "Ada", "email": "ada@example.com"})),
        5,
    );
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:#?}");
    let Reply::Answered(Answer::Accepted(c)) = r[0].1 else {
        panic!("expected accept, got {:?}", r[0].1);
    };
    assert_eq!(
        Value::Object(c.clone()),
        json!({
            "name": "Ada",
            "email": "ada@example.com",
            "age": 30,
            "newsletter": true,
            "color": "green"
        })
    );
    assert!(invalids(&fx).is_empty());
    assert!(e.pending().is_empty());
}

#[test]
fn accept_keeps_values_the_person_gave_over_defaults() {
    let mut e = engine();
    e.handle(profile_request(1), 0);
    let fx = e.handle(
        accept(
            1,
            json!({"name": "Ada", "email": "ada@example.com", "age": 40, "newsletter": false}),
        ),
        5,
    );
    let Reply::Answered(Answer::Accepted(c)) = replies(&fx)[0].1 else {
        panic!("expected accept: {fx:#?}");
    };
    assert_eq!(c["age"], json!(40));
    assert_eq!(c["newsletter"], json!(false));
    assert_eq!(c["color"], json!("green"));
}

#[test]
fn invalid_answer_stays_presented_then_a_corrected_one_is_accepted() {
    let mut e = engine();
    e.handle(profile_request(1), 0);
    e.handle(elicit(2, "beta", form("next")), 1);

    // Missing required `name`, bad e-mail, integer below its minimum.
    let fx = e.handle(accept(1, json!({"email": "not-an-email", "age": 12})), 5);
    assert!(
        replies(&fx).is_empty(),
        "invalid answer must not leave: {fx:#?}"
    );
    assert!(
        presents(&fx).is_empty(),
        "nothing else is presented: {fx:#?}"
    );
    assert!(closed(&fx).is_empty());
    let inv = invalids(&fx);
    assert_eq!(inv.len(), 1, "{fx:#?}");
    assert_eq!(inv[0].0, 1);
    let fields: Vec<&str> = inv[0].1.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, vec!["name", "email", "age"], "{:?}", inv[0].1);
    assert!(inv[0].1.iter().all(|e| !e.message.is_empty()));
    assert_eq!(presented_id(&e), Some(1));
    assert_eq!(pending_ids(&e), vec![1, 2]);

    // A property the form does not define is also refused.
    let fx = e.handle(
        accept(
            1,
            json!({"name": "Ada", "email": "ada@example.com", "shoeSize": 9}),
        ),
        6,
    );
    assert!(replies(&fx).is_empty());
    let inv = invalids(&fx);
    assert_eq!(inv.len(), 1);
    assert_eq!(inv[0].1.len(), 1);
    assert_eq!(inv[0].1[0].field, "shoeSize");
    assert_eq!(presented_id(&e), Some(1));

    // Corrected.
    let fx = e.handle(
        accept(
            1,
            json!({"name": "Ada", "email": "ada@example.com", "age": 18}),
        ),
        7,
    );
    assert!(invalids(&fx).is_empty());
    let r = replies(&fx);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0, 1);
    let Reply::Answered(Answer::Accepted(c)) = r[0].1 else {
        panic!("expected accept: {fx:#?}");
    };
    assert_eq!(c["age"], json!(18));
    assert_eq!(c["name"], json!("Ada"));
    assert_eq!(presented_ids(&fx), vec![2]);
}

#[test]
fn null_values_never_leave_in_an_accept() {
    // `null` is not an allowed content value (string | number | boolean | string[]); validation
    // treats it as "omitted", so the reply must too.
    let mut e = engine();
    e.handle(profile_request(1), 0);
    let fx = e.handle(
        accept(
            1,
            json!({"name": "Ada", "email": "ada@example.com", "age": null, "color": null}),
        ),
        5,
    );
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{fx:#?}");
    let Reply::Answered(Answer::Accepted(c)) = r[0].1 else {
        panic!("expected accept: {fx:#?}");
    };
    assert!(
        c.values().all(|v| !v.is_null()),
        "null must not be sent: {c:?}"
    );
    assert_eq!(c.get("age"), Some(&json!(30)));
    assert_eq!(c.get("color"), Some(&json!("green")));
}

#[test]
fn decline_and_cancel_reply_accordingly() {
    let mut e = engine();
    e.handle(profile_request(1), 0);
    e.handle(profile_request(2), 0);
    let fx = e.handle(answer(1, Answer::Declined), 1);
    assert_eq!(replies(&fx), vec![(1, &Reply::Answered(Answer::Declined))]);
    assert!(
        audits(&fx)
            .iter()
            .any(|r| r.request == 1 && r.event == AuditEvent::Declined)
    );
    let fx = e.handle(answer(2, Answer::Cancelled), 2);
    assert_eq!(replies(&fx), vec![(2, &Reply::Answered(Answer::Cancelled))]);
    assert!(
        audits(&fx)
            .iter()
            .any(|r| r.request == 2 && r.event == AuditEvent::Cancelled)
    );
    assert!(e.pending().is_empty());
}

#[test]
fn late_or_duplicate_answers_yield_nothing() {
    let mut e = engine();
    e.handle(elicit(1, "alpha", form("one")), 0);
    e.handle(elicit(2, "alpha", form("two")), 0);
    let fx = e.handle(accept(1, json!({"name": "Ada"})), 1);
    assert_eq!(replies(&fx).len(), 1);

    // The same answer again (another tab), and other answers for the finished request.
    assert_eq!(e.handle(accept(1, json!({"name": "Ada"})), 2), vec![]);
    assert_eq!(e.handle(answer(1, Answer::Declined), 3), vec![]);
    assert_eq!(e.handle(answer(1, Answer::Cancelled), 3), vec![]);
    // A request that never existed.
    assert_eq!(e.handle(answer(99, Answer::Declined), 4), vec![]);
    assert_eq!(e.handle(accept(99, json!({"name": "x"})), 4), vec![]);

    assert_eq!(presented_id(&e), Some(2));
    assert_eq!(pending_ids(&e), vec![2]);
}

// ---------------------------------------------------------------------------------------------
// 4. Withdraw
// ---------------------------------------------------------------------------------------------

#[test]
fn withdrawing_the_presented_request_closes_it_and_presents_the_next() {
    let mut e = engine();
    e.handle(elicit(1, "alpha", form("one")), 0);
    e.handle(elicit(2, "beta", form("two")), 0);
    e.handle(elicit(3, "alpha", form("three")), 0);

    let fx = e.handle(
        Input::Withdraw {
            id: RequestId(1),
            reason: "the tool call ended".into(),
        },
        10,
    );
    assert_eq!(closed(&fx), vec![(1, "alpha", "the tool call ended")]);
    assert!(replies(&fx).is_empty(), "a withdrawn request gets no reply");
    assert_eq!(presented_ids(&fx), vec![2]);
    let closed_at = position(&fx, |e| matches!(e, Effect::Closed { .. }));
    let present_at = position(&fx, |e| matches!(e, Effect::Present(_)));
    assert!(closed_at < present_at);
    assert!(audits(&fx).iter().any(|r| r.request == 1
        && r.event
            == AuditEvent::Withdrawn {
                reason: "the tool call ended".into()
            }));
    assert_eq!(pending_ids(&e), vec![2, 3]);

    // The withdrawn request can no longer be answered.
    assert_eq!(e.handle(answer(1, Answer::Declined), 11), vec![]);
}

#[test]
fn withdrawing_a_queued_request_removes_it_without_changing_the_presented_one() {
    let mut e = engine();
    e.handle(elicit(1, "alpha", form("one")), 0);
    e.handle(elicit(2, "beta", form("two")), 0);
    e.handle(elicit(3, "alpha", form("three")), 0);

    let fx = e.handle(
        Input::Withdraw {
            id: RequestId(2),
            reason: "cancelled by the server".into(),
        },
        10,
    );
    assert_eq!(closed(&fx), vec![(2, "beta", "cancelled by the server")]);
    assert!(presents(&fx).is_empty(), "{fx:#?}");
    assert!(replies(&fx).is_empty());
    assert_eq!(presented_id(&e), Some(1));
    assert_eq!(pending_ids(&e), vec![1, 3]);

    // Withdrawing it again, or an unknown id, does nothing.
    let again = Input::Withdraw {
        id: RequestId(2),
        reason: "again".into(),
    };
    assert_eq!(e.handle(again, 11), vec![]);
    assert_eq!(e.handle(answer(2, Answer::Declined), 11), vec![]);

    // The queue skips the withdrawn request.
    let fx = e.handle(answer(1, Answer::Cancelled), 12);
    assert_eq!(presented_ids(&fx), vec![3]);
}

// ---------------------------------------------------------------------------------------------
// 5. ServerGone
// ---------------------------------------------------------------------------------------------

#[test]
fn server_gone_closes_all_its_requests_and_presents_the_next_remaining() {
    let mut e = engine();
    e.handle(elicit(1, "alpha", form("a1")), 0);
    e.handle(elicit(2, "beta", form("b1")), 0);
    e.handle(elicit(3, "alpha", form("a2")), 0);
    e.handle(elicit(4, "beta", form("b2")), 0);
    e.handle(elicit(5, "alpha", form("a3")), 0);

    let fx = e.handle(
        Input::ServerGone {
            server: server_id("alpha"),
            reason: "server disconnected".into(),
        },
        10,
    );
    let mut c = closed(&fx);
    c.sort_unstable();
    assert_eq!(
        c,
        vec![
            (1, "alpha", "server disconnected"),
            (3, "alpha", "server disconnected"),
            (5, "alpha", "server disconnected"),
        ]
    );
    assert!(replies(&fx).is_empty());
    assert_eq!(presented_ids(&fx), vec![2]);
    assert_eq!(presented_id(&e), Some(2));
    assert_eq!(pending_ids(&e), vec![2, 4]);
    let withdrawn = audits(&fx)
        .iter()
        .filter(|r| matches!(r.event, AuditEvent::Withdrawn { .. }))
        .count();
    assert_eq!(withdrawn, 3);

    // A server with only queued requests: they close, the presented one stays.
    e.handle(elicit(6, "gamma", form("g1")), 11);
    let fx = e.handle(
        Input::ServerGone {
            server: server_id("gamma"),
            reason: "gone".into(),
        },
        12,
    );
    assert_eq!(closed(&fx), vec![(6, "gamma", "gone")]);
    assert!(presents(&fx).is_empty());
    assert_eq!(pending_ids(&e), vec![2, 4]);

    // A server with nothing pending: nothing happens.
    let fx = e.handle(
        Input::ServerGone {
            server: server_id("nobody"),
            reason: "gone".into(),
        },
        13,
    );
    assert_eq!(fx, vec![]);
}

// ---------------------------------------------------------------------------------------------
// 6. Rate limit
// ---------------------------------------------------------------------------------------------

#[test]
fn rate_limit_is_per_server_and_refills() {
    let mut e = Engine::new(EngineConfig {
        rate_burst: 2,
        rate_per_minute: 60,
        ..Default::default()
    });
    assert_admitted(&e.handle(elicit(1, "alpha", form("1")), 0), 1);
    assert_admitted(&e.handle(elicit(2, "alpha", form("2")), 0), 2);

    let fx = e.handle(elicit(3, "alpha", form("3")), 0);
    let (message, data) = assert_refused(&fx, 3, codes::RATE_LIMITED);
    assert_eq!(codes::RATE_LIMITED, -32000);
    assert!(message.contains("alpha"), "{message}");
    assert!(
        message.starts_with("too many elicitations from server `alpha`"),
        "the message names the kind: {message}"
    );
    assert_eq!(data, None);
    assert_eq!(pending_ids(&e), vec![1, 2]);

    // Another server is unaffected.
    assert_admitted(&e.handle(elicit(4, "beta", form("4")), 0), 4);

    // 60 per minute: one token back after a second.
    assert_admitted(&e.handle(elicit(5, "alpha", form("5")), 1_000), 5);
    assert_refused(
        &e.handle(elicit(6, "alpha", form("6")), 1_000),
        6,
        codes::RATE_LIMITED,
    );
    assert_eq!(pending_ids(&e), vec![1, 2, 4, 5]);
}

// ---------------------------------------------------------------------------------------------
// 7. Audit
// ---------------------------------------------------------------------------------------------

#[test]
fn accepted_audit_record_redacts_sensitive_fields_but_not_the_reply() {
    let mut e = engine();
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "password": {"type": "string"},
            "apiToken": {"type": "string"}
        }
    });
    e.handle(
        elicit(
            1,
            "alpha",
            json!({"message": "creds", "requestedSchema": schema}),
        ),
        0,
    );
    let fx = e.handle(
        accept(
            1,
            json!({"name": "Ada", "password": "hunter2", "apiToken": "s3cr3t"}),
        ),
        42,
    );
    let a = audits(&fx);
    assert_eq!(a.len(), 1, "{fx:#?}");
    assert_eq!(a[0].request, 1);
    assert_eq!(&*a[0].server, "alpha");
    assert_eq!(a[0].at_ms, 42);
    let AuditEvent::Accepted { content: logged } = &a[0].event else {
        panic!("expected Accepted, got {:?}", a[0].event);
    };
    assert_eq!(logged["name"], json!("Ada"));
    assert_eq!(logged["password"], json!("[redacted]"));
    assert_eq!(logged["apiToken"], json!("[redacted]"));
    let serialized = serde_json::to_string(a[0]).expect("serializable");
    assert!(!serialized.contains("hunter2"), "{serialized}");
    assert!(!serialized.contains("s3cr3t"), "{serialized}");

    // The server still gets what the person typed.
    let Reply::Answered(Answer::Accepted(sent)) = replies(&fx)[0].1 else {
        panic!("expected accept: {fx:#?}");
    };
    assert_eq!(sent["password"], json!("hunter2"));
    assert_eq!(sent["apiToken"], json!("s3cr3t"));
}

#[test]
fn received_audit_record_lists_fields_in_schema_order_and_the_era() {
    let mut e = engine();
    let schema = json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "string"},
            "alpha": {"type": "boolean"},
            "mid": {"type": "number"}
        }
    });
    let fx = e.handle(
        elicit_in(
            9,
            "alpha-server",
            ProtocolEra::Mrtr,
            json!({"message": "Order?", "requestedSchema": schema.clone()}),
        ),
        77,
    );
    let a = audits(&fx);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].request, 9);
    assert_eq!(&*a[0].server, "alpha-server");
    assert_eq!(a[0].at_ms, 77);
    assert_eq!(
        a[0].event,
        AuditEvent::Received {
            era: "mrtr",
            method: "elicitation/create",
            message: "Order?".into(),
            fields: ["zeta", "alpha", "mid"].map(String::from).into(),
            link: None,
        }
    );
    let as_json = serde_json::to_value(a[0]).expect("serializable");
    assert_eq!(as_json["event"]["kind"], json!("received"));

    let fx = e.handle(
        elicit(
            10,
            "alpha-server",
            json!({"message": "Again", "requestedSchema": schema}),
        ),
        78,
    );
    let AuditEvent::Received { era, .. } = &audits(&fx)[0].event else {
        panic!("expected Received: {fx:#?}");
    };
    assert_eq!(*era, "push");
}

// ---------------------------------------------------------------------------------------------
// 8. server-everything's `trigger-elicitation-request`
// ---------------------------------------------------------------------------------------------

/// The `elicitation/create` params server-everything sends (no `mode`, 13 fields, 8 defaults).
// 3.14 is server-everything's literal default, not an approximation of π.
#[allow(clippy::approx_constant)]
fn everything_params() -> Value {
    json!({
        "message": "Please provide inputs for the following fields:",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {
                    "title": "String",
                    "type": "string",
                    "description": "Your full, legal name"
                },
                "check": {
                    "title": "Boolean",
                    "type": "boolean",
                    "description": "Agree to the terms and conditions"
                },
                "firstLine": {
                    "title": "String with default",
                    "type": "string",
                    "description": "Favorite first line of a story",
                    "default": "It was a dark and stormy night."
                },
                "email": {
                    "title": "String with email format",
                    "type": "string",
                    "format": "email",
                    "description": "Your email address"
                },
                "homepage": {
                    "type": "string",
                    "format": "uri",
                    "title": "String with uri format",
                    "description": "Portfolio / personal website"
                },
                "birthdate": {
                    "title": "String with date format",
                    "type": "string",
                    "format": "date",
                    "description": "Your date of birth"
                },
                "integer": {
                    "title": "Integer",
                    "type": "integer",
                    "description": "Your favorite integer",
                    "minimum": 1,
                    "maximum": 100,
                    "default": 42
                },
                "number": {
                    "title": "Number in range 1-1000",
                    "type": "number",
                    "description": "Favorite number",
                    "minimum": 0,
                    "maximum": 1000,
                    "default": 3.14
                },
                "untitledSingleSelectEnum": {
                    "type": "string",
                    "title": "Untitled Single Select Enum",
                    "enum": ["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"],
                    "default": "Monica"
                },
                "untitledMultipleSelectEnum": {
                    "type": "array",
                    "title": "Untitled Multiple Select Enum",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "type": "string",
                        "enum": ["Guitar", "Piano", "Violin", "Drums", "Bass"]
                    },
                    "default": ["Guitar"]
                },
                "titledSingleSelectEnum": {
                    "type": "string",
                    "title": "Titled Single Select Enum",
                    "oneOf": [
                        {"const": "hero-1", "title": "Superman"},
                        {"const": "hero-2", "title": "Green Lantern"},
                        {"const": "hero-3", "title": "Wonder Woman"}
                    ],
                    "default": "hero-1"
                },
                "titledMultipleSelectEnum": {
                    "type": "array",
                    "title": "Titled Multiple Select Enum",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            {"const": "fish-1", "title": "Tuna"},
                            {"const": "fish-2", "title": "Salmon"},
                            {"const": "fish-3", "title": "Trout"}
                        ]
                    },
                    "default": ["fish-1"]
                },
                "legacyTitledEnum": {
                    "type": "string",
                    "title": "Legacy Titled Single Select Enum",
                    "enum": ["pet-1", "pet-2", "pet-3", "pet-4", "pet-5"],
                    "enumNames": ["Cats", "Dogs", "Birds", "Fish", "Reptiles"],
                    "default": "pet-1"
                }
            },
            "required": ["name"]
        }
    })
}

#[allow(clippy::approx_constant)]
fn everything_defaults() -> Value {
    json!({
        "firstLine": "It was a dark and stormy night.",
        "integer": 42,
        "number": 3.14,
        "untitledSingleSelectEnum": "Monica",
        "untitledMultipleSelectEnum": ["Guitar"],
        "titledSingleSelectEnum": "hero-1",
        "titledMultipleSelectEnum": ["fish-1"],
        "legacyTitledEnum": "pet-1"
    })
}

#[test]
fn server_everything_form_is_admitted_with_its_defaults() {
    let mut e = engine();
    let fx = e.handle(elicit(1, "everything", everything_params()), 0);
    assert_admitted(&fx, 1);
    let p = presents(&fx);
    assert_eq!(p.len(), 1, "{fx:#?}");
    let v = p[0];
    let names: Vec<&str> = form_of(v)
        .schema
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        names,
        vec![
            "name",
            "check",
            "firstLine",
            "email",
            "homepage",
            "birthdate",
            "integer",
            "number",
            "untitledSingleSelectEnum",
            "untitledMultipleSelectEnum",
            "titledSingleSelectEnum",
            "titledMultipleSelectEnum",
            "legacyTitledEnum",
        ]
    );
    let required: Vec<&str> = form_of(v)
        .schema
        .fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(required, vec!["name"]);
    assert_eq!(form_of(v).prefill.len(), 8);
    assert_eq!(
        Value::Object(form_of(v).prefill.clone()),
        everything_defaults()
    );

    // Accepting only the required field sends every default along (conformance
    // `elicitation-defaults`).
    let fx = e.handle(accept(1, json!({"name": "Ada"})), 1);
    assert!(invalids(&fx).is_empty(), "{fx:#?}");
    let Reply::Answered(Answer::Accepted(c)) = replies(&fx)[0].1 else {
        panic!("expected accept: {fx:#?}");
    };
    let mut expected = everything_defaults();
    expected["name"] = json!("Ada");
    assert_eq!(Value::Object(c.clone()), expected);
}

#[test]
fn server_everything_form_rejects_out_of_range_answers() {
    let mut e = engine();
    e.handle(elicit(1, "everything", everything_params()), 0);
    let fx = e.handle(
        accept(
            1,
            json!({
                "name": "Ada",
                "email": "ada-at-example",
                "homepage": "not a uri",
                "birthdate": "2023-02-29",
                "integer": 0,
                "number": 1000.5,
                "untitledMultipleSelectEnum": ["Guitar", "Piano", "Violin", "Drums"],
                "titledMultipleSelectEnum": [],
                "legacyTitledEnum": "Cats"
            }),
        ),
        1,
    );
    assert!(replies(&fx).is_empty(), "{fx:#?}");
    let inv = invalids(&fx);
    assert_eq!(inv.len(), 1);
    let fields: Vec<&str> = inv[0].1.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        vec![
            "email",
            "homepage",
            "birthdate",
            "integer",
            "number",
            "untitledMultipleSelectEnum",
            "titledMultipleSelectEnum",
            "legacyTitledEnum",
        ]
    );
    assert_eq!(presented_id(&e), Some(1));
}

#[test]
fn every_admitted_request_is_announced_as_queued_before_it_is_presented() {
    let mut e = engine();
    let first = e.handle(elicit(1, "a", form("one")), 0);
    let queued_at = position(
        &first,
        |x| matches!(x, Effect::Queued(v) if v.id == RequestId(1)),
    );
    let presented_at = position(
        &first,
        |x| matches!(x, Effect::Present(id) if *id == RequestId(1)),
    );
    assert!(queued_at < presented_at);

    // A second request is queued (announced) but not presented while the first is pending.
    let second = e.handle(elicit(2, "b", form("two")), 1);
    assert!(
        second
            .iter()
            .any(|x| matches!(x, Effect::Queued(v) if v.id == RequestId(2)))
    );
    assert!(presented_ids(&second).is_empty());

    // A refused request is never announced.
    let refused = e.handle(elicit(3, "a", json!({"mode": "url", "message": "x"})), 2);
    assert!(!refused.iter().any(|x| matches!(x, Effect::Queued(_))));
}

// ---------------------------------------------------------------------------------------------
// 9. URL requests
// ---------------------------------------------------------------------------------------------

fn url_request(id: u64, server: &str, era: ProtocolEra, call: u64, params: Value) -> Input {
    Input::Request(Incoming {
        id: RequestId(id),
        server: server_id(server),
        server_name: server.into(),
        call: Some(CallId(call)),
        era,
        declared: Declared::FORM_AND_URL,
        params: params.into(),
    })
}

fn link(url: &str, elicitation_id: Option<&str>) -> Value {
    let mut p = json!({"mode": "url", "message": "Connect your account", "url": url});
    if let Some(id) = elicitation_id {
        p["elicitationId"] = json!(id);
    }
    p
}

fn url_of(request: &Request) -> &UrlRequest {
    match &request.kind {
        RequestKind::Url(url) => url,
        RequestKind::Form(_) | RequestKind::AppForm(_) => {
            panic!("expected a URL request, got a form")
        }
        RequestKind::ViewLink(link) => {
            panic!("expected a URL request, got a request's link {}", link.url)
        }
        RequestKind::Sampling(_) => panic!("expected a URL request, got a sampling request"),
    }
}

fn consent(id: u64) -> Input {
    Input::Answer {
        id: RequestId(id),
        answer: Answer::Accepted(Content::new()),
    }
}

fn resolves(effects: &[Effect]) -> Vec<(u64, &str)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Url(UrlEffect::Resolve { id, host }) => Some((id.0, host.as_str())),
            _ => None,
        })
        .collect()
}

fn opens(effects: &[Effect]) -> Vec<(u64, &str)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Url(UrlEffect::Open { id, url }) => Some((id.0, url.as_str())),
            _ => None,
        })
        .collect()
}

const PUBLIC: &str = "93.184.215.14";

/// The whole road of a link: shown, consented to, looked up only then, replied to without
/// content, opened, and the audit keeps no query string.
#[test]
fn a_link_is_looked_up_only_after_consent_then_replied_to_and_opened() {
    let mut e = engine();
    let url = "https://accounts.example.com/connect?flow=abc123";
    let fx = e.handle(
        url_request(1, "a", ProtocolEra::Push, 7, link(url, Some("el-1"))),
        0,
    );
    let view = presents(&fx)[0];
    let request = url_of(view);
    assert_eq!(request.url, url);
    assert_eq!(request.elicitation_id.as_deref(), Some("el-1"));
    assert_eq!(request.stage, UrlStage::Consent);
    assert_eq!(view.call, Some(CallId(7)));
    assert!(resolves(&fx).is_empty(), "nothing looked up before consent");

    // Whatever content a surface sends along with consent is dropped.
    let fx = e.handle(
        Input::Answer {
            id: RequestId(1),
            answer: Answer::Accepted(content(json!({"apiKey": "sk-secret"}))),
        },
        1,
    );
    assert_eq!(resolves(&fx), [(1, "accounts.example.com")]);
    assert!(replies(&fx).is_empty(), "the reply waits for the lookup");
    // A second click while the name is looked up changes nothing.
    assert!(e.handle(consent(1), 2).is_empty());

    let fx = e.handle(
        Input::Url(UrlInput::Resolved {
            id: RequestId(1),
            addresses: vec![PUBLIC.parse().unwrap()],
        }),
        3,
    );
    assert_eq!(replies(&fx), [(1, &Reply::Consented)]);
    assert_eq!(opens(&fx), [(1, url)]);
    let result = serde_json::to_value(Reply::Consented.into_result().unwrap()).unwrap();
    assert_eq!(
        result,
        json!({"action": "accept"}),
        "no content on the wire"
    );

    let mut e2 = engine();
    let fx = e2.handle(
        url_request(1, "a", ProtocolEra::Push, 7, link(url, Some("el-1"))),
        0,
    );
    let AuditEvent::Received { link, fields, .. } = &audits(&fx)[0].event else {
        panic!("expected Received");
    };
    assert_eq!(
        link.as_deref(),
        Some("https://accounts.example.com/connect")
    );
    assert!(fields.is_empty());
}

#[test]
fn a_link_whose_name_points_into_a_private_network_or_nowhere_is_refused_after_consent() {
    for addresses in [vec!["10.1.2.3".parse().unwrap()], Vec::new()] {
        let mut e = engine();
        e.handle(
            url_request(
                1,
                "a",
                ProtocolEra::Push,
                7,
                link("https://evil.example.com/x", Some("e")),
            ),
            0,
        );
        e.handle(consent(1), 1);
        let fx = e.handle(
            Input::Url(UrlInput::Resolved {
                id: RequestId(1),
                addresses: addresses.clone(),
            }),
            2,
        );
        let r = replies(&fx);
        assert_eq!(r.len(), 1, "{addresses:?}");
        let Reply::Error {
            code,
            message,
            data,
        } = r[0].1
        else {
            panic!("expected an error, got {:?}", r[0].1);
        };
        assert_eq!(*code, codes::INVALID_PARAMS);
        assert!(message.contains("refuses to open this link"), "{message}");
        assert_eq!(data.as_ref().unwrap()["field"], json!("url"));
        assert!(opens(&fx).is_empty(), "never opened");
    }
}

#[test]
fn a_refused_link_is_shown_and_refused_at_once_and_never_presented() {
    let mut e = engine();
    let fx = e.handle(
        url_request(
            1,
            "a",
            ProtocolEra::Push,
            7,
            link("http://10.0.0.1/admin", Some("e")),
        ),
        0,
    );
    let queued: Vec<&Request> = fx
        .iter()
        .filter_map(|x| match x {
            Effect::Queued(v) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(queued.len(), 1, "the person sees that a server tried it");
    assert_eq!(url_of(queued[0]).check.verdict, Verdict::Refuse);
    assert!(presented_ids(&fx).is_empty());
    let r = replies(&fx);
    assert!(matches!(r[0].1, Reply::Error { code, .. } if *code == codes::INVALID_PARAMS));
    assert!(e.pending().is_empty());
}

#[test]
fn an_undeclared_url_request_is_refused_naming_the_mode() {
    let mut e = engine();
    let fx = e.handle(elicit(1, "a", link("https://example.com/", Some("e"))), 0);
    let r = replies(&fx);
    let Reply::Error { code, data, .. } = r[0].1 else {
        panic!("expected an error");
    };
    assert_eq!(*code, codes::INVALID_PARAMS);
    assert_eq!(data.as_ref().unwrap()["field"], json!("mode"));
}

#[test]
fn declining_a_link_looks_nothing_up_and_opens_nothing() {
    let mut e = engine();
    e.handle(
        url_request(
            1,
            "a",
            ProtocolEra::Push,
            7,
            link("https://example.com/x", Some("e")),
        ),
        0,
    );
    let fx = e.handle(answer(1, Answer::Declined), 1);
    assert_eq!(replies(&fx), [(1, &Reply::Answered(Answer::Declined))]);
    assert!(resolves(&fx).is_empty() && opens(&fx).is_empty());
}

#[test]
fn an_address_literal_is_judged_at_admission_and_not_looked_up() {
    let mut e = engine();
    let url = format!("https://{PUBLIC}/pay");
    e.handle(
        url_request(1, "a", ProtocolEra::Push, 7, link(&url, Some("e"))),
        0,
    );
    let fx = e.handle(consent(1), 1);
    assert!(resolves(&fx).is_empty());
    assert_eq!(replies(&fx), [(1, &Reply::Consented)]);
    assert_eq!(opens(&fx).len(), 1);
}

/// 2025-11-25: the completion notification closes the flow it names, once, and only from the
/// server that asked.
#[test]
fn completion_closes_the_flow_once_and_only_from_its_server() {
    let mut e = engine();
    let url = format!("https://{PUBLIC}/key");
    e.handle(
        url_request(1, "a", ProtocolEra::Push, 7, link(&url, Some("flow-1"))),
        0,
    );
    e.handle(consent(1), 1);
    let done = |server: &str, id: &str| {
        Input::Url(UrlInput::Completed {
            server: server_id(server),
            elicitation_id: id.into(),
        })
    };
    assert!(
        e.handle(done("b", "flow-1"), 2).is_empty(),
        "another server"
    );
    assert!(e.handle(done("a", "flow-2"), 3).is_empty(), "unknown id");
    let fx = e.handle(done("a", "flow-1"), 4);
    assert!(fx.contains(&Effect::Url(UrlEffect::Completed { id: RequestId(1) })));
    assert!(audits(&fx).iter().any(|a| a.event == AuditEvent::Completed));
    assert!(e.handle(done("a", "flow-1"), 5).is_empty(), "repeated");
}

/// The person may say they are done before the server does: the wait ends once, and the
/// server's late notification changes nothing more.
#[test]
fn the_person_saying_done_ends_the_wait_once() {
    let mut e = engine();
    let url = format!("https://{PUBLIC}/key");
    e.handle(
        url_request(1, "a", ProtocolEra::Push, 7, link(&url, Some("flow-1"))),
        0,
    );
    let done = Input::Url(UrlInput::Done { id: RequestId(1) });
    assert!(e.handle(done.clone(), 1).is_empty(), "not consented to yet");
    e.handle(consent(1), 2);
    let fx = e.handle(done.clone(), 3);
    assert!(fx.contains(&Effect::Url(UrlEffect::Done { id: RequestId(1) })));
    assert!(audits(&fx).iter().any(|a| a.event == AuditEvent::Done));
    assert!(e.handle(done, 4).is_empty(), "repeated");
    let late = Input::Url(UrlInput::Completed {
        server: server_id("a"),
        elicitation_id: "flow-1".into(),
    });
    assert!(
        e.handle(late, 5).is_empty(),
        "the server's word after the person's"
    );
    let unknown = Input::Url(UrlInput::Done { id: RequestId(9) });
    assert!(e.handle(unknown, 6).is_empty());
}

/// 2026-07-28: a server that asks again for the same link in the same call (its flow is not
/// finished) gets "done" from the person, without a second consent, lookup or opening.
#[test]
fn the_same_link_again_in_the_same_call_waits_instead_of_asking_consent_again() {
    let mut e = engine();
    let url = format!("https://{PUBLIC}/consent");
    e.handle(
        url_request(1, "a", ProtocolEra::Mrtr, 7, link(&url, None)),
        0,
    );
    e.handle(consent(1), 1);
    let fx = e.handle(
        url_request(2, "a", ProtocolEra::Mrtr, 7, link(&url, None)),
        2,
    );
    assert_eq!(url_of(presents(&fx)[0]).stage, UrlStage::Waiting);
    let fx = e.handle(consent(2), 3);
    assert_eq!(replies(&fx), [(2, &Reply::Consented)]);
    assert!(opens(&fx).is_empty() && resolves(&fx).is_empty());
    let AuditEvent::Done = audits(&fx)[0].event else {
        panic!("expected Done: {fx:#?}");
    };
    // Another call asking for the same link asks for consent again.
    let fx = e.handle(
        url_request(3, "a", ProtocolEra::Mrtr, 8, link(&url, None)),
        4,
    );
    assert_eq!(url_of(presents(&fx)[0]).stage, UrlStage::Consent);
}

#[test]
fn url_requests_wait_in_the_same_queue_as_forms() {
    let mut e = engine();
    e.handle(elicit(1, "a", form("first")), 0);
    let fx = e.handle(
        url_request(
            2,
            "b",
            ProtocolEra::Push,
            9,
            link("https://example.com/x", Some("e")),
        ),
        1,
    );
    assert!(presented_ids(&fx).is_empty());
    let fx = e.handle(accept(1, json!({"name": "Ada"})), 2);
    assert_eq!(presented_ids(&fx), [2]);
}

// ---------------------------------------------------------------------------------------------
// The User Interaction draft (seed 000): `interaction/create` mapped onto forms and links
// ---------------------------------------------------------------------------------------------

fn interaction(id: u64, declared: Declared, params: Value) -> Input {
    Input::Request(Incoming {
        id: RequestId(id),
        server: server_id("s"),
        server_name: "s".into(),
        call: None,
        era: ProtocolEra::Push,
        declared,
        params: interlude_engine::ElicitParams::Interaction(params),
    })
}

#[test]
fn a_prompt_interaction_is_a_form_named_by_its_method_and_answered_in_the_drafts_shape() {
    let mut e = engine();
    let params = json!({"id": "p1", "type": "prompt", "interaction": {
        "message": {"type": "text", "text": "Let us know some information about you."},
        "schema": {"type": "object", "properties": {
            "name": {"type": "string", "description": "Your full name"},
            "age": {"type": "number", "minimum": 18, "default": 30}},
            "required": ["name"]}}});
    let fx = e.handle(
        interaction(1, Declared::FORM.with_user_interaction(), params),
        0,
    );
    let view = presents(&fx)[0];
    assert_eq!(view.method, interlude_engine::RequestMethod::Interaction);
    assert_eq!(
        form_of(view).message,
        "Let us know some information about you."
    );
    let received = audits(&fx)
        .into_iter()
        .find_map(|a| match &a.event {
            AuditEvent::Received { method, .. } => Some(*method),
            _ => None,
        })
        .expect("audited");
    assert_eq!(received, "interaction/create");

    // Invalid content is the surface's to fix, as for any form.
    let fx = e.handle(accept(1, json!({"age": 12})), 1);
    assert_eq!(invalids(&fx).len(), 1);
    let fx = e.handle(accept(1, json!({"name": "Monalisa"})), 2);
    let (_, reply) = replies(&fx)[0];
    assert_eq!(
        reply.clone().into_interaction_result().expect("accepted"),
        json!({"content": {"name": "Monalisa", "age": 30}}),
        "validated, defaults applied, in the draft's shape"
    );
}

#[test]
fn a_ua_interaction_is_a_link_whose_consent_answers_empty_and_a_decline_is_the_drafts_error() {
    let mut e = engine();
    // The host declared form elicitation only: the draft is its own declaration.
    let declared = Declared::FORM.with_user_interaction();
    let params = json!({"id": "u1", "type": "ua", "interaction": {
        "url": "https://example.com/authorize?state=1",
        "message": {"type": "text", "text": "Please sign in."}}});
    let fx = e.handle(interaction(1, declared, params.clone()), 0);
    let view = presents(&fx)[0];
    let RequestKind::Url(url) = &view.kind else {
        panic!("a ua is a link");
    };
    assert_eq!(url.elicitation_id.as_deref(), Some("u1"));
    assert_eq!(url.message, "Please sign in.");
    let fx = e.handle(answer(1, Answer::Declined), 1);
    let error = replies(&fx)[0]
        .1
        .clone()
        .into_interaction_result()
        .expect_err("declined");
    assert_eq!(error.code.0, -1);
    assert_eq!(error.message, "User did not consent to the interaction");
    assert_eq!(error.data, Some(json!({"action": "decline"})));

    // Without the declaration the request is refused, naming the capability.
    let fx = e.handle(interaction(2, Declared::FORM_AND_URL, params), 2);
    let (message, _) = assert_refused(&fx, 2, codes::INVALID_PARAMS);
    assert!(message.contains("userInteraction"), "{message}");
}

#[test]
fn a_malformed_interaction_is_refused_naming_the_drafts_field() {
    let mut e = engine();
    let declared = Declared::FORM.with_user_interaction();
    let fx = e.handle(
        interaction(
            1,
            declared,
            json!({"id": "p", "type": "prompt", "interaction": {"message": "x",
                "schema": {"type": "object", "properties": {"tags": {"type": "object"}}}}}),
        ),
        0,
    );
    let (_, data) = assert_refused(&fx, 1, codes::INVALID_PARAMS);
    assert_eq!(field_of(&data), Some("interaction.schema.properties.tags"));
    let fx = e.handle(
        interaction(
            2,
            declared,
            json!({"id": "u", "type": "ua", "interaction": {}}),
        ),
        1,
    );
    let (_, data) = assert_refused(&fx, 2, codes::INVALID_PARAMS);
    assert_eq!(field_of(&data), Some("interaction.url"));
}
