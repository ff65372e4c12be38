//! The raw JSON of the 2025-11-25 experimental tasks, where rmcp's types cannot carry it: what
//! the toolkit's input checks change in a client's message before rmcp reads it, and what they
//! change in the server's message after rmcp wrote it (see the parent module).

use std::borrow::Cow;

use rmcp::model::{JsonRpcMessage, ProtocolVersion, ServerJsonRpcMessage, ServerResult};
use serde_json::{Map, Value, json};

/// Where a `tools/call`'s `params.task` is kept (rmcp would drop it): a key of its `_meta`.
pub(crate) const MARK: &str = "interlude.dev/legacyTask";

/// A tool's `_meta` key that [`TaskServer`](super::TaskServer) lists its task support under,
/// turned into `execution.taskSupport` on the way out.
pub(crate) const TASK_SUPPORT: &str = "interlude.dev/taskSupport";

/// A tool result's `_meta` key that carries the task a 2025-11-25 task call created, turned
/// into the `{task}` result on the way out.
pub(crate) const CREATED: &str = "interlude.dev/legacyTaskCreated";

/// The `capabilities.experimental` key [`TaskServer`](super::TaskServer) puts in the
/// server's capabilities: the way out turns it into `capabilities.tasks` on 2025-11-25, and
/// takes it away everywhere.
pub(crate) const SERVED: &str = "interlude.dev/tasks-2025";

/// The names 2025-11-25's `tasks/get` and `tasks/cancel` are handed to rmcp under (it reads
/// the methods of those names as the extension's, and refuses them to a client that did not
/// declare it).
pub(crate) const GET: &str = "interlude.dev/tasks-2025/get";
pub(crate) const CANCEL: &str = "interlude.dev/tasks-2025/cancel";

/// Whether `body` (one message of the client's, whose method is `method`) may need
/// [`rewrite_inbound`]: a look at the bytes, not a parse.
pub(crate) fn may_rewrite(method: Option<&str>, body: &[u8]) -> bool {
    match method {
        Some("tools/call") => memchr::memmem::find(body, b"\"task\"").is_some(),
        Some("tasks/get" | "tasks/cancel") => true,
        _ => false,
    }
}

/// A message of the client's, not on the 2026-07-28 wire (whose requests name their version
/// in `_meta`): a `tools/call`'s `params.task` (an object) moved into its `_meta` under
/// [`MARK`]; `tasks/get` and `tasks/cancel` renamed [`GET`] and [`CANCEL`]. Returns whether it
/// changed anything.
pub(crate) fn rewrite_inbound(message: &mut Value) -> bool {
    let Some(message) = message.as_object_mut() else {
        return false;
    };
    let Some(params) = message.get("params").and_then(Value::as_object) else {
        return false;
    };
    let meta = params.get("_meta");
    if meta.is_some_and(|m| !m.is_object()) {
        return false;
    }
    let wire_2026 = meta
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("2026"));
    if wire_2026 {
        return false;
    }
    let renamed = match message.get("method").and_then(Value::as_str) {
        Some("tasks/get") => GET,
        Some("tasks/cancel") => CANCEL,
        Some("tools/call") => return mark_task_call(message),
        _ => return false,
    };
    message.insert("method".to_owned(), Value::from(renamed));
    true
}

/// A `tools/call`'s `params.task` moved into `params._meta[MARK]`.
fn mark_task_call(message: &mut Map<String, Value>) -> bool {
    let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
        return false;
    };
    if !params.get("task").is_some_and(Value::is_object) {
        return false;
    }
    let Some(task) = params.remove("task") else {
        return false;
    };
    match params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        Value::Object(meta) => {
            meta.insert(MARK.to_owned(), task);
            true
        }
        _ => false,
    }
}

