//! The durable state of URL-mode flows: [`FlowStore`] and its two implementations,
//! [`SqliteStore`] (a file; the default) and [`MemoryStore`] (a process's memory).
//!
//! A store keeps three things: flows (who started what, and how far it got), secrets (what a
//! flow obtained, keyed by user and name) and tasks ([`StoredTask`]: where each task of the
//! Tasks extension stands, so that its outcome outlives the process). It decides nothing about who may do what; the flow
//! service above it checks the person before it reads or moves anything. It does enforce what
//! must hold whatever the caller does: a flow moves only by compare-and-set, so it completes at
//! most once however many requests race; an expired flow never completes; a secret is only ever
//! read back under the user it was stored for.
//!
//! Times are milliseconds since the Unix epoch, passed in by the caller (`now_ms`), so tests
//! control the clock. A flow is expired from `expires_at_ms` on (`now_ms >= expires_at_ms`).
//! Stored times must fit in an `i64` (SQLite's integer): larger ones are refused on insert.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;

use rand::RngCore;
use serde_json::Value;

mod memory;
mod sealing;
mod sqlite;
mod task_record;

pub use memory::MemoryStore;
pub use sealing::{STORE_KEY_LEN, StoreKey};
pub use sqlite::SqliteStore;
pub use task_record::StoredTask;

/// How many random bytes a [`FlowId`] carries (128 bits).
const FLOW_ID_BYTES: usize = 16;
/// How many base64url characters spell them, without padding.
const FLOW_ID_LEN: usize = 22;

/// The id of one flow: 128 random bits, spelled as 22 characters of unpadded base64url
/// (`A–Z a–z 0–9 - _`), so it can stand in a URL path or query as it is.
///
/// It names a flow; it authorizes nothing. Whoever opens a flow's page must still be shown to be
/// the flow's [`UserId`].
///
/// ```
/// use interlude_server::url::FlowId;
///
/// let id = FlowId::new_random();
/// assert_eq!(id.as_str().len(), 22);
/// assert_eq!(FlowId::parse(id.as_str()), Ok(id));
/// assert!(FlowId::parse("../../etc/passwd").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowId(String);

impl FlowId {
    /// A fresh id from the thread's cryptographically secure generator.
    pub fn new_random() -> Self {
        let mut bytes = [0u8; FLOW_ID_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        FlowId(base64url(&bytes))
    }

    /// The id as it is written in a URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Reads an id that arrived from outside (a URL a hostile person may have edited).
    ///
    /// Accepts exactly what [`FlowId::new_random`] writes: 22 base64url characters whose last
    /// one carries no bits beyond the 128 (so one id has one spelling). Refuses everything else —
    /// padding, the `+` and `/` of standard base64, whitespace, non-ASCII — without echoing it.
    pub fn parse(text: &str) -> Result<Self, InvalidFlowId> {
        let bytes = text.as_bytes();
        if bytes.len() != FLOW_ID_LEN || !bytes.iter().all(|&b| sextet_value(b).is_some()) {
            return Err(InvalidFlowId);
        }
        // 22 characters hold 132 bits; the last character's low 4 bits must be zero.
        match bytes.last().and_then(|&b| sextet_value(b)) {
            Some(last) if last & 0b1111 == 0 => Ok(FlowId(text.to_owned())),
            _ => Err(InvalidFlowId),
        }
    }
}

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for FlowId {
    type Err = InvalidFlowId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FlowId::parse(s)
    }
}

/// A text that is not a [`FlowId`]. Deliberately says nothing about the text itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a flow id (expected 22 base64url characters)")]
pub struct InvalidFlowId;

/// `bytes` in unpadded base64url (RFC 4648 §5).
pub(crate) fn base64url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The bytes that unpadded base64url `text` spells, or None when it is not such text (padded,
/// or its last character carries bits beyond the last byte).
pub(crate) fn unbase64url(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .ok()
}

/// The 6-bit value of a base64url character, `None` for any other byte.
fn sextet_value(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    }
}

/// The identity the server trusts for a person: the `sub` of a verified OAuth token, or what the
/// server's own resolver answered. Never an MCP session id, which names a connection, not a
/// person.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(String);

impl UserId {
    /// The user known to the server as `id`.
    pub fn new(id: impl Into<String>) -> Self {
        UserId(id.into())
    }

