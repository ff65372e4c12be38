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
//! - **Refused**: anything but `https` (plain `http` only for loopback hosts, and only when the
//!   [`UrlPolicy`] allows it); a user name or password in the link; `localhost` and local network
//!   names; an address (in any notation, or carried inside an IPv6 one) that is loopback,
//!   unspecified, private, link-local, shared, multicast, broadcast or reserved; control or
//!   invisible characters; a link that does not parse.
//! - **Flagged**: international names (both forms shown), labels mixing scripts or written in
//!   letters that pass for Latin ones, hosts with no registrable domain, bare IP addresses,
//!   unusual host notations, a trailing dot, a non-default port, links over 2048 characters,
//!   and a path or query that looks like another address.
//!
//! Nothing here resolves names: the host resolves only after the person consented, just before
//! opening, and passes the addresses to [`UrlCheck::with_resolved`] (the defence against DNS
//! rebinding).

mod address;
mod script;

use std::fmt;
use std::net::IpAddr;

use psl::Psl as _;
use serde::Serialize;
use serde::ser::SerializeStruct;
use url::{Host, Url};

pub use address::{
    AddressClass, AddressRange, Embedding, classify_ip, classify_ipv4, classify_ipv6,
};
pub use script::Script;
use script::{Scripts, lookalike_script};

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

/// What the host permits beyond the strict default (https to public names only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// A development setting: links to loopback hosts (127.0.0.0/8, `::1`, `localhost`) are
    /// allowed, over plain `http` or `https`, with an informational reason.
    pub allow_loopback_http: bool,
    /// Loopback origins allowed exactly (scheme, host and port), such as the demo's own pages on
    /// `http://127.0.0.1:<port>`, with an informational reason.
    pub dev_origins: Vec<DevOrigin>,
}

/// A loopback origin the host serves itself during development: scheme (`http` or `https`),
/// host and port. Only loopback hosts can be one, so listing an origin never opens the private
/// network.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DevOrigin {
    scheme: String,
    host: String,
    port: u16,
}

/// Why a string is not a development origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DevOriginError {
    /// It does not parse as a URL.
    #[error("not a valid origin: {0}")]
    Invalid(String),
    /// Its scheme is neither `http` nor `https`.
    #[error("a development origin uses http or https, not {0}")]
    Scheme(String),
    /// Its host is not on this machine.
    #[error("a development origin is on this machine (127.0.0.1, [::1] or localhost), not {0}")]
    NotLoopback(String),
    /// It has more than scheme, host and port.
    #[error("a development origin is a scheme, a host and a port, nothing more: {0}")]
    NotAnOrigin(String),
}

impl DevOrigin {
    /// Parses `http://127.0.0.1:4000` and the like; the host must be loopback.
    ///
    /// ```
    /// use interlude_engine::url_safety::DevOrigin;
    ///
    /// assert!(DevOrigin::parse("http://127.0.0.1:4000").is_ok());
    /// assert!(DevOrigin::parse("http://10.0.0.5:4000").is_err());
    /// ```
    pub fn parse(origin: &str) -> Result<DevOrigin, DevOriginError> {
        let url = Url::parse(origin).map_err(|e| DevOriginError::Invalid(e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(DevOriginError::Scheme(url.scheme().to_owned()));
        }
        if !url.username().is_empty()
            || url.password().is_some()
            || url.path() != "/"
            || url.query().is_some()
            || url.fragment().is_some()
        {
            return Err(DevOriginError::NotAnOrigin(origin.to_owned()));
        }
        let (Some(host), Some(port)) = (url.host(), url.port_or_known_default()) else {
            return Err(DevOriginError::NotAnOrigin(origin.to_owned()));
        };
        if !is_loopback_host(&host) {
            return Err(DevOriginError::NotLoopback(host.to_string()));
        }
        Ok(DevOrigin {
            scheme: url.scheme().to_owned(),
            host: host.to_string(),
            port,
        })
    }

    /// `http://127.0.0.1:<port>`, the origin the demo serves its pages on.
    pub fn loopback_http(port: u16) -> DevOrigin {
        DevOrigin {
            scheme: "http".to_owned(),
            host: "127.0.0.1".to_owned(),
            port,
        }
    }

    /// `http` or `https`.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The host as the `url` crate serializes it (`127.0.0.1`, `[::1]`, `localhost`).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port (the scheme's default when the origin named none).
    pub fn port(&self) -> u16 {
        self.port
    }

    fn matches(&self, url: &Url) -> bool {
        url.scheme() == self.scheme
            && url.host_str() == Some(self.host.as_str())
            && url.port_or_known_default() == Some(self.port)
    }
}

impl fmt::Display for DevOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// The part of a link after the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UrlPart {
    /// The path.
    Path,
    /// The query (`?…`).
    Query,
    /// The fragment (`#…`).
    Fragment,
}

