//! What a stdio server writes on stderr: read line by line (each cut at [`LINE_BYTES`], so a
//! server cannot make the host hold an endless line), its last lines kept for a failure to
//! quote ([`EndReason::heard`]), and each line put in the server's protocol log (`dir`
//! `stderr`) — where the page's and the terminal's server logs show it — at a bounded rate: a
//! burst of [`BURST`], then [`PER_SECOND`] a second; lines over it are counted and said as one
//! line when the rate allows again. Never onto the person's terminal raw.
//!
//! Each kept line is also handed to the function the session gives ([`follow`]'s `kept`): the
//! transport knows no core and no record.

use std::time::{Duration, Instant};

use interlude_engine::ServerId;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};

use std::sync::Arc;

use crate::logs::protocol_log::{Direction, ProtocolLog, Raw, Shape};
use crate::transport::failure::EndReason;

/// The most of one line that is kept.
const LINE_BYTES: usize = 4096;
/// Lines kept at once before the rate applies.
const BURST: f64 = 100.0;
/// Lines kept a second after the burst.
const PER_SECOND: f64 = 20.0;

/// Reads `stderr` of server `server` (`name`) to its end: each line kept goes into `log` and to
/// `kept`.
pub(crate) async fn follow(
    mut stderr: impl AsyncRead + Unpin,
    log: Arc<ProtocolLog>,
    server: ServerId,
    name: String,
    ended: EndReason,
    kept: impl FnMut(String) + Send,
) {
    let mut keeper = Keeper {
        log,
        kept,
        server,
        name,
        ended,
        tokens: BURST,
        at: Instant::now(),
        dropped: 0,
    };
    let mut chunk = vec![0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    let mut overlong = false;
    loop {
        let n = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut rest = chunk.get(..n).unwrap_or_default();
        while !rest.is_empty() {
            match rest.iter().position(|b| *b == b'\n') {
                Some(at) => {
                    let (head, tail) = rest.split_at(at);
                    take(&mut line, head, &mut overlong);
                    keeper.line(&line, overlong);
                    line.clear();
                    overlong = false;
                    rest = tail.get(1..).unwrap_or_default();
                }
                None => {
                    take(&mut line, rest, &mut overlong);
                    rest = &[];
                }
            }
        }
    }
    if !line.is_empty() {
        keeper.line(&line, overlong);
    }
}

/// Appends `bytes` to `line`, up to [`LINE_BYTES`]; notes when some were cut.
fn take(line: &mut Vec<u8>, bytes: &[u8], overlong: &mut bool) {
    let room = LINE_BYTES.saturating_sub(line.len());
    if bytes.len() > room {
        *overlong = true;
    }
    line.extend_from_slice(bytes.get(..room.min(bytes.len())).unwrap_or_default());
}

struct Keeper<K> {
    log: Arc<ProtocolLog>,
    kept: K,
    server: ServerId,
    name: String,
    ended: EndReason,
    tokens: f64,
    at: Instant,
    dropped: u64,
}

impl<K: FnMut(String)> Keeper<K> {
    fn line(&mut self, bytes: &[u8], overlong: bool) {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        if overlong {
            text.push('…');
        }
        tracing::info!(target: "interlude::server_stderr", server = %self.name, "{}", text.escape_debug());
        self.ended.heard(&text);
        if text.trim().is_empty() || !self.log.enabled() {
            return;
        }
        let now = Instant::now();
        let elapsed = now.duration_since(self.at).min(Duration::from_secs(60));
        self.at = now;
        self.tokens = (self.tokens + elapsed.as_secs_f64() * PER_SECOND).min(BURST);
        if self.tokens < 1.0 {
            self.dropped += 1;
            return;
        }
        self.tokens -= 1.0;
        if self.dropped > 0 {
            let said = format!(
                "[interlude: {} stderr line{} not kept: the server wrote faster than {PER_SECOND} a second]",
                self.dropped,
                if self.dropped == 1 { "" } else { "s" }
            );
            self.dropped = 0;
            self.keep(said);
        }
        self.keep(text);
    }

    fn keep(&mut self, text: String) {
        let shape = Shape {
            id: None,
            is_request: false,
            call: None,
            exchange: None,
        };
        let raw = Raw::Json(Arc::new(Value::String(text.clone())));
        self.log
            .record(self.server, &self.name, Direction::Stderr, raw, shape);
        (self.kept)(text);
    }
}
