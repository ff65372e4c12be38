//! What a 2025-11-25 server says of its experimental tasks (SEP-1686) that rmcp's types drop:
//! whether it takes task calls (`capabilities.tasks.requests.tools.call`) and which tools allow
//! or need one (`execution.taskSupport`). The transports read it off the raw messages as they
//! arrive ([`TaskHints::sniff`]), only while an `initialize` or `tools/list` answer is
//! awaited; a call then asks for a task exactly when the server said it may
//! ([`TaskHints::augments`]), instead of learning it from a "requires task augmentation"
//! refusal.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

/// See the module documentation. One per connection, shared by its transport (which sniffs)
/// and the connection (which asks).
#[derive(Debug)]
pub(crate) struct TaskHints {
    /// Set while an answer that may carry hints is awaited (from the start: `initialize`).
    watching: AtomicBool,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The server takes task calls.
    declared: bool,
    /// The tools that allow or need a task.
    tools: HashSet<String>,
    /// The next tool listing starts afresh (a new `tools/list`, not its next page).
    fresh: bool,
}

impl Default for TaskHints {
    fn default() -> Self {
        TaskHints {
            watching: AtomicBool::new(true),
            state: Mutex::new(State {
                fresh: true,
                ..State::default()
            }),
        }
    }
}

impl TaskHints {
    /// A `tools/list` is on its way: its answer is read.
    pub(crate) fn watch(&self) {
        crate::sync::lock(&self.state).fresh = true;
        self.watching.store(true, Ordering::Release);
    }

    /// Reads `message` (one JSON-RPC message as it arrived) when an answer is awaited: an
    /// `initialize` result's task capability, a tool listing's task support. Anything else,
    /// and everything once the listing is read, costs one atomic load.
    pub(crate) fn sniff(&self, message: &[u8]) {
        if !self.watching.load(Ordering::Acquire) {
            return;
        }
        let carries = |what: &[u8]| memchr::memmem::find(message, what).is_some();
        if !carries(b"\"capabilities\"") && !carries(b"\"tools\"") {
            return;
        }
        let Ok(message) = serde_json::from_slice::<Value>(message) else {
            return;
        };
        let Some(result) = message.get("result") else {
            return;
        };
        let mut state = crate::sync::lock(&self.state);
        if let Some(capabilities) = result.get("capabilities") {
            state.declared = capabilities
                .pointer("/tasks/requests/tools/call")
                .is_some_and(Value::is_object);
            return;
        }
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        if std::mem::take(&mut state.fresh) {
            state.tools.clear();
        }
        for tool in tools {
            let support = tool
                .pointer("/execution/taskSupport")
                .and_then(Value::as_str);
            if let (Some(name), Some("optional" | "required")) =
                (tool.get("name").and_then(Value::as_str), support)
            {
                state.tools.insert(name.to_owned());
            }
        }
        if result.get("nextCursor").is_none_or(Value::is_null) {
            self.watching.store(false, Ordering::Release);
        }
    }

    /// Whether a call of `tool` asks for a task: the server takes task calls and lists the
    /// tool as allowing or needing one.
    pub(crate) fn augments(&self, tool: &str) -> bool {
        let state = crate::sync::lock(&self.state);
        state.declared && state.tools.contains(tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaring_server_s_task_tools_are_augmented_and_no_others() {
        let hints = TaskHints::default();
        hints.sniff(br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}}}}"#);
        hints.sniff(br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","execution":{"taskSupport":"optional"}},{"name":"b","execution":{"taskSupport":"forbidden"}},{"name":"c"}],"nextCursor":"p2"}}"#);
        hints.sniff(br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"d","execution":{"taskSupport":"required"}}]}}"#);
        assert!(hints.augments("a") && hints.augments("d"));
        assert!(!hints.augments("b") && !hints.augments("c"));
        // Read, the listing is not read again until the next `tools/list`.
        hints.sniff(br#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#);
        assert!(hints.augments("a"));
        hints.watch();
        hints.sniff(br#"{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"e","execution":{"taskSupport":"optional"}}]}}"#);
        assert!(hints.augments("e") && !hints.augments("a"));
    }

    #[test]
    fn a_server_that_does_not_declare_task_calls_is_never_augmented() {
        let hints = TaskHints::default();
        hints.sniff(br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}}"#);
        hints.sniff(br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","execution":{"taskSupport":"required"}}]}}"#);
        assert!(!hints.augments("a"));
    }
}
