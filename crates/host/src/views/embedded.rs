//! UI resources a server embeds in a tool result — MCP-UI's way of sending a view, older than
//! MCP Apps and still what `@mcp-ui/server` (`createUIResource`), `mcp-ui-server` (Python) and
//! `mcp_ui_server` (Ruby) send: a `resource` content item whose URI is `ui://…`.
//!
//! [`embedded_views`] reads a result's content and says, for each such item, what it is:
//! - **HTML** (`text/html;profile=mcp-app`, `text/html`, and the other app MIME types), in
//!   `text` or base64 `blob`: rendered as a view beside its call, in the same sandbox as MCP Apps
//!   views;
//! - an **external URL**: `text/uri-list` (the first `http(s)` URL of the list, `#` lines being
//!   comments), or an HTML resource whose whole text is one `http(s)` URL — what
//!   `@mcp-ui/server` 6 sends for `content: {type: "externalUrl"}`. Framed only after the person
//!   chooses to;
//! - **Remote DOM** (`application/vnd.mcp-ui.remote-dom+javascript; framework=…`): not
//!   rendered — its script describes elements that the host must draw with a component library
//!   of its own, on the host page (see `docs/mcp-ui.md`);
//! - **unusable**: a `ui://` resource whose body cannot be read (a blob that is not base64 or
//!   not UTF-8, an empty list of URLs), with why.
//!
//! Items that are not `ui://` resources are ordinary content and are left alone.
//!
//! ```
//! use interlude_host::embedded::{EmbeddedContent, embedded_views};
//! use serde_json::json;
//!
//! let content = vec![
//!     json!({"type": "text", "text": "Here is your dashboard"}),
//!     json!({"type": "resource", "resource": {
//!         "uri": "ui://dash/1", "mimeType": "text/html;profile=mcp-app",
//!         "text": "<button>Refresh</button>"}}),
//! ];
//! let views = embedded_views(&content);
//! assert_eq!(views.len(), 1);
//! assert_eq!(views[0].index, 1);
//! assert!(matches!(views[0].content, EmbeddedContent::Html { .. }));
//! ```

use base64::Engine as _;
use interlude_protocol::apps::{UiDialect, is_app_mime};
use serde_json::{Map, Value};

/// The most views one tool result opens; further UI resources are reported unusable.
pub const MAX_EMBEDDED_VIEWS: usize = 8;

/// A UI resource embedded in a tool result.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedView {
    /// Its position in the result's `content`.
    pub index: usize,
    /// Its `ui://` URI.
    pub uri: String,
    /// Its MIME type as sent (empty when none was).
    pub mime_type: String,
    /// What it carries.
    pub content: EmbeddedContent,
    /// The resource's `_meta` (its `ui.csp`, `ui.prefersBorder`, MCP-UI's `mcpui.dev/ui-…`
    /// keys), if any.
    pub meta: Option<Map<String, Value>>,
}

/// What an embedded UI resource carries.
#[derive(Debug, Clone, PartialEq)]
pub enum EmbeddedContent {
    /// An HTML view, and the dialect its MIME type suggests.
    Html {
        /// The document.
        html: String,
        /// The dialect (the view's own messages refine it; MCP-UI's plain `postMessage`
        /// objects are understood whatever it says).
        dialect: UiDialect,
    },
    /// A web page to show framed, once the person chooses to.
    ExternalUrl {
        /// The page's address (`http` or `https`).
        url: String,
    },
    /// A Remote DOM script, not rendered.
    RemoteDom {
        /// The framework it names (`react`, `webcomponents`), if any.
        framework: Option<String>,
        /// The script.
        script: String,
    },
    /// A UI resource that cannot be shown, and why, in a sentence.
    Unusable {
        /// Why.
        reason: String,
    },
}

