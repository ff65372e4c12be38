//! The durable state of URL-mode flows: [`FlowStore`] and its two implementations,
//! [`SqliteStore`] (a file; the default) and [`MemoryStore`] (a process's memory).
//!
//! A store keeps two things: flows (who started what, and how far it got) and secrets (what a
//! flow obtained, keyed by user and name). It decides nothing about who may do what; the flow
//! service above it checks the person before it reads or moves anything. It does enforce what
//! must hold whatever the caller does: a flow moves only by compare-and-set, so it completes at
//! most once however many requests race; an expired flow never completes; a secret is only ever
//! read back under the user it was stored for.
//!
//! Times are milliseconds since the Unix epoch, passed in by the caller (`now_ms`), so tests
//! control the clock. A flow is expired from `expires_at_ms` on (`now_ms >= expires_at_ms`).
//! Stored times must fit in an `i64` (SQLite's integer): larger ones are refused on insert.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rand::RngCore;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;

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
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let mut group = [0u8; 3];
        for (slot, byte) in group.iter_mut().zip(chunk) {
            *slot = *byte;
        }
        let [a, b, c] = group;
        let bits = (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c);
        // One byte needs 2 characters, two need 3, three need 4.
        for i in 0..=chunk.len() {
            let shift = 18 - 6 * i;
            out.push(sextet_char(((bits >> shift) & 0x3f) as u8));
        }
    }
    out
}

