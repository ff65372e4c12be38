//! The demo tools. Each handler is era-neutral and shaped like any rmcp tool: `ask.form::<T>()`
//! pushes a request on a 2025 session and, on a 2026-07-28 request, hands `?` the
//! `input_required` result that [`asking`] turns into the tool's response.
//!
//! The types the tools take and the forms they ask live in `tools/forms.rs`; the release
//! scenario's tools in `release.rs`. Not here: the server's handler (`handler.rs`), transports.

use interlude_server::interaction::InteractionType;
use interlude_server::url::{FlowError, FlowKind, UrlFlows};
use interlude_server::{Answer, Ask, AskConfig, AskServer, FormSchema, ToolResult, asking};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use rmcp::{ErrorData, tool, tool_router};
use serde_json::{Value, json};

mod forms;

pub(crate) use forms::{CityArgs, CounterArgs, OrderArgs, PortfolioReview, TaglineArgs};
pub use forms::{
    Confirmation, ContactInfo, Country, Genre, GitHubUser, MusicTaste, Newsletter, Registration,
    SignUp, TestElicitationArgs, Ticket, Topic, Workshop,
};

/// The demo server.
#[derive(Clone, Debug)]
pub struct DemoServer {
    pub(crate) ask: AskConfig,
    pub(crate) flows: Option<UrlFlows>,
}

