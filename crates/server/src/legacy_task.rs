//! The 2025-11-25 experimental tasks (SEP-1686), for a toolkit server: the same tools that run as
//! tasks of the Tasks extension with 2026-07-28 ([`Ask::task`](crate::Ask::task)) run as
//! 2025-11-25 tasks for a client that asks for one, with the same handler code.
//!
//! In that design the client opts in per call (`params.task` on a `tools/call`), for the tools
//! the server lists with `execution.taskSupport` (`optional` or `required`) once it declared
//! `capabilities.tasks.requests.tools.call`. It polls `tasks/get`, and when the task needs the
//! person (`input_required`) it calls `tasks/result`, on whose response the server pushes its
//! questions (`elicitation/create`, with the related-task `_meta`); `tasks/result` answers with
//! the tool's result once the task has ended. `tasks/cancel` stops it.
//!
//! rmcp 3.x speaks only the extension: it drops `params.task`, `execution` and
//! `capabilities.tasks`, reads `tasks/get` and `tasks/cancel` as the extension's (refusing them
//! to a client that did not declare it), and will not send a task to such a client. So the
//! work is split between the raw JSON and the handler (`wire.rs`):
//! - the toolkit's input checks ([`checked_lines`](crate::checked_lines) with
//!   [`checked`](crate::checked) on stdio, [`checked_http`](crate::checked_http)) keep a
//!   `tools/call`'s `params.task` in its `_meta`, and hand `tasks/get` and `tasks/cancel` to
//!   rmcp under names of the toolkit's own — on the 2025 wire only;
//! - [`TaskServer`] wraps the server's handler: it lets [`Ask::task`](crate::Ask::task) run a
//!   call that asked for a task as one, lists each named tool's task support, and serves
//!   `tasks/get`, `tasks/result` and `tasks/cancel` from the server's
//!   [`Tasks`](crate::task::Tasks) (`handler.rs` holds its `ServerHandler` impl);
//! - on the way out the same checks put what rmcp's types cannot hold: `capabilities.tasks` in
//!   a 2025-11-25 `initialize` result of a server served through [`TaskServer`] (it marks its
//!   capabilities), each tool's `execution`, and the `{task}` result of a task call.
//!
//! Inside the task nothing differs: each question becomes one of the task's input requests, and
//! `tasks/result` pushes it to the client and hands the answer back. Each task answers only the
//! session (or connection) that created it ([`Requestor`](crate::task::Requestor)): to another,
//! `tasks/get`, `tasks/cancel` and `tasks/result` say "unknown task", as for an id that never
//! was. Not offered: `tasks/list` (a method rmcp does not know, so -32601 for everyone: tasks
//! are not bound to a signed-in person yet, and the specification advises against listing them
//! then) and `notifications/tasks/status` (optional; clients poll).

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, CustomRequest,
    CustomResult, ErrorCode, ErrorData, GetMeta, GetTaskParams, InputRequest, ListToolsResult,
    ProtocolVersion, ServerRequest, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceError};
use serde_json::{Value, json};

mod handler;
pub(crate) mod http;
pub(crate) mod wire;

use crate::call::Call;
use crate::config::{AskServer, Requestor, ServesTasks, TaskSupport};

/// The `_meta` key that ties a message to the task it belongs to.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// How often `tasks/result` and `tasks/cancel` look at a task that is still working.
const WATCH: Duration = Duration::from_millis(50);

/// How long `tasks/cancel` waits for the task to settle before it answers with where it stands.
const CANCEL_WAIT: Duration = Duration::from_secs(2);

/// Whether the call served with `context` asked to run as a 2025-11-25 task, through a server
/// that can run it as one ([`TaskServer`], which marks its calls [`ServesTasks`]).
pub(crate) fn requested(context: &RequestContext<RoleServer>) -> bool {
    is_2025_11_25(context)
        && context
            .extensions
            .get::<ServesTasks>()
            .is_some_and(|served| served.0)
        && context.meta.get(wire::MARK).is_some_and(Value::is_object)
}

fn is_2025_11_25(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v == ProtocolVersion::V_2025_11_25)
}

