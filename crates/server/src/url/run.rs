//! The tool's side of URL flows: [`UrlFlows::run`] sends the person through a new flow and
//! learns how it ended, [`UrlFlows::require`] does so or ends the call with the error that
//! asks the client to, and [`UrlFlows::required`] / [`UrlFlows::required_draft`] give that
//! error. Each picks what the call's era (and, for a client of the seed-000 draft, its
//! `userInteraction`) needs:
//!
//! - **2025-11-25** (push): the tool's call sends `elicitation/create` with `mode: "url"`, the
//!   flow's URL and an `elicitationId` (`push.rs`); the person's `accept` is consent to open it.
//!   The call then waits until the page completes the flow, which also sends
//!   `notifications/elicitation/complete` to the client that started it (and to no other).
//!   [`UrlFlows::required`] gives the `-32042` error instead, for tools that would rather fail
//!   and be retried.
//! - **2026-07-28** (round trips): the call returns `input_required` with the URL request (no
//!   `elicitationId`) and a sealed `requestState` naming the flow (`round_trip.rs`); on the
//!   retry, a completed flow lets the tool go on, and an unfinished one is asked again (the host
//!   shows it as "waiting for you in the browser").
//! - **Seed 000** (the User Interaction draft): a `ua` interaction on the flow's page
//!   (`interaction/ua.rs`).
//! - **In a task** (either design): the consent is one of the task's input requests, then the
//!   task waits for the page as a push-era call does.
//!
//! Above the flows' bookkeeping (`flows.rs`: starting, waiting for, completing and following a
//! flow) and above [`Ask`], whose call it asks through; nothing below imports it.

use interlude_protocol::interaction::InteractionType;
use interlude_protocol::url::{ELICITATION_REQUIRED_DRAFT, URL_ELICITATION_REQUIRED};
use interlude_protocol::{Answer, ProtocolEra};
use rmcp::ErrorData;
use rmcp::model::ElicitationAction;
use serde_json::json;

use crate::ask::Ask;
use crate::error::AskError;
use crate::url::flows::{FlowError, FlowKind, Forget, UrlFlows, now_ms};
use crate::url::store::{Flow, FlowId, FlowStatus, UserId};

impl UrlFlows {
    /// Sends the person to the page of a new flow of `kind`, for this call's user, and returns
    /// how it ended: [`Answer::Accepted`] with the completed flow, or the person's decline or
    /// dismissal. Works in both eras (see the module documentation); on 2026-07-28 it returns
    /// [`AskError::InputRequired`] until the flow is complete, which an `#[asking]` tool lets
    /// out with `?`.
    pub async fn run(
        &self,
        ask: &Ask,
        kind: &FlowKind,
        message: impl Into<String>,
    ) -> Result<Answer<Flow>, AskError> {
        // A client speaking the User Interaction draft (seed 000) gets a `ua` interaction.
        if ask.supports_interaction(InteractionType::Ua) {
            let user = self.user(ask)?;
            return crate::interaction::ua::run(self, ask, user, kind, message.into()).await;
        }
        if !ask.supports_url() {
            return Err(AskError::Unsupported { mode: "url" });
        }
        let user = self.user(ask)?;
        if ask.is_in_task() {
            return self.run_push(ask, user, kind, message.into()).await;
        }
        match ask.era() {
            ProtocolEra::Push => self.run_push(ask, user, kind, message.into()).await,
            ProtocolEra::Mrtr => self.run_round_trip(ask, &user, kind, message.into()).await,
        }
    }

