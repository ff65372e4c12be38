//! `interlude_engine::bridge::ViewBridge`: one MCP Apps view's bridge fed arbitrary messages from
//! the view (`from_view`) interleaved with everything the host may do to it (tool input and
//! result, host context, display mode, questions, server replies and progress, teardown, time).
//!
//! Beyond "no panic", the gate the bridge documents: no call input, result or cancellation
//! reaches the view before it is live; the input at most once and no partial input after it;
//! the result or the cancellation at most once, never both.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use interlude_engine::bridge::{BridgeEffect, ViewBridge, ViewConfig, Way};
use interlude_fuzz::{Content, Json, TOOL_NAMES, ViewMessage, as_json, list, obj, small};
use interlude_protocol::apps::{UiDialect, Visibility};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[derive(Debug, Arbitrary)]
struct Case {
    dialect: u8,
    renders_question: bool,
    host_context: Content,
    steps: Vec<Step>,
}

#[derive(Debug, Arbitrary)]
enum Step {
    FromView(ViewMessage),
    /// The view's usual opening: `ui/initialize` then `initialized`.
    Handshake,
    ToolInput(Option<Content>),
    ToolInputPartial(Content),
    ToolResult(Json),
    ToolCancelled,
    HostContext(Content),
    DisplayMode(u8),
    ListViewTools,
    CallViewTool(u8, Content),
    Ask(Json),
    WithdrawQuestion,
    ServerReply(u8, Result<Json, i32>),
    ServerProgress(u8, f64, Option<f64>),
    Answer(u8, Result<Json, ()>),
    Teardown,
    Time(u16),
}

#[derive(Default)]
struct Gate {
    live: bool,
    input: usize,
    outcome: usize,
}

impl Gate {
    fn watch(
        &mut self,
        effects: &[BridgeEffect],
        proxies: &mut Vec<u64>,
        questions: &mut Vec<u64>,
    ) {
        let answered: Vec<&Value> = effects
            .iter()
            .filter_map(|e| match e {
                BridgeEffect::Traffic(t) if t.way == Way::Out && t.method == "response" => {
                    t.id.as_ref()
                }
                _ => None,
            })
            .collect();
        for e in effects {
            match e {
                // The view's document initializing (again: it reloaded) is a new instance,
                // which hears the call's input and outcome afresh once live. Only an
                // initialize the bridge answered with a result counts (one without an id, or
                // refused, changes nothing).
                BridgeEffect::Traffic(t)
                    if t.way == Way::In
                        && t.method.ends_with("/initialize")
                        && t.id.as_ref().is_some_and(|id| answered.contains(&id)) =>
                {
                    *self = Gate::default();
                }
                BridgeEffect::Live => self.live = true,
                BridgeEffect::ToServer { proxy, .. } => proxies.push(*proxy),
                BridgeEffect::Ask { question, .. } => questions.push(*question),
                BridgeEffect::ToView(m) => {
                    let method = m.get("method").and_then(Value::as_str).unwrap_or_default();
                    let call = method.contains("tool-input")
                        || method.contains("tool-result")
                        || method.contains("tool-cancelled");
                    assert!(
                        !call || self.live,
                        "{method} reached the view before it was live"
                    );
                    if method.contains("tool-input-partial") {
                        assert_eq!(self.input, 0, "a partial input after the input");
                    } else if method.contains("tool-input") {
                        self.input += 1;
                        assert!(self.input <= 1, "the input was sent twice");
                    } else if method.contains("tool-result") || method.contains("tool-cancelled") {
                        self.outcome += 1;
                        assert!(self.outcome <= 1, "a second result or cancellation");
                    }
                }
                _ => {}
            }
        }
    }
}

fn visibility(name: &str) -> Option<Visibility> {
    match name {
        "both" => Some(Visibility::DEFAULT),
        "model_only" => Some(Visibility::MODEL_ONLY),
        "app_only" => Some(Visibility::APP_ONLY),
        _ => None,
    }
}

fn pick(list: &[u64], i: u8) -> u64 {
    if list.is_empty() {
        u64::from(i)
    } else {
        list[usize::from(i) % list.len()]
    }
}

