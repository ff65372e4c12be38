//! [`UrlFlows`]: the URL flows of one server and their bookkeeping — starting a flow for a
//! user, waiting for it, completing, declining or failing it from its page (which wakes the
//! call waiting for it and, on 2025-11-25, tells the client that started it), and following it
//! for a client that asks how it ended (`elicitation/track`, `interaction/notify`). Also what a
//! flow is for ([`FlowKind`]) and why one could not be started ([`FlowError`]).
//!
//! The tool's side — sending the person through a flow in the call's era — is in `run.rs`,
//! above this file; the pages (`pages.rs`) and the seed-000 `interaction/notify` and `ua` are
//! above it too. This file knows none of them.
//!
//! Every flow is bound to the user of the MCP request ([`Identity::mcp_user`]); its page
//! completes it only for that user (`pages.rs`).
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_protocol::Answer;
use interlude_protocol::url::ELICITATION_COMPLETE_METHOD;
use rmcp::ErrorData;
use rmcp::model::{CustomNotification, ServerNotification};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::ask::Ask;
use crate::error::AskError;
use crate::url::identity::Identity;
use crate::url::oauth::OAuthProvider;
pub(crate) use crate::url::store::now_ms;
use crate::url::store::{Flow, FlowId, FlowStatus, FlowStore, Secret, StoreError, UserId};

/// What a flow is for; it decides which page the link opens.
///
/// ```
/// use interlude_server::url::FlowKind;
/// let kind = FlowKind::api_key("openai", "OpenAI API key");
/// assert_eq!(kind.as_stored(), "api_key:openai");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FlowKind {
    /// A page asking for an API key, kept as the user's secret `name`.
    ApiKey {
        /// The secret's name in the store (`openai`).
        name: String,
        /// What the page calls it ("OpenAI API key").
        label: String,
    },
    /// Connecting the user's account at a third party this server is an OAuth client of
    /// ([`UrlFlows::with_oauth`]); the tokens are kept as the secret `oauth:<provider>`.
    OAuth {
        /// The provider's name.
        provider: String,
    },
    /// A page where the person confirms (or declines) something the server describes — a
    /// payment, a transfer, a deletion — out of reach of the client and the model.
    Confirm {
        /// What it is, for the store (`payment`).
        name: String,
        /// The page's heading ("Confirm a payment").
        title: String,
        /// What exactly is confirmed, in plain text ("€12.00 to Example Shop, order 4711").
        detail: String,
    },
}

impl FlowKind {
    /// A page asking for the API key called `label`, stored as secret `name`.
    pub fn api_key(name: impl Into<String>, label: impl Into<String>) -> Self {
        FlowKind::ApiKey {
            name: name.into(),
            label: label.into(),
        }
    }

    /// Connecting the user's account at the OAuth provider called `provider`.
    pub fn oauth(provider: impl Into<String>) -> Self {
        FlowKind::OAuth {
            provider: provider.into(),
        }
    }

    /// A page confirming `detail` under the heading `title`.
    pub fn confirm(
        name: impl Into<String>,
        title: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        FlowKind::Confirm {
            name: name.into(),
            title: title.into(),
            detail: detail.into(),
        }
    }

    /// How the store names it: `api_key:<name>`, `oauth:<provider>` or `confirm:<name>`.
    pub fn as_stored(&self) -> String {
        match self {
            FlowKind::ApiKey { name, .. } => format!("api_key:{name}"),
            FlowKind::OAuth { provider } => format!("oauth:{provider}"),
            FlowKind::Confirm { name, .. } => format!("confirm:{name}"),
        }
    }

    /// What the page needs to remember about it.
    fn data(&self) -> Value {
        match self {
            FlowKind::ApiKey { label, .. } => json!({ "label": label }),
            // The PKCE verifier: it leaves this server only for the token endpoint.
            FlowKind::OAuth { .. } => json!({ "verifier": crate::url::oauth::random_token() }),
            FlowKind::Confirm { title, detail, .. } => json!({ "title": title, "detail": detail }),
        }
    }

