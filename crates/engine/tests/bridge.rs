//! The bridge of one MCP Apps view: handshake and gate, the view's calls to its server, the
//! person's questions, display modes, sizes, context diffs, teardown, dialects, and refusals.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_engine::bridge::{
    BridgeEffect, PersonQuestion, ServerMethod, ViewBridge, ViewConfig, ViewPhase, codes,
};
use interlude_protocol::apps::{UiDialect, Visibility};
use serde_json::{Map, Value, json};

fn tools(name: &str) -> Option<Visibility> {
    match name {
        "get-time" => Some(Visibility::DEFAULT),
        "poll" => Some(Visibility::APP_ONLY),
        "secret-admin" => Some(Visibility::MODEL_ONLY),
        _ => None,
    }
}

fn view() -> ViewBridge {
    ViewBridge::new(ViewConfig::for_tests("ui://t/view.html"), 0)
}

fn send(view: &mut ViewBridge, message: Value) -> Vec<BridgeEffect> {
    view.from_view(&message, 10, &tools)
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

fn methods(effects: &[BridgeEffect]) -> Vec<String> {
    to_view(effects)
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(response)").to_owned())
        .collect()
}

fn initialize(view: &mut ViewBridge, caps: Value) -> Value {
    let effects = send(
        view,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {
            "appInfo": {"name": "t", "version": "1"}, "appCapabilities": caps,
            "protocolVersion": "2026-01-26"}}),
    );
    to_view(&effects).remove(0)
}

fn live(view: &mut ViewBridge) -> Vec<BridgeEffect> {
    initialize(view, json!({}));
    send(
        view,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    )
}

fn object(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn nothing_reaches_the_view_before_initialized_then_input_before_result() {
    let mut v = view();
    assert!(to_view(&v.tool_input_partial(object(json!({"a": 1})))).is_empty());
    assert!(to_view(&v.tool_input(Some(object(json!({"a": 1, "b": 2}))))).is_empty());
    assert!(to_view(&v.tool_input_partial(object(json!({"a": 9})))).is_empty());
    assert!(to_view(&v.tool_result(json!({"content": [], "_meta": {"viewUUID": "u"}}))).is_empty());
    // A second terminal message is never sent.
    assert!(to_view(&v.tool_cancelled("late")).is_empty());
    let answer = initialize(&mut v, json!({}));
    assert_eq!(
        answer["id"], 1,
        "the only thing before initialized: the answer"
    );
    assert_eq!(v.phase(), ViewPhase::Initializing);
    let flushed = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    assert_eq!(
        methods(&flushed),
        [
            "ui/notifications/tool-input",
            "ui/notifications/tool-result"
        ],
        "the partial superseded, the input once, one outcome"
    );
    let sent = to_view(&flushed);
    assert_eq!(sent[0]["params"]["arguments"], json!({"a": 1, "b": 2}));
    assert_eq!(
        sent[1]["params"]["_meta"]["viewUUID"], "u",
        "the result's _meta unchanged"
    );
    assert_eq!(v.phase(), ViewPhase::Live);
    assert!(
        to_view(&v.tool_input(None)).is_empty(),
        "input at most once"
    );
}

#[test]
fn the_initialize_answer_says_who_the_host_is_and_what_the_view_gets() {
    let mut v = view();
    let mut context = Map::new();
    context.insert("theme".into(), json!("dark"));
    assert!(
        v.host_context(context).is_empty(),
        "folded in before initialize"
    );
    let answer = initialize(&mut v, json!({"availableDisplayModes": ["inline"]}));
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], "2026-01-26");
    assert_eq!(result["hostInfo"]["name"], "interlude");
    let caps = &result["hostCapabilities"];
    for key in [
        "openLinks",
        "serverTools",
        "serverResources",
        "logging",
        "sandbox",
    ] {
        assert!(caps.get(key).is_some(), "{key}: {caps}");
    }
    assert_eq!(
        caps["sandbox"]["csp"],
        json!({}),
        "nothing declared, nothing granted"
    );
    let context = &result["hostContext"];
    assert_eq!(context["theme"], "dark");
    assert_eq!(context["toolInfo"]["id"], 1);
    assert_eq!(context["toolInfo"]["tool"]["name"], "test");
    assert_eq!(context["displayMode"], "inline");
    assert_eq!(
        v.app_capabilities()["availableDisplayModes"],
        json!(["inline"])
    );
}

