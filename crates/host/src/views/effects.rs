//! What a view's bridge decided, carried out: messages posted to the view, requests forwarded
//! to the view's server (and cancelled), questions for the person (a link, a file to save),
//! sizes, modes, logs, wake-ups and teardown. Provided for every core that owns views
//! ([`ViewCore`]), as the bridge's other half.
//!
//! What it does not do: decide what a view's message means (the engine's bridge does), or open
//! a view (`opening.rs`, `of_call.rs`).

use interlude_engine::bridge::{BridgeEffect, PersonQuestion, ServerMethod};
use interlude_engine::{ElicitParams, Incoming, Input, RequestId, ViewId, ViewInput};
use interlude_protocol::ProtocolEra;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ListPromptsRequest,
    ListResourceTemplatesRequest, ListResourcesRequest, PaginatedRequestParams,
    ReadResourceRequest, ReadResourceRequestParams, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;
use tokio::sync::oneshot;

use super::ViewCore;
use crate::hub::inputs::{HostInput, ProgressOf, Route};
use crate::hub::shared::next;
use crate::hub::surface::AnswerSink;
use crate::record::registry::{FileOffer, HostEvent, OfferedFile, ViewState};

/// What a core that owns views does with its bridges' effects: every method is provided.
pub(crate) trait ViewEffects: ViewCore {
    /// Carries out what a view's bridge decided.
    fn view_effect(&mut self, view: ViewId, effect: BridgeEffect, sink: &AnswerSink) {
        match effect {
            BridgeEffect::ToView(message) => {
                if let Some((server, name)) = self.record(|r| {
                    let v = r.view(view)?;
                    Some((v.server, r.server(v.server)?.name.clone()))
                }) {
                    self.views().log.record_view(
                        server,
                        &name,
                        view,
                        crate::logs::protocol_log::Direction::Send,
                        message.clone(),
                    );
                }
                self.tell(Some(HostEvent::ViewMessage { view, message }), sink);
            }
            BridgeEffect::ToServer {
                proxy,
                method,
                params,
            } => self.view_request(view, proxy, method, params, sink),
            BridgeEffect::CancelServer { proxy, reason } => {
                if let Some(cancel) = self.views().in_flight.remove(&(view, proxy)) {
                    // Its task tells the server, and answers the view nothing.
                    let _ = cancel.send(reason);
                }
            }
            BridgeEffect::Ask { question, what } => self.view_question(view, question, what, sink),
            BridgeEffect::Resize {
                height: Some(height),
                ..
            } => {
                let event = self.record(|r| r.change_view(view, |v| v.height = Some(height)));
                self.tell(event, sink);
            }
            BridgeEffect::DisplayMode(mode) => {
                let event = self.record(|r| r.change_view(view, |v| v.display_mode = mode));
                self.tell(event, sink);
            }
            BridgeEffect::Message(content) => {
                let event = self.record(|r| r.change_view(view, |v| v.messages.push(content)));
                self.tell(event, sink);
            }
            BridgeEffect::Intent { intent, params } => {
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        push_capped(&mut v.intents, 20, (intent, params));
                    })
                });
                self.tell(event, sink);
            }
            BridgeEffect::Notice(notice) => {
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        push_capped(&mut v.notices, 20, notice);
                    })
                });
                self.tell(event, sink);
            }
            BridgeEffect::ModelContext(context) => {
                let event =
                    self.record(|r| r.change_view(view, |v| v.model_context = Some(context)));
                self.tell(event, sink);
            }
            BridgeEffect::Log { level, data } => {
                tracing::info!(target: "interlude::app", %view, %level, data = %data, "view log");
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        push_capped(&mut v.logs, 50, (level, data));
                    })
                });
                self.tell(event, sink);
            }
            BridgeEffect::Console { level, text } => {
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        push_capped(&mut v.console, 200, (level, text));
                    })
                });
                self.tell(event, sink);
            }
            BridgeEffect::Live => {
                let at = crate::clock::now_ms();
                let event = self.record(|r| r.change_view(view, |v| v.live_at_ms = Some(at)));
                self.tell(event, sink);
            }
            BridgeEffect::ViewTools(tools) => {
                let event = self.record(|r| r.change_view(view, |v| v.app_tools = tools));
                self.tell(event, sink);
            }
            BridgeEffect::ViewToolResult { name, result, .. } => {
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        push_capped(&mut v.app_tool_results, 5, (name, result));
                    })
                });
                self.tell(event, sink);
            }
            BridgeEffect::Wake { at_ms } => self.wake_view(view, at_ms, sink),
            BridgeEffect::TeardownRequested => {
                self.teardown_view(view, "the app asked to be closed", sink);
            }
            BridgeEffect::Destroy => {
                self.views().of.remove(&view);
                // The bridge cancelled what it knew in flight; anything left goes too (its
                // task tells the server when its end is dropped).
                self.views().in_flight.retain(|(v, _), _| *v != view);
                // A view that failed (a page refused after its name was looked up) keeps
                // saying why.
                let event = self.record(|r| {
                    r.change_view(view, |v| {
                        if !matches!(v.state, ViewState::Failed { .. }) {
                            v.state = ViewState::Closed;
                        }
                    })
                });
                self.tell(event, sink);
            }
            BridgeEffect::Traffic(traffic) => {
                tracing::debug!(
                    target: "interlude::bridge",
                    %view,
                    way = ?traffic.way,
                    method = %traffic.method,
                    id = ?traffic.id,
                    refused = ?traffic.refused,
                );
            }
            _ => {}
        }
    }

    /// Closes a view: `ui/resource-teardown`, then (at the latest after the configured wait)
    /// its frame goes.
    fn teardown_view(&mut self, view: ViewId, reason: &str, sink: &AnswerSink) {
        let now_ms = self.now_ms();
        self.run(
            Input::View {
                view,
                input: ViewInput::Teardown(reason.to_owned()),
            },
            now_ms,
            sink,
        );
    }

    /// Hands view `view`'s bridge the time at `at_ms` (a deadline of its own).
    fn wake_view(&self, view: ViewId, at_ms: u64, sink: &AnswerSink) {
        let wait = std::time::Duration::from_millis(at_ms.saturating_sub(self.now_ms()) + 20);
        let hub = sink.hub.clone();
        self.spawn(async move {
            tokio::time::sleep(wait).await;
            hub.submit(HostInput::Engine(Input::View {
                view,
                input: ViewInput::Tick,
            }));
        });
    }

    /// A request the view makes of its server, sent on its own task; the answer comes back as
    /// an input.
    fn view_request(
        &mut self,
        view: ViewId,
        proxy: u64,
        method: ServerMethod,
        params: Value,
        sink: &AnswerSink,
    ) {
        let hub = sink.hub.clone();
        let answer = move |reply: Result<Value, (i32, String)>| {
            hub.submit(HostInput::Engine(Input::View {
                view,
                input: ViewInput::ServerReply { proxy, reply },
            }));
        };
        let server = self.views().of.get(&view).map(|(_, server)| *server);
        let peer = server.and_then(|server| self.views().peers.get(&server).cloned());
        let (Some(server), Some(peer)) = (server, peer) else {
            answer(Err((-32603, "the view's server is not connected".into())));
            return;
        };
        let request = match to_request(method, params) {
            Ok(request) => request,
            Err(why) => {
                answer(Err((-32602, why)));
                return;
            }
        };
        let (cancel, cancelled) = oneshot::channel::<String>();
        let hub = sink.hub.clone();
        let handle = self.spawn(async move {
            let handle = match peer
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await
            {
                Ok(handle) => handle,
                Err(e) => {
                    answer(Err((-32603, e.to_string())));
                    return;
                }
            };
            // The server's progress on it reaches the view (rmcp sent its own token: the
            // view's is the bridge's to put back).
            let token = handle.progress_token.clone();
            hub.submit(HostInput::Route(Route::Watch {
                server,
                token: token.clone(),
                of: ProgressOf::View(view, proxy),
            }));
            let id = handle.id.clone();
            let reply = tokio::select! {
                reply = handle.await_response() => Some(reply),
                reason = cancelled => {
                    let reason = reason.unwrap_or_else(|_| "the app view is gone".to_owned());
                    let _ = peer
                        .notify_cancelled(rmcp::model::CancelledNotificationParam::new(
                            Some(id),
                            Some(reason),
                        ))
                        .await;
                    None
                }
            };
            hub.submit(HostInput::Route(Route::Forget { server, token }));
            // Cancelled: the view hears nothing more of it (MCP: no response to a cancelled
            // request); the bridge would drop a late answer all the same.
            let Some(reply) = reply else {
                return;
            };
            answer(match reply {
                Ok(ServerResult::InputRequiredResult(_)) => Err((
                    -32603,
                    "the tool asks for input, which a view's call cannot give yet".into(),
                )),
                Ok(result) => serde_json::to_value(result).map_err(|e| (-32603, e.to_string())),
                Err(rmcp::ServiceError::McpError(e)) => Err((e.code.0, e.message.to_string())),
                Err(e) => Err((-32603, e.to_string())),
            });
        });
        if handle.is_some() {
            // Requests answered meanwhile have dropped their end.
            self.views()
                .in_flight
                .retain(|_, cancel| !cancel.is_closed());
            self.views().in_flight.insert((view, proxy), cancel);
        }
    }

    /// The person is asked on a view's behalf: a link goes through the same consent and URL
    /// rules as a server's URL request.
    fn view_question(
        &mut self,
        view: ViewId,
        question: u64,
        what: PersonQuestion,
        sink: &AnswerSink,
    ) {
        let hub = sink.hub.clone();
        let answer = move |reply: Result<Value, String>| {
            hub.submit(HostInput::Engine(Input::View {
                view,
                input: ViewInput::Answer { question, reply },
            }));
        };
        match what {
            // A request of its own kind, under an id of the host's: the engine asks the person
            // and answers the view.
            PersonQuestion::OpenLink { url } => {
                let Some((call, server)) = self.views().of.get(&view).copied() else {
                    return;
                };
                let Some(record) = self.record(|r| r.server(server)) else {
                    return;
                };
                let era = record
                    .identity
                    .as_ref()
                    .map_or(ProtocolEra::Push, |i| i.era);
                let views = self.views();
                let id = RequestId(next(&views.ids.request));
                let incoming = Incoming {
                    id,
                    server,
                    server_name: record.name.as_str().into(),
                    call,
                    era,
                    declared: views.declared,
                    params: ElicitParams::ViewLink {
                        view,
                        question,
                        url,
                    },
                };
                let now_ms = self.now_ms();
                self.run(Input::Request(incoming), now_ms, sink);
            }
            PersonQuestion::Download { contents } => match offered_files(&contents) {
                Ok(files) => {
                    let event = self.record(|r| {
                        r.change_view(view, |v| v.downloads.push(FileOffer { question, files }))
                    });
                    self.tell(event, sink);
                }
                Err(why) => answer(Err(why)),
            },
        }
    }
}

