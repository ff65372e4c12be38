//! Declared sources that would reach this machine, the local network or a cloud metadata
//! service, judged by the link rules ([`crate::url_safety`]): the same names (`localhost`,
//! `*.localhost`, local network names) and the same address ranges (loopback, private,
//! link-local, unique-local, …). A view's policy drops them, unless a development origin the
//! person listed ([`DevOrigin`]) is covered by the entry: then exactly that origin is kept.
//!
//! Pure: nothing is resolved. A name that is literally local, or a literal address in a
//! forbidden range (in any notation a browser reads as one), is judged; a public name is kept.

use std::net::{IpAddr, Ipv4Addr};

use url::Host;

use crate::url_safety::{
    AddressRange, DevOrigin, classify_ip, is_local_network_name, is_localhost_name,
};

/// A checked source expression split in its parts (all lower-case): `[scheme://]host[:port]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Source<'a> {
    /// The scheme, when the entry names one.
    pub(super) scheme: Option<&'a str>,
    /// The host, maybe starting with `*.`.
    pub(super) host: &'a str,
    /// The port (digits or `*`), when the entry names one.
    pub(super) port: Option<&'a str>,
}

impl<'a> Source<'a> {
    /// Splits a source `check_source` produced (no brackets, no path).
    pub(super) fn split(source: &'a str) -> Source<'a> {
        let (scheme, rest) = match source.split_once("://") {
            Some((scheme, rest)) => (Some(scheme), rest),
            None => (None, source),
        };
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (rest, None),
        };
        Source { scheme, host, port }
    }
}

/// Cloud metadata services' addresses (AWS, GCP, Azure, OpenStack; AWS ECS; Alibaba), named as
/// such in the reason. They are refused for their range already; this only says which service.
const METADATA_ADDRESSES: [Ipv4Addr; 3] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(100, 100, 100, 200),
];

/// Why `host` (a checked source's host, maybe `*.`-prefixed) reaches this machine, the local
/// network or a metadata service; `None` for a public name or address.
pub(super) fn local_reason(host: &str) -> Option<&'static str> {
    let (wildcard, name) = match host.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, host),
    };
    let last_numeric = name
        .rsplit('.')
        .next()
        .is_some_and(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()));
    if wildcard && last_numeric {
        // `*.0.0.1` matches `127.0.0.1`: a wildcard over address labels covers addresses.
        return Some("is a wildcard over IP addresses (it covers loopback and private ones)");
    }
    match Host::parse(name) {
        Ok(Host::Ipv4(address)) => {
            if METADATA_ADDRESSES.contains(&address) {
                return Some("reaches a cloud metadata service (link-local or shared address)");
            }
            classify_ip(IpAddr::V4(address)).map(|class| range_reason(class.range))
        }
        Ok(Host::Ipv6(address)) => {
            classify_ip(IpAddr::V6(address)).map(|class| range_reason(class.range))
        }
        Ok(Host::Domain(domain)) => {
            let domain = domain.strip_suffix('.').unwrap_or(&domain);
            if is_localhost_name(domain) {
                Some("reaches this machine (localhost)")
            } else if domain == "metadata.google.internal" || domain == "metadata" {
                Some("reaches a cloud metadata service (local network name)")
            } else if is_local_network_name(domain) {
                Some("reaches the local network (local network name)")
            } else {
                None
            }
        }
        // A host the URL parser refuses (`1.2.3.4.5`): no browser reaches a public site by it.
        Err(_) if last_numeric => Some("is not a host a browser reads (numeric last label)"),
        Err(_) => None,
    }
}

/// The reason for an address in a forbidden range, naming the range.
fn range_reason(range: AddressRange) -> &'static str {
    match range {
        AddressRange::Loopback => "reaches this machine (loopback)",
        AddressRange::Unspecified => "reaches this machine (unspecified address)",
        AddressRange::Private => "reaches the local network (private or unique-local address)",
        AddressRange::LinkLocal => "reaches the local network segment (link-local address)",
        AddressRange::Shared => "reaches the provider's network (shared address)",
        AddressRange::Multicast => "is not a public address (multicast)",
        AddressRange::Broadcast => "is not a public address (broadcast)",
        AddressRange::Documentation => "is not a public address (documentation)",
        AddressRange::Benchmarking => "is not a public address (benchmarking)",
        AddressRange::Reserved => "is not a public address (reserved)",
    }
}

/// The development origins `source` covers, as the exact sources to keep in its place (the
/// entry's scheme, or the origin's when it names none; `ws`/`wss` cover the `http`/`https`
/// origin on the same host and port): `http://127.0.0.1:*` with `http://127.0.0.1:4000`
/// listed keeps `http://127.0.0.1:4000` and nothing else of this machine.
pub(super) fn dev_sources(source: Source<'_>, dev_origins: &[DevOrigin]) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for origin in dev_origins {
        let scheme = match source.scheme {
            None => origin.scheme(),
            Some(s) if s == origin.scheme() => s,
            Some("ws") if origin.scheme() == "http" => "ws",
            Some("wss") if origin.scheme() == "https" => "wss",
            Some(_) => continue,
        };
        let host_covered = match source.host.strip_prefix('*') {
            Some(suffix) => origin.host().ends_with(suffix),
            None => origin.host() == source.host,
        };
        let port_covered = match source.port {
            Some("*") => true,
            Some(port) => port.parse::<u16>() == Ok(origin.port()),
            None => default_port(scheme) == Some(origin.port()),
        };
        if host_covered && port_covered {
            let exact = format!("{scheme}://{}:{}", origin.host(), origin.port());
            if !kept.contains(&exact) {
                kept.push(exact);
            }
        }
    }
    kept
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}
