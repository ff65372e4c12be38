//! `interlude-conformance-client`: the client the MCP conformance harness launches.
//!
//! The harness passes the scenario in `MCP_CONFORMANCE_SCENARIO`, the protocol version in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` (default 2025-11-25, for suites that do not set it), any
//! scenario data in `MCP_CONFORMANCE_CONTEXT` (JSON), and the server URL as the last argument.
//!
//! Every scenario runs through the real host, exactly as `interlude call` does: one
//! [`Host`] with the headless surface, one connection, arguments checked against the tool's
//! schema before they leave, and elicitations (either era: pushed requests or `input_required`
//! rounds) answered with the schema's defaults through the engine. There is no protocol code of
//! its own here: what a scenario checks (request state echoed, fresh ids, `Last-Event-ID` on
//! reconnection, `Mcp-Param-*` headers, tools with invalid `x-mcp-header` left out) is the
//! host's behaviour. A scenario only decides which tools to call with which arguments.
//!
//! `auth/*` scenarios are not handled yet (they fall through to listing the tools, and fail).
#![allow(clippy::print_stderr)]

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Connection, Host, HostConfig, ProtocolChoice, ServerSpec};
use rmcp::model::{JsonObject, ProtocolVersion, Tool};
use serde_json::{Value, json};

async fn run() -> anyhow::Result<()> {
    let url = std::env::args()
        .next_back()
        .filter(|a| a.starts_with("http"))
        .context("the server URL must be the last argument")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if scenario.is_empty() {
        bail!("MCP_CONFORMANCE_SCENARIO is not set");
    }
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .unwrap_or_else(|_| "2025-11-25".to_owned());
    let pinned = [
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ]
    .into_iter()
    .find(|v| v.as_str() == version)
    .with_context(|| format!("unsupported protocol version `{version}`"))?;
    let config = HostConfig {
        protocol: ProtocolChoice::Pin(pinned),
        call_timeout: Some(Duration::from_secs(20)),
        client_name: "interlude-conformance-client".into(),
        ..HostConfig::default()
    };
    let host = Host::start(config, HeadlessSurface::new(Answers::Defaults));
    let connection = host
        .connect("conformance", ServerSpec::parse(&url)?)
        .await?;
    let result = scenario_flow(&connection, &scenario).await;
    connection.close().await;
    result
}

/// The calls of one scenario.
async fn scenario_flow(connection: &Connection, scenario: &str) -> anyhow::Result<()> {
    match scenario {
        // Connecting is the whole scenario.
        "initialize" => Ok(()),
        "tools_call" => {
            call(
                connection,
                "add_numbers",
                json!({"a": 5, "b": 3}).as_object().cloned(),
            )
            .await
        }
        "elicitation-sep1034-client-defaults" => {
            // The mock sends `elicitation/create` without a related request, so it travels on the
            // standalone GET stream, and the TS SDK 1.x server drops it if that stream is not open
            // yet. rmcp opens the GET stream in the background after the session starts: wait
            // until the server has answered that GET (or refused it) before calling.
            let stream = connection.wait_server_stream(Duration::from_secs(5)).await;
            tracing::debug!(?stream, "standalone stream before the call");
            call(connection, "test_client_elicitation_defaults", None).await
        }
        // The mock closes the call's SSE stream after its priming event; the host must come
        // back with a GET carrying `Last-Event-ID`, no sooner than the `retry` it was given, and
        // take the result from there.
        // The mock also takes the first GET after the call for that reconnection: the host's
        // own standalone GET, opened in the background after the session starts, must have
        // been answered first, or a late one is misread (and carries no Last-Event-ID).
        "sse-retry" => {
            let stream = connection.wait_server_stream(Duration::from_secs(5)).await;
            tracing::debug!(?stream, "standalone stream before the call");
            call(connection, "test_reconnection", None).await
        }
        "sep-2322-client-request-state" => request_state(connection).await,
        "http-custom-headers" => custom_headers(connection).await,
        // Both scenarios list tools the host must send `Mcp-Method` / `Mcp-Name` for; the second
        // also lists tools whose `x-mcp-header` annotations are invalid, which the host must
        // leave out of its list. Calling what the host offers tests both.
        "http-invalid-tool-headers" => call_every_listed_tool(connection).await,
        // The first scenario also offers resources and prompts: the host reads and gets them
        // as the page's "Resources & prompts" does, each with its own headers.
        "http-standard-headers" => {
            call_every_listed_tool(connection).await?;
            browse_catalog(connection).await
        }
        "json-schema-2020-12-preservation" => schema_echo(connection).await,
        _ => connection
            .list_tools()
            .await
            .map(|_| ())
            .map_err(Into::into),
    }
}

/// Reads every listed resource and gets every listed prompt (with no arguments), through the
/// host's catalog API.
async fn browse_catalog(connection: &Connection) -> anyhow::Result<()> {
    for resource in connection.list_resources().await? {
        connection
            .read_resource(&resource.uri)
            .await
            .with_context(|| format!("reading {}", resource.uri))?;
    }
    for prompt in connection.list_prompts().await? {
        connection
            .get_prompt(&prompt.name, None)
            .await
            .with_context(|| format!("getting the prompt {}", prompt.name))?;
    }
    Ok(())
}

