//! Audit records: what was asked, by whom, and what came of it, with sensitive values redacted.
//!
//! Redaction is by property name, by the one rule of [`crate::redact`](mod@crate::redact)
//! (password, secret, token, api key, code, card, ssn, pin, otp, …): elicitation forms must not
//! ask for secrets, which is exactly why a log must not keep one when a server does it anyway.
//!
//! What it does not do: keep the audit anywhere (the host holds the records it is handed).

use std::sync::Arc;

use serde::Serialize;

use interlude_schema::Content;

/// One audit entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRecord {
    /// Milliseconds, on the host's clock.
    pub at_ms: u64,
    /// The host's id of the request.
    pub request: u64,
    /// The requesting server's name (as the host knows it), shared with its requests.
    pub server: Arc<str>,
    /// What the server says it is (`serverInfo.title`, else its `name`): the engine does not
    /// know it; the host fills it in from its record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_title: Option<Arc<str>>,
    /// What happened.
    pub event: AuditEvent,
}

/// What happened to a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AuditEvent {
    /// A request arrived and was queued.
    Received {
        /// The protocol era it came in (`2025-11-25`…).
        era: &'static str,
        /// The method it came by: `elicitation/create`, or the seed-000 draft's
        /// `interaction/create`.
        method: &'static str,
        /// The message shown to the person.
        message: String,
        /// The property names asked for (none for a URL request), shared while a server asks
        /// with the same schema.
        fields: Arc<[String]>,
        /// A URL request's link: scheme, host and path only.
        #[serde(skip_serializing_if = "Option::is_none")]
        link: Option<String>,
    },
    /// A request was refused at admission.
    Refused {
        /// The reason sent back.
        reason: String,
    },
    /// The person accepted; values redacted where sensitive.
    Accepted {
        /// The content sent back, redacted.
        content: Content,
    },
    /// The person consented to open a URL request's link, and it passed every check.
    Consented,
    /// The person said they were done in the browser (a link consented to earlier in the call,
    /// or one whose completion the host was waiting for).
    Done,
    /// The server said the link's flow finished.
    Completed,
    /// The person declined.
    Declined,
    /// The person (or a policy) cancelled.
    Cancelled,
    /// An app-rendered form is shown as the plain form instead of in its view.
    FellBack {
        /// Why.
        reason: String,
    },
    /// The request was withdrawn before an answer (server gone, call ended).
    Withdrawn {
        /// Why.
        reason: String,
    },
}