#[test]
fn unknown_methods_and_broken_messages_are_refused_by_the_rules() {
    let mut v = view();
    live(&mut v);
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": "x-7", "method": "sampling/createMessage", "params": {}}),
    );
    let reply = &to_view(&e)[0];
    assert_eq!(reply["id"], "x-7", "the view's id, unchanged");
    assert_eq!(reply["error"]["code"], codes::METHOD_NOT_FOUND);
    let e = send(&mut v, json!({"jsonrpc": "1.0", "id": 3, "method": "ping"}));
    assert_eq!(to_view(&e)[0]["error"]["code"], codes::INVALID_REQUEST);
    // Notifications that mean nothing are dropped, and the drop is on record.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/dance"}),
    );
    assert!(to_view(&e).is_empty());
    assert!(
        e.iter()
            .any(|x| matches!(x, BridgeEffect::Traffic(t) if t.refused.is_some()))
    );
    let e = send(&mut v, json!("hello"));
    assert!(to_view(&e).is_empty());
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 4, "method": "ui/open-link", "params": {"href": "x"}}),
    );
    let error = &to_view(&e)[0]["error"];
    assert_eq!(error["code"], codes::INVALID_PARAMS);
    assert!(
        error["message"].as_str().unwrap().contains("`url`"),
        "{error}"
    );
    let e = send(&mut v, json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}));
    assert_eq!(to_view(&e)[0]["result"], json!({}));
}

#[test]
fn a_view_loaded_again_hears_the_calls_input_and_outcome_again() {
    let mut v = view();
    live(&mut v);
    let mut given = methods(&v.tool_input(Some(object(json!({"city": "Lisbon"})))));
    given.extend(methods(&v.tool_result(json!({"content": []}))));
    assert_eq!(
        given,
        [
            "ui/notifications/tool-input",
            "ui/notifications/tool-result"
        ]
    );
    // The page reloaded: a new document of the same view starts over.
    initialize(&mut v, json!({}));
    let again = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    assert_eq!(
        methods(&again),
        [
            "ui/notifications/tool-input",
            "ui/notifications/tool-result"
        ],
        "in the same order, once the new document is initialized"
    );
    assert_eq!(to_view(&again)[0]["params"]["arguments"]["city"], "Lisbon");
    // Nothing twice for the same document.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    assert!(to_view(&e).is_empty(), "{e:?}");
}

#[test]
fn an_id_that_is_no_string_or_number_is_never_run() {
    let mut v = view();
    live(&mut v);
    for id in [json!({"a": 1}), json!([7]), json!(true)] {
        let e = send(
            &mut v,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "poll"}}),
        );
        assert!(
            !e.iter().any(|x| matches!(x, BridgeEffect::ToServer { .. })),
            "{id}: not forwarded"
        );
        let reply = &to_view(&e)[0];
        assert_eq!(reply["id"], Value::Null, "{id}: the answer cannot name it");
        assert_eq!(reply["error"]["code"], codes::INVALID_REQUEST);
        assert!(
            reply["error"]["message"].as_str().unwrap().contains("`id`"),
            "{reply}"
        );
    }
}

#[test]
fn a_huge_method_name_is_neither_echoed_nor_logged_whole() {
    let mut v = view();
    live(&mut v);
    let name = "x".repeat(1 << 20);
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 9, "method": name, "params": {}}),
    );
    let message = to_view(&e)[0]["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.len() < 300, "{} bytes echoed", message.len());
    assert!(message.contains("1048576 characters"), "{message}");
    for effect in &e {
        if let BridgeEffect::Traffic(t) = effect {
            assert!(t.method.len() < 300, "{} bytes logged", t.method.len());
        }
    }
}