/// A line (or body) of the client's with [`rewrite_inbound`] applied; as it is when that
/// changes nothing (the caller looked at its bytes first: this parses it).
pub(crate) fn rewritten_line(line: &[u8]) -> Cow<'_, [u8]> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let Ok(mut message) = serde_json::from_slice::<Value>(body) else {
        return Cow::Borrowed(line);
    };
    if !rewrite_inbound(&mut message) {
        return Cow::Borrowed(line);
    }
    match serde_json::to_vec(&message) {
        Ok(mut bytes) => {
            if body.len() < line.len() {
                bytes.push(b'\n');
            }
            Cow::Owned(bytes)
        }
        Err(_) => Cow::Borrowed(line),
    }
}

/// A result of the server's, in 2025-11-25's terms where it applies: an `initialize` or
/// `server/discover` result loses the [`SERVED`] mark, and an `initialize` result for
/// 2025-11-25 that had it gains `capabilities.tasks`; a listed tool's [`TASK_SUPPORT`] becomes
/// its `execution`; a result carrying [`CREATED`] becomes the `{task}` it stands for. Returns
/// whether it changed anything.
pub(crate) fn patch_outbound(result: &mut Value) -> bool {
    let Some(fields) = result.as_object_mut() else {
        return false;
    };
    if fields.contains_key("capabilities") {
        return patch_capabilities(fields);
    }
    if let Some(Value::Array(tools)) = fields.get_mut("tools") {
        let mut changed = false;
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(support) = take_meta(tool, TASK_SUPPORT) {
                tool.insert("execution".to_owned(), json!({"taskSupport": support}));
                changed = true;
            }
        }
        return changed;
    }
    let Some(task) = take_meta(fields, CREATED) else {
        return false;
    };
    let meta = fields.remove("_meta");
    fields.clear();
    fields.insert("task".to_owned(), task);
    if let Some(meta) = meta {
        fields.insert("_meta".to_owned(), meta);
    }
    true
}

/// `fields["_meta"][key]`, taken out (and `_meta` with it when nothing else is left in it).
fn take_meta(fields: &mut Map<String, Value>, key: &str) -> Option<Value> {
    let meta = fields.get_mut("_meta").and_then(Value::as_object_mut)?;
    let taken = meta.remove(key)?;
    if meta.is_empty() {
        fields.remove("_meta");
    }
    Some(taken)
}

/// The [`SERVED`] mark taken out of an `initialize` or `server/discover` result's
/// capabilities, and for 2025-11-25, `capabilities.tasks` (cancel, task calls) put in.
fn patch_capabilities(result: &mut Map<String, Value>) -> bool {
    let legacy = result.get("protocolVersion").and_then(Value::as_str)
        == Some(ProtocolVersion::V_2025_11_25.as_str());
    let Some(capabilities) = result
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(experimental) = capabilities
        .get_mut("experimental")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    if experimental.remove(SERVED).is_none() {
        return false;
    }
    if experimental.is_empty() {
        capabilities.remove("experimental");
    }
    if legacy && !capabilities.contains_key("tasks") {
        capabilities.insert(
            "tasks".to_owned(),
            json!({"cancel": {}, "requests": {"tools": {"call": {}}}}),
        );
    }
    true
}

/// A message of the server's on its way out (on a byte-stream transport, [`Checked`](crate::Checked)),
/// with [`patch_outbound`] applied to the results it may change: sent then as the JSON they
/// would have been, patched (rmcp's types have no field for it).
pub(crate) fn with_legacy_terms(message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
    let JsonRpcMessage::Response(mut response) = message else {
        return message;
    };
    let may_change = match &response.result {
        ServerResult::InitializeResult(result) => marked(&result.capabilities),
        ServerResult::DiscoverResult(result) => marked(&result.capabilities),
        ServerResult::ListToolsResult(listed) => listed.tools.iter().any(|t| {
            t.meta
                .as_ref()
                .is_some_and(|m| m.contains_key(TASK_SUPPORT))
        }),
        ServerResult::CallToolResult(result) => result
            .meta
            .as_ref()
            .is_some_and(|m| m.contains_key(CREATED)),
        _ => false,
    };
    if may_change
        && let Ok(mut value) = serde_json::to_value(&response.result)
        && patch_outbound(&mut value)
    {
        response.result = ServerResult::CustomResult(rmcp::model::CustomResult(value));
    }
    JsonRpcMessage::Response(response)
}

