//! The host's rules for a link a server asks a person to open (URL-mode elicitation), as one
//! pure function every surface calls: [`check_url`].
//!
//! A server may ask the host to send a person to a URL (to enter an API key, consent to a third
//! party, pay). Before the person consents, the host shows the link and refuses dangerous ones.
//! [`check_url`] parses the link with the `url` crate (so every notation a browser would accept
//! is judged in the form the browser would use), applies the rules, and returns a [`UrlCheck`]:
//! a [`Verdict`] (the worst of its [`Reason`]s) and a [`UrlDisplay`] from which a consent screen
//! shows the full link with its registrable domain highlighted, in Unicode and punycode.
//!
//! Surrounding ASCII whitespace is trimmed first, as a browser does; anything else that hides
//! what the link says is refused.
//!
//! - **Refused**: anything but `https` (plain `http` only for loopback hosts, and only when the
//!   [`UrlPolicy`] allows it); a user name or password in the link; `localhost` and local network
//!   names; names no browser opens as a page for a person (`.onion`, `.arpa`, and the suffixes
//!   set aside: `.test`, `.example`, `.invalid`, `.alt`); an address (in any notation, or carried
//!   inside an IPv6 one) that is loopback, unspecified, private, link-local, shared, multicast,
//!   broadcast or reserved; control or invisible characters; a link that does not parse.
//! - **Flagged**, judged as Chromium's IDN display policy judges a name it would show in
//!   punycode: labels mixing scripts (Latin, Cyrillic and Greek with each other; non-ASCII Latin
//!   with anything; any script with Latin except Chinese, Japanese and Korean), labels written
//!   only in letters that pass for Latin ones under a suffix that is not of their script,
//!   characters names rarely use that pass for others or hide; also hosts with no registrable
//!   domain, unusual host notations, a trailing dot, links over 2048 characters, and a path or
//!   query that looks like another address.
//! - **Allowed with an informational note**: an international name (both forms are shown), a
//!   public IP address, a port other than the scheme's default: a browser shows them plainly,
//!   and warning about them would teach people to click through warnings.
//!
//! Nothing here resolves names: the host resolves only after the person consented, just before
//! opening, and passes the addresses to [`UrlCheck::with_resolved`] (the defence against DNS
//! rebinding).

mod address;
mod host;
mod path;
mod policy;
mod reason;
mod script;

use std::net::IpAddr;

use serde::Serialize;
use url::{Host, Url};

pub use address::{
    AddressClass, AddressRange, Embedding, classify_ip, classify_ipv4, classify_ipv6,
};
pub use policy::{DevOrigin, DevOriginError, UrlPolicy};
pub use reason::{Reason, UrlPart};
pub use script::Script;

use host::{HostView, host_reasons, is_loopback_host, same_host, written_host};
pub(crate) use host::{is_local_network_name, is_localhost_name};
use path::{path_deceives, query_deceives};

/// Links longer than this (in bytes) are refused without being parsed.
pub const MAX_URL_LEN: usize = 65_536;

/// Links longer than this (serialized, in characters) are flagged.
pub const LONG_URL_LEN: usize = 2048;

/// How safe a link is to offer, from best to worst (the order is meaningful: a check's verdict is
/// the maximum of its reasons').
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Offer the link.
    #[default]
    Allow,
    /// Offer it with the reasons shown as warnings.
    Flag,
    /// Do not offer it; show why.
    Refuse,
}

/// How a consent screen shows a link: the full link, and the host split so the registrable
/// domain can be highlighted, in Unicode and punycode.
///
/// `host_prefix + registrable_domain + host_suffix == host_unicode` (with an absent registrable
/// domain as empty, `host_prefix` is then the whole host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlDisplay {
    /// The link exactly as it will be opened (serialized by the `url` crate).
    pub full: String,
    /// The scheme, lower-case.
    pub scheme: String,
    /// The host in Unicode (IPv6 in brackets).
    pub host_unicode: String,
    /// The host in ASCII (punycode), as in `full`.
    pub host_ascii: String,
    /// The registrable domain (eTLD+1 from the Public Suffix List), in Unicode.
    pub registrable_domain: Option<String>,
    /// The registrable domain in punycode.
    pub registrable_domain_ascii: Option<String>,
    /// What comes before the registrable domain in `host_unicode` (subdomains and their dot).
    pub host_prefix: String,
    /// What comes after it (a trailing dot, or nothing).
    pub host_suffix: String,
    /// The port, when the link names one other than the scheme's default.
    pub port: Option<u16>,
    /// The path and query (`/a/b?c=d`).
    pub path_and_query: String,
    /// The fragment, without `#`.
    pub fragment: Option<String>,
}

