//! App views' resources, read and checked ([`Prepared`]), kept per server ([`ViewCache`]) so
//! that most views open without waiting for their server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use interlude_engine::ServerId;
use interlude_protocol::apps::{ResourceUi, UiDialect, is_app_mime};
use rmcp::model::{JsonObject, ReadResourceRequestParams, ResourceContents};
use rmcp::service::{Peer, RoleClient};

use crate::sync::lock;

/// A view's resource, read and checked: its HTML, dialect and declaration.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) html: Arc<str>,
    pub(crate) dialect: UiDialect,
    pub(crate) ui: ResourceUi,
}

/// The views' resources read so far, per server: read ahead at connect, again when the server
/// says its resources changed, so a view opens without waiting for its server.
#[derive(Default)]
pub(crate) struct ViewCache {
    read: Mutex<HashMap<(ServerId, String), Arc<Prepared>>>,
}

impl ViewCache {
    pub(crate) fn get(&self, server: ServerId, uri: &str) -> Option<Arc<Prepared>> {
        lock(&self.read).get(&(server, uri.to_owned())).cloned()
    }

    /// Forgets what server `server`'s resources were.
    pub(crate) fn forget(&self, server: ServerId) {
        lock(&self.read).retain(|(s, _), _| *s != server);
    }

    /// Reads `uri` from the server (and keeps it).
    pub(crate) async fn read(
        &self,
        peer: &Peer<RoleClient>,
        server: ServerId,
        listing: Option<JsonObject>,
        uri: &str,
    ) -> Result<Arc<Prepared>, String> {
        let prepared = Arc::new(prepare_view(peer, listing, uri).await?);
        lock(&self.read).insert((server, uri.to_owned()), prepared.clone());
        Ok(prepared)
    }
}

/// Reads a view's resource from its server and checks it: the HTML, the dialect its MIME type
/// says, its declaration. An error says why in a sentence.
async fn prepare_view(
    peer: &Peer<RoleClient>,
    listing_meta: Option<JsonObject>,
    uri: &str,
) -> Result<Prepared, String> {
    let result = peer
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .map_err(|e| format!("cannot read {uri}: {e}"))?;
    let content = result
        .contents
        .into_iter()
        .next()
        .ok_or_else(|| format!("{uri} has no content"))?;
    let (mime, html, meta) = match content {
        ResourceContents::TextResourceContents {
            mime_type,
            text,
            meta,
            ..
        } => (mime_type, text, meta),
        ResourceContents::BlobResourceContents {
            mime_type,
            blob,
            meta,
            ..
        } => {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.as_bytes())
                .map_err(|_| format!("{uri}: the blob is not base64"))?;
            let text = String::from_utf8(bytes).map_err(|_| format!("{uri}: not UTF-8 HTML"))?;
            (mime_type, text, meta)
        }
        _ => return Err(format!("{uri}: unknown content")),
    };
    let dialect = mime.as_deref().and_then(is_app_mime).ok_or_else(|| {
        format!(
            "{uri} is {}, not an app's HTML",
            mime.as_deref().unwrap_or("untyped")
        )
    })?;
    let ui = ResourceUi::from_meta(listing_meta.as_ref(), meta.as_ref().map(|m| &m.0))
        .map_err(|e| format!("{uri}: {e}"))?;
    Ok(Prepared {
        html: html.into(),
        dialect,
        ui,
    })
}
