//! The tool side of the terminal surface: the list of servers and their tools (from the host's
//! record), the menu to pick one, prompts for its arguments, and the rendering of its result.
//!
//! Arguments: when a tool's `inputSchema` is a flat object of simple properties (the shape the
//! elicitation subset describes), each property gets its own prompt through the same form code
//! as elicitations; anything richer falls back to one JSON prompt. Either way the arguments are
//! checked against the whole input schema with the host's check (`interlude_host::
//! check_arguments`) before the call: the fields it names are asked again with its message, and
//! the JSON prompt does not take what the check refuses.
//!
//! What it does not do: call tools (the terminal loop in `ui.rs` does, off this thread) or
//! interpret tool output as markup: text is shown as plain text under a gutter, structured
//! content pretty-printed.

use std::fmt;
use std::sync::Arc;

use inquire::Select;
use interlude_host::{
    ArgumentError, CallRecord, CallStatus, ServerRecord, check_arguments, parse_arguments,
    schema::{Content, FieldError, FormSchema},
};
use rmcp::model::{CallToolResult, JsonObject, Tool};
use serde_json::Value;

use crate::form::{Stop, all_fields, fields_in_error, fill, show_errors};
use crate::line::LinePrompt;
use crate::render::{Screen, Style, plain_line, styled};

/// What the person picked in the menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MenuChoice {
    /// Call tool `tool` of server `server` (indices).
    Tool { server: usize, tool: usize },
    /// Show the servers' logs: their log messages and what stdio servers wrote to stderr.
    Logs,
    /// Browse a server's resources, resource templates and prompts.
    Catalog,
    /// Leave.
    Quit,
}