/// The outcome of [`check_url`]: the verdict, every reason, and how to show the link. It
/// serializes as `{"verdict": …, "reasons": [...], "display": {...} | null}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlCheck {
    /// The worst verdict among `reasons` ([`Verdict::Allow`] when there are none).
    pub verdict: Verdict,
    /// Every finding, in the order they were made.
    pub reasons: Vec<Reason>,
    /// How to show the link; `None` when it did not parse or has no host.
    pub display: Option<UrlDisplay>,
    /// The host is loopback and the policy allowed it, so resolving it to loopback is expected.
    #[serde(skip)]
    loopback_permitted: bool,
}

impl UrlCheck {
    fn new(reasons: Vec<Reason>, display: Option<UrlDisplay>, loopback_permitted: bool) -> Self {
        UrlCheck {
            verdict: worst(&reasons),
            reasons,
            display,
            loopback_permitted,
        }
    }

    /// The codes of the reasons, in order.
    pub fn codes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.reasons.iter().map(Reason::code)
    }

    /// The check again, knowing the addresses the host's name resolved to. The host resolves
    /// only after the person consented, just before opening; any address in a forbidden range
    /// refuses (so a public name cannot be pointed at the private network), and so does an
    /// empty list.
    ///
    /// ```
    /// use interlude_engine::url_safety::{UrlPolicy, Verdict, check_url};
    ///
    /// let check = check_url("https://mcp.example.com/ui/set_api_key", &UrlPolicy::default());
    /// assert_eq!(check.verdict, Verdict::Allow);
    /// let resolved = check.with_resolved(&["10.0.0.5".parse().unwrap()]);
    /// assert_eq!(resolved.verdict, Verdict::Refuse);
    /// assert_eq!(resolved.codes().collect::<Vec<_>>(), ["private_address"]);
    /// ```
    pub fn with_resolved(&self, addrs: &[IpAddr]) -> UrlCheck {
        let mut reasons = self.reasons.clone();
        if addrs.is_empty() {
            reasons.push(Reason::NoAddresses);
        }
        for &address in addrs {
            let Some(class) = classify_ip(address) else {
                continue;
            };
            if self.loopback_permitted && class.range == AddressRange::Loopback {
                continue;
            }
            let reason = Reason::ForbiddenAddress {
                address,
                class,
                resolved: true,
            };
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
        }
        UrlCheck::new(reasons, self.display.clone(), self.loopback_permitted)
    }
}

fn worst(reasons: &[Reason]) -> Verdict {
    reasons
        .iter()
        .map(Reason::verdict)
        .max()
        .unwrap_or(Verdict::Allow)
}