#[test]
fn a_view_calls_only_its_servers_tools_that_views_may_call() {
    let mut v = view();
    live(&mut v);
    let call = |name: &str| {
        json!({"jsonrpc": "2.0", "id": format!("c-{name}"), "method": "tools/call",
                                   "params": {"name": name, "arguments": {}}})
    };
    for (tool, word) in [
        ("secret-admin", "visibility"),
        ("elsewhere", "not a tool of"),
    ] {
        let e = send(&mut v, call(tool));
        assert!(
            !e.iter().any(|x| matches!(x, BridgeEffect::ToServer { .. })),
            "{tool}"
        );
        let error = &to_view(&e)[0]["error"];
        assert_eq!(error["code"], codes::INVALID_PARAMS);
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(tool) && message.contains(word),
            "{message}"
        );
    }
    let e = send(&mut v, call("poll"));
    let proxy = e
        .iter()
        .find_map(|x| match x {
            BridgeEffect::ToServer {
                proxy,
                method,
                params,
            } => {
                assert_eq!(*method, ServerMethod::ToolsCall);
                assert_eq!(params["name"], "poll");
                Some(*proxy)
            }
            _ => None,
        })
        .expect("forwarded");
    let back = v.server_reply(
        proxy,
        Ok(json!({"content": [{"type": "text", "text": "42"}]})),
    );
    let reply = &to_view(&back)[0];
    assert_eq!(reply["id"], "c-poll");
    assert_eq!(reply["result"]["content"][0]["text"], "42");
    assert!(
        v.server_reply(proxy, Ok(json!({}))).is_empty(),
        "answered once"
    );
}

#[test]
fn a_view_calling_too_fast_is_told_to_wait() {
    let mut config = ViewConfig::for_tests("ui://t/v.html");
    config.call_burst = 2;
    config.calls_per_minute = 1;
    let mut v = ViewBridge::new(config, 0);
    live(&mut v);
    let mut forwarded = 0;
    let mut denied = 0;
    for i in 0..4 {
        let e = send(
            &mut v,
            json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "get-time"}}),
        );
        if e.iter().any(|x| matches!(x, BridgeEffect::ToServer { .. })) {
            forwarded += 1;
        } else if to_view(&e)
            .first()
            .is_some_and(|m| m["error"]["code"] == codes::DENIED)
        {
            denied += 1;
        }
    }
    assert_eq!((forwarded, denied), (2, 2));
}

#[test]
fn links_and_downloads_wait_for_the_person() {
    let mut v = view();
    live(&mut v);
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 8, "method": "ui/open-link",
                                "params": {"url": "https://modelcontextprotocol.io/"}}),
    );
    assert!(to_view(&e).is_empty(), "no answer before the person's");
    let question = e
        .iter()
        .find_map(|x| match x {
            BridgeEffect::Ask {
                question,
                what: PersonQuestion::OpenLink { url },
            } => {
                assert_eq!(url, "https://modelcontextprotocol.io/");
                Some(*question)
            }
            _ => None,
        })
        .unwrap();
    let e = v.answer(question, Err("the person declined to open the link".into()));
    let reply = &to_view(&e)[0];
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(8), json!(codes::DENIED))
    );

    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 9, "method": "ui/download-file",
        "params": {"contents": [{"type": "resource", "resource": {"uri": "file:///r.csv", "text": "a,b"}}]}}),
    );
    let question = e
        .iter()
        .find_map(|x| match x {
            BridgeEffect::Ask {
                question,
                what: PersonQuestion::Download { contents },
            } => {
                assert_eq!(contents.len(), 1);
                Some(*question)
            }
            _ => None,
        })
        .unwrap();
    let e = v.answer(question, Ok(json!({})));
    assert_eq!(to_view(&e)[0]["result"], json!({}));
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 10, "method": "ui/download-file", "params": {"contents": []}}),
    );
    assert_eq!(to_view(&e)[0]["error"]["code"], codes::INVALID_PARAMS);
}