/// A server's handler with its tasks wired, in both designs: serve it in place of the
/// handler, and name each tool whose handler runs as a task ([`TaskServer::tool`]). That is
/// all a server needs for [`Ask::task`](crate::Ask::task):
///
/// - the Tasks extension (2026-07-28): `io.modelcontextprotocol/tasks` declared in the
///   server's capabilities, and `tasks/get`, `tasks/update`, `tasks/cancel` answered from the
///   server's [`Tasks`](crate::task::Tasks) (its [`AskConfig`](crate::AskConfig)'s);
/// - the 2025-11-25 experimental tasks (see the module documentation): `capabilities.tasks`,
///   each named tool's `execution.taskSupport`, `params.task` honoured, `tasks/get`,
///   `tasks/result` and `tasks/cancel`. These need the toolkit's input checks on the
///   transport: [`checked_stdio`](crate::checked_stdio) on stdio,
///   [`checked_http`](crate::checked_http) on streamable HTTP.
///
/// Every other request goes to the handler as it is. A server that is not served through it
/// (nor declares the extension itself and forwards `tasks/*`) runs its task tools as ordinary
/// calls: [`Ask::task`](crate::Ask::task) never answers with a task nobody could poll.
///
/// ```no_run
/// # async fn run<S>(server: S) -> Result<(), Box<dyn std::error::Error>>
/// # where S: rmcp::ServerHandler + interlude_server::AskServer {
/// use interlude_server::task::{TaskServer, TaskSupport};
/// use rmcp::ServiceExt;
///
/// let served = TaskServer::new(server).tool("deploy_release", TaskSupport::Optional);
/// served.serve(interlude_server::checked_stdio()).await?.waiting().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct TaskServer<H> {
    inner: H,
    /// The tools that run as tasks, and how.
    tools: Arc<BTreeMap<String, TaskSupport>>,
    /// The questions `tasks/result` calls are pushing now (`task id`, `key`): each is pushed
    /// by one of them at a time.
    pushing: Arc<Mutex<HashSet<(String, String)>>>,
}

/// The former name of [`TaskServer`], which wired only the 2025-11-25 tasks.
pub type LegacyTasks<H> = TaskServer<H>;

impl<H> TaskServer<H> {
    /// `inner`, with no tool named yet.
    pub fn new(inner: H) -> Self {
        TaskServer {
            inner,
            tools: Arc::default(),
            pushing: Arc::default(),
        }
    }

    /// Names a tool whose handler runs as a task ([`Ask::task`](crate::Ask::task)), with the
    /// support its handler gives: listed to 2025-11-25 clients as `execution.taskSupport`
    /// (the extension has no per-tool declaration: any tool may answer with a task there).
    /// A `Required` tool called there without `params.task` is refused -32601, as the
    /// specification asks.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, support: TaskSupport) -> Self {
        Arc::make_mut(&mut self.tools).insert(name.into(), support);
        self
    }

    /// The handler inside.
    pub fn inner(&self) -> &H {
        &self.inner
    }
}

impl<H: ServerHandler + AskServer> TaskServer<H> {
    /// `tools/list`: on 2025-11-25, each named tool's task support under its `_meta`, which
    /// the way out turns into `execution`.
    fn with_task_support(
        &self,
        mut listed: ListToolsResult,
        context: &RequestContext<RoleServer>,
    ) -> ListToolsResult {
        if !is_2025_11_25(context) {
            return listed;
        }
        for tool in &mut listed.tools {
            if let Some(support) = self.tools.get(tool.name.as_ref()) {
                let support = match support {
                    TaskSupport::Optional => "optional",
                    TaskSupport::Required => "required",
                };
                tool.meta
                    .get_or_insert_with(Default::default)
                    .insert(wire::TASK_SUPPORT.to_owned(), Value::from(support));
            }
        }
        listed
    }

