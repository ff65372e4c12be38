//! Sampling in the engine: a server's `sampling/createMessage` becomes a request of its own
//! kind, admitted by its own rules (errors name the field), answered by the reply the person
//! writes, refused as the spec's "user rejected" error when they decline, and refused outright
//! when the host did not declare sampling.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_engine::{
    Answer, CallId, Declared, Effect, ElicitParams, Engine, EngineConfig, Incoming, Input, Reply,
    RequestId, RequestKind, RequestMethod, SamplingPart, SamplingRole, ServerId, sampling,
};
use interlude_protocol::ProtocolEra;
use interlude_schema::Content;
use serde_json::{Value, json};

const SERVER: ServerId = ServerId(1);
const ID: RequestId = RequestId(5);

fn incoming(params: Value, declared: Declared) -> Input {
    Input::Request(Incoming {
        id: ID,
        server: SERVER,
        server_name: "writer".into(),
        call: Some(CallId(3)),
        era: ProtocolEra::Push,
        declared,
        params: ElicitParams::Sampling(params),
    })
}

fn params() -> Value {
    json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}},
            {"role": "assistant", "content": [{"type": "text", "text": "Let me think."},
                                               {"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
            {"role": "user", "content": {"type": "text", "text": "Just the name."}}
        ],
        "systemPrompt": "You are terse.",
        "modelPreferences": {"hints": [{"name": "claude"}], "intelligencePriority": 0.8},
        "maxTokens": 100,
        "temperature": 0.699999988079071,
        "stopSequences": ["\n\n"],
        "includeContext": "thisServer"
    })
}

fn reply_of(effects: &[Effect]) -> Option<&Reply> {
    effects.iter().find_map(|e| match e {
        Effect::Reply { id, reply } if *id == ID => Some(reply),
        _ => None,
    })
}

fn content(value: Value) -> Content {
    value.as_object().cloned().unwrap()
}

#[test]
fn a_sampling_request_is_shown_as_the_conversation_it_carries() {
    let mut engine = Engine::new(EngineConfig::default());
    let effects = engine.handle(incoming(params(), Declared::default()), 0);
    let request = effects
        .iter()
        .find_map(|e| match e {
            Effect::Queued(r) => Some(r),
            _ => None,
        })
        .expect("queued");
    assert_eq!(request.method, RequestMethod::Sampling);
    assert_eq!(request.method.as_str(), "sampling/createMessage");
    let RequestKind::Sampling(s) = &request.kind else {
        panic!("not a sampling request: {:?}", request.kind)
    };
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.messages[1].role, SamplingRole::Assistant);
    assert_eq!(
        s.messages[1].parts[1],
        SamplingPart::Image {
            mime_type: "image/png".into(),
            bytes: 3
        }
    );
    assert_eq!(s.system_prompt.as_deref(), Some("You are terse."));
    assert_eq!(s.model_hints, vec!["claude".to_owned()]);
    assert_eq!(s.priorities.intelligence, Some(0.8));
    assert_eq!(s.max_tokens, 100);
    assert_eq!(
        s.temperature,
        Some(0.7),
        "an f32 is shown as the value meant"
    );
    assert_eq!(s.stop_sequences, vec!["\n\n".to_owned()]);
    assert_eq!(s.include_context.as_deref(), Some("thisServer"));
    assert_eq!(
        request.message(),
        "Reply as the model to a conversation of 3 messages."
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Present(id) if *id == ID))
    );
}

#[test]
fn the_reply_the_person_writes_is_the_models_reply() {
    let mut engine = Engine::new(EngineConfig::default());
    engine.handle(incoming(params(), Declared::default()), 0);
    let effects = engine.handle(
        Input::Answer {
            id: ID,
            answer: Answer::Accepted(content(json!({"text": "Paris."}))),
        },
        10,
    );
    let reply = reply_of(&effects).expect("replied").clone();
    assert_eq!(
        reply.into_sampling_result().unwrap(),
        json!({"role": "assistant", "content": {"type": "text", "text": "Paris."},
               "model": sampling::DEFAULT_MODEL, "stopReason": "endTurn"})
    );
    assert!(engine.pending().is_empty());
}

#[test]
fn a_named_model_is_kept_and_an_empty_reply_is_refused_in_place() {
    let mut engine = Engine::new(EngineConfig::default());
    engine.handle(incoming(params(), Declared::default()), 0);
    let effects = engine.handle(
        Input::Answer {
            id: ID,
            answer: Answer::Accepted(content(json!({"text": "   "}))),
        },
        10,
    );
    assert!(reply_of(&effects).is_none(), "an empty reply was sent");
    let errors = effects
        .iter()
        .find_map(|e| match e {
            Effect::Invalid { errors, .. } => Some(errors.clone()),
            _ => None,
        })
        .expect("invalid");
    assert_eq!(errors[0].field, sampling::REPLY_FIELD);
    let effects = engine.handle(
        Input::Answer {
            id: ID,
            answer: Answer::Accepted(content(json!({"text": "Paris.", "model": "ada"}))),
        },
        20,
    );
    assert_eq!(
        reply_of(&effects),
        Some(&Reply::Sampled {
            text: "Paris.".into(),
            model: "ada".into()
        })
    );
}

