//! Opening sealed state: whatever a client sends as `requestState` on a 2026-07-28 retry is
//! refused unless the server sealed exactly that for exactly this call; and a secret sealed at
//! rest (`StoreKey`, ChaCha20-Poly1305) opens only as sealed, for its own user and name.
//!
//! The `requestState` half runs the real path: a server of `interlude_server` in this process
//! answers `tools/call` with `input_required` and a sealed state; the target then retries with
//! arbitrary text, or with the genuine state altered (bytes flipped, cut, extended), or sent
//! with another call's arguments. Only the genuine state with the same call may complete (the
//! positive control: it must), everything else must come back a JSON-RPC error, never a result
//! and never a panic.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use interlude_fuzz::server::{input_required, mrtr_call, session};
use interlude_fuzz::{Content, as_json};
use interlude_server::url::{StoreKey, UserId};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

#[derive(Debug, Arbitrary)]
enum State {
    /// Arbitrary text.
    Raw(String),
    /// The genuine state, altered.
    Altered(Vec<Edit>),
    /// The genuine state, sent with other arguments.
    OtherCall(Content),
}

#[derive(Debug, Arbitrary)]
enum Edit {
    Flip(u16, u8),
    Cut(u16),
    Insert(u16, char),
    Append(String),
    SwapParts,
}

#[derive(Debug, Arbitrary)]
struct Case {
    state: State,
    /// The answer sent with the retry (accept with a name, most of the time).
    answer: Option<Content>,
    /// The half about secrets at rest.
    secret: Vec<u8>,
    user: String,
    name: String,
    sealed: Vec<Edit>,
    raw_sealed: Vec<u8>,
}

fn edit_text(original: &str, edits: &[Edit]) -> String {
    let mut bytes = original.as_bytes().to_vec();
    apply(&mut bytes, edits);
    String::from_utf8_lossy(&bytes).into_owned()
}

fn apply(bytes: &mut Vec<u8>, edits: &[Edit]) {
    for e in edits.iter().take(8) {
        let at = |i: u16, len: usize| if len == 0 { 0 } else { usize::from(i) % len };
        match e {
            Edit::Flip(i, mask) => {
                let n = at(*i, bytes.len());
                if let Some(b) = bytes.get_mut(n) {
                    *b ^= mask | 1;
                }
            }
            Edit::Cut(i) => {
                let n = at(*i, bytes.len());
                bytes.truncate(n);
            }
            Edit::Insert(i, c) => {
                let n = at(*i, bytes.len() + 1);
                let mut buf = [0u8; 4];
                let s = c.encode_utf8(&mut buf);
                for (k, b) in s.bytes().enumerate() {
                    bytes.insert(n + k, b);
                }
            }
            Edit::Append(s) => bytes.extend_from_slice(s.as_bytes()),
            Edit::SwapParts => {
                let text = String::from_utf8_lossy(bytes).into_owned();
                let mut parts: Vec<&str> = text.split('.').collect();
                if parts.len() >= 3 {
                    parts.swap(1, 2);
                }
                *bytes = parts.join(".").into_bytes();
            }
        }
    }
}

fn check_secret(case: &Case) {
    let key = StoreKey::from_bytes([9u8; 32]);
    let user = UserId::new(case.user.clone());
    let Some(sealed) = key.fuzz_seal(&user, &case.name, &case.secret) else {
        panic!("sealing failed");
    };
    assert_eq!(
        key.fuzz_open(&user, &case.name, &sealed).as_deref(),
        Some(case.secret.as_slice()),
        "a sealed secret does not open"
    );
    let other = UserId::new(format!("{}x", case.user));
    assert!(
        key.fuzz_open(&other, &case.name, &sealed).is_none(),
        "opened for another user"
    );
    assert!(
        key.fuzz_open(&user, &format!("{}x", case.name), &sealed)
            .is_none(),
        "opened under another name"
    );
    let mut altered = sealed.clone();
    apply(&mut altered, &case.sealed);
    if altered != sealed {
        assert!(
            key.fuzz_open(&user, &case.name, &altered).is_none(),
            "an altered sealed secret opened"
        );
    }
    if case.raw_sealed != sealed {
        assert!(
            key.fuzz_open(&user, &case.name, &case.raw_sealed).is_none(),
            "arbitrary bytes opened as a secret"
        );
    }
}