    /// The kind of a stored flow.
    pub(crate) fn of(flow: &Flow) -> Option<FlowKind> {
        let (kind, name) = flow.kind.split_once(':')?;
        match kind {
            "api_key" => Some(FlowKind::ApiKey {
                name: name.to_owned(),
                label: flow
                    .data
                    .get("label")
                    .and_then(Value::as_str)
                    .unwrap_or(name)
                    .to_owned(),
            }),
            "oauth" => Some(FlowKind::OAuth {
                provider: name.to_owned(),
            }),
            "confirm" => {
                let text = |key: &str| {
                    flow.data
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                Some(FlowKind::Confirm {
                    name: name.to_owned(),
                    title: text("title"),
                    detail: text("detail"),
                })
            }
            _ => None,
        }
    }
}

/// Why a flow could not be started or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// The server cannot tell who the MCP request is for.
    #[error("this server cannot tell who you are, so it cannot start a flow for you")]
    NoUser,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No OAuth provider of that name was added ([`UrlFlows::with_oauth`]).
    #[error("no OAuth provider called `{0}` is configured")]
    NoProvider(String),
}

impl From<FlowError> for AskError {
    fn from(e: FlowError) -> Self {
        match e {
            FlowError::NoUser => AskError::Tool(ErrorData::invalid_request(e.to_string(), None)),
            FlowError::Store(e) => AskError::Tool(ErrorData::internal_error(
                format!("the flow store failed: {e}"),
                None,
            )),
            e @ FlowError::NoProvider(_) => {
                AskError::Tool(ErrorData::internal_error(e.to_string(), None))
            }
        }
    }
}

/// Who waits for a flow of this process to finish.
struct Waiting {
    done: Arc<Notify>,
    /// The client to tell on 2025-11-25, and the `elicitationId` it knows the flow by.
    announce: Option<(Peer<RoleServer>, String)>,
}

pub(crate) struct Inner {
    pub(crate) store: Arc<dyn FlowStore>,
    /// Where the pages are mounted, without a trailing `/`: a flow's URL is `<base>/<id>`.
    pub(crate) base: String,
    pub(crate) identity: Arc<dyn Identity>,
    pub(crate) server_name: String,
    /// Where a person who is not signed in is sent, with `?next=<the flow's URL>`.
    pub(crate) sign_in: Option<String>,
    /// The third parties this server is an OAuth client of.
    pub(crate) providers: Vec<OAuthProvider>,
    /// For token endpoints, made when the first provider is added.
    pub(crate) http: Option<reqwest::Client>,
    ttl: Duration,
    waiting: Mutex<HashMap<FlowId, Waiting>>,
    /// The key of the pages' form tokens (`pages.rs`).
    pub(crate) form_key: [u8; 32],
}

/// The URL flows of one server: start them from tools, serve their pages
/// ([`UrlFlows::router`]), learn how they ended. Cheap to clone; create it once per server.
///
/// ```no_run
/// use std::sync::Arc;
/// use interlude_server::url::{FlowKind, LocalUser, SignedCookie, SqliteStore, UrlFlows, UserId};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = Arc::new(SqliteStore::open("flows.sqlite")?);
/// let identity = LocalUser::new(UserId::new("ada"), SignedCookie::random("my_server_user"));
/// let flows = UrlFlows::new(store, "https://mcp.example.com/flows", identity);
/// // Mount the pages where the base URL says:
/// let app: axum::Router = axum::Router::new().nest("/flows", flows.router());
/// # let _ = app;
/// // In a tool: `flows.run(&ask, &FlowKind::api_key("openai", "OpenAI API key"), "…").await?`
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct UrlFlows {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for UrlFlows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UrlFlows")
            .field("base", &self.inner.base)
            .finish_non_exhaustive()
    }
}

/// How often [`UrlFlows::track`] looks at the store again.
const TRACK_POLL: Duration = Duration::from_millis(250);

/// How long a flow stays open by default.
pub const DEFAULT_FLOW_TTL: Duration = Duration::from_secs(15 * 60);

impl UrlFlows {
    /// Flows kept in `store`, with pages under `base` (an absolute URL, where
    /// [`UrlFlows::router`] is mounted), bound to users by `identity`.
    pub fn new(store: Arc<dyn FlowStore>, base: &str, identity: impl Identity) -> Self {
        UrlFlows {
            inner: Arc::new(Inner {
                store,
                base: base.trim_end_matches('/').to_owned(),
                identity: Arc::new(identity),
                server_name: "this server".to_owned(),
                sign_in: None,
                providers: Vec::new(),
                http: None,
                ttl: DEFAULT_FLOW_TTL,
                waiting: Mutex::new(HashMap::new()),
                form_key: {
                    let mut key = [0u8; 32];
                    rand::RngCore::fill_bytes(&mut rand::rng(), &mut key);
                    key
                },
            }),
        }
    }