    /// `tools/call` on 2025-11-25: a `Required` tool without `params.task` refused; a call that
    /// asked for a task run by the handler (its `Ask::task` makes it one), the task it created
    /// carried out under `_meta` for the way out to turn into `{task}` — rmcp would refuse a
    /// task to a client that did not declare the extension.
    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        context.extensions.insert(ServesTasks(true));
        if !is_2025_11_25(&context) {
            return self.inner.call_tool(params, context).await;
        }
        let name = params.name.to_string();
        let asked = context.meta.get(wire::MARK).is_some();
        if !asked && self.tools.get(&name) == Some(&TaskSupport::Required) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "Tool {name} requires task augmentation (taskSupport: 'required'): call it \
                     with `params.task`"
                ),
                None,
            ));
        }
        match self.inner.call_tool(params, context).await? {
            CallToolResponse::Task(created) => {
                let mut carried = CallToolResult::success(vec![]);
                let mut meta = rmcp::model::MetaObject::new();
                meta.insert(wire::CREATED.to_owned(), legacy_task(&created.task));
                carried.meta = Some(meta);
                Ok(CallToolResponse::Complete(carried))
            }
            other => Ok(other),
        }
    }

    /// A request rmcp hands on as custom: the 2025-11-25 task methods, or the handler's own.
    async fn custom(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let task_id = || {
            request
                .params
                .as_ref()
                .and_then(|p| p.get("taskId"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("{} needs `params.taskId`, a string", shown(&request.method)),
                        Some(json!({"field": "params.taskId"})),
                    )
                })
        };
        // Each task answers only its requestor: another's is an unknown id.
        let requestor = Requestor::of(&context);
        match request.method.as_str() {
            wire::GET => self.get(&task_id()?, &requestor).await.map(CustomResult),
            wire::CANCEL => self.cancel(&task_id()?, &requestor).await.map(CustomResult),
            "tasks/result" if is_2025_11_25(&context) => {
                self.result(&task_id()?, context).await.map(CustomResult)
            }
            _ => self.inner.on_custom_request(request, context).await,
        }
    }

    /// `tasks/get`: the task in 2025-11-25's terms.
    async fn get(&self, id: &str, requestor: &Requestor) -> Result<Value, ErrorData> {
        let got = self
            .inner
            .ask_config()
            .tasks()
            .get(&GetTaskParams::new(id), requestor)
            .await?;
        Ok(legacy_task(&got.task))
    }

    /// `tasks/cancel`: -32602 for a task that had ended already; otherwise the task, once it
    /// settled (or where it stands after a moment, since cancelling is the handler's to heed).
    async fn cancel(&self, id: &str, requestor: &Requestor) -> Result<Value, ErrorData> {
        let tasks = self.inner.ask_config().tasks();
        let before = tasks.get(&GetTaskParams::new(id), requestor).await?;
        if before.task.status().is_terminal() {
            return Err(ErrorData::invalid_params(
                format!(
                    "Cannot cancel task {id}: it has ended ({})",
                    status_name(before.task.status())
                ),
                None,
            ));
        }
        tasks.cancel(&CancelTaskParams::new(id), requestor).await?;
        let deadline = tokio::time::Instant::now() + CANCEL_WAIT;
        loop {
            let now = tasks.get(&GetTaskParams::new(id), requestor).await?;
            if now.task.status().is_terminal() || tokio::time::Instant::now() >= deadline {
                return Ok(legacy_task(&now.task));
            }
            tokio::time::sleep(WATCH).await;
        }
    }

    /// `tasks/result`: pushes the task's questions as they come and hands their answers to
    /// it, until it ends; then its result (or its error), tied to the task by `_meta`. Only
    /// for the task's requestor: another session gets "unknown task", and never its
    /// questions.
    async fn result(
        &self,
        id: &str,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let id = id.to_owned();
        let requestor = Requestor::of(&context);
        let config = self.inner.ask_config().clone();
        let call = Call::new(&config, context);
        loop {
            let now = config
                .tasks()
                .get(&GetTaskParams::new(&id), &requestor)
                .await?;
            let detailed = serde_json::to_value(&now.task).unwrap_or(Value::Null);
            match now.task.status() {
                TaskStatus::Completed => {
                    let mut result = detailed.get("result").cloned().unwrap_or(json!({}));
                    if let Some(result) = result.as_object_mut() {
                        // The result as a plain 2025-11-25 `tools/call` gives it: the
                        // extension's copy carries 2026-07-28's `resultType`.
                        result.remove("resultType");
                        result.insert("_meta".to_owned(), json!({RELATED_TASK: {"taskId": id}}));
                    }
                    return Ok(result);
                }
                TaskStatus::Failed => {
                    let error = detailed.get("error").cloned().unwrap_or(Value::Null);
                    return Err(serde_json::from_value(error).unwrap_or_else(|_| {
                        ErrorData::internal_error(format!("task {id} failed"), None)
                    }));
                }
                TaskStatus::Cancelled => {
                    return Err(ErrorData::internal_error(
                        format!("task {id} was cancelled"),
                        None,
                    ));
                }
                _ => {}
            }
            let asked = detailed
                .get("inputRequests")
                .and_then(Value::as_object)
                .and_then(|requests| {
                    requests
                        .iter()
                        .find(|(key, _)| self.claim(&id, key))
                        .map(|(key, request)| (key.clone(), request.clone()))
                });
            let Some((key, asked)) = asked else {
                tokio::select! {
                    () = tokio::time::sleep(WATCH) => continue,
                    () = call.context.ct.cancelled() => {
                        return Err(ErrorData::internal_error("tasks/result was cancelled", None));
                    }
                }
            };
            let answered = self.push(&call, &id, &requestor, asked).await;
            self.release(&id, &key);
            match answered {
                // The task ended meanwhile (its question was taken back): its end is next.
                None if !call.context.ct.is_cancelled() => {}
                // The call was cancelled: the task goes on without this caller.
                None => {
                    return Err(ErrorData::internal_error(
                        "tasks/result was cancelled",
                        None,
                    ));
                }
                Some(answer) => {
                    let mut responses = BTreeMap::new();
                    responses.insert(key, answer);
                    config
                        .tasks()
                        .update(UpdateTaskParams::new(&id, responses), &requestor)
                        .await?;
                }
            }
        }
    }

    /// Pushes one of task `id`'s questions to the client on `call`'s stream; its answer as the
    /// task takes it (a person's refusal of a sampling request, or a failure, as an error
    /// object), or None when `tasks/result` was cancelled first or the task ended (the question
    /// is then taken back with `notifications/cancelled`).
    async fn push(
        &self,
        call: &Call,
        id: &str,
        requestor: &Requestor,
        asked: Value,
    ) -> Option<Value> {
        let request = serde_json::from_value::<InputRequest>(asked)
            .ok()
            .and_then(|request| match request {
                InputRequest::CreateMessage(r) => Some(ServerRequest::CreateMessageRequest(r)),
                InputRequest::Elicitation(r) => Some(ServerRequest::ElicitRequest(r)),
                InputRequest::ListRoots(r) => Some(ServerRequest::ListRootsRequest(r)),
                _ => None,
            });
        let Some(mut request) = request else {
            return Some(
                json!({"error": {"code": -32603, "message": "the question cannot be sent"}}),
            );
        };
        let meta = request.get_meta_mut();
        *meta = crate::wire::related_to(&call.context.id);
        meta.insert(RELATED_TASK.to_owned(), json!({"taskId": id}));
        // The task may end while its question waits (cancelled, say): the question is then
        // taken back from the client.
        let tasks = self.inner.ask_config().tasks().clone();
        let task = id.to_owned();
        let requestor = requestor.clone();
        let ended = async move {
            loop {
                tokio::time::sleep(WATCH).await;
                match tasks.get(&GetTaskParams::new(&task), &requestor).await {
                    Ok(now) if !now.task.status().is_terminal() => {}
                    _ => return,
                }
            }
        };
        let asked = crate::push::ask_client_until(call, request, ended, "the task ended");
        match asked.await {
            Err(e) => Some(json!({"error": {"code": -32603, "message": e.to_string()}})),
            Ok(None) => None,
            Ok(Some(Ok(result))) => Some(serde_json::to_value(result).unwrap_or(Value::Null)),
            Ok(Some(Err(ServiceError::McpError(e)))) => Some(json!({"error": e})),
            Ok(Some(Err(e))) => Some(json!({"error": {"code": -32603, "message": e.to_string()}})),
        }
    }

    /// Takes question `key` of task `id` to push it; false when another `tasks/result` has it.
    fn claim(&self, id: &str, key: &str) -> bool {
        self.pushing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((id.to_owned(), key.to_owned()))
    }

    fn release(&self, id: &str, key: &str) {
        self.pushing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(id.to_owned(), key.to_owned()));
    }
}

/// The name a client used for a method the toolkit renamed.
fn shown(method: &str) -> &str {
    match method {
        wire::GET => "tasks/get",
        wire::CANCEL => "tasks/cancel",
        other => other,
    }
}

/// A task of the extension (`tasks/get`'s answer, or the seed a task call returns) in
/// 2025-11-25's terms: its fields alone, `ttl` and `pollInterval` for `ttlMs` and
/// `pollIntervalMs`; what the extension inlines (`inputRequests`, `result`, `error`) is left
/// to `tasks/result`.
fn legacy_task(task: &impl serde::Serialize) -> Value {
    let Ok(Value::Object(mut fields)) = serde_json::to_value(task) else {
        return Value::Null;
    };
    for inlined in ["inputRequests", "result", "error", "resultType"] {
        fields.remove(inlined);
    }
    if let Some(ttl) = fields.remove("ttlMs") {
        fields.insert("ttl".to_owned(), ttl);
    }
    if let Some(interval) = fields.remove("pollIntervalMs") {
        fields.insert("pollInterval".to_owned(), interval);
    }
    Value::Object(fields)
}

fn status_name(status: TaskStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
