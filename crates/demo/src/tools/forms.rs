//! What the demo's tools take and ask: their arguments, and the forms they ask a person to fill
//! in, each a Rust type whose `JsonSchema` is the `requestedSchema` sent (every widget of the
//! subset appears in one of them).
//!
//! Not here: the tools themselves (`tools.rs`), the forms built by hand as JSON for the
//! conformance fixtures (also `tools.rs`, beside the tools that send them).

use schemars::JsonSchema;
use serde::Deserialize;

/// Which city's weather.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CityArgs {
    /// The city (Lisbon when not given)
    pub(crate) city: Option<String>,
}

/// Where the counter starts.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CounterArgs {
    /// The count to show (1 when not given)
    pub(crate) start: Option<i64>,
}

/// Which order.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct OrderArgs {
    /// The order number (4242 when not given)
    pub(crate) order: Option<String>,
}

/// What to write a tagline for.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TaglineArgs {
    /// The product (a solar-powered kettle when not given)
    pub(crate) product: Option<String>,
}

/// Seed example: "Please provide your GitHub username".
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GitHubUser {
    /// Your GitHub username
    #[schemars(length(min = 1, max = 39))]
    pub username: String,
}

/// Seed example: contact information.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContactInfo {
    /// Your full name
    #[schemars(length(min = 1))]
    pub name: String,
    /// Your email address
    #[schemars(email)]
    pub email: String,
    /// Your age (you must be 18 or older)
    #[schemars(range(min = 18, max = 150))]
    pub age: u32,
}

/// Signing up for the demo's newsletter (the User Interaction draft's tool).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SignUp {
    /// Your name
    #[schemars(length(min = 1))]
    pub name: String,
    /// Your email address
    #[schemars(email)]
    pub email: String,
}

/// A music genre, shown with its title.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Genre {
    /// Jazz
    Jazz,
    /// Rock
    Rock,
    /// Classical
    Classical,
    /// Hip-hop
    HipHop,
    /// Electronic
    Electronic,
}

/// A relationship manager who could take a portfolio over (the wire value is the manager's id).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub(crate) enum Manager {
    /// Ava Chen
    #[serde(rename = "m-ava")]
    Ava,
    /// Bruno Díaz
    #[serde(rename = "m-bruno")]
    Bruno,
    /// Chloé Martin
    #[serde(rename = "m-chloe")]
    Chloe,
}

impl Manager {
    /// The manager's id, as on the wire.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Manager::Ava => "m-ava",
            Manager::Bruno => "m-bruno",
            Manager::Chloe => "m-chloe",
        }
    }
}

/// Seed 004: the answer of a portfolio review, shown in the server's own view.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PortfolioReview {
    /// I confirm the reassignment
    pub(crate) confirmed: bool,
    /// New relationship manager
    pub(crate) selected_manager_id: Manager,
}

/// Seed example: a media server asks for a favourite genre.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MusicTaste {
    /// Your favourite music genre
    pub genre: Genre,
}

/// A newsletter topic.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Topic {
    /// Product news
    Product,
    /// Engineering
    Engineering,
    /// Events
    Events,
    /// Research
    Research,
}

/// Newsletter topics, at least one.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Newsletter {
    /// Topics you want to hear about
    #[schemars(length(min = 1, max = 3))]
    pub topics: Vec<Topic>,
}

/// A yes/no confirmation.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Confirmation {
    /// Delete the 3 selected drafts permanently?
    pub confirm: bool,
}

/// A ticket type, shown with its title.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Ticket {
    /// Standard (€120)
    Standard,
    /// Student (€40)
    Student,
    /// Supporter (€250)
    Supporter,
}

/// Where someone travels from: more choices than fit as radio buttons.
#[derive(Debug, Deserialize, JsonSchema)]
pub enum Country {
    /// Belgium
    BE,
    /// Germany
    DE,
    /// France
    FR,
    /// Italy
    IT,
    /// Netherlands
    NL,
    /// Spain
    ES,
    /// United Kingdom
    GB,
    /// United States
    US,
}

/// A workshop, shown with its title.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Workshop {
    /// Rust for MCP servers
    RustMcp,
    /// Designing consent flows
    Consent,
    /// Accessible forms
    AccessibleForms,
    /// Streaming and sessions
    Streaming,
}

/// Every widget of the subset in one form: an event registration.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Registration {
    /// As printed on your badge
    #[schemars(length(min = 2, max = 60))]
    pub name: String,
    /// Where we send the ticket
    #[schemars(email)]
    pub email: String,
    /// Your website or profile (optional)
    #[schemars(url)]
    pub website: Option<String>,
    /// Day you arrive
    #[schemars(extend("format" = "date"))]
    pub arrival: String,
    /// When your talk proposal should be scheduled, if you submit one
    #[schemars(extend("format" = "date-time"))]
    pub talk_slot: Option<String>,
    /// People coming with you
    #[schemars(range(min = 0, max = 4))]
    pub guests: u8,
    /// Travel budget in euros
    #[schemars(range(min = 0.0, max = 5000.0))]
    pub budget: Option<f64>,
    /// Ticket type
    pub ticket: Ticket,
    /// Country you travel from
    pub country: Country,
    /// Workshops (one to three)
    #[schemars(length(min = 1, max = 3))]
    pub workshops: Vec<Workshop>,
    /// Subscribe to the event newsletter
    #[serde(default)]
    pub newsletter: bool,
    /// Meal preference (optional)
    pub meal: Option<Meal>,
}

/// A meal preference: an optional single choice.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Meal {
    /// Vegetarian
    Vegetarian,
    /// Vegan
    Vegan,
    /// No restrictions
    Any,
}

/// Arguments of the conformance fixture `test_elicitation`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TestElicitationArgs {
    /// The message to show the user
    pub message: String,
}
