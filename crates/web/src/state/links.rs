//! A link as a consent screen shows it: its parts (so the registrable domain stands out), the
//! URL safety verdict and its reasons, and where the person stands with it. Shared by URL
//! requests, view links (`requests.rs`) and the web pages app views embed (`views.rs`).
//!
//! Not here: judging a URL (the engine's `url_safety` does), opening one (the page does, after
//! the person's consent).

use interlude_host::{
    LinkState, UrlStage,
    url_safety::{UrlCheck, Verdict},
};
use serde::Serialize;

/// A URL request's link as a consent screen shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LinkEntry {
    /// The link exactly as it would be opened (or as sent, when it does not parse).
    full: String,
    scheme: Option<String>,
    /// The host in Unicode, split so the registrable domain can be picked out:
    /// `host_prefix` + `domain` + `host_suffix` (any may be empty).
    host_prefix: String,
    domain: String,
    host_suffix: String,
    /// The host in ASCII (punycode), when it differs from the Unicode form.
    host_ascii: Option<String>,
    port: Option<u16>,
    /// `allow`, `flag` or `refuse`.
    verdict: Verdict,
    reasons: Vec<ReasonEntry>,
    /// `consent` (not consented yet) or `waiting` (consented earlier in the same call).
    stage: LinkStage,
    /// After consent: `opened` (for the person to open), then `completed` (the server said so),
    /// `done` (the person said so) or `ended` (its call ended first).
    state: Option<LinkStateEntry>,
    /// The link to open, once the host let it through.
    open_url: Option<String>,
    /// The host waits for the server's word on it: the person may say they are done.
    awaited: bool,
}

/// Whether the person has consented to a URL request's link in its call yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum LinkStage {
    Consent,
    Waiting,
}

/// What became of a link after consent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum LinkStateEntry {
    Opened,
    Completed,
    Done,
    Ended,
}

#[derive(Debug, Clone, Serialize)]
struct ReasonEntry {
    code: String,
    message: String,
    verdict: Verdict,
}

pub(super) fn link_entry(
    raw: &str,
    check: &UrlCheck,
    stage: UrlStage,
    state: Option<&LinkState>,
    awaited: bool,
) -> LinkEntry {
    let display = check.display.as_ref();
    let (host_prefix, domain, host_suffix) = match display {
        Some(d) => match &d.registrable_domain {
            Some(rd) => (d.host_prefix.clone(), rd.clone(), d.host_suffix.clone()),
            None => (d.host_unicode.clone(), String::new(), String::new()),
        },
        None => (String::new(), String::new(), String::new()),
    };
    let (state, open_url) = match state {
        Some(LinkState::Opened { url }) => (Some(LinkStateEntry::Opened), Some(url.clone())),
        Some(LinkState::Completed { url }) => (Some(LinkStateEntry::Completed), Some(url.clone())),
        Some(LinkState::Done { url }) => (Some(LinkStateEntry::Done), Some(url.clone())),
        Some(LinkState::Ended { url }) => (Some(LinkStateEntry::Ended), Some(url.clone())),
        None => (None, None),
    };
    LinkEntry {
        full: display.map_or_else(|| raw.to_owned(), |d| d.full.clone()),
        scheme: display.map(|d| d.scheme.clone()),
        host_prefix,
        domain,
        host_suffix,
        host_ascii: display
            .filter(|d| d.host_ascii != d.host_unicode)
            .map(|d| d.host_ascii.clone()),
        port: display.and_then(|d| d.port),
        verdict: check.verdict,
        reasons: check
            .reasons
            .iter()
            .map(|r| ReasonEntry {
                code: r.code().to_owned(),
                message: r.to_string(),
                verdict: r.verdict(),
            })
            .collect(),
        stage: match stage {
            UrlStage::Consent => LinkStage::Consent,
            UrlStage::Waiting => LinkStage::Waiting,
        },
        state,
        open_url,
        awaited,
    }
}
