//! The host's URL safety rules through the public API: hostile links with their exact verdict
//! and reason codes, good links, development origins, resolved addresses and the display.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::net::IpAddr;

use interlude_engine::url_safety::{
    AddressRange, Embedding, Reason, Verdict, classify_ip, classify_ipv4,
};
use interlude_engine::{DevOrigin, UrlCheck, UrlPolicy, check_url};
use serde_json::json;

use Verdict::{Allow, Flag, Refuse};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn strict(url: &str) -> UrlCheck {
    check_url(url, &UrlPolicy::default())
}

fn codes(check: &UrlCheck) -> Vec<&'static str> {
    check.codes().collect()
}

/// Checks every row, reporting all mismatches at once.
fn assert_table(policy: &UrlPolicy, table: &[(&str, Verdict, &[&str])]) {
    let mut wrong = Vec::new();
    for &(url, verdict, expected) in table {
        let check = check_url(url, policy);
        if check.verdict != verdict || codes(&check) != expected {
            wrong.push(format!(
                "{url:?}: expected {verdict:?} {expected:?}, got {:?} {:?}",
                check.verdict,
                codes(&check)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} mismatches:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn dev_4000() -> UrlPolicy {
    UrlPolicy {
        dev_origins: vec![DevOrigin::loopback_http(4000)],
        ..UrlPolicy::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile links
// ---------------------------------------------------------------------------------------------

const HOSTILE: &[(&str, Verdict, &[&str])] = &[
    // Schemes.
    ("javascript:alert(1)", Refuse, &["scheme_not_allowed"]),
    (
        "JavaScript:alert(document.cookie)",
        Refuse,
        &["scheme_not_allowed"],
    ),
    (
        "java\tscript:alert(1)",
        Refuse,
        &["control_characters", "scheme_not_allowed"],
    ),
    (
        "data:text/html,<script>alert(1)</script>",
        Refuse,
        &["scheme_not_allowed"],
    ),
    ("file:///etc/passwd", Refuse, &["scheme_not_allowed"]),
    (
        "blob:https://example.com/0d5f",
        Refuse,
        &["scheme_not_allowed"],
    ),
    ("about:blank", Refuse, &["scheme_not_allowed"]),
    ("vbscript:msgbox(1)", Refuse, &["scheme_not_allowed"]),
    ("ftp://example.com/file", Refuse, &["scheme_not_allowed"]),
    ("myapp://callback?token=x", Refuse, &["scheme_not_allowed"]),
    ("wss://example.com/socket", Refuse, &["scheme_not_allowed"]),
    ("http://example.com/", Refuse, &["plain_http"]),
    (
        "http://example.com:443/",
        Refuse,
        &["plain_http", "non_default_port"],
    ),
    // Not a link.
    ("/relative/path", Refuse, &["unparseable"]),
    ("https://", Refuse, &["unparseable"]),
    (
        "https://exa mple.com/",
        Refuse,
        &["control_characters", "unparseable"],
    ),
    ("https://[::1/", Refuse, &["unparseable"]),
    ("https://1.2.3.4.5/", Refuse, &["unparseable"]),
    // Hidden characters (surrounding ASCII whitespace is trimmed, as a browser does; other
    // whitespace at the edges, and any inside, is not).
    (
        "\u{00A0}https://example.com/",
        Refuse,
        &["control_characters", "unparseable"],
    ),
    ("https://example.com/a b", Refuse, &["control_characters"]),
    (
        " https://example.com/\u{200B} ",
        Refuse,
        &["control_characters"],
    ),
    (
        "https://example.com/\u{202E}gnp.exe",
        Refuse,
        &["control_characters"],
    ),
    (
        "https://exa\u{200B}mple.com/",
        Refuse,
        &["control_characters", "unusual_host_notation"],
    ),
    ("https://example.com/a\nb", Refuse, &["control_characters"]),
    // Credentials.
    ("https://user:pass@example.com/", Refuse, &["credentials"]),
    (
        "https://github.com@evil.com/login",
        Refuse,
        &["credentials"],
    ),
    (
        "https://user@localhost/",
        Refuse,
        &["credentials", "localhost"],
    ),
    // This machine by name.
    ("https://localhost/", Refuse, &["localhost"]),
    (
        "https://LOCALHOST:8443/",
        Refuse,
        &["localhost", "non_default_port"],
    ),
    (
        "https://localhost./",
        Refuse,
        &["trailing_dot", "localhost"],
    ),
    ("https://foo.localhost/", Refuse, &["localhost"]),
    ("https://a.b.localhost/", Refuse, &["localhost"]),
    (
        "https://%6c%6f%63%61%6c%68%6f%73%74/",
        Refuse,
        &["unusual_host_notation", "localhost"],
    ),
    // Loopback in every notation.
    ("https://127.0.0.1/", Refuse, &["loopback_address"]),
    (
        "https://127.1/",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    (
        "https://2130706433/",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    (
        "https://0177.0.0.1/",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    (
        "https://0x7f.1/",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    (
        "https://0x7f000001/",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    (
        "https://127.0.0.1./",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    (
        "https://%31%32%37.0.0.1/",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    (
        "https://１２７．０．０．１/",
        Refuse,
        &["unusual_host_notation", "loopback_address"],
    ),
    ("https://[::1]/", Refuse, &["loopback_address"]),
    ("https://[0:0:0:0:0:0:0:1]/", Refuse, &["loopback_address"]),
    ("https://[::ffff:127.0.0.1]/", Refuse, &["loopback_address"]),
    ("https://[::ffff:7f00:1]/", Refuse, &["loopback_address"]),
    ("https://[::127.0.0.1]/", Refuse, &["loopback_address"]),
    // Unspecified.
    ("https://0.0.0.0/", Refuse, &["unspecified_address"]),
    (
        "https://0/",
        Refuse,
        &["unusual_host_notation", "unspecified_address"],
    ),
    ("https://[::]/", Refuse, &["unspecified_address"]),
    // Private, link-local, shared.
    ("https://10.0.0.1/", Refuse, &["private_address"]),
    ("https://172.16.5.4/", Refuse, &["private_address"]),
    ("https://172.31.255.255/", Refuse, &["private_address"]),
    ("https://192.168.1.1/admin", Refuse, &["private_address"]),
    ("https://[fd00::1]/", Refuse, &["private_address"]),
    ("https://[fc00::1]/", Refuse, &["private_address"]),
    ("https://[64:ff9b::10.0.0.1]/", Refuse, &["private_address"]),
    ("https://[64:ff9b:1::1]/", Refuse, &["private_address"]),
    ("https://[2002:c0a8:101::1]/", Refuse, &["private_address"]),
    (
        "https://169.254.169.254/latest/meta-data/",
        Refuse,
        &["link_local_address"],
    ),
    (
        "https://[::ffff:a9fe:a9fe]/",
        Refuse,
        &["link_local_address"],
    ),
    ("https://[fe80::1]/", Refuse, &["link_local_address"]),
    ("https://100.64.0.1/", Refuse, &["shared_address"]),
    // Multicast, broadcast, documentation, benchmarking, reserved.
    ("https://224.0.0.1/", Refuse, &["multicast_address"]),
    ("https://[ff02::1]/", Refuse, &["multicast_address"]),
    ("https://255.255.255.255/", Refuse, &["broadcast_address"]),
    ("https://192.0.2.1/", Refuse, &["documentation_address"]),
    ("https://198.51.100.7/", Refuse, &["documentation_address"]),
    ("https://203.0.113.9/", Refuse, &["documentation_address"]),
    ("https://[2001:db8::1]/", Refuse, &["documentation_address"]),
    ("https://[3fff::1]/", Refuse, &["documentation_address"]),
    ("https://198.18.0.1/", Refuse, &["benchmarking_address"]),
    ("https://[2001:2::1]/", Refuse, &["benchmarking_address"]),
    ("https://0.1.2.3/", Refuse, &["reserved_address"]),
    ("https://192.0.0.8/", Refuse, &["reserved_address"]),
    ("https://240.0.0.1/", Refuse, &["reserved_address"]),
    ("https://[2001::1]/", Refuse, &["reserved_address"]),
    ("https://[100::1]/", Refuse, &["reserved_address"]),
    ("https://[fec0::1]/", Refuse, &["reserved_address"]),
    ("https://[::8.8.8.8]/", Refuse, &["reserved_address"]),
    // Local network names.
    ("https://router.local/", Refuse, &["local_network_name"]),
    (
        "https://router.local./",
        Refuse,
        &["trailing_dot", "local_network_name"],
    ),
    ("https://intranet/", Refuse, &["local_network_name"]),
    ("https://db.internal/", Refuse, &["local_network_name"]),
    (
        "https://svc.cluster.internal/",
        Refuse,
        &["local_network_name"],
    ),
    // Names no browser opens as a web page for a person.
    ("https://example.onion/", Refuse, &["special_use_name"]),
    (
        "https://duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion/",
        Refuse,
        &["special_use_name"],
    ),
    (
        "https://example.onion./",
        Refuse,
        &["trailing_dot", "special_use_name"],
    ),
    (
        "https://1.0.0.127.in-addr.arpa/",
        Refuse,
        &["special_use_name"],
    ),
    ("https://x.ip6.arpa/", Refuse, &["special_use_name"]),
    ("https://example.arpa/", Refuse, &["special_use_name"]),
    ("https://site.test/", Refuse, &["special_use_name"]),
    ("https://example.invalid/", Refuse, &["special_use_name"]),
    ("https://www.example/", Refuse, &["special_use_name"]),
    ("https://name.alt/", Refuse, &["special_use_name"]),
    (
        "https://printer.home.arpa/",
        Refuse,
        &["local_network_name"],
    ),
    // Look-alike names.
    ("https://аpple.com/", Flag, &["idn", "mixed_scripts"]),
    (
        "https://www.xn--pple-43d.com/",
        Flag,
        &["idn", "mixed_scripts"],
    ),
    ("https://pаypal.com/", Flag, &["idn", "mixed_scripts"]),
    ("https://gοogle.com/", Flag, &["idn", "mixed_scripts"]),
    ("https://аррӏе.com/", Flag, &["idn", "lookalike_letters"]),
    (
        "https://xn--80ak6aa92e.com/",
        Flag,
        &["idn", "lookalike_letters"],
    ),
    ("https://ехсеl.com/", Flag, &["idn", "mixed_scripts"]),
    // Letters that pass for Latin ones under a non-Cyrillic suffix, whatever the others.
    ("https://ѕсоре.com/", Flag, &["idn", "lookalike_letters"]),
    ("https://ѕсоре.de/", Flag, &["idn", "lookalike_letters"]),
    // Non-ASCII Latin mixes only with nothing (CJK mixes with ASCII Latin only).
    ("https://bücher例.jp/", Flag, &["idn", "mixed_scripts"]),
    // Letters and marks names rarely use, which pass for others or hide.
    ("https://ɡoogle.com/", Flag, &["idn", "unusual_characters"]),
    ("https://gooɢle.com/", Flag, &["idn", "unusual_characters"]),
    ("https://ǥithub.com/", Flag, &["idn", "unusual_characters"]),
    (
        "https://loginノexample.com/",
        Flag,
        &["idn", "unusual_characters"],
    ),
    (
        "https://ex\u{0301}\u{0301}ample.com/",
        Flag,
        &["idn", "unusual_characters"],
    ),
    (
        "https://exa·mple.com/",
        Flag,
        &["idn", "unusual_characters"],
    ),
    // No registrable domain.
    ("https://co.uk/", Flag, &["public_suffix"]),
    ("https://github.io/", Flag, &["public_suffix"]),
    ("https://example.invalidtld/", Flag, &["unknown_suffix"]),
    // Host notation, length.
    (
        "https://0x08.0x08.0x08.0x08/",
        Flag,
        &["unusual_host_notation", "ip_address_host"],
    ),
    ("https://ex%61mple.com/", Flag, &["unusual_host_notation"]),
    (
        "https://ｅｘａｍｐｌｅ.com/",
        Flag,
        &["unusual_host_notation"],
    ),
    ("https://example.com./", Flag, &["trailing_dot"]),
    // Paths and queries that point elsewhere.
    (
        "https://evil.com//accounts.google.com/",
        Flag,
        &["deceptive_path"],
    ),
    (
        "https://evil.com/@accounts.google.com/login",
        Flag,
        &["deceptive_path"],
    ),
    ("https://google.com\\@evil.com", Flag, &["deceptive_path"]),
    (
        "https://evil.com/%2F%2Fgoogle.com",
        Flag,
        &["deceptive_path"],
    ),
    (
        "https://evil.com/r?to=https://accounts.google.com@evil.net/",
        Flag,
        &["deceptive_path"],
    ),
    (
        "https://evil.com/r?next=https%3A%2F%2Fgoogle.com%40evil.net",
        Flag,
        &["deceptive_path"],
    ),
    (
        "https://evil.com/r?next=//google.com",
        Flag,
        &["deceptive_path"],
    ),
    (
        "https://evil.com/#x=https://google.com@evil.net",
        Flag,
        &["deceptive_path"],
    ),
    // Several at once.
    (
        "http://admin:pw@192.168.0.1:8080//x",
        Refuse,
        &[
            "credentials",
            "private_address",
            "plain_http",
            "non_default_port",
            "deceptive_path",
        ],
    ),
];

#[test]
fn hostile_links_get_their_exact_verdict_and_reasons() {
    assert!(HOSTILE.len() >= 60, "only {} hostile links", HOSTILE.len());
    assert_table(&UrlPolicy::default(), HOSTILE);
}

#[test]
fn long_and_oversized_links() {
    let long = format!("https://example.com/{}", "a".repeat(2100));
    let check = strict(&long);
    assert_eq!((check.verdict, codes(&check)), (Flag, vec!["long_url"]));

    let exactly = format!("https://example.com/{}", "a".repeat(2048 - 20));
    assert_eq!(exactly.len(), 2048);
    assert_eq!(strict(&exactly).verdict, Allow);

    let huge = format!("https://example.com/{}", "a".repeat(70_000));
    let check = strict(&huge);
    assert_eq!((check.verdict, codes(&check)), (Refuse, vec!["oversized"]));
    assert_eq!(check.display, None);
}

// ---------------------------------------------------------------------------------------------
// Good links
// ---------------------------------------------------------------------------------------------

const GOOD: &[(&str, Verdict, &[&str])] = &[
    (
        "https://github.com/login/oauth/authorize?client_id=x",
        Allow,
        &[],
    ),
    ("https://mcp.example.com/ui/set_api_key", Allow, &[]),
    ("https://accounts.google.com/o/oauth2/v2/auth", Allow, &[]),
    (
        "https://accounts.google.com/o/oauth2/v2/auth?client_id=1&redirect_uri=https%3A%2F%2Fapp.\
         example.com%2Fcallback&response_type=code&scope=openid%20email&state=xyz",
        Allow,
        &[],
    ),
    (
        "https://github.com/login/oauth/authorize?redirect_uri=https://app.example.com/cb",
        Allow,
        &[],
    ),
    (
        "https://checkout.stripe.com/c/pay/cs_test_a1b2#fidkdWxOYHwnPyd1blpxYHZxWjA0",
        Allow,
        &[],
    ),
    ("https://mastodon.social/@gargron", Allow, &[]),
    ("HTTPS://EXAMPLE.COM:443/", Allow, &[]),
    ("https://foo.github.io/app", Allow, &[]),
    ("https://paypal.com.evil.com/", Allow, &[]),
    ("https://api.example.co.uk/v1?x=1", Allow, &[]),
    // International names are allowed, with both forms shown (an informational note), as a
    // browser shows them; only look-alikes and mixed scripts are flagged.
    ("https://bücher.de/", Allow, &["idn"]),
    ("https://münchen.de/", Allow, &["idn"]),
    ("https://färgbolaget.se/", Allow, &["idn"]),
    ("https://пример.рф/", Allow, &["idn"]),
    ("https://例え.jp/", Allow, &["idn"]),
    ("https://ソニーsony.jp/", Allow, &["idn"]),
    ("https://ελληνικά.gr/", Allow, &["idn"]),
    ("https://BÜCHER.de/", Allow, &["idn"]),
    ("https://xn--mnchen-3ya.de/", Allow, &["idn"]),
    ("https://col·legi.cat/", Allow, &["idn"]),
    ("https://ıstanbul.com.tr/", Allow, &["idn"]),
    // Letters that pass for Latin ones, under a suffix of their own script or country.
    ("https://ѕсоре.рф/", Allow, &["idn"]),
    ("https://ѕсоре.ru/", Allow, &["idn"]),
    ("https://ορο.gr/", Allow, &["idn"]),
    // A public address or another port is shown plainly, with an informational note.
    ("https://8.8.8.8/", Allow, &["ip_address_host"]),
    (
        "https://[2606:4700:4700::1111]/",
        Allow,
        &["ip_address_host"],
    ),
    ("https://example.com:8443/", Allow, &["non_default_port"]),
    // Surrounding ASCII whitespace is trimmed, as a browser does.
    (" https://example.com/ ", Allow, &[]),
    ("\thttps://example.com/\r\n", Allow, &[]),
    ("\u{0C} https://example.com/", Allow, &[]),
];

#[test]
fn good_links_are_allowed_with_informational_notes() {
    assert_table(&UrlPolicy::default(), GOOD);
}

// ---------------------------------------------------------------------------------------------
// Development origins and loopback
// ---------------------------------------------------------------------------------------------

#[test]
fn a_listed_dev_origin_is_allowed_at_exactly_that_origin() {
    assert_table(
        &dev_4000(),
        &[
            ("http://127.0.0.1:4000/x", Allow, &["development_origin"]),
            ("http://127.0.0.1:4000", Allow, &["development_origin"]),
            (
                "http://127.0.0.1:4001/",
                Refuse,
                &["loopback_address", "plain_http", "non_default_port"],
            ),
            (
                "https://127.0.0.1:4000/",
                Refuse,
                &["loopback_address", "non_default_port"],
            ),
            (
                "http://localhost:4000/",
                Refuse,
                &["localhost", "plain_http", "non_default_port"],
            ),
            (
                "http://2130706433:4000/x",
                Flag,
                &["unusual_host_notation", "development_origin"],
            ),
            (
                "http://u:p@127.0.0.1:4000/",
                Refuse,
                &["credentials", "development_origin"],
            ),
            ("http://example.com/", Refuse, &["plain_http"]),
        ],
    );
    // Not listed: the same link is refused.
    let check = strict("http://127.0.0.1:4000/x");
    assert_eq!(
        codes(&check),
        ["loopback_address", "plain_http", "non_default_port"]
    );
    // The informational reason says what it is.
    let check = check_url("http://127.0.0.1:4000/x", &dev_4000());
    assert_eq!(
        check.reasons[0].to_string(),
        "development origin: plain http on this machine"
    );
    assert_eq!(check.reasons[0].verdict(), Allow);
}

#[test]
fn allow_loopback_http_allows_loopback_hosts_only() {
    let policy = UrlPolicy {
        allow_loopback_http: true,
        ..UrlPolicy::default()
    };
    assert_table(
        &policy,
        &[
            (
                "http://localhost:3000/callback",
                Allow,
                &["loopback_allowed"],
            ),
            ("http://127.0.0.1:8080/", Allow, &["loopback_allowed"]),
            ("http://[::1]:8080/", Allow, &["loopback_allowed"]),
            ("https://localhost/", Allow, &["loopback_allowed"]),
            (
                "http://10.0.0.1:8080/",
                Refuse,
                &["private_address", "plain_http", "non_default_port"],
            ),
            ("http://example.com/", Refuse, &["plain_http"]),
            (
                "http://0.0.0.0:3000/",
                Refuse,
                &["unspecified_address", "plain_http", "non_default_port"],
            ),
            (
                "http://router.local/",
                Refuse,
                &["local_network_name", "plain_http"],
            ),
        ],
    );
}

#[test]
fn dev_origins_must_be_loopback_origins() {
    let origin = DevOrigin::parse("http://localhost:4000").unwrap();
    assert_eq!(
        (origin.scheme(), origin.host(), origin.port()),
        ("http", "localhost", 4000)
    );
    assert_eq!(origin.to_string(), "http://localhost:4000");
    assert_eq!(DevOrigin::parse("http://127.0.0.1").unwrap().port(), 80);
    assert_eq!(
        DevOrigin::parse("http://[::1]:5000/").unwrap().host(),
        "[::1]"
    );

    let err = |s: &str| DevOrigin::parse(s).unwrap_err().to_string();
    assert!(err("http://10.0.0.5:4000").contains("on this machine"));
    assert!(err("http://example.com:4000").contains("on this machine"));
    assert!(err("ftp://127.0.0.1:21").contains("http or https"));
    assert!(err("http://127.0.0.1:4000/path").contains("nothing more"));
    assert!(err("http://u@127.0.0.1:4000").contains("nothing more"));
    assert!(err("nonsense").contains("not a valid origin"));
}

// ---------------------------------------------------------------------------------------------
// Resolved addresses
// ---------------------------------------------------------------------------------------------

#[test]
fn a_public_name_resolving_to_a_forbidden_address_is_refused() {
    let check = strict("https://mcp.example.com/ui/set_api_key");
    assert_eq!(check.verdict, Allow);

    let resolved = check.with_resolved(&[ip("10.0.0.5")]);
    assert_eq!(
        (resolved.verdict, codes(&resolved)),
        (Refuse, vec!["private_address"])
    );
    assert_eq!(
        resolved.reasons[0].to_string(),
        "the name resolves to 10.0.0.5, which is a private network address (10.0.0.0/8)"
    );

    let resolved = check.with_resolved(&[ip("::ffff:127.0.0.1")]);
    assert_eq!(
        (resolved.verdict, codes(&resolved)),
        (Refuse, vec!["loopback_address"])
    );
    match &resolved.reasons[0] {
        Reason::ForbiddenAddress {
            class, resolved, ..
        } => {
            assert!(resolved);
            assert_eq!(
                class.embedded,
                Some((Embedding::Mapped, "127.0.0.1".parse().unwrap()))
            );
        }
        other => panic!("unexpected {other:?}"),
    }

    // One bad address among good ones is enough; repeats are reported once.
    let resolved = check.with_resolved(&[
        ip("93.184.216.34"),
        ip("169.254.169.254"),
        ip("169.254.169.254"),
        ip("2606:2800:220:1::1"),
    ]);
    assert_eq!(codes(&resolved), ["link_local_address"]);

    // Public addresses change nothing; no address at all refuses.
    assert_eq!(check.with_resolved(&[ip("93.184.216.34")]), check);
    assert_eq!(codes(&check.with_resolved(&[])), ["no_addresses"]);
}

#[test]
fn resolving_keeps_earlier_reasons_and_the_display() {
    let check = strict("https://example.com:8443/x");
    let resolved = check.with_resolved(&[ip("192.168.0.10")]);
    assert_eq!(codes(&resolved), ["non_default_port", "private_address"]);
    assert_eq!(resolved.display, check.display);
}

#[test]
fn loopback_resolution_is_expected_only_for_an_allowed_loopback_host() {
    let dev = UrlPolicy {
        dev_origins: vec![DevOrigin::parse("http://localhost:4000").unwrap()],
        ..UrlPolicy::default()
    };
    let check = check_url("http://localhost:4000/x", &dev);
    assert_eq!(check.verdict, Allow);
    let resolved = check.with_resolved(&[ip("127.0.0.1"), ip("::1")]);
    assert_eq!(
        (resolved.verdict, codes(&resolved)),
        (Allow, vec!["development_origin"])
    );
    // Still not anywhere else.
    assert_eq!(
        codes(&check.with_resolved(&[ip("10.1.1.1")])),
        ["development_origin", "private_address"]
    );

    // The development setting does not let a public name point at this machine (DNS rebinding).
    let loose = UrlPolicy {
        allow_loopback_http: true,
        ..UrlPolicy::default()
    };
    let check = check_url("https://rebind.example.com/", &loose);
    assert_eq!(check.verdict, Allow);
    let resolved = check.with_resolved(&[ip("127.0.0.1")]);
    assert_eq!(
        (resolved.verdict, codes(&resolved)),
        (Refuse, vec!["loopback_address"])
    );
}

// ---------------------------------------------------------------------------------------------
// Display
// ---------------------------------------------------------------------------------------------

#[test]
fn display_highlights_the_registrable_domain() {
    let check = strict("https://login.accounts.example.co.uk/x?y=1#z");
    let d = check.display.unwrap();
    assert_eq!(d.full, "https://login.accounts.example.co.uk/x?y=1#z");
    assert_eq!(d.scheme, "https");
    assert_eq!(d.host_unicode, "login.accounts.example.co.uk");
    assert_eq!(d.host_ascii, "login.accounts.example.co.uk");
    assert_eq!(d.registrable_domain.as_deref(), Some("example.co.uk"));
    assert_eq!(d.registrable_domain_ascii.as_deref(), Some("example.co.uk"));
    assert_eq!(d.host_prefix, "login.accounts.");
    assert_eq!(d.host_suffix, "");
    assert_eq!(d.port, None);
    assert_eq!(d.path_and_query, "/x?y=1");
    assert_eq!(d.fragment.as_deref(), Some("z"));
}

#[test]
fn display_shows_both_forms_of_a_lookalike_name() {
    let check = strict("https://аpple.com");
    assert_eq!(
        (check.verdict, codes(&check)),
        (Flag, vec!["idn", "mixed_scripts"])
    );
    let d = check.display.as_ref().unwrap();
    assert_eq!(d.full, "https://xn--pple-43d.com/");
    assert_eq!(d.host_ascii, "xn--pple-43d.com");
    assert_eq!(d.host_unicode, "аpple.com");
    assert_eq!(d.registrable_domain.as_deref(), Some("аpple.com"));
    assert_eq!(
        d.registrable_domain_ascii.as_deref(),
        Some("xn--pple-43d.com")
    );
    assert_eq!(d.host_prefix, "");
    assert_eq!(
        check.reasons[0].to_string(),
        "the host contains international characters: аpple.com is also written xn--pple-43d.com"
    );
    assert_eq!(
        check.reasons[1].to_string(),
        "\"аpple\" mixes Latin and Cyrillic letters, as names that imitate another one do"
    );
}

#[test]
fn display_of_international_suffixes_trailing_dots_ports_and_addresses() {
    let d = strict("https://www.пример.рф/путь").display.unwrap();
    assert_eq!(d.host_unicode, "www.пример.рф");
    assert_eq!(d.host_ascii, "www.xn--e1afmkfd.xn--p1ai");
    assert_eq!(d.registrable_domain.as_deref(), Some("пример.рф"));
    assert_eq!(
        d.registrable_domain_ascii.as_deref(),
        Some("xn--e1afmkfd.xn--p1ai")
    );
    assert_eq!(d.host_prefix, "www.");
    assert_eq!(d.path_and_query, "/%D0%BF%D1%83%D1%82%D1%8C");

    let d = strict("https://www.example.com./").display.unwrap();
    assert_eq!(d.registrable_domain.as_deref(), Some("example.com"));
    assert_eq!(
        (d.host_prefix.as_str(), d.host_suffix.as_str()),
        ("www.", ".")
    );

    let d = strict("https://foo.bar.github.io:8443/").display.unwrap();
    assert_eq!(d.registrable_domain.as_deref(), Some("bar.github.io"));
    assert_eq!(d.port, Some(8443));

    let d = strict("https://[::1]:8443/").display.unwrap();
    assert_eq!(
        (d.host_ascii.as_str(), d.host_unicode.as_str()),
        ("[::1]", "[::1]")
    );
    assert_eq!(
        (d.registrable_domain, d.host_prefix.as_str()),
        (None, "[::1]")
    );

    let d = strict("https://co.uk/").display.unwrap();
    assert_eq!(
        (d.registrable_domain, d.host_prefix.as_str()),
        (None, "co.uk")
    );

    // Refused schemes keep a display when they have a host, none when they do not.
    assert!(strict("ftp://example.com/").display.is_some());
    assert!(strict("javascript:alert(1)").display.is_none());
    assert!(strict("nonsense").display.is_none());
}

#[test]
fn display_parts_always_rebuild_the_host() {
    for url in [
        "https://a.b.example.co.uk./",
        "https://аpple.com/",
        "https://www.пример.рф/",
        "https://例え.jp/",
        "https://8.8.8.8/",
        "https://example.invalidtld/",
        "https://github.io/",
    ] {
        let d = strict(url).display.unwrap();
        let rebuilt = format!(
            "{}{}{}",
            d.host_prefix,
            d.registrable_domain.as_deref().unwrap_or(""),
            d.host_suffix
        );
        assert_eq!(rebuilt, d.host_unicode, "{url}");
    }
}

#[test]
fn json_shape_is_stable() {
    let check = strict("https://user@example.com:8443/x");
    let value = serde_json::to_value(&check).unwrap();
    assert_eq!(
        value,
        json!({
            "verdict": "refuse",
            "reasons": [
                {"code": "credentials",
                 "message": "the link contains a user name or password before the host",
                 "verdict": "refuse"},
                {"code": "non_default_port",
                 "message": "the link names port 8443, not the usual 443",
                 "verdict": "allow"},
            ],
            "display": {
                "full": "https://user@example.com:8443/x",
                "scheme": "https",
                "host_unicode": "example.com",
                "host_ascii": "example.com",
                "registrable_domain": "example.com",
                "registrable_domain_ascii": "example.com",
                "host_prefix": "",
                "host_suffix": "",
                "port": 8443,
                "path_and_query": "/x",
                "fragment": null,
            }
        })
    );
    let value = serde_json::to_value(strict("javascript:alert(1)")).unwrap();
    assert_eq!(value["display"], json!(null));
    assert_eq!(value["verdict"], json!("refuse"));
}

// ---------------------------------------------------------------------------------------------
// Messages and ranges
// ---------------------------------------------------------------------------------------------

#[test]
fn messages_say_what_is_wrong_in_plain_words() {
    let message = |url: &str| strict(url).reasons[0].to_string();
    assert_eq!(
        message("https://10.1.2.3/"),
        "the address 10.1.2.3 is a private network address (10.0.0.0/8)"
    );
    assert_eq!(
        message("https://[::ffff:c0a8:1]/"),
        "the address ::ffff:192.168.0.1 carries the IPv4 address 192.168.0.1 (IPv4-mapped), \
         which is a private network address (192.168.0.0/16)"
    );
    assert_eq!(
        message("javascript:alert(1)"),
        "the link is a \"javascript:\" link, which runs code instead of opening a page; only \
         https links can be opened"
    );
    assert_eq!(
        message("https://0x7f.1/"),
        "the host is written as \"0x7f.1\", an unusual way to write 127.0.0.1"
    );
    assert_eq!(
        message("https://аррӏе.com/x"),
        "the host contains international characters: аррӏе.com is also written \
         xn--80ak6aa92e.com"
    );
    assert_eq!(
        strict("https://аррӏе.com/x").reasons[1].to_string(),
        "every letter of \"аррӏе\" is a Cyrillic letter that looks like a Latin one"
    );
    assert_eq!(
        message("http://example.com/"),
        "the link uses plain http, which is not encrypted; only https links can be opened"
    );
    assert_eq!(
        message("https://8.8.8.8/"),
        "the link leads to the IP address 8.8.8.8 rather than to a name"
    );
    assert_eq!(
        message("https://example.onion/"),
        "the host \"example.onion\" is a Tor onion service, which a browser cannot open"
    );
    assert_eq!(
        message("https://1.0.0.127.in-addr.arpa/"),
        "the host \"1.0.0.127.in-addr.arpa\" is under .arpa, which is kept for the \
         internet's own infrastructure, not for web pages"
    );
    assert_eq!(
        message("https://site.test/"),
        "the host \"site.test\" is under .test, a name set aside that no public site uses"
    );
    assert_eq!(
        strict("https://ɡoogle.com/").reasons[1].to_string(),
        "\"ɡoogle\" contains a character names rarely use, which can pass for another or \
         hide: ɡ (U+0261)"
    );
    assert_eq!(
        strict("https://ex\u{0301}\u{0301}ample.com/").reasons[1].to_string(),
        "\"ex\u{0301}\u{0301}ample\" contains a character names rarely use, which can pass \
         for another or hide: \u{0301} (U+0301) twice in a row"
    );
}

/// Thousands of look-alike labels make a handful of warnings, not thousands.
#[test]
fn many_lookalike_labels_make_a_few_warnings() {
    let url = format!("https://{}.com/", vec!["аpple"; 5_000].join("."));
    let check = strict(&url);
    assert_eq!(check.verdict, Flag);
    let codes = codes(&check);
    assert_eq!(codes.len(), 1 + 8 + 1, "{codes:?}");
    assert_eq!(codes[0], "idn");
    assert!(
        codes[1..9].iter().all(|c| *c == "mixed_scripts"),
        "{codes:?}"
    );
    assert_eq!(codes[9], "long_url");
}

/// A path of 32 000 `@` signs, none before a dotted name: judged in one pass over it (each `@`
/// used to be followed by a scan to the end of the text: 500 million steps here).
#[test]
fn a_path_full_of_at_signs_is_judged_in_one_pass() {
    let url = format!("https://example.com/{}", "@a".repeat(32_000));
    assert!(url.len() < 65_536);
    let check = strict(&url);
    assert_eq!((check.verdict, codes(&check)), (Flag, vec!["long_url"]));
    let url = format!("https://example.com/{}@b.example", "@a".repeat(32_000));
    assert_eq!(
        codes(&strict(&url)),
        ["long_url", "deceptive_path"],
        "the last one still counts"
    );
    let url = format!("https://example.com/?q={}", "%40a".repeat(16_000));
    assert_eq!(codes(&strict(&url)), ["long_url"]);
}

#[test]
fn every_reason_code_is_snake_case_and_verdicts_order() {
    assert!(Allow < Flag && Flag < Refuse);
    for (url, _, _) in HOSTILE.iter().chain(GOOD) {
        for reason in &strict(url).reasons {
            let code = reason.code();
            assert!(
                code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{code}"
            );
        }
    }
}

#[test]
fn range_edges() {
    let range = |s: &str| classify_ip(ip(s)).map(|c| c.range);
    assert_eq!(range("172.15.255.255"), None);
    assert_eq!(range("172.32.0.0"), None);
    assert_eq!(range("100.63.255.255"), None);
    assert_eq!(range("100.128.0.0"), None);
    assert_eq!(range("198.17.255.255"), None);
    assert_eq!(range("198.19.255.255"), Some(AddressRange::Benchmarking));
    assert_eq!(range("198.20.0.0"), None);
    assert_eq!(range("192.0.1.1"), None);
    assert_eq!(range("223.255.255.255"), None);
    assert_eq!(range("1.1.1.1"), None);
    assert_eq!(range("2001:200::1"), None);
    assert_eq!(range("2001:1ff::1"), Some(AddressRange::Reserved));
    assert_eq!(range("2002:0808:0808::1"), None);
    assert_eq!(range("2002:7f00:1::1"), Some(AddressRange::Loopback));
    assert_eq!(range("64:ff9b::8.8.8.8"), None);
    assert_eq!(range("64:ff9b::127.0.0.1"), Some(AddressRange::Loopback));
    assert_eq!(range("::ffff:8.8.8.8"), None);
    assert_eq!(range("3fff:1000::1"), None);
    assert_eq!(range("4000::1"), Some(AddressRange::Reserved));
    assert_eq!(range("febf::1"), Some(AddressRange::LinkLocal));
    assert_eq!(range("fe7f::1"), Some(AddressRange::Reserved));
    assert_eq!(
        classify_ipv4("127.255.0.1".parse().unwrap()).map(|c| c.block),
        Some("127.0.0.0/8")
    );
}
