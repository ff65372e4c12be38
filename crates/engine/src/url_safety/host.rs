//! The rules about a link's host: what the Public Suffix List says of it, names of this machine
//! and of local networks, international names, and how the host was written.

use std::net::IpAddr;

use psl::Psl as _;
use url::Host;

use super::Reason;
use super::address::classify_ip;
use super::script::{Scripts, lookalike_script, suffix_of_script, unusual_characters};

/// The facts about a host that both the display and the rules use.
pub(super) struct HostView {
    /// The host in Unicode (the ASCII form when it has no `xn--` label).
    pub(super) unicode: String,
    /// Where the registrable domain starts, in the ASCII host and in `unicode`.
    pub(super) registrable: Option<(usize, usize)>,
    registrable_kind: Registrable,
    pub(super) trailing_dot: bool,
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
    pub(super) fn of(host: &Host<&str>) -> HostView {
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

/// The rules about the host itself, for a host the policy does not exempt.
pub(super) fn host_reasons(host: &Host<&str>, view: &HostView, reasons: &mut Vec<Reason>) {
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
    if let Some(suffix) = special_use_suffix(bare) {
        reasons.push(Reason::SpecialUseName {
            host: name.to_owned(),
            suffix,
        });
        return;
    }
    if view.unicode != name {
        reasons.push(Reason::Idn {
            unicode: view.unicode.clone(),
            ascii: name.to_owned(),
        });
        label_reasons(&view.unicode, reasons);
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

/// Label reasons kept for one link: they are all flags, so the verdict is the same with fewer,
/// and a host of thousands of look-alike labels does not make thousands of warnings.
const MAX_LABEL_REASONS: usize = 8;

/// What Chromium's IDN display policy would show in punycode, label by label: mixed scripts,
/// letters that pass for Latin ones under a suffix not of their script, unusual characters.
fn label_reasons(unicode: &str, reasons: &mut Vec<Reason>) {
    let bare = unicode.strip_suffix('.').unwrap_or(unicode);
    let suffix = bare.rsplit('.').next().unwrap_or_default();
    let limit = reasons.len() + MAX_LABEL_REASONS;
    for label in bare.split('.').filter(|l| !l.is_ascii()) {
        if reasons.len() >= limit {
            break;
        }
        let scripts = Scripts::of(label);
        if scripts.is_mixed_in(label) {
            reasons.push(Reason::MixedScripts {
                label: label.to_owned(),
                scripts: scripts.list(),
            });
        } else if let Some(script) = lookalike_script(label, scripts)
            && !suffix_of_script(script, suffix)
        {
            reasons.push(Reason::LookalikeLetters {
                label: label.to_owned(),
                script,
            });
        }
        if let Some(found) = unusual_characters(label) {
            reasons.push(Reason::UnusualCharacters {
                label: label.to_owned(),
                found,
            });
        }
    }
}

/// Suffixes of names that are no web page for a person: Tor's onion services (RFC 7686), the
/// internet's infrastructure (`.arpa`: reverse look-ups and the like; `home.arpa` is a local
/// network name, judged before), and the names RFC 6761 and RFC 9476 set aside so that no
/// public site uses them.
const SPECIAL_USE: [&str; 6] = ["onion", "arpa", "test", "example", "invalid", "alt"];

/// The special-use suffix `name` (lower-case, no trailing dot) ends with, if any.
fn special_use_suffix(name: &str) -> Option<&'static str> {
    let last = name.rsplit('.').next()?;
    SPECIAL_USE.into_iter().find(|s| *s == last)
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

pub(super) fn is_loopback_host(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(v4) => v4.is_loopback(),
        Host::Ipv6(v6) => v6.is_loopback(),
        Host::Domain(name) => is_localhost_name(name.strip_suffix('.').unwrap_or(name)),
    }
}

/// `localhost`, names under it (RFC 6761), and the usual `/etc/hosts` names of this machine
/// (`name` lower-case, without a trailing dot). The CSP builder judges declared hosts by it too.
pub(crate) fn is_localhost_name(name: &str) -> bool {
    matches!(
        name,
        "localhost" | "localhost.localdomain" | "ip6-localhost" | "ip6-loopback"
    ) || name.ends_with(".localhost")
}

/// Names only a local network resolves: one label (found through search domains), and the
/// suffixes set aside or commonly used for private networks. The CSP builder judges declared
/// hosts by it too.
pub(crate) fn is_local_network_name(name: &str) -> bool {
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
pub(super) fn written_host(raw: &str) -> Option<&str> {
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
pub(super) fn same_host(written: &str, ascii: &str, unicode: &str) -> bool {
    written.eq_ignore_ascii_case(ascii)
        || (!written.is_ascii() && written.to_lowercase() == unicode)
}
