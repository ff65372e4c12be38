//! The IP ranges a link may never lead to.
//!
//! Written as plain tables over the address bits: the std predicates (`is_global`, `is_shared`,
//! …) are partly unstable, and the IPv6 forms that carry an IPv4 address must be judged by the
//! address they carry.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The kind of forbidden range an address falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressRange {
    /// This machine: 127.0.0.0/8, ::1.
    Loopback,
    /// 0.0.0.0 or `::`, which connect to this machine.
    Unspecified,
    /// Private networks: 10/8, 172.16/12, 192.168/16, fc00::/7 (and local-use NAT64).
    Private,
    /// The local network segment: 169.254/16, fe80::/10.
    LinkLocal,
    /// Carrier-grade NAT space shared by a provider's customers: 100.64/10.
    Shared,
    /// Multicast: 224/4, ff00::/8.
    Multicast,
    /// The limited broadcast address 255.255.255.255.
    Broadcast,
    /// Set aside for examples in documentation: 192.0.2/24, 198.51.100/24, 203.0.113/24,
    /// 2001:db8::/32, 3fff::/20.
    Documentation,
    /// Set aside for benchmarking networks: 198.18/15, 2001:2::/48.
    Benchmarking,
    /// Any other range that is not public unicast: 0/8, 192.0.0/24, 240/4, IPv6 outside
    /// 2000::/3, 2001::/23, …
    Reserved,
}

impl AddressRange {
    /// The stable reason code for an address in this range, e.g. `"private_address"`.
    pub fn code(self) -> &'static str {
        match self {
            AddressRange::Loopback => "loopback_address",
            AddressRange::Unspecified => "unspecified_address",
            AddressRange::Private => "private_address",
            AddressRange::LinkLocal => "link_local_address",
            AddressRange::Shared => "shared_address",
            AddressRange::Multicast => "multicast_address",
            AddressRange::Broadcast => "broadcast_address",
            AddressRange::Documentation => "documentation_address",
            AddressRange::Benchmarking => "benchmarking_address",
            AddressRange::Reserved => "reserved_address",
        }
    }
}

impl fmt::Display for AddressRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AddressRange::Loopback => "a loopback address, this machine",
            AddressRange::Unspecified => "the unspecified address, which reaches this machine",
            AddressRange::Private => "a private network address",
            AddressRange::LinkLocal => "a link-local address, on the local network segment",
            AddressRange::Shared => "a carrier-grade NAT shared address",
            AddressRange::Multicast => "a multicast address",
            AddressRange::Broadcast => "the broadcast address",
            AddressRange::Documentation => "an address reserved for documentation",
            AddressRange::Benchmarking => "an address reserved for network benchmarks",
            AddressRange::Reserved => "a reserved address, not a public one",
        })
    }
}

/// How an IPv6 address carries an IPv4 one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Embedding {
    /// `::ffff:a.b.c.d`.
    Mapped,
    /// `::a.b.c.d` (deprecated).
    Compatible,
    /// `64:ff9b::a.b.c.d`, the well-known NAT64 prefix.
    Nat64,
    /// `2002:aabb:ccdd::/48`, 6to4.
    SixToFour,
}

impl fmt::Display for Embedding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Embedding::Mapped => "IPv4-mapped",
            Embedding::Compatible => "IPv4-compatible",
            Embedding::Nat64 => "NAT64",
            Embedding::SixToFour => "6to4",
        })
    }
}

/// Why an address is forbidden: its range, the block it matched, and the IPv4 address judged
/// when an IPv6 one carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AddressClass {
    /// The kind of range.
    pub range: AddressRange,
    /// The block that matched, e.g. `"10.0.0.0/8"`.
    pub block: &'static str,
    /// The IPv4 address inside an IPv6 one, when that is what fell in `range`.
    pub embedded: Option<(Embedding, Ipv4Addr)>,
}