impl<C: ViewCore> ViewEffects for C {}

/// The most a view may offer to save at once.
const MAX_DOWNLOAD_BYTES: usize = 10 * 1024 * 1024;

/// The files of a `ui/download-file`: embedded resources only (a link to a resource would
/// have the host fetch it, which it does not do on a view's word), each named after its URI's
/// last segment, cleaned of anything a file system would take as a path.
fn offered_files(contents: &[Value]) -> Result<Vec<OfferedFile>, String> {
    let mut files = Vec::new();
    let mut total = 0usize;
    for item in contents {
        let resource = match item.get("type").and_then(Value::as_str) {
            Some("resource") => item.get("resource").and_then(Value::as_object),
            Some("resource_link") => {
                return Err("this host saves embedded resources only, not links".into());
            }
            _ => None,
        }
        .ok_or("each item of `contents` must be an embedded resource")?;
        let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
        let text = resource
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let blob = resource
            .get("blob")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let size = match (&text, &blob) {
            (Some(t), _) => t.len(),
            (None, Some(b)) => b.len() / 4 * 3,
            (None, None) => return Err(format!("{uri} has neither `text` nor `blob`")),
        };
        total += size;
        if total > MAX_DOWNLOAD_BYTES {
            return Err("the files are larger than this host saves from an app (10 MB)".into());
        }
        files.push(OfferedFile {
            name: file_name(uri),
            mime_type: resource
                .get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or("application/octet-stream")
                .to_owned(),
            text,
            blob,
            size,
        });
    }
    Ok(files)
}