impl fmt::Display for UrlPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UrlPart::Path => "path",
            UrlPart::Query => "query",
            UrlPart::Fragment => "fragment",
        })
    }
}

/// One finding about a link. Each has a stable snake_case [`code`](Reason::code), a
/// [`verdict`](Reason::verdict) of its own, and a plain-words message (its `Display`). It
/// serializes as `{"code": …, "message": …, "verdict": …}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// Refuse: longer than [`MAX_URL_LEN`] bytes; not parsed at all.
    Oversized {
        /// Its length in bytes.
        len: usize,
    },
    /// Refuse: whitespace, control characters or invisible formatting characters, which the URL
    /// parser would silently drop or which hide what the link says.
    ControlCharacters,
    /// Refuse: not a URL.
    Unparseable {
        /// The parser's complaint.
        error: String,
    },
    /// Refuse: a scheme other than `https` and `http` (`javascript:`, `data:`, `file:`, …).
    SchemeNotAllowed {
        /// The scheme, lower-case, without the colon.
        scheme: String,
    },
    /// Refuse: plain `http` to a host that is not an allowed loopback one.
    PlainHttp,
    /// Refuse: no host.
    MissingHost,
    /// Refuse: a user name or password before the host.
    Credentials,
    /// Refuse: `localhost`, a name under `.localhost`, or another name of this machine.
    Localhost {
        /// The host.
        host: String,
    },
    /// Refuse: a name that only a local network resolves (one label, `.local`, `.internal`,
    /// `.lan`, `.home.arpa`, …).
    LocalNetworkName {
        /// The host.
        host: String,
    },
    /// Refuse: an address in a forbidden range, written in the link or (with `resolved`) what its
    /// name resolved to. Its code is the range's, e.g. `private_address`.
    ForbiddenAddress {
        /// The address.
        address: IpAddr,
        /// Its range.
        class: AddressClass,
        /// Whether the address came from resolving the name ([`UrlCheck::with_resolved`]).
        resolved: bool,
    },
    /// Refuse: the name resolved to no address.
    NoAddresses,
    /// Flag: the host ends with a dot.
    TrailingDot {
        /// The host.
        host: String,
    },
    /// Flag: the host is written differently from its normal form (decimal, octal or hex
    /// numbers, a short IPv4 form, percent-encoding, full-width characters…).
    UnusualHostNotation {
        /// The host as written in the link.
        written: String,
        /// What it means.
        host: String,
    },
    /// Flag: the host is a public IP address, with no name to check.
    IpAddressHost {
        /// The address.
        address: IpAddr,
    },
    /// Flag: an international (IDN) name; both forms are shown.
    Idn {
        /// The name in Unicode.
        unicode: String,
        /// The name in punycode.
        ascii: String,
    },
    /// Flag: a label mixes scripts, as look-alike names do.
    MixedScripts {
        /// The label, in Unicode.
        label: String,
        /// Its scripts.
        scripts: Vec<Script>,
    },
    /// Flag: every letter of a label is a letter of another script that passes for a Latin one.
    LookalikeLetters {
        /// The label, in Unicode.
        label: String,
        /// Its script.
        script: Script,
    },
    /// Flag: the name does not end in a suffix of the Public Suffix List.
    UnknownSuffix {
        /// The host.
        host: String,
    },
    /// Flag: the name is itself a public suffix (`co.uk`, `github.io`), nobody's domain.
    PublicSuffix {
        /// The host.
        host: String,
    },
    /// Flag: a port other than the scheme's default.
    NonDefaultPort {
        /// The port.
        port: u16,
        /// The scheme's default.
        default: u16,
    },
    /// Flag: longer than [`LONG_URL_LEN`] characters.
    LongUrl {
        /// Its length.
        len: usize,
    },
    /// Flag: the path, query or fragment contains what looks like another address (`//`,
    /// `://` with `@`, `@name.tld`), which can make the link seem to lead elsewhere.
    DeceptivePath {
        /// Where.
        part: UrlPart,
    },
    /// Allow (informational): the link is at a listed development origin.
    DevelopmentOrigin {
        /// Over plain `http`.
        plain_http: bool,
    },
    /// Allow (informational): a loopback host, allowed by [`UrlPolicy::allow_loopback_http`].
    LoopbackAllowed,
}

