//! [`Ask`]: the era-neutral way a tool handler asks a person for input.
//!
//! This module decides, per question, how it is asked: it checks what the client declared and
//! hands the question to the transport of the call's era — `push` (2025), `round_trip`
//! (2026-07-28), or the seed-000 `interaction/create` (`interaction_create.rs`) for a client
//! of that draft. What every
//! transport shares sits below them all: the `Call` (`call.rs`), [`AskError`] (`error.rs`) and
//! the wire form of a question and the check of its answer (`wire.rs`). It does not decide
//! policy (timeouts come from [`AskConfig`]).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use interlude_protocol::interaction::{InteractionType, UserInteractionCapability};
use interlude_protocol::{Answer, ProtocolEra};
use interlude_schema::{Content, Elicit, FormSchema};
use rmcp::ErrorData;
use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, ClientResult, ElicitResult, ElicitationSchema, GetPromptRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

mod client;

use crate::call::Call;
use crate::config::{AskConfig, AskServer, ServesTasks};
use crate::error::AskError;
use crate::roots::{Root, read_roots, roots_input_request, roots_request};
use crate::round_trip::{RoundTrip, Served};
use crate::sampling::{Sampled, Sampling, read_sampled};
use crate::together::Questions;
use crate::wire::{check_result, field_error, related_to, wire_schema};

/// One tool call's ability to ask the person things. See the crate documentation.
pub struct Ask {
    /// What every transport needs of the call: its context, the server's config, its era.
    pub(crate) call: Call,
    pub(crate) round_trip: Mutex<RoundTrip>,
    /// The task this call runs in ([`Ask::task`]), if it does.
    pub(crate) task: Option<rmcp::task_manager::TaskContext>,
}

impl std::fmt::Debug for Ask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ask")
            .field("era", &self.call.era)
            .finish_non_exhaustive()
    }
}