/// The base64url character of a 6-bit value.
fn sextet_char(value: u8) -> char {
    char::from(match value {
        0..=25 => b'A' + value,
        26..=51 => b'a' + (value - 26),
        52..=61 => b'0' + (value - 52),
        62 => b'-',
        _ => b'_',
    })
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
    /// The database failed (not a database, disk full, locked by another process too long…).
    #[error("flow store database error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Where URL-mode flows and their secrets are kept.
///
/// The methods are synchronous: [`SqliteStore`]'s are short reads and writes of a local file (one
/// small transaction each, synced to disk before the call returns), fine to call from an async
/// handler. A store shared by several replicas (Redis, a SQL server) would be asynchronous by
/// nature; such an implementation would drive its own runtime behind this trait, or the trait
/// grows async siblings then.
///
/// # Example: a flow from start to completion
/// ```
/// use interlude_server::url::{Flow, FlowStatus, FlowStore, Secret, SqliteStore, UserId};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = SqliteStore::in_memory()?;
/// let alice = UserId::new("github|583231");
/// let now = 1_767_225_600_000;
///
/// // A tool call starts a flow for its user and sends the person to its page.
/// let flow = Flow::new(alice.clone(), "api_key:openai", now, 10 * 60 * 1000);
/// store.insert_flow(&flow)?;
///
/// // The page, having checked that the person is `alice`, keeps the key and completes the flow.
/// let opened = store.flow(&flow.id)?.ok_or("no such flow")?;
/// assert_eq!(opened.user, alice);
/// store.put_secret(&alice, "openai", &Secret::from("sk-live-1234"), now + 5_000)?;
/// assert!(store.transition(&flow.id, &FlowStatus::Pending, FlowStatus::Completed, now + 5_000)?);
/// // The same form submitted twice completes nothing the second time.
/// assert!(!store.transition(&flow.id, &FlowStatus::Pending, FlowStatus::Completed, now + 6_000)?);
///
/// // The tool's retry finds the flow complete and the key kept for alice (and only for her).
/// assert_eq!(store.flow(&flow.id)?.map(|f| f.status), Some(FlowStatus::Completed));
/// let key = store.secret(&alice, "openai")?.ok_or("no key")?;
/// assert_eq!(key.expose_str(), Some("sk-live-1234"));
/// assert!(store.secret(&UserId::new("github|1"), "openai")?.is_none());
/// # Ok(()) }
/// ```
pub trait FlowStore: Send + Sync + 'static {
    /// Stores a new flow. Refuses one whose id is already stored ([`StoreError::DuplicateId`])
    /// or whose `lookup` key another stored flow has ([`StoreError::DuplicateLookup`]).
    fn insert_flow(&self, flow: &Flow) -> Result<(), StoreError>;

    /// The flow with this id, if stored. A pending flow past its expiry stays `Pending` here
    /// until [`FlowStore::expire`] runs: check [`Flow::is_expired`].
    fn flow(&self, id: &FlowId) -> Result<Option<Flow>, StoreError>;

    /// The flow whose `lookup` key is `lookup` (an OAuth callback's `state`), if stored.
    fn flow_by_lookup(&self, lookup: &str) -> Result<Option<Flow>, StoreError>;

    /// Compare-and-set: moves the flow to `to` if its status is now the variant of `from` (a
    /// `Failed` matches any `Failed`), atomically. Returns whether it moved; `false` for an
    /// unknown id, for a flow in another status, and for a move to `Completed` at or after its
    /// `expires_at_ms`. So when two requests race to complete a flow, exactly one gets `true`.
    fn transition(
        &self,
        id: &FlowId,
        from: &FlowStatus,
        to: FlowStatus,
        now_ms: u64,
    ) -> Result<bool, StoreError>;

    /// Replaces the flow's `data`. Returns whether the flow is stored.
    fn set_data(&self, id: &FlowId, data: Value) -> Result<bool, StoreError>;

    /// The user's pending flows not yet expired at `now_ms`, oldest first.
    fn pending_flows_of(&self, user: &UserId, now_ms: u64) -> Result<Vec<Flow>, StoreError>;

    /// Housekeeping, to run now and then. First deletes the finished flows that finished at
    /// least `keep_finished_ms` before `now_ms`; then marks `Expired` the pending flows whose
    /// time is up (they count as finished at `now_ms`, so a late retry still finds them
    /// `Expired` for `keep_finished_ms`). Returns how many flows were deleted or marked.
    fn expire(&self, now_ms: u64, keep_finished_ms: u64) -> Result<usize, StoreError>;

    /// Keeps `secret` as the user's secret called `name`, replacing any earlier one.
    fn put_secret(
        &self,
        user: &UserId,
        name: &str,
        secret: &Secret,
        now_ms: u64,
    ) -> Result<(), StoreError>;

    /// The user's secret called `name`, if kept. Another user's secret of the same name is
    /// never returned.
    fn secret(&self, user: &UserId, name: &str) -> Result<Option<Secret>, StoreError>;

    /// Forgets the user's secret called `name`. Returns whether there was one.
    fn delete_secret(&self, user: &UserId, name: &str) -> Result<bool, StoreError>;

    /// Completes flow `id` and keeps `secret` as its user's secret `name`, both or neither:
    /// nothing is kept for a flow that was no longer pending or in time. Returns whether it
    /// completed. The default puts the secret after a successful transition; a store with
    /// transactions does both in one.
    fn complete_with_secret(
        &self,
        id: &FlowId,
        user: &UserId,
        name: &str,
        secret: &Secret,
        now_ms: u64,
    ) -> Result<bool, StoreError> {
        if !self.transition(id, &FlowStatus::Pending, FlowStatus::Completed, now_ms)? {
            return Ok(false);
        }
        self.put_secret(user, name, secret, now_ms)?;
        Ok(true)
    }
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

/// A [`FlowStore`] in memory: the same behaviour as [`SqliteStore`], nothing survives the
/// process. For tests, and for servers whose flows may be lost on a restart.
#[derive(Default)]
pub struct MemoryStore {
    state: Mutex<MemoryState>,
}

#[derive(Default)]
struct MemoryState {
    flows: HashMap<FlowId, MemoryFlow>,
    /// `lookup` key → the flow that has it.
    lookups: HashMap<String, FlowId>,
    secrets: HashMap<(UserId, String), Secret>,
}

struct MemoryFlow {
    flow: Flow,
    /// When it left `Pending` (for [`FlowStore::expire`]).
    finished_at_ms: Option<u64>,
}

impl MemoryStore {
    fn state(&self) -> MutexGuard<'_, MemoryState> {
        // Every change below is complete before anything can panic, so a poisoned lock still
        // guards consistent data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("MemoryStore")
            .field("flows", &state.flows.len())
            .field("secrets", &state.secrets.len())
            .finish()
    }
}

impl FlowStore for MemoryStore {
    fn insert_flow(&self, flow: &Flow) -> Result<(), StoreError> {
        check_times(flow)?;
        let mut state = self.state();
        if state.flows.contains_key(&flow.id) {
            return Err(StoreError::DuplicateId(flow.id.clone()));
        }
        if let Some(lookup) = &flow.lookup {
            if state.lookups.contains_key(lookup) {
                return Err(StoreError::DuplicateLookup);
            }
            state.lookups.insert(lookup.clone(), flow.id.clone());
        }
        let finished_at_ms = flow.status.is_finished().then_some(flow.created_at_ms);
        state.flows.insert(
            flow.id.clone(),
            MemoryFlow {
                flow: flow.clone(),
                finished_at_ms,
            },
        );
        Ok(())
    }

