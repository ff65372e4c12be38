//! A streamable HTTP MCP server (2025-11-25, on 127.0.0.1) that answers the handshake and
//! `tools/list` properly and then misbehaves in one precise way when a tool is called: a fake
//! on purpose, since no real server does these things — which is the point of the hostile-server
//! tests.
//!
//! HTTP/1.1 is written by hand on a `TcpListener`, so that the body can be dripped a byte at a
//! time or grow without end, which a framework would not let a handler do so plainly.
//!
//! # Example
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use interlude_test_support::hostile_http::{HostileHttp, Misbehaviour};
//! let server = HostileHttp::start(Misbehaviour::OversizedEvent).await?;
//! println!("a server whose tool answers with a 17 MiB event: {}", server.url());
//! # Ok(()) }
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What the server does when a tool is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Misbehaviour {
    /// Answers on an event stream whose one event grows past 17 MiB and never ends.
    OversizedEvent,
    /// Answers with a JSON body of 17 MiB (and more, while the host reads).
    OversizedBody,
    /// Answers with a correct JSON body, one byte every `DRIP` (about a minute for the whole).
    SlowDrip,
}

/// The pause between two bytes of [`Misbehaviour::SlowDrip`].
pub const DRIP: Duration = Duration::from_millis(500);

/// A running hostile server; stopped when dropped.
#[derive(Debug)]
pub struct HostileHttp {
    url: String,
    calls: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl HostileHttp {
    /// Binds 127.0.0.1 on a free port and serves until dropped.
    pub async fn start(misbehaviour: Misbehaviour) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/mcp", listener.local_addr()?);
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let counted = counted.clone();
                tokio::spawn(async move {
                    // A connection the host drops ends here: what it would have read is moot.
                    let _ = serve(stream, misbehaviour, counted).await;
                });
            }
        });
        Ok(HostileHttp { url, calls, task })
    }

    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How many tool calls reached it.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl Drop for HostileHttp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One connection: requests one after another (keep-alive) until the host closes it.
async fn serve(
    stream: TcpStream,
    misbehaviour: Misbehaviour,
    calls: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut stream = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if stream.read_line(&mut request_line).await? == 0 {
            return Ok(());
        }
        let method = request_line
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if stream.read_line(&mut header).await? == 0 {
                return Ok(());
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0u8; length.min(1 << 20)];
        stream.read_exact(&mut body).await?;
        let out = stream.get_mut();
        if method != "POST" {
            // No standalone stream, no session to end.
            out.write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
                .await?;
            continue;
        }
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let result = match message.get("method").and_then(Value::as_str) {
            _ if id.is_null() => {
                out.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
                    .await?;
                continue;
            }
            Some("initialize") => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-http", "version": "1"}
            }),
            Some("tools/list") => json!({"tools": [
                {"name": "misbehave", "inputSchema": {"type": "object"}}
            ]}),
            Some("tools/call") => {
                calls.fetch_add(1, Ordering::SeqCst);
                return misbehave(out, misbehaviour, id).await;
            }
            _ => json!({}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: hostile\r\ncontent-length: {}\r\n\r\n",
            answer.len()
        );
        out.write_all(head.as_bytes()).await?;
        out.write_all(answer.as_bytes()).await?;
    }
}

/// The answer to a tool call, as `misbehaviour` says; it ends when the host stops reading.
async fn misbehave(
    out: &mut TcpStream,
    misbehaviour: Misbehaviour,
    id: Value,
) -> std::io::Result<()> {
    const MIB: usize = 1024 * 1024;
    let chunk = vec![b'A'; MIB];
    match misbehaviour {
        Misbehaviour::OversizedEvent => {
            out.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
                .await?;
            out.write_all(b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"").await?;
            // Unending: the host must stop reading, not this loop.
            loop {
                out.write_all(&chunk).await?;
            }
        }
        Misbehaviour::OversizedBody => {
            out.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n")
                .await?;
            let start = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\""
            );
            out.write_all(start.as_bytes()).await?;
            loop {
                out.write_all(&chunk).await?;
            }
        }
        Misbehaviour::SlowDrip => {
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": "finally"}]
            }})
            .to_string();
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                answer.len()
            );
            out.write_all(head.as_bytes()).await?;
            for byte in answer.bytes() {
                out.write_all(&[byte]).await?;
                out.flush().await?;
                tokio::time::sleep(DRIP).await;
            }
            Ok(())
        }
    }
}
