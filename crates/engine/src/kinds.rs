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

pub(crate) mod app_form;
pub(crate) mod form;
pub(crate) mod sampling;
pub(crate) mod url;
pub(crate) mod view_link;

use std::sync::Arc;

use crate::ids::ServerId;
use crate::inbox::FromServer;

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
    Sampling,
}