impl Ask {
    /// Builds an `Ask` for a hand-written `call_tool`. `params` must be the call's own params:
    /// on 2026-07-28 their `inputResponses` and `requestState` carry the answers.
    pub fn new(
        config: &AskConfig,
        params: &CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Self {
        Self::from_parts(
            config,
            &params.name,
            params.arguments.as_ref(),
            params.input_responses.clone(),
            params.request_state.clone(),
            context,
        )
    }

    /// Builds an `Ask` for a hand-written `get_prompt`: a prompt can ask too. On 2026-07-28 a
    /// question leaves as the `input_required` result of `prompts/get` (through
    /// [`respond_prompt`](crate::respond_prompt)) and the client's retry carries the answers;
    /// its state is bound to the prompt's name and arguments, so a tool call's state is refused
    /// here and this one there. On a 2025 session the question is pushed to the client while
    /// the prompt request waits, as a tool's is.
    ///
    /// ```no_run
    /// use interlude_server::{Answer, Ask, AskConfig, PromptResult, respond_prompt};
    /// use rmcp::model::{
    ///     GetPromptRequestParams, GetPromptResponse, GetPromptResult, PromptMessage, Role,
    /// };
    /// use rmcp::service::{RequestContext, RoleServer};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Topic {
    ///     /// What the prompt should be about
    ///     context: String,
    /// }
    ///
    /// async fn prompt(ask: Ask) -> PromptResult {
    ///     let topic = match ask.key("user_context").form::<Topic>("What context?").await? {
    ///         Answer::Accepted(topic) => topic.context,
    ///         Answer::Declined | Answer::Cancelled => "anything".into(),
    ///     };
    ///     let text = format!("Write about {topic}.");
    ///     Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]))
    /// }
    ///
    /// // In `ServerHandler::get_prompt`:
    /// async fn get_prompt(
    ///     config: &AskConfig,
    ///     request: GetPromptRequestParams,
    ///     context: RequestContext<RoleServer>,
    /// ) -> Result<GetPromptResponse, rmcp::ErrorData> {
    ///     respond_prompt(prompt(Ask::for_prompt(config, &request, context)).await)
    /// }
    /// ```
    pub fn for_prompt(
        config: &AskConfig,
        params: &GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Self {
        let call = Call::new(config, context);
        let round_trip = match call.era {
            ProtocolEra::Mrtr => RoundTrip::new(
                Served::Prompt,
                &params.name,
                params.arguments.as_ref(),
                params.input_responses.clone(),
                params.request_state.clone(),
            ),
            ProtocolEra::Push => RoundTrip::unused(),
        };
        Ask::from_call(call, round_trip, None)
    }

    fn from_parts(
        config: &AskConfig,
        tool: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
        input_responses: Option<rmcp::model::InputResponses>,
        request_state: Option<String>,
        context: RequestContext<RoleServer>,
    ) -> Self {
        let call = Call::new(config, context);
        // Only 2026-07-28 calls use the round-trip state (and its digest of the arguments).
        let round_trip = match call.era {
            ProtocolEra::Mrtr => RoundTrip::new(
                Served::Tool,
                tool,
                arguments,
                input_responses,
                request_state,
            ),
            ProtocolEra::Push => RoundTrip::unused(),
        };
        Ask::from_call(call, round_trip, None)
    }

    /// An `Ask` of `call`, with its round-trip state, in `task` if given.
    pub(crate) fn from_call(
        call: Call,
        round_trip: RoundTrip,
        task: Option<rmcp::task_manager::TaskContext>,
    ) -> Self {
        Ask {
            call,
            round_trip: Mutex::new(round_trip),
            task,
        }
    }

    /// The protocol era of this call.
    pub fn era(&self) -> ProtocolEra {
        self.call.era
    }

    /// The request context of the tool call (peer, cancellation token, `_meta`).
    ///
    /// As a tool's extractor, `Ask` takes the call's `_meta` into this context (as rmcp's own
    /// `RequestMetaObject` extractor does, and as `Ask` takes `inputResponses` and
    /// `requestState`): read it here. A `RequestContext` or `RequestMetaObject` parameter listed
    /// *after* `Ask` sees an empty `_meta`; list it before, or use this.
    ///
    /// ```
    /// # use interlude_server::Ask;
    /// fn progress_token(ask: &Ask) -> Option<rmcp::model::ProgressToken> {
    ///     ask.context().meta.get_progress_token()
    /// }
    /// ```
    pub fn context(&self) -> &RequestContext<RoleServer> {
        &self.call.context
    }

    /// The server's configuration this call asks with.
    pub(crate) fn config(&self) -> &AskConfig {
        &self.call.config
    }

    /// Whether the client declared form-mode elicitation for this call (`elicitation: {}` counts
    /// as form, by the spec's compatibility rule).
    pub fn supports_form(&self) -> bool {
        self.call
            .client_capabilities()
            .and_then(|c| c.elicitation.as_ref())
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Whether the client declared URL-mode elicitation for this call.
    pub fn supports_url(&self) -> bool {
        self.call
            .client_capabilities()
            .and_then(|c| c.elicitation.as_ref())
            .is_some_and(|e| e.url.is_some())
    }

    /// Whether `kind` of the User Interaction draft (seed 000) may be sent to this call's
    /// client: it declared `userInteraction` listing the type (at the top level of its
    /// capabilities, read after [`normalized`](crate::interaction::normalized) /
    /// [`normalize_http`](crate::interaction::normalize_http), or under `experimental`), and
    /// the call is on the 2025 lifecycle (2026-07-28 has no server → client requests). When it
    /// may, [`Ask::form`] sends a `prompt` and [`UrlFlows`](crate::url::UrlFlows) a `ua`.
    pub fn supports_interaction(&self, kind: InteractionType) -> bool {
        self.call.era == ProtocolEra::Push
            && self
                .call
                .client_capabilities()
                .and_then(UserInteractionCapability::declared_by)
                .is_some_and(|declared| declared.supports(kind))
    }

    /// Whether the client renders MCP Apps (it declared the `io.modelcontextprotocol/ui`
    /// extension with the app MIME type): without it, the tool's text is all a person sees.
    pub fn supports_apps(&self) -> bool {
        crate::apps::supports_apps(self.call.client_capabilities())
    }

    /// Whether the client declared sampling (it can be asked for a model completion,
    /// [`Ask::sample`]).
    ///
    /// ```
    /// # use interlude_server::Ask;
    /// # fn tool(ask: &Ask) -> &'static str {
    /// if ask.supports_sampling() { "ask the model" } else { "work without one" }
    /// # }
    /// ```
    pub fn supports_sampling(&self) -> bool {
        self.call
            .client_capabilities()
            .is_some_and(|c| c.sampling.is_some())
    }

    /// Whether the client declared roots (it can be asked where the server may work,
    /// [`Ask::roots`]).
    ///
    /// ```
    /// # use interlude_server::Ask;
    /// # fn tool(ask: &Ask) -> &'static str {
    /// if ask.supports_roots() { "list the roots" } else { "use the working directory" }
    /// # }
    /// ```
    pub fn supports_roots(&self) -> bool {
        self.call
            .client_capabilities()
            .is_some_and(|c| c.roots.is_some())
    }

    /// Names the next question this call asks: on 2026-07-28 its key in `inputRequests` (and
    /// `inputResponses`) is `key` instead of `q<n>`, the default by order (a named question
    /// still counts in that order: `form`, `key("x").form`, `form` are `q0`, `x`, `q2`). It
    /// reads as part of the question and works for every kind of it — [`Ask::form`] and its
    /// variants, [`Ask::sample`], [`Ask::roots`], a URL flow's
    /// [`run`](crate::url::UrlFlows::run). A push-era call has no keys and ignores it.
    ///
    /// A key must not be empty nor used twice in one call (including a default one): the
    /// question is then refused before it leaves ([`AskError::InvalidQuestion`]).
    ///
    /// ```
    /// # use interlude_server::{Answer, Ask, AskError};
    /// # #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// # struct Name { name: String }
    /// # async fn tool(ask: Ask) -> Result<String, AskError> {
    /// let name = match ask.key("user_name").form::<Name>("What is your name?").await? {
    ///     Answer::Accepted(n) => n.name,
    ///     Answer::Declined | Answer::Cancelled => "stranger".into(),
    /// };
    /// Ok(format!("Hello, {name}!"))
    /// # }
    /// ```
    pub fn key(&self, key: impl Into<String>) -> &Self {
        if let Ok(mut rt) = self.round_trip.lock() {
            rt.name_next(key.into());
        }
        self
    }

    /// On 2026-07-28, the key of the question being made now (the name [`Ask::key`] gave it,
    /// else the next by order); `None` on a push-era call, which has no keys.
    fn reserve_key(&self) -> Option<Result<String, AskError>> {
        match self.call.era {
            ProtocolEra::Push => None,
            ProtocolEra::Mrtr => Some(self.round_trip().and_then(|mut rt| rt.reserve_key())),
        }
    }

    /// The round-trip state, for the URL flows of this call.
    pub(crate) fn round_trip(&self) -> Result<std::sync::MutexGuard<'_, RoundTrip>, AskError> {
        self.round_trip
            .lock()
            .map_err(|_| AskError::RequestState("state lock poisoned".into()))
    }

    /// Asks the person to fill in a form for `T` and returns what they did.
    ///
    /// `T`'s fields become the form (see [`interlude_schema::Elicit`]). On accept, defaults are
    /// applied, the content is validated and deserialized into `T`.
    ///
    /// # Field types
    ///
    /// A form is flat: each field of `T` is a string, a number (an integer type or a float), a
    /// boolean, a Rust enum of unit variants (a single choice), a `Vec` of such an
    /// enum (several choices), or an `Option` of one of those (not required). Doc comments are
    /// the fields' descriptions; `#[serde(default = …)]` gives a default.
    ///
    /// String formats and constraints are schemars attributes, and the answer is checked against
    /// them on the server too: `#[schemars(extend("format" = "date"))]` (`YYYY-MM-DD`),
    /// `"date-time"` (RFC 3339), `"email"` and `"uri"`; `#[schemars(length(min = 1, max = 80))]`
    /// for strings, `#[schemars(range(min = 18))]` for numbers.
    ///
    /// ```
    /// use interlude_server::{Answer, Ask, AskError};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// enum Room {
    ///     Small,
    ///     Large,
    /// }
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Booking {
    ///     /// Your email address
    ///     #[schemars(extend("format" = "email"))]
    ///     email: String,
    ///     /// The day (YYYY-MM-DD)
    ///     #[schemars(extend("format" = "date"))]
    ///     day: String,
    ///     /// When you arrive
    ///     #[schemars(extend("format" = "date-time"))]
    ///     arrival: Option<String>,
    ///     /// Guests
    ///     #[schemars(range(min = 1, max = 12))]
    ///     guests: u8,
    ///     /// Which room
    ///     room: Room,
    /// }
    ///
    /// async fn book(ask: &Ask) -> Result<String, AskError> {
    ///     Ok(match ask.form::<Booking>("Book a room").await? {
    ///         Answer::Accepted(b) => format!("{} on {} for {}", b.email, b.day, b.guests),
    ///         Answer::Declined | Answer::Cancelled => "not booked".into(),
    ///     })
    /// }
    /// ```
    ///
    /// A field that is a struct (a nested object) is outside what elicitation allows: the
    /// question fails with [`AskError::Schema`] naming the field, before anything is sent.
    /// Flatten it (`#[serde(flatten)]`) or ask it as a second form. Add
    /// [`derive(Form)`](crate::Form) to the type to have that checked when the program is
    /// compiled instead, with the error at the field.
    pub fn form<T: Elicit>(
        &self,
        message: impl Into<String>,
    ) -> impl Future<Output = Result<Answer<T>, AskError>> + '_ {
        let key = self.reserve_key();
        let message = message.into();
        async move {
            let prepared = prepared::<T>()?;
            let answer = self
                .ask(key, message, &prepared.form, Some(&prepared.wire), None)
                .await?;
            typed(answer)
        }
    }

    /// Whether the client renders questions in the server's app views (app-rendered
    /// elicitation, SEP-3118): it declared form elicitation and `elicitation` inside the MCP
    /// Apps extension.
    pub fn supports_app_elicitation(&self) -> bool {
        crate::apps::supports_app_elicitation(self.call.client_capabilities())
    }

    /// Asks for `T` like [`Ask::form`], shown in this server's app view `view` (a `ui://`
    /// resource it serves, see [`Apps`](crate::apps::Apps)) when the client renders questions
    /// in views, as the plain form otherwise — the same schema either way, so hosts without
    /// apps work too. The answer is validated like any form's, in both eras.
    ///
    /// The server declares [`Apps::declare_with_elicitation`](crate::apps::Apps::declare_with_elicitation);
    /// the view declares `appCapabilities.elicitation` and answers the `elicitation/create`
    /// its host forwards to it (see `assets/app-elicitation.js` in this crate for views built
    /// on the MCP Apps SDK).
    ///
    /// ```no_run
    /// # use interlude_server::{Answer, Ask, AskError, Elicit};
    /// # #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// # struct Review { confirmed: bool }
    /// # async fn tool(ask: Ask) -> Result<String, AskError> {
    /// match ask.form_in_view::<Review>("Review the portfolio", "ui://demo/portfolio").await? {
    ///     Answer::Accepted(review) => Ok(format!("confirmed: {}", review.confirmed)),
    ///     Answer::Declined => Ok("declined".into()),
    ///     Answer::Cancelled => Ok("cancelled".into()),
    /// }
    /// # }
    /// ```
    pub fn form_in_view<'a, T: Elicit>(
        &'a self,
        message: impl Into<String>,
        view: &'a str,
    ) -> impl Future<Output = Result<Answer<T>, AskError>> + 'a {
        let key = self.reserve_key();
        let message = message.into();
        async move {
            let prepared = prepared::<T>()?;
            let view = self.supports_app_elicitation().then_some(view);
            let answer = self
                .ask(key, message, &prepared.form, Some(&prepared.wire), view)
                .await?;
            typed(answer)
        }
    }