#[derive(Debug, Clone)]
struct Entry {
    label: String,
    choice: MenuChoice,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// First line of a description, cut at a word to `max` characters.
fn summary(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or_default().trim();
    crate::render::shorten(&plain_line(first), max)
}

/// Lists every server's tools with their descriptions.
pub(crate) fn list(screen: &Screen, servers: &[Arc<ServerRecord>]) {
    for s in servers {
        screen.blank();
        screen.line(styled(
            Style::Strong,
            &format!("Tools of \"{}\"", plain_line(&s.name)),
        ));
        if s.model_tools().next().is_none() {
            screen.line(styled(Style::Dim, "    (none)"));
        }
        let width = s
            .model_tools()
            .map(|t| plain_line(&t.name).chars().count())
            .max()
            .unwrap_or(0);
        for t in s.model_tools() {
            let name = plain_line(&t.name);
            let pad = " ".repeat(width.saturating_sub(name.chars().count()));
            // One line each, as wide as the terminal (minus the indent, the name and a margin).
            let room = crate::render::columns()
                .saturating_sub(4 + width + 2 + 1)
                .max(12);
            let desc = t.description.as_deref().map(|d| summary(d, room));
            screen.line(format!(
                "    {name}{pad}  {}",
                styled(Style::Dim, desc.as_deref().unwrap_or_default())
            ));
        }
    }
}

/// How many of each server's last log lines are shown.
const LOG_LINES: usize = 30;

/// Each server's last log lines: its `notifications/message` (level, logger, text) and, for a
/// stdio server, what it wrote to stderr — all as plain text, from the host's protocol log.
pub(crate) fn logs(screen: &Screen, host: &interlude_host::Host, servers: &[Arc<ServerRecord>]) {
    use interlude_host::Direction;
    for s in servers {
        let lines: Vec<String> = host
            .protocol_log(s.id)
            .iter()
            .filter_map(|m| match m.dir {
                Direction::Stderr => Some(format!(
                    "{:>9.3} s  stderr  {}",
                    m.t_ms as f64 / 1000.0,
                    plain_line(m.message.as_str().unwrap_or_default())
                )),
                Direction::Recv
                    if m.view.is_none()
                        && m.message.get("method").and_then(serde_json::Value::as_str)
                            == Some("notifications/message") =>
                {
                    let params = m.message.get("params");
                    let field = |k: &str| params.and_then(|p| p.get(k));
                    let level = field("level").and_then(|l| l.as_str()).unwrap_or("info");
                    let logger = field("logger").and_then(|l| l.as_str());
                    let data = match field("data") {
                        Some(serde_json::Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                        None => String::new(),
                    };
                    Some(format!(
                        "{:>9.3} s  {level:<7} {}{}",
                        m.t_ms as f64 / 1000.0,
                        logger
                            .map(|l| format!("{} ", plain_line(l)))
                            .unwrap_or_default(),
                        plain_line(&data)
                    ))
                }
                _ => None,
            })
            .collect();
        screen.blank();
        screen.line(styled(
            Style::Strong,
            &format!("Logs of \"{}\"", plain_line(&s.name)),
        ));
        if lines.is_empty() {
            screen.line(styled(
                Style::Dim,
                "    Nothing logged yet (log messages, and for a stdio server what it writes to stderr).",
            ));
        }
        let skip = lines.len().saturating_sub(LOG_LINES);
        if skip > 0 {
            screen.line(styled(Style::Dim, &format!("    … {skip} earlier lines")));
        }
        for line in lines.into_iter().skip(skip) {
            screen.line(format!(
                "  {}",
                crate::render::shorten(&line, crate::render::columns().saturating_sub(3).max(20))
            ));
        }
    }
}

/// Asks which tool to call next.
pub(crate) fn menu(servers: &[Arc<ServerRecord>]) -> Result<MenuChoice, Stop> {
    let several = servers.len() > 1;
    let name = |s: &ServerRecord, t: &Tool| {
        if several {
            format!("{} › {}", plain_line(&s.name), plain_line(&t.name))
        } else {
            plain_line(&t.name)
        }
    };
    let width = servers
        .iter()
        .flat_map(|s| s.model_tools().map(move |t| name(s, t).chars().count()))
        .max()
        .unwrap_or(0);
    let mut entries = Vec::new();
    for (si, s) in servers.iter().enumerate() {
        // Tools only the server's views call (`visibility: ["app"]`) are not offered.
        let offered = s.tools.iter().enumerate();
        for (ti, t) in offered.filter(|(_, t)| s.visibility(&t.name).model) {
            let name = name(s, t);
            let label = match t.description.as_deref() {
                // No styling inside options: inquire filters and highlights the plain text.
                Some(d) => {
                    let pad = " ".repeat(width.saturating_sub(name.chars().count()));
                    // On one line: the option with its cursor while choosing, and after the
                    // choice the same label behind "> Call a tool: " (15 columns).
                    let room = crate::render::columns()
                        .saturating_sub(15 + width + 2 + 1)
                        .max(12);
                    format!("{name}{pad}  {}", summary(d, room))
                }
                None => name,
            };
            entries.push(Entry {
                label,
                choice: MenuChoice::Tool {
                    server: si,
                    tool: ti,
                },
            });
        }
    }
    entries.push(Entry {
        label: "Resources and prompts".into(),
        choice: MenuChoice::Catalog,
    });
    entries.push(Entry {
        label: "Server logs".into(),
        choice: MenuChoice::Logs,
    });
    entries.push(Entry {
        label: "Quit".into(),
        choice: MenuChoice::Quit,
    });
    let chosen = Select::new("Call a tool:", entries)
        .with_help_message("↑↓ to move, Enter to call, type to filter, Esc to quit")
        .with_page_size(12)
        .prompt()?;
    Ok(chosen.choice)
}

/// How a tool's arguments are asked for.
#[derive(Debug)]
enum Plan {
    /// No properties: call without arguments.
    Nothing,
    /// One prompt per property.
    Form(Arc<FormSchema>),
    /// One JSON object.
    Json,
}

fn plan(tool: &Tool) -> Plan {
    let schema = Value::Object((*tool.input_schema).clone());
    let no_properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(serde_json::Map::is_empty);
    if no_properties {
        return Plan::Nothing;
    }
    match FormSchema::parse(&schema) {
        Ok(parsed) => Plan::Form(Arc::new(parsed.schema)),
        Err(_) => Plan::Json,
    }
}

/// Asks for the arguments of `tool`. `Ok(None)`: the person went back (Esc).
pub(crate) fn arguments(
    screen: &Screen,
    server: &str,
    tool: &Tool,
) -> Result<Option<Option<JsonObject>>, Stop> {
    screen.blank();
    screen.line(styled(
        Style::Strong,
        &format!("━━ {} › {} ━━", plain_line(server), plain_line(&tool.name)),
    ));
    if let Some(d) = tool.description.as_deref() {
        screen.quoted(d);
    }
    let result = match plan(tool) {
        Plan::Nothing => return Ok(Some(None)),
        Plan::Form(schema) => {
            screen.line(styled(
                Style::Dim,
                "   Arguments: * required · optional ones may be left empty · Esc goes back",
            ));
            let mut values: Content = schema.prefill();
            form_arguments(screen, tool, &schema, &mut values).map(|()| Some(values))
        }
        Plan::Json => json_arguments(screen, tool).map(Some),
    };
    match result {
        Ok(args) => Ok(Some(args)),
        Err(Stop::Escaped) => Ok(None),
        Err(other) => Err(other),
    }
}

/// Fills the form, then checks the arguments against the whole input schema; the fields the
/// check names are asked again, with its message, until it passes.
fn form_arguments(
    screen: &Screen,
    tool: &Tool,
    schema: &Arc<FormSchema>,
    values: &mut Content,
) -> Result<(), Stop> {
    let mut which = all_fields(schema);
    let mut errors: Vec<FieldError> = Vec::new();
    loop {
        fill(schema, values, &which, &errors, &mut || None)?;
        let Err(refused) = check_arguments(&tool.input_schema, values) else {
            return Ok(());
        };
        errors = refused.into_iter().map(field_error).collect();
        screen.error("These arguments do not fit the tool's input schema:");
        show_errors(screen, &errors);
        which = fields_in_error(schema, &errors);
        if which.is_empty() {
            // Nothing a field can fix (the schema asks more than its fields show): all again.
            which = all_fields(schema);
        }
    }
}

/// A problem with an argument as the form shows it, on its top-level field.
fn field_error(e: ArgumentError) -> FieldError {
    FieldError {
        field: e.field,
        message: e.message,
    }
}

/// What the JSON prompt says of `input`: the host's reading of the text and its check of the
/// arguments, every message at once.
fn check_json(tool: &Tool, input: &str) -> Result<(), String> {
    let refused = match parse_arguments(input) {
        Err(unreadable) => vec![unreadable],
        Ok(arguments) => match check_arguments(&tool.input_schema, &arguments) {
            Ok(()) => return Ok(()),
            Err(errors) => errors,
        },
    };
    let said: Vec<String> = refused
        .into_iter()
        .map(|e| plain_line(&e.message))
        .collect();
    Err(said.join(" "))
}

fn json_arguments(screen: &Screen, tool: &Tool) -> Result<JsonObject, Stop> {
    let props: Vec<String> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(|k| plain_line(k)).collect())
        .unwrap_or_default();
    let required: Vec<String> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(plain_line).collect())
        .unwrap_or_default();
    screen.line(styled(
        Style::Dim,
        "   This tool's arguments are not a simple form: type them as one JSON object.",
    ));
    let schema_text = serde_json::to_string_pretty(&*tool.input_schema).unwrap_or_default();
    screen.line(styled(Style::Dim, "   Its input schema:"));
    screen.quoted(&schema_text);
    let mut help = format!("properties: {}", props.join(", "));
    if !required.is_empty() {
        help.push_str(&format!(" · required: {}", required.join(", ")));
    }
    help.push_str(" · Esc goes back");
    let check = |input: &str| check_json(tool, input);
    let text = LinePrompt::new("Arguments (JSON):")
        .with_initial_value("{}")
        .with_help_message(&help)
        .with_check(check)
        .prompt()?;
    Ok(parse_arguments(&text).unwrap_or_default())
}

