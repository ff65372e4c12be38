//! The Interlude demo server: one MCP server with a tool for every seed scenario of
//! human-in-the-loop MCP, written once with [`interlude_server::Ask`] and working in both
//! protocol eras (2025 push `elicitation/create`, 2026-07-28 `input_required`).
//!
//! Tools:
//! - `github_username`, `contact_info`, `favourite_genre`, `newsletter_topics`, `confirm_action`:
//!   the seed examples (a username; name, e-mail and an age of at least 18; a titled single
//!   choice; a multi-select; a yes/no confirmation);
//! - `weather_api_key`, `connect_cloud_account`, `verify_payment`: URL-mode flows — the server
//!   sends the person to its own page to enter an API key, to connect an account at a third
//!   party through OAuth, or to confirm a payment, none of which passes through the client
//!   (when the demo runs with its pages, see [`flows`] and [`provider`]);
//! - `weather_dashboard`: an MCP App, the seed's weather dashboard (`ui://demo/weather`), which
//!   refreshes itself through `weather_refresh`, a tool only views may call, and shows ten
//!   years of today through the slow `weather_history` (progress, and a Stop that cancels it;
//!   see [`apps`]);
//! - `order_card`: a view sent MCP-UI's way, embedded in the tool's result (`ui://demo/order`),
//!   speaking MCP-UI's `postMessage` actions; its Refresh calls `order_status`;
//! - `draft_tagline`, `project_folders`: the server asks the client's model for a completion
//!   (sampling, answered by the person) and for the folders it may work in (roots);
//! - `weather_forecast`: a tool that cannot go on without that API key — `-32042` on 2025-11-25
//!   (the host opens the page, waits, calls again), a URL round trip on 2026-07-28; the demo
//!   forgets the key after each forecast, so every call shows the flow;
//! - `deploy_release`: three checks, then an approval asked midway, then the deployment — a
//!   task (the Tasks extension) for a client that takes tasks, an ordinary call otherwise (in
//!   `release.rs`);
//! - the prompt `trip_brief`, which asks how many days the trip lasts before it is written (a
//!   prompt that asks, in both eras; in `prompts.rs`);
//! - `test_elicitation`, `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`:
//!   the fixtures the MCP conformance suite's server scenarios call, with their exact schemas.
//!
//! Served by the `interlude-demo` binary over stdio ([`serve_stdio`]), or streamable HTTP at
//! `/mcp` ([`serve_http`]).
//! Not here: any host-side code; the demo is a server like any other.
//!
//! # Example
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! tokio::spawn(interlude_demo::serve_http(listener, Default::default()));
//! println!("demo server at http://{addr}/mcp");
//! # Ok(()) }
//! ```

pub mod apps;
pub mod flows;
mod handler;
mod http;
mod prompts;
pub mod provider;
mod release;
mod tools;

pub use http::{HttpOptions, serve_http};
/// Serves the demo on this process's stdin/stdout ([`interlude_server::stdio`], the seed-000
/// capability read with [`interlude_server::interaction::normalized`]) until the client goes
/// away.
///
/// # Example
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// interlude_demo::serve_stdio().await?;
/// # Ok(()) }
/// ```
pub async fn serve_stdio() -> Result<(), StdioError> {
    use rmcp::ServiceExt;
    // With its pages, the demo keeps its tasks in its flow store too: a restart loses no
    // ended task's result.
    let server = match flows::from_env() {
        Some(flows) => {
            let ask = interlude_server::AskConfig::new().with_task_store(flows.store().clone());
            DemoServer::new(ask).with_flows(flows)
        }
        None => DemoServer::default(),
    };
    // A client of the User Interaction draft (seed 000) declares it where rmcp's typed
    // capabilities cannot hold it: `normalized` moves it where `Ask` reads it.
    // A known method whose params do not fit is answered -32602 naming the field (`checked`).
    let (stdin, stdout) = interlude_server::stdio();
    // A line that is no JSON is answered -32700 (`checked_lines`).
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(
        interlude_server::interaction::normalized(interlude_server::checked_lines(stdin)),
        stdout,
    );
    let service = server
        .with_legacy_tasks()
        .serve(interlude_server::checked(transport))
        .await
        .map_err(|e| StdioError::Start(Box::new(e)))?;
    service
        .waiting()
        .await
        .map_err(|e| StdioError::Task(e.to_string()))?;
    Ok(())
}

/// Why [`serve_stdio`] stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StdioError {
    /// The session could not start (no `initialize`/`discover` from the client).
    #[error("cannot start on stdio: {0}")]
    Start(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The server task failed.
    #[error("server task failed: {0}")]
    Task(String),
}

pub use tools::{
    Confirmation, ContactInfo, Country, DemoServer, Genre, GitHubUser, MusicTaste, Newsletter,
    Registration, SignUp, TestElicitationArgs, Ticket, Topic, Workshop,
};