    /// The id as the server knows it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How far a flow got. Every status but `Pending` is final for the flow service, though the store
/// itself only insists on compare-and-set ([`FlowStore::transition`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowStatus {
    /// Started; the person has not finished the page yet.
    Pending,
    /// The page did its work and stored its result.
    Completed,
    /// The person said no on the page.
    Declined,
    /// The page could not finish (the third party refused, a payment bounced…).
    Failed {
        /// Why, in words fit for the person and the logs (never a secret).
        reason: String,
    },
    /// Its time ran out before it finished.
    Expired,
}

impl FlowStatus {
    /// Whether `self` and `other` are the same variant (a `Failed` matches any `Failed`).
    pub fn same_variant(&self, other: &FlowStatus) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// Whether the flow is over (anything but `Pending`).
    pub fn is_finished(&self) -> bool {
        !matches!(self, FlowStatus::Pending)
    }

    /// The variant's name in lower case: `pending`, `completed`, `declined`, `failed`, `expired`.
    pub fn name(&self) -> &'static str {
        match self {
            FlowStatus::Pending => "pending",
            FlowStatus::Completed => "completed",
            FlowStatus::Declined => "declined",
            FlowStatus::Failed { .. } => "failed",
            FlowStatus::Expired => "expired",
        }
    }

    /// The failure reason, for `Failed`.
    fn reason(&self) -> Option<&str> {
        match self {
            FlowStatus::Failed { reason } => Some(reason),
            _ => None,
        }
    }
}

/// One URL-mode flow: a person sent to a page of the server, for one user, for one purpose.
///
/// Its `Debug` output leaves out `lookup` and `data`, which may hold an OAuth `state` or a PKCE
/// verifier.
#[derive(Clone, PartialEq, Eq)]
pub struct Flow {
    /// Its id, the part of the URL that names it.
    pub id: FlowId,
    /// The user who started it: the only one whose visit may complete it.
    pub user: UserId,
    /// What it is for, chosen by the server: `"api_key:openai"`, `"oauth:github"`, `"payment"`.
    pub kind: String,
    /// How far it got.
    pub status: FlowStatus,
    /// When it started (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// From when on it is expired and can no longer complete (ms since the Unix epoch).
    pub expires_at_ms: u64,
    /// The `elicitationId` of the 2025-11-25 URL-mode request that announced it, if any.
    pub elicitation_id: Option<String>,
    /// The MCP session to notify when it completes. Used to find a connection, never to
    /// authorize anything.
    pub session: Option<String>,
    /// A second unguessable key that finds the flow, unique among stored flows: for instance the
    /// OAuth `state` a provider sends back to the callback.
    pub lookup: Option<String>,
    /// Whatever the flow needs to remember between requests (the PKCE verifier, a payment
    /// reference); `null` when nothing.
    pub data: Value,
}

impl Flow {
    /// A new pending flow for `user` with a fresh random id, expiring `ttl_ms` after `now_ms`;
    /// no elicitation id, session, lookup key or data yet.
    pub fn new(user: UserId, kind: impl Into<String>, now_ms: u64, ttl_ms: u64) -> Self {
        Flow {
            id: FlowId::new_random(),
            user,
            kind: kind.into(),
            status: FlowStatus::Pending,
            created_at_ms: now_ms,
            expires_at_ms: now_ms.saturating_add(ttl_ms),
            elicitation_id: None,
            session: None,
            lookup: None,
            data: Value::Null,
        }
    }

    /// Whether its time is up at `now_ms` (`now_ms >= expires_at_ms`), whatever its status says.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_at_ms
    }
}

impl fmt::Debug for Flow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Flow")
            .field("id", &self.id)
            .field("user", &self.user)
            .field("kind", &self.kind)
            .field("status", &self.status)
            .field("created_at_ms", &self.created_at_ms)
            .field("expires_at_ms", &self.expires_at_ms)
            .field("elicitation_id", &self.elicitation_id)
            .field("session", &self.session)
            .field("lookup", &self.lookup.as_ref().map(|_| Redacted))
            .field("data", &Redacted)
            .finish()
    }
}

