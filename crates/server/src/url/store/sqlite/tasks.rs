//! The `tasks` table of [`SqliteStore`](super::SqliteStore): one row per task, its record
//! sealed at rest with the store's key.

use rusqlite::{Connection, OptionalExtension, params};

use super::super::sealing::StoreKey;
use super::super::{StoreError, StoredTask, check_task_times, clamp_time, to_db_time};
use super::{backend, execute};
use crate::task::Requestor;

/// Keeps `task`, replacing its row if there is one.
pub(super) fn put(conn: &Connection, key: &StoreKey, task: &StoredTask) -> Result<(), StoreError> {
    check_task_times(task)?;
    let updated = to_db_time("updated_at_ms", task.updated_at_ms)?;
    let expires = task
        .expires_at_ms
        .map(|at| to_db_time("expires_at_ms", at))
        .transpose()?;
    let record = serde_json::to_vec(&task.task)
        .map_err(|e| StoreError::Corrupt(format!("tasks.record (cannot be written: {e})")))?;
    let sealed = key.seal_task(task.id(), &record)?;
    execute(
        conn,
        "INSERT OR REPLACE INTO tasks (id, record, updated_at_ms, expires_at_ms, requestor) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            task.id(),
            sealed,
            updated,
            expires,
            task.requestor.to_stored()
        ],
    )
    .map_err(backend)?;
    Ok(())
}

/// A task's row: its sealed record, `updated_at_ms`, `expires_at_ms`, `requestor`.
type Row = (Vec<u8>, i64, Option<i64>, Option<String>);

/// The task kept under `id`, if any.
pub(super) fn get(
    conn: &Connection,
    key: &StoreKey,
    id: &str,
) -> Result<Option<StoredTask>, StoreError> {
    let row: Option<Row> = conn
        .prepare_cached(
            "SELECT record, updated_at_ms, expires_at_ms, requestor FROM tasks WHERE id = ?1",
        )
        .and_then(|mut statement| {
            statement.query_row([id], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
        })
        .optional()
        .map_err(backend)?;
    let Some((sealed, updated, expires, requestor)) = row else {
        return Ok(None);
    };
    let record = key.open_task(id, &sealed).ok_or_else(|| {
        StoreError::Corrupt(
            "tasks.record (sealed with another key than this store's, or altered)".to_owned(),
        )
    })?;
    let task = serde_json::from_slice(&record)
        .map_err(|e| StoreError::Corrupt(format!("tasks.record ({e})")))?;
    let time = |what: &str, at: i64| {
        u64::try_from(at).map_err(|_| StoreError::Corrupt(format!("tasks.{what} is negative")))
    };
    // Written before tasks were bound (schema version 4): bound to nobody.
    let requestor = match requestor {
        None => Requestor::nobody(),
        Some(text) => Requestor::from_stored(&text)
            .ok_or_else(|| StoreError::Corrupt("tasks.requestor".to_owned()))?,
    };
    Ok(Some(StoredTask {
        task,
        requestor,
        updated_at_ms: time("updated_at_ms", updated)?,
        expires_at_ms: expires.map(|at| time("expires_at_ms", at)).transpose()?,
    }))
}

/// Deletes the tasks whose time is up at `now_ms`; returns how many.
pub(super) fn expire(conn: &Connection, now_ms: u64) -> Result<usize, StoreError> {
    execute(
        conn,
        "DELETE FROM tasks WHERE expires_at_ms <= ?1",
        [clamp_time(now_ms)],
    )
    .map_err(backend)
}