#[test]
fn display_modes_change_only_to_what_both_sides_have() {
    let mut v = view();
    initialize(
        &mut v,
        json!({"availableDisplayModes": ["inline", "fullscreen"]}),
    );
    send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    let ask = |mode: &str| json!({"jsonrpc": "2.0", "id": mode, "method": "ui/request-display-mode", "params": {"mode": mode}});
    let e = send(&mut v, ask("fullscreen"));
    assert!(e.contains(&BridgeEffect::DisplayMode("fullscreen".into())));
    let sent = to_view(&e);
    assert_eq!(sent[0]["result"]["mode"], "fullscreen");
    assert_eq!(sent[1]["method"], "ui/notifications/host-context-changed");
    assert_eq!(sent[1]["params"], json!({"displayMode": "fullscreen"}));
    // The view did not list pip; the host has no split: the current mode stays.
    for mode in ["pip", "split"] {
        let e = send(&mut v, ask(mode));
        assert!(!e.iter().any(|x| matches!(x, BridgeEffect::DisplayMode(_))));
        assert_eq!(to_view(&e)[0]["result"]["mode"], "fullscreen");
    }
    assert_eq!(v.display_mode(), "fullscreen");
}

#[test]
fn the_view_hears_only_the_context_keys_that_changed() {
    let mut v = view();
    let mut first = Map::new();
    first.insert("theme".into(), json!("light"));
    first.insert("locale".into(), json!("en-GB"));
    v.host_context(first);
    live(&mut v);
    let mut same = Map::new();
    same.insert("theme".into(), json!("light"));
    assert!(to_view(&v.host_context(same)).is_empty());
    let mut change = Map::new();
    change.insert("theme".into(), json!("dark"));
    change.insert("locale".into(), json!("en-GB"));
    let sent = to_view(&v.host_context(change));
    assert_eq!(sent[0]["params"], json!({"theme": "dark"}));
}

#[test]
fn sizes_are_clamped_and_logs_messages_and_model_context_reach_the_host() {
    let mut v = view();
    live(&mut v);
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"width": 640.4, "height": 1e9}}),
    );
    assert!(e.contains(&BridgeEffect::Resize {
        width: Some(641),
        height: Some(6000)
    }));
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": -5}}),
    );
    assert!(!e.iter().any(|x| matches!(x, BridgeEffect::Resize { .. })));
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "warning", "data": "low disk"}}),
    );
    assert!(e.contains(&BridgeEffect::Log {
        level: "warning".into(),
        data: json!("low disk")
    }));
    // A line of the view's console (the sandbox's `console.js`) is kept apart from its log.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "logger": "console", "data": "Uncaught TypeError: x is undefined"}}),
    );
    assert!(e.contains(&BridgeEffect::Console {
        level: "error".into(),
        text: "Uncaught TypeError: x is undefined".into()
    }));
    assert!(!e.iter().any(|x| matches!(x, BridgeEffect::Log { .. })));
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/log", "params": {"level": "info", "data": 1}}),
    );
    assert!(
        e.iter().any(|x| matches!(x, BridgeEffect::Log { .. })),
        "the alias too"
    );
    // `ui/message` with one block (the spec's own example) is taken as a list of one.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 2, "method": "ui/message",
        "params": {"role": "user", "content": {"type": "text", "text": "Show me more"}}}),
    );
    assert!(e.contains(&BridgeEffect::Message(
        json!([{"type": "text", "text": "Show me more"}])
    )));
    for n in 1..=2 {
        send(
            &mut v,
            json!({"jsonrpc": "2.0", "id": 10 + n, "method": "ui/update-model-context",
            "params": {"structuredContent": {"n": n}}}),
        );
    }
    assert_eq!(
        v.model_context().unwrap()["structuredContent"]["n"],
        2,
        "the last one wins"
    );
}

