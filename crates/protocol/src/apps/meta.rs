//! The `_meta` of app tools and `ui://` resources, in every spelling apps use.

use serde::Serialize;
use serde_json::{Map, Value};

/// Which spelling a piece of app metadata came in (and so which dialect its view speaks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UiDialect {
    /// MCP Apps as specified (2026-01-26): `_meta.ui`, `ui/resourceUri`,
    /// `text/html;profile=mcp-app`.
    Apps,
    /// The early SEP draft: `text/html+mcp`.
    EarlyDraft,
    /// Seed 001, the MCP-UI draft: `mcp-ui/resourceUri`, `mcp-ui/widgetCSP`, `text/html`.
    Seed,
    /// ChatGPT's Apps SDK: `openai/outputTemplate`, `openai/widgetCSP`, `text/html+skybridge`.
    Skybridge,
}

/// Who may call a tool: the model (it is in the tool list an agent sees) and/or the views of the
/// same server. The default, when a tool says nothing, is both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Visibility {
    /// In any tool list meant for a model.
    pub model: bool,
    /// Callable by a view of the same server connection.
    pub app: bool,
}

impl Visibility {
    /// Both (the default).
    pub const DEFAULT: Visibility = Visibility {
        model: true,
        app: true,
    };
    /// `["model"]`: never callable from a view.
    pub const MODEL_ONLY: Visibility = Visibility {
        model: true,
        app: false,
    };
    /// `["app"]`: hidden from the model, callable by the server's views.
    pub const APP_ONLY: Visibility = Visibility {
        model: false,
        app: true,
    };
}

impl Default for Visibility {
    fn default() -> Self {
        Visibility::DEFAULT
    }
}

/// Metadata that is present but unusable: the key and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UiMetaError {
    /// A resource URI that is not `ui://…`.
    #[error("`_meta.{key}` must be a ui:// URI, not {value:?}")]
    NotUiUri {
        /// The key, as the server spelled it.
        key: &'static str,
        /// Its value (cut to 200 characters).
        value: String,
    },
    /// A value of the wrong JSON type.
    #[error("`_meta.{key}` must be {expected}")]
    WrongType {
        /// The key, as the server spelled it.
        key: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

/// What a tool's `_meta` says about apps: the view that shows its results, if any, and who may
/// call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolUi {
    /// The `ui://` resource of its view (`_meta.ui.resourceUri`, else the flat `ui/resourceUri`,
    /// else a legacy spelling). A tool may have app metadata without a view (an app-only tool).
    pub resource_uri: Option<String>,
    /// Who may call it.
    pub visibility: Visibility,
    /// The spelling the view's resource was named in.
    pub dialect: UiDialect,
}