/// Shown in place of something that must not reach a log.
struct Redacted;

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A value a flow obtained for a user (an API key, an OAuth token): text or bytes.
///
/// `Debug` and `Display` show `Secret(***)`, never the content; [`Secret::expose`] reads it, so
/// every place that does is visible in the code.
///
/// ```
/// use interlude_server::url::Secret;
///
/// let key = Secret::from("sk-live-1234");
/// assert_eq!(format!("{key:?} {key}"), "Secret(***) Secret(***)");
/// assert_eq!(key.expose_str(), Some("sk-live-1234"));
/// ```
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl Secret {
    /// A secret holding `value` (a `String`, `&str`, `Vec<u8>`, `&[u8]`…).
    pub fn new(value: impl Into<Vec<u8>>) -> Self {
        Secret(value.into())
    }

    /// The content, as bytes.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }

    /// The content as text, when it is UTF-8 (always, for a secret made from a string).
    pub fn expose_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value.into_bytes())
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.as_bytes().to_vec())
    }
}

impl From<Vec<u8>> for Secret {
    fn from(value: Vec<u8>) -> Self {
        Secret(value)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Why a store operation failed. A store never panics on bad data; it says so here.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// [`FlowStore::insert_flow`]: a flow with this id is already stored.
    #[error("a flow with id {0} is already stored")]
    DuplicateId(FlowId),
    /// [`FlowStore::insert_flow`]: another stored flow already has this `lookup` key (not
    /// repeated here: it is a secret of sorts).
    #[error("another flow already has this lookup key")]
    DuplicateLookup,
    /// A time beyond what the store can keep (`i64::MAX` milliseconds).
    #[error("{what} = {value} ms is beyond what the store keeps ({} ms)", i64::MAX)]
    TimeOutOfRange {
        /// Which field.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// The store holds an entry it cannot read back (names the field, not its content).
    #[error("the flow store holds an unreadable entry: {0}")]
    Corrupt(String),
    /// The file was written by a newer version of this store, with a schema this one does not
    /// know; it is left untouched.
    #[error("the flow store's schema is version {found}; this build knows up to {known}")]
    NewerSchema {
        /// The version in the file.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// The file could not be created.
    #[error("cannot create the flow store file: {0}")]
    Io(#[source] std::io::Error),
    /// A file of the store (the database, its `-wal` or `-shm`, its key file) exists but is not
    /// the user's own: it belongs to someone else, or others may read or write it. It is left
    /// as it is and not used: whoever made it could read what the store would keep there.
    #[error(
        "refusing the flow store file {}: it {reason}; a store's files must belong to you and \
         be readable and writable by you only (remove it, or `chmod 600` it if it is yours)",
        path.display()
    )]
    NotPrivate {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The key file does not hold a key.
    #[error("the flow store's key file {} {reason}", path.display())]
    KeyFile {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The call was dropped unanswered (the code running it panicked); nothing is known of
    /// its effect.
    #[error("the flow store has stopped")]
    Stopped,
    /// The database failed (not a database, disk full, locked by another process too long…).
    #[error("flow store database error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// What every [`FlowStore`] method returns: a boxed future of the result, so a store can be a
/// trait object (`Arc<dyn FlowStore>`) and do its work when and where it suits it.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A future already resolved to `result` (for stores that answer at once).
pub fn ready<'a, T: Send + 'a>(result: Result<T, StoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(result))
}

/// Where URL-mode flows and their secrets are kept.
///
/// The methods are asynchronous, so that a caller never blocks its thread waiting for another
/// caller's work: [`SqliteStore`] runs a call at once when its connection is free and otherwise
/// queues it, committing the calls that meet in one transaction; a store shared by several
/// replicas (Redis, a SQL server) awaits its network. A call's changes are durable when its
/// future resolves. A call may start its work before its future is first polled (both stores
/// here do): dropping the future does not undo it.
///
/// # Example: a flow from start to completion
/// ```
/// use interlude_server::url::{Flow, FlowStatus, FlowStore, Secret, SqliteStore, UserId};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = SqliteStore::in_memory()?;
/// let alice = UserId::new("github|583231");
/// let now = 1_767_225_600_000;
///
/// // A tool call starts a flow for its user and sends the person to its page.
/// let flow = Flow::new(alice.clone(), "api_key:openai", now, 10 * 60 * 1000);
/// store.insert_flow(&flow).await?;
///
/// // The page, having checked that the person is `alice`, keeps the key and completes the flow.
/// let opened = store.flow(&flow.id).await?.ok_or("no such flow")?;
/// assert_eq!(opened.user, alice);
/// let key = Secret::from("sk-live-1234");
/// assert!(store.complete_with_secret(&flow.id, &alice, "openai", &key, now + 5_000).await?);
/// // The same form submitted twice completes nothing the second time.
/// let again = FlowStatus::Completed;
/// assert!(!store.transition(&flow.id, &FlowStatus::Pending, again, now + 6_000).await?);
///
/// // The tool's retry finds the flow complete and the key kept for alice (and only for her).
/// let status = store.flow(&flow.id).await?.map(|f| f.status);
/// assert_eq!(status, Some(FlowStatus::Completed));
/// let key = store.secret(&alice, "openai").await?.ok_or("no key")?;
/// assert_eq!(key.expose_str(), Some("sk-live-1234"));
/// assert!(store.secret(&UserId::new("github|1"), "openai").await?.is_none());
/// # Ok(()) }
/// ```
pub trait FlowStore: Send + Sync + 'static {
    /// Stores a new flow. Refuses one whose id is already stored ([`StoreError::DuplicateId`])
    /// or whose `lookup` key another stored flow has ([`StoreError::DuplicateLookup`]).
    fn insert_flow<'a>(&'a self, flow: &'a Flow) -> StoreFuture<'a, ()>;

    /// The flow with this id, if stored. A pending flow past its expiry stays `Pending` here
    /// until [`FlowStore::expire`] runs: check [`Flow::is_expired`].
    fn flow<'a>(&'a self, id: &'a FlowId) -> StoreFuture<'a, Option<Flow>>;

    /// The flow whose `lookup` key is `lookup` (an OAuth callback's `state`), if stored.
    fn flow_by_lookup<'a>(&'a self, lookup: &'a str) -> StoreFuture<'a, Option<Flow>>;

    /// Compare-and-set: moves the flow to `to` if its status is now the variant of `from` (a
    /// `Failed` matches any `Failed`), atomically. Returns whether it moved; `false` for an
    /// unknown id, for a flow in another status, and for a move to `Completed` at or after its
    /// `expires_at_ms`. So when two requests race to complete a flow, exactly one gets `true`.
    fn transition<'a>(
        &'a self,
        id: &'a FlowId,
        from: &'a FlowStatus,
        to: FlowStatus,
        now_ms: u64,
    ) -> StoreFuture<'a, bool>;

    /// Compare-and-set of the token of whoever last took a completed flow's outcome: records
    /// `to` if the flow is `Completed` and the token recorded now is `from` (`None`: nobody took
    /// it yet), atomically. Returns whether it moved; `false` for an unknown id, a flow in
    /// another status, and a token that moved on. So of two requests that present the same
    /// token, exactly one gets `true`: the 2026-07-28 round trips use it so that a sealed
    /// `requestState` naming a completed flow is good for one request (a replay is refused).
    ///
    /// ```
    /// use interlude_server::url::{Flow, FlowStatus, FlowStore, MemoryStore, UserId};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = MemoryStore::default();
    /// let flow = Flow::new(UserId::new("ada"), "confirm:payment", 0, 60_000);
    /// store.insert_flow(&flow).await?;
    /// assert!(!store.claim(&flow.id, None, "t1").await?); // still pending
    /// store.transition(&flow.id, &FlowStatus::Pending, FlowStatus::Completed, 1).await?;
    /// assert!(store.claim(&flow.id, None, "t1").await?);
    /// assert!(!store.claim(&flow.id, None, "t2").await?); // the same state again
    /// assert!(store.claim(&flow.id, Some("t1"), "t2").await?); // the next round
    /// # Ok(()) }
    /// ```
    fn claim<'a>(
        &'a self,
        id: &'a FlowId,
        from: Option<&'a str>,
        to: &'a str,
    ) -> StoreFuture<'a, bool>;

    /// Replaces the flow's `data`. Returns whether the flow is stored.
    fn set_data<'a>(&'a self, id: &'a FlowId, data: Value) -> StoreFuture<'a, bool>;

    /// The user's pending flows not yet expired at `now_ms`, oldest first.
    fn pending_flows_of<'a>(&'a self, user: &'a UserId, now_ms: u64) -> StoreFuture<'a, Vec<Flow>>;

    /// Housekeeping, to run now and then. First deletes the finished flows that finished at
    /// least `keep_finished_ms` before `now_ms`; then marks `Expired` the pending flows whose
    /// time is up (they count as finished at `now_ms`, so a late retry still finds them
    /// `Expired` for `keep_finished_ms`); and deletes the tasks whose `expires_at_ms` is at
    /// or before `now_ms`. Returns how many flows and tasks were deleted or marked.
    fn expire(&self, now_ms: u64, keep_finished_ms: u64) -> StoreFuture<'_, usize>;

    /// Keeps `secret` as the user's secret called `name`, replacing any earlier one.
    fn put_secret<'a>(
        &'a self,
        user: &'a UserId,
        name: &'a str,
        secret: &'a Secret,
        now_ms: u64,
    ) -> StoreFuture<'a, ()>;