/// Shows what a tool call came to, from its record.
pub(crate) fn show_result(screen: &Screen, call: &CallRecord) {
    let head = format!(
        "{} › {}",
        plain_line(&call.server_name),
        plain_line(&call.tool)
    );
    screen.blank();
    match &call.status {
        CallStatus::Completed(result) => show_tool_result(screen, &head, result),
        CallStatus::Failed { reason } => {
            screen.error(&format!("The call to {head} failed:"));
            screen.quoted(reason);
        }
        CallStatus::Cancelled { reason } => {
            screen.notice(&format!(
                "The call to {head} was cancelled: {}.",
                plain_line(reason)
            ));
        }
        _ => screen.notice(&format!("The call to {head} is still running.")),
    }
    screen.blank();
}

fn show_tool_result(screen: &Screen, head: &str, result: &CallToolResult) {
    if result.is_error == Some(true) {
        screen.error(&format!("{head} reported an error:"));
    } else {
        screen.line(styled(Style::Strong, &format!("━━ Result of {head} ━━")));
    }
    // UI resources (MCP-UI's views in a result) are named for what they are, never printed.
    let views = match serde_json::to_value(&result.content) {
        Ok(Value::Array(content)) => interlude_host::embedded::embedded_views(&content),
        _ => Vec::new(),
    };
    for (index, block) in result.content.iter().enumerate() {
        if let Some(view) = views.iter().find(|v| v.index == index) {
            screen.quoted(&format!(
                "[{}: {}]",
                view.content.describe(),
                plain_line(&view.uri)
            ));
            continue;
        }
        match serde_json::to_value(block) {
            Ok(Value::Object(o)) => match o.get("type").and_then(Value::as_str) {
                Some("text") => {
                    screen.quoted(o.get("text").and_then(Value::as_str).unwrap_or_default());
                }
                Some(kind) => screen.quoted(&describe_block(kind, &o)),
                None => screen.quoted("[content of an unknown kind]"),
            },
            _ => screen.quoted("[content that cannot be shown]"),
        }
    }
    if let Some(structured) = &result.structured_content {
        screen.line(styled(Style::Dim, "   Structured content:"));
        screen.quoted(&serde_json::to_string_pretty(structured).unwrap_or_default());
    }
    if result.content.is_empty() && result.structured_content.is_none() {
        screen.quoted("(no content)");
    }
}