impl ToolUi {
    /// Reads a tool's `_meta`. `Ok(None)` when it says nothing about apps (the tool is plain,
    /// visible to both); an error names the key that is present but unusable.
    pub fn from_meta(meta: &Map<String, Value>) -> Result<Option<ToolUi>, UiMetaError> {
        let nested = match meta.get("ui") {
            None | Some(Value::Null) => None,
            Some(Value::Object(ui)) => Some(ui),
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key: "ui",
                    expected: "an object",
                });
            }
        };
        // Nested first, then the flat key, then the older spellings.
        let candidates: [(&'static str, Option<&Value>, UiDialect); 4] = [
            (
                "ui.resourceUri",
                nested.and_then(|ui| ui.get("resourceUri")),
                UiDialect::Apps,
            ),
            (
                super::RESOURCE_URI_KEY,
                meta.get(super::RESOURCE_URI_KEY),
                UiDialect::Apps,
            ),
            (
                "mcp-ui/resourceUri",
                meta.get("mcp-ui/resourceUri"),
                UiDialect::Seed,
            ),
            (
                "openai/outputTemplate",
                meta.get("openai/outputTemplate"),
                UiDialect::Skybridge,
            ),
        ];
        let mut resource = None;
        for (key, value, dialect) in candidates {
            match value {
                None | Some(Value::Null) => {}
                Some(Value::String(uri)) if is_ui_uri(uri) => {
                    resource = Some((uri.clone(), dialect));
                    break;
                }
                Some(Value::String(uri)) => {
                    return Err(UiMetaError::NotUiUri {
                        key,
                        value: uri.chars().take(200).collect(),
                    });
                }
                Some(_) => {
                    return Err(UiMetaError::WrongType {
                        key,
                        expected: "a ui:// URI",
                    });
                }
            }
        }
        let listed = match nested.and_then(|ui| ui.get("visibility")) {
            None | Some(Value::Null) => None,
            Some(Value::Array(entries)) => {
                let mut visibility = Visibility {
                    model: false,
                    app: false,
                };
                for entry in entries {
                    match entry.as_str() {
                        Some("model") => visibility.model = true,
                        Some("app") => visibility.app = true,
                        // A value from a later version: not ours to guess.
                        Some(_) => {}
                        None => {
                            return Err(UiMetaError::WrongType {
                                key: "ui.visibility",
                                expected: "an array of \"model\" and \"app\"",
                            });
                        }
                    }
                }
                Some(visibility)
            }
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key: "ui.visibility",
                    expected: "an array of \"model\" and \"app\"",
                });
            }
        };
        // The Apps SDK: a widget may call the tool only when it says so.
        let accessible = match meta.get("openai/widgetAccessible") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key: "openai/widgetAccessible",
                    expected: "a boolean",
                });
            }
        };
        if resource.is_none() && nested.is_none() && accessible.is_none() {
            return Ok(None);
        }
        let skybridge = matches!(resource, Some((_, UiDialect::Skybridge)));
        let visibility = match (listed, accessible) {
            (Some(listed), _) => listed,
            (None, Some(app)) => Visibility { model: true, app },
            (None, None) if skybridge => Visibility::MODEL_ONLY,
            (None, None) => Visibility::DEFAULT,
        };
        let (resource_uri, dialect) = match resource {
            Some((uri, dialect)) => (Some(uri), dialect),
            None if accessible.is_some() && nested.is_none() => (None, UiDialect::Skybridge),
            None => (None, UiDialect::Apps),
        };
        Ok(Some(ToolUi {
            resource_uri,
            visibility,
            dialect,
        }))
    }
}

/// Whether `uri` names an app resource: `ui://` and something after it.
fn is_ui_uri(uri: &str) -> bool {
    uri.len() > "ui://".len()
        && uri
            .get(..5)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("ui://"))
}

/// The dialect of a resource's MIME type, if it is an app's HTML (parameters and case aside).
///
/// ```
/// use interlude_protocol::apps::{UiDialect, is_app_mime};
///
/// assert_eq!(is_app_mime("text/html;profile=mcp-app"), Some(UiDialect::Apps));
/// assert_eq!(is_app_mime("text/html; profile=\"mcp-app\""), Some(UiDialect::Apps));
/// assert_eq!(is_app_mime("text/html+skybridge"), Some(UiDialect::Skybridge));
/// assert_eq!(is_app_mime("application/json"), None);
/// ```
pub fn is_app_mime(mime: &str) -> Option<UiDialect> {
    let mut parts = mime.split(';');
    let essence = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let profile = parts.find_map(|p| {
        let (name, value) = p.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("profile")
            .then(|| value.trim().trim_matches('"').to_ascii_lowercase())
    });
    match (essence.as_str(), profile.as_deref()) {
        ("text/html", Some("mcp-app")) => Some(UiDialect::Apps),
        ("text/html+mcp", _) => Some(UiDialect::EarlyDraft),
        ("text/html+skybridge", _) => Some(UiDialect::Skybridge),
        ("text/html", None) => Some(UiDialect::Seed),
        _ => None,
    }
}

/// The domains a view may reach, as its resource declares them (`_meta.ui.csp`). Each list
/// feeds one part of the view's Content-Security-Policy; what is not declared stays closed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ResourceCsp {
    /// `connectDomains`: fetch, XHR, WebSocket (`connect-src`).
    pub connect_domains: Vec<String>,
    /// `resourceDomains`: scripts, styles, images, fonts, media.
    pub resource_domains: Vec<String>,
    /// `frameDomains`: nested frames (`frame-src`); `None` means none.
    pub frame_domains: Option<Vec<String>>,
    /// `baseUriDomains` (`base-uri`); `None` means the document's own.
    pub base_uri_domains: Option<Vec<String>>,
}

