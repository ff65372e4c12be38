//! `interlude_engine::check_url`: the URL safety rules on arbitrary links and policies.
//!
//! What must hold: a link that is not refused has a display form; the check of the same link
//! under the same policy gives the same verdict; adding resolved addresses never turns a
//! refusal into an acceptance; the display splits the host exactly (`host_prefix +
//! registrable_domain + host_suffix == host_unicode`, as `UrlDisplay` documents).
#![no_main]

use std::net::IpAddr;

use arbitrary::{Arbitrary, Unstructured};
use interlude_engine::url_safety::Verdict;
use interlude_engine::{DevOrigin, UrlPolicy, check_url};
use interlude_fuzz::{Url, as_json, list};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[derive(Debug, Arbitrary)]
struct Case {
    url: Url,
    allow_loopback_http: bool,
    /// Development origins: parsed from text (most are refused) or the demo's own.
    origins: Vec<Origin>,
    resolved: Vec<IpAddr>,
}

#[derive(Debug, Arbitrary)]
enum Origin {
    Text(Url),
    Loopback(u16),
}

/// A seed: `{"url": "…", "allow_loopback_http": false, "origins": ["http://127.0.0.1:4000"],
/// "resolved": ["10.0.0.1"]}`.
fn from_json(v: &Value) -> Case {
    Case {
        url: Url(v
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()),
        allow_loopback_http: v.get("allow_loopback_http") == Some(&Value::Bool(true)),
        origins: list(v, "origins")
            .iter()
            .filter_map(Value::as_str)
            .map(|o| Origin::Text(Url(o.to_owned())))
            .collect(),
        resolved: list(v, "resolved")
            .iter()
            .filter_map(Value::as_str)
            .filter_map(|a| a.parse().ok())
            .collect(),
    }
}

fuzz_target!(|data: &[u8]| {
    let case = match as_json(data) {
        Some(v) => from_json(&v),
        None => match Case::arbitrary_take_rest(Unstructured::new(data)) {
            Ok(case) => case,
            Err(_) => return,
        },
    };
    check(case);
});

fn check(case: Case) {
    let mut policy = UrlPolicy {
        allow_loopback_http: case.allow_loopback_http,
        dev_origins: Vec::new(),
    };
    for o in case.origins.into_iter().take(4) {
        match o {
            Origin::Text(t) => {
                if let Ok(origin) = DevOrigin::parse(&t.0) {
                    // What parsed prints as an origin that parses to itself.
                    let again = DevOrigin::parse(&origin.to_string());
                    assert_eq!(again.as_ref(), Ok(&origin), "{origin} does not parse back");
                    policy.dev_origins.push(origin);
                }
            }
            Origin::Loopback(port) => policy.dev_origins.push(DevOrigin::loopback_http(port)),
        }
    }
    let check = check_url(&case.url.0, &policy);
    let _ = check.codes().count();
    if check.verdict != Verdict::Refuse {
        assert!(
            check.display.is_some(),
            "an accepted link has no display form: {:?}",
            case.url.0
        );
    }
    if let Some(d) = &check.display {
        let joined = format!(
            "{}{}{}",
            d.host_prefix,
            d.registrable_domain.as_deref().unwrap_or_default(),
            d.host_suffix
        );
        assert_eq!(
            joined, d.host_unicode,
            "the display splits the host wrongly"
        );
    }
    let again = check_url(&case.url.0, &policy);
    assert_eq!(again.verdict, check.verdict, "two checks disagree");
    let resolved = check.with_resolved(&case.resolved);
    if check.verdict == Verdict::Refuse {
        assert_eq!(
            resolved.verdict,
            Verdict::Refuse,
            "addresses turned a refusal into an acceptance"
        );
    }
    let _ = resolved.codes().count();
}