/// IPv4 blocks, the narrower before the wider that contains them.
const V4: &[(u32, u32, AddressRange, &str)] = &[
    (0x0000_0000, 32, AddressRange::Unspecified, "0.0.0.0/32"),
    (0x0000_0000, 8, AddressRange::Reserved, "0.0.0.0/8"),
    (0x0A00_0000, 8, AddressRange::Private, "10.0.0.0/8"),
    (0x6440_0000, 10, AddressRange::Shared, "100.64.0.0/10"),
    (0x7F00_0000, 8, AddressRange::Loopback, "127.0.0.0/8"),
    (0xA9FE_0000, 16, AddressRange::LinkLocal, "169.254.0.0/16"),
    (0xAC10_0000, 12, AddressRange::Private, "172.16.0.0/12"),
    (0xC000_0000, 24, AddressRange::Reserved, "192.0.0.0/24"),
    (0xC000_0200, 24, AddressRange::Documentation, "192.0.2.0/24"),
    (0xC058_6300, 24, AddressRange::Reserved, "192.88.99.0/24"),
    (0xC0A8_0000, 16, AddressRange::Private, "192.168.0.0/16"),
    (0xC612_0000, 15, AddressRange::Benchmarking, "198.18.0.0/15"),
    (
        0xC633_6400,
        24,
        AddressRange::Documentation,
        "198.51.100.0/24",
    ),
    (
        0xCB00_7100,
        24,
        AddressRange::Documentation,
        "203.0.113.0/24",
    ),
    (0xE000_0000, 4, AddressRange::Multicast, "224.0.0.0/4"),
    (
        0xFFFF_FFFF,
        32,
        AddressRange::Broadcast,
        "255.255.255.255/32",
    ),
    (0xF000_0000, 4, AddressRange::Reserved, "240.0.0.0/4"),
];

/// IPv6 blocks not handled as carriers of IPv4, the narrower before the wider.
const V6: &[(u128, u32, AddressRange, &str)] = &[
    (
        0x0064_ff9b_0001 << 80,
        48,
        AddressRange::Private,
        "64:ff9b:1::/48",
    ),
    (0x0100 << 112, 64, AddressRange::Reserved, "100::/64"),
    (
        0x2001_0db8 << 96,
        32,
        AddressRange::Documentation,
        "2001:db8::/32",
    ),
    (
        0x2001_0002 << 96,
        48,
        AddressRange::Benchmarking,
        "2001:2::/48",
    ),
    // IETF protocol assignments, Teredo (which hides an IPv4 address) among them.
    (0x2001 << 112, 23, AddressRange::Reserved, "2001::/23"),
    (0x3fff << 112, 20, AddressRange::Documentation, "3fff::/20"),
    (0xfc << 120, 7, AddressRange::Private, "fc00::/7"),
    (0xfe80 << 112, 10, AddressRange::LinkLocal, "fe80::/10"),
    (0xfec0 << 112, 10, AddressRange::Reserved, "fec0::/10"),
    (0xff << 120, 8, AddressRange::Multicast, "ff00::/8"),
];

/// The forbidden range `addr` falls in, or `None` for a public unicast address.
///
/// ```
/// use interlude_engine::url_safety::{AddressRange, classify_ip};
///
/// let class = classify_ip("::ffff:10.1.2.3".parse().unwrap()).unwrap();
/// assert_eq!(class.range, AddressRange::Private);
/// assert_eq!(class.block, "10.0.0.0/8");
/// assert!(classify_ip("140.82.112.3".parse().unwrap()).is_none());
/// ```
pub fn classify_ip(addr: IpAddr) -> Option<AddressClass> {
    match addr {
        IpAddr::V4(v4) => classify_ipv4(v4),
        IpAddr::V6(v6) => classify_ipv6(v6),
    }
}