/// Browser permissions a view asks for (`_meta.ui.permissions`): the host may grant them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Permissions {
    /// `camera`.
    pub camera: bool,
    /// `microphone`.
    pub microphone: bool,
    /// `geolocation`.
    pub geolocation: bool,
    /// `clipboardWrite` (`clipboard-write`).
    pub clipboard_write: bool,
}

/// What a `ui://` resource's `_meta` says about its view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ResourceUi {
    /// The declared domains; `None` when the resource declares no CSP at all (the host then
    /// applies its restrictive default).
    pub csp: Option<ResourceCsp>,
    /// The declared permissions.
    pub permissions: Permissions,
    /// A dedicated origin the view asks for (`domain`), host-specific.
    pub domain: Option<String>,
    /// Whether it wants a border and background (`prefersBorder`); `None`: the host decides.
    pub prefers_border: Option<bool>,
}

impl ResourceUi {
    /// Reads a resource's `_meta`: the content item's (from `resources/read`) wins over the
    /// listing's (from `resources/list`), key by key. Legacy spellings (`mcp-ui/widgetCSP`,
    /// `openai/widgetCSP` with snake_case lists, `…/widgetDomain`, `…/widgetPrefersBorder`)
    /// count where `_meta.ui` says nothing.
    ///
    /// ```
    /// use interlude_protocol::apps::ResourceUi;
    /// use serde_json::json;
    ///
    /// let listing = json!({"ui": {"prefersBorder": true}});
    /// let content = json!({"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}});
    /// let ui = ResourceUi::from_meta(listing.as_object(), content.as_object()).unwrap();
    /// assert_eq!(ui.csp.unwrap().connect_domains, ["https://api.example.com"]);
    /// assert_eq!(ui.prefers_border, Some(true));
    /// ```
    pub fn from_meta(
        listing: Option<&Map<String, Value>>,
        content: Option<&Map<String, Value>>,
    ) -> Result<ResourceUi, UiMetaError> {
        let from_content = content.map(Self::one).transpose()?.unwrap_or_default();
        let from_listing = listing.map(Self::one).transpose()?.unwrap_or_default();
        Ok(ResourceUi {
            csp: from_content.csp.or(from_listing.csp),
            permissions: if from_content.permissions == Permissions::default() {
                from_listing.permissions
            } else {
                from_content.permissions
            },
            domain: from_content.domain.or(from_listing.domain),
            prefers_border: from_content.prefers_border.or(from_listing.prefers_border),
        })
    }

    /// One `_meta` object, every spelling.
    fn one(meta: &Map<String, Value>) -> Result<ResourceUi, UiMetaError> {
        let ui = match meta.get("ui") {
            None | Some(Value::Null) => None,
            Some(Value::Object(ui)) => Some(ui),
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key: "ui",
                    expected: "an object",
                });
            }
        };
        let csp = match ui.and_then(|ui| ui.get("csp")) {
            Some(Value::Object(csp)) => Some(ResourceCsp {
                connect_domains: domains(csp, "connectDomains", "ui.csp.connectDomains")?
                    .unwrap_or_default(),
                resource_domains: domains(csp, "resourceDomains", "ui.csp.resourceDomains")?
                    .unwrap_or_default(),
                frame_domains: domains(csp, "frameDomains", "ui.csp.frameDomains")?,
                base_uri_domains: domains(csp, "baseUriDomains", "ui.csp.baseUriDomains")?,
            }),
            None | Some(Value::Null) => legacy_csp(meta)?,
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key: "ui.csp",
                    expected: "an object",
                });
            }
        };
        let permissions = match ui.and_then(|ui| ui.get("permissions")) {
            Some(Value::Object(p)) => Permissions {
                camera: p.contains_key("camera"),
                microphone: p.contains_key("microphone"),
                geolocation: p.contains_key("geolocation"),
                clipboard_write: p.contains_key("clipboardWrite"),
            },
            None | Some(Value::Null) => Permissions::default(),
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key: "ui.permissions",
                    expected: "an object",
                });
            }
        };
        let domain = first_string(
            meta,
            ui,
            "domain",
            ["mcp-ui/widgetDomain", "openai/widgetDomain"],
        )?;
        let prefers_border = match ui.and_then(|ui| ui.get("prefersBorder")) {
            Some(Value::Bool(b)) => Some(*b),
            None | Some(Value::Null) => {
                ["mcp-ui/widgetPrefersBorder", "openai/widgetPrefersBorder"]
                    .iter()
                    .find_map(|k| meta.get(*k).and_then(Value::as_bool))
            }
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key: "ui.prefersBorder",
                    expected: "a boolean",
                });
            }
        };
        Ok(ResourceUi {
            csp,
            permissions,
            domain,
            prefers_border,
        })
    }
}

