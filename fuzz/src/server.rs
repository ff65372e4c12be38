//! An `interlude_server` server (an `AskServer` with `#[asking]` tools) served in this process
//! over an in-memory pipe, and the client end of that pipe for a fuzz target to write raw
//! JSON-RPC lines into and read the answers from.
//!
//! Each session has a runtime of its own on a paused clock: [`Session::settle`] returns once
//! every task is idle (the clock only moves when nothing can run), so a session is as
//! deterministic as the server, and nothing outlives it.

use std::future::Future;
use std::time::Duration;

use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::mpsc;

/// The key every fuzzed server seals its `requestState` with (fixed: a finding must replay).
pub const STATE_KEY: [u8; 32] = [0x5a; 32];

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Person {
    /// Your name
    name: String,
    /// Your age
    #[schemars(range(min = 18))]
    age: Option<u32>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// The server under test.
#[derive(Clone)]
pub struct FuzzServer {
    ask: AskConfig,
}

impl AskServer for FuzzServer {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

#[asking]
#[tool_router]
impl FuzzServer {
    #[tool(description = "Asks for a name")]
    async fn greet(&self, ask: Ask) -> ToolResult {
        let text = match ask.form::<Person>("Your name?").await? {
            Answer::Accepted(p) => match p.age {
                Some(age) => format!("Hello, {}! ({age})", p.name),
                None => format!("Hello, {}!", p.name),
            },
            Answer::Declined => "declined".into(),
            Answer::Cancelled => "cancelled".into(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Asks twice")]
    async fn twice(&self, ask: Ask) -> ToolResult {
        let first = ask.form::<Person>("Your name?").await?;
        let second = ask.form::<Confirm>("Sure?").await?;
        let text = format!(
            "{:?} {:?}",
            first.accepted().is_some(),
            second.accepted().map(|c| c.ok)
        );
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Asks nothing")]
    async fn plain(&self) -> String {
        "plain".into()
    }
}

#[tool_handler]
impl rmcp::ServerHandler for FuzzServer {}

/// The tools of [`FuzzServer`], and names it does not have.
pub const TOOLS: &[&str] = &["greet", "twice", "plain", "nope", ""];

/// The client end of one session.
pub struct Session {
    writer: WriteHalf<DuplexStream>,
    lines: mpsc::UnboundedReceiver<String>,
    /// Every message the server sent so far, parsed (unparsable lines as strings).
    pub received: Vec<Value>,
}

impl Session {
    /// Writes one line (a newline is added; newlines inside are replaced by spaces).
    pub async fn send_line(&mut self, line: &str) {
        let mut bytes = line.replace(['\n', '\r'], " ").into_bytes();
        bytes.push(b'\n');
        // A closed pipe means the server ended the session: nothing more to say.
        crate::debug(&format_args!("client: {line}"));
        let _ = self.writer.write_all(&bytes).await;
    }

    /// Writes one message.
    pub async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Lets the server run until it is idle, and collects what it sent meanwhile.
    pub async fn settle(&mut self) -> Vec<Value> {
        tokio::time::sleep(Duration::from_millis(1)).await;
        let mut new = Vec::new();
        while let Ok(line) = self.lines.try_recv() {
            new.push(serde_json::from_str(&line).unwrap_or(Value::String(line)));
        }
        for m in &new {
            crate::debug(&format_args!("server: {m}"));
        }
        self.received.extend(new.iter().cloned());
        new
    }

    /// Sends `message` and returns the answer whose `id` is `id`, if one came once idle.
    pub async fn call(&mut self, message: &Value, id: &Value) -> Option<Value> {
        self.send(message).await;
        self.settle()
            .await
            .into_iter()
            .find(|m| m.get("id") == Some(id) && m.get("method").is_none())
    }
}

/// Runs `script` against a fresh server, then tears everything down.
pub fn session<F, Fut>(script: F)
where
    F: FnOnce(Session) -> Fut,
    Fut: Future<Output = ()>,
{
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
    else {
        return;
    };
    runtime.block_on(async move {
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let config = AskConfig::with_key(STATE_KEY).unwrap_or_default();
        let server = FuzzServer { ask: config };
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let (reader, writer) = tokio::io::split(client_io);
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = BufReader::new(reader).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        script(Session {
            writer,
            lines,
            received: Vec::new(),
        })
        .await;
    });
    // Dropping the runtime drops every task still waiting (a push-era question nobody answers).
    drop(runtime);
}

/// Request `_meta` of the 2026-07-28 era (SEP-2575): the version and the client's
/// capabilities, with form elicitation when `form`.
pub fn mrtr_meta(form: bool) -> Value {
    let caps = if form {
        json!({"elicitation": {"form": {}}})
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
    })
}

/// A `tools/call` of the 2026-07-28 era.
pub fn mrtr_call(
    id: u64,
    tool: &str,
    arguments: Option<Map<String, Value>>,
    responses: Option<Value>,
    state: Option<&str>,
) -> Value {
    let mut params = Map::new();
    params.insert("name".into(), tool.into());
    if let Some(a) = arguments {
        params.insert("arguments".into(), Value::Object(a));
    }
    if let Some(r) = responses {
        params.insert("inputResponses".into(), r);
    }
    if let Some(s) = state {
        params.insert("requestState".into(), s.into());
    }
    params.insert("_meta".into(), mrtr_meta(true));
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The `requestState` of an `input_required` result, and the keys of its questions.
pub fn input_required(answer: &Value) -> Option<(String, Vec<String>)> {
    let result = answer.get("result")?;
    let state = result.get("requestState")?.as_str()?.to_owned();
    let keys = result
        .get("inputRequests")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    Some((state, keys))
}
