//! A call's views, opened by the core from the call's own events, so that a call knows nothing
//! of views: the view its tool declares (`_meta.ui.resourceUri`), opened as the call starts;
//! the UI resources its result embeds (MCP-UI's way), opened as it ends, before the end is
//! applied (so their bridges hear the result like any view of the call); and every declared
//! view of a server read ahead once it is ready ([`prefetch`]).
//!
//! What it does not do: read what a view says (the bridge, `views.rs`), or decide whether a web
//! page may be framed (the URL rules of the engine do; this only asks them).

use std::sync::Arc;

use interlude_engine::{CallId, ServerId, url_safety};
use interlude_protocol::apps::UiDialect;
use rmcp::model::{CallToolResult, JsonObject};

use super::embedded::{self, EmbeddedContent};
use super::opening::{Opening, ViewFor, listing_meta};
use super::{ViewCore, Views};
use crate::hub::inputs::{HostInput, ViewUpdate};
use crate::hub::shared::next;
use crate::hub::surface::AnswerSink;
use crate::record::registry::{CallRecord, ExternalSite};
use interlude_engine::ViewId;

/// Opens the view `call`'s tool declares, if it has one: recorded at once, its resource read on
/// a task of its own while the call runs unless it was read ahead (the view's bridge gets the
/// call's input then, and its result when the call ends).
pub(crate) fn open_declared<C: ViewCore>(core: &mut C, call: &CallRecord, sink: &AnswerSink) {
    if !core.views().declared.apps {
        return;
    }
    let Some(record) = core.record(|r| r.server(call.server)) else {
        return;
    };
    let Some(uri) = record
        .tool_ui(&call.tool)
        .and_then(|ui| ui.resource_uri.clone())
    else {
        return;
    };
    let views = core.views();
    let Some(peer) = views.peers.get(&call.server).cloned() else {
        return;
    };
    let capabilities = peer.peer_info().map(|i| i.capabilities.clone());
    let opening = Opening::new(
        &record,
        capabilities.as_ref(),
        ViewId(next(&views.ids.view)),
        uri,
        ViewFor::Call {
            call: call.id,
            tool: call.tool.clone(),
            arguments: call.arguments.clone(),
        },
        views,
    );
    let cache = Arc::clone(&views.cache);
    core.view_update(ViewUpdate::Start(Box::new(opening.record())), sink);
    // Read ahead at connect: most views open without waiting for their server.
    if let Some(ready) = opening.ready_from(&cache) {
        core.view_update(ready, sink);
        return;
    }
    let hub = sink.hub.clone();
    core.spawn(async move {
        let ready = opening.read(&cache, &peer).await;
        hub.submit(HostInput::View(ready));
    });
}

/// Opens a view for each UI resource the result of call `call` embeds: HTML at once, from the
/// result itself; a web page judged by the URL rules and framed only once the person chooses
/// to; what cannot be shown (Remote DOM, an unreadable body, a refused page) as a failed view
/// that says why. A resource the tool already shows as its declared view is not opened twice.
pub(crate) fn open_embedded<C: ViewCore>(
    core: &mut C,
    call: CallId,
    result: &CallToolResult,
    sink: &AnswerSink,
) {
    if !core.views().declared.apps {
        return;
    }
    let Ok(serde_json::Value::Array(content)) = serde_json::to_value(&result.content) else {
        return;
    };
    let found = embedded::embedded_views(&content);
    if found.is_empty() {
        return;
    }
    let Some(call) = core.record(|r| r.call(call)) else {
        return;
    };
    let Some(record) = core.record(|r| r.server(call.server)) else {
        return;
    };
    let declared = record
        .tool_ui(&call.tool)
        .and_then(|ui| ui.resource_uri.clone());
    let capabilities = core
        .views()
        .peers
        .get(&call.server)
        .and_then(|p| p.peer_info())
        .map(|i| i.capabilities.clone());
    for item in found {
        if declared.as_deref() == Some(item.uri.as_str()) {
            continue;
        }
        let views: &mut Views = core.views();
        let mut opening = Opening::new(
            &record,
            capabilities.as_ref(),
            ViewId(next(&views.ids.view)),
            item.uri.clone(),
            ViewFor::Embedded {
                call: call.id,
                tool: call.tool.clone(),
                arguments: call.arguments.clone(),
                index: item.index,
            },
            views,
        );
        let view = opening.record().id;
        let update = match &item.content {
            EmbeddedContent::Html { html, dialect } => {
                Ok(opening.ready_embedded(html, *dialect, item.meta.as_ref()))
            }
            EmbeddedContent::ExternalUrl { url } => {
                let check = url_safety::check_url(url, &views.url_policy);
                let refused = (check.verdict == url_safety::Verdict::Refuse).then(|| {
                    let why: Vec<String> = check.reasons.iter().map(ToString::to_string).collect();
                    format!("the page {url} is refused: {}", why.join("; "))
                });
                opening.set_site(ExternalSite {
                    url: url.clone(),
                    check,
                    framed: false,
                });
                match refused {
                    Some(reason) => Err(reason),
                    None => Ok(opening.ready_embedded("", UiDialect::Apps, item.meta.as_ref())),
                }
            }
            EmbeddedContent::RemoteDom { framework, .. } => Err(format!(
                "this is a Remote DOM view{}, which Interlude does not render: its script \
                 draws with a component library the host would have to run on its own page",
                framework
                    .as_deref()
                    .map(|f| format!(" (for {f})"))
                    .unwrap_or_default()
            )),
            EmbeddedContent::Unusable { reason } => Err(reason.clone()),
        };
        core.view_update(ViewUpdate::Start(Box::new(opening.record())), sink);
        core.view_update(
            match update {
                Ok(ready) => ready,
                Err(reason) => ViewUpdate::Failed {
                    view,
                    reason,
                    request: None,
                },
            },
            sink,
        );
    }
}

/// Reads every view of server `server`'s tools in the background, once its record has its
/// tools and resources: most views then open without waiting for their server.
pub(crate) fn prefetch<C: ViewCore>(core: &mut C, server: ServerId) {
    if !core.views().declared.apps {
        return;
    }
    let Some(record) = core.record(|r| r.server(server)) else {
        return;
    };
    let views = core.views();
    let Some(peer) = views.peers.get(&server).cloned() else {
        return;
    };
    let cache = Arc::clone(&views.cache);
    let wanted: Vec<(String, Option<JsonObject>)> = record
        .apps
        .tools
        .values()
        .filter_map(|ui| ui.resource_uri.clone())
        .filter(|uri| cache.get(server, uri).is_none())
        .map(|uri| {
            let listing = listing_meta(&record, &uri);
            (uri, listing)
        })
        .collect();
    if wanted.is_empty() {
        return;
    }
    core.spawn(async move {
        for (uri, listing) in wanted {
            if cache.get(server, &uri).is_none()
                && let Err(e) = cache.read(&peer, server, listing, &uri).await
            {
                tracing::info!(%uri, "cannot read an app view ahead: {e}");
            }
        }
    });
}
