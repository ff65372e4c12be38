//! The `flows` table of [`SqliteStore`](super::SqliteStore): a flow's row read and checked
//! ([`RawFlow`]), and the compare-and-set of its status.
//!
//! Not here: deciding a flow's next status (the callers of [`FlowStore`] do), secrets and tasks.
//!
//! [`FlowStore`]: super::super::FlowStore

use rusqlite::{Connection, OptionalExtension, params};

use super::super::{Flow, FlowId, FlowStatus, StoreError, UserId, clamp_time};
use super::{backend, execute};

/// Reads one flow with a cached statement.
pub(super) fn one_flow(
    conn: &Connection,
    sql: &str,
    key: &str,
) -> Result<Option<Flow>, StoreError> {
    let raw = conn
        .prepare_cached(sql)
        .and_then(|mut statement| statement.query_row([key], RawFlow::read))
        .optional()
        .map_err(backend)?;
    raw.map(RawFlow::into_flow).transpose()
}

/// Compare-and-set of a flow's status (see [`FlowStore::transition`]).
pub(super) fn transition(
    conn: &Connection,
    id: &FlowId,
    from: &FlowStatus,
    to: &FlowStatus,
    now_ms: u64,
) -> Result<bool, StoreError> {
    let now = clamp_time(now_ms);
    let finished = to.is_finished().then_some(now);
    // Completing needs the flow unexpired: `expires_at_ms > now`.
    let deadline = (*to == FlowStatus::Completed).then_some(now);
    let changed = execute(
        conn,
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

/// A stored flow's columns as SQLite returns them, before they are checked.
pub(super) struct RawFlow {
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
    pub(super) fn read(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
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

    pub(super) fn into_flow(self) -> Result<Flow, StoreError> {
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