fn marked(capabilities: &rmcp::model::ServerCapabilities) -> bool {
    capabilities
        .experimental
        .as_ref()
        .is_some_and(|e| e.contains_key(SERVED))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_call_s_task_moves_into_its_meta_and_task_methods_are_renamed() {
        let mut call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "deploy", "task": {"ttl": 60000}}});
        assert!(rewrite_inbound(&mut call));
        assert_eq!(call["params"]["_meta"][MARK], json!({"ttl": 60000}));
        assert!(call["params"].get("task").is_none());
        let mut with_meta = json!({"method": "tools/call",
            "params": {"name": "x", "task": {}, "_meta": {"progressToken": 3}}});
        assert!(rewrite_inbound(&mut with_meta));
        assert_eq!(with_meta["params"]["_meta"]["progressToken"], 3);
        let mut get = json!({"method": "tasks/get", "params": {"taskId": "t"}});
        assert!(rewrite_inbound(&mut get));
        assert_eq!(get["method"], GET);
        for mut untouched in [
            json!({"method": "tools/call", "params": {"name": "x"}}),
            json!({"method": "tools/call", "params": {"name": "x", "task": true}}),
            json!({"method": "tools/call", "params": {"name": "x", "task": {}, "_meta": 1}}),
            json!({"method": "tools/list", "params": {"task": {}}}),
            // The 2026-07-28 wire: a stray `task` is ignored, `tasks/get` is the extension's.
            json!({"method": "tools/call", "params": {"name": "x", "task": {},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
            json!({"method": "tasks/get", "params": {"taskId": "t",
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
        ] {
            let before = untouched.clone();
            assert!(!rewrite_inbound(&mut untouched));
            assert_eq!(untouched, before);
        }
    }

    #[test]
    fn a_2025_11_25_initialize_of_a_served_server_declares_the_legacy_capability() {
        let served = json!({"protocolVersion": "2025-11-25", "capabilities": {
            "experimental": {SERVED: {}}, "tools": {}}});
        let mut result = served.clone();
        assert!(patch_outbound(&mut result));
        assert_eq!(
            result["capabilities"],
            json!({"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}})
        );
        // Another version, or `server/discover`: the mark goes, nothing comes.
        let mut older = served.clone();
        older["protocolVersion"] = json!("2025-06-18");
        assert!(patch_outbound(&mut older));
        assert_eq!(older["capabilities"], json!({"tools": {}}));
        let mut discover = json!({"supportedVersions": ["2026-07-28"], "capabilities": {
            "experimental": {SERVED: {}, "other": {}}}});
        assert!(patch_outbound(&mut discover));
        assert_eq!(
            discover["capabilities"],
            json!({"experimental": {"other": {}}})
        );
        // A server not served through `TaskServer` says nothing of 2025-11-25 tasks.
        let mut unserved = json!({"protocolVersion": "2025-11-25", "capabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}}});
        assert!(!patch_outbound(&mut unserved));
        assert!(unserved["capabilities"].get("tasks").is_none());
    }

    #[test]
    fn listed_task_support_and_a_created_task_read_in_2025_11_25_terms() {
        let mut listed = json!({"tools": [
            {"name": "a", "_meta": {TASK_SUPPORT: "optional"}},
            {"name": "b", "_meta": {TASK_SUPPORT: "required", "other": 1}},
            {"name": "c"}]});
        assert!(patch_outbound(&mut listed));
        assert_eq!(
            listed["tools"],
            json!([{"name": "a", "execution": {"taskSupport": "optional"}},
                {"name": "b", "_meta": {"other": 1}, "execution": {"taskSupport": "required"}},
                {"name": "c"}])
        );
        let mut created = json!({"content": [], "_meta": {CREATED: {"taskId": "t"}}});
        assert!(patch_outbound(&mut created));
        assert_eq!(created, json!({"task": {"taskId": "t"}}));
        let mut plain = json!({"content": [{"type": "text", "text": "hi"}]});
        assert!(!patch_outbound(&mut plain));
    }
}
