//! How long `check_url` takes per link, without DNS: a mixed list of good, flagged and refused
//! links, checked many times. Prints the median of 5 runs in ns per link and whether it is under
//! the 10 µs target.
//!
//! `cargo bench -p interlude-engine --bench url_check`
// A bench reports by printing, and fails by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::hint::black_box;
use std::time::Instant;

use interlude_engine::url_safety::Verdict;
use interlude_engine::{DevOrigin, UrlPolicy, check_url};

const URLS: [&str; 20] = [
    "https://github.com/login/oauth/authorize?client_id=x&scope=repo&state=abc123",
    "https://mcp.example.com/ui/set_api_key",
    "https://accounts.google.com/o/oauth2/v2/auth?client_id=1&redirect_uri=https%3A%2F%2Fapp.\
     example.com%2Fcallback&response_type=code&scope=openid%20email",
    "https://checkout.stripe.com/c/pay/cs_test_a1b2c3#fidkdWxOYHwnPyd1blpxYHZxWjA0",
    "https://login.accounts.example.co.uk/x",
    "https://bücher.de/",
    "https://аpple.com/",
    "https://www.пример.рф/путь",
    "https://foo.bar.github.io:8443/",
    "http://127.0.0.1:4000/demo/card",
    "http://127.0.0.1:4001/",
    "https://2130706433/",
    "https://[::ffff:127.0.0.1]/",
    "https://169.254.169.254/latest/meta-data/",
    "https://user:pass@example.com/",
    "javascript:alert(1)",
    "https://router.local/",
    "https://evil.com/r?next=https%3A%2F%2Fgoogle.com%40evil.net",
    "https://co.uk/",
    "not a url",
];

const ROUNDS: usize = 12_000;
const RUNS: usize = 5;
const TARGET_NS: f64 = 10_000.0;

fn main() {
    let policy = UrlPolicy {
        dev_origins: vec![DevOrigin::loopback_http(4000)],
        ..UrlPolicy::default()
    };
    // Every kind of verdict is in the mix.
    for verdict in [Verdict::Allow, Verdict::Flag, Verdict::Refuse] {
        assert!(
            URLS.iter()
                .any(|u| check_url(u, &policy).verdict == verdict)
        );
    }

    for _ in 0..ROUNDS / 10 {
        for url in URLS {
            black_box(check_url(black_box(url), &policy));
        }
    }

    // An array, so the median and extremes below are indexed at known positions.
    let mut per_url = [0.0_f64; RUNS];
    for run in &mut per_url {
        let start = Instant::now();
        for _ in 0..ROUNDS {
            for url in URLS {
                black_box(check_url(black_box(url), &policy));
            }
        }
        *run = start.elapsed().as_nanos() as f64 / (ROUNDS * URLS.len()) as f64;
    }
    per_url.sort_by(f64::total_cmp);
    let median = per_url[RUNS / 2];

    // The slowest single link, for the record.
    let (slowest, slowest_ns) = URLS
        .iter()
        .map(|url| {
            let start = Instant::now();
            for _ in 0..ROUNDS / 4 {
                black_box(check_url(black_box(url), &policy));
            }
            (url, start.elapsed().as_nanos() as f64 / (ROUNDS / 4) as f64)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();

    println!(
        "url_check: {} checks per run, {RUNS} runs: median {median:.0} ns per URL \
         (runs {:.0}..{:.0} ns)",
        ROUNDS * URLS.len(),
        per_url[0],
        per_url[RUNS - 1]
    );
    println!("url_check: slowest link {slowest_ns:.0} ns: {slowest}");
    println!(
        "url_check: target 10 µs per URL: {}",
        if median < TARGET_NS { "met" } else { "MISSED" }
    );
}
