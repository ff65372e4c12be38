//! The kinds of request for a person, one module each. A kind's module owns what is particular
//! to it: what it keeps while the request is pending, how it is admitted into the queue, what
//! the person's acceptance means, and its part of the inputs and effects (nested under
//! [`Input`](crate::io::Input) and [`Effect`](crate::io::Effect)). The core (`engine.rs`) keeps what all
//! kinds share — the inbox, rate limits, the audit, declines and cancels, withdrawal — and
//! dispatches to the kind.
//!
//! - [`form`]: a form to fill in;
//! - [`url`]: a link opened out of band, after consent;
//! - [`app_form`]: a form shown in the server's own app view (its answer is a form's);
//! - [`view_link`]: a link an app view asks to have opened (its consent is a URL request's);
//! - [`sampling`]: a model's reply, written by the person.
//!
//! Kinds sit below the core and beside each other: a kind never reaches into the inbox or
//! another kind; the core hands it what it needs.
//!
//! Each kind's pending state implements [`Kind`], the hooks the core calls from one place each,
//! without knowing which kind it holds: what the person's acceptance means
//! ([`Kind::accepted`]), the link it asks consent for ([`Kind::consent`]), and what is left to
//! do once the request ends ([`Kind::ended`]). [`PendingKind`] is the one match over kinds that
//! dispatches them; adding a kind adds an arm there, never one in the core.

pub(crate) mod app_form;
pub(crate) mod form;
pub(crate) mod sampling;
pub(crate) mod url;
pub(crate) mod view_link;

use std::sync::Arc;

use interlude_schema::{Content, FieldError};
use serde_json::Value;

use crate::audit::AuditEvent;
use crate::config::EngineConfig;
use crate::ids::{ServerId, ViewId};
use crate::inbox::FromServer;
use crate::io::Reply;
use url::Consent;
use view_link::Asker;

/// One pending request: whose it is, and what its kind keeps.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) server: ServerId,
    pub(crate) server_name: Arc<str>,
    pub(crate) kind: PendingKind,
}

impl FromServer for Pending {
    fn server(&self) -> ServerId {
        self.server
    }
}

/// What a pending request keeps, per kind.
#[derive(Debug)]
pub(crate) enum PendingKind {
    /// A form: its schema.
    Form(form::FormPending),
    /// A link: the link and its verdict, where consent stands.
    Url(Box<url::UrlPending>),
    /// A form in an app view: the form, and its binding to the view.
    AppForm(Box<app_form::AppFormPending>),
    /// A link an app view asks to have opened: the link, its consent, and the view's question.
    ViewLink(Box<view_link::ViewLinkPending>),
    /// A model's reply to write: nothing to keep (the answer's rules are the kind's).
    Sampling(sampling::SamplingPending),
}

impl PendingKind {
    /// The kind's hooks.
    fn hooks(&self) -> &dyn Kind {
        match self {
            PendingKind::Form(form) => form,
            PendingKind::Url(url) => &**url,
            PendingKind::AppForm(app) => &**app,
            PendingKind::ViewLink(link) => &**link,
            PendingKind::Sampling(sampling) => sampling,
        }
    }

    /// The kind's hooks, to change what it keeps.
    fn hooks_mut(&mut self) -> &mut dyn Kind {
        match self {
            PendingKind::Form(form) => form,
            PendingKind::Url(url) => &mut **url,
            PendingKind::AppForm(app) => &mut **app,
            PendingKind::ViewLink(link) => &mut **link,
            PendingKind::Sampling(sampling) => sampling,
        }
    }

    /// See [`Kind::accepted`].
    pub(crate) fn accepted(&mut self, content: Content, config: &EngineConfig) -> Acceptance {
        self.hooks_mut().accepted(content, config)
    }

    /// See [`Kind::consent`].
    pub(crate) fn consent(&self) -> Option<&Consent> {
        self.hooks().consent()
    }

    /// See [`Kind::ended`].
    pub(crate) fn ended<'a>(&self, ending: Ending<'a>) -> Aftermath<'a> {
        self.hooks().ended(ending)
    }
}

/// What a kind does of its own, called by the core without knowing the kind.
pub(crate) trait Kind {
    /// The person accepted, with `content`: the reply it makes, the rules it broke, or, for a
    /// link, what consent leads to.
    fn accepted(&mut self, content: Content, config: &EngineConfig) -> Acceptance;

    /// The link the person is asked to consent to, for a kind that opens one.
    fn consent(&self) -> Option<&Consent> {
        None
    }

    /// The request ended (it was removed from the inbox, its reply or closing already out):
    /// what is left to do beyond it. Most kinds hold nothing past their request.
    fn ended<'a>(&self, ending: Ending<'a>) -> Aftermath<'a> {
        let _ = ending;
        Aftermath::Nothing
    }
}

/// What the person's acceptance leads to.
#[derive(Debug)]
pub(crate) enum Acceptance {
    /// Reply this, and audit it so.
    Reply(Reply, AuditEvent),
    /// The answer broke these rules: nothing is sent.
    Invalid(Vec<FieldError>),
    /// Consent to a link: what it leads to.
    Link(url::Accepted),
}

/// How a request ended, as its kind hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending<'a> {
    /// The person answered: a reply, a decline (`declined`) or a cancel, from a surface or from
    /// the request's own view (`in_view`).
    Answered { declined: bool, in_view: bool },
    /// The person consented to its link, and the link is opened.
    Consented,
    /// It ended without the person's answer: withdrawn, its server gone, or its link refused
    /// after consent; `why` says which.
    Closed { why: &'a str },
}

/// What is left to do once a request ended, for the core to carry out (a kind never reaches
/// past its request itself).
#[derive(Debug, PartialEq)]
pub(crate) enum Aftermath<'a> {
    /// Nothing.
    Nothing,
    /// The app view that rendered the request is released; it hears `reason` (none when it
    /// answered itself).
    ReleaseView {
        view: ViewId,
        reason: Option<&'a str>,
    },
    /// The view that asked for the link hears how it ended.
    AnswerView {
        asker: Asker,
        reply: Result<Value, String>,
    },
}
