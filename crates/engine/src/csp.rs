//! The policy a view runs under: its Content-Security-Policy, built from what its resource
//! declares (`_meta.ui.csp`), and the iframe `allow` list from its permissions.
//!
//! The rules:
//! - Nothing is reachable that the resource did not declare: no declaration at all gives the
//!   restrictive default (no network, no frames); each declared list opens exactly its part
//!   (`connectDomains` → `connect-src`, `resourceDomains` → scripts, styles, images, fonts,
//!   media and workers, `frameDomains` → `frame-src`, `baseUriDomains` → `base-uri`).
//! - Every declared entry is checked: an origin or host pattern (`https://api.example.com`,
//!   `https://*.example.com`, `wss://live.example.com:8443`) is kept; anything else — a keyword
//!   (`'unsafe-eval'`, `*`, `data:`), a directive separator, whitespace, quotes, a path — is
//!   dropped and reported, so a server cannot widen its view's policy by spelling.
//! - An entry that would reach this machine, the local network or a cloud metadata service is
//!   dropped and reported with the rule it broke, by the same rules as a link
//!   ([`crate::url_safety`]): loopback, private, link-local and unique-local addresses (in any
//!   notation), `localhost` and `*.localhost`, local network names, the metadata addresses, and
//!   wildcards over such hosts or over address labels. Nothing is resolved; a public name is
//!   kept. The one exception is the person's: a development origin they listed
//!   ([`DevOrigin`], the CLI's `--dev-origin`) that an entry covers is kept, exactly that
//!   origin ([`view_policy_with`]).
//! - Inline script and style are allowed (every published app is one inline HTML file); `eval`
//!   and `blob:`/`data:` scripts and workers are the host's choice ([`CspProfile`]), never a
//!   server's. They open no network path: what a view can reach is decided by the domain lists
//!   alone.
//! - Forms post nowhere (`form-action 'none'`) and plugins never load (`object-src 'none'`).
//!
//! ```
//! use interlude_engine::csp::{CspProfile, view_policy};
//! use interlude_protocol::apps::{ResourceCsp, ResourceUi};
//!
//! let ui = ResourceUi {
//!     csp: Some(ResourceCsp {
//!         connect_domains: vec!["https://api.example.com".into(), "*; script-src *".into()],
//!         ..ResourceCsp::default()
//!     }),
//!     ..ResourceUi::default()
//! };
//! let policy = view_policy(&ui, CspProfile::STRICT);
//! assert!(policy.csp.contains("connect-src https://api.example.com;"));
//! assert_eq!(policy.dropped.len(), 1);
//! assert!(!policy.csp.contains("script-src *"));
//! ```

mod local;

use interlude_protocol::apps::{Permissions, ResourceCsp, ResourceUi};
use serde::Serialize;

use crate::url_safety::DevOrigin;
use local::{Source, dev_sources, local_reason};

/// What the host adds to every view's policy beyond the spec's formula. None of it opens a
/// network path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CspProfile {
    /// `'unsafe-eval'` in `script-src` (apps that build code at run time, e.g. the three.js
    /// example's `new Function`).
    pub eval: bool,
    /// `blob:` and `data:` scripts and workers (e.g. pdf.js's worker).
    pub blob_workers: bool,
}

impl CspProfile {
    /// The spec's formula, nothing added.
    pub const STRICT: CspProfile = CspProfile {
        eval: false,
        blob_workers: false,
    };
    /// What published apps need to run: `eval`, and `blob:`/`data:` scripts and workers.
    pub const COMPATIBLE: CspProfile = CspProfile {
        eval: true,
        blob_workers: true,
    };
}

impl Default for CspProfile {
    fn default() -> Self {
        CspProfile::COMPATIBLE
    }
}

/// A declared entry left out of the policy, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DroppedEntry {
    /// Which list (`connectDomains`, …).
    pub list: &'static str,
    /// The entry as declared (cut to 200 characters).
    pub entry: String,
    /// Why it was left out.
    pub reason: &'static str,
}