impl ResourceUi {
    /// The `ui` object of a resource's `_meta`, as a server sends it (camelCase keys, only what
    /// is declared).
    ///
    /// ```
    /// use interlude_protocol::apps::{ResourceCsp, ResourceUi};
    ///
    /// let ui = ResourceUi {
    ///     csp: Some(ResourceCsp { connect_domains: vec!["https://api.example.com".into()],
    ///                             ..ResourceCsp::default() }),
    ///     prefers_border: Some(true),
    ///     ..ResourceUi::default()
    /// };
    /// let wire = serde_json::Value::Object(ui.to_wire());
    /// assert_eq!(wire["csp"]["connectDomains"][0], "https://api.example.com");
    /// assert_eq!(wire["prefersBorder"], true);
    /// assert_eq!(ResourceUi::from_meta(None, serde_json::json!({"ui": wire}).as_object()).unwrap(), ui);
    /// ```
    pub fn to_wire(&self) -> Map<String, Value> {
        let mut ui = Map::new();
        if let Some(csp) = &self.csp {
            let mut out = Map::new();
            if !csp.connect_domains.is_empty() {
                out.insert(
                    "connectDomains".into(),
                    Value::from(csp.connect_domains.clone()),
                );
            }
            if !csp.resource_domains.is_empty() {
                out.insert(
                    "resourceDomains".into(),
                    Value::from(csp.resource_domains.clone()),
                );
            }
            if let Some(frames) = &csp.frame_domains {
                out.insert("frameDomains".into(), Value::from(frames.clone()));
            }
            if let Some(base) = &csp.base_uri_domains {
                out.insert("baseUriDomains".into(), Value::from(base.clone()));
            }
            ui.insert("csp".into(), Value::Object(out));
        }
        let p = self.permissions;
        if p != Permissions::default() {
            let mut out = Map::new();
            for (on, name) in [
                (p.camera, "camera"),
                (p.microphone, "microphone"),
                (p.geolocation, "geolocation"),
                (p.clipboard_write, "clipboardWrite"),
            ] {
                if on {
                    out.insert(name.into(), Value::Object(Map::new()));
                }
            }
            ui.insert("permissions".into(), Value::Object(out));
        }
        if let Some(domain) = &self.domain {
            ui.insert("domain".into(), Value::from(domain.clone()));
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".into(), Value::from(border));
        }
        ui
    }
}

impl Visibility {
    /// As a tool's `_meta.ui.visibility` lists it.
    pub fn to_wire(self) -> Value {
        let mut list = Vec::new();
        if self.model {
            list.push(Value::from("model"));
        }
        if self.app {
            list.push(Value::from("app"));
        }
        Value::Array(list)
    }
}

/// A list of domains at `name` in `object`, or `None` when absent.
fn domains(
    object: &Map<String, Value>,
    name: &str,
    key: &'static str,
) -> Result<Option<Vec<String>>, UiMetaError> {
    let wrong = || UiMetaError::WrongType {
        key,
        expected: "an array of strings",
    };
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(entries)) => entries
            .iter()
            .map(|e| e.as_str().map(str::to_owned).ok_or_else(wrong))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(wrong()),
    }
}

/// Seed 001's `mcp-ui/widgetCSP` or the Apps SDK's `openai/widgetCSP` (snake_case lists).
fn legacy_csp(meta: &Map<String, Value>) -> Result<Option<ResourceCsp>, UiMetaError> {
    for (key, connect, resource, frame) in [
        (
            "mcp-ui/widgetCSP",
            "mcp-ui/widgetCSP.connect_domains",
            "mcp-ui/widgetCSP.resource_domains",
            "mcp-ui/widgetCSP.frame_domains",
        ),
        (
            "openai/widgetCSP",
            "openai/widgetCSP.connect_domains",
            "openai/widgetCSP.resource_domains",
            "openai/widgetCSP.frame_domains",
        ),
    ] {
        match meta.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Object(csp)) => {
                return Ok(Some(ResourceCsp {
                    connect_domains: domains(csp, "connect_domains", connect)?.unwrap_or_default(),
                    resource_domains: domains(csp, "resource_domains", resource)?
                        .unwrap_or_default(),
                    frame_domains: domains(csp, "frame_domains", frame)?,
                    base_uri_domains: None,
                }));
            }
            Some(_) => {
                return Err(UiMetaError::WrongType {
                    key,
                    expected: "an object",
                });
            }
        }
    }
    Ok(None)
}