    fn flow(&self, id: &FlowId) -> Result<Option<Flow>, StoreError> {
        Ok(self.state().flows.get(id).map(|f| f.flow.clone()))
    }

    fn flow_by_lookup(&self, lookup: &str) -> Result<Option<Flow>, StoreError> {
        let state = self.state();
        Ok(state
            .lookups
            .get(lookup)
            .and_then(|id| state.flows.get(id))
            .map(|f| f.flow.clone()))
    }

    fn transition(
        &self,
        id: &FlowId,
        from: &FlowStatus,
        to: FlowStatus,
        now_ms: u64,
    ) -> Result<bool, StoreError> {
        let mut state = self.state();
        let Some(stored) = state.flows.get_mut(id) else {
            return Ok(false);
        };
        if !stored.flow.status.same_variant(from)
            || (to == FlowStatus::Completed && stored.flow.is_expired(now_ms))
        {
            return Ok(false);
        }
        stored.finished_at_ms = to.is_finished().then_some(now_ms);
        stored.flow.status = to;
        Ok(true)
    }

    fn set_data(&self, id: &FlowId, data: Value) -> Result<bool, StoreError> {
        Ok(match self.state().flows.get_mut(id) {
            Some(stored) => {
                stored.flow.data = data;
                true
            }
            None => false,
        })
    }

    fn pending_flows_of(&self, user: &UserId, now_ms: u64) -> Result<Vec<Flow>, StoreError> {
        let state = self.state();
        let mut flows: Vec<Flow> = state
            .flows
            .values()
            .map(|f| &f.flow)
            .filter(|f| &f.user == user && f.status == FlowStatus::Pending && !f.is_expired(now_ms))
            .cloned()
            .collect();
        flows.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
        Ok(flows)
    }

    fn expire(&self, now_ms: u64, keep_finished_ms: u64) -> Result<usize, StoreError> {
        let mut guard = self.state();
        let state = &mut *guard;
        let mut changed = 0;
        if let Some(cutoff) = now_ms.checked_sub(keep_finished_ms) {
            let old: Vec<FlowId> = state
                .flows
                .iter()
                .filter(|(_, f)| f.finished_at_ms.is_some_and(|at| at <= cutoff))
                .map(|(id, _)| id.clone())
                .collect();
            for id in old {
                if let Some(removed) = state.flows.remove(&id) {
                    if let Some(lookup) = removed.flow.lookup {
                        state.lookups.remove(&lookup);
                    }
                    changed += 1;
                }
            }
        }
        for stored in state.flows.values_mut() {
            if stored.flow.status == FlowStatus::Pending && stored.flow.is_expired(now_ms) {
                stored.flow.status = FlowStatus::Expired;
                stored.finished_at_ms = Some(now_ms);
                changed += 1;
            }
        }
        Ok(changed)
    }

    fn put_secret(
        &self,
        user: &UserId,
        name: &str,
        secret: &Secret,
        _now_ms: u64,
    ) -> Result<(), StoreError> {
        self.state()
            .secrets
            .insert((user.clone(), name.to_owned()), secret.clone());
        Ok(())
    }

    fn secret(&self, user: &UserId, name: &str) -> Result<Option<Secret>, StoreError> {
        Ok(self
            .state()
            .secrets
            .get(&(user.clone(), name.to_owned()))
            .cloned())
    }

    fn delete_secret(&self, user: &UserId, name: &str) -> Result<bool, StoreError> {
        Ok(self
            .state()
            .secrets
            .remove(&(user.clone(), name.to_owned()))
            .is_some())
    }
}

/// The schema, one entry per version: entry `n` takes a store from version `n` to `n + 1`
/// (version 0 is an empty file). A change to the schema is a new entry, never an edit of an old
/// one, so every file ever written can be brought up to date.
const MIGRATIONS: &[&str] = &[
    // Version 1.
    "CREATE TABLE flows (
        id             TEXT    NOT NULL PRIMARY KEY,
        user_id        TEXT    NOT NULL,
        kind           TEXT    NOT NULL,
        status         TEXT    NOT NULL
            CHECK (status IN ('pending', 'completed', 'declined', 'failed', 'expired')),
        failure_reason TEXT,
        created_at_ms  INTEGER NOT NULL,
        expires_at_ms  INTEGER NOT NULL,
        finished_at_ms INTEGER,
        elicitation_id TEXT,
        session        TEXT,
        lookup         TEXT    UNIQUE,
        data           TEXT    NOT NULL
    ) STRICT;
    CREATE INDEX flows_by_user ON flows (user_id, status);
    CREATE INDEX flows_pending_by_expiry ON flows (expires_at_ms) WHERE status = 'pending';
    CREATE INDEX flows_by_finish ON flows (finished_at_ms) WHERE finished_at_ms IS NOT NULL;
    CREATE TABLE secrets (
        user_id       TEXT    NOT NULL,
        name          TEXT    NOT NULL,
        value         BLOB    NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        PRIMARY KEY (user_id, name)
    ) STRICT, WITHOUT ROWID;",
];