impl Reason {
    /// The stable snake_case code, e.g. `"credentials"` or `"private_address"`.
    pub fn code(&self) -> &'static str {
        match self {
            Reason::Oversized { .. } => "oversized",
            Reason::ControlCharacters => "control_characters",
            Reason::Unparseable { .. } => "unparseable",
            Reason::SchemeNotAllowed { .. } => "scheme_not_allowed",
            Reason::PlainHttp => "plain_http",
            Reason::MissingHost => "missing_host",
            Reason::Credentials => "credentials",
            Reason::Localhost { .. } => "localhost",
            Reason::LocalNetworkName { .. } => "local_network_name",
            Reason::ForbiddenAddress { class, .. } => class.range.code(),
            Reason::NoAddresses => "no_addresses",
            Reason::TrailingDot { .. } => "trailing_dot",
            Reason::UnusualHostNotation { .. } => "unusual_host_notation",
            Reason::IpAddressHost { .. } => "ip_address_host",
            Reason::Idn { .. } => "idn",
            Reason::MixedScripts { .. } => "mixed_scripts",
            Reason::LookalikeLetters { .. } => "lookalike_letters",
            Reason::UnknownSuffix { .. } => "unknown_suffix",
            Reason::PublicSuffix { .. } => "public_suffix",
            Reason::NonDefaultPort { .. } => "non_default_port",
            Reason::LongUrl { .. } => "long_url",
            Reason::DeceptivePath { .. } => "deceptive_path",
            Reason::DevelopmentOrigin { .. } => "development_origin",
            Reason::LoopbackAllowed => "loopback_allowed",
        }
    }

    /// What this reason alone makes of the link.
    pub fn verdict(&self) -> Verdict {
        match self {
            Reason::Oversized { .. }
            | Reason::ControlCharacters
            | Reason::Unparseable { .. }
            | Reason::SchemeNotAllowed { .. }
            | Reason::PlainHttp
            | Reason::MissingHost
            | Reason::Credentials
            | Reason::Localhost { .. }
            | Reason::LocalNetworkName { .. }
            | Reason::ForbiddenAddress { .. }
            | Reason::NoAddresses => Verdict::Refuse,
            Reason::TrailingDot { .. }
            | Reason::UnusualHostNotation { .. }
            | Reason::IpAddressHost { .. }
            | Reason::Idn { .. }
            | Reason::MixedScripts { .. }
            | Reason::LookalikeLetters { .. }
            | Reason::UnknownSuffix { .. }
            | Reason::PublicSuffix { .. }
            | Reason::NonDefaultPort { .. }
            | Reason::LongUrl { .. }
            | Reason::DeceptivePath { .. } => Verdict::Flag,
            Reason::DevelopmentOrigin { .. } | Reason::LoopbackAllowed => Verdict::Allow,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Oversized { len } => write!(
                f,
                "the link is {len} bytes long, more than the {MAX_URL_LEN} this host will read"
            ),
            Reason::ControlCharacters => f.write_str(
                "the link contains spaces, line breaks, control or invisible characters, which \
                 can hide what it really says",
            ),
            Reason::Unparseable { error } => {
                write!(f, "the link is not a valid web address ({error})")
            }
            Reason::SchemeNotAllowed { scheme } => {
                let what = match scheme.as_str() {
                    "javascript" | "vbscript" => "which runs code instead of opening a page",
                    "data" | "blob" | "about" => "which opens content carried by the link itself",
                    "file" => "which opens a file on this machine",
                    _ => "not a web page address",
                };
                write!(
                    f,
                    "the link is a \"{scheme}:\" link, {what}; only https links can be opened"
                )
            }
            Reason::PlainHttp => f.write_str(
                "the link uses plain http, which is not encrypted; only https links can be opened",
            ),
            Reason::MissingHost => f.write_str("the link names no host"),
            Reason::Credentials => {
                f.write_str("the link contains a user name or password before the host")
            }
            Reason::Localhost { host } => {
                write!(f, "the host \"{host}\" is this machine (localhost)")
            }
            Reason::LocalNetworkName { host } => write!(
                f,
                "the host \"{host}\" is a name on a local network, not a public one"
            ),
            Reason::ForbiddenAddress {
                address,
                class,
                resolved,
            } => {
                if *resolved {
                    write!(f, "the name resolves to {address}, which ")?;
                } else {
                    write!(f, "the address {address} ")?;
                }
                if let Some((embedding, v4)) = class.embedded {
                    write!(f, "carries the IPv4 address {v4} ({embedding}), which is ")?;
                } else {
                    f.write_str("is ")?;
                }
                write!(f, "{} ({})", class.range, class.block)
            }
            Reason::NoAddresses => f.write_str("the name resolved to no address"),
            Reason::TrailingDot { host } => write!(
                f,
                "the host \"{host}\" ends with a dot, an unusual way to write a name"
            ),
            Reason::UnusualHostNotation { written, host } => write!(
                f,
                "the host is written as \"{written}\", an unusual way to write {host}"
            ),
            Reason::IpAddressHost { address } => write!(
                f,
                "the host is a bare IP address ({address}), with no name to check"
            ),
            Reason::Idn { unicode, ascii } => write!(
                f,
                "the host contains international characters: {unicode} is also written {ascii}"
            ),
            Reason::MixedScripts { label, scripts } => {
                write!(f, "\"{label}\" mixes ")?;
                for (i, script) in scripts.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        _ if i + 1 == scripts.len() => " and ",
                        _ => ", ",
                    };
                    write!(f, "{sep}{script}")?;
                }
                f.write_str(" letters, as names that imitate another one do")
            }
            Reason::LookalikeLetters { label, script } => write!(
                f,
                "every letter of \"{label}\" is a {script} letter that looks like a Latin one"
            ),
            Reason::UnknownSuffix { host } => write!(
                f,
                "the host \"{host}\" does not end in a known public suffix, so nobody's domain \
                 can be shown"
            ),
            Reason::PublicSuffix { host } => write!(
                f,
                "the host \"{host}\" is a public suffix itself, not someone's domain"
            ),
            Reason::NonDefaultPort { port, default } => {
                write!(f, "the link names port {port}, not the usual {default}")
            }
            Reason::LongUrl { len } => write!(
                f,
                "the link is {len} characters long (over {LONG_URL_LEN}), long enough to hide \
                 what it says"
            ),
            Reason::DeceptivePath { part } => write!(
                f,
                "the {part} contains what looks like another address, which can make the link \
                 seem to lead elsewhere"
            ),
            Reason::DevelopmentOrigin { plain_http: true } => {
                f.write_str("development origin: plain http on this machine")
            }
            Reason::DevelopmentOrigin { plain_http: false } => {
                f.write_str("development origin on this machine")
            }
            Reason::LoopbackAllowed => f.write_str(
                "a link to this machine, allowed by the development setting for loopback hosts",
            ),
        }
    }
}