    /// How long a flow stays open (default 15 minutes). Call before cloning.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.ttl = ttl;
        }
        self
    }

    /// The key of the form tokens the pages embed and check on a post (an HMAC of the flow and
    /// its user). Random by default, which is right when one process serves the pages; servers
    /// whose pages are served by several replicas (a page shown by one, its form posted to
    /// another) give them all the same key. Call before cloning.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use interlude_server::url::{LocalUser, MemoryStore, SignedCookie, UrlFlows, UserId};
    ///
    /// let identity = LocalUser::new(UserId::new("ada"), SignedCookie::random("user"));
    /// let flows = UrlFlows::new(Arc::new(MemoryStore::default()), "https://mcp.example.com/flows", identity)
    ///     .with_form_key([9u8; 32]); // in real life: shared by the replicas, kept secret
    /// # let _ = flows;
    /// ```
    #[must_use]
    pub fn with_form_key(mut self, key: [u8; 32]) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.form_key = key;
        }
        self
    }

    /// The name the pages give this server ("this server" by default). Call before cloning.
    #[must_use]
    pub fn with_server_name(mut self, name: impl Into<String>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.server_name = name.into();
        }
        self
    }

    /// Where the pages send a person who is not signed in: `url?next=<the flow's URL>` (the
    /// server's own login, which sets the cookie [`Identity::page_user`] reads). Call before
    /// cloning.
    #[must_use]
    pub fn with_sign_in(mut self, url: impl Into<String>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.sign_in = Some(url.into());
        }
        self
    }

    /// Adds a third party this server is an OAuth client of (its redirect URI there must be
    /// `<base>/oauth/callback`). Call before cloning.
    #[must_use]
    pub fn with_oauth(mut self, provider: OAuthProvider) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.providers.retain(|p| p.name != provider.name);
            inner.providers.push(provider);
            if inner.http.is_none() {
                inner.http = Some(crate::url::oauth::http_client());
            }
        }
        self
    }

    /// The OAuth redirect URI to register with providers: `<base>/oauth/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("{}/oauth/callback", self.inner.base)
    }

    pub(crate) fn provider(&self, name: &str) -> Option<&OAuthProvider> {
        self.inner.providers.iter().find(|p| p.name == name)
    }

    /// The store underneath.
    pub fn store(&self) -> &Arc<dyn FlowStore> {
        &self.inner.store
    }

    /// The base URL the pages are under (as given to [`UrlFlows::new`], without a trailing
    /// `/`).
    pub fn url_of_base(&self) -> String {
        self.inner.base.clone()
    }

    /// The page of flow `id`.
    pub fn url_of(&self, id: &FlowId) -> String {
        format!("{}/{}", self.inner.base, id.as_str())
    }

    /// The user of this call, as the server's [`Identity`] says.
    pub fn user(&self, ask: &Ask) -> Result<UserId, FlowError> {
        self.inner
            .identity
            .mcp_user(ask.context())
            .ok_or(FlowError::NoUser)
    }

    /// The user of a request (`interaction/notify`), as the server's [`Identity`] says.
    pub(crate) fn user_of(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<UserId, FlowError> {
        self.inner
            .identity
            .mcp_user(context)
            .ok_or(FlowError::NoUser)
    }

    /// The secret `name` of this call's user, if a flow stored one.
    pub async fn secret(&self, ask: &Ask, name: &str) -> Result<Option<Secret>, FlowError> {
        let user = self.user(ask)?;
        Ok(self.inner.store.secret(&user, name).await?)
    }

    /// A new flow of `kind` for `user`, not yet stored.
    pub(crate) fn new_flow(&self, user: UserId, kind: &FlowKind) -> Result<Flow, FlowError> {
        let ttl = u64::try_from(self.inner.ttl.as_millis()).unwrap_or(u64::MAX);
        let mut flow = Flow::new(user, kind.as_stored(), now_ms(), ttl);
        flow.data = kind.data();
        if let FlowKind::OAuth { provider } = kind {
            if self.provider(provider).is_none() {
                return Err(FlowError::NoProvider(provider.clone()));
            }
            // The `state` the provider sends back finds the flow; unguessable, like its id.
            flow.lookup = Some(crate::url::oauth::random_token());
        }
        Ok(flow)
    }

    /// Stores `flow`: it has started.
    pub(crate) async fn store_new(&self, flow: &Flow) -> Result<(), FlowError> {
        self.inner.store.insert_flow(flow).await?;
        tracing::info!(flow = %flow.id, kind = %flow.kind, "URL flow started");
        Ok(())
    }

    /// Starts a new flow of `kind` for `user`.
    pub(crate) async fn start(&self, user: UserId, kind: &FlowKind) -> Result<Flow, FlowError> {
        let flow = self.new_flow(user, kind)?;
        self.store_new(&flow).await?;
        Ok(flow)
    }

    /// Waits, after the person consented, until flow `id` is over (its page completed or
    /// declined it, it expired) or the call is cancelled; `done` is woken by this process's
    /// pages.
    pub(crate) async fn until_over(
        &self,
        ask: &Ask,
        id: &FlowId,
        done: &Notify,
    ) -> Result<Answer<Flow>, AskError> {
        loop {
            let notified = done.notified();
            let current = self.inner.store.flow(id).await.map_err(FlowError::from)?;
            let Some(current) = current else {
                return Ok(Answer::Cancelled);
            };
            match current.status {
                FlowStatus::Completed => return Ok(Answer::Accepted(current)),
                FlowStatus::Pending if !current.is_expired(now_ms()) => {}
                FlowStatus::Declined => return Ok(Answer::Declined),
                _ => return Ok(Answer::Cancelled),
            }
            let left = current.expires_at_ms.saturating_sub(now_ms());
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep(Duration::from_millis(left)) => {}
                () = ask.context().ct.cancelled() => return Ok(Answer::Cancelled),
            }
        }
    }

    /// Answers the draft's `elicitation/track` request (seed 003; call it from
    /// `ServerHandler::on_custom_request` for that method): once the flow named by
    /// `elicitationId` is over, `{"status": "complete"}` (or `declined`, `failed`, `expired`);
    /// meanwhile a progress notification on the request's `_meta.progressToken`, if it has one.
    /// An id that is unknown, or names another user's flow, is an error (-32602).
    pub async fn track(
        &self,
        params: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let unknown = || {
            ErrorData::invalid_params(
                "`elicitationId` names no URL elicitation of yours",
                Some(json!({ "field": "elicitationId" })),
            )
        };
        let id = params
            .and_then(|p| p.get("elicitationId"))
            .and_then(Value::as_str)
            .and_then(|id| FlowId::parse(id).ok())
            .ok_or_else(unknown)?;
        let user = self.inner.identity.mcp_user(context).ok_or_else(unknown)?;
        let token = progress_token(params, context);
        match self.follow(&id, &user, token.as_ref(), context).await? {
            Some(status) => Ok(json!({ "status": status })),
            None => Err(unknown()),
        }
    }

    /// Follows flow `id` of `user` until it is over, telling the client once, on `token`, that
    /// it waits for the person; returns how it ended in the drafts' words (`complete`,
    /// `declined`, `failed`, `expired`), or None when the flow is unknown or another user's.
    /// Polls the store, so a page served by another process counts.
    pub(crate) async fn follow(
        &self,
        id: &FlowId,
        user: &UserId,
        token: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<&'static str>, ErrorData> {
        let mut told = false;
        loop {
            let Some(flow) = self
                .inner
                .store
                .flow(id)
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
                .filter(|f| &f.user == user)
            else {
                return Ok(None);
            };
            // The drafts' word for done is `complete`.
            let status = match flow.status {
                FlowStatus::Pending if flow.is_expired(now_ms()) => "expired",
                FlowStatus::Pending => "",
                FlowStatus::Completed => "complete",
                ref other => other.name(),
            };
            if !status.is_empty() {
                return Ok(Some(status));
            }
            if let (false, Some(token)) = (told, token) {
                told = true;
                let progress = serde_json::from_value(json!({
                    "progressToken": token,
                    "progress": 0,
                    "message": "waiting for the person to finish in the browser",
                }));
                if let Ok(progress) = progress {
                    let _ = context.peer.notify_progress(progress).await;
                }
            }
            // The page may run in another process (a shared store): look again now and then.
            tokio::select! {
                () = tokio::time::sleep(TRACK_POLL) => {}
                () = context.ct.cancelled() => {
                    return Err(ErrorData::internal_error("the tracking request was cancelled", None));
                }
            }
        }
    }

    pub(crate) fn wait_for(
        &self,
        id: &FlowId,
        announce: Option<(Peer<RoleServer>, String)>,
    ) -> Arc<Notify> {
        let done = Arc::new(Notify::new());
        if let Ok(mut waiting) = self.inner.waiting.lock() {
            waiting.insert(
                id.clone(),
                Waiting {
                    done: done.clone(),
                    announce,
                },
            );
        }
        done
    }

    pub(crate) async fn end(&self, id: &FlowId, to: FlowStatus) -> Result<(), FlowError> {
        self.inner
            .store
            .transition(id, &FlowStatus::Pending, to, now_ms())
            .await?;
        Ok(())
    }

    /// Completes `flow` (its page did its work), keeping `secret` as its user's, both or
    /// neither; wakes the call waiting for it and, on 2025-11-25, tells the client that started
    /// it. False when it was no longer pending or in time.
    pub(crate) async fn complete(
        &self,
        flow: &Flow,
        secret: Option<(&str, &Secret)>,
    ) -> Result<bool, FlowError> {
        let id = &flow.id;
        let store = &self.inner.store;
        let moved = match secret {
            Some((name, secret)) => {
                store
                    .complete_with_secret(id, &flow.user, name, secret, now_ms())
                    .await?
            }
            None => {
                let completed = FlowStatus::Completed;
                store
                    .transition(id, &FlowStatus::Pending, completed, now_ms())
                    .await?
            }
        };
        if !moved {
            return Ok(false);
        }
        tracing::info!(flow = %id, "URL flow completed");
        let waiting = self
            .inner
            .waiting
            .lock()
            .ok()
            .and_then(|mut w| w.remove(id));
        if let Some(waiting) = waiting {
            // The client hears of the completion before the waiting call's result.
            if let Some((peer, elicitation_id)) = waiting.announce {
                let done = CustomNotification::new(
                    ELICITATION_COMPLETE_METHOD,
                    Some(json!({ "elicitationId": elicitation_id })),
                );
                if let Err(e) = peer
                    .send_notification(ServerNotification::CustomNotification(done))
                    .await
                {
                    tracing::info!(flow = %id, "cannot tell the client the flow completed: {e}");
                }
            }
            waiting.done.notify_waiters();
            waiting.done.notify_one();
        }
        Ok(true)
    }

    /// Ends `flow` as failed (its page could not do its work: the third party refused, …) and
    /// wakes the call waiting for it. False when it was no longer pending.
    pub(crate) async fn fail(&self, flow: &Flow, reason: String) -> Result<bool, FlowError> {
        self.end_and_wake(flow, FlowStatus::Failed { reason }).await
    }

    /// Ends `flow` as declined on its page (the person said no there) and wakes the call
    /// waiting for it. False when it was no longer pending.
    pub(crate) async fn decline(&self, flow: &Flow) -> Result<bool, FlowError> {
        self.end_and_wake(flow, FlowStatus::Declined).await
    }

    async fn end_and_wake(&self, flow: &Flow, to: FlowStatus) -> Result<bool, FlowError> {
        let moved = self
            .inner
            .store
            .transition(&flow.id, &FlowStatus::Pending, to, now_ms())
            .await?;
        let waiting = self
            .inner
            .waiting
            .lock()
            .ok()
            .and_then(|mut w| w.remove(&flow.id));
        if let Some(waiting) = waiting {
            waiting.done.notify_waiters();
            waiting.done.notify_one();
        }
        Ok(moved)
    }

    /// Marks flows past their time as expired and forgets finished flows older than `keep`.
    /// Returns how many changed. Call it now and then (a server's housekeeping).
    pub async fn expire(&self, keep: Duration) -> Result<usize, FlowError> {
        let keep = u64::try_from(keep.as_millis()).unwrap_or(u64::MAX);
        Ok(self.inner.store.expire(now_ms(), keep).await?)
    }
}

/// The progress token of a tracking request (`elicitation/track`, `interaction/notify`): in its
/// params' `_meta`, or where rmcp keeps the request's `_meta`.
pub(crate) fn progress_token(
    params: Option<&Value>,
    context: &RequestContext<RoleServer>,
) -> Option<Value> {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("progressToken"))
        .cloned()
        .or_else(|| {
            context
                .meta
                .get_progress_token()
                .and_then(|t| serde_json::to_value(t).ok())
        })
}

/// Forgets a flow's waiter when the call that waited for it is over, however it ended.
pub(crate) struct Forget<'a> {
    pub(crate) flows: &'a UrlFlows,
    pub(crate) id: FlowId,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        if let Ok(mut waiting) = self.flows.inner.waiting.lock() {
            waiting.remove(&self.id);
        }
    }
}