    /// The user's secret called `name`, if kept. Another user's secret of the same name is
    /// never returned.
    fn secret<'a>(&'a self, user: &'a UserId, name: &'a str) -> StoreFuture<'a, Option<Secret>>;

    /// Forgets the user's secret called `name`. Returns whether there was one.
    fn delete_secret<'a>(&'a self, user: &'a UserId, name: &'a str) -> StoreFuture<'a, bool>;

    /// Keeps `task`, replacing what was kept under its id. Refuses a time beyond what the
    /// store can keep ([`StoreError::TimeOutOfRange`]).
    fn put_task<'a>(&'a self, task: &'a StoredTask) -> StoreFuture<'a, ()>;

    /// The task kept under `id`, if any (one past its `expires_at_ms` stays until
    /// [`FlowStore::expire`] runs).
    fn task<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredTask>>;

    /// Completes flow `id` and keeps `secret` as its user's secret `name`, both or neither:
    /// nothing is kept for a flow that was no longer pending or in time. Returns whether it
    /// completed. The default puts the secret after a successful transition; a store with
    /// transactions does both in one.
    fn complete_with_secret<'a>(
        &'a self,
        id: &'a FlowId,
        user: &'a UserId,
        name: &'a str,
        secret: &'a Secret,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let completed = FlowStatus::Completed;
            if !self
                .transition(id, &FlowStatus::Pending, completed, now_ms)
                .await?
            {
                return Ok(false);
            }
            self.put_secret(user, name, secret, now_ms).await?;
            Ok(true)
        })
    }
}

