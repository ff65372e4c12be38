//! A streamable HTTP server's response, in 2025-11-25's task terms where it applies
//! ([`patch_outbound`](super::wire::patch_outbound)): a JSON body, or the events of an SSE
//! stream, patched as they pass (the stream is never waited out).

use axum::body::{Body, Bytes};
use axum::response::Response;
use futures::StreamExt;
use serde_json::Value;

/// The most of a JSON response read to patch it. The response is the server's own, already
/// whole in memory: the bound only keeps a runaway one from doubling.
const MAX_JSON: usize = 256 * 1024 * 1024;

/// `response` to a POST that may need it (`initialize`, `tools/list`, a task call), patched.
pub(crate) async fn with_legacy_terms(response: Response) -> Response {
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let (parts, body) = response.into_parts();
    if content_type.starts_with("application/json") {
        return match axum::body::to_bytes(body, MAX_JSON).await {
            Ok(bytes) => Response::from_parts(parts, Body::from(patched_json(&bytes))),
            Err(e) => {
                tracing::warn!("cannot read a response to patch it: {e}");
                let mut failed = Response::new(Body::from(format!(
                    "the server's response could not be read: {e}"
                )));
                *failed.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
                failed
            }
        };
    }
    if !content_type.starts_with("text/event-stream") {
        return Response::from_parts(parts, body);
    }
    // Events end with a blank line; each complete one is patched as it comes.
    let events = futures::stream::unfold(
        (body.into_data_stream(), Vec::<u8>::new(), false),
        |(mut stream, mut pending, mut ended)| async move {
            loop {
                if let Some(end) = event_end(&pending) {
                    let rest = pending.split_off(end);
                    let event = patched_event(&pending);
                    return Some((Ok::<_, axum::Error>(event), (stream, rest, ended)));
                }
                if ended {
                    if pending.is_empty() {
                        return None;
                    }
                    let last = Bytes::from(std::mem::take(&mut pending));
                    return Some((Ok(last), (stream, pending, ended)));
                }
                match stream.next().await {
                    Some(Ok(chunk)) => pending.extend_from_slice(&chunk),
                    Some(Err(e)) => return Some((Err(e), (stream, pending, true))),
                    None => ended = true,
                }
            }
        },
    );
    Response::from_parts(parts, Body::from_stream(events))
}

/// Where the first complete event of `pending` ends (after its blank line), if it is there.
fn event_end(pending: &[u8]) -> Option<usize> {
    pending
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|at| at + 2)
}

/// One SSE event, its `data:` patched.
fn patched_event(event: &[u8]) -> Bytes {
    let Ok(text) = std::str::from_utf8(event) else {
        return Bytes::copy_from_slice(event);
    };
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("data:") {
            Some(data) => {
                let json = data.trim();
                let patched = patched_json(json.as_bytes());
                match std::str::from_utf8(&patched) {
                    Ok(p) if p != json => {
                        out.push_str("data: ");
                        out.push_str(p);
                        out.push('\n');
                    }
                    _ => out.push_str(line),
                }
            }
            None => out.push_str(line),
        }
    }
    Bytes::from(out)
}

/// A JSON-RPC response, its result patched; anything else as it is.
fn patched_json(bytes: &[u8]) -> Vec<u8> {
    let Ok(mut message) = serde_json::from_slice::<Value>(bytes) else {
        return bytes.to_vec();
    };
    let patched = message
        .get_mut("result")
        .is_some_and(super::wire::patch_outbound);
    if patched {
        serde_json::to_vec(&message).unwrap_or_else(|_| bytes.to_vec())
    } else {
        bytes.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_sse_initialize_event_gains_the_capability_and_others_pass() {
        let result = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"interlude.dev/tasks-2025":{}}},"serverInfo":{"name":"s","version":"1"}}}"#;
        let event = format!("id: 0\ndata: {result}\n\n");
        let patched = patched_event(event.as_bytes());
        let text = std::str::from_utf8(&patched).unwrap_or_default();
        assert!(text.starts_with("id: 0\ndata: "), "{text}");
        assert!(text.ends_with("\n\n"), "{text}");
        let data = text
            .lines()
            .nth(1)
            .unwrap_or_default()
            .trim_start_matches("data: ");
        let value: Value = serde_json::from_str(data).unwrap_or_default();
        assert!(
            value["result"]["capabilities"]["tasks"].is_object(),
            "{text}"
        );
        let other = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n";
        assert_eq!(&patched_event(other.as_bytes())[..], other.as_bytes());
        assert_eq!(event_end(b"data: 1\n\ndata: 2"), Some(9));
        assert_eq!(event_end(b"data: 1\n"), None);
    }
}