/// Judges a link a server asks a person to open: pure, no DNS, no I/O.
///
/// ```
/// use interlude_engine::url_safety::{DevOrigin, UrlPolicy, Verdict, check_url};
///
/// let strict = UrlPolicy::default();
/// let check = check_url("https://login.accounts.example.co.uk/oauth?client_id=x", &strict);
/// assert_eq!(check.verdict, Verdict::Allow);
/// let display = check.display.as_ref();
/// assert_eq!(display.and_then(|d| d.registrable_domain.as_deref()), Some("example.co.uk"));
/// assert_eq!(display.map(|d| d.host_prefix.as_str()), Some("login.accounts."));
///
/// // Any notation of a forbidden address is refused: this is 127.0.0.1.
/// let check = check_url("https://2130706433/", &strict);
/// assert_eq!(check.verdict, Verdict::Refuse);
/// assert!(check.codes().any(|c| c == "loopback_address"));
///
/// // The demo's own pages, allowed because their origin is listed.
/// let dev = UrlPolicy {
///     dev_origins: vec![DevOrigin::loopback_http(4000)],
///     ..UrlPolicy::default()
/// };
/// let check = check_url("http://127.0.0.1:4000/x", &dev);
/// assert_eq!(check.verdict, Verdict::Allow);
/// assert_eq!(check.codes().collect::<Vec<_>>(), ["development_origin"]);
/// ```
pub fn check_url(raw: &str, policy: &UrlPolicy) -> UrlCheck {
    if raw.len() > MAX_URL_LEN {
        return UrlCheck::new(vec![Reason::Oversized { len: raw.len() }], None, false);
    }
    // A browser trims ASCII whitespace around what it is given before reading it as a link.
    let raw = raw.trim_matches(|c: char| c.is_ascii_whitespace());
    let mut reasons = Vec::new();
    // The parser drops tabs and newlines anywhere and trims spaces, so "java\nscript:" would
    // become "javascript:": judge the raw text for them first.
    if !raw.bytes().all(|b| b.is_ascii_graphic()) && raw.chars().any(hides) {
        reasons.push(Reason::ControlCharacters);
    }
    let url = match Url::parse(raw) {
        Ok(url) => url,
        Err(e) => {
            reasons.push(Reason::Unparseable {
                error: e.to_string(),
            });
            return UrlCheck::new(reasons, None, false);
        }
    };
    let is_http = match url.scheme() {
        "https" => false,
        "http" => true,
        other => {
            // Host rules are those of web schemes; for anything else the scheme says enough.
            reasons.push(Reason::SchemeNotAllowed {
                scheme: other.to_owned(),
            });
            let display = url.host().map(|host| display(&url, &HostView::of(&host)));
            return UrlCheck::new(reasons, display, false);
        }
    };
    let Some(host) = url.host() else {
        reasons.push(Reason::MissingHost);
        return UrlCheck::new(reasons, None, false);
    };
    if !url.username().is_empty() || url.password().is_some() {
        reasons.push(Reason::Credentials);
    }

    let view = HostView::of(&host);
    let loopback = is_loopback_host(&host);
    let exemption = if loopback && policy.dev_origins.iter().any(|o| o.matches(&url)) {
        Some(Reason::DevelopmentOrigin {
            plain_http: is_http,
        })
    } else if loopback && policy.allow_loopback_http {
        Some(Reason::LoopbackAllowed)
    } else {
        None
    };
    let exempt = exemption.is_some();

    if let Some(written) = written_host(raw)
        && !matches!(host, Host::Ipv6(_))
        && !same_host(written, url.host_str().unwrap_or_default(), &view.unicode)
    {
        reasons.push(Reason::UnusualHostNotation {
            written: written.to_owned(),
            host: view.unicode.clone(),
        });
    }
    if !exempt {
        host_reasons(&host, &view, &mut reasons);
        if is_http {
            reasons.push(Reason::PlainHttp);
        }
        if let Some(port) = url.port() {
            reasons.push(Reason::NonDefaultPort {
                port,
                default: if is_http { 80 } else { 443 },
            });
        }
    }
    if url.as_str().len() > LONG_URL_LEN {
        reasons.push(Reason::LongUrl {
            len: url.as_str().len(),
        });
    }
    if path_deceives(url.path()) {
        reasons.push(Reason::DeceptivePath {
            part: UrlPart::Path,
        });
    }
    for (part, text) in [
        (UrlPart::Query, url.query()),
        (UrlPart::Fragment, url.fragment()),
    ] {
        if text.is_some_and(query_deceives) {
            reasons.push(Reason::DeceptivePath { part });
        }
    }
    reasons.extend(exemption);
    let display = display(&url, &view);
    UrlCheck::new(reasons, Some(display), exempt)
}

/// Characters that hide what a link says: whitespace, controls, and invisible formatting
/// (zero-width, bidirectional controls, soft hyphen, byte-order mark).
fn hides(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

fn display(url: &Url, view: &HostView) -> UrlDisplay {
    let host_ascii = url.host_str().unwrap_or_default().to_owned();
    let end_ascii = host_ascii.len() - usize::from(view.trailing_dot);
    let end_unicode = view.unicode.len() - usize::from(view.trailing_dot);
    let (registrable_domain_ascii, registrable_domain, host_prefix, host_suffix) =
        match view.registrable {
            Some((a, u)) => (
                host_ascii.get(a..end_ascii).map(str::to_owned),
                view.unicode.get(u..end_unicode).map(str::to_owned),
                view.unicode.get(..u).unwrap_or_default().to_owned(),
                view.unicode
                    .get(end_unicode..)
                    .unwrap_or_default()
                    .to_owned(),
            ),
            None => (None, None, view.unicode.clone(), String::new()),
        };
    let mut path_and_query = url.path().to_owned();
    if let Some(query) = url.query() {
        path_and_query.push('?');
        path_and_query.push_str(query);
    }
    UrlDisplay {
        full: url.as_str().to_owned(),
        scheme: url.scheme().to_owned(),
        host_unicode: view.unicode.clone(),
        host_ascii,
        registrable_domain,
        registrable_domain_ascii,
        host_prefix,
        host_suffix,
        port: url.port(),
        path_and_query,
        fragment: url.fragment().map(str::to_owned),
    }
}