impl EmbeddedContent {
    /// What it is, in a few words, for a surface that does not render views ("an HTML view", "a
    /// web page", …).
    ///
    /// ```
    /// use interlude_host::embedded::EmbeddedContent;
    /// let page = EmbeddedContent::ExternalUrl { url: "https://example.com/".into() };
    /// assert_eq!(page.describe(), "a web page (https://example.com/)");
    /// ```
    pub fn describe(&self) -> String {
        match self {
            EmbeddedContent::Html { .. } => "an HTML view".to_owned(),
            EmbeddedContent::ExternalUrl { url } => format!("a web page ({url})"),
            EmbeddedContent::RemoteDom { framework, .. } => match framework {
                Some(f) => format!("a Remote DOM view for {f}, which Interlude does not render"),
                None => "a Remote DOM view, which Interlude does not render".to_owned(),
            },
            EmbeddedContent::Unusable { reason } => {
                format!("a view that cannot be shown: {reason}")
            }
        }
    }
}

/// The UI resources in a tool result's `content` (JSON content items), in order.
pub fn embedded_views(content: &[Value]) -> Vec<EmbeddedView> {
    let mut found = Vec::new();
    for (index, item) in content.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("resource") {
            continue;
        }
        let Some(resource) = item.get("resource").and_then(Value::as_object) else {
            continue;
        };
        let Some(uri) = resource.get("uri").and_then(Value::as_str) else {
            continue;
        };
        if !uri
            .get(..5)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("ui://"))
        {
            continue;
        }
        let mime_type = resource
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let meta = resource.get("_meta").and_then(Value::as_object).cloned();
        let content = if found.len() >= MAX_EMBEDDED_VIEWS {
            EmbeddedContent::Unusable {
                reason: format!("one result may open at most {MAX_EMBEDDED_VIEWS} views"),
            }
        } else {
            classify(&mime_type, resource)
        };
        found.push(EmbeddedView {
            index,
            uri: uri.chars().take(500).collect(),
            mime_type,
            content,
            meta,
        });
    }
    found
}

/// What one `ui://` resource with MIME type `mime` carries.
fn classify(mime: &str, resource: &Map<String, Value>) -> EmbeddedContent {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let body = match body(resource) {
        Ok(body) => body,
        Err(reason) => return EmbeddedContent::Unusable { reason },
    };
    if essence == "text/uri-list" {
        return match first_web_url(&body) {
            Some(url) => EmbeddedContent::ExternalUrl { url },
            None => EmbeddedContent::Unusable {
                reason: "its list of URLs has no http or https URL".into(),
            },
        };
    }
    if essence.starts_with("application/vnd.mcp-ui.remote-dom") {
        let framework = mime.split(';').skip(1).find_map(|p| {
            let (name, value) = p.split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case("framework")
                .then(|| value.trim().trim_matches('"').to_owned())
        });
        return EmbeddedContent::RemoteDom {
            framework,
            script: body,
        };
    }
    // An untyped `ui://` resource is taken for HTML, as MCP-UI's renderers do.
    let dialect = if mime.trim().is_empty() {
        Some(UiDialect::Seed)
    } else {
        is_app_mime(mime)
    };
    let Some(dialect) = dialect else {
        return EmbeddedContent::Unusable {
            reason: format!("it is {mime}, neither HTML nor a URL"),
        };
    };
    // `@mcp-ui/server` 6 sends an external URL as an HTML resource whose text is the URL.
    if let Some(url) = web_url(body.trim()) {
        return EmbeddedContent::ExternalUrl { url };
    }
    EmbeddedContent::Html {
        html: body,
        dialect,
    }
}

/// The resource's body: its `text`, or its `blob` decoded (base64, UTF-8).
fn body(resource: &Map<String, Value>) -> Result<String, String> {
    if let Some(text) = resource.get("text").and_then(Value::as_str) {
        return Ok(text.to_owned());
    }
    let Some(blob) = resource.get("blob").and_then(Value::as_str) else {
        return Err("it has neither `text` nor `blob`".into());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob.trim().as_bytes())
        .map_err(|_| "its `blob` is not base64".to_owned())?;
    String::from_utf8(bytes).map_err(|_| "its `blob` is not UTF-8 text".to_owned())
}

/// The first `http(s)` URL of a `text/uri-list` (RFC 2483: one per line, `#` starts a comment).
fn first_web_url(list: &str) -> Option<String> {
    list.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .find_map(web_url)
}

