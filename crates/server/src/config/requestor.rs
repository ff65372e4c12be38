//! [`Requestor`]: who asked for a task, so that only they reach it again (`tasks/get`,
//! `tasks/update`, `tasks/cancel`, `tasks/result`). [`Tasks`](crate::task::Tasks) binds each
//! task to the requestor of the call that created it, and keeps the binding in its store.

use std::sync::OnceLock;

use rmcp::service::{RequestContext, RoleServer};
use sha2::{Digest, Sha256};

use crate::url::UserId;

/// Who asked for a task: the session it was asked in, and the signed-in principal who asked,
/// as far as either is known. Two requestors are the same only when both parts are equal
/// (compared as a whole): a task created in one session is not another session's, even for
/// the same principal, and not another principal's in the same session.
///
/// - The session: on streamable HTTP the `Mcp-Session-Id` the server minted; on a
///   connection of its own (stdio, a pipe) initialized with 2025-era `initialize`, that
///   connection. Neither is kept as it is: a session is written as a SHA-256 digest of its id
///   (a session id lets whoever holds it speak in the session), and a connection as a digest
///   under a key drawn once per process, so no connection of a later process is ever taken for
///   it. A 2026-07-28 request stands alone: it has no session (no `Mcp-Session-Id`, no
///   `initialize`).
/// - The principal: the signed-in user the request was authenticated as. The toolkit has no
///   sign-in on MCP requests yet, so [`Requestor::of`] leaves it empty; a transport that
///   authenticates its requests adds it with [`Requestor::with_principal`].
///
/// Where both are empty ([`Requestor::nobody`]: 2026-07-28 over stateless HTTP without
/// sign-in) a task is bound to nobody, and its id — random, 122 bits — is the only thing that
/// reaches it.
///
/// ```
/// use interlude_server::task::Requestor;
/// use interlude_server::url::UserId;
///
/// let ada = Requestor::nobody().with_principal(UserId::new("ada"));
/// assert_ne!(ada, Requestor::nobody());
/// assert_eq!(ada, Requestor::nobody().with_principal(UserId::new("ada")));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Requestor {
    /// `session:<digest>` or `connection:<digest>`.
    session: Option<String>,
    principal: Option<UserId>,
}

impl Requestor {
    /// No session and no principal: what a 2026-07-28 request over stateless HTTP without
    /// sign-in is.
    pub fn nobody() -> Self {
        Requestor::default()
    }

    /// The requestor of the request served with `context`: its streamable HTTP session, else
    /// its 2025-era connection (see the type's documentation); no principal yet.
    pub fn of(context: &RequestContext<RoleServer>) -> Self {
        let http = context.extensions.get::<http::request::Parts>();
        let session = match http {
            Some(parts) => parts
                .headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(|id| format!("session:{}", digest(b"session", id.as_bytes()))),
            // A connection of its own: it is one requestor for as long as it lasts. Its
            // `initialize` params stay the same allocation for that long.
            None => context.peer.peer_info().map(|info| {
                let at = std::sync::Arc::as_ptr(&info) as usize;
                let mut keyed = process_key().to_vec();
                keyed.extend_from_slice(&at.to_le_bytes());
                format!("connection:{}", digest(b"connection", &keyed))
            }),
        };
        Requestor {
            session,
            principal: None,
        }
    }

    /// This requestor, signed in as `principal`.
    #[must_use]
    pub fn with_principal(mut self, principal: UserId) -> Self {
        self.principal = Some(principal);
        self
    }

    /// The signed-in principal, if any.
    pub fn principal(&self) -> Option<&UserId> {
        self.principal.as_ref()
    }

    /// Whether there is neither a session nor a principal: the task's id is then its only
    /// capability.
    pub fn is_nobody(&self) -> bool {
        self.session.is_none() && self.principal.is_none()
    }

    /// The requestor as a store writes it (digests and the principal's id, nothing secret).
    pub(crate) fn to_stored(&self) -> String {
        serde_json::json!({
            "session": self.session,
            "principal": self.principal.as_ref().map(UserId::as_str),
        })
        .to_string()
    }

    /// What [`Requestor::to_stored`] wrote, or None when it is not that.
    pub(crate) fn from_stored(text: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        let part = |name: &str| match value.get(name)? {
            serde_json::Value::String(s) => Some(Some(s.clone())),
            serde_json::Value::Null => Some(None),
            _ => None,
        };
        Some(Requestor {
            session: part("session")?,
            principal: part("principal")?.map(UserId::new),
        })
    }
}

/// SHA-256 of `what`, then `bytes`, base64url.
fn digest(what: &[u8], bytes: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(b"interlude/task-requestor/");
    hash.update(what);
    hash.update([0]);
    hash.update(bytes);
    crate::url::store::base64url(&hash.finalize())
}

/// Drawn once per process: a connection's digest is never one of another process's.
fn process_key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        use rand::RngCore as _;
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        key
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_requestor_is_kept_as_it_was() {
        let requestors = [
            Requestor::nobody(),
            Requestor::nobody().with_principal(UserId::new("ada")),
            Requestor {
                session: Some("session:abc".to_owned()),
                principal: None,
            },
            Requestor {
                session: Some("connection:def".to_owned()),
                principal: Some(UserId::new("bob")),
            },
        ];
        for requestor in requestors {
            assert_eq!(
                Requestor::from_stored(&requestor.to_stored()),
                Some(requestor)
            );
        }
        assert_eq!(Requestor::from_stored("not json"), None);
        assert_eq!(Requestor::from_stored("{\"session\": 3}"), None);
    }
}