impl Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Reason", 3)?;
        s.serialize_field("code", self.code())?;
        s.serialize_field("message", &self.to_string())?;
        s.serialize_field("verdict", &self.verdict())?;
        s.end()
    }
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

/// The facts about a host that both the display and the rules use.
struct HostView {
    /// The host in Unicode (the ASCII form when it has no `xn--` label).
    unicode: String,
    /// Where the registrable domain starts, in the ASCII host and in `unicode`.
    registrable: Option<(usize, usize)>,
    registrable_kind: Registrable,
    trailing_dot: bool,
}

/// What the Public Suffix List says of a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Registrable {
    /// A registrable domain under a known suffix.
    Domain,
    /// The name is a public suffix itself.
    PublicSuffix,
    /// No known suffix.
    UnknownSuffix,
    /// Not a name.
    NotAName,
}

impl HostView {
    fn of(host: &Host<&str>) -> HostView {
        let Host::Domain(ascii) = host else {
            return HostView {
                unicode: host.to_string(),
                registrable: None,
                registrable_kind: Registrable::NotAName,
                trailing_dot: false,
            };
        };
        let unicode = if has_punycode(ascii) {
            idna::domain_to_unicode(ascii).0
        } else {
            (*ascii).to_owned()
        };
        let trailing_dot = ascii.ends_with('.');
        let name = ascii.strip_suffix('.').unwrap_or(ascii);
        let (registrable_kind, registrable) = match psl::List.domain(name.as_bytes()) {
            Some(domain) if domain.suffix().is_known() => {
                let start = name.len().saturating_sub(domain.as_bytes().len());
                let labels = domain.as_bytes().iter().filter(|&&b| b == b'.').count() + 1;
                let uname = unicode.strip_suffix('.').unwrap_or(&unicode);
                (
                    Registrable::Domain,
                    Some((start, start_of_last_labels(uname, labels))),
                )
            }
            Some(_) => (Registrable::UnknownSuffix, None),
            None if psl::List
                .suffix(name.as_bytes())
                .is_some_and(|s| s.is_known()) =>
            {
                (Registrable::PublicSuffix, None)
            }
            None => (Registrable::UnknownSuffix, None),
        };
        HostView {
            unicode,
            registrable,
            registrable_kind,
            trailing_dot,
        }
    }
}

