//! [`SqliteStore`]: flows and secrets in an SQLite file.
//!
//! One connection, and calls combined: a call made while the connection is free runs at once on
//! the caller's thread (one statement, one commit, no hand-off); a call made while another runs
//! joins a queue and its caller awaits, without blocking its thread. Whoever holds the connection
//! runs the whole queue before letting go, in one transaction with one commit (group commit).
//! So a call alone costs what it would without the queue, and many calls together cost one
//! commit instead of one each. A call that changes several rows runs in a savepoint of its own,
//! so it is still all or nothing; a call that fails leaves the others of its batch untouched.
//!
//! This file opens the store and answers [`FlowStore`]'s calls; beside it: `sqlite/batch.rs`
//! (the queue and group commit), `sqlite/schema.rs` (migrations), `sqlite/flows.rs` (a flow's
//! row) and `sqlite/tasks.rs` (the tasks table). Not here: what the flows mean (the URL flows
//! that use the store decide that), nor a second connection or a pool.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::sealing::{StoreKey, check_database_files, key_path};
use super::{
    Flow, FlowId, FlowStatus, FlowStore, Secret, StoreError, StoreFuture, StoredTask, UserId,
    check_times, clamp_time, to_db_time,
};

mod batch;
mod flows;
mod schema;
mod tasks;

use batch::Job;
use flows::{RawFlow, one_flow, transition};
use schema::{migrate, seal_plain_secrets};

/// A `SELECT` of a whole flow, in [`RawFlow`]'s column order, followed by `$tail`.
macro_rules! select_flows {
    ($tail:literal) => {
        concat!(
            "SELECT id, user_id, kind, status, failure_reason, created_at_ms, expires_at_ms, \
             elicitation_id, session, lookup, data FROM flows ",
            $tail
        )
    };
}