#[test]
fn teardown_waits_for_the_view_at_most_the_deadline() {
    let mut v = view();
    live(&mut v);
    let e = v.teardown("the person closed it", 100);
    let request = &to_view(&e)[0];
    assert_eq!(request["method"], "ui/resource-teardown");
    let id = request["id"].clone();
    assert_eq!(v.phase(), ViewPhase::TearingDown);
    // It may still save its state with its server…
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {"name": "poll"}}),
    );
    assert!(
        e.iter().any(|x| matches!(
            x,
            BridgeEffect::ToServer {
                method: ServerMethod::ToolsCall,
                ..
            }
        )),
        "{e:?}"
    );
    // …but no longer ask the person or change how it is shown.
    for (method, params) in [
        ("ui/open-link", json!({"url": "https://example.com/"})),
        ("ui/request-display-mode", json!({"mode": "fullscreen"})),
    ] {
        let e = send(
            &mut v,
            json!({"jsonrpc": "2.0", "id": 21, "method": method, "params": params}),
        );
        assert_eq!(to_view(&e)[0]["error"]["code"], codes::DENIED, "{method}");
        assert!(!e.iter().any(|x| matches!(x, BridgeEffect::Ask { .. })));
    }
    let e = send(&mut v, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    assert!(e.contains(&BridgeEffect::Destroy));
    assert_eq!(v.phase(), ViewPhase::Closed);
    assert!(send(&mut v, json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).is_empty());

    // A view that does not answer is destroyed at the deadline.
    let mut silent = view();
    live(&mut silent);
    silent.teardown("call ended", 100);
    assert!(silent.tick(2_099).is_empty());
    assert!(silent.tick(2_100).contains(&BridgeEffect::Destroy));
    // One that never initialized goes at once.
    let mut loading = view();
    assert!(
        loading
            .teardown("server gone", 5)
            .contains(&BridgeEffect::Destroy)
    );
}

#[test]
fn a_cancelled_server_request_is_cancelled_at_the_server_and_its_answer_dropped() {
    let mut v = view();
    live(&mut v);
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 33, "method": "resources/read", "params": {"uri": "ui://t/data"}}),
    );
    let proxy = e
        .iter()
        .find_map(|x| match x {
            BridgeEffect::ToServer { proxy, .. } => Some(*proxy),
            _ => None,
        })
        .unwrap();
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 33}}),
    );
    assert!(e.contains(&BridgeEffect::CancelServer {
        proxy,
        reason: "the app view cancelled it".into()
    }));
    assert!(to_view(&v.server_reply(proxy, Ok(json!({})))).is_empty());
}

fn forwarded(effects: &[BridgeEffect]) -> u64 {
    effects
        .iter()
        .find_map(|x| match x {
            BridgeEffect::ToServer { proxy, .. } => Some(*proxy),
            _ => None,
        })
        .expect("forwarded to the server")
}

#[test]
fn a_views_call_hears_its_servers_progress_under_its_own_token() {
    let mut v = view();
    live(&mut v);
    // The App SDK's callServerTool sends a progress token with every call.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "poll", "arguments": {}, "_meta": {"progressToken": "view-7"}}}),
    );
    let proxy = forwarded(&e);
    let e = v.server_progress(proxy, 1.0, Some(3.0), Some("one of three"));
    assert_eq!(
        to_view(&e),
        [
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": "view-7", "progress": 1.0, "total": 3.0, "message": "one of three"}})
        ]
    );
    // Integer tokens are the view's too; no total, no message: none sent.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
            "name": "poll", "_meta": {"progressToken": 42}}}),
    );
    let second = forwarded(&e);
    assert_eq!(
        to_view(&v.server_progress(second, 0.5, None, None))[0]["params"],
        json!({"progressToken": 42, "progress": 0.5})
    );
    // Answered: later progress is nobody's.
    assert_eq!(
        to_view(&v.server_reply(proxy, Ok(json!({"content": []}))))[0]["id"],
        7
    );
    assert!(v.server_progress(proxy, 2.0, Some(3.0), None).is_empty());
    // A call without a token hears no progress; a bad token is no token.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "poll"}}),
    );
    assert!(v.server_progress(forwarded(&e), 1.0, None, None).is_empty());
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
            "name": "poll", "_meta": {"progressToken": {"x": 1}}}}),
    );
    assert!(v.server_progress(forwarded(&e), 1.0, None, None).is_empty());
    // Not a number: nothing.
    assert!(v.server_progress(second, f64::NAN, None, None).is_empty());
}