/// The forbidden range of an IPv4 address, or `None` for a public one.
pub fn classify_ipv4(addr: Ipv4Addr) -> Option<AddressClass> {
    let bits = u32::from(addr);
    V4.iter()
        .find(|&&(net, len, _, _)| bits & mask32(len) == net)
        .map(|&(_, _, range, block)| AddressClass {
            range,
            block,
            embedded: None,
        })
}

/// The forbidden range of an IPv6 address, judging the IPv4 address it carries if it carries
/// one; `None` for a public one.
pub fn classify_ipv6(addr: Ipv6Addr) -> Option<AddressClass> {
    let bits = u128::from(addr);
    let [o0, _, o2, o3, o4, o5, .., o12, o13, o14, o15] = addr.octets();
    let low_v4 = Ipv4Addr::new(o12, o13, o14, o15);
    let carried = |embedding: Embedding, v4: Ipv4Addr| {
        classify_ipv4(v4).map(|class| AddressClass {
            embedded: Some((embedding, v4)),
            ..class
        })
    };
    match bits {
        0 => Some(plain(AddressRange::Unspecified, "::/128")),
        1 => Some(plain(AddressRange::Loopback, "::1/128")),
        _ if bits >> 32 == 0xffff => carried(Embedding::Mapped, low_v4),
        // Deprecated and never public: judged by what it carries, else reserved.
        _ if bits >> 32 == 0 => {
            carried(Embedding::Compatible, low_v4).or(Some(plain(AddressRange::Reserved, "::/96")))
        }
        _ if bits >> 32 == 0x0064_ff9b_0000_0000_0000_0000 => carried(Embedding::Nat64, low_v4),
        _ if bits >> 112 == 0x2002 => carried(Embedding::SixToFour, Ipv4Addr::new(o2, o3, o4, o5)),
        _ => V6
            .iter()
            .find(|&&(net, len, _, _)| bits & mask128(len) == net)
            .map(|&(_, _, range, block)| plain(range, block))
            // Only 2000::/3 is global unicast.
            .or_else(|| {
                (o0 >> 5 != 0b001).then(|| plain(AddressRange::Reserved, "outside 2000::/3"))
            }),
    }
}

fn plain(range: AddressRange, block: &'static str) -> AddressClass {
    AddressClass {
        range,
        block,
        embedded: None,
    }
}

fn mask32(len: u32) -> u32 {
    u32::MAX.checked_shl(32 - len).unwrap_or(0)
}

fn mask128(len: u32) -> u128 {
    u128::MAX.checked_shl(128 - len).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_say_what_they_match_and_narrow_blocks_come_first() {
        for (i, &(net, len, _, block)) in V4.iter().enumerate() {
            let (addr, bits) = block.split_once('/').unwrap();
            assert_eq!(u32::from(addr.parse::<Ipv4Addr>().unwrap()), net, "{block}");
            assert_eq!(bits.parse::<u32>().unwrap(), len, "{block}");
            assert_eq!(net & !mask32(len), 0, "{block} has host bits");
            for &(later, later_len, _, later_block) in &V4[i + 1..] {
                assert!(
                    !(later_len > len && later & mask32(len) == net),
                    "{later_block} is inside {block}, which comes first"
                );
            }
        }
        for (i, &(net, len, _, block)) in V6.iter().enumerate() {
            let (addr, bits) = block.split_once('/').unwrap();
            assert_eq!(
                u128::from(addr.parse::<Ipv6Addr>().unwrap()),
                net,
                "{block}"
            );
            assert_eq!(bits.parse::<u32>().unwrap(), len, "{block}");
            assert_eq!(net & !mask128(len), 0, "{block} has host bits");
            for &(later, later_len, _, later_block) in &V6[i + 1..] {
                assert!(
                    !(later_len > len && later & mask128(len) == net),
                    "{later_block} is inside {block}, which comes first"
                );
            }
        }
    }

    #[test]
    fn masks() {
        assert_eq!(mask32(32), u32::MAX);
        assert_eq!(mask32(8), 0xFF00_0000);
        assert_eq!(mask128(7), 0xfe << 120);
    }
}