/// One tool call through the host, after the same argument check as `interlude call`; a tool
/// error is an error of the run.
async fn call(
    connection: &Connection,
    tool: &str,
    arguments: Option<JsonObject>,
) -> anyhow::Result<()> {
    if let Err(errors) = connection.check_arguments(tool, arguments.as_ref()) {
        let problems: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        bail!(
            "the arguments do not fit the input schema of `{tool}`; the call was not sent: {}",
            problems.join("; ")
        );
    }
    let outcome = connection
        .call_tool(tool, arguments)
        .await
        .with_context(|| format!("calling `{tool}`"))?;
    tracing::debug!(tool, rounds = outcome.rounds, result = ?outcome.result, "call finished");
    if outcome.result.is_error == Some(true) {
        bail!("`{tool}` answered with a tool error: {:?}", outcome.result);
    }
    Ok(())
}

/// SEP-2322 on the client side, four tools at once on one connection:
/// - `test_mrtr_echo_state`: an `input_required` result with a `requestState`, which the retry
///   must carry back unchanged under a new JSON-RPC id;
/// - `test_mrtr_no_state`: the same without a `requestState`: the retry must not invent one;
/// - `test_mrtr_unrelated`: a plain call that must carry neither `inputResponses` nor a
///   `requestState` of the flows running beside it;
/// - `test_mrtr_no_result_type`: a result without `resultType`, which is complete (no retry).
///
/// They run concurrently, so the two flows (both asking a question keyed `confirm`) and the
/// plain calls share the connection while rounds are in flight: the isolation the scenario
/// names is the host's, under real interleaving.
async fn request_state(connection: &Connection) -> anyhow::Result<()> {
    let (echo, no_state, unrelated, no_result_type) = tokio::join!(
        call(connection, "test_mrtr_echo_state", None),
        call(connection, "test_mrtr_no_state", None),
        call(connection, "test_mrtr_unrelated", None),
        call(connection, "test_mrtr_no_result_type", None),
    );
    echo.and(no_state).and(unrelated).and(no_result_type)
}

/// SEP-2243 custom headers: the calls named in `MCP_CONFORMANCE_CONTEXT`
/// (`{"toolCalls": [{"name", "arguments"}…]}`), in order.
///
/// Arguments whose value is `null` are left out: the scenario means "not given" (its check is
/// that no `Mcp-Param-*` header is sent for them), while the tool's own schema types them as
/// boolean, so the host's argument check would rightly refuse the call.
async fn custom_headers(connection: &Connection) -> anyhow::Result<()> {
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .context("MCP_CONFORMANCE_CONTEXT is not set for http-custom-headers")?;
    let context: Value =
        serde_json::from_str(&context).context("MCP_CONFORMANCE_CONTEXT is not valid JSON")?;
    let calls = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .context("MCP_CONFORMANCE_CONTEXT has no `toolCalls` list")?;
    for entry in calls {
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .context("a `toolCalls` entry has no `name`")?;
        let arguments = match entry.get("arguments") {
            None | Some(Value::Null) => None,
            Some(Value::Object(args)) => Some(
                args.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect::<JsonObject>(),
            ),
            Some(other) => bail!("the arguments for `{name}` are not an object: {other}"),
        };
        call(connection, name, arguments).await?;
    }
    Ok(())
}

/// Lists the tools as the host offers them and calls each one, with a sample value for every
/// required property of a simple type. A tool whose required properties cannot be sampled is
/// skipped (and said so).
async fn call_every_listed_tool(connection: &Connection) -> anyhow::Result<()> {
    let tools = connection.list_tools().await?;
    for tool in &tools {
        match sample_arguments(tool) {
            Some(arguments) => call(connection, &tool.name, Some(arguments)).await?,
            None => eprintln!(
                "interlude-conformance-client: not calling `{}`: no sample for its required \
                 arguments",
                tool.name
            ),
        }
    }
    Ok(())
}

/// A value for each required property of `tool`, when each is a string, number, integer or
/// boolean.
fn sample_arguments(tool: &Tool) -> Option<JsonObject> {
    let schema = &tool.input_schema;
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut arguments = JsonObject::new();
    for name in required.iter().filter_map(Value::as_str) {
        let kind = properties
            .and_then(|p| p.get(name))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        let value = match kind {
            Some("string") => json!("interlude"),
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            _ => return None,
        };
        arguments.insert(name.to_owned(), value);
    }
    Some(arguments)
}

/// JSON Schema 2020-12 preservation: the input schema of `json_schema_2020_12_tool`, as the host
/// received it, goes back to the server through `json_schema_echo`, which lets the harness see
/// which keywords survived the host.
async fn schema_echo(connection: &Connection) -> anyhow::Result<()> {
    let tools = connection.list_tools().await?;
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .context("the server does not list `json_schema_2020_12_tool`")?;
    let schema = Value::Object((*focal.input_schema).clone());
    call(
        connection,
        "json_schema_echo",
        json!({ "schema": schema }).as_object().cloned(),
    )
    .await
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only on a terminal (and not under NO_COLOR): a log file or a pipe gets
        // plain text.
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("INTERLUDE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    match tokio::time::timeout(Duration::from_secs(25), run()).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("interlude-conformance-client: {e:#}");
            ExitCode::from(1)
        }
        Err(_) => {
            eprintln!("interlude-conformance-client: gave up after 25 s");
            ExitCode::from(1)
        }
    }
}
