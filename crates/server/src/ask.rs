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
use rmcp::model::{CallToolRequestParams, ElicitResult, ElicitationSchema};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::call::Call;
use crate::config::{AskConfig, AskServer};
use crate::error::AskError;
use crate::round_trip::RoundTrip;
use crate::wire::{check_result, wire_schema};

/// One tool call's ability to ask the person things. See the crate documentation.
pub struct Ask {
    /// What every transport needs of the call: its context, the server's config, its era.
    pub(crate) call: Call,
    pub(crate) round_trip: Mutex<RoundTrip>,
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
            ProtocolEra::Mrtr => RoundTrip::new(tool, arguments, input_responses, request_state),
            ProtocolEra::Push => RoundTrip::unused(),
        };
        Ask {
            call,
            round_trip: Mutex::new(round_trip),
        }
    }

    /// The protocol era of this call.
    pub fn era(&self) -> ProtocolEra {
        self.call.era
    }

    /// The request context of the tool call (peer, cancellation token, `_meta`).
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
            .context
            .client_capabilities()
            .and_then(|c| c.elicitation)
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Whether the client declared URL-mode elicitation for this call.
    pub fn supports_url(&self) -> bool {
        self.call
            .context
            .client_capabilities()
            .and_then(|c| c.elicitation)
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
                .context
                .client_capabilities()
                .and_then(|c| UserInteractionCapability::declared_by(&c))
                .is_some_and(|declared| declared.supports(kind))
    }

    /// Whether the client renders MCP Apps (it declared the `io.modelcontextprotocol/ui`
    /// extension with the app MIME type): without it, the tool's text is all a person sees.
    pub fn supports_apps(&self) -> bool {
        crate::apps::supports_apps(self.call.context.client_capabilities().as_ref())
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
    pub async fn form<T: Elicit>(&self, message: impl Into<String>) -> Result<Answer<T>, AskError> {
        let prepared = prepared::<T>()?;
        let answer = self
            .ask(message.into(), &prepared.form, Some(&prepared.wire), None)
            .await?;
        typed(answer)
    }

    /// Whether the client renders questions in the server's app views (app-rendered
    /// elicitation, SEP-3118): it declared form elicitation and `elicitation` inside the MCP
    /// Apps extension.
    pub fn supports_app_elicitation(&self) -> bool {
        crate::apps::supports_app_elicitation(self.call.context.client_capabilities().as_ref())
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
    pub async fn form_in_view<T: Elicit>(
        &self,
        message: impl Into<String>,
        view: &str,
    ) -> Result<Answer<T>, AskError> {
        let prepared = prepared::<T>()?;
        let view = self.supports_app_elicitation().then_some(view);
        let answer = self
            .ask(message.into(), &prepared.form, Some(&prepared.wire), view)
            .await?;
        typed(answer)
    }

    /// Asks with an explicit schema and returns the validated content (defaults applied).
    pub async fn form_with_schema(
        &self,
        message: impl Into<String>,
        schema: &FormSchema,
    ) -> Result<Answer<Content>, AskError> {
        self.ask(message.into(), schema, None, None).await
    }

    /// [`Ask::form_with_schema`], shown in this server's app view `view` where the client
    /// renders questions in views (see [`Ask::form_in_view`]).
    pub async fn form_with_schema_in_view(
        &self,
        message: impl Into<String>,
        schema: &FormSchema,
        view: &str,
    ) -> Result<Answer<Content>, AskError> {
        let view = self.supports_app_elicitation().then_some(view);
        self.ask(message.into(), schema, None, view).await
    }

    /// Asks with `schema` (`wire` is its wire form when the caller has it already; computed
    /// here otherwise, and only when a request is actually sent), in view `view` when given.
    async fn ask(
        &self,
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
            ProtocolEra::Mrtr => self.next_round_trip_answer(message, schema, wire, view)?,
        };
        check_result(schema, result)
    }

    fn next_round_trip_answer(
        &self,
        message: String,
        schema: &FormSchema,
        wire: Option<&ElicitationSchema>,
        view: Option<&str>,
    ) -> Result<ElicitResult, AskError> {
        let mut rt = self
            .round_trip
            .lock()
            .map_err(|_| AskError::RequestState("state lock poisoned".into()))?;
        rt.next_answer(&self.call.config, message, schema, wire, view)
    }
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

impl<S: AskServer> FromContextPart<ToolCallContext<'_, S>> for Ask {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        Ok(Ask::from_parts(
            context.service.ask_config(),
            &context.name,
            context.arguments.as_ref(),
            context.input_responses.take(),
            context.request_state.take(),
            kept_context(&context.request_context),
        ))
    }
}

/// The extractor's copy of the request context. rmcp leaves an empty `RequestMetaObject` in the
/// extensions of every request (the metadata itself moves to `meta`); copying it costs two
/// allocations (≈ 0.2 KiB) that a push-era call would keep for as long as the person takes, so a
/// copy whose extensions hold nothing else starts with none.
fn kept_context(context: &RequestContext<RoleServer>) -> RequestContext<RoleServer> {
    let only_empty_meta = context.extensions.len() == 1
        && context
            .extensions
            .get::<rmcp::model::RequestMetaObject>()
            .is_some_and(|meta| meta.is_empty());
    if !only_empty_meta {
        return context.clone();
    }
    let mut kept = RequestContext::new(context.id.clone(), context.peer.clone());
    kept.ct = context.ct.clone();
    kept.meta = context.meta.clone();
    kept
}
