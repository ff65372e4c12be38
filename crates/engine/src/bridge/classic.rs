//! MCP-UI's `postMessage` protocol, the one views embedded in tool results speak (the
//! `@mcp-ui/client` renderers before it became an MCP Apps host): plain objects with a `type`
//! and a `payload`, not JSON-RPC. Read here and carried out by the same rules as the JSON-RPC
//! methods they stand for — the same gate, the same rate limit, the same consent:
//!
//! | The view sends | Meaning | It hears |
//! |---|---|---|
//! | `tool {toolName, params}` | `tools/call` of its own server's tool | `ui-message-received`, then `ui-message-response {response}` with the `CallToolResult` (or `{error}`) |
//! | `prompt {prompt}` | `ui/message`: shown to the person as what the view asks to say | received, then `{response: {}}` |
//! | `intent {intent, params}` | shown to the person as what the view asks to do | received, then `{response: {}}` |
//! | `notify {message}` | a notice for the person | received, then `{response: {}}` |
//! | `link {url}` | `ui/open-link`: the URL rules and the person's consent | received, then `{response: {}}` once opened, or `{error}` |
//! | `ui-size-change {width, height}` | `ui/notifications/size-changed` | — |
//! | `ui-lifecycle-iframe-ready` | the view is ready | `ui-lifecycle-iframe-render-data {renderData}` |
//! | `ui-request-render-data` | asks for the render data | `ui-lifecycle-iframe-render-data` with its `messageId` |
//! | anything else | — | `ui-message-response {error}` (-32601) |
//!
//! Every answer echoes the message's `messageId` (a string or a number; a message with another
//! kind of `messageId` is refused). Render data is the call's input and output and the host's
//! context (`theme`, `locale`, `displayMode`, `maxHeight`), over the resource's
//! `mcpui.dev/ui-initial-render-data`.

use interlude_protocol::apps::Visibility;
use serde_json::{Map, Value, json};

use super::from_view::{kind_of, shown};
use super::types::{BridgeEffect, PersonQuestion, ServerMethod, Traffic, ViewPhase, Way, codes};
use super::{Asker, ViewBridge};

/// The acknowledgement of an action message.
const RECEIVED: &str = "ui-message-received";
/// The answer to an action message.
const RESPONSE: &str = "ui-message-response";
/// The render data, unasked (when the view is ready) or asked.
const RENDER_DATA: &str = "ui-lifecycle-iframe-render-data";

impl ViewBridge {
    /// One MCP-UI message (an object with a string `type` and no `jsonrpc`).
    pub(super) fn classic_message(
        &mut self,
        object: &Map<String, Value>,
        now_ms: u64,
        tools: &dyn Fn(&str) -> Option<Visibility>,
        out: &mut Vec<BridgeEffect>,
    ) {
        let kind = shown(
            object
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        );
        let kind: &str = &kind;
        let message_id = match object.get("messageId") {
            None | Some(Value::Null) => None,
            Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
            Some(other) => {
                let why = format!(
                    "`messageId` must be a string or a number, not {}",
                    kind_of(other)
                );
                self.refused(kind, None, why.clone(), out);
                self.classic_response(None, Err((codes::INVALID_REQUEST, why)), out);
                return;
            }
        };
        let payload = object.get("payload").cloned().unwrap_or(Value::Null);
        let action = matches!(kind, "tool" | "prompt" | "intent" | "notify" | "link");
        let lifecycle = matches!(
            kind,
            "ui-size-change" | "ui-lifecycle-iframe-ready" | "ui-request-render-data"
        );
        if !action && !lifecycle {
            self.refused(
                kind,
                message_id.as_ref(),
                "unknown message type".into(),
                out,
            );
            let why = format!("unknown message type: {kind}");
            self.classic_response(message_id, Err((codes::METHOD_NOT_FOUND, why)), out);
            return;
        }
        out.push(BridgeEffect::Traffic(Traffic {
            way: Way::In,
            method: kind.to_owned(),
            id: message_id.clone(),
            refused: None,
        }));
        // The view speaks this protocol: it is as live as it will get.
        if !self.classic_ready && self.phase != ViewPhase::TearingDown {
            self.classic_ready = true;
            out.push(BridgeEffect::Live);
        }
        if lifecycle {
            match kind {
                "ui-size-change" => out.extend(self.resize(&payload)),
                "ui-lifecycle-iframe-ready" => self.render_data(None, out),
                _ => self.render_data(message_id, out),
            }
            return;
        }
        // As for a JSON-RPC view: while it is being closed it may still save its state with
        // its server, not reach the person.
        if self.phase == ViewPhase::TearingDown && kind != "tool" {
            let why = "the view is being closed".to_owned();
            self.classic_response(message_id, Err((codes::DENIED, why)), out);
            return;
        }
        self.send(json!({"type": RECEIVED, "messageId": message_id}), out);
        if let Err(refusal) =
            self.classic_action(kind, message_id.clone(), &payload, now_ms, tools, out)
        {
            self.classic_response(message_id, Err(refusal), out);
        }
    }

