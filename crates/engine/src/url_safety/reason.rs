//! The findings about a link ([`Reason`]): each with a stable code, a verdict of its own and a
//! message in plain words.

use std::fmt;
use std::net::IpAddr;

use serde::Serialize;
use serde::ser::SerializeStruct;

use super::address::AddressClass;
use super::script::Script;
use super::{LONG_URL_LEN, MAX_URL_LEN, Verdict};

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
    /// Refuse: a name no browser opens as a web page for a person: under `.onion` (a Tor onion
    /// service), `.arpa` (the internet's own infrastructure, such as reverse look-ups), or a
    /// suffix set aside so that no public site uses it (`.test`, `.example`, `.invalid`,
    /// `.alt`).
    SpecialUseName {
        /// The host.
        host: String,
        /// The suffix, lower-case, without its dot (`"onion"`).
        suffix: &'static str,
    },
    /// Refuse: an address in a forbidden range, written in the link or (with `resolved`) what its
    /// name resolved to. Its code is the range's, e.g. `private_address`.
    ForbiddenAddress {
        /// The address.
        address: IpAddr,
        /// Its range.
        class: AddressClass,
        /// Whether the address came from resolving the name ([`UrlCheck::with_resolved`](super::UrlCheck::with_resolved)).
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
    /// Allow (informational): the host is a public IP address, shown as it is.
    IpAddressHost {
        /// The address.
        address: IpAddr,
    },
    /// Allow (informational): an international (IDN) name; both forms are shown. Look-alike
    /// names are flagged by their own reasons ([`Reason::MixedScripts`],
    /// [`Reason::LookalikeLetters`], [`Reason::UnusualCharacters`]).
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
    /// Flag: every letter of a label is a letter of another script that passes for a Latin one,
    /// and the name's suffix is neither written in that script nor a country's that uses it
    /// (`аррӏе.com` is flagged, `аррӏе.рф` and `аррӏе.ru` are not).
    LookalikeLetters {
        /// The label, in Unicode.
        label: String,
        /// Its script.
        script: Script,
    },
    /// Flag: a label contains a character names rarely use that can pass for another one or
    /// hide (`ɡoogle` with a Latin script g, small capitals, the same combining mark twice, a
    /// middle dot outside Catalan's `l·l`, a katakana that looks like a slash beside other
    /// scripts).
    UnusualCharacters {
        /// The label, in Unicode.
        label: String,
        /// What was found, e.g. `ɡ (U+0261)`.
        found: String,
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
    /// Allow (informational): a port other than the scheme's default, shown as it is.
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
    /// Allow (informational): a loopback host, allowed by [`UrlPolicy::allow_loopback_http`](super::UrlPolicy::allow_loopback_http).
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
            Reason::SpecialUseName { .. } => "special_use_name",
            Reason::ForbiddenAddress { class, .. } => class.range.code(),
            Reason::NoAddresses => "no_addresses",
            Reason::TrailingDot { .. } => "trailing_dot",
            Reason::UnusualHostNotation { .. } => "unusual_host_notation",
            Reason::IpAddressHost { .. } => "ip_address_host",
            Reason::Idn { .. } => "idn",
            Reason::MixedScripts { .. } => "mixed_scripts",
            Reason::LookalikeLetters { .. } => "lookalike_letters",
            Reason::UnusualCharacters { .. } => "unusual_characters",
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
            | Reason::SpecialUseName { .. }
            | Reason::ForbiddenAddress { .. }
            | Reason::NoAddresses => Verdict::Refuse,
            Reason::TrailingDot { .. }
            | Reason::UnusualHostNotation { .. }
            | Reason::MixedScripts { .. }
            | Reason::LookalikeLetters { .. }
            | Reason::UnusualCharacters { .. }
            | Reason::UnknownSuffix { .. }
            | Reason::PublicSuffix { .. }
            | Reason::LongUrl { .. }
            | Reason::DeceptivePath { .. } => Verdict::Flag,
            Reason::IpAddressHost { .. }
            | Reason::Idn { .. }
            | Reason::NonDefaultPort { .. }
            | Reason::DevelopmentOrigin { .. }
            | Reason::LoopbackAllowed => Verdict::Allow,
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
            Reason::SpecialUseName {
                host,
                suffix: "onion",
            } => write!(
                f,
                "the host \"{host}\" is a Tor onion service, which a browser cannot open"
            ),
            Reason::SpecialUseName {
                host,
                suffix: "arpa",
            } => write!(
                f,
                "the host \"{host}\" is under .arpa, which is kept for the internet's own \
                 infrastructure, not for web pages"
            ),
            Reason::SpecialUseName { host, suffix } => write!(
                f,
                "the host \"{host}\" is under .{suffix}, a name set aside that no public site uses"
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
                "the link leads to the IP address {address} rather than to a name"
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
            Reason::UnusualCharacters { label, found } => write!(
                f,
                "\"{label}\" contains a character names rarely use, which can pass for another \
                 or hide: {found}"
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