/// The columns a [`Flow`] is read from, in [`RawFlow`]'s order.
const FLOW_COLUMNS: &str = "id, user_id, kind, status, failure_reason, created_at_ms, \
                            expires_at_ms, elicitation_id, session, lookup, data";

/// A [`FlowStore`] in an SQLite file: every change is on disk when the call returns, so a
/// restart of the server mid-flow loses nothing.
///
/// The file is the store's own (its tables are `flows`, `secrets` and `schema_version`). Secrets
/// are kept as they are, not encrypted: on Unix a file the store creates is readable by its owner
/// only; keep it somewhere backups and other users do not reach.
///
/// One connection behind a mutex serves every call; another process may open the same file (a
/// second server, an admin's `sqlite3`), and each write waits up to 5 s for the other's lock.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens the store in the file at `path`, creating the file (its folder must exist) and the
    /// schema if needed, and bringing an older schema up to date. The journal is write-ahead
    /// (WAL) with `synchronous = NORMAL`: every committed change survives the server process
    /// stopping or crashing at any point (what a restart mid-flow needs); only a crash of the
    /// whole machine may lose the last few commits, which then read as flows still pending (the
    /// person starts again). Full sync would add a disk flush to every write: ≈ 1.6× slower per
    /// flow here. A file that is not such a store — another database, garbage, a newer schema —
    /// is an error, and is left as it was.
    ///
    /// ```
    /// use interlude_server::url::{Flow, FlowStatus, FlowStore, SqliteStore, UserId};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let path = std::env::temp_dir().join(format!("flows-doc-{}.sqlite", std::process::id()));
    /// let now = 1_767_225_600_000;
    /// let flow = Flow::new(UserId::new("alice"), "oauth:github", now, 600_000);
    ///
    /// let store = SqliteStore::open(&path)?;
    /// store.insert_flow(&flow)?;
    /// drop(store); // the server restarts
    ///
    /// let store = SqliteStore::open(&path)?;
    /// assert!(store.transition(&flow.id, &FlowStatus::Pending, FlowStatus::Completed, now + 1)?);
    /// # drop(store);
    /// # for suffix in ["", "-wal", "-shm"] {
    /// #     let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    /// # }
    /// # Ok(()) }
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        create_private(path)?;
        let conn = Connection::open(path).map_err(backend)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(backend)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(backend)?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(
                path = %path.display(),
                journal_mode = %mode,
                "the flow store's file system does not allow a write-ahead log; using {mode}"
            );
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(backend)?;
        Self::with_connection(conn)
    }

    /// A store in memory with the SQLite implementation (nothing survives it being dropped).
    pub fn in_memory() -> Result<Self, StoreError> {
        Self::with_connection(Connection::open_in_memory().map_err(backend)?)
    }

    fn with_connection(mut conn: Connection) -> Result<Self, StoreError> {
        migrate(&mut conn)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while the lock was held left no transaction open (rusqlite rolls back on
        // drop), so the connection is fine to use.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn query_flows(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<Flow>, StoreError> {
        let conn = self.conn();
        let mut statement = conn.prepare(sql).map_err(backend)?;
        let raws = statement
            .query_map(params, RawFlow::read)
            .map_err(backend)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(backend)?;
        raws.into_iter().map(RawFlow::into_flow).collect()
    }
}