/// A [`FlowStore`] in an SQLite file: every change is on disk when its call's future resolves,
/// so a restart of the server mid-flow loses nothing.
///
/// The file is the store's own (its tables are `flows`, `secrets`, `tasks` and `schema_version`).
/// Secrets and tasks are sealed at rest (ChaCha20-Poly1305, a random nonce each, bound to their
/// row: a secret's user and name, a task's id) with a [`StoreKey`] kept apart from the database:
/// by default the file `<database>.key` beside it ([`SqliteStore::open`]), or a key the server supplies
/// ([`SqliteStore::open_with_key`]). A copy of the database alone (a backup, a leftover `-wal`)
/// reveals no secret and no task's result; flows themselves (who started what, an OAuth flow's PKCE verifier until
/// it completes) are not sealed. On Unix every file of the store must be the user's own and
/// private (`0600`): the store creates them so, and refuses to use one that exists otherwise
/// ([`StoreError::NotPrivate`]). Keep it in a folder other users cannot write to.
///
/// One connection serves every call; calls that meet are committed together (see the module
/// documentation). A call's work is done on the thread of whoever holds the connection, briefly
/// (a few short statements per call): fine on an async runtime's workers. Another process may
/// open the same file (a second server, an admin's `sqlite3`); a transaction waits up to 5 s for
/// the other's lock.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    /// Seals the secrets.
    key: Arc<StoreKey>,
    /// Calls waiting for the connection, run by whoever holds it before it lets go.
    queue: Mutex<Vec<Job>>,
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens the store in the file at `path`, creating the file (its folder must exist) and the
    /// schema if needed, and bringing an older schema up to date. Secrets are sealed with the
    /// key in `<path>.key` ([`StoreKey::load_or_create`]: created beside the database when
    /// missing); [`SqliteStore::open_with_key`] takes a key from elsewhere. Any of the store's
    /// files that exists but belongs to another user or is open to others is refused
    /// ([`StoreError::NotPrivate`]). The journal is write-ahead
    /// (WAL) with `synchronous = NORMAL`: every committed change survives the server process
    /// stopping or crashing at any point (what a restart mid-flow needs); only a crash of the
    /// whole machine may lose the last few commits, which then read as flows still pending (the
    /// person starts again). Full sync would add a disk flush to every commit. A file that is not
    /// such a store — another database, garbage, a newer schema — is an error, and is left as it
    /// was.
    ///
    /// ```
    /// use interlude_server::url::{Flow, FlowStatus, FlowStore, SqliteStore, UserId};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let path = std::env::temp_dir().join(format!("flows-doc-{}.sqlite", std::process::id()));
    /// let now = 1_767_225_600_000;
    /// let flow = Flow::new(UserId::new("alice"), "oauth:github", now, 600_000);
    ///
    /// let store = SqliteStore::open(&path)?;
    /// store.insert_flow(&flow).await?;
    /// drop(store); // the server restarts
    ///
    /// let store = SqliteStore::open(&path)?;
    /// let done = FlowStatus::Completed;
    /// assert!(store.transition(&flow.id, &FlowStatus::Pending, done, now + 1).await?);
    /// # drop(store);
    /// # for suffix in ["", "-wal", "-shm"] {
    /// #     let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    /// # }
    /// # Ok(()) }
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        check_database_files(path)?;
        let key = StoreKey::load_or_create(key_path(path))?;
        Self::open_with_key(path, key)
    }

    /// Where [`SqliteStore::open`] keeps the key of the database at `path`: `<path>.key`.
    ///
    /// ```
    /// use std::path::Path;
    /// use interlude_server::url::SqliteStore;
    ///
    /// let key = SqliteStore::key_path(Path::new("/srv/mcp/flows.sqlite"));
    /// assert_eq!(key, Path::new("/srv/mcp/flows.sqlite.key"));
    /// ```
    pub fn key_path(path: &Path) -> PathBuf {
        key_path(path)
    }

    /// [`SqliteStore::open`] with secrets sealed by `key` (from a secrets manager, say, kept
    /// away from the database's backups) instead of a key file beside the database. A store
    /// opened with another key than the one its secrets were sealed with reads them as
    /// [`StoreError::Corrupt`].
    ///
    /// ```
    /// use interlude_server::url::{FlowStore, Secret, SqliteStore, StoreKey, UserId};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let path = std::env::temp_dir().join(format!("flows-key-doc-{}.sqlite", std::process::id()));
    /// let key = StoreKey::from_bytes([42u8; 32]); // in real life: from your secrets manager
    /// let store = SqliteStore::open_with_key(&path, key)?;
    /// store.put_secret(&UserId::new("ada"), "openai", &Secret::from("sk-1"), 0).await?;
    /// # drop(store);
    /// # for suffix in ["", "-wal", "-shm"] {
    /// #     let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    /// # }
    /// # Ok(()) }
    /// ```
    pub fn open_with_key(path: impl AsRef<Path>, key: StoreKey) -> Result<Self, StoreError> {
        let path = path.as_ref();
        create_private(path)?;
        check_database_files(path)?;
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
        Self::with_connection(conn, key)
    }

    /// A store in memory with the SQLite implementation (nothing survives it being dropped).
    pub fn in_memory() -> Result<Self, StoreError> {
        Self::with_connection(
            Connection::open_in_memory().map_err(backend)?,
            StoreKey::random(),
        )
    }

    fn with_connection(mut conn: Connection, key: StoreKey) -> Result<Self, StoreError> {
        // What is deleted or replaced (a secret written before sealing, an old value) is
        // overwritten, not left in free pages.
        conn.pragma_update(None, "secure_delete", "ON")
            .map_err(backend)?;
        migrate(&mut conn)?;
        seal_plain_secrets(&mut conn, &key)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            key: Arc::new(key),
            queue: Mutex::new(Vec::new()),
        })
    }
}