    /// Asks with an explicit schema and returns the validated content (defaults applied).
    pub fn form_with_schema<'a>(
        &'a self,
        message: impl Into<String>,
        schema: &'a FormSchema,
    ) -> impl Future<Output = Result<Answer<Content>, AskError>> + 'a {
        let key = self.reserve_key();
        self.ask_owned(key, message.into(), schema, None)
    }

    /// [`Ask::form_with_schema`], shown in this server's app view `view` where the client
    /// renders questions in views (see [`Ask::form_in_view`]).
    pub fn form_with_schema_in_view<'a>(
        &'a self,
        message: impl Into<String>,
        schema: &'a FormSchema,
        view: &'a str,
    ) -> impl Future<Output = Result<Answer<Content>, AskError>> + 'a {
        let key = self.reserve_key();
        let view = self.supports_app_elicitation().then_some(view);
        self.ask_owned(key, message.into(), schema, view)
    }

    async fn ask_owned(
        &self,
        key: Option<Result<String, AskError>>,
        message: String,
        schema: &FormSchema,
        view: Option<&str>,
    ) -> Result<Answer<Content>, AskError> {
        self.ask(key, message, schema, None, view).await
    }

    /// Asks with `schema` (`wire` is its wire form when the caller has it already; computed
    /// here otherwise, and only when a request is actually sent), in view `view` when given.
    async fn ask(
        &self,
        key: Option<Result<String, AskError>>,
        message: String,
        schema: &FormSchema,
        wire: Option<&ElicitationSchema>,
        view: Option<&str>,
    ) -> Result<Answer<Content>, AskError> {
        // A client speaking the User Interaction draft (seed 000) gets a `prompt` (the draft
        // has no app views).
        if self.supports_interaction(InteractionType::Prompt) {
            return crate::interaction_create::prompt(&self.call, message, schema, wire).await;
        }
        if !self.supports_form() {
            return Err(AskError::Unsupported { mode: "form" });
        }
        let result = match self.call.era {
            ProtocolEra::Push => {
                crate::push::elicit_form(&self.call, message, schema, wire, view).await?
            }
            ProtocolEra::Mrtr => {
                self.next_round_trip_answer(key, message, schema, wire, view)
                    .await?
            }
        };
        check_result(schema, result)
    }

    async fn next_round_trip_answer(
        &self,
        key: Option<Result<String, AskError>>,
        message: String,
        schema: &FormSchema,
        wire: Option<&ElicitationSchema>,
        view: Option<&str>,
    ) -> Result<ElicitResult, AskError> {
        let asked =
            self.round_trip()?
                .next_form_input(&self.call.config, key, message, schema, wire, view);
        let (key, answer) = self.through_task(asked).await?;
        crate::round_trip::elicit_result(&key, answer)
    }

    /// In a task ([`Ask::task`]), a question the round trip would send out in an
    /// `input_required` result is asked through the task instead (one of its `inputRequests`),
    /// and its answer awaited; elsewhere `asked` is what it is.
    async fn through_task(
        &self,
        asked: Result<(String, Value), AskError>,
    ) -> Result<(String, Value), AskError> {
        let (Some(task), Err(AskError::InputRequired(round))) = (&self.task, &asked) else {
            return asked;
        };
        let Some((key, request)) = round
            .input_requests
            .as_ref()
            .and_then(|requests| requests.iter().next())
            .map(|(k, r)| (k.clone(), r.clone()))
        else {
            return asked;
        };
        match task.request_input(key.clone(), request).await {
            Ok(answer) => Ok((key, answer)),
            Err(rmcp::task_manager::TaskExit::Error(e)) => Err(AskError::Tool(e)),
            Err(rmcp::task_manager::TaskExit::Cancelled) => {
                Err(AskError::Service(rmcp::ServiceError::Cancelled {
                    reason: Some("the task was cancelled while it waited for an answer".into()),
                }))
            }
        }
    }
}