/// A seed: `{"dialect": 0, "renders_question": false, "host_context": {…}, "steps": […]}`;
/// a step is a message from the view, or `{"host": "<what>", "value": …, "n": 0}` for what the
/// host does (`handshake`, `tool_input`, `tool_input_partial`, `tool_result`,
/// `tool_cancelled`, `host_context`, `display_mode`, `list_view_tools`, `call_view_tool`,
/// `ask`, `withdraw_question`, `server_reply`, `server_error`, `progress`, `answer`,
/// `teardown`, `time`).
fn from_json(v: &Value) -> Case {
    let steps = list(v, "steps")
        .into_iter()
        .map(|s| {
            let Some(host) = s.get("host").and_then(Value::as_str) else {
                return Step::FromView(ViewMessage(s));
            };
            let value = s.get("value").cloned().unwrap_or(Value::Null);
            let map = value.as_object().cloned().unwrap_or_default();
            let n = small(&s, "n");
            match host {
                "handshake" => Step::Handshake,
                "tool_input" => Step::ToolInput(Some(Content(map))),
                "tool_input_partial" => Step::ToolInputPartial(Content(map)),
                "tool_result" => Step::ToolResult(Json(value)),
                "tool_cancelled" => Step::ToolCancelled,
                "host_context" => Step::HostContext(Content(map)),
                "display_mode" => Step::DisplayMode(n),
                "list_view_tools" => Step::ListViewTools,
                "call_view_tool" => Step::CallViewTool(n, Content(map)),
                "ask" => Step::Ask(Json(value)),
                "withdraw_question" => Step::WithdrawQuestion,
                "server_reply" => Step::ServerReply(n, Ok(Json(value))),
                "server_error" => Step::ServerReply(n, Err(-32000)),
                "progress" => Step::ServerProgress(n, value.as_f64().unwrap_or(0.5), Some(1.0)),
                "answer" => Step::Answer(n, Ok(Json(value))),
                "teardown" => Step::Teardown,
                _ => Step::Time(u16::from(n) * 100),
            }
        })
        .collect();
    Case {
        dialect: small(v, "dialect"),
        renders_question: v.get("renders_question") == Some(&Value::Bool(true)),
        host_context: Content(obj(v, "host_context")),
        steps,
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
    let mut config = ViewConfig::for_tests("ui://fuzz/view.html");
    config.dialect = match case.dialect % 4 {
        0 => UiDialect::Apps,
        1 => UiDialect::Seed,
        2 => UiDialect::EarlyDraft,
        _ => UiDialect::Skybridge,
    };
    config.renders_question = case.renders_question;
    config.host_context = case.host_context.0;
    let mut now = 0u64;
    let mut bridge = ViewBridge::new(config, now);
    let mut gate = Gate::default();
    let (mut proxies, mut questions) = (Vec::new(), Vec::new());
    for step in case.steps.into_iter().take(64) {
        now += 1;
        let effects = match step {
            Step::FromView(m) => bridge.from_view(&m.0, now, &visibility),
            Step::Handshake => {
                let mut e = bridge.from_view(
                    &serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "ui/initialize",
                        "params": {"appInfo": {"name": "fuzz", "version": "1"},
                                   "appCapabilities": {"tools": {}},
                                   "protocolVersion": "2026-01-26"}}),
                    now,
                    &visibility,
                );
                e.extend(bridge.from_view(
                    &serde_json::json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
                    now,
                    &visibility,
                ));
                e
            }
            Step::ToolInput(a) => bridge.tool_input(a.map(|c| c.0)),
            Step::ToolInputPartial(a) => bridge.tool_input_partial(a.0),
            Step::ToolResult(r) => bridge.tool_result(r.0),
            Step::ToolCancelled => bridge.tool_cancelled("fuzz"),
            Step::HostContext(c) => bridge.host_context(c.0),
            Step::DisplayMode(m) => bridge
                .set_display_mode(["inline", "fullscreen", "pip", "", "x"][usize::from(m) % 5]),
            Step::ListViewTools => bridge.list_view_tools(),
            Step::CallViewTool(n, args) => bridge
                .call_view_tool(TOOL_NAMES[usize::from(n) % TOOL_NAMES.len()], args.0)
                .map(|(_, e)| e)
                .unwrap_or_default(),
            Step::Ask(p) => bridge.ask(p.0),
            Step::WithdrawQuestion => bridge.withdraw_question(Some("fuzz")),
            Step::ServerReply(i, r) => {
                let proxy = pick(&proxies, i);
                bridge.server_reply(proxy, r.map(|j| j.0).map_err(|c| (c, "no".to_owned())))
            }
            Step::ServerProgress(i, progress, total) => {
                let proxy = pick(&proxies, i);
                bridge.server_progress(proxy, progress, total, Some("fuzz"))
            }
            Step::Answer(i, r) => {
                let question = pick(&questions, i);
                bridge.answer(question, r.map(|j| j.0).map_err(|()| "declined".to_owned()))
            }
            Step::Teardown => bridge.teardown("fuzz", now),
            Step::Time(ms) => {
                now += u64::from(ms);
                bridge.tick(now)
            }
        };
        interlude_fuzz::debug(&effects);
        gate.watch(&effects, &mut proxies, &mut questions);
        let _ = (bridge.phase(), bridge.dialect(), bridge.display_mode());
        let _ = bridge.pending_server_requests();
    }
}