    /// Carries out action `kind`; an error is answered to the view.
    fn classic_action(
        &mut self,
        kind: &str,
        message_id: Option<Value>,
        payload: &Value,
        now_ms: u64,
        tools: &dyn Fn(&str) -> Option<Visibility>,
        out: &mut Vec<BridgeEffect>,
    ) -> Result<(), (i32, String)> {
        let invalid = |field: &str, what: &str| {
            (
                codes::INVALID_PARAMS,
                format!("Invalid payload for {kind}: `{field}` must be {what}"),
            )
        };
        let text = |field: &str| -> Result<String, (i32, String)> {
            payload
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| invalid(field, "a string"))
        };
        match kind {
            "tool" => {
                let name = text("toolName")?;
                let arguments = match payload.get("params") {
                    None | Some(Value::Null) => json!({}),
                    Some(Value::Object(params)) => Value::Object(params.clone()),
                    Some(_) => return Err(invalid("params", "an object")),
                };
                self.may_call(&name, now_ms, tools)?;
                let params = json!({"name": name, "arguments": arguments});
                self.forward(
                    Asker::Classic(message_id),
                    ServerMethod::ToolsCall,
                    params,
                    out,
                );
            }
            "prompt" => {
                let prompt = text("prompt")?;
                out.push(BridgeEffect::Message(
                    json!([{"type": "text", "text": prompt}]),
                ));
                self.classic_response(message_id, Ok(json!({})), out);
            }
            "intent" => {
                let intent = text("intent")?;
                let params = match payload.get("params") {
                    None | Some(Value::Null) => json!({}),
                    Some(params @ Value::Object(_)) => params.clone(),
                    Some(_) => return Err(invalid("params", "an object")),
                };
                out.push(BridgeEffect::Intent { intent, params });
                self.classic_response(message_id, Ok(json!({})), out);
            }
            "notify" => {
                let message = text("message")?;
                out.push(BridgeEffect::Notice(message));
                self.classic_response(message_id, Ok(json!({})), out);
            }
            _ => {
                let url = text("url")?;
                let question = self.number();
                self.to_person.insert(question, Asker::Classic(message_id));
                out.push(BridgeEffect::Ask {
                    question,
                    what: PersonQuestion::OpenLink { url },
                });
            }
        }
        Ok(())
    }

    /// `ui-message-response` for message `message_id`: `{response}` or `{error}`.
    pub(super) fn classic_response(
        &mut self,
        message_id: Option<Value>,
        reply: Result<Value, (i32, String)>,
        out: &mut Vec<BridgeEffect>,
    ) {
        let payload = match reply {
            Ok(response) => json!({ "response": response }),
            Err((code, message)) => json!({ "error": {"code": code, "message": message} }),
        };
        self.send(
            json!({"type": RESPONSE, "messageId": message_id, "payload": payload}),
            out,
        );
    }

    /// The render data, answering message `message_id` (or unasked).
    fn render_data(&mut self, message_id: Option<Value>, out: &mut Vec<BridgeEffect>) {
        let mut data = self.config.render_data.clone();
        let context = &self.config.host_context;
        for key in ["theme", "locale"] {
            if let Some(value) = context.get(key) {
                data.insert(key.into(), value.clone());
            }
        }
        data.insert("displayMode".into(), Value::from(self.display_mode.clone()));
        data.insert("maxHeight".into(), Value::from(self.config.max_height));
        for kept in &self.replay {
            let params = kept.get("params");
            match kept.get("method").and_then(Value::as_str) {
                Some(m) if m.ends_with("tool-input") => {
                    if let Some(arguments) = params.and_then(|p| p.get("arguments")) {
                        data.insert("toolInput".into(), arguments.clone());
                    }
                }
                Some(m) if m.ends_with("tool-result") => {
                    if let Some(result) = params {
                        let output = result.get("structuredContent").unwrap_or(result);
                        data.insert("toolOutput".into(), output.clone());
                    }
                }
                _ => {}
            }
        }
        let mut message =
            json!({"type": RENDER_DATA, "payload": {"renderData": Value::Object(data)}});
        if let (Some(id), Some(object)) = (message_id, message.as_object_mut()) {
            object.insert("messageId".into(), id);
        }
        self.send(message, out);
    }

    fn refused(&self, kind: &str, id: Option<&Value>, why: String, out: &mut Vec<BridgeEffect>) {
        out.push(BridgeEffect::Traffic(Traffic {
            way: Way::In,
            method: kind.to_owned(),
            id: id.cloned(),
            refused: Some(why),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::ViewConfig;

    fn bridge() -> ViewBridge {
        ViewBridge::new(ViewConfig::for_tests("ui://classic/hello"), 0)
    }

    fn tools(name: &str) -> Option<Visibility> {
        match name {
            "echo_back" => Some(Visibility::DEFAULT),
            "model_only" => Some(Visibility::MODEL_ONLY),
            _ => None,
        }
    }

    fn to_view(effects: &[BridgeEffect]) -> Vec<Value> {
        effects
            .iter()
            .filter_map(|e| match e {
                BridgeEffect::ToView(m) => Some(m.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_tool_message_is_acknowledged_forwarded_and_answered_with_its_message_id() {
        let mut view = bridge();
        let effects = view.from_view(
            &json!({"type": "tool", "messageId": "m1",
                    "payload": {"toolName": "echo_back", "params": {"v": 42}}}),
            0,
            &tools,
        );
        let sent = to_view(&effects);
        assert_eq!(sent, vec![json!({"type": RECEIVED, "messageId": "m1"})]);
        let proxy = effects
            .iter()
            .find_map(|e| match e {
                BridgeEffect::ToServer {
                    proxy,
                    method: ServerMethod::ToolsCall,
                    params,
                } => {
                    assert_eq!(
                        params,
                        &json!({"name": "echo_back", "arguments": {"v": 42}})
                    );
                    Some(*proxy)
                }
                _ => None,
            })
            .expect("forwarded to the server");
        let result = json!({"content": [{"type": "text", "text": "42"}]});
        let answered = to_view(&view.server_reply(proxy, Ok(result.clone())));
        assert_eq!(
            answered,
            vec![json!({"type": RESPONSE, "messageId": "m1", "payload": {"response": result}})]
        );
    }

    #[test]
    fn a_tool_of_no_server_or_hidden_from_views_is_refused_in_its_response() {
        let mut view = bridge();
        for (name, says) in [
            ("other_servers_tool", "is not a tool of test"),
            ("model_only", "not callable from a view"),
        ] {
            let effects = view.from_view(
                &json!({"type": "tool", "messageId": 7, "payload": {"toolName": name}}),
                0,
                &tools,
            );
            assert!(
                !effects
                    .iter()
                    .any(|e| matches!(e, BridgeEffect::ToServer { .. }))
            );
            let sent = to_view(&effects);
            let error = &sent[1]["payload"]["error"];
            assert_eq!(sent[1]["messageId"], 7);
            assert_eq!(error["code"], codes::INVALID_PARAMS);
            assert!(error["message"].as_str().unwrap_or_default().contains(says));
        }
    }

    #[test]
    fn a_flood_of_tool_messages_meets_the_rate_limit() {
        let mut view = bridge();
        let mut denied = 0;
        for n in 0..50 {
            let effects = view.from_view(
                &json!({"type": "tool", "messageId": n, "payload": {"toolName": "echo_back"}}),
                0,
                &tools,
            );
            if to_view(&effects)
                .iter()
                .any(|m| m["payload"]["error"]["code"] == codes::DENIED)
            {
                denied += 1;
            }
        }
        assert_eq!(denied, 50 - 10, "the burst of the test configuration is 10");
    }

    #[test]
    fn prompt_intent_and_notify_reach_the_person_and_are_answered() {
        let mut view = bridge();
        let effects = view.from_view(
            &json!({"type": "prompt", "messageId": "p", "payload": {"prompt": "Book it"}}),
            0,
            &tools,
        );
        assert!(effects.contains(&BridgeEffect::Message(
            json!([{"type": "text", "text": "Book it"}])
        )));
        let effects = view.from_view(
            &json!({"type": "intent", "payload": {"intent": "checkout", "params": {"sku": 3}}}),
            0,
            &tools,
        );
        assert!(effects.contains(&BridgeEffect::Intent {
            intent: "checkout".into(),
            params: json!({"sku": 3})
        }));
        let effects = view.from_view(
            &json!({"type": "notify", "messageId": "n", "payload": {"message": "Saved"}}),
            0,
            &tools,
        );
        assert!(effects.contains(&BridgeEffect::Notice("Saved".into())));
        let sent = to_view(&effects);
        assert_eq!(
            sent.last(),
            Some(&json!({"type": RESPONSE, "messageId": "n", "payload": {"response": {}}}))
        );
    }

    #[test]
    fn a_link_asks_the_person_and_the_answer_comes_back_as_its_response() {
        let mut view = bridge();
        let effects = view.from_view(
            &json!({"type": "link", "messageId": "l", "payload": {"url": "https://example.com"}}),
            0,
            &tools,
        );
        let question = effects
            .iter()
            .find_map(|e| match e {
                BridgeEffect::Ask {
                    question,
                    what: PersonQuestion::OpenLink { url },
                } if url == "https://example.com" => Some(*question),
                _ => None,
            })
            .expect("the person is asked");
        let sent = to_view(&view.answer(question, Err("the person declined".into())));
        assert_eq!(sent[0]["messageId"], "l");
        assert_eq!(
            sent[0]["payload"]["error"]["message"],
            "the person declined"
        );
    }

    #[test]
    fn malformed_and_unknown_messages_are_answered_with_errors() {
        let mut view = bridge();
        let sent = to_view(&view.from_view(
            &json!({"type": "tool", "messageId": "x", "payload": {"toolName": 5}}),
            0,
            &tools,
        ));
        assert!(
            sent[1]["payload"]["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("`toolName` must be a string")
        );
        let sent = to_view(&view.from_view(
            &json!({"type": "navigate-top", "messageId": "y", "payload": {}}),
            0,
            &tools,
        ));
        assert_eq!(sent[0]["payload"]["error"]["code"], codes::METHOD_NOT_FOUND);
        let sent = to_view(&view.from_view(
            &json!({"type": "notify", "messageId": {"evil": true}, "payload": {"message": "x"}}),
            0,
            &tools,
        ));
        assert_eq!(sent[0]["payload"]["error"]["code"], codes::INVALID_REQUEST);
        assert!(sent[0].get("messageId").is_none_or(Value::is_null));
    }

    #[test]
    fn ready_and_asked_render_data_carry_the_call_and_the_context() {
        let mut view = bridge();
        view.tool_input(json!({"city": "Lisbon"}).as_object().cloned());
        view.tool_result(json!({"content": [], "structuredContent": {"t": 21}}));
        let sent =
            to_view(&view.from_view(&json!({"type": "ui-lifecycle-iframe-ready"}), 0, &tools));
        let data = &sent[0]["payload"]["renderData"];
        assert_eq!(sent[0]["type"], RENDER_DATA);
        assert_eq!(data["toolInput"], json!({"city": "Lisbon"}));
        assert_eq!(data["toolOutput"], json!({"t": 21}));
        assert_eq!(data["displayMode"], "inline");
        let sent = to_view(&view.from_view(
            &json!({"type": "ui-request-render-data", "messageId": "r"}),
            0,
            &tools,
        ));
        assert_eq!(sent[0]["messageId"], "r");
    }

    #[test]
    fn a_size_change_resizes_within_the_maximum() {
        let mut view = bridge();
        let effects = view.from_view(
            &json!({"type": "ui-size-change", "payload": {"width": 300, "height": 1e9}}),
            0,
            &tools,
        );
        assert!(effects.contains(&BridgeEffect::Resize {
            width: Some(300),
            height: Some(6_000)
        }));
    }
}
