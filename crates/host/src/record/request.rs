//! The record of one request for a person: what is asked ([`Request`]), where it stands
//! ([`RequestStatus`], shared by every kind), and what its kind has become since it was queued
//! ([`RequestState`], one variant per kind, changed only by that kind's transitions).

use std::sync::Arc;

use interlude_engine::{AppStage, Notice, Reply, Request, RequestKind, ServerId};
use interlude_schema::FieldError;

use crate::record::progress::CallProgress;

/// Where a request for a person stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestStatus {
    /// Waiting for its turn.
    Queued,
    /// Shown to the person now.
    Presented,
    /// Answered (or refused by the engine); this reply went to the server.
    Replied(Reply),
    /// Went away unanswered.
    Closed(Notice),
}

impl RequestStatus {
    /// Whether it still waits for the person.
    pub fn is_pending(&self) -> bool {
        matches!(self, RequestStatus::Queued | RequestStatus::Presented)
    }
}

/// One request for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    /// What is asked, by whom, for which call.
    pub request: Request,
    /// Where it stands.
    pub status: RequestStatus,
    /// The engine's complaints about the last answer given, if it was refused.
    pub errors: Vec<FieldError>,
    /// When it was admitted, in milliseconds since the Unix epoch.
    pub received_at_ms: u64,
    /// What its kind has become since it was queued.
    pub state: RequestState,
}

/// What a request's kind has become since it was queued: one state per kind of request, each
/// changed only by its own transitions. A change comes out as
/// [`HostEvent::RequestChanged`](crate::HostEvent::RequestChanged).
#[derive(Debug, Clone, PartialEq)]
pub enum RequestState {
    /// A form.
    Form {
        /// Its `requestedSchema` exactly as the server sent it (the form the person sees is the
        /// engine's reading of it), for server authors.
        requested_schema: Option<Arc<serde_json::Value>>,
    },
    /// A link.
    Url {
        /// What became of it after the person consented: handed to the person, then finished.
        link: Option<LinkState>,
        /// The server's last progress on its flow (a seed-000 `ua` the host tracks with
        /// `interaction/notify` after the person consented).
        progress: Option<CallProgress>,
    },
    /// A form shown in the server's app view. Whether it is shown there or as the plain form
    /// is its kind's [`AppStage`].
    AppForm {
        /// Its `requestedSchema` exactly as the server sent it.
        requested_schema: Option<Arc<serde_json::Value>>,
    },
    /// A link an app view asks to have opened.
    ViewLink {
        /// What became of it after the person consented: handed to the person to open.
        link: Option<LinkState>,
    },
    /// A model's reply for the person to write: nothing changes until it is answered.
    Sampling,
}

impl RequestState {
    /// The state a request of `kind` starts in.
    pub(crate) fn new(kind: &RequestKind) -> Self {
        match kind {
            RequestKind::Form(form) => RequestState::Form {
                requested_schema: Some(Arc::clone(&form.requested_schema)),
            },
            RequestKind::Url(_) => RequestState::Url {
                link: None,
                progress: None,
            },
            RequestKind::AppForm(app) => RequestState::AppForm {
                requested_schema: Some(Arc::clone(&app.form.requested_schema)),
            },
            RequestKind::ViewLink(_) => RequestState::ViewLink { link: None },
            RequestKind::Sampling(_) => RequestState::Sampling,
        }
    }
}

impl RequestRecord {
    /// A link's state after consent, for a URL request or a view link.
    pub fn link(&self) -> Option<&LinkState> {
        match &self.state {
            RequestState::Url { link, .. } | RequestState::ViewLink { link } => link.as_ref(),
            RequestState::Form { .. } | RequestState::AppForm { .. } | RequestState::Sampling => {
                None
            }
        }
    }

    /// The server's last progress on a URL request's flow.
    pub fn progress(&self) -> Option<&CallProgress> {
        match &self.state {
            RequestState::Url { progress, .. } => progress.as_ref(),
            _ => None,
        }
    }

    /// A form's `requestedSchema` exactly as the server sent it.
    pub fn requested_schema(&self) -> Option<&serde_json::Value> {
        match &self.state {
            RequestState::Form { requested_schema }
            | RequestState::AppForm { requested_schema } => requested_schema.as_deref(),
            RequestState::Url { .. } | RequestState::ViewLink { .. } | RequestState::Sampling => {
                None
            }
        }
    }

