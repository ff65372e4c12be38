//! **View link**: a link an app view asks the host to open (`ui/open-link`). The view asks, not
//! its server, and nothing waits on a flow: the link is judged by the same URL rules and opened
//! only after the same consent as a URL request's ([`Consent`]), and the view hears how it ended
//! — `{}` once the link was handed to the person, an error naming why otherwise (declined,
//! cancelled, refused by the rules, withdrawn).

use interlude_schema::Content;
use serde_json::{Value, json};

use super::url::{Consent, audit_link};
use super::{Acceptance, Aftermath, Ending, Kind};
use crate::config::EngineConfig;
use crate::ids::ViewId;
use crate::out::Out;
use crate::request::{Header, RequestKind, ViewLinkRequest};
use crate::url_safety::UrlPolicy;

/// What a pending view link keeps: the link and its consent, and the view's question to answer.
#[derive(Debug)]
pub(crate) struct ViewLinkPending {
    consent: Consent,
    view: ViewId,
    question: u64,
}

/// The view that asks, and its question: whom the end of a view link is told to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Asker {
    pub(crate) view: ViewId,
    pub(crate) question: u64,
}

/// Admits a view link (audited as received, judged by the URL rules): the request as surfaces
/// see it, and what the engine keeps — or, for a link the rules refuse, why (it is still shown,
/// so the person knows the view tried it, and the view is answered at once).
pub(crate) fn queue(
    header: &Header,
    url: String,
    asker: Asker,
    policy: &UrlPolicy,
    out: &mut Out,
) -> (RequestKind, Result<ViewLinkPending, String>) {
    let message = format!(
        "The app of \"{}\" asks you to open a link.",
        header.server_name
    );
    let (check, consent) = Consent::judge(url.clone(), policy);
    out.received(
        header,
        &message,
        std::sync::Arc::from([]),
        Some(audit_link(&check, &url)),
    );
    let kind = RequestKind::ViewLink(Box::new(ViewLinkRequest {
        message,
        url,
        check,
        view: asker.view,
    }));
    let pending = consent.map(|consent| ViewLinkPending {
        consent,
        view: asker.view,
        question: asker.question,
    });
    (kind, pending)
}

impl ViewLinkPending {
    /// Who asked.
    pub(crate) fn asker(&self) -> Asker {
        Asker {
            view: self.view,
            question: self.question,
        }
    }
}

impl Kind for ViewLinkPending {
    /// Consent: the content a surface sent along is dropped, never sent.
    fn accepted(&mut self, _: Content, config: &EngineConfig) -> Acceptance {
        Acceptance::Link(self.consent.accept(config.resolve_links))
    }

    fn consent(&self) -> Option<&Consent> {
        Some(&self.consent)
    }

    /// The view that asked hears how it ended.
    fn ended<'a>(&self, ending: Ending<'a>) -> Aftermath<'a> {
        let reply = match ending {
            Ending::Consented => opened(),
            Ending::Answered { declined, .. } => not_opened(if declined {
                "the person declined to open it"
            } else {
                "the person cancelled"
            }),
            Ending::Closed { why } => not_opened(why),
        };
        Aftermath::AnswerView {
            asker: self.asker(),
            reply,
        }
    }
}

/// The view's answer once its link was handed to the person.
fn opened() -> Result<Value, String> {
    Ok(json!({}))
}

/// The view's answer when its link was not opened, and why.
pub(crate) fn not_opened(why: &str) -> Result<Value, String> {
    Err(format!("the link was not opened: {why}"))
}