/// On Unix, creates the file at `path` readable and writable by its owner only, unless it exists
/// (SQLite gives its `-wal` and `-shm` files the same permissions). Elsewhere SQLite creates it.
fn create_private(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path);
        match created {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(StoreError::Io(e)),
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Brings the schema up to [`MIGRATIONS`]' last version, in one transaction.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(backend)?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL) STRICT")
        .map_err(backend)?;
    let found: Option<i64> = tx
        .query_row("SELECT max(version) FROM schema_version", [], |row| {
            row.get(0)
        })
        .map_err(backend)?;
    let found = found.unwrap_or(0);
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    if found > known {
        return Err(StoreError::NewerSchema { found, known });
    }
    let applied = usize::try_from(found)
        .map_err(|_| StoreError::Corrupt("schema_version.version".to_owned()))?;
    if applied == MIGRATIONS.len() {
        return Ok(());
    }
    for step in MIGRATIONS.iter().skip(applied) {
        tx.execute_batch(step).map_err(backend)?;
    }
    tx.execute("DELETE FROM schema_version", [])
        .map_err(backend)?;
    tx.execute("INSERT INTO schema_version (version) VALUES (?1)", [known])
        .map_err(backend)?;
    tx.commit().map_err(backend)
}

fn backend(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(Box::new(e))
}

/// A stored flow's columns as SQLite returns them, before they are checked.
struct RawFlow {
    id: String,
    user: String,
    kind: String,
    status: String,
    failure_reason: Option<String>,
    created_at_ms: i64,
    expires_at_ms: i64,
    elicitation_id: Option<String>,
    session: Option<String>,
    lookup: Option<String>,
    data: String,
}

impl RawFlow {
    fn read(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(RawFlow {
            id: row.get(0)?,
            user: row.get(1)?,
            kind: row.get(2)?,
            status: row.get(3)?,
            failure_reason: row.get(4)?,
            created_at_ms: row.get(5)?,
            expires_at_ms: row.get(6)?,
            elicitation_id: row.get(7)?,
            session: row.get(8)?,
            lookup: row.get(9)?,
            data: row.get(10)?,
        })
    }

    fn into_flow(self) -> Result<Flow, StoreError> {
        let corrupt = |column: &str| StoreError::Corrupt(format!("flows.{column}"));
        let status = match self.status.as_str() {
            "pending" => FlowStatus::Pending,
            "completed" => FlowStatus::Completed,
            "declined" => FlowStatus::Declined,
            "failed" => FlowStatus::Failed {
                reason: self.failure_reason.unwrap_or_default(),
            },
            "expired" => FlowStatus::Expired,
            _ => return Err(corrupt("status")),
        };
        Ok(Flow {
            id: FlowId::parse(&self.id).map_err(|_| corrupt("id"))?,
            user: UserId(self.user),
            kind: self.kind,
            status,
            created_at_ms: u64::try_from(self.created_at_ms)
                .map_err(|_| corrupt("created_at_ms"))?,
            expires_at_ms: u64::try_from(self.expires_at_ms)
                .map_err(|_| corrupt("expires_at_ms"))?,
            elicitation_id: self.elicitation_id,
            session: self.session,
            lookup: self.lookup,
            data: serde_json::from_str(&self.data).map_err(|_| corrupt("data"))?,
        })
    }
}

impl SqliteStore {
    /// Runs one statement, from the connection's statement cache (the same few run again and
    /// again).
    fn execute(&self, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
        let conn = self.conn();
        let mut statement = conn.prepare_cached(sql)?;
        statement.execute(params)
    }

    /// Reads one row with a cached statement.
    fn query_row<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let conn = self.conn();
        let mut statement = conn.prepare_cached(sql)?;
        statement.query_row(params, read)
    }
}