/// A safe file name from a resource URI: its last path segment, without separators, control
/// characters or leading dots; `download` when nothing is left.
pub(crate) fn file_name(uri: &str) -> String {
    let last = uri
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("");
    let cleaned: String = last
        .chars()
        .filter(|c| {
            !c.is_control() && !matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
        })
        .take(120)
        .collect();
    let cleaned = cleaned.trim_start_matches('.').trim().to_owned();
    if cleaned.is_empty() {
        "download".to_owned()
    } else {
        cleaned
    }
}

/// The typed rmcp request for a method a view may send its server.
fn to_request(method: ServerMethod, params: Value) -> Result<ClientRequest, String> {
    let bad = |e: serde_json::Error| format!("Invalid params for {}: {e}", method.as_str());
    let listing = |params: Value| serde_json::from_value::<PaginatedRequestParams>(params);
    Ok(match method {
        ServerMethod::ToolsCall => ClientRequest::CallToolRequest(CallToolRequest::new(
            serde_json::from_value::<CallToolRequestParams>(params).map_err(bad)?,
        )),
        ServerMethod::ResourcesRead => {
            ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
                serde_json::from_value::<ReadResourceRequestParams>(params).map_err(bad)?,
            ))
        }
        ServerMethod::ResourcesList => ClientRequest::ListResourcesRequest(
            ListResourcesRequest::with_param(listing(params).map_err(bad)?),
        ),
        ServerMethod::ResourceTemplatesList => ClientRequest::ListResourceTemplatesRequest(
            ListResourceTemplatesRequest::with_param(listing(params).map_err(bad)?),
        ),
        ServerMethod::PromptsList => ClientRequest::ListPromptsRequest(
            ListPromptsRequest::with_param(listing(params).map_err(bad)?),
        ),
    })
}

