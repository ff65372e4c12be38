//! A server's tasks as its session sees them: the list a 2025-11-25 server offers
//! ([`Connection::list_tasks`]), the custom requests that design is spoken in (rmcp no longer
//! types it), and the `tasks/cancel` requests still on their way when the connection closes
//! ([`Farewells`]). Following one call's task is the call's (`crate::call`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use interlude_engine::CallId;

use super::Connection;
use crate::hub::config::HostError;

/// The `tasks/cancel` requests still on their way: [`Connection::close`] waits for them (a
/// moment at most) before it closes, so a call cancelled just before its connection closes
/// still stops its task at the server.
#[derive(Debug, Default)]
pub(crate) struct Farewells {
    sending: AtomicUsize,
    done: tokio::sync::Notify,
}

impl Farewells {
    /// Sends `farewell` on a task of its own, counted until it is sent (or failed).
    pub(crate) fn send(self: &Arc<Self>, farewell: impl Future<Output = ()> + Send + 'static) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        self.sending.fetch_add(1, Ordering::SeqCst);
        let me = Arc::clone(self);
        runtime.spawn(async move {
            farewell.await;
            if me.sending.fetch_sub(1, Ordering::SeqCst) == 1 {
                me.done.notify_waiters();
            }
        });
    }

    /// Waits until none is on its way, or `within` passed.
    pub(crate) async fn sent(&self, within: Duration) {
        let all = async {
            loop {
                let notified = self.done.notified();
                if self.sending.load(Ordering::SeqCst) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(within, all).await;
    }
}

impl Connection {
    /// Sends `method` with `params` as a request of call `call` (tagged: the questions its server
    /// pushes while it is open are the call's) and returns what came back, as JSON.
    pub(crate) async fn custom(
        &self,
        call: Option<CallId>,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, HostError> {
        let mut request = rmcp::model::CustomRequest::new(method, Some(params));
        if let Some(call) = call {
            request
                .extensions
                .insert(crate::transport::tap::CallTag(call));
        }
        let result = self
            .inner
            .peer
            .send_request(rmcp::model::ClientRequest::CustomRequest(request))
            .await
            .map_err(|e| self.service_error(format!("`{method}`"), e))?;
        Ok(serde_json::to_value(result).unwrap_or(serde_json::Value::Null))
    }
}

/// One task of a server's list (`tasks/list`, 2025-11-25).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedTask {
    /// The server's id of the task.
    pub id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// What the server says it is doing.
    pub status_message: Option<String>,
    /// When it was created, as the server wrote it (ISO 8601).
    pub created_at: Option<String>,
    /// When it last changed, likewise.
    pub last_updated_at: Option<String>,
}

impl Connection {
    /// The server's tasks (`tasks/list`, the 2025-11-25 experimental tasks; at most
    /// [`MAX_LISTED`](crate::MAX_LISTED)), or `None` when it offers no list: a 2026-07-28 server
    /// (the Tasks extension has none), or one that answers the method is not found.
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// for task in conn.list_tasks().await?.unwrap_or_default() {
    ///     println!("{} {}", task.id, task.status);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list_tasks(&self) -> Result<Option<Vec<ListedTask>>, HostError> {
        if self.inner.info.era != interlude_protocol::ProtocolEra::Push {
            return Ok(None);
        }
        let request = rmcp::model::CustomRequest::new("tasks/list", Some(serde_json::json!({})));
        let listed = match self
            .inner
            .peer
            .send_request(rmcp::model::ClientRequest::CustomRequest(request))
            .await
        {
            Ok(result) => serde_json::to_value(result).unwrap_or(serde_json::Value::Null),
            Err(rmcp::ServiceError::McpError(e)) if e.code.0 == -32601 => return Ok(None),
            Err(e) => return Err(self.service_error("listing its tasks".into(), e)),
        };
        let text = |task: &serde_json::Value, field: &str| {
            task.get(field)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        let tasks = listed
            .get("tasks")
            .and_then(serde_json::Value::as_array)
            .map(|tasks| {
                tasks
                    .iter()
                    .take(super::catalog::MAX_LISTED)
                    .filter_map(|task| {
                        Some(ListedTask {
                            id: text(task, "taskId")?,
                            status: text(task, "status").unwrap_or_else(|| "working".into()),
                            status_message: text(task, "statusMessage"),
                            created_at: text(task, "createdAt"),
                            last_updated_at: text(task, "lastUpdatedAt"),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Some(tasks))
    }
}
