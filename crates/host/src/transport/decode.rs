//! A server's message, from the bytes of one line or event: rmcp's own types, with the kind of
//! message (request, response, notification, error) picked by its keys first.
//!
//! rmcp's `JsonRpcMessage` deserializes as an untagged enum: the whole message is buffered,
//! then each kind is tried in turn, and every miss builds an error message (about a tenth of
//! a message's cost on the host, twice a call). The keys alone say which kind it can be — rmcp
//! checks them the same way, with the same rule — so one pass that keeps nothing reads them,
//! and the message is then parsed as that kind only. Anything that pass cannot place is left
//! to rmcp's own parse, so that what rmcp accepts is accepted, and refused as rmcp refuses it.
//!
//! What it does not do: accept anything rmcp's types do not, or change a message.

use rmcp::model::{CustomRequest, JsonRpcMessage, JsonRpcRequest, ServerRequest};
use rmcp::service::{RoleClient, RxJsonRpcMessage};
use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};

/// Which of a JSON-RPC message's keys a line has.
#[derive(Default)]
struct Keys {
    method: bool,
    id: bool,
    result: bool,
    error: bool,
    /// Its method is `elicitation/create`.
    elicitation: bool,
}

/// A method, as far as the keys' pass needs to know it.
#[derive(Deserialize)]
enum Method {
    #[serde(rename = "elicitation/create")]
    Elicitation,
    #[serde(other)]
    Other,
}

/// A key of a message, read without copying it.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Method,
    Id,
    Result,
    Error,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Look;
        impl<'de> Visitor<'de> for Look {
            type Value = Keys;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC message")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Keys::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Method => {
                            keys.method = true;
                            // Not a string: no method rmcp knows (rmcp's parse decides).
                            keys.elicitation =
                                matches!(map.next_value::<Method>(), Ok(Method::Elicitation));
                            continue;
                        }
                        Key::Id => keys.id = true,
                        Key::Result => keys.result = true,
                        Key::Error => keys.error = true,
                        Key::Other => {}
                    }
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(keys)
            }
        }
        deserializer.deserialize_map(Look)
    }
}

/// Parses `line` (one message, without its line end) as rmcp would: `Ok(None)` for a
/// notification rmcp ignores by design (one of another protocol, or a `notifications/…` of no
/// MCP method), an error for anything else that is no message.
pub(crate) fn message(
    line: &[u8],
) -> Result<Option<RxJsonRpcMessage<RoleClient>>, serde_json::Error> {
    let parsed = match serde_json::from_slice::<Keys>(line) {
        // rmcp's rule: a method and an id make a request, a method alone a notification, a
        // result or an error (and no method) a response or an error.
        //
        // A question for the person comes as rmcp's `CustomRequest`, its params as JSON (its
        // `_meta` in the request's extensions, as rmcp puts it): the engine admits that JSON
        // as it admits params rmcp cannot type, with the same checks and the same schema
        // parser — rmcp's typed form of it (untagged schemas, tried property by property)
        // costs more than the rest of the round trip, and the engine reads it back as JSON.
        Ok(Keys {
            method: true,
            id: true,
            result: false,
            error: false,
            elicitation: true,
        }) => serde_json::from_slice::<JsonRpcRequest<CustomRequest>>(line).map(|r| {
            JsonRpcMessage::Request(JsonRpcRequest {
                jsonrpc: r.jsonrpc,
                id: r.id,
                request: ServerRequest::CustomRequest(r.request),
            })
        }),
        Ok(Keys {
            method: true,
            id: true,
            result: false,
            error: false,
            ..
        }) => serde_json::from_slice(line).map(JsonRpcMessage::Request),
        Ok(Keys {
            method: true,
            id: false,
            result: false,
            error: false,
            ..
        }) => serde_json::from_slice(line).map(JsonRpcMessage::Notification),
        Ok(Keys {
            method: false,
            result: true,
            error: false,
            ..
        }) => serde_json::from_slice(line).map(JsonRpcMessage::Response),
        Ok(Keys {
            method: false,
            result: false,
            error: true,
            ..
        }) => serde_json::from_slice(line).map(JsonRpcMessage::Error),
        _ => serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(line),
    };
    match parsed {
        Ok(message) => Ok(Some(message)),
        // What rmcp makes of it, and whether it ignores it.
        Err(_) => match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(line) {
            Ok(message) => Ok(Some(message)),
            Err(_) if ignored(line) => Ok(None),
            Err(e) => Err(e),
        },
    }
}

/// Whether rmcp ignores `line` rather than refusing it (rmcp 3.11's rule, for the lines its
/// types refuse): a message with no `id` whose method is not one of MCP's, or one of a
/// `notifications/…` method MCP does not define.
fn ignored(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Head {
        method: Option<String>,
        id: Option<IgnoredAny>,
    }
    let Ok(Head {
        method: Some(method),
        id,
    }) = serde_json::from_slice::<Head>(line)
    else {
        return false;
    };
    let notification = is_mcp_notification(&method);
    (id.is_none() && !(is_mcp_request(&method) || notification))
        || (method.starts_with("notifications/") && !notification)
}

/// The request methods of MCP that rmcp knows.
fn is_mcp_request(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "server/discover"
            | "prompts/get"
            | "prompts/list"
            | "resources/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "resources/templates/list"
            | "subscriptions/listen"
            | "tools/call"
            | "tools/list"
            | "completion/complete"
            | "elicitation/create"
            | "logging/setLevel"
            | "roots/list"
            | "sampling/createMessage"
    )
}