fn has_punycode(ascii: &str) -> bool {
    ascii.starts_with("xn--") || ascii.contains(".xn--")
}

/// The byte offset where the last `labels` dot-separated labels of `name` start.
fn start_of_last_labels(name: &str, labels: usize) -> usize {
    name.rmatch_indices('.')
        .nth(labels.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1)
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

/// The rules about the host itself, for a host the policy does not exempt.
fn host_reasons(host: &Host<&str>, view: &HostView, reasons: &mut Vec<Reason>) {
    let name = match host {
        Host::Ipv4(v4) => return address_reason(IpAddr::V4(*v4), reasons),
        Host::Ipv6(v6) => return address_reason(IpAddr::V6(*v6), reasons),
        Host::Domain(name) => *name,
    };
    let bare = name.strip_suffix('.').unwrap_or(name);
    if view.trailing_dot {
        reasons.push(Reason::TrailingDot {
            host: name.to_owned(),
        });
    }
    if is_localhost_name(bare) {
        reasons.push(Reason::Localhost {
            host: name.to_owned(),
        });
        return;
    }
    if is_local_network_name(bare) {
        reasons.push(Reason::LocalNetworkName {
            host: name.to_owned(),
        });
        return;
    }
    if view.unicode != name {
        reasons.push(Reason::Idn {
            unicode: view.unicode.clone(),
            ascii: name.to_owned(),
        });
        for label in view.unicode.split('.').filter(|l| !l.is_ascii()) {
            let scripts = Scripts::of(label);
            if scripts.is_mixed() {
                reasons.push(Reason::MixedScripts {
                    label: label.to_owned(),
                    scripts: scripts.list(),
                });
            } else if let Some(script) = lookalike_script(label, scripts) {
                reasons.push(Reason::LookalikeLetters {
                    label: label.to_owned(),
                    script,
                });
            }
        }
    }
    match view.registrable_kind {
        Registrable::Domain | Registrable::NotAName => {}
        Registrable::PublicSuffix => reasons.push(Reason::PublicSuffix {
            host: view.unicode.clone(),
        }),
        Registrable::UnknownSuffix => reasons.push(Reason::UnknownSuffix {
            host: view.unicode.clone(),
        }),
    }
}

fn address_reason(address: IpAddr, reasons: &mut Vec<Reason>) {
    reasons.push(match classify_ip(address) {
        Some(class) => Reason::ForbiddenAddress {
            address,
            class,
            resolved: false,
        },
        None => Reason::IpAddressHost { address },
    });
}

fn is_loopback_host(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(v4) => v4.is_loopback(),
        Host::Ipv6(v6) => v6.is_loopback(),
        Host::Domain(name) => is_localhost_name(name.strip_suffix('.').unwrap_or(name)),
    }
}