/// The error code the specification gives for a person who refused a sampling request.
const USER_REJECTED: i32 = -1;

/// A client's reply as JSON, whatever variant rmcp read it as: its result union is untagged, so
/// an answer missing a field lands in another variant (or `CustomResult`), and the kind's
/// reader names the field.
fn client_result_json(result: ClientResult) -> Result<Value, AskError> {
    serde_json::to_value(result).map_err(|e| {
        AskError::InvalidAnswer(vec![field_error(
            "",
            format!("The answer cannot be read: {e}."),
        )])
    })
}

/// Reads accepted content as `T`.
fn typed<T: Elicit>(answer: Answer<Content>) -> Result<Answer<T>, AskError> {
    match answer {
        Answer::Accepted(content) => serde_json::from_value(Value::Object(content))
            .map(Answer::Accepted)
            .map_err(AskError::Deserialize),
        Answer::Declined => Ok(Answer::Declined),
        Answer::Cancelled => Ok(Answer::Cancelled),
    }
}

/// A type's form and its wire schema, computed once per type: deriving the form is cached by
/// [`Elicit::form_schema`] already, and converting it to rmcp's `ElicitationSchema` (through
/// JSON) would otherwise be repeated on every question.
struct Prepared {
    form: FormSchema,
    wire: ElicitationSchema,
}