#[test]
fn a_view_cancelling_its_call_stops_the_server_and_hears_no_answer_nor_progress() {
    let mut v = view();
    live(&mut v);
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call", "params": {
            "name": "poll", "_meta": {"progressToken": "t"}}}),
    );
    let proxy = forwarded(&e);
    assert_eq!(v.pending_server_requests(), 1);
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": "c1", "reason": "the person pressed Stop"}}),
    );
    assert_eq!(
        e.iter()
            .filter(|x| matches!(x, BridgeEffect::CancelServer { .. }))
            .collect::<Vec<_>>(),
        [&BridgeEffect::CancelServer {
            proxy,
            reason: "the person pressed Stop".into()
        }],
        "the server is told once, with the view's reason"
    );
    assert!(to_view(&e).is_empty(), "a cancellation is not answered");
    assert_eq!(v.pending_server_requests(), 0);
    assert!(v.server_progress(proxy, 1.0, None, None).is_empty());
    assert!(
        to_view(&v.server_reply(proxy, Ok(json!({"content": []})))).is_empty(),
        "no late answer"
    );
    assert!(
        to_view(&v.server_reply(proxy, Err((-32800, "cancelled".into())))).is_empty(),
        "nor a late error"
    );
    // Cancelling again, or a request the view never made, does nothing.
    let again = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c1"}}),
    );
    assert!(
        !again
            .iter()
            .any(|x| matches!(x, BridgeEffect::CancelServer { .. }))
    );
}

#[test]
fn closing_a_view_cancels_its_requests_in_flight_at_the_server() {
    let mut v = view();
    live(&mut v);
    let first = forwarded(&send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "poll"}}),
    ));
    let second = forwarded(&send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "ui://t/x"}}),
    ));
    let answered = forwarded(&send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "poll"}}),
    ));
    v.server_reply(answered, Ok(json!({"content": []})));
    // While the view answers its teardown, its calls still stand.
    let e = v.teardown("the person closed it", 100);
    assert!(
        !e.iter()
            .any(|x| matches!(x, BridgeEffect::CancelServer { .. }))
    );
    let id = to_view(&e)[0]["id"].clone();
    let e = send(&mut v, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    let reason = "the app view that asked was closed".to_owned();
    assert_eq!(
        e.iter()
            .filter(|x| matches!(x, BridgeEffect::CancelServer { .. } | BridgeEffect::Destroy))
            .cloned()
            .collect::<Vec<_>>(),
        [
            BridgeEffect::CancelServer {
                proxy: first,
                reason: reason.clone()
            },
            BridgeEffect::CancelServer {
                proxy: second,
                reason: reason.clone()
            },
            BridgeEffect::Destroy
        ],
        "the unanswered ones, in order, before the frame goes"
    );
    assert!(to_view(&v.server_reply(first, Ok(json!({})))).is_empty());

    // At the teardown's deadline too.
    let mut silent = view();
    live(&mut silent);
    let p = forwarded(&send(
        &mut silent,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "poll"}}),
    ));
    silent.teardown("call ended", 0);
    let e = silent.tick(10_000);
    assert!(e.contains(&BridgeEffect::CancelServer { proxy: p, reason }));
    assert!(e.contains(&BridgeEffect::Destroy));
}