    /// Whether the host waits for the server's word that this URL request's flow finished (a
    /// 2025-11-25 link with an `elicitationId`, opened, not yet finished): the person may say
    /// they are done instead ([`Host::link_done`](crate::Host::link_done)). A 2026-07-28 link
    /// is never waited for this way: its server asks again, and the person answers that.
    pub fn awaits_link(&self) -> bool {
        matches!(self.link(), Some(LinkState::Opened { .. }))
            && matches!(&self.request.kind, RequestKind::Url(url) if url.elicitation_id.is_some())
    }

    /// Whether this is server `server`'s link whose flow is `elicitation_id`, opened and not
    /// finished.
    pub(crate) fn is_open_flow(&self, server: ServerId, elicitation_id: &str) -> bool {
        self.request.server == server
            && matches!(self.link(), Some(LinkState::Opened { .. }))
            && matches!(&self.request.kind, RequestKind::Url(url)
                if url.elicitation_id.as_deref() == Some(elicitation_id))
    }

    // ---- transitions, each of one kind; `false` when it does not apply -------------------

    /// An app form is shown as the plain form from now on, for `reason`.
    /// What the engine said of the view's last answer goes with the view: the fresh form
    /// starts with no complaint about what the person never typed.
    pub(crate) fn fall_back(&mut self, reason: String) -> bool {
        match &mut self.request.kind {
            RequestKind::AppForm(app) => {
                app.stage = AppStage::Form { reason };
                self.errors.clear();
                true
            }
            _ => false,
        }
    }

    /// A link passed every check after consent: it is for the person to open.
    pub(crate) fn link_opened(&mut self, url: String) -> bool {
        self.set_link(|_| Some(LinkState::Opened { url }))
    }

    /// The server said the link's flow finished (a notification may come after the call's
    /// end: the flow finished all the same).
    pub(crate) fn link_completed(&mut self) -> bool {
        self.set_link(|link| match link {
            Some(LinkState::Opened { url } | LinkState::Ended { url }) => {
                Some(LinkState::Completed { url: url.clone() })
            }
            _ => None,
        })
    }

    /// The person said they were done with the link before the server did.
    pub(crate) fn link_done(&mut self) -> bool {
        self.set_link(|link| match link {
            Some(LinkState::Opened { url } | LinkState::Ended { url }) => {
                Some(LinkState::Done { url: url.clone() })
            }
            _ => None,
        })
    }

    /// The link's call ended before its server said anything of the flow.
    pub(crate) fn link_ended(&mut self) -> bool {
        self.set_link(|link| match link {
            Some(LinkState::Opened { url }) => Some(LinkState::Ended { url: url.clone() }),
            _ => None,
        })
    }

    /// The server reported progress on the link's flow.
    pub(crate) fn link_progress(
        &mut self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> bool {
        match &mut self.state {
            RequestState::Url { progress: p, .. } => {
                *p = Some(CallProgress::after(p.as_ref(), progress, total, message));
                true
            }
            _ => false,
        }
    }

    /// Moves a link's state to what `next` makes of it; `false` (unchanged) when it makes
    /// nothing or this is not a link.
    fn set_link(&mut self, next: impl FnOnce(&Option<LinkState>) -> Option<LinkState>) -> bool {
        match &mut self.state {
            RequestState::Url { link, .. } | RequestState::ViewLink { link } => match next(link) {
                Some(state) => {
                    *link = Some(state);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }
}

/// What became of a URL request's link after the person consented to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    /// It passed every check and is for the person to open (the surface opens it in their own
    /// browser or shows it); the flow goes on there.
    Opened {
        /// The link, as it is to be opened.
        url: String,
    },
    /// The server said the flow finished.
    Completed {
        /// The link.
        url: String,
    },
    /// The person said they were done in the browser before the server said so (for a
    /// `-32042` link, the call is retried now).
    Done {
        /// The link.
        url: String,
    },
    /// Its call ended before the server said anything of the flow (2026-07-28 servers never
    /// do: the call going on is their word): nothing waits for it any more.
    Ended {
        /// The link.
        url: String,
    },
}
