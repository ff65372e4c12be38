//! **URL request**: a link the server controls, opened out of band for what must not pass
//! through the host (URL-mode elicitation in either era; a seed-000 `ua`).
//!
//! The link's life, in order:
//! 1. judged by the URL safety rules before it is shown ([`queue`]): a refused link is shown
//!    and refused to the server at once, never presented;
//! 2. the person consents; only then is the host name looked up ([`UrlEffect::Resolve`]) and
//!    judged again with its addresses ([`UrlPending::resolved`]);
//! 3. consent is replied and the link opened ([`Links::consent`]); the engine remembers it,
//!    to recognise a 2026-07-28 server asking again for the same link in the same call
//!    ([`UrlStage::Waiting`]) and to match a 2025-11-25 completion notification
//!    ([`Links::completed`]) or the person saying they are done ([`Links::done`]).

use std::sync::Arc;

use std::collections::VecDeque;
use std::net::IpAddr;

use interlude_schema::Content;

use super::{Acceptance, Kind};
use crate::audit::AuditEvent;
use crate::config::EngineConfig;
use crate::ids::{CallId, RequestId, ServerId};
use crate::io::{Effect, Reply, UrlEffect};
use crate::out::Out;
use crate::request::{Header, RequestKind, UrlRequest, UrlStage};
use crate::url_safety::{UrlCheck, UrlPolicy, Verdict, check_url};

/// How many consented links the engine remembers per host, to recognise a 2026-07-28 server
/// asking again for the same link in the same call, and to match completion notifications.
const LINKS_KEPT: usize = 1024;

/// A judged link waiting for the person's consent, then for its host name to be looked up:
/// what every kind that opens a link keeps (a URL request, a view link).
#[derive(Debug)]
pub(crate) struct Consent {
    url: String,
    check: UrlCheck,
    /// The person consented and the host name is being looked up.
    resolving: bool,
}

impl Consent {
    /// Judges `url` by the URL rules: the verdict, and the link to keep unless it is refused
    /// (then why, in a sentence).
    pub(crate) fn judge(url: String, policy: &UrlPolicy) -> (UrlCheck, Result<Consent, String>) {
        let check = check_url(&url, policy);
        if check.verdict == Verdict::Refuse {
            return (check.clone(), Err(refusal(&reasons(&check))));
        }
        let consent = Consent {
            url,
            check: check.clone(),
            resolving: false,
        };
        (check, Ok(consent))
    }

    /// The person accepted: look the host name up first (only now), or go on at once. Consent
    /// carries no content: whatever a surface sent along is dropped, never sent.
    pub(crate) fn accept(&mut self, resolve_links: bool) -> Accepted {
        if self.resolving {
            return Accepted::Ignored;
        }
        if resolve_links && let Some(host) = name_to_resolve(&self.check) {
            self.resolving = true;
            return Accepted::Resolve(host);
        }
        Accepted::Consent
    }

    /// The host name was looked up after consent: `Ok` to go on, or why the link is refused
    /// after all (a sentence for [`refusal`]); `None` when it was not being looked up (the input
    /// is ignored).
    pub(crate) fn resolved(&self, addresses: &[IpAddr]) -> Option<Result<(), String>> {
        if !self.resolving {
            return None;
        }
        if addresses.is_empty() {
            return Some(Err("its host name does not resolve".to_owned()));
        }
        let check = self.check.with_resolved(addresses);
        Some(if check.verdict == Verdict::Refuse {
            Err(reasons(&check))
        } else {
            Ok(())
        })
    }

    /// The link as it is to be opened (its checked form when it has one).
    pub(crate) fn to_open(&self) -> String {
        self.check
            .display
            .as_ref()
            .map_or_else(|| self.url.clone(), |d| d.full.clone())
    }
}

/// What a pending URL request keeps.
#[derive(Debug)]
pub(crate) struct UrlPending {
    consent: Consent,
    elicitation_id: Option<String>,
    call: Option<CallId>,
    stage: UrlStage,
}

/// What the person's acceptance of a pending link leads to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Accepted {
    /// Look the host name up first (only now that the person consented); the reply waits.
    Resolve(String),
    /// Consent: reply and open the link (a URL request's is remembered, [`Links::consent`]).
    Consent,
    /// The link was consented to earlier in this call: "done in the browser, go on".
    Done,
    /// Already being looked up: nothing to do.
    Ignored,
}

/// Admits a link (audited as received, judged by the URL rules): the request as surfaces see
/// it, and what the engine keeps — or, for a link the rules refuse, why (it is still shown, so
/// the person knows a server tried it, and refused to the server at once).
pub(crate) fn queue(
    header: &Header,
    message: String,
    url: String,
    elicitation_id: Option<String>,
    links: &Links,
    policy: &UrlPolicy,
    out: &mut Out,
) -> (RequestKind, Result<UrlPending, String>) {
    let again = header.call.is_some() && links.again(header.server, header.call, &url);
    let (check, consent) = Consent::judge(url.clone(), policy);
    out.received(
        header,
        &message,
        Arc::from([]),
        Some(audit_link(&check, &url)),
    );
    let stage = if again {
        UrlStage::Waiting
    } else {
        UrlStage::Consent
    };
    let kind = RequestKind::Url(Box::new(UrlRequest {
        message,
        url,
        elicitation_id: elicitation_id.clone(),
        check,
        stage,
    }));
    let pending = consent.map(|consent| UrlPending {
        consent,
        elicitation_id,
        call: header.call,
        stage,
    });
    (kind, pending)
}

