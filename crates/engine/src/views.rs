//! The open MCP Apps views: each view's bridge, its server and what that server lets views
//! call. Every [`ViewInput`] but `Open` runs here; what a bridge says that concerns the app
//! form a view renders (the view is live, it answered, it answered with an error) is handed
//! back to the core as a [`Verdict`], since the request is the app form kind's to decide.

use std::collections::BTreeMap;

use interlude_protocol::apps::Visibility;
use serde_json::Value;

use crate::bridge::{BridgeEffect, ViewBridge};
use crate::ids::{RequestId, ServerId, ViewId};
use crate::io::{Effect, ViewInput};
use crate::out::Out;

/// An app view and what its bridge needs to know of its server.
#[derive(Debug)]
struct OpenView {
    bridge: ViewBridge,
    server: ServerId,
    tools: BTreeMap<String, Visibility>,
    /// The app form it renders.
    request: Option<RequestId>,
}

/// What a view's bridge said that concerns the app form it renders.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// The view is live (it said `ui/notifications/initialized`), and renders questions or not.
    Live(RequestId, ViewId, bool),
    /// The view answered it (an `ElicitResult` as JSON, unchecked).
    Answer(RequestId, ViewId, Value),
    /// The view cannot render it, for this reason.
    Unusable(RequestId, String),
}

/// The open views.
#[derive(Debug, Default)]
pub(crate) struct Views {
    open: BTreeMap<ViewId, OpenView>,
}

impl Views {
    /// Opens view `view` of `server`, rendering app form `request` if any.
    pub(crate) fn open(
        &mut self,
        view: ViewId,
        bridge: ViewBridge,
        server: ServerId,
        tools: BTreeMap<String, Visibility>,
        request: Option<RequestId>,
    ) {
        self.open.insert(
            view,
            OpenView {
                bridge,
                server,
                tools,
                request,
            },
        );
    }

    /// Server `server`'s tools changed.
    pub(crate) fn set_tools(&mut self, server: ServerId, tools: &BTreeMap<String, Visibility>) {
        for open in self.open.values_mut().filter(|v| v.server == server) {
            open.tools = tools.clone();
        }
    }

    /// The views of `server`.
    pub(crate) fn of_server(&self, server: ServerId) -> Vec<ViewId> {
        self.open
            .iter()
            .filter(|(_, v)| v.server == server)
            .map(|(id, _)| *id)
            .collect()
    }

    /// The app form view `view` renders, if any.
    pub(crate) fn request_of(&self, view: ViewId) -> Option<RequestId> {
        self.open.get(&view).and_then(|v| v.request)
    }

    /// View `view` renders no app form any more.
    pub(crate) fn unbind(&mut self, view: ViewId) {
        if let Some(open) = self.open.get_mut(&view) {
            open.request = None;
        }
    }

    /// Forgets view `view`; whether it was open.
    pub(crate) fn forget(&mut self, view: ViewId) -> bool {
        self.open.remove(&view).is_some()
    }

    /// Runs `f` on view `view`'s bridge and hands its effects out.
    pub(crate) fn run(
        &mut self,
        view: ViewId,
        f: impl FnOnce(&mut ViewBridge) -> Vec<BridgeEffect>,
        out: &mut Out,
    ) -> Vec<Verdict> {
        let Some(open) = self.open.get_mut(&view) else {
            return Vec::new();
        };
        let effects = f(&mut open.bridge);
        self.hand_out(view, effects, out)
    }

    /// Input `input` (anything but `Open`) for view `view`'s bridge. (`Loading` concerns only
    /// the app form a view renders: the core hands it to the kind.)
    pub(crate) fn input(&mut self, view: ViewId, input: ViewInput, out: &mut Out) -> Vec<Verdict> {
        let now_ms = out.now_ms;
        let Some(open) = self.open.get_mut(&view) else {
            return Vec::new();
        };
        let bridge = &mut open.bridge;
        let effects = match input {
            ViewInput::Open { .. } | ViewInput::Loading => Vec::new(),
            ViewInput::FromView(message) => {
                let tools = &open.tools;
                bridge.from_view(&message, now_ms, &|name| tools.get(name).copied())
            }
            ViewInput::ToolInput(arguments) => bridge.tool_input(arguments),
            ViewInput::ToolResult(result) => bridge.tool_result(result),
            ViewInput::ToolCancelled(reason) => bridge.tool_cancelled(&reason),
            ViewInput::HostContext(changes) => bridge.host_context(changes),
            ViewInput::ServerReply { proxy, reply } => bridge.server_reply(proxy, reply),
            ViewInput::ServerProgress {
                proxy,
                progress,
                total,
                message,
            } => bridge.server_progress(proxy, progress, total, message.as_deref()),
            ViewInput::Answer { question, reply } => bridge.answer(question, reply),
            ViewInput::CallViewTool { name, arguments } => bridge
                .call_view_tool(&name, arguments)
                .map(|(_, effects)| effects)
                .unwrap_or_default(),
            ViewInput::DisplayMode(mode) => bridge.set_display_mode(&mode),
            ViewInput::Teardown(reason) => bridge.teardown(&reason, now_ms),
            ViewInput::Tick => bridge.tick(now_ms),
        };
        self.hand_out(view, effects, out)
    }

    /// Hands view `view`'s bridge effects out, and returns what concerns the app form it
    /// renders; a destroyed view is forgotten.
    fn hand_out(
        &mut self,
        view: ViewId,
        effects: Vec<BridgeEffect>,
        out: &mut Out,
    ) -> Vec<Verdict> {
        let (request, renders) = match self.open.get(&view) {
            Some(open) => (open.request, open.bridge.renders_questions()),
            None => (None, false),
        };
        let mut destroyed = false;
        let mut verdicts = Vec::new();
        for effect in effects {
            match effect {
                BridgeEffect::ElicitationAnswer(result) => {
                    if let Some(id) = request {
                        verdicts.push(Verdict::Answer(id, view, result));
                    }
                }
                BridgeEffect::ElicitationUnusable(reason) => {
                    if let Some(id) = request {
                        verdicts.push(Verdict::Unusable(id, reason));
                    }
                }
                BridgeEffect::Live => {
                    out.push(Effect::View {
                        view,
                        effect: BridgeEffect::Live,
                    });
                    if let Some(id) = request {
                        verdicts.push(Verdict::Live(id, view, renders));
                    }
                }
                effect => {
                    destroyed |= effect == BridgeEffect::Destroy;
                    out.push(Effect::View { view, effect });
                }
            }
        }
        if destroyed {
            self.open.remove(&view);
        }
        verdicts
    }
}