/// `text` as an absolute `http` or `https` URL, normalised; `None` for anything else (a URI
/// holds no whitespace: the parser would quietly encode it).
fn web_url(text: &str) -> Option<String> {
    if text.contains(char::is_whitespace) {
        return None;
    }
    let url = url::Url::parse(text).ok()?;
    matches!(url.scheme(), "http" | "https")
        .then(|| url.host_str().is_some())
        .filter(|has_host| *has_host)
        .map(|_| url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resource(mime: &str, body: Value) -> Value {
        let mut r = json!({"uri": "ui://t/1", "mimeType": mime});
        if let (Some(r), Some(b)) = (r.as_object_mut(), body.as_object()) {
            r.extend(b.clone());
        }
        json!({"type": "resource", "resource": r})
    }

    #[test]
    fn html_in_text_and_in_base64_blob() {
        let blob = base64::engine::general_purpose::STANDARD.encode("<p>hé</p>");
        let views = embedded_views(&[
            resource("text/html;profile=mcp-app", json!({"text": "<p>a</p>"})),
            resource("text/html", json!({"blob": blob})),
        ]);
        assert_eq!(
            views[0].content,
            EmbeddedContent::Html {
                html: "<p>a</p>".into(),
                dialect: UiDialect::Apps
            }
        );
        assert_eq!(
            views[1].content,
            EmbeddedContent::Html {
                html: "<p>hé</p>".into(),
                dialect: UiDialect::Seed
            }
        );
    }

    #[test]
    fn external_urls_from_a_uri_list_and_from_mcp_ui_6() {
        let views = embedded_views(&[
            resource(
                "text/uri-list",
                json!({"text": "# a comment\nftp://no.example\nhttps://example.com/a b\nhttps://example.com/x\n"}),
            ),
            resource(
                "text/html;profile=mcp-app",
                json!({"text": "  http://127.0.0.1:8080/page  "}),
            ),
            resource("text/uri-list", json!({"text": "# nothing\n"})),
        ]);
        assert_eq!(
            views[0].content,
            EmbeddedContent::ExternalUrl {
                url: "https://example.com/x".into()
            }
        );
        assert_eq!(
            views[1].content,
            EmbeddedContent::ExternalUrl {
                url: "http://127.0.0.1:8080/page".into()
            }
        );
        assert!(matches!(views[2].content, EmbeddedContent::Unusable { .. }));
    }

    #[test]
    fn remote_dom_names_its_framework() {
        let views = embedded_views(&[resource(
            "application/vnd.mcp-ui.remote-dom+javascript; framework=react",
            json!({"text": "root.append(1)"}),
        )]);
        assert_eq!(
            views[0].content,
            EmbeddedContent::RemoteDom {
                framework: Some("react".into()),
                script: "root.append(1)".into()
            }
        );
    }

    #[test]
    fn ordinary_resources_are_left_alone_and_bad_bodies_say_why() {
        let views = embedded_views(&[
            json!({"type": "resource", "resource": {"uri": "file:///a.txt", "text": "x"}}),
            json!({"type": "text", "text": "ui://not/a/resource"}),
            resource("text/html", json!({"blob": "%%%"})),
            resource("image/png", json!({"blob": "AAAA"})),
        ]);
        assert_eq!(views.len(), 2);
        assert_eq!(views[0].index, 2);
        assert_eq!(
            views[0].content,
            EmbeddedContent::Unusable {
                reason: "its `blob` is not base64".into()
            }
        );
        assert!(matches!(views[1].content, EmbeddedContent::Unusable { .. }));
    }

    #[test]
    fn at_most_eight_views_per_result() {
        let many: Vec<Value> = (0..20)
            .map(|_| resource("text/html", json!({"text": "<p>x</p>"})))
            .collect();
        let views = embedded_views(&many);
        assert_eq!(views.len(), 20);
        let shown = views
            .iter()
            .filter(|v| matches!(v.content, EmbeddedContent::Html { .. }))
            .count();
        assert_eq!(shown, MAX_EMBEDDED_VIEWS);
    }
}
