//! What a server requires before it answers a call, on one path: parsed from its error
//! ([`Required::of`]), counted against the call's tries ([`Tries::admit`]), presented to the
//! person and awaited (`Call::satisfy`), then the call is retried by `Call::drive`.
//! - **`-32042`** (2025-11-25 URL elicitation required, or the seed-003 draft's `-32604`): each
//!   listed link is presented as a URL request of the call, one at a time, and its completion
//!   awaited; new links may be asked a few times, the same links again end the call.
//! - **`-32003`** (the seed-000 User Interaction draft, when declared): the interaction is
//!   presented and its end awaited (`interaction::required`); the call is retried once.
//!
//! A new prerequisite is one more `Required` variant: its parse, its budget, how it is
//! presented.

use interlude_engine::{ElicitParams, Reply};
use interlude_protocol::ProtocolEra;
use interlude_protocol::interaction::INTERACTION_REQUIRED;
use interlude_protocol::url::{is_url_required, normalize_required};
use rmcp::model::ErrorData;
use serde_json::Value;

use super::Call;
use crate::hub::config::HostError;
use interlude_engine::Declared;

/// Most links one `-32042` error may ask the person to open.
const MAX_REQUIRED_URLS: usize = 8;

/// What a server requires before it answers a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Required {
    /// Links opened first (`-32042`, or the draft's `-32604`).
    Links,
    /// A seed-000 interaction first (`-32003`), when the host declared the draft.
    Interaction,
}

impl Required {
    /// What `error` requires, if it is a prerequisite this host handles.
    pub(super) fn of(error: &ErrorData, declare: Declared) -> Option<Required> {
        if is_url_required(error.code) {
            Some(Required::Links)
        } else if error.code == INTERACTION_REQUIRED
            && crate::session::interaction::declared(declare)
        {
            Some(Required::Interaction)
        } else {
            None
        }
    }
}

/// The prerequisites one call has met so far: each kind has a budget of its own.
#[derive(Debug, Default)]
pub(crate) struct Tries {
    /// `-32042` answers handled so far, and every link they listed.
    links: usize,
    links_seen: Vec<String>,
    /// `-32003` answers handled so far (the call is retried once).
    interactions: usize,
}

impl Tries {
    /// Counts one more `required` answer (`error`) against the call's budget: an error that
    /// ends the call when the server asks too often or for the same links again.
    pub(super) fn admit(
        &mut self,
        required: &Required,
        error: &ErrorData,
        server: &str,
    ) -> Result<(), HostError> {
        match required {
            Required::Links => {
                // The server may ask again (the person said done too early): new links are
                // presented again, a few times; the same links again end the call.
                self.links += 1;
                let links = required_links(error);
                let repeated =
                    !links.is_empty() && links.iter().all(|l| self.links_seen.contains(l));
                if self.links > MAX_URL_REQUIRED || repeated {
                    return Err(HostError::Refused {
                        server: server.to_owned(),
                        reason: format!(
                            "the call still needs a link opened ({}) after {} {}",
                            error.message,
                            self.links - 1,
                            if repeated {
                                "tries, and the server asks for the same link again"
                            } else {
                                "tries"
                            }
                        ),
                    });
                }
                self.links_seen.extend(links);
            }
            Required::Interaction => {
                self.interactions += 1;
                if self.interactions > 1 {
                    return Err(HostError::Refused {
                        server: server.to_owned(),
                        reason: "the call still needs an interaction (-32003) after one was \
                                 completed and the call retried"
                            .into(),
                    });
                }
            }
        }
        Ok(())
    }
}

impl Call<'_> {
    /// Presents what `required` asks for (from the server's `error`) and waits for it; the
    /// caller retries the call then.
    pub(super) async fn satisfy(
        &self,
        required: Required,
        error: &ErrorData,
    ) -> Result<(), HostError> {
        let call = self.id;
        match required {
            Required::Links => self.url_required(error).await,
            Required::Interaction => {
                let _paused = self.conn.inner.gate.pause();
                crate::session::interaction::required(
                    &self.conn.inner.shared,
                    self.conn.inner.id,
                    &self.conn.inner.name,
                    &self.conn.inner.peer,
                    call,
                    error,
                )
                .await
            }
        }
    }

    /// A `-32042` (URL elicitation required) answer to a call: presents each required link as a
    /// URL request of the call, one at a time, and waits (at most the configured `url_wait`,
    /// not counted against the call's timeout) for the server to say each flow finished.
    /// Returns the server's error unchanged when the data is malformed or the person does not
    /// consent to every link.
    async fn url_required(&self, error: &ErrorData) -> Result<(), HostError> {
        let call = self.id;
        let server = &self.conn.inner.info.name;
        let shared = &self.conn.inner.shared;
        let required = error
            .data
            .as_ref()
            .and_then(|d| d.get("elicitations"))
            .and_then(Value::as_array)
            .filter(|list| !list.is_empty())
            .ok_or_else(|| HostError::Refused {
                server: server.clone(),
                reason: format!(
                    "URL elicitation required ({}), but `error.data.elicitations` lists no links: {}",
                    error.code.0, error.message
                ),
            })?;
        let _paused = self.conn.inner.gate.pause();
        let mut waits = Vec::new();
        for elicitation in required.iter().take(MAX_REQUIRED_URLS) {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let reply = shared
                .request_tracked(
                    self.conn.inner.id,
                    &self.conn.inner.name,
                    ProtocolEra::Push,
                    ElicitParams::Json(normalize_required(elicitation.clone())),
                    Some(call),
                    Some(tx),
                )
                .await;
            match reply {
                Reply::Consented => waits.push(rx),
                Reply::Answered(answer) => {
                    let needed = format!("a link opened first ({})", error.message);
                    return Err(HostError::not_given(server, needed, &answer));
                }
                // A link's request is never answered with a model's reply.
                Reply::Error { message, .. } | Reply::Sampled { text: message, .. } => {
                    return Err(HostError::Refused {
                        server: server.clone(),
                        reason: format!(
                            "the call needs a link opened first ({}), and {message}",
                            error.message
                        ),
                    });
                }
            }
        }
        let all = futures::future::join_all(waits);
        if tokio::time::timeout(shared.config.url_wait, all)
            .await
            .is_err()
        {
            tracing::info!(%server, "no completion for every required link within {:?}; retrying anyway", shared.config.url_wait);
        }
        Ok(())
    }
}

/// How many `-32042` answers one call may get: each is presented, waited for and retried.
const MAX_URL_REQUIRED: usize = 3;

/// The links a `-32042` answer lists (`data.elicitations[].url`).
fn required_links(error: &ErrorData) -> Vec<String> {
    error
        .data
        .as_ref()
        .and_then(|d| d.get("elicitations"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|e| e.get("url").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