/// `localhost`, names under it (RFC 6761), and the usual `/etc/hosts` names of this machine.
fn is_localhost_name(name: &str) -> bool {
    matches!(
        name,
        "localhost" | "localhost.localdomain" | "ip6-localhost" | "ip6-loopback"
    ) || name.ends_with(".localhost")
}

/// Names only a local network resolves: one label (found through search domains), and the
/// suffixes set aside or commonly used for private networks.
fn is_local_network_name(name: &str) -> bool {
    const LOCAL_SUFFIXES: [&str; 8] = [
        "local",
        "internal",
        "lan",
        "localdomain",
        "intranet",
        "corp",
        "home",
        "private",
    ];
    let Some((_, last)) = name.rsplit_once('.') else {
        return true;
    };
    LOCAL_SUFFIXES.contains(&last) || name == "home.arpa" || name.ends_with(".home.arpa")
}

/// The host as written in `raw`, by the same separators a browser uses for web schemes.
fn written_host(raw: &str) -> Option<&str> {
    let raw = raw.trim_matches(|c: char| c <= ' ');
    let (_, rest) = raw.split_once(':')?;
    let rest = rest.trim_start_matches(['/', '\\']);
    let authority = rest.split(['/', '\\', '?', '#']).next().unwrap_or_default();
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    Some(
        host_port
            .rsplit_once(':')
            .map_or(host_port, |(host, _)| host),
    )
}

/// Whether the written host is the parsed one, up to letter case.
fn same_host(written: &str, ascii: &str, unicode: &str) -> bool {
    written.eq_ignore_ascii_case(ascii)
        || (!written.is_ascii() && written.to_lowercase() == unicode)
}

/// A path that looks like it leads to another host: an empty segment (`//host`), a backslash,
/// or `@` before a dotted name (`/@bank.example`).
fn path_deceives(path: &str) -> bool {
    ["//", "%2f%2f", "/%2f", "%2f/", "%5c"]
        .iter()
        .any(|needle| contains_ignore_case(path, needle))
        || at_before_name(path)
}

/// A query or fragment that embeds an address with a user-name part (`?next=https://a@b`), or a
/// scheme-relative one (`?next=//host`).
fn query_deceives(query: &str) -> bool {
    ["=//", "=%2f%2f"]
        .iter()
        .any(|needle| contains_ignore_case(query, needle))
        || embedded_authority_with_at(query)
}

fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    hay.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// `@` (or `%40`) followed by a dotted name, up to the next separator.
fn at_before_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| {
        let after = if bytes.get(i) == Some(&b'@') {
            i + 1
        } else if bytes
            .get(i..i + 3)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"%40"))
        {
            i + 3
        } else {
            return false;
        };
        let name = bytes.get(after..).unwrap_or_default();
        let end = name
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#' | b'&' | b'%'))
            .unwrap_or(name.len());
        let name = name.get(..end).unwrap_or_default();
        name.contains(&b'.') && name.iter().any(u8::is_ascii_alphabetic)
    })
}

/// After each `://` (or `%3A%2F%2F`), an `@` (or `%40`) before the embedded authority ends.
fn embedded_authority_with_at(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| {
        let start = if bytes.get(i..i + 3) == Some(b"://") {
            i + 3
        } else if bytes
            .get(i..i + 9)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"%3a%2f%2f"))
        {
            i + 9
        } else {
            return false;
        };
        let rest = bytes.get(start..).unwrap_or_default();
        let mut j = 0;
        while let Some(&b) = rest.get(j) {
            match b {
                b'@' => return true,
                b'/' | b'?' | b'#' | b'&' => return false,
                b'%' => {
                    let code = rest.get(j + 1..j + 3).unwrap_or_default();
                    if code == b"40" {
                        return true;
                    }
                    if [b"2f", b"3f", b"23", b"26"]
                        .iter()
                        .any(|c| code.eq_ignore_ascii_case(*c))
                    {
                        return false;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        false
    })
}