    /// 2025-11-25, or a task in either design: the person's consent is asked (pushed as a URL
    /// elicitation naming the flow, or as one of the task's input requests), then the call
    /// waits until the page completes the flow. A pushed consent's client hears the end
    /// (`notifications/elicitation/complete`); a task's hears the task go on.
    async fn run_push(
        &self,
        ask: &Ask,
        user: UserId,
        kind: &FlowKind,
        message: String,
    ) -> Result<Answer<Flow>, AskError> {
        let flow = self.start(user, kind).await?;
        let elicitation_id = flow.id.as_str().to_owned();
        let in_task = ask.is_in_task();
        let announce = (!in_task).then(|| (ask.context().peer.clone(), elicitation_id.clone()));
        let done = self.wait_for(&flow.id, announce);
        let _forget = Forget {
            flows: self,
            id: flow.id.clone(),
        };
        let url = self.url_of(&flow.id);
        let result = if in_task {
            ask.url_through_task(message, url, &elicitation_id).await?
        } else {
            crate::push::elicit_url(&ask.call, message, url, elicitation_id).await?
        };
        match result.action {
            ElicitationAction::Accept => {}
            not_consented => return self.not_consented(&flow.id, not_consented).await,
        }
        // Consent given: the flow goes on in the browser, for as long as it may.
        self.until_over(ask, &flow.id, &done).await
    }

    async fn run_round_trip(
        &self,
        ask: &Ask,
        user: &UserId,
        kind: &FlowKind,
        message: String,
    ) -> Result<Answer<Flow>, AskError> {
        let config = ask.config();
        // A first round starts the flow: made here, stored before the question goes out. The
        // call's round-trip state is not held across the store's awaits.
        let mut started = None;
        let round = ask.round_trip()?.next_url(config, message.clone(), || {
            let flow = self.new_flow(user.clone(), kind)?;
            let asked = (flow.id.as_str().to_owned(), self.url_of(&flow.id));
            started = Some(flow);
            Ok(asked)
        });
        if let Some(flow) = started {
            self.store_new(&flow).await?;
        }
        let round = round?;
        let id = FlowId::parse(&round.flow).map_err(|e| AskError::RequestState(e.to_string()))?;
        let flow = self
            .inner
            .store
            .flow(&id)
            .await
            .map_err(FlowError::from)?
            .filter(|f| &f.user == user)
            .ok_or_else(|| {
                AskError::RequestState(
                    "the flow it names is unknown (finished and forgotten) or not this user's"
                        .into(),
                )
            })?;
        match round.result.action {
            ElicitationAction::Accept => match flow.status {
                FlowStatus::Completed => {
                    // The outcome is taken once per state: a state sent again finds the token
                    // moved on (`round_trip.rs`).
                    let token = crate::url::oauth::random_token();
                    let taken = self
                        .inner
                        .store
                        .claim(&flow.id, round.claim.as_deref(), &token)
                        .await
                        .map_err(FlowError::from)?;
                    if !taken {
                        tracing::warn!(
                            flow = %flow.id,
                            "a requestState whose completed flow was already taken was sent \
                             again; refused"
                        );
                        return Err(AskError::StateConsumed);
                    }
                    ask.round_trip()?.claimed(&round.key, token);
                    Ok(Answer::Accepted(flow))
                }
                FlowStatus::Pending if !flow.is_expired(now_ms()) => {
                    let url = self.url_of(&flow.id);
                    Err(ask
                        .round_trip()?
                        .ask_url_again(config, round.key, message, url))
                }
                FlowStatus::Declined => Ok(Answer::Declined),
                _ => Ok(Answer::Cancelled),
            },
            not_consented => self.not_consented(&flow.id, not_consented).await,
        }
    }

    /// The person declined (or dismissed) flow `id`'s link: the flow ends so, and so does the
    /// answer.
    async fn not_consented(
        &self,
        id: &FlowId,
        action: ElicitationAction,
    ) -> Result<Answer<Flow>, AskError> {
        if action == ElicitationAction::Decline {
            self.end(id, FlowStatus::Declined).await?;
            return Ok(Answer::Declined);
        }
        let reason = "the person dismissed the request".into();
        self.end(id, FlowStatus::Failed { reason }).await?;
        Ok(Answer::Cancelled)
    }