#[test]
fn declining_is_the_specs_user_rejected_error() {
    let mut engine = Engine::new(EngineConfig::default());
    engine.handle(incoming(params(), Declared::default()), 0);
    let effects = engine.handle(
        Input::Answer {
            id: ID,
            answer: Answer::Declined,
        },
        10,
    );
    let error = reply_of(&effects)
        .cloned()
        .unwrap()
        .into_sampling_result()
        .unwrap_err();
    assert_eq!(error.code.0, -1);
    assert_eq!(error.message, "User rejected sampling request");
    assert_eq!(error.data, Some(json!({"action": "decline"})));
}

#[test]
fn sampling_not_declared_is_refused() {
    let mut engine = Engine::new(EngineConfig::default());
    let effects = engine.handle(incoming(params(), Declared::FORM_AND_URL), 0);
    let Some(Reply::Error { code, message, .. }) = reply_of(&effects) else {
        panic!("not refused: {effects:?}")
    };
    assert_eq!(*code, -32602);
    assert!(message.contains("sampling was not declared"), "{message}");
    assert!(engine.pending().is_empty());
}

#[test]
fn a_rate_limited_sampling_request_is_refused_naming_sampling() {
    let mut engine = Engine::new(EngineConfig {
        rate_burst: 1,
        ..EngineConfig::default()
    });
    engine.handle(incoming(params(), Declared::default()), 0);
    let second = Input::Request(Incoming {
        id: RequestId(6),
        server: SERVER,
        server_name: "writer".into(),
        call: Some(CallId(3)),
        era: ProtocolEra::Push,
        declared: Declared::default(),
        params: ElicitParams::Sampling(params()),
    });
    let effects = engine.handle(second, 0);
    let refused = effects.iter().find_map(|e| match e {
        Effect::Reply {
            id: RequestId(6),
            reply: Reply::Error { code, message, .. },
        } => Some((*code, message.as_str())),
        _ => None,
    });
    let (code, message) = refused.expect("refused");
    assert_eq!(code, interlude_engine::codes::RATE_LIMITED);
    assert!(
        message.starts_with("too many sampling requests from server `writer`"),
        "{message}"
    );
    assert_eq!(engine.pending(), vec![ID]);
}

#[test]
fn malformed_requests_are_refused_naming_the_field() {
    let cases = [
        (json!([]), "params"),
        (json!({"maxTokens": 10}), "messages"),
        (json!({"messages": [], "maxTokens": 10}), "messages"),
        (
            json!({"messages": [{"role": "model", "content": {"type": "text", "text": "x"}}], "maxTokens": 10}),
            "messages[0].role",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "video"}}], "maxTokens": 10}),
            "messages[0].content.type",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text"}]}], "maxTokens": 10}),
            "messages[0].content[1].text",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]}),
            "maxTokens",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}], "maxTokens": -1}),
            "maxTokens",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}], "maxTokens": 5,
                   "modelPreferences": {"costPriority": 7}}),
            "modelPreferences.costPriority",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x".repeat(200_000)}}], "maxTokens": 5}),
            "messages[0].content.text",
        ),
    ];
    for (params, field) in cases {
        let mut engine = Engine::new(EngineConfig::default());
        let effects = engine.handle(incoming(params.clone(), Declared::default()), 0);
        let Some(Reply::Error {
            code,
            message,
            data,
        }) = reply_of(&effects)
        else {
            panic!("not refused: {params}")
        };
        assert_eq!(*code, -32602, "{params}");
        assert_eq!(data, &Some(json!({"field": field})), "{message}");
        assert!(message.contains(field), "{message} does not name {field}");
    }
}

#[test]
fn too_many_messages_are_refused() {
    let message = json!({"role": "user", "content": {"type": "text", "text": "x"}});
    let params = json!({"messages": vec![message; sampling::MAX_MESSAGES + 1], "maxTokens": 5});
    let mut engine = Engine::new(EngineConfig::default());
    let effects = engine.handle(incoming(params, Declared::default()), 0);
    let Some(Reply::Error { message, .. }) = reply_of(&effects) else {
        panic!("not refused")
    };
    assert!(message.contains("the limit is"), "{message}");
}

#[test]
fn a_withdrawn_sampling_request_is_closed() {
    let mut engine = Engine::new(EngineConfig::default());
    engine.handle(incoming(params(), Declared::default()), 0);
    let effects = engine.handle(
        Input::Withdraw {
            id: ID,
            reason: "the call ended".into(),
        },
        10,
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Closed { id, .. } if *id == ID))
    );
    assert!(engine.pending().is_empty());
}
