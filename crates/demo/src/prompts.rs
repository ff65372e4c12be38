//! The demo's prompt: `trip_brief`, which asks the person how long the trip is before it is
//! written — a prompt can ask as a tool does (`input_required` on 2026-07-28, a pushed
//! `elicitation/create` on a 2025 session), through [`Ask::for_prompt`].

use interlude_server::{Answer, Ask, PromptResult};
use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use schemars::JsonSchema;
use serde::Deserialize;

/// The prompt's name.
pub(crate) const TRIP_BRIEF: &str = "trip_brief";

/// How long the trip is.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TripLength {
    /// How many days the trip lasts
    #[schemars(range(min = 1, max = 21))]
    #[serde(default = "three")]
    days: u32,
}

fn three() -> u32 {
    3
}

/// Every prompt, as `prompts/list` gives them.
pub(crate) fn prompts() -> Vec<Prompt> {
    let mut city = PromptArgument::new("city").with_description("Where the trip goes");
    city.required = Some(true);
    vec![Prompt::new(
        TRIP_BRIEF,
        Some("A brief for planning a trip: asks you how many days it lasts before it is written."),
        Some(vec![city]),
    )]
}

/// `trip_brief` for `city`: the person says how many days, then the brief is written.
pub(crate) async fn trip_brief(ask: Ask, city: Option<&str>) -> PromptResult {
    let Some(city) = city.map(str::trim).filter(|c| !c.is_empty()) else {
        return Err(ErrorData::invalid_params("the argument `city` is required", None).into());
    };
    let days = match ask
        .key("trip_length")
        .form::<TripLength>(&format!("How many days is the trip to {city}?"))
        .await?
    {
        Answer::Accepted(length) => length.days,
        Answer::Declined | Answer::Cancelled => three(),
    };
    let text = format!(
        "Plan a {days}-day trip to {city}: a day-by-day outline, one sight and one meal a day."
    );
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(
        Role::User,
        text,
    )]))
}