/// `ui.<name>` as a string, else the first legacy key that has one.
fn first_string(
    meta: &Map<String, Value>,
    ui: Option<&Map<String, Value>>,
    name: &'static str,
    legacy: [&'static str; 2],
) -> Result<Option<String>, UiMetaError> {
    match ui.and_then(|ui| ui.get(name)) {
        Some(Value::String(s)) => return Ok(Some(s.clone())),
        None | Some(Value::Null) => {}
        Some(_) => {
            return Err(UiMetaError::WrongType {
                key: "ui.domain",
                expected: "a string",
            });
        }
    }
    Ok(legacy
        .iter()
        .find_map(|k| meta.get(*k).and_then(Value::as_str).map(str::to_owned)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use serde_json::json;

    fn tool(meta: Value) -> Result<Option<ToolUi>, UiMetaError> {
        ToolUi::from_meta(meta.as_object().unwrap())
    }

    #[test]
    fn the_nested_key_wins_over_the_flat_one_and_the_legacy_ones() {
        let ui = tool(json!({
            "ui": {"resourceUri": "ui://a/nested.html"},
            "ui/resourceUri": "ui://a/flat.html",
            "mcp-ui/resourceUri": "ui://a/seed.html",
        }))
        .unwrap()
        .unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://a/nested.html"));
        assert_eq!(
            (ui.visibility, ui.dialect),
            (Visibility::DEFAULT, UiDialect::Apps)
        );

        let flat = tool(json!({"ui/resourceUri": "ui://a/flat.html"}))
            .unwrap()
            .unwrap();
        assert_eq!(flat.resource_uri.as_deref(), Some("ui://a/flat.html"));
        let seed = tool(json!({"mcp-ui/resourceUri": "ui://a/seed.html"}))
            .unwrap()
            .unwrap();
        assert_eq!(seed.dialect, UiDialect::Seed);
    }

    #[test]
    fn a_resource_uri_that_is_not_ui_is_an_error_naming_its_key() {
        for (meta, key) in [
            (
                json!({"ui": {"resourceUri": "https://evil.example/x.html"}}),
                "ui.resourceUri",
            ),
            (
                json!({"ui/resourceUri": "file:///etc/passwd"}),
                "ui/resourceUri",
            ),
            (json!({"mcp-ui/resourceUri": "ui://"}), "mcp-ui/resourceUri"),
            (
                json!({"openai/outputTemplate": "javascript:alert(1)"}),
                "openai/outputTemplate",
            ),
        ] {
            match tool(meta.clone()) {
                Err(UiMetaError::NotUiUri { key: k, .. }) => assert_eq!(k, key, "{meta}"),
                other => panic!("{meta}: {other:?}"),
            }
        }
        assert!(matches!(
            tool(json!({"ui": {"resourceUri": 7}})),
            Err(UiMetaError::WrongType {
                key: "ui.resourceUri",
                ..
            })
        ));
        assert!(matches!(
            tool(json!({"ui": "ui://a"})),
            Err(UiMetaError::WrongType { key: "ui", .. })
        ));
    }

    #[test]
    fn visibility_is_read_without_a_view_and_defaults_to_both() {
        // An app-only tool with no view of its own (a view polls it).
        let poll = tool(json!({"ui": {"visibility": ["app"]}}))
            .unwrap()
            .unwrap();
        assert_eq!(
            (poll.resource_uri, poll.visibility),
            (None, Visibility::APP_ONLY)
        );
        let model = tool(json!({"ui": {"resourceUri": "ui://m/v.html", "visibility": ["model"]}}))
            .unwrap()
            .unwrap();
        assert_eq!(model.visibility, Visibility::MODEL_ONLY);
        let neither = tool(json!({"ui": {"visibility": []}})).unwrap().unwrap();
        assert!(!neither.visibility.model && !neither.visibility.app);
        let later = tool(json!({"ui": {"visibility": ["app", "robot"]}}))
            .unwrap()
            .unwrap();
        assert_eq!(later.visibility, Visibility::APP_ONLY);
        assert!(tool(json!({"ui": {"visibility": "app"}})).is_err());
        assert!(tool(json!({"ui": {"visibility": [1]}})).is_err());
        assert_eq!(tool(json!({"progressToken": 1})).unwrap(), None);
    }

    #[test]
    fn apps_sdk_tools_are_callable_by_their_widget_only_when_accessible() {
        let plain = tool(json!({"openai/outputTemplate": "ui://widget/w.html"}))
            .unwrap()
            .unwrap();
        assert_eq!(plain.dialect, UiDialect::Skybridge);
        assert_eq!(plain.visibility, Visibility::MODEL_ONLY);
        let accessible = tool(json!({
            "openai/outputTemplate": "ui://widget/w.html",
            "openai/widgetAccessible": true,
        }))
        .unwrap()
        .unwrap();
        assert_eq!(accessible.visibility, Visibility::DEFAULT);
    }

    #[test]
    fn resource_metadata_from_the_content_item_wins_key_by_key() {
        let listing = json!({"ui": {
            "csp": {"connectDomains": ["https://listing.example"]},
            "prefersBorder": false,
            "domain": "listing.example",
        }});
        let content = json!({"ui": {
            "csp": {"resourceDomains": ["https://unpkg.com"], "frameDomains": []},
            "permissions": {"clipboardWrite": {}},
        }});
        let ui = ResourceUi::from_meta(listing.as_object(), content.as_object()).unwrap();
        let csp = ui.csp.unwrap();
        assert!(csp.connect_domains.is_empty(), "the content's CSP, whole");
        assert_eq!(csp.resource_domains, ["https://unpkg.com"]);
        assert_eq!(csp.frame_domains, Some(vec![]));
        assert_eq!(csp.base_uri_domains, None);
        assert!(ui.permissions.clipboard_write && !ui.permissions.camera);
        assert_eq!(ui.prefers_border, Some(false));
        assert_eq!(ui.domain.as_deref(), Some("listing.example"));
        assert_eq!(
            ResourceUi::from_meta(None, None).unwrap(),
            ResourceUi::default()
        );
    }

    #[test]
    fn legacy_csp_spellings_are_read_where_ui_says_nothing() {
        let seed = json!({"mcp-ui/widgetCSP": {
            "connect_domains": ["https://api.example"],
            "resource_domains": ["https://cdn.example"],
        }, "mcp-ui/widgetPrefersBorder": true, "mcp-ui/widgetDomain": "w.example"});
        let ui = ResourceUi::from_meta(None, seed.as_object()).unwrap();
        let csp = ui.csp.unwrap();
        assert_eq!(csp.connect_domains, ["https://api.example"]);
        assert_eq!(csp.resource_domains, ["https://cdn.example"]);
        assert_eq!(
            (ui.prefers_border, ui.domain.as_deref()),
            (Some(true), Some("w.example"))
        );
        let openai = json!({"openai/widgetCSP": {"connect_domains": ["https://o.example"]}});
        let ui = ResourceUi::from_meta(None, openai.as_object()).unwrap();
        assert_eq!(ui.csp.unwrap().connect_domains, ["https://o.example"]);
        let bad = json!({"ui": {"csp": {"connectDomains": "https://a.example"}}});
        assert!(matches!(
            ResourceUi::from_meta(None, bad.as_object()),
            Err(UiMetaError::WrongType {
                key: "ui.csp.connectDomains",
                ..
            })
        ));
    }

    #[test]
    fn app_mime_types_in_every_spelling() {
        assert_eq!(
            is_app_mime("TEXT/HTML;Profile=MCP-APP"),
            Some(UiDialect::Apps)
        );
        assert_eq!(is_app_mime("text/html+mcp"), Some(UiDialect::EarlyDraft));
        assert_eq!(is_app_mime("text/html"), Some(UiDialect::Seed));
        assert_eq!(is_app_mime("text/html;profile=other"), None);
        assert_eq!(is_app_mime("text/plain"), None);
    }
}