/// A one-line stand-in for content a terminal cannot show.
pub(crate) fn describe_block(kind: &str, o: &serde_json::Map<String, Value>) -> String {
    let mime = o.get("mimeType").and_then(Value::as_str);
    let uri = o
        .get("uri")
        .or_else(|| o.get("resource").and_then(|r| r.get("uri")))
        .and_then(Value::as_str);
    let size = o
        .get("data")
        .and_then(Value::as_str)
        .map(|d| format!("{} bytes of base64", d.len()));
    let details: Vec<String> = [mime.map(str::to_owned), uri.map(str::to_owned), size]
        .into_iter()
        .flatten()
        .collect();
    if details.is_empty() {
        format!("[{kind}]")
    } else {
        format!("[{kind}: {}]", details.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> Tool {
        let Value::Object(o) = schema else {
            panic!("not an object")
        };
        Tool::new("t", "d", Arc::new(o))
    }

    #[test]
    fn flat_schemas_become_forms_and_others_json() {
        assert!(matches!(
            plan(&tool(json!({"type": "object", "properties": {}}))),
            Plan::Nothing
        ));
        assert!(matches!(
            plan(&tool(json!({"type": "object"}))),
            Plan::Nothing
        ));
        assert!(matches!(
            plan(&tool(json!({"type": "object",
                "properties": {"message": {"type": "string"}}, "required": ["message"]}))),
            Plan::Form(_)
        ));
        assert!(matches!(
            plan(&tool(json!({"type": "object",
                "properties": {"nested": {"type": "object"}}}))),
            Plan::Json
        ));
    }

    #[test]
    fn json_arguments_are_read_and_checked_by_the_host() {
        let t = tool(json!({"type": "object",
            "properties": {"point": {"type": "object",
                "properties": {"x": {"type": "number"}}, "required": ["x"]}},
            "required": ["point"]}));
        assert_eq!(check_json(&t, r#"{"point": {"x": 1}}"#), Ok(()));
        assert_eq!(
            check_json(&t, r#"{"point": {}}"#),
            Err("Enter Point \u{203a} X.".into())
        );
        assert_eq!(check_json(&t, "{}"), Err("Point is required.".into()));
        assert_eq!(
            check_json(&t, "{"),
            Err(
                "The arguments are not valid JSON: EOF while parsing an object at line 1, column 1."
                    .into()
            )
        );
    }

    #[test]
    fn summaries_are_one_short_line() {
        assert_eq!(summary("first\nsecond", 10), "first");
        assert_eq!(summary("abcdefghijkl", 5), "abcd…");
        assert_eq!(summary("a\x1b[31m", 10), "a␛[31m");
    }

    #[test]
    fn blocks_are_described() {
        let o = json!({"type": "image", "mimeType": "image/png", "data": "AAAA"});
        let Value::Object(o) = o else { unreachable!() };
        assert_eq!(
            describe_block("image", &o),
            "[image: image/png, 4 bytes of base64]"
        );
    }
}