    /// For a tool that cannot go on before a flow of `kind` is done, in either era: on
    /// 2025-11-25 the call ends with the `-32042` error of [`UrlFlows::required`] (the client
    /// opens the link, waits for the flow, and calls again: the tool then finds what the flow
    /// stored); on 2026-07-28, which has no such error, the same as [`UrlFlows::run`].
    ///
    /// ```no_run
    /// use interlude_server::url::{FlowKind, UrlFlows};
    /// use interlude_server::{Answer, Ask, ToolResult};
    /// use rmcp::model::{CallToolResult, ContentBlock};
    ///
    /// async fn forecast(flows: &UrlFlows, ask: &Ask) -> ToolResult {
    ///     if flows.secret(ask, "weather").await?.is_none() {
    ///         let kind = FlowKind::api_key("weather", "Weather API key");
    ///         let done = flows.require(ask, &kind, "Enter your Weather API key first").await?;
    ///         if !matches!(done, Answer::Accepted(_)) {
    ///             return Ok(CallToolResult::success(vec![ContentBlock::text("No key, no forecast.")]));
    ///         }
    ///     }
    ///     Ok(CallToolResult::success(vec![ContentBlock::text("Sunny, 21 °C")]))
    /// }
    /// ```
    pub async fn require(
        &self,
        ask: &Ask,
        kind: &FlowKind,
        message: &str,
    ) -> Result<Answer<Flow>, AskError> {
        match ask.era() {
            ProtocolEra::Push if ask.supports_interaction(InteractionType::Ua) => Err(
                AskError::Tool(crate::interaction::ua::required(self, ask, kind, message).await?),
            ),
            ProtocolEra::Push => {
                if !ask.supports_url() {
                    return Err(AskError::Unsupported { mode: "url" });
                }
                Err(AskError::Tool(self.required(ask, kind, message).await?))
            }
            ProtocolEra::Mrtr => self.run(ask, kind, message).await,
        }
    }

    /// The 2025-11-25 `-32042` error for a tool that cannot go on before a flow of `kind` is
    /// done: the tool returns it, the client opens the link and retries the call once the
    /// completion notification arrives. Starts the flow.
    ///
    /// ```no_run
    /// use interlude_server::url::{FlowKind, UrlFlows};
    /// use interlude_server::{Ask, ToolResult};
    /// use rmcp::model::{CallToolResult, ContentBlock};
    ///
    /// async fn forecast(flows: &UrlFlows, ask: &Ask) -> ToolResult {
    ///     let Some(key) = flows.secret(ask, "weather").await? else {
    ///         let kind = FlowKind::api_key("weather", "Weather API key");
    ///         return Err(flows.required(ask, &kind, "Enter your Weather API key first").await?.into());
    ///     };
    ///     let text = format!("called the weather service with a {}-byte key", key.expose().len());
    ///     Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    /// }
    /// ```
    pub async fn required(
        &self,
        ask: &Ask,
        kind: &FlowKind,
        message: &str,
    ) -> Result<ErrorData, FlowError> {
        self.required_with(URL_ELICITATION_REQUIRED, ask, kind, message)
            .await
    }

    /// [`UrlFlows::required`] in the shape of the out-of-band draft (seed 003): code `-32604`,
    /// the same `data.elicitations`. For clients written against the draft; pair it with
    /// [`UrlFlows::track`].
    pub async fn required_draft(
        &self,
        ask: &Ask,
        kind: &FlowKind,
        message: &str,
    ) -> Result<ErrorData, FlowError> {
        self.required_with(ELICITATION_REQUIRED_DRAFT, ask, kind, message)
            .await
    }

    async fn required_with(
        &self,
        code: rmcp::model::ErrorCode,
        ask: &Ask,
        kind: &FlowKind,
        message: &str,
    ) -> Result<ErrorData, FlowError> {
        let user = self.user(ask)?;
        let flow = self.start(user, kind).await?;
        let elicitation_id = flow.id.as_str().to_owned();
        // Nobody waits in this process; the client still hears of the completion.
        let _ = self.wait_for(
            &flow.id,
            Some((ask.context().peer.clone(), elicitation_id.clone())),
        );
        Ok(ErrorData::new(
            code,
            message.to_owned(),
            Some(json!({"elicitations": [{
                "mode": "url",
                "message": message,
                "url": self.url_of(&flow.id),
                "elicitationId": elicitation_id,
            }]})),
        ))
    }
}