/// The sentence a refused link is refused with.
pub(crate) fn refusal(why: &str) -> String {
    format!("the host refuses to open this link: {why}")
}

impl UrlPending {
    /// The person accepted: a link consented to earlier in this call means "done in the
    /// browser"; any other is consented to ([`Consent::accept`]).
    pub(crate) fn accept(&mut self, resolve_links: bool) -> Accepted {
        if self.stage == UrlStage::Waiting && !self.consent.resolving {
            return Accepted::Done;
        }
        self.consent.accept(resolve_links)
    }
}

impl Kind for UrlPending {
    /// Consent: the content a surface sent along is dropped, never sent.
    fn accepted(&mut self, _: Content, config: &EngineConfig) -> Acceptance {
        Acceptance::Link(self.accept(config.resolve_links))
    }

    fn consent(&self) -> Option<&Consent> {
        Some(&self.consent)
    }
}

/// A link the person consented to.
#[derive(Debug)]
struct ConsentedLink {
    id: RequestId,
    server: ServerId,
    server_name: Arc<str>,
    call: Option<CallId>,
    url: String,
    elicitation_id: Option<String>,
    /// The completion notification has not arrived yet.
    waiting: bool,
}

/// The links the person consented to, oldest first (at most [`LINKS_KEPT`]).
#[derive(Debug, Default)]
pub(crate) struct Links {
    consented: VecDeque<ConsentedLink>,
}

impl Links {
    /// The person consented to this link earlier in the same call.
    fn again(&self, server: ServerId, call: Option<CallId>, url: &str) -> bool {
        self.consented
            .iter()
            .any(|c| c.server == server && c.call == call && c.url == url)
    }

    /// The person consented to request `id`'s link and it passed every check: reply, open it,
    /// remember it.
    pub(crate) fn consent(
        &mut self,
        id: RequestId,
        server: ServerId,
        server_name: Arc<str>,
        url: UrlPending,
        out: &mut Out,
    ) {
        let open = url.consent.to_open();
        out.audit(id, &server_name, AuditEvent::Consented);
        out.reply(id, Reply::Consented);
        out.push(Effect::Url(UrlEffect::Open { id, url: open }));
        if self.consented.len() >= LINKS_KEPT {
            self.consented.pop_front();
        }
        self.consented.push_back(ConsentedLink {
            id,
            server,
            server_name,
            call: url.call,
            waiting: url.elicitation_id.is_some(),
            url: url.consent.url,
            elicitation_id: url.elicitation_id,
        });
    }

    /// Server `server` said its flow `elicitation_id` finished.
    pub(crate) fn completed(&mut self, server: ServerId, elicitation_id: &str, out: &mut Out) {
        let Some(link) = self.consented.iter_mut().find(|c| {
            c.waiting && c.server == server && c.elicitation_id.as_deref() == Some(elicitation_id)
        }) else {
            return;
        };
        link.waiting = false;
        let id = link.id;
        out.audit(id, &link.server_name, AuditEvent::Completed);
        out.push(Effect::Url(UrlEffect::Completed { id }));
    }

    /// The person says they are done with request `id`'s link.
    pub(crate) fn done(&mut self, id: RequestId, out: &mut Out) {
        let Some(link) = self.consented.iter_mut().find(|c| c.waiting && c.id == id) else {
            return;
        };
        link.waiting = false;
        out.audit(id, &link.server_name, AuditEvent::Done);
        out.push(Effect::Url(UrlEffect::Done { id }));
    }

    /// Server `server` is gone: its links are forgotten.
    pub(crate) fn forget_server(&mut self, server: ServerId) {
        self.consented.retain(|c| c.server != server);
    }
}

/// The reasons of a verdict, in one sentence.
fn reasons(check: &UrlCheck) -> String {
    let all: Vec<String> = check
        .reasons
        .iter()
        .filter(|r| r.verdict() == Verdict::Refuse)
        .map(ToString::to_string)
        .collect();
    if all.is_empty() {
        "it is not a link the host can open".to_owned()
    } else {
        all.join("; ")
    }
}

/// The host name to look up before opening, when the link names one (an address literal was
/// judged already).
fn name_to_resolve(check: &UrlCheck) -> Option<String> {
    let host = &check.display.as_ref()?.host_ascii;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<IpAddr>().is_ok() {
        None
    } else {
        Some(host.clone())
    }
}

/// What the audit log keeps of a link: scheme, host and path, not the query or fragment (a
/// server must not put secrets in a link, but a log must not keep one when it does).
pub(crate) fn audit_link(check: &UrlCheck, raw: &str) -> String {
    match &check.display {
        Some(d) => {
            let path = d
                .path_and_query
                .split(['?', '#'])
                .next()
                .unwrap_or_default();
            format!("{}://{}{}", d.scheme, d.host_ascii, path)
        }
        None => format!("(unparseable, {} characters)", raw.chars().count()),
    }
}