/// The guide `interlude demo` shows beside the servers: each scenario, the server (`demo` over
/// stdio speaking 2026-07-28, `demo-2025` over HTTP speaking 2025-11-25) and the tool to call.
///
/// ```
/// let guide = interlude_demo::guide();
/// assert!(guide["steps"].as_array().is_some_and(|s| !s.is_empty()));
/// ```
pub fn guide() -> serde_json::Value {
    let step = |title: &str, text: &str, server: &str, tool: &str| serde_json::json!({"title": title, "text": text, "server": server, "tool": tool});
    serde_json::json!({
        "title": "Try the scenarios",
        "intro": "Each button calls a tool of the demo server; the server then asks you something. \
                  `demo` speaks 2026-07-28 over stdio (your answer rides the retried call); \
                  `demo-2025` speaks 2025-11-25 over HTTP (the server waits on an open request).",
        "steps": [
            step("GitHub username", "One required text field: the smallest form.", "demo", "github_username"),
            step("Contact details", "Name, e-mail and an age of at least 18: try a bad e-mail or age 12 to see validation.", "demo", "contact_info"),
            step("Favourite genre", "A single choice with titles (oneOf).", "demo", "favourite_genre"),
            step("Event registration (every widget)", "One form with every kind of field: text with a length, e-mail, URL, date, date-time, whole and decimal numbers with ranges, radio buttons and a long list, a multi-select, a switch, and an optional choice you can clear again.", "demo", "event_registration"),
            step("Newsletter topics", "A multi-select: pick one to three.", "demo", "newsletter_topics"),
            step("Confirm an action", "A yes/no question before something destructive.", "demo", "confirm_action"),
            step("Weather dashboard (MCP App)", "A tool whose result shows in an app: the view, sandboxed on an origin of its own, refreshes itself by calling its server through the host.", "demo", "weather_dashboard"),
            step("Portfolio review (a question in an app view)", "The server asks in its own view: customer cards with health indicators and a manager picker. The call waits until you answer there; an answer that breaks the form is not sent, and Cancel or the plain form are always outside the view.", "demo", "portfolio_review"),
            step("Portfolio review (2025 era)", "The same question over the push era.", "demo-2025", "portfolio_review"),
            step("A widget written for ChatGPT's Apps SDK", "The same bridge, another dialect: the sandbox gives the widget window.openai.", "demo", "apps_sdk_counter"),
            step("An order card (MCP-UI, a view inside the result)", "The view rides inside the tool's result, the way @mcp-ui/server sends it, and talks to the host with MCP-UI's messages: Refresh calls the server's order_status; Ask and Order again are shown to you as what the view asks to say or do (nothing goes to a model); Track asks your consent to open a page.", "demo", "order_card"),
            step("A tagline from “the model” (sampling)", "The server asks the client's model for a completion; here no model is attached, so you read the request and write the reply yourself.", "demo", "draft_tagline"),
            step("Project folders (roots)", "The server asks which folders it may work in; start with `--root DIR` to give it some.", "demo", "project_folders"),
            step("Deploy a release (a task that asks midway)", "A long tool that becomes a task: its status line follows three checks, then the server asks you to approve the deployment, then it deploys. Cancel stops the task at the server (tasks/cancel).", "demo", "deploy_release"),
            step("Deploy a release (2025-11-25 task)", "The same handler as a task of the 2025-11-25 design: the server lists the tool as allowing a task, the host calls it as one (params.task) and follows its status line, and the approval comes on the task's tasks/result request.", "demo-2025", "deploy_release"),
            step("Enter an API key (URL mode)", "The server sends you to its own page: the key never passes through this host. Consent, open the page, sign in, enter any key; the call goes on when you tell it you are done.", "demo", "weather_api_key"),
            step("Connect a third-party account (URL mode, OAuth)", "The server sends you through its own page to Example Cloud's consent (a provider the demo plays on another port); the tokens stay with the server.", "demo", "connect_cloud_account"),
            step("Verify a payment (URL mode)", "The server shows what you pay on its own page; you confirm or decline there.", "demo", "verify_payment"),
            step("Enter an API key (URL mode, 2025 era)", "The same over the push era: the call waits, and the server tells the host when the page is done.", "demo-2025", "weather_api_key"),
            step("Connect a third-party account (URL mode, 2025 era)", "OAuth over the push era: the call waits until Example Cloud sends you back.", "demo-2025", "connect_cloud_account"),
            step("Verify a payment (URL mode, 2025 era)", "The payment over the push era.", "demo-2025", "verify_payment"),
            step("A call that needs a key first (-32042, 2025 era)", "The forecast fails with -32042 until the key is entered: the host shows the link, waits for the server's word (or your “I’m done”), then calls again by itself.", "demo-2025", "weather_forecast"),
            step("Newsletter sign-up (the User Interaction draft, 2025 era)", "A form, then a confirmation on the server's own page. Started with `interlude demo --user-interaction`, the host declares the seed-000 draft and the server asks through `interaction/create` (a prompt, then a ua link); otherwise through elicitation. The result says which.", "demo-2025", "newsletter_sign_up"),
            step("Defaults (2025 era)", "Every type with a default, prefilled (SEP-1034), over the push era.", "demo-2025", "test_elicitation_sep1034_defaults"),
            step("All enum shapes (2025 era)", "The five enum variants of SEP-1330, including legacy enumNames.", "demo-2025", "test_elicitation_sep1330_enums"),
        ]
    })
}

#[cfg(test)]
mod tests {
    /// A guide step that names no tool of the demo would be a dead button on the page.
    #[test]
    fn every_guide_step_calls_a_tool_the_demo_has() {
        let tools: Vec<String> = crate::handler::tool_names();
        let guide = super::guide();
        let steps = guide["steps"].as_array().expect("steps");
        assert!(steps.len() >= 20, "{}", steps.len());
        for step in steps {
            let tool = step["tool"].as_str().expect("a tool");
            assert!(tools.iter().any(|t| t == tool), "no tool {tool}: {tools:?}");
            assert!(
                ["demo", "demo-2025"].contains(&step["server"].as_str().unwrap_or_default()),
                "{step}"
            );
        }
        for shown in [
            "order_card",
            "draft_tagline",
            "project_folders",
            "portfolio_review",
        ] {
            assert!(
                steps.iter().any(|s| s["tool"] == shown),
                "the guide shows {shown}"
            );
        }
    }
}