/// Adds `item` to a view's bounded list, dropping the oldest once it holds `cap`.
fn push_capped<T>(list: &mut std::collections::VecDeque<T>, cap: usize, item: T) {
    if list.len() >= cap {
        list.pop_front();
    }
    list.push_back(item);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn file_names_are_last_segments_without_path_tricks() {
        for (uri, name) in [
            ("file:///reports/q3.csv", "q3.csv"),
            ("ui://app/../../etc/passwd", "passwd"),
            ("https://x.example/a/b.txt?x=1#y", "b.txt"),
            ("file:///..", "download"),
            ("file:///.bashrc", "bashrc"),
            ("weird:a\\b\u{0}c.txt", "bc.txt"),
            ("", "download"),
        ] {
            assert_eq!(file_name(uri), name, "{uri}");
        }
    }

    #[test]
    fn only_embedded_resources_within_the_limit_are_offered() {
        let ok = offered_files(&[json!({"type": "resource", "resource": {
            "uri": "file:///r.csv", "mimeType": "text/csv", "text": "a,b"}})]);
        let files = ok.unwrap_or_default();
        assert_eq!(files.len(), 1);
        assert_eq!((files[0].name.as_str(), files[0].size), ("r.csv", 3));
        assert!(offered_files(&[json!({"type": "resource_link", "uri": "file:///x"})]).is_err());
        assert!(offered_files(&[json!({"type": "text", "text": "x"})]).is_err());
        let big = "x".repeat(MAX_DOWNLOAD_BYTES + 1);
        assert!(
            offered_files(&[json!({"type": "resource", "resource": {"uri": "a", "text": big}})])
                .is_err()
        );
    }
}