fn prepared<T: Elicit>() -> Result<Arc<Prepared>, AskError> {
    type Cache = RwLock<HashMap<TypeId, Arc<Prepared>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let id = TypeId::of::<T>();
    if let Ok(map) = cache.read()
        && let Some(hit) = map.get(&id)
    {
        return Ok(hit.clone());
    }
    let form = T::form_schema()?;
    let wire = wire_schema(&form)?;
    let prepared = Arc::new(Prepared { form, wire });
    if let Ok(mut map) = cache.write() {
        map.insert(id, prepared.clone());
    }
    Ok(prepared)
}

impl<S: AskServer + rmcp::ServerHandler> FromContextPart<ToolCallContext<'_, S>> for Ask {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let mut ask = Ask::from_parts(
            context.service.ask_config(),
            &context.name,
            context.arguments.as_ref(),
            context.input_responses.take(),
            context.request_state.take(),
            taken_context(&mut context.request_context),
        );
        // A 2026-07-28 client that takes tasks, on a server not served through `TaskServer`:
        // a task only if the server itself declared the extension (and so, presumably, answers
        // `tasks/get`). Asked only then: `get_info` builds the server's whole description.
        if ask.call.era == ProtocolEra::Mrtr
            && ask.call.context.extensions.get::<ServesTasks>().is_none()
            && ask
                .call
                .client_capabilities()
                .is_some_and(|c| c.supports_tasks())
        {
            let declared = context.service.get_info().capabilities.supports_tasks();
            ask.call.context.extensions.insert(ServesTasks(declared));
        }
        Ok(ask)
    }
}