/// The time now, as a store keeps it: milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Refuses the times of `task` that the store could not keep.
fn check_task_times(task: &StoredTask) -> Result<(), StoreError> {
    to_db_time("updated_at_ms", task.updated_at_ms)?;
    if let Some(at) = task.expires_at_ms {
        to_db_time("expires_at_ms", at)?;
    }
    Ok(())
}

/// Refuses the times of `flow` that the store could not keep.
fn check_times(flow: &Flow) -> Result<(), StoreError> {
    to_db_time("created_at_ms", flow.created_at_ms)?;
    to_db_time("expires_at_ms", flow.expires_at_ms)?;
    Ok(())
}

/// A time to store, refused beyond `i64::MAX`.
fn to_db_time(what: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::TimeOutOfRange { what, value })
}

/// A time to compare with stored ones: every stored time is at most `i64::MAX`, so a later
/// `now` compares the same as `i64::MAX`.
fn clamp_time(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_rfc_4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url(input.as_bytes()), expected, "{input:?}");
        }
        // The two characters where base64url differs from base64.
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn base64url_decodes_what_it_encodes_only() {
        for len in 0..40 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(unbase64url(&base64url(&bytes)), Some(bytes));
        }
        assert_eq!(unbase64url("Zm9v+"), None);
        assert_eq!(unbase64url("Zh"), None);
        assert_eq!(unbase64url("Z"), None);
    }

    #[test]
    fn every_sextet_round_trips() {
        for value in 0..64u8 {
            // A byte whose top six bits are `value` is spelled with `value`'s character first.
            let first = base64url(&[value << 2]).as_bytes().first().copied();
            assert_eq!(first.and_then(sextet_value), Some(value));
        }
    }

    #[test]
    fn random_ids_parse_and_differ() {
        let a = FlowId::new_random();
        let b = FlowId::new_random();
        assert_ne!(a, b);
        assert_eq!(FlowId::parse(a.as_str()), Ok(a.clone()));
        assert_eq!(base64url(&[0xff; FLOW_ID_BYTES]).len(), FLOW_ID_LEN);
    }
}