impl AskServer for DemoServer {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

impl Default for DemoServer {
    fn default() -> Self {
        Self::new(AskConfig::new())
    }
}

/// How many years `weather_history` gathers, and how long each takes.
const HISTORY_YEARS: u32 = 10;
const HISTORY_STEP: std::time::Duration = std::time::Duration::from_millis(300);

/// The order card's view (MCP-UI: embedded in `order_card`'s result, no `resources/read`).
const ORDER_CARD: &str = include_str!("../assets/order_card.html");
const ORDER_CARD_URI: &str = "ui://demo/order";

/// Order #4242 moves one step along each time someone looks, and stays delivered.
fn order_status_now() -> &'static str {
    use std::sync::atomic::{AtomicUsize, Ordering};
    const STEPS: [&str; 4] = ["packed", "shipped", "out for delivery", "delivered"];
    static LOOKS: AtomicUsize = AtomicUsize::new(0);
    let look = LOOKS.fetch_add(1, Ordering::Relaxed);
    STEPS.get(look).copied().unwrap_or("delivered")
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

/// A city's forecast: text for every host, structured content for the dashboard view.
fn dashboard(args: CityArgs) -> CallToolResult {
    let city = args.city.unwrap_or_else(|| "Lisbon".to_owned());
    let forecast = crate::apps::forecast(&city, crate::apps::next_issue());
    let mut result = text(forecast.text());
    result.structured_content = serde_json::to_value(&forecast).ok();
    result
}

fn outcome<T>(answer: Answer<T>, accepted: impl FnOnce(T) -> String) -> CallToolResult {
    match answer {
        Answer::Accepted(v) => text(accepted(v)),
        Answer::Declined => text("The user declined."),
        Answer::Cancelled => text("The user cancelled."),
    }
}

fn fixed_schema(value: Value) -> Result<FormSchema, ErrorData> {
    FormSchema::parse(&value)
        .map(|p| p.schema)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn content_summary(answer: &Answer<interlude_server::Content>) -> (&'static str, Value) {
    match answer {
        Answer::Accepted(c) => ("accept", Value::Object(c.clone())),
        Answer::Declined => ("decline", Value::Null),
        Answer::Cancelled => ("cancel", Value::Null),
    }
}

#[asking]
#[tool_router(vis = "pub(crate)")]
impl DemoServer {
    /// A demo server sealing its `requestState` with `ask`'s key.
    pub fn new(ask: AskConfig) -> Self {
        DemoServer { ask, flows: None }
    }

    /// The same server, with URL flows (the `weather_api_key` tool needs them).
    #[must_use]
    pub fn with_flows(mut self, flows: UrlFlows) -> Self {
        self.flows = Some(flows);
        self
    }

    #[tool(
        description = "Connect your Example Cloud account: the server sends you through its own page to Example Cloud's consent (OAuth with PKCE); the tokens stay with the server (URL mode)."
    )]
    async fn connect_cloud_account(&self, ask: Ask) -> ToolResult {
        let Some(flows) = &self.flows else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "This demo server runs without its pages, so it cannot connect an account.",
            )]));
        };
        let answer = flows
            .run(
                &ask,
                &FlowKind::oauth("cloud"),
                "Connect your Example Cloud account so that I can read your files.",
            )
            .await?;
        Ok(match answer {
            Answer::Accepted(flow) => {
                let scope = flows
                    .store()
                    .secret(&flow.user, "oauth:cloud")
                    .await
                    .ok()
                    .flatten()
                    .and_then(|s| serde_json::from_slice::<Value>(s.expose()).ok())
                    .and_then(|t| t.get("scope").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_default();
                text(format!(
                    "Connected your Example Cloud account (scope: {scope}). The tokens stay with the server; neither the chat nor the host saw them."
                ))
            }
            Answer::Declined => text("You declined to connect an account."),
            Answer::Cancelled => text("Cancelled; no account was connected."),
        })
    }

    #[tool(
        description = "Verify a payment: the server shows what you pay on its own page, where you confirm or decline it, out of reach of the chat (URL mode)."
    )]
    async fn verify_payment(&self, ask: Ask) -> ToolResult {
        let Some(flows) = &self.flows else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "This demo server runs without its pages, so it cannot take a payment.",
            )]));
        };
        let kind = FlowKind::confirm(
            "payment",
            "Confirm a payment",
            "€12.00 to Example Shop for order 4711 (a demo: no money moves)",
        );
        let answer = flows
            .run(
                &ask,
                &kind,
                "Verify the payment for order 4711 on the demo server's page.",
            )
            .await?;
        Ok(match answer {
            Answer::Accepted(_) => text("Payment for order 4711 verified."),
            Answer::Declined => text("You declined the payment; order 4711 is not paid."),
            Answer::Cancelled => text("Cancelled; order 4711 is not paid."),
        })
    }

    #[tool(
        description = "A weather forecast, which needs your weather service's API key: without one the call fails with -32042 on 2025-11-25 (the host opens the key page, waits, and calls again) or asks for it on 2026-07-28. The demo forgets the key after each forecast, so every call shows the flow."
    )]
    async fn weather_forecast(&self, ask: Ask) -> ToolResult {
        let Some(flows) = &self.flows else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "This demo server runs without its pages, so it cannot ask for a key.",
            )]));
        };
        let key = match flows.secret(&ask, "weather").await? {
            Some(key) => key,
            None => {
                let kind = FlowKind::api_key("weather", "Weather API key");
                let message = "The forecast needs your weather service's API key: enter it on the demo server's own page.";
                match flows.require(&ask, &kind, message).await? {
                    Answer::Accepted(_) => match flows.secret(&ask, "weather").await? {
                        Some(key) => key,
                        None => return Ok(text("The page finished without a key; no forecast.")),
                    },
                    Answer::Declined => {
                        return Ok(text("You declined to enter a key; no forecast."));
                    }
                    Answer::Cancelled => return Ok(text("Cancelled; no forecast.")),
                }
            }
        };
        let user = flows.user(&ask)?;
        // Forgotten at once, so that the next call shows the flow again.
        flows
            .store()
            .delete_secret(&user, "weather")
            .await
            .map_err(FlowError::from)?;
        Ok(text(format!(
            "Tomorrow in Lisbon: sunny, 21 °C (asked the weather service with your {}-character key; the demo has forgotten it again).",
            key.expose().len()
        )))
    }

    #[tool(
        description = "Connect a weather service: the server sends you to its own page to enter the API key, which never passes through the chat or this host (URL mode)."
    )]
    async fn weather_api_key(&self, ask: Ask) -> ToolResult {
        let Some(flows) = &self.flows else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "This demo server runs without its pages, so it cannot ask for a key.",
            )]));
        };
        let kind = FlowKind::api_key("weather", "Weather API key");
        let answer = flows
            .run(
                &ask,
                &kind,
                "Connect your weather service: enter its API key on the demo server's own page.",
            )
            .await?;
        Ok(match answer {
            Answer::Accepted(flow) => {
                let length = flows
                    .store()
                    .secret(&flow.user, "weather")
                    .await
                    .ok()
                    .flatten()
                    .map_or(0, |s| s.expose().len());
                text(format!(
                    "Saved your Weather API key ({length} characters). Neither the chat nor the host saw it."
                ))
            }
            Answer::Declined => text("You declined to open the page; no key was saved."),
            Answer::Cancelled => text("Cancelled; no key was saved."),
        })
    }

    #[tool(
        description = "A city's weather forecast, shown in an MCP App (a dashboard view that refreshes itself); hosts without apps get the same forecast as text.",
        meta = interlude_server::apps::tool_meta(
            crate::apps::WEATHER_VIEW,
            interlude_server::apps::Visibility::DEFAULT
        )
    )]
    async fn weather_dashboard(&self, Parameters(args): Parameters<CityArgs>) -> ToolResult {
        Ok(dashboard(args))
    }

    #[tool(
        description = "A counter whose widget is written for ChatGPT's Apps SDK (window.openai); Interlude renders it through the same bridge as any MCP App.",
        meta = crate::apps::counter_meta()
    )]
    async fn apps_sdk_counter(&self, Parameters(args): Parameters<CounterArgs>) -> ToolResult {
        let count = args.start.unwrap_or(1);
        let mut result = text(format!("Count: {count}"));
        result.structured_content = Some(json!({ "count": count }));
        Ok(result)
    }

    #[tool(
        description = "A fresh forecast for the weather dashboard's view (only views call it).",
        meta = interlude_server::apps::app_only_meta()
    )]
    async fn weather_refresh(&self, Parameters(args): Parameters<CityArgs>) -> ToolResult {
        Ok(dashboard(args))
    }

    #[tool(
        description = "Ten years of this day's weather in a city, for the weather dashboard's view (only views call it): slow on purpose, a year at a time, with progress; it stops when cancelled.",
        meta = interlude_server::apps::app_only_meta()
    )]
    async fn weather_history(
        &self,
        Parameters(args): Parameters<CityArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> ToolResult {
        let city = args.city.unwrap_or_else(|| "Lisbon".to_owned());
        let token = context.meta.get_progress_token();
        let mut highs = Vec::new();
        for year in 1..=HISTORY_YEARS {
            tokio::select! {
                () = context.ct.cancelled() => {
                    tracing::info!(%city, "weather_history cancelled by the client after {} of {HISTORY_YEARS} years", year - 1);
                    return Err(ErrorData::new(
                        rmcp::model::ErrorCode(-32800),
                        "cancelled",
                        None,
                    )
                    .into());
                }
                () = tokio::time::sleep(HISTORY_STEP) => {}
            }
            let forecast = crate::apps::forecast(&city, 10_000 + u64::from(year));
            highs.push(forecast.high_today());
            if let Some(token) = &token {
                let progress =
                    rmcp::model::ProgressNotificationParam::new(token.clone(), f64::from(year))
                        .with_total(f64::from(HISTORY_YEARS))
                        .with_message(format!("{city}: year {year} of {HISTORY_YEARS}"));
                let _ = context.peer.notify_progress(progress).await;
            }
        }
        let count = i64::try_from(highs.len()).unwrap_or(1).max(1);
        let average = highs.iter().sum::<i64>() / count;
        let mut result = text(format!(
            "{city}: this day's high averaged {average} °C over {HISTORY_YEARS} years."
        ));
        result.structured_content =
            Some(json!({"city": city, "years": HISTORY_YEARS, "averageHigh": average}));
        Ok(result)
    }

    #[tool(
        description = "Review a customer portfolio in the server's own view and pick its new relationship manager; the call returns only once the person answered (app-rendered elicitation, SEP-3118; a plain form where the host offers no views)."
    )]
    async fn portfolio_review(&self, ask: Ask) -> ToolResult {
        let answer = ask
            .form_in_view::<PortfolioReview>(
                "Northwind Traders' accounts need a new relationship manager. Review the portfolio and choose who takes it over.",
                crate::apps::PORTFOLIO_VIEW,
            )
            .await?;
        Ok(match answer {
            Answer::Accepted(review) if review.confirmed => text(format!(
                "Portfolio reassigned to {}.",
                review.selected_manager_id.id()
            )),
            Answer::Accepted(review) => text(format!(
                "Not confirmed: nothing reassigned ({} was chosen).",
                review.selected_manager_id.id()
            )),
            Answer::Declined => text("The user declined the portfolio review."),
            Answer::Cancelled => text("The user cancelled the portfolio review."),
        })
    }

    #[tool(
        description = "Sign up for the demo's newsletter: your name and e-mail in a form, then a confirmation on the server's own page. Spoken as the User Interaction draft (seed 000: an interaction/create prompt, then a ua link) when your client declares it (interlude --user-interaction), as elicitation otherwise."
    )]
    async fn newsletter_sign_up(&self, ask: Ask) -> ToolResult {
        let how = if ask.supports_interaction(InteractionType::Prompt) {
            "asked through the User Interaction draft, interaction/create"
        } else {
            "asked through elicitation"
        };
        let who = match ask
            .form::<SignUp>("Sign up for the Interlude demo's newsletter")
            .await?
        {
            Answer::Accepted(who) => who,
            Answer::Declined => {
                return Ok(text(format!(
                    "You declined; nothing was signed up ({how})."
                )));
            }
            Answer::Cancelled => {
                return Ok(text(format!("Cancelled; nothing was signed up ({how}).")));
            }
        };
        let Some(flows) = &self.flows else {
            return Ok(text(format!(
                "Signed up {} <{}> ({how}); this demo server runs without its pages, so there is nothing to confirm.",
                who.name, who.email
            )));
        };
        let kind = FlowKind::confirm(
            "newsletter",
            "Confirm your subscription",
            format!("The Interlude demo newsletter, sent to {}", who.email),
        );
        let message = "Confirm the subscription on the demo server's own page.";
        Ok(match flows.run(&ask, &kind, message).await? {
            Answer::Accepted(_) => text(format!(
                "Signed up {} <{}> and confirmed on the server's page ({how}).",
                who.name, who.email
            )),
            Answer::Declined => text(format!(
                "You declined on the page; {} is not signed up ({how}).",
                who.email
            )),
            Answer::Cancelled => text(format!(
                "Cancelled; {} is not signed up ({how}).",
                who.email
            )),
        })
    }

    #[tool(
        description = "Write a product tagline with the client's model (sampling/createMessage, pushed on 2025 sessions, an input request on 2026-07-28). In Interlude no model is attached: the person writes the reply."
    )]
    async fn draft_tagline(
        &self,
        ask: Ask,
        Parameters(args): Parameters<TaglineArgs>,
    ) -> ToolResult {
        let product = args
            .product
            .unwrap_or_else(|| "a solar-powered kettle".to_owned());
        let question = interlude_server::Sampling::new(60)
            .system("You write short, honest product taglines.")
            .user(format!(
                "Write a tagline of at most eight words for {product}."
            ))
            .prefer_model("claude")
            .temperature(0.7);
        let answer = ask.key("tagline").sample(question).await?;
        Ok(outcome(answer, |reply| {
            format!(
                "Tagline for {product}: {} (written by {})",
                reply.text().unwrap_or_default().trim(),
                reply.model()
            )
        }))
    }

    #[tool(
        description = "List the folders your client gives this server to work in (roots/list, in either era)."
    )]
    async fn project_folders(&self, ask: Ask) -> ToolResult {
        let roots = ask.key("folders").roots().await?;
        if roots.is_empty() {
            return Ok(text(
                "Your client gives this server no folders (start Interlude with --root DIR).",
            ));
        }
        let lines: Vec<String> = roots
            .iter()
            .map(|r| match &r.name {
                Some(name) => format!("- {name}: {}", r.uri),
                None => format!("- {}", r.uri),
            })
            .collect();
        Ok(text(format!(
            "Folders this server may work in:\n{}",
            lines.join("\n")
        )))
    }

    #[tool(
        description = "Show order #4242 as a card sent MCP-UI's way: the view rides inside the result (an embedded ui:// resource) and speaks MCP-UI's postMessage actions (tool, prompt, intent, notify, link)."
    )]
    async fn order_card(&self) -> ToolResult {
        let status = order_status_now();
        Ok(CallToolResult::success(vec![
            ContentBlock::text(format!("Order #4242: {status}.")),
            ContentBlock::resource(
                ResourceContents::text(ORDER_CARD.replace("__STATUS__", status), ORDER_CARD_URI)
                    .with_mime_type("text/html;profile=mcp-app"),
            ),
        ]))
    }

    #[tool(description = "The status of an order (the order card's Refresh calls it).")]
    async fn order_status(&self, Parameters(args): Parameters<OrderArgs>) -> ToolResult {
        let order = args.order.unwrap_or_else(|| "4242".to_owned());
        if order != "4242" {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "No order #{order} here (the demo knows #4242)."
            ))]));
        }
        let status = order_status_now();
        let mut result = text(format!("Order #{order}: {status}."));
        result.structured_content = Some(json!({ "order": order, "status": status }));
        Ok(result)
    }

    #[tool(description = "Ask the user for their GitHub username (a single required text field).")]
    async fn github_username(&self, ask: Ask) -> ToolResult {
        let answer = ask
            .form::<GitHubUser>("Please provide your GitHub username")
            .await?;
        Ok(outcome(answer, |u| format!("Hello, @{}!", u.username)))
    }

    #[tool(
        description = "Ask for contact information: name, e-mail address and age (18 or older)."
    )]
    async fn contact_info(&self, ask: Ask) -> ToolResult {
        let answer = ask
            .form::<ContactInfo>("Please provide your contact information")
            .await?;
        Ok(outcome(answer, |c| {
            format!("Thanks {} ({}, age {}).", c.name, c.email, c.age)
        }))
    }

    #[tool(description = "Ask for the user's favourite music genre (a choice with titles).")]
    async fn favourite_genre(&self, ask: Ask) -> ToolResult {
        let answer = ask
            .form::<MusicTaste>(
                "To personalise your recommendations, which genre do you like most?",
            )
            .await?;
        Ok(outcome(answer, |t| {
            format!("Favourite genre: {:?}.", t.genre)
        }))
    }

    #[tool(description = "Ask which newsletter topics to subscribe to (pick one to three).")]
    async fn newsletter_topics(&self, ask: Ask) -> ToolResult {
        let answer = ask
            .form::<Newsletter>("Which topics should the newsletter cover?")
            .await?;
        Ok(outcome(answer, |n| {
            let topics: Vec<String> = n.topics.iter().map(|t| format!("{t:?}")).collect();
            format!("Subscribed to {}.", topics.join(", "))
        }))
    }

    #[tool(description = "Ask the user to confirm a destructive action (a yes/no question).")]
    async fn confirm_action(&self, ask: Ask) -> ToolResult {
        let answer = ask
            .form::<Confirmation>("Please confirm: delete the 3 selected drafts?")
            .await?;
        Ok(outcome(answer, |c| {
            if c.confirm {
                "Deleted 3 drafts.".to_owned()
            } else {
                "Nothing deleted.".to_owned()
            }
        }))
    }

    #[tool(
        description = "Register for an event: one form with every kind of field (text, e-mail, URL, date, date-time, numbers, switch, choices, multi-select)."
    )]
    async fn event_registration(&self, ask: Ask) -> ToolResult {
        let answer = ask
            .form::<Registration>("Register for MCP Summit 2026. Fields marked * are required.")
            .await?;
        Ok(outcome(answer, |r| {
            // Said as a person reads it: no `Some(…)`, lists joined, "none" for what was left out.
            let workshops: Vec<String> = r.workshops.iter().map(|w| format!("{w:?}")).collect();
            format!(
                "Registered {} <{}>: website {}, arrival {}, talk slot {}, {} guest{}, budget {}, ticket {:?}, from {:?}, workshops {}, newsletter {}, meal {}.",
                r.name,
                r.email,
                r.website.as_deref().unwrap_or("none"),
                r.arrival,
                r.talk_slot.as_deref().unwrap_or("none"),
                r.guests,
                if r.guests == 1 { "" } else { "s" },
                r.budget
                    .map_or_else(|| "none".to_owned(), |b| b.to_string()),
                r.ticket,
                r.country,
                workshops.join(", "),
                if r.newsletter { "yes" } else { "no" },
                r.meal
                    .map_or_else(|| "no preference".to_owned(), |m| format!("{m:?}"))
            )
        }))
    }

    #[tool(description = "Conformance fixture: request user input with the given message.")]
    async fn test_elicitation(
        &self,
        ask: Ask,
        Parameters(args): Parameters<TestElicitationArgs>,
    ) -> ToolResult {
        let schema = fixed_schema(json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        }))?;
        let answer = ask.form_with_schema(args.message, &schema).await?;
        let (action, content) = content_summary(&answer);
        Ok(text(format!(
            "User response: action={action}, content={content}"
        )))
    }

    #[tool(description = "Conformance fixture: SEP-1034 defaults on every primitive type.")]
    async fn test_elicitation_sep1034_defaults(&self, ask: Ask) -> ToolResult {
        let schema = fixed_schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {"type": "string", "description": "User status",
                           "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            }
        }))?;
        let answer = ask
            .form_with_schema(
                "Please review and update the form fields with defaults",
                &schema,
            )
            .await?;
        let (action, content) = content_summary(&answer);
        Ok(text(format!(
            "Elicitation completed: action={action}, content={content}"
        )))
    }

    #[tool(description = "Conformance fixture: the five SEP-1330 enum variants.")]
    async fn test_elicitation_sep1330_enums(&self, ask: Ask) -> ToolResult {
        let schema = fixed_schema(json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                               "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string",
                                  "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}]}}
            }
        }))?;
        let answer = ask
            .form_with_schema("Please select options from the enum fields", &schema)
            .await?;
        let (action, content) = content_summary(&answer);
        Ok(text(format!(
            "Elicitation completed: action={action}, content={content}"
        )))
    }
}