/// The policy of one view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ViewPolicy {
    /// The `Content-Security-Policy` header value for the view's sandbox document.
    pub csp: String,
    /// The iframe `allow` attribute (`camera; clipboard-write`), empty for none.
    pub allow: String,
    /// What the view was granted, as the host tells it (`hostCapabilities.sandbox`): the
    /// domains that passed the checks, and the permissions.
    pub granted: ResourceCsp,
    /// The permissions granted.
    pub permissions: Permissions,
    /// Declared entries that were refused.
    pub dropped: Vec<DroppedEntry>,
    /// Whether the resource declared any domain at all (a person may be told the view talks
    /// to other sites).
    pub external: bool,
}

/// Builds the policy of a view from its resource's metadata, with no development origin
/// allowed: [`view_policy_with`] with none.
pub fn view_policy(ui: &ResourceUi, profile: CspProfile) -> ViewPolicy {
    view_policy_with(ui, profile, &[])
}

/// Builds the policy of a view from its resource's metadata. `dev_origins` are the origins on
/// this machine the person allowed for development (`UrlPolicy::dev_origins`): an entry that
/// would reach this machine is dropped unless it covers one of them, and then only the covered
/// origins are kept in its place (`http://127.0.0.1:*` with `http://127.0.0.1:4000` allowed
/// keeps `http://127.0.0.1:4000`).
///
/// ```
/// use interlude_engine::csp::{CspProfile, view_policy_with};
/// use interlude_engine::url_safety::DevOrigin;
/// use interlude_protocol::apps::{ResourceCsp, ResourceUi};
///
/// let ui = ResourceUi {
///     csp: Some(ResourceCsp {
///         connect_domains: vec!["http://127.0.0.1:*".into(), "http://169.254.169.254".into()],
///         ..ResourceCsp::default()
///     }),
///     ..ResourceUi::default()
/// };
/// let strict = view_policy_with(&ui, CspProfile::STRICT, &[]);
/// assert!(strict.csp.contains("connect-src 'none';"));
/// assert_eq!(strict.dropped[0].reason, "reaches this machine (loopback)");
/// let dev = view_policy_with(&ui, CspProfile::STRICT, &[DevOrigin::loopback_http(4000)]);
/// assert!(dev.csp.contains("connect-src http://127.0.0.1:4000;"));
/// assert_eq!(dev.dropped.len(), 1, "the metadata address stays out");
/// ```
pub fn view_policy_with(
    ui: &ResourceUi,
    profile: CspProfile,
    dev_origins: &[DevOrigin],
) -> ViewPolicy {
    let mut dropped = Vec::new();
    let declared = ui.csp.clone();
    let mut keep = |list: &'static str, entries: &[String]| -> Vec<String> {
        let mut kept: Vec<String> = Vec::new();
        for entry in entries {
            let judged = check_source(entry).and_then(|source| {
                let parts = Source::split(&source);
                match local_reason(parts.host) {
                    None => Ok(vec![source.clone()]),
                    Some(reason) => match dev_sources(parts, dev_origins) {
                        allowed if allowed.is_empty() => Err(reason),
                        allowed => Ok(allowed),
                    },
                }
            });
            match judged {
                Ok(sources) => {
                    for source in sources {
                        if !kept.contains(&source) {
                            kept.push(source);
                        }
                    }
                }
                Err(reason) => dropped.push(DroppedEntry {
                    list,
                    entry: entry.chars().take(200).collect(),
                    reason,
                }),
            }
        }
        kept
    };
    let granted = match &declared {
        Some(csp) => ResourceCsp {
            connect_domains: keep("connectDomains", &csp.connect_domains),
            resource_domains: keep("resourceDomains", &csp.resource_domains),
            frame_domains: csp.frame_domains.as_ref().map(|f| keep("frameDomains", f)),
            base_uri_domains: csp
                .base_uri_domains
                .as_ref()
                .map(|b| keep("baseUriDomains", b)),
        },
        None => ResourceCsp::default(),
    };
    let resources = granted.resource_domains.join(" ");
    let with = |base: &str, extra: &str| -> String {
        [base, extra]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut script = String::from("'self' 'unsafe-inline'");
    if profile.eval {
        script.push_str(" 'unsafe-eval'");
    }
    if profile.blob_workers {
        script.push_str(" blob: data:");
    }
    let worker = if profile.blob_workers {
        "'self' blob:"
    } else {
        "'self'"
    };
    let list_or = |list: &[String], none: &str| {
        if list.is_empty() {
            none.to_owned()
        } else {
            list.join(" ")
        }
    };
    let directives = [
        ("default-src", "'none'".to_owned()),
        ("script-src", with(&script, &resources)),
        ("style-src", with("'self' 'unsafe-inline'", &resources)),
        ("img-src", with("'self' data: blob:", &resources)),
        ("font-src", with("'self' data:", &resources)),
        ("media-src", with("'self' data: blob:", &resources)),
        ("worker-src", with(worker, &resources)),
        ("connect-src", list_or(&granted.connect_domains, "'none'")),
        (
            "frame-src",
            list_or(
                granted.frame_domains.as_deref().unwrap_or_default(),
                "'none'",
            ),
        ),
        (
            "base-uri",
            list_or(
                granted.base_uri_domains.as_deref().unwrap_or_default(),
                "'self'",
            ),
        ),
        ("form-action", "'none'".to_owned()),
        ("object-src", "'none'".to_owned()),
    ];
    let csp = directives
        .iter()
        .map(|(name, value)| format!("{name} {value};"))
        .collect::<Vec<_>>()
        .join(" ");
    let permissions = ui.permissions;
    let allow = [
        (permissions.camera, "camera"),
        (permissions.microphone, "microphone"),
        (permissions.geolocation, "geolocation"),
        (permissions.clipboard_write, "clipboard-write"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect::<Vec<_>>()
    .join("; ");
    let external = !granted.connect_domains.is_empty()
        || !granted.resource_domains.is_empty()
        || granted
            .frame_domains
            .as_ref()
            .is_some_and(|f| !f.is_empty());
    ViewPolicy {
        csp,
        allow,
        granted,
        permissions,
        dropped,
        external,
    }
}

/// An entry as a CSP source expression, or why it cannot be one: `[scheme://]host[:port]` with
/// scheme `https`, `http`, `wss` or `ws`, a host of letters, digits, `-` and `.` (its first
/// label may be `*`), a port of digits or `*`, and at most a trailing `/`.
fn check_source(entry: &str) -> Result<String, &'static str> {
    let entry = entry.trim_end_matches('/');
    if entry.is_empty() {
        return Err("empty");
    }
    if entry
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || matches!(c, ';' | ',' | '\'' | '"' | '\\'))
    {
        return Err("contains a separator, a quote or whitespace");
    }
    let (scheme, rest) = match entry.split_once("://") {
        Some((scheme, rest)) => (Some(scheme.to_ascii_lowercase()), rest),
        None => (None, entry),
    };
    if let Some(scheme) = &scheme
        && !matches!(scheme.as_str(), "https" | "http" | "wss" | "ws")
    {
        return Err("not an http(s) or ws(s) origin");
    }
    if rest.contains(['/', '?', '#', '@']) {
        return Err("has a path, query, fragment or user name");
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    if let Some(port) = port
        && !(port == "*"
            || (!port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit())))
    {
        return Err("has a port that is not a number");
    }
    let host = host.to_ascii_lowercase();
    let labels = match host.strip_prefix("*.") {
        Some(rest) => rest,
        None => host.as_str(),
    };
    if labels.is_empty() || labels.split('.').count() < 2 && labels != "localhost" {
        return Err("is a keyword or a bare wildcard, not a host");
    }
    if !labels.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    }) {
        return Err("is not a host name");
    }
    let mut source = String::new();
    if let Some(scheme) = scheme {
        source.push_str(&scheme);
        source.push_str("://");
    }
    source.push_str(&host);
    if let Some(port) = port {
        source.push(':');
        source.push_str(port);
    }
    Ok(source)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn declared(connect: &[&str]) -> ResourceUi {
        ResourceUi {
            csp: Some(ResourceCsp {
                connect_domains: connect.iter().map(|s| (*s).to_owned()).collect(),
                ..ResourceCsp::default()
            }),
            ..ResourceUi::default()
        }
    }

    fn directive<'a>(csp: &'a str, name: &str) -> &'a str {
        csp.split(';')
            .map(str::trim)
            .find(|d| d.split(' ').next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in {csp}"))
    }

    #[test]
    fn nothing_declared_is_the_restrictive_default() {
        let policy = view_policy(&ResourceUi::default(), CspProfile::STRICT);
        let csp = &policy.csp;
        assert_eq!(directive(csp, "default-src"), "default-src 'none'");
        assert_eq!(directive(csp, "connect-src"), "connect-src 'none'");
        assert_eq!(directive(csp, "frame-src"), "frame-src 'none'");
        assert_eq!(
            directive(csp, "script-src"),
            "script-src 'self' 'unsafe-inline'"
        );
        assert_eq!(directive(csp, "img-src"), "img-src 'self' data: blob:");
        assert_eq!(directive(csp, "base-uri"), "base-uri 'self'");
        assert_eq!(directive(csp, "form-action"), "form-action 'none'");
        assert_eq!(directive(csp, "object-src"), "object-src 'none'");
        assert!(!csp.contains("http"), "{csp}");
        assert!(!policy.external);
        assert_eq!(policy.allow, "");
    }

    #[test]
    fn each_list_opens_its_own_part_only() {
        let ui = ResourceUi {
            csp: Some(ResourceCsp {
                connect_domains: vec!["https://api.example.com".into()],
                resource_domains: vec!["https://*.cdn.example".into()],
                frame_domains: Some(vec!["https://www.youtube.com".into()]),
                base_uri_domains: Some(vec!["https://base.example".into()]),
            }),
            permissions: Permissions {
                camera: true,
                clipboard_write: true,
                ..Permissions::default()
            },
            ..ResourceUi::default()
        };
        let policy = view_policy(&ui, CspProfile::STRICT);
        let csp = &policy.csp;
        assert_eq!(
            directive(csp, "connect-src"),
            "connect-src https://api.example.com"
        );
        for name in [
            "script-src",
            "style-src",
            "img-src",
            "font-src",
            "media-src",
            "worker-src",
        ] {
            assert!(
                directive(csp, name).ends_with("https://*.cdn.example"),
                "{name}: {csp}"
            );
        }
        assert!(!directive(csp, "connect-src").contains("cdn"));
        assert_eq!(
            directive(csp, "frame-src"),
            "frame-src https://www.youtube.com"
        );
        assert_eq!(directive(csp, "base-uri"), "base-uri https://base.example");
        assert_eq!(policy.allow, "camera; clipboard-write");
        assert!(policy.external);
        assert!(policy.dropped.is_empty());
    }

    #[test]
    fn the_profile_adds_keywords_never_domains() {
        let strict = view_policy(&declared(&[]), CspProfile::STRICT).csp;
        let compatible = view_policy(&declared(&[]), CspProfile::COMPATIBLE).csp;
        assert!(!strict.contains("unsafe-eval"));
        assert_eq!(
            directive(&compatible, "script-src"),
            "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data:"
        );
        assert_eq!(
            directive(&compatible, "worker-src"),
            "worker-src 'self' blob:"
        );
        assert_eq!(
            directive(&compatible, "connect-src"),
            directive(&strict, "connect-src")
        );
    }

    #[test]
    fn hostile_entries_are_dropped_and_reported() {
        let hostile = [
            "*",
            "https://*",
            "'unsafe-eval'",
            "'self'",
            "data:",
            "blob:",
            "https://a.example; script-src *",
            "https://a.example 'unsafe-inline'",
            "https://a.example,https://b.example",
            "https://a.example\nscript-src *",
            "javascript:alert(1)",
            "file:///etc",
            "https://user@a.example",
            "https://a.example/path",
            "https://a.example:80x",
            "https://a..example",
            "https://a_b.example",
            "https://\"a.example",
            "",
            "com",
        ];
        let policy = view_policy(&declared(&hostile), CspProfile::COMPATIBLE);
        assert_eq!(policy.dropped.len(), hostile.len(), "{:?}", policy.dropped);
        assert_eq!(
            directive(&policy.csp, "connect-src"),
            "connect-src 'none'",
            "{}",
            policy.csp
        );
        assert_eq!(policy.csp.matches("script-src").count(), 1);
        assert!(!policy.external);
    }

    #[test]
    fn good_entries_are_kept_as_sources() {
        for (entry, source) in [
            ("https://api.example.com", "https://api.example.com"),
            ("https://api.example.com/", "https://api.example.com"),
            ("HTTPS://API.Example.com", "https://api.example.com"),
            ("wss://live.example.com:8443", "wss://live.example.com:8443"),
            ("https://*.openstreetmap.org", "https://*.openstreetmap.org"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("https://example.com:*", "https://example.com:*"),
            ("cdn.example.com", "cdn.example.com"),
        ] {
            assert_eq!(check_source(entry).as_deref(), Ok(source), "{entry}");
        }
    }

    #[test]
    fn entries_that_reach_this_machine_or_the_local_network_are_dropped_with_the_rule() {
        let lists = ["connectDomains", "resourceDomains", "frameDomains"];
        for (entry, reason) in [
            ("http://127.0.0.1:*", "reaches this machine (loopback)"),
            ("http://127.1:8080", "reaches this machine (loopback)"),
            (
                "http://0.0.0.0:80",
                "reaches this machine (unspecified address)",
            ),
            ("http://localhost:18801", "reaches this machine (localhost)"),
            ("ws://localhost", "reaches this machine (localhost)"),
            (
                "http://*.localhost:4000",
                "reaches this machine (localhost)",
            ),
            (
                "http://s1.localhost:4000",
                "reaches this machine (localhost)",
            ),
            (
                "http://192.168.1.1",
                "reaches the local network (private or unique-local address)",
            ),
            (
                "https://10.0.0.5",
                "reaches the local network (private or unique-local address)",
            ),
            (
                "172.16.0.1:*",
                "reaches the local network (private or unique-local address)",
            ),
            (
                "http://169.254.169.254",
                "reaches a cloud metadata service (link-local or shared address)",
            ),
            (
                "http://169.254.1.1",
                "reaches the local network segment (link-local address)",
            ),
            (
                "http://metadata.google.internal",
                "reaches a cloud metadata service (local network name)",
            ),
            (
                "http://router.lan",
                "reaches the local network (local network name)",
            ),
            (
                "http://*.0.0.1:*",
                "is a wildcard over IP addresses (it covers loopback and private ones)",
            ),
            (
                "http://*.168.1.1",
                "is a wildcard over IP addresses (it covers loopback and private ones)",
            ),
        ] {
            let ui = ResourceUi {
                csp: Some(ResourceCsp {
                    connect_domains: vec![entry.to_owned(), "https://api.example.com".into()],
                    resource_domains: vec![entry.to_owned()],
                    frame_domains: Some(vec![entry.to_owned()]),
                    base_uri_domains: None,
                }),
                ..ResourceUi::default()
            };
            let policy = view_policy(&ui, CspProfile::COMPATIBLE);
            let reasons: Vec<_> = policy.dropped.iter().map(|d| (d.list, d.reason)).collect();
            assert_eq!(
                reasons,
                lists.map(|list| (list, reason)),
                "{entry}: {:?}",
                policy.dropped
            );
            assert_eq!(
                directive(&policy.csp, "connect-src"),
                "connect-src https://api.example.com",
                "{entry}"
            );
            assert_eq!(directive(&policy.csp, "frame-src"), "frame-src 'none'");
            assert_eq!(
                directive(&policy.csp, "img-src"),
                "img-src 'self' data: blob:",
                "{entry}"
            );
            assert_eq!(policy.granted.connect_domains, ["https://api.example.com"]);
        }
    }

    #[test]
    fn public_names_and_addresses_are_kept() {
        let public = [
            "https://api.example.com",
            "https://*.example.com",
            "wss://live.example.com:8443",
            "https://8.8.8.8",
            "http://localhost.example.com",
        ];
        let policy = view_policy(&declared(&public), CspProfile::STRICT);
        assert!(policy.dropped.is_empty(), "{:?}", policy.dropped);
        assert_eq!(policy.granted.connect_domains, public);
    }

    #[test]
    fn a_development_origin_passes_only_when_the_person_allowed_it() {
        let vite = DevOrigin::parse("http://localhost:5173").unwrap();
        let ui = declared(&["http://localhost:5173", "ws://localhost:5173"]);
        let strict = view_policy_with(&ui, CspProfile::STRICT, &[]);
        assert_eq!(strict.dropped.len(), 2, "{:?}", strict.dropped);
        assert_eq!(directive(&strict.csp, "connect-src"), "connect-src 'none'");

        let other = DevOrigin::parse("http://localhost:4000").unwrap();
        let elsewhere = view_policy_with(&ui, CspProfile::STRICT, &[other]);
        assert_eq!(elsewhere.dropped.len(), 2, "another port is not this one");

        let allowed = view_policy_with(&ui, CspProfile::STRICT, std::slice::from_ref(&vite));
        assert!(allowed.dropped.is_empty(), "{:?}", allowed.dropped);
        assert_eq!(
            directive(&allowed.csp, "connect-src"),
            "connect-src http://localhost:5173 ws://localhost:5173"
        );
    }

    #[test]
    fn a_wide_local_entry_is_narrowed_to_the_allowed_origin() {
        let ui = declared(&[
            "http://127.0.0.1:*",
            "127.0.0.1",
            "https://127.0.0.1:*",
            "http://192.168.1.1",
        ]);
        let dev = [DevOrigin::loopback_http(4000)];
        let policy = view_policy_with(&ui, CspProfile::STRICT, &dev);
        assert_eq!(
            directive(&policy.csp, "connect-src"),
            "connect-src http://127.0.0.1:4000"
        );
        let dropped: Vec<_> = policy.dropped.iter().map(|d| d.entry.as_str()).collect();
        assert_eq!(
            dropped,
            ["127.0.0.1", "https://127.0.0.1:*", "http://192.168.1.1"],
            "a default port, another scheme and a private address do not cover it"
        );
    }

    #[test]
    fn every_spelling_of_a_declaration_is_judged_alike() {
        for meta in [
            serde_json::json!({"ui": {"csp": {"connectDomains": ["http://localhost:18801"],
                "frameDomains": ["http://192.168.1.1"]}}}),
            serde_json::json!({"mcp-ui/widgetCSP": {"connect_domains": ["http://localhost:18801"],
                "frame_domains": ["http://192.168.1.1"]}}),
            serde_json::json!({"openai/widgetCSP": {"connect_domains": ["http://localhost:18801"],
                "frame_domains": ["http://192.168.1.1"]}}),
        ] {
            let ui = ResourceUi::from_meta(None, meta.as_object()).unwrap();
            let policy = view_policy(&ui, CspProfile::COMPATIBLE);
            let lists: Vec<_> = policy.dropped.iter().map(|d| d.list).collect();
            assert_eq!(lists, ["connectDomains", "frameDomains"], "{meta}");
            assert!(!policy.csp.contains("localhost"), "{meta}: {}", policy.csp);
            assert!(!policy.csp.contains("192.168"), "{meta}: {}", policy.csp);
        }
    }
}