/// A seed: `{"state": "text"}` (sent as it is), `{"flip": [at, mask]}` or `{"cut": at}` (the
/// genuine state altered), or `{"other_arguments": {…}}`; with `"answer": {…}` for the answer
/// sent along, and `"secret"`, `"user"`, `"name"` for the half about secrets at rest.
fn from_json(v: &serde_json::Value) -> Case {
    let text = |key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let at = |i: usize| {
        v.pointer(&format!("/flip/{i}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let state = if let Some(s) = v.get("state").and_then(Value::as_str) {
        State::Raw(s.to_owned())
    } else if v.get("flip").is_some() {
        State::Altered(vec![Edit::Flip(at(0) as u16, at(1) as u8)])
    } else if let Some(n) = v.get("cut").and_then(Value::as_u64) {
        State::Altered(vec![Edit::Cut(n as u16)])
    } else {
        State::OtherCall(Content(
            v.get("other_arguments")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        ))
    };
    Case {
        state,
        answer: v
            .get("answer")
            .and_then(Value::as_object)
            .cloned()
            .map(Content),
        secret: text("secret").into_bytes(),
        user: text("user"),
        name: text("name"),
        sealed: vec![Edit::Flip(at(0) as u16, at(1) as u8)],
        raw_sealed: Vec::new(),
    }
}

fuzz_target!(|data: &[u8]| {
    let case = match as_json(data) {
        Some(v) => from_json(&v),
        None => match Case::arbitrary_take_rest(Unstructured::new(data)) {
            Ok(case) => case,
            Err(_) => return,
        },
    };
    run(case);
});

fn run(case: Case) {
    check_secret(&case);
    let no_answer_given = case.answer.is_none();
    let answer = match &case.answer {
        Some(c) => json!({"action": "accept", "content": Value::Object(c.0.clone())}),
        None => json!({"action": "accept", "content": {"name": "Ada"}}),
    };
    let args = json!({"a": 1}).as_object().cloned();
    session(|mut s| async move {
        let first = mrtr_call(1, "greet", args.clone(), None, None);
        let Some(reply) = s.call(&first, &json!(1)).await else {
            panic!("no answer to the first call");
        };
        let Some((genuine, keys)) = input_required(&reply) else {
            panic!("the first call did not ask: {reply}");
        };
        let key = keys.first().cloned().unwrap_or_else(|| "q0".into());
        let responses = json!({ key: answer });
        let (state, arguments) = match &case.state {
            State::Raw(text) => (text.clone(), args.clone()),
            State::Altered(edits) => (edit_text(&genuine, edits), args.clone()),
            State::OtherCall(c) => (genuine.clone(), Some(c.0.clone())),
        };
        let same = state == genuine && arguments == args;
        let retry = mrtr_call(2, "greet", arguments, Some(responses), Some(&state));
        let Some(reply) = s.call(&retry, &json!(2)).await else {
            panic!("no answer to the retry");
        };
        if same && no_answer_given {
            // The positive control: the genuine state, for its own call, with a valid answer.
            assert!(
                reply.to_string().contains("Hello, Ada!"),
                "the genuine state did not complete: {reply}"
            );
        } else if same {
            // An arbitrary answer with the genuine state: completed or refused, either is fine.
        } else {
            assert!(
                reply.get("error").is_some(),
                "a requestState the server did not seal for this call was taken: {state:?} \
                 -> {reply}"
            );
        }
    });
}