impl FlowStore for SqliteStore {
    fn insert_flow(&self, flow: &Flow) -> Result<(), StoreError> {
        let created = to_db_time("created_at_ms", flow.created_at_ms)?;
        let expires = to_db_time("expires_at_ms", flow.expires_at_ms)?;
        let finished = flow.status.is_finished().then_some(created);
        let data = flow.data.to_string();
        self.execute(
            "INSERT INTO flows (id, user_id, kind, status, failure_reason, created_at_ms, \
                 expires_at_ms, finished_at_ms, elicitation_id, session, lookup, data) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                flow.id.as_str(),
                flow.user.as_str(),
                flow.kind,
                flow.status.name(),
                flow.status.reason(),
                created,
                expires,
                finished,
                flow.elicitation_id,
                flow.session,
                flow.lookup,
                data,
            ],
        )
        .map_err(|e| match &e {
            rusqlite::Error::SqliteFailure(failure, _)
                if failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
            {
                StoreError::DuplicateId(flow.id.clone())
            }
            rusqlite::Error::SqliteFailure(failure, _)
                if failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
            {
                StoreError::DuplicateLookup
            }
            _ => backend(e),
        })?;
        Ok(())
    }

    fn flow(&self, id: &FlowId) -> Result<Option<Flow>, StoreError> {
        let raw = self
            .query_row(
                &format!("SELECT {FLOW_COLUMNS} FROM flows WHERE id = ?1"),
                [id.as_str()],
                RawFlow::read,
            )
            .optional()
            .map_err(backend)?;
        raw.map(RawFlow::into_flow).transpose()
    }

    fn flow_by_lookup(&self, lookup: &str) -> Result<Option<Flow>, StoreError> {
        let raw = self
            .query_row(
                &format!("SELECT {FLOW_COLUMNS} FROM flows WHERE lookup = ?1"),
                [lookup],
                RawFlow::read,
            )
            .optional()
            .map_err(backend)?;
        raw.map(RawFlow::into_flow).transpose()
    }

    fn transition(
        &self,
        id: &FlowId,
        from: &FlowStatus,
        to: FlowStatus,
        now_ms: u64,
    ) -> Result<bool, StoreError> {
        let now = clamp_time(now_ms);
        let finished = to.is_finished().then_some(now);
        // Completing needs the flow unexpired: `expires_at_ms > now`.
        let deadline = (to == FlowStatus::Completed).then_some(now);
        let changed = self
            .execute(
                "UPDATE flows SET status = ?1, failure_reason = ?2, finished_at_ms = ?3 \
                 WHERE id = ?4 AND status = ?5 AND (?6 IS NULL OR expires_at_ms > ?6)",
                params![
                    to.name(),
                    to.reason(),
                    finished,
                    id.as_str(),
                    from.name(),
                    deadline
                ],
            )
            .map_err(backend)?;
        Ok(changed == 1)
    }

    fn set_data(&self, id: &FlowId, data: Value) -> Result<bool, StoreError> {
        let changed = self
            .execute(
                "UPDATE flows SET data = ?1 WHERE id = ?2",
                params![data.to_string(), id.as_str()],
            )
            .map_err(backend)?;
        Ok(changed == 1)
    }

    fn pending_flows_of(&self, user: &UserId, now_ms: u64) -> Result<Vec<Flow>, StoreError> {
        self.query_flows(
            &format!(
                "SELECT {FLOW_COLUMNS} FROM flows \
                 WHERE user_id = ?1 AND status = 'pending' AND expires_at_ms > ?2 \
                 ORDER BY created_at_ms, id"
            ),
            params![user.as_str(), clamp_time(now_ms)],
        )
    }

    fn expire(&self, now_ms: u64, keep_finished_ms: u64) -> Result<usize, StoreError> {
        let now = clamp_time(now_ms);
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend)?;
        let mut changed = 0;
        if let Some(cutoff) = now_ms.checked_sub(keep_finished_ms) {
            changed += tx
                .execute(
                    "DELETE FROM flows WHERE status <> 'pending' AND finished_at_ms <= ?1",
                    [clamp_time(cutoff)],
                )
                .map_err(backend)?;
        }
        changed += tx
            .execute(
                "UPDATE flows SET status = 'expired', failure_reason = NULL, finished_at_ms = ?1 \
                 WHERE status = 'pending' AND expires_at_ms <= ?1",
                [now],
            )
            .map_err(backend)?;
        tx.commit().map_err(backend)?;
        Ok(changed)
    }

    fn put_secret(
        &self,
        user: &UserId,
        name: &str,
        secret: &Secret,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        self.execute(
            "INSERT INTO secrets (user_id, name, value, updated_at_ms) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (user_id, name) \
                 DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
            params![user.as_str(), name, secret.expose(), clamp_time(now_ms)],
        )
        .map_err(backend)?;
        Ok(())
    }

    fn secret(&self, user: &UserId, name: &str) -> Result<Option<Secret>, StoreError> {
        let value: Option<Vec<u8>> = self
            .query_row(
                "SELECT value FROM secrets WHERE user_id = ?1 AND name = ?2",
                params![user.as_str(), name],
                |row| row.get(0),
            )
            .optional()
            .map_err(backend)?;
        Ok(value.map(Secret))
    }

    fn delete_secret(&self, user: &UserId, name: &str) -> Result<bool, StoreError> {
        let changed = self
            .execute(
                "DELETE FROM secrets WHERE user_id = ?1 AND name = ?2",
                params![user.as_str(), name],
            )
            .map_err(backend)?;
        Ok(changed == 1)
    }
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
    fn every_sextet_round_trips() {
        for value in 0..64u8 {
            let c = sextet_char(value);
            assert_eq!(sextet_value(c as u8), Some(value));
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