/// Runs one statement, from the connection's statement cache (the same few run again and
/// again).
fn execute(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// Runs `work` in a savepoint: its changes stand together or not at all.
fn atomically<T>(
    conn: &Connection,
    work: impl FnOnce() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    execute(conn, "SAVEPOINT call", []).map_err(backend)?;
    let result = work();
    let ended = match result {
        Ok(_) => execute(conn, "RELEASE call", []),
        Err(_) => {
            execute(conn, "ROLLBACK TO call", []).and_then(|_| execute(conn, "RELEASE call", []))
        }
    };
    ended.map_err(backend)?;
    result
}

fn put_secret(
    conn: &Connection,
    key: &StoreKey,
    user: &UserId,
    name: &str,
    secret: &Secret,
    now_ms: u64,
) -> Result<(), StoreError> {
    let sealed = key.seal(user, name, secret.expose())?;
    execute(
        conn,
        "INSERT INTO secrets (user_id, name, value, updated_at_ms, sealed) \
         VALUES (?1, ?2, ?3, ?4, 1) \
         ON CONFLICT (user_id, name) DO UPDATE SET value = excluded.value, \
         updated_at_ms = excluded.updated_at_ms, sealed = 1",
        params![user.as_str(), name, sealed, clamp_time(now_ms)],
    )
    .map_err(backend)?;
    Ok(())
}

impl FlowStore for SqliteStore {
    fn insert_flow<'a>(&'a self, flow: &'a Flow) -> StoreFuture<'a, ()> {
        let flow = flow.clone();
        self.call(true, move |conn| {
            check_times(&flow)?;
            let created = to_db_time("created_at_ms", flow.created_at_ms)?;
            let expires = to_db_time("expires_at_ms", flow.expires_at_ms)?;
            let finished = flow.status.is_finished().then_some(created);
            execute(
                conn,
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
                    flow.data.to_string(),
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
        })
    }

    fn flow<'a>(&'a self, id: &'a FlowId) -> StoreFuture<'a, Option<Flow>> {
        let id = id.clone();
        self.call(false, move |conn| {
            one_flow(conn, select_flows!("WHERE id = ?1"), id.as_str())
        })
    }

    fn flow_by_lookup<'a>(&'a self, lookup: &'a str) -> StoreFuture<'a, Option<Flow>> {
        let lookup = lookup.to_owned();
        self.call(false, move |conn| {
            one_flow(conn, select_flows!("WHERE lookup = ?1"), &lookup)
        })
    }

    fn transition<'a>(
        &'a self,
        id: &'a FlowId,
        from: &'a FlowStatus,
        to: FlowStatus,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        let (id, from) = (id.clone(), from.clone());
        self.call(true, move |conn| transition(conn, &id, &from, &to, now_ms))
    }

    fn claim<'a>(
        &'a self,
        id: &'a FlowId,
        from: Option<&'a str>,
        to: &'a str,
    ) -> StoreFuture<'a, bool> {
        let (id, from, to) = (id.clone(), from.map(str::to_owned), to.to_owned());
        self.call(true, move |conn| {
            let changed = execute(
                conn,
                "UPDATE flows SET claim = ?1 \
                 WHERE id = ?2 AND status = 'completed' AND claim IS ?3",
                params![to, id.as_str(), from],
            )
            .map_err(backend)?;
            Ok(changed == 1)
        })
    }

    fn set_data<'a>(&'a self, id: &'a FlowId, data: Value) -> StoreFuture<'a, bool> {
        let id = id.clone();
        self.call(true, move |conn| {
            let changed = execute(
                conn,
                "UPDATE flows SET data = ?1 WHERE id = ?2",
                params![data.to_string(), id.as_str()],
            )
            .map_err(backend)?;
            Ok(changed == 1)
        })
    }

    fn pending_flows_of<'a>(&'a self, user: &'a UserId, now_ms: u64) -> StoreFuture<'a, Vec<Flow>> {
        let user = user.clone();
        self.call(false, move |conn| {
            let mut statement = conn
                .prepare_cached(select_flows!(
                    "WHERE user_id = ?1 AND status = 'pending' AND expires_at_ms > ?2 \
                     ORDER BY created_at_ms, id"
                ))
                .map_err(backend)?;
            let raws = statement
                .query_map(params![user.as_str(), clamp_time(now_ms)], RawFlow::read)
                .map_err(backend)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(backend)?;
            raws.into_iter().map(RawFlow::into_flow).collect()
        })
    }

    fn expire(&self, now_ms: u64, keep_finished_ms: u64) -> StoreFuture<'_, usize> {
        self.call(true, move |conn| {
            atomically(conn, || {
                let mut changed = 0;
                if let Some(cutoff) = now_ms.checked_sub(keep_finished_ms) {
                    changed += execute(
                        conn,
                        "DELETE FROM flows WHERE status <> 'pending' AND finished_at_ms <= ?1",
                        [clamp_time(cutoff)],
                    )
                    .map_err(backend)?;
                }
                changed += execute(
                    conn,
                    "UPDATE flows SET status = 'expired', failure_reason = NULL, \
                     finished_at_ms = ?1 WHERE status = 'pending' AND expires_at_ms <= ?1",
                    [clamp_time(now_ms)],
                )
                .map_err(backend)?;
                changed += tasks::expire(conn, now_ms)?;
                Ok(changed)
            })
        })
    }

    fn put_task<'a>(&'a self, task: &'a StoredTask) -> StoreFuture<'a, ()> {
        let task = task.clone();
        let key = self.key.clone();
        self.call(true, move |conn| tasks::put(conn, &key, &task))
    }

    fn task<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredTask>> {
        let id = id.to_owned();
        let key = self.key.clone();
        self.call(false, move |conn| tasks::get(conn, &key, &id))
    }

    fn put_secret<'a>(
        &'a self,
        user: &'a UserId,
        name: &'a str,
        secret: &'a Secret,
        now_ms: u64,
    ) -> StoreFuture<'a, ()> {
        let (user, name, secret) = (user.clone(), name.to_owned(), secret.clone());
        let key = self.key.clone();
        self.call(true, move |conn| {
            put_secret(conn, &key, &user, &name, &secret, now_ms)
        })
    }

    fn secret<'a>(&'a self, user: &'a UserId, name: &'a str) -> StoreFuture<'a, Option<Secret>> {
        let (user, name) = (user.clone(), name.to_owned());
        let key = self.key.clone();
        self.call(false, move |conn| {
            let row: Option<(Vec<u8>, bool)> = conn
                .prepare_cached(
                    "SELECT value, sealed FROM secrets WHERE user_id = ?1 AND name = ?2",
                )
                .and_then(|mut statement| {
                    statement.query_row(params![user.as_str(), name], |row| {
                        Ok((row.get(0)?, row.get(1)?))
                    })
                })
                .optional()
                .map_err(backend)?;
            match row {
                None => Ok(None),
                // Written by an older version while this store was open.
                Some((value, false)) => Ok(Some(Secret(value))),
                Some((value, true)) => key
                    .open(&user, &name, &value)
                    .map(Secret)
                    .map(Some)
                    .ok_or_else(|| {
                        StoreError::Corrupt(
                            "secrets.value (sealed with another key than this store's, or altered)"
                                .to_owned(),
                        )
                    }),
            }
        })
    }

    fn delete_secret<'a>(&'a self, user: &'a UserId, name: &'a str) -> StoreFuture<'a, bool> {
        let (user, name) = (user.clone(), name.to_owned());
        self.call(true, move |conn| {
            let changed = execute(
                conn,
                "DELETE FROM secrets WHERE user_id = ?1 AND name = ?2",
                params![user.as_str(), name],
            )
            .map_err(backend)?;
            Ok(changed == 1)
        })
    }

    fn complete_with_secret<'a>(
        &'a self,
        id: &'a FlowId,
        user: &'a UserId,
        name: &'a str,
        secret: &'a Secret,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        let (id, user) = (id.clone(), user.clone());
        let (name, secret) = (name.to_owned(), secret.clone());
        let key = self.key.clone();
        self.call(true, move |conn| {
            atomically(conn, || {
                let completed = FlowStatus::Completed;
                if !transition(conn, &id, &FlowStatus::Pending, &completed, now_ms)? {
                    return Ok(false);
                }
                put_secret(conn, &key, &user, &name, &secret, now_ms)?;
                Ok(true)
            })
        })
    }
}

fn backend(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(Box::new(e))
}

/// On Unix, creates the file at `path` readable and writable by its owner only, unless it exists
/// (SQLite gives its `-wal` and `-shm` files the same permissions; an existing file is checked
/// by the caller). Elsewhere SQLite creates it.
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