#[test]
fn older_views_are_read_and_answered_in_their_own_words() {
    // Seed 001: the core `initialize`, `mcp-ui/…` names.
    let mut seed = view();
    let e = send(
        &mut seed,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
    );
    assert_eq!(seed.dialect(), UiDialect::Seed);
    assert!(to_view(&e)[0]["result"]["hostContext"].is_object());
    send(
        &mut seed,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(
        methods(&seed.tool_result(json!({"content": []}))),
        ["mcp-ui/tool-result"]
    );
    let e = send(
        &mut seed,
        json!({"jsonrpc": "2.0", "method": "mcp-ui/size-change", "params": {"height": 300}}),
    );
    assert!(e.contains(&BridgeEffect::Resize {
        width: None,
        height: Some(300)
    }));

    // The early draft: `ui/size-change`, `ui/tool-cancelled`.
    let mut early = view();
    let e = send(
        &mut early,
        json!({"jsonrpc": "2.0", "method": "ui/size-change", "params": {"height": 120}}),
    );
    assert!(e.contains(&BridgeEffect::Resize {
        width: None,
        height: Some(120)
    }));
    early.from_view(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {}}),
        0,
        &tools,
    );
    send(
        &mut early,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    assert_eq!(early.dialect(), UiDialect::EarlyDraft);
    assert_eq!(
        methods(&early.tool_cancelled("stopped")),
        ["ui/tool-cancelled"]
    );
}

#[test]
fn the_sandbox_proxy_gets_the_html_when_it_is_ready_and_the_view_never_sees_it_asked() {
    let mut v = view();
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-proxy-ready", "params": {}}),
    );
    let ready = &to_view(&e)[0];
    assert_eq!(ready["method"], "ui/notifications/sandbox-resource-ready");
    assert!(
        ready["params"]["html"]
            .as_str()
            .unwrap()
            .contains("<title>test</title>")
    );
    assert_eq!(
        ready["params"]["sandbox"],
        "allow-scripts allow-same-origin allow-forms"
    );
    // The early draft's name for the proxy's readiness works too.
    let mut early = view();
    let e = send(
        &mut early,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-ready"}),
    );
    assert_eq!(to_view(&e).len(), 1);
}

#[test]
fn a_view_with_tools_of_its_own_lists_them_and_the_host_calls_them() {
    let mut v = view();
    initialize(&mut v, json!({"tools": {"listChanged": true}}));
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    let list = to_view(&e)
        .into_iter()
        .find(|m| m["method"] == "tools/list")
        .expect("listed at once");
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": list["id"], "result": {"tools": [
        {"name": "get-allocations", "inputSchema": {"type": "object"}}, {"bogus": true}]}}),
    );
    let tools = e
        .iter()
        .find_map(|x| match x {
            BridgeEffect::ViewTools(t) => Some(t.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(tools.len(), 1, "entries without a name are dropped");
    let (call, e) = v.call_view_tool("get-allocations", Map::new()).unwrap();
    let request = &to_view(&e)[0];
    assert_eq!(request["method"], "tools/call");
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"content": [{"type": "text", "text": "40/60"}]}}),
    );
    assert!(e.iter().any(|x| matches!(x, BridgeEffect::ViewToolResult { call: c, name, result: Ok(_) } if *c == call && name == "get-allocations")));
    // It changed its tools: the host asks again.
    let e = send(
        &mut v,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
    );
    assert_eq!(methods(&e), ["tools/list"]);
    // A view without tools is never asked.
    let mut plain = view();
    live(&mut plain);
    assert!(plain.call_view_tool("x", Map::new()).is_none());
}

#[test]
fn the_person_brings_a_view_back_inline_from_the_hosts_controls() {
    let mut v = view();
    live(&mut v);
    send(
        &mut v,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ui/request-display-mode", "params": {"mode": "fullscreen"}}),
    );
    assert_eq!(v.display_mode(), "fullscreen");
    let e = v.set_display_mode("inline");
    assert!(e.contains(&BridgeEffect::DisplayMode("inline".into())));
    assert_eq!(to_view(&e)[0]["params"], json!({"displayMode": "inline"}));
    assert!(
        v.set_display_mode("inline").is_empty(),
        "no change, nothing said"
    );
    assert!(
        v.set_display_mode("split").is_empty(),
        "not a mode of the host"
    );
}
