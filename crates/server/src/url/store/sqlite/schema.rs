//! The schema of [`SqliteStore`](super::SqliteStore)'s file, one migration per version, and
//! bringing an older file up to date (its tables, then the secrets it kept unsealed).
//!
//! Not here: reading or writing flows, secrets or tasks (`sqlite.rs`, `flows.rs`, `tasks.rs`);
//! a migration never edits an older one, and nothing here downgrades a newer file.

use rusqlite::{Connection, TransactionBehavior, params};

use super::super::sealing::StoreKey;
use super::super::{StoreError, UserId};
use super::backend;

/// The schema, one entry per version: entry `n` takes a store from version `n` to `n + 1`
/// (version 0 is an empty file). A change to the schema is a new entry, never an edit of an old
/// one, so every file ever written can be brought up to date.
pub(super) const MIGRATIONS: &[&str] = &[
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
    // Version 2: flows keyed by their id alone (one B-tree fewer to write per change), and no
    // indexes for housekeeping: `expire` runs once in a while and scans, where every status
    // change used to update two more indexes.
    "CREATE TABLE flows_v2 (
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
    ) STRICT, WITHOUT ROWID;
    INSERT INTO flows_v2 SELECT id, user_id, kind, status, failure_reason, created_at_ms,
        expires_at_ms, finished_at_ms, elicitation_id, session, lookup, data FROM flows;
    DROP TABLE flows;
    ALTER TABLE flows_v2 RENAME TO flows;
    CREATE INDEX flows_by_user ON flows (user_id, status);",
    // Version 3: the token of the last take of a completed flow's outcome (`claim`), and
    // secrets sealed at rest (`sealed` = 1; rows written before are sealed when the store is
    // opened with its key).
    "ALTER TABLE flows ADD COLUMN claim TEXT;
    ALTER TABLE secrets ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;",
    // Version 4: the tasks of the Tasks extension, each record sealed (`tasks.rs`).
    "CREATE TABLE tasks (
        id            TEXT    NOT NULL PRIMARY KEY,
        record        BLOB    NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        expires_at_ms INTEGER
    ) STRICT, WITHOUT ROWID;",
    // Version 5: who each task is bound to (`Requestor`, as JSON of digests and a user id;
    // NULL for the tasks written before, which are read as bound to nobody).
    "ALTER TABLE tasks ADD COLUMN requestor TEXT;",
];

/// Brings the schema up to [`MIGRATIONS`]' last version, in one transaction.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
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

/// Seals the secrets a store of schema version 2 or older kept as they were, in one
/// transaction.
pub(super) fn seal_plain_secrets(conn: &mut Connection, key: &StoreKey) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(backend)?;
    let plain: Vec<(String, String, Vec<u8>)> = {
        let mut statement = tx
            .prepare("SELECT user_id, name, value FROM secrets WHERE sealed = 0")
            .map_err(backend)?;
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .map_err(backend)?
            .collect::<Result<_, _>>()
            .map_err(backend)?
    };
    if plain.is_empty() {
        return Ok(());
    }
    for (user, name, value) in &plain {
        let sealed = key.seal(&UserId(user.clone()), name, value)?;
        tx.execute(
            "UPDATE secrets SET value = ?1, sealed = 1 WHERE user_id = ?2 AND name = ?3",
            params![sealed, user, name],
        )
        .map_err(backend)?;
    }
    tx.commit().map_err(backend)?;
    tracing::info!(count = plain.len(), "sealed the flow store's older secrets");
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::super::super::{Flow, FlowStore, to_db_time};
    use super::super::SqliteStore;
    use super::*;

    #[tokio::test]
    async fn secrets_kept_in_plain_text_by_schema_version_2_are_sealed_on_open() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch(MIGRATIONS[1]).unwrap();
        conn.execute_batch(
            "CREATE TABLE schema_version (version INTEGER NOT NULL) STRICT;
             INSERT INTO schema_version (version) VALUES (2);
             INSERT INTO secrets (user_id, name, value, updated_at_ms)
                 VALUES ('ada', 'openai', CAST('sk-old-plain' AS BLOB), 1);",
        )
        .unwrap();
        let store = SqliteStore::with_connection(conn, StoreKey::random()).unwrap();
        let read = store.secret(&UserId::new("ada"), "openai").await.unwrap();
        assert_eq!(read.unwrap().expose_str(), Some("sk-old-plain"));
        let conn = store.conn.lock().unwrap();
        let (value, sealed): (Vec<u8>, bool) = conn
            .query_row("SELECT value, sealed FROM secrets", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .unwrap();
        assert!(sealed);
        assert!(!value.windows(12).any(|w| w == b"sk-old-plain"));
    }

    #[tokio::test]
    async fn a_store_of_schema_version_1_is_brought_up_to_date_with_its_flows() {
        // A file as the first release wrote it: version 1's tables and one flow in them.
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch(
            "CREATE TABLE schema_version (version INTEGER NOT NULL) STRICT;
             INSERT INTO schema_version (version) VALUES (1);",
        )
        .unwrap();
        let now = 1_767_225_600_000;
        let mut flow = Flow::new(UserId::new("ada"), "oauth:cloud", now, 600_000);
        flow.lookup = Some("state-1".to_owned());
        flow.data = serde_json::json!({"pkce_verifier": "v"});
        conn.execute(
            "INSERT INTO flows (id, user_id, kind, status, created_at_ms, expires_at_ms, \
             lookup, data) VALUES (?1, 'ada', 'oauth:cloud', 'pending', ?2, ?3, 'state-1', ?4)",
            params![
                flow.id.as_str(),
                to_db_time("created", now).unwrap(),
                to_db_time("expires", now + 600_000).unwrap(),
                flow.data.to_string()
            ],
        )
        .unwrap();

        let store = SqliteStore::with_connection(conn, StoreKey::random()).unwrap();
        assert_eq!(store.flow(&flow.id).await.unwrap(), Some(flow.clone()));
        assert_eq!(
            store.flow_by_lookup("state-1").await.unwrap(),
            Some(flow.clone())
        );
        let conn = store.conn.lock().unwrap();
        let version: i64 = conn
            .query_row("SELECT version FROM schema_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, i64::try_from(MIGRATIONS.len()).unwrap());
        let tasks: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'tasks'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(tasks, 1, "version 4 adds the tasks");
        let without_rowid: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'flows' AND sql LIKE '%WITHOUT ROWID%'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(without_rowid, 1);
    }
}