/// The extractor's request context: the call's `_meta` is moved into it (as rmcp's own
/// `RequestMetaObject` extractor moves it; a deep copy of the client's capabilities on every
/// 2026-07-28 request was a fifth of the toolkit's cost per round), the rest shared or copied.
fn taken_context(context: &mut RequestContext<RoleServer>) -> RequestContext<RoleServer> {
    let mut kept = kept_context_without_meta(context);
    kept.meta = std::mem::take(&mut context.meta);
    kept
}

/// A copy of the request context, for work that outlives the call's own (a task).
pub(crate) fn kept_context(context: &RequestContext<RoleServer>) -> RequestContext<RoleServer> {
    let mut kept = kept_context_without_meta(context);
    kept.meta = context.meta.clone();
    kept
}

/// The request context but its `_meta`. rmcp leaves an empty `RequestMetaObject` in the
/// extensions of every request (the metadata itself moves to `meta`); copying it costs two
/// allocations (≈ 0.2 KiB) that a push-era call would keep for as long as the person takes, so a
/// copy whose extensions hold nothing else starts with none.
fn kept_context_without_meta(context: &RequestContext<RoleServer>) -> RequestContext<RoleServer> {
    let only_empty_meta = context.extensions.len() == 1
        && context
            .extensions
            .get::<rmcp::model::RequestMetaObject>()
            .is_some_and(|meta| meta.is_empty());
    let mut kept = RequestContext::new(context.id.clone(), context.peer.clone());
    kept.ct = context.ct.clone();
    if !only_empty_meta {
        kept.extensions = context.extensions.clone();
    }
    kept
}