/// The notification methods of MCP that rmcp knows.
fn is_mcp_notification(method: &str) -> bool {
    matches!(
        method,
        "notifications/cancelled"
            | "notifications/initialized"
            | "notifications/message"
            | "notifications/progress"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/resources/updated"
            | "notifications/roots/list_changed"
            | "notifications/subscriptions/acknowledged"
            | "notifications/tools/list_changed"
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Every kind of message parses to what rmcp's own parse makes of it.
    #[test]
    fn each_kind_is_what_rmcps_parse_makes_of_it() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
            r#"{"id":5,"jsonrpc":"2.0","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"x/custom","params":{"a":1}}"#,
        ];
        for line in lines {
            let ours = message(line.as_bytes()).unwrap().unwrap();
            let rmcps: RxJsonRpcMessage<RoleClient> = serde_json::from_str(line).unwrap();
            assert_eq!(format!("{ours:?}"), format!("{rmcps:?}"), "{line}");
        }
    }

    /// A question for the person comes as JSON, with its `_meta` where rmcp puts a request's
    /// (in its extensions); anything else about it as rmcp has it.
    #[test]
    fn a_question_comes_as_json_with_its_meta_apart() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"_meta":{"progressToken":1},"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}"#;
        let Some(JsonRpcMessage::Request(request)) = message(line.as_bytes()).unwrap() else {
            panic!("not a request");
        };
        assert_eq!(request.id, rmcp::model::RequestId::Number(1));
        let ServerRequest::CustomRequest(custom) = &request.request else {
            panic!("not as JSON: {request:?}");
        };
        assert_eq!(custom.method, "elicitation/create");
        assert_eq!(
            custom.params,
            Some(
                serde_json::json!({"mode": "form", "message": "Who?", "requestedSchema":
                {"type": "object", "properties": {"name": {"type": "string"}}}})
            )
        );
        use rmcp::model::GetMeta;
        assert_eq!(
            request.request.get_meta().get("progressToken"),
            Some(&serde_json::json!(1))
        );
        // rmcp types the same line; its params are the same question.
        let rmcps: RxJsonRpcMessage<RoleClient> = serde_json::from_str(line).unwrap();
        let JsonRpcMessage::Request(typed) = rmcps else {
            panic!("rmcp: not a request");
        };
        let ServerRequest::ElicitRequest(typed) = typed.request else {
            panic!("rmcp: not a question");
        };
        assert_eq!(
            serde_json::to_value(&typed.params).unwrap(),
            custom.params.clone().unwrap()
        );
    }

    /// Lines mutated at random (bytes changed, dropped, doubled): never a panic, and what rmcp
    /// accepts is accepted — as the same message, but for a question, which comes as JSON —
    /// while what rmcp refuses is refused or ignored.
    #[test]
    fn mutated_lines_are_taken_as_rmcp_takes_them() {
        let seeds = [
            r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"_meta":{"progressToken":1},"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no"}}"#,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"{}[]\":,0123456789abcdefghijklmnopqrstuvwxyz_/- \\\xff";
        let (mut accepted, mut refused) = (0, 0);
        for round in 0..20_000 {
            let Some(seed) = seeds.get(round % seeds.len()) else {
                continue;
            };
            let mut line = seed.as_bytes().to_vec();
            for _ in 0..=(next() % 3) {
                let at = (next() as usize) % line.len().max(1);
                let byte = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 => {
                        if let Some(b) = line.get_mut(at) {
                            *b = byte;
                        }
                    }
                    1 if !line.is_empty() => {
                        line.remove(at);
                    }
                    _ => line.insert(at.min(line.len()), byte),
                }
            }
            let ours = message(&line);
            match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(&line) {
                Ok(rmcps) => {
                    accepted += 1;
                    let Ok(Some(ours)) = ours else {
                        panic!(
                            "rmcp takes it, we do not: {}",
                            String::from_utf8_lossy(&line)
                        );
                    };
                    let question = matches!(&ours, JsonRpcMessage::Request(r)
                        if matches!(&r.request, ServerRequest::CustomRequest(c)
                            if c.method == "elicitation/create"));
                    if !question {
                        assert_eq!(
                            format!("{ours:?}"),
                            format!("{rmcps:?}"),
                            "{}",
                            String::from_utf8_lossy(&line)
                        );
                    }
                }
                Err(_) => {
                    refused += 1;
                    assert!(
                        !matches!(ours, Ok(Some(_))),
                        "rmcp refuses it, we take it: {}",
                        String::from_utf8_lossy(&line)
                    );
                }
            }
        }
        assert!(accepted > 1_000 && refused > 1_000, "{accepted} {refused}");
    }

    /// What rmcp refuses is refused, and what it ignores is ignored.
    #[test]
    fn refused_and_ignored_as_rmcp_does() {
        for refused in [
            "{",
            "[1,2]",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            "hello",
        ] {
            assert!(message(refused.as_bytes()).is_err(), "{refused}");
            assert!(
                serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(refused).is_err(),
                "{refused}"
            );
        }
        // Another protocol's notification that rmcp's types cannot take, and one of no MCP
        // method: ignored. An MCP notification that cannot be read is refused.
        for ignored in [
            r#"{"jsonrpc":"2.0","method":"$/lsp","params":5}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"notifications/nobody","params":5}"#,
        ] {
            assert!(
                serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(ignored).is_err(),
                "{ignored}"
            );
            assert!(matches!(message(ignored.as_bytes()), Ok(None)), "{ignored}");
        }
        let broken = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":5}"#;
        assert!(message(broken.as_bytes()).is_err());
        // Nested far past the parser's limit, in a question and in a response: refused, no
        // overflow (the keys' pass keeps its place on the heap, the parses stop at 128).
        let deep = "[".repeat(200_000);
        for head in [
            r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"x":"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"x":"#,
        ] {
            let line = format!("{head}{deep}");
            assert!(message(line.as_bytes()).is_err(), "{head}");
        }
    }
}
