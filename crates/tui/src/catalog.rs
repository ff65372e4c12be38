//! The terminal's catalog: what a server offers besides tools, in the menu's style. Pick a
//! server (when there are several), then one of its resources (read and printed), resource
//! templates (each variable asked, then the resource it names read) or prompts (each argument
//! asked, then its messages printed). A resource read offers what can be done with it next:
//! read it again, subscribe to its updates or no longer (when the server offers it), save a
//! binary item to a file. "Watch updates" prints each update of what is subscribed to as a
//! line as it comes, until the person presses Enter; elsewhere they are printed before the
//! next menu (`surface.rs` keeps them, bounded).
//!
//! What it does not do: interpret anything a server sends as markup (text under the gutter,
//! binary content as its size and type), or keep the lists (asked again each time).

use std::sync::Arc;

use base64::Engine as _;
use inquire::Select;
use interlude_host::{Connection, ServerRecord};
use rmcp::model::{Prompt, ReadResourceResult, ResourceContents};
use serde_json::Value;

use crate::TuiError;
use crate::form::Stop;
use crate::keys::{KEY_POLL, enter_pressed};
use crate::line::LinePrompt;
use crate::render::{Style, plain_line, shorten, styled};
use crate::surface::{UiEvent, clock};
use crate::ui::Session;

/// One entry of a server's catalog menu.
#[derive(Debug, Clone)]
enum Pick {
    Resource(String),
    Template { name: String, template: String },
    Prompt(Box<Prompt>),
    Watch,
    Back,
}

#[derive(Debug, Clone)]
struct Entry {
    label: String,
    pick: Pick,
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

/// What to do with a resource just read.
#[derive(Debug, Clone)]
enum Then {
    Again,
    Subscribe,
    Unsubscribe,
    Save(usize),
    Back,
}

#[derive(Debug, Clone)]
struct ThenEntry {
    label: String,
    then: Then,
}

impl std::fmt::Display for ThenEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

/// What a prompt's `Err` means here: Esc goes back; a terminal failure ends the session.
fn stopped(e: inquire::InquireError) -> Result<(), TuiError> {
    match Stop::from(e) {
        Stop::Escaped | Stop::Closed(_) => Ok(()),
        Stop::Terminal(e) => Err(e.into()),
    }
}

/// The variables of a URI template (`{id}`, `{+path}`, `{?q,r}` → their names).
fn variables(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        let inner =
            rest[start + 1..start + len].trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for name in inner.split(',') {
            let name = name.trim_end_matches('*');
            if !name.is_empty() && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        rest = &rest[start + len + 1..];
    }
    names
}

/// `template` with each variable replaced by its value (percent-encoded where a URI needs it).
fn expand(template: &str, values: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let inner =
            rest[start + 1..start + len].trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        let parts: Vec<String> = inner
            .split(',')
            .map(|n| {
                let n = n.trim_end_matches('*');
                let v = values
                    .iter()
                    .find(|(k, _)| k == n)
                    .map_or("", |(_, v)| v.as_str());
                encode(v)
            })
            .collect();
        out.push_str(&parts.join(","));
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// `value` with every byte outside the unreserved set percent-encoded.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

impl Session {
    /// Browses the catalog of one of `servers` until the person goes back.
    pub(crate) fn catalog(&mut self, servers: &[Arc<ServerRecord>]) -> Result<(), TuiError> {
        let server = match servers {
            [] => return Ok(()),
            [only] => only.clone(),
            several => {
                let names: Vec<String> = several.iter().map(|s| plain_line(&s.name)).collect();
                match Select::new("Resources and prompts of which server?", names)
                    .with_help_message("↑↓ to move, Enter to choose, Esc goes back")
                    .raw_prompt()
                {
                    Ok(chosen) => match several.get(chosen.index) {
                        Some(server) => server.clone(),
                        None => return Ok(()),
                    },
                    Err(e) => return stopped(e),
                }
            }
        };
        let Some(conn) = self.host.connection(server.id) else {
            self.screen.notice(&format!(
                "\"{}\" is no longer connected.",
                plain_line(&server.name)
            ));
            return Ok(());
        };
        loop {
            self.settle()?;
            let Some(entries) = self.entries(&conn) else {
                return Ok(());
            };
            let chosen = match Select::new(
                &format!("Resources and prompts of \"{}\":", plain_line(&server.name)),
                entries,
            )
            .with_help_message("↑↓ to move, Enter to choose, type to filter, Esc goes back")
            .with_page_size(12)
            .prompt()
            {
                Ok(chosen) => chosen.pick,
                Err(e) => return stopped(e),
            };
            match chosen {
                Pick::Resource(uri) => self.read(&conn, &uri)?,
                Pick::Template { name, template } => self.fill(&conn, &name, &template)?,
                Pick::Prompt(prompt) => self.prompt(&conn, &prompt)?,
                Pick::Watch => self.watch(&conn)?,
                Pick::Back => return Ok(()),
            }
        }
    }

    /// The catalog menu of `conn`'s server, its lists asked for now; `None` when it offers
    /// nothing (said).
    fn entries(&self, conn: &Connection) -> Option<Vec<Entry>> {
        let (resources, templates, prompts) = self.handle.block_on(async {
            tokio::join!(
                conn.list_resources(),
                conn.list_resource_templates(),
                conn.list_prompts()
            )
        });
        let name = plain_line(&conn.info().name);
        let listed = |what: &str, e: interlude_host::HostError| {
            self.screen.error(&format!(
                "Cannot list the {what} of \"{name}\": {}",
                plain_line(&e.to_string())
            ));
        };
        let resources = resources.unwrap_or_else(|e| {
            listed("resources", e);
            Vec::new()
        });
        let templates = templates.unwrap_or_else(|e| {
            listed("resource templates", e);
            Vec::new()
        });
        let prompts = prompts.unwrap_or_else(|e| {
            listed("prompts", e);
            Vec::new()
        });
        let record = self.host.server(conn.id());
        let catalog = record
            .as_ref()
            .map(|r| r.catalog.clone())
            .unwrap_or_default();
        if resources.is_empty() && templates.is_empty() && prompts.is_empty() {
            self.screen
                .notice(&format!("\"{name}\" offers no resources and no prompts."));
            return None;
        }
        let room = crate::render::columns().saturating_sub(40).max(20);
        let mut entries = Vec::new();
        for r in &resources {
            let watched = catalog
                .subscriptions
                .get(&r.uri)
                .map(|w| match w.updated_at_ms {
                    Some(at) => format!("  [subscribed, updated {}]", clock(at)),
                    None => "  [subscribed]".to_owned(),
                });
            entries.push(Entry {
                label: format!(
                    "resource  {}  {}{}",
                    plain_line(r.title.as_deref().unwrap_or(&r.name)),
                    shorten(&plain_line(&r.uri), room),
                    watched.unwrap_or_default()
                ),
                pick: Pick::Resource(r.uri.clone()),
            });
        }
        // Subscriptions to resources not listed (read through a template).
        for (uri, w) in &catalog.subscriptions {
            if resources.iter().any(|r| &r.uri == uri) {
                continue;
            }
            let updated = w.updated_at_ms.map(|at| format!(", updated {}", clock(at)));
            entries.push(Entry {
                label: format!(
                    "resource  {}  [subscribed{}]",
                    shorten(&plain_line(uri), room),
                    updated.unwrap_or_default()
                ),
                pick: Pick::Resource(uri.clone()),
            });
        }
        for t in &templates {
            entries.push(Entry {
                label: format!(
                    "template  {}  {}",
                    plain_line(t.title.as_deref().unwrap_or(&t.name)),
                    shorten(&plain_line(&t.uri_template), room)
                ),
                pick: Pick::Template {
                    name: t.name.clone(),
                    template: t.uri_template.clone(),
                },
            });
        }
        for p in prompts {
            let about = p
                .description
                .as_deref()
                .map(|d| shorten(&plain_line(d.lines().next().unwrap_or_default()), room))
                .unwrap_or_default();
            entries.push(Entry {
                label: format!("prompt    {}  {about}", plain_line(&p.name)),
                pick: Pick::Prompt(Box::new(p)),
            });
        }
        if !catalog.subscriptions.is_empty() {
            entries.push(Entry {
                label: format!("Watch updates ({} subscribed)", catalog.subscriptions.len()),
                pick: Pick::Watch,
            });
        }
        entries.push(Entry {
            label: "Back".into(),
            pick: Pick::Back,
        });
        Some(entries)
    }

    /// Reads `uri` and prints it; `None` (said) when the server could not.
    fn fetch(&self, conn: &Connection, uri: &str) -> Option<ReadResourceResult> {
        match self.handle.block_on(conn.read_resource(uri)) {
            Ok(read) => {
                self.show_read(uri, &read);
                Some(read)
            }
            Err(e) => {
                self.screen.error(&plain_line(&e.to_string()));
                None
            }
        }
    }

    /// Reads `uri`, prints it, and offers what can be done with it next.
    fn read(&mut self, conn: &Connection, uri: &str) -> Result<(), TuiError> {
        let Some(mut read) = self.fetch(conn, uri) else {
            return Ok(());
        };
        let name = plain_line(&conn.info().name);
        let shown = plain_line(uri);
        loop {
            self.show_notices();
            let record = self.host.server(conn.id());
            let subscribed = record
                .as_ref()
                .is_some_and(|s| s.catalog.is_subscribed(uri));
            let offered = record
                .as_ref()
                .is_some_and(|s| s.catalog.subscribing.offered());
            let mut choices = vec![
                ThenEntry {
                    label: "Back to the list".into(),
                    then: Then::Back,
                },
                ThenEntry {
                    label: "Read it again".into(),
                    then: Then::Again,
                },
            ];
            if subscribed {
                choices.push(ThenEntry {
                    label: "Unsubscribe from its updates".into(),
                    then: Then::Unsubscribe,
                });
            } else if offered {
                choices.push(ThenEntry {
                    label: "Subscribe to its updates".into(),
                    then: Then::Subscribe,
                });
            }
            for (i, c) in read.contents.iter().enumerate() {
                if let ResourceContents::BlobResourceContents { uri, .. } = c {
                    choices.push(ThenEntry {
                        label: format!("Save {} to a file", shorten(&plain_line(uri), 60)),
                        then: Then::Save(i),
                    });
                }
            }
            let then = match Select::new(&format!("{shown}:"), choices)
                .with_help_message("↑↓ to move, Enter to choose, Esc goes back to the list")
                .prompt()
            {
                Ok(chosen) => chosen.then,
                Err(e) => return stopped(e),
            };
            match then {
                Then::Back => return Ok(()),
                Then::Again => match self.fetch(conn, uri) {
                    Some(again) => read = again,
                    None => return Ok(()),
                },
                Then::Subscribe => match self.handle.block_on(conn.subscribe(uri)) {
                    Ok(()) => self.screen.ok(&format!(
                        "Subscribed to {shown}: \"{name}\"'s updates print as lines before the \
                         next menu (Watch updates, in the list, waits for them)."
                    )),
                    Err(e) => self.screen.error(&plain_line(&e.to_string())),
                },
                Then::Unsubscribe => match self.handle.block_on(conn.unsubscribe(uri)) {
                    Ok(()) => self.screen.ok(&format!("Unsubscribed from {shown}.")),
                    Err(e) => self.screen.error(&plain_line(&e.to_string())),
                },
                Then::Save(i) => {
                    if let Some(item) = read.contents.get(i) {
                        self.save(item)?;
                    }
                }
            }
        }
    }

    /// Prints what a resource read came to: text under the gutter, anything else as its size
    /// and type.
    fn show_read(&self, uri: &str, read: &ReadResourceResult) {
        self.screen.blank();
        self.screen
            .line(styled(Style::Strong, &format!("━━ {} ━━", plain_line(uri))));
        if read.contents.is_empty() {
            self.screen
                .line(styled(Style::Dim, "   The server sent no contents."));
        }
        for item in &read.contents {
            match item {
                ResourceContents::TextResourceContents {
                    uri: item_uri,
                    mime_type,
                    text,
                    ..
                } => {
                    if item_uri != uri || mime_type.is_some() {
                        self.screen.line(styled(
                            Style::Dim,
                            &format!(
                                "   {} ({})",
                                plain_line(item_uri),
                                plain_line(mime_type.as_deref().unwrap_or("text"))
                            ),
                        ));
                    }
                    self.screen.quoted(text);
                }
                ResourceContents::BlobResourceContents {
                    uri: item_uri,
                    mime_type,
                    blob,
                    ..
                } => {
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .map_or(blob.len() / 4 * 3, |b| b.len());
                    self.screen.quoted(&format!(
                        "[{bytes} bytes, {}: {}]",
                        mime_type.as_deref().unwrap_or("application/octet-stream"),
                        item_uri
                    ));
                }
                // rmcp's enum may gain kinds: said as what they are.
                #[allow(unreachable_patterns)]
                other => self
                    .screen
                    .quoted(&serde_json::to_string_pretty(other).unwrap_or_default()),
            }
        }
    }

    /// Asks for a file path and writes a binary item there (never over an existing file).
    fn save(&self, item: &ResourceContents) -> Result<(), TuiError> {
        let ResourceContents::BlobResourceContents { uri, blob, .. } = item else {
            return Ok(());
        };
        let bytes = match base64::engine::general_purpose::STANDARD.decode(blob) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.screen
                    .error(&format!("The server's base64 does not decode: {e}."));
                return Ok(());
            }
        };
        let suggested = uri
            .rsplit('/')
            .find(|s| !s.is_empty())
            .map(|s| {
                s.chars()
                    .filter(|c| c.is_ascii_alphanumeric() || "._-".contains(*c))
                    .collect::<String>()
            })
            .filter(|s| !s.is_empty() && !s.starts_with('.'))
            .unwrap_or_else(|| "resource.bin".to_owned());
        let check = |path: &str| {
            let path = std::path::Path::new(path.trim());
            if path.as_os_str().is_empty() {
                Err("Enter a file path.".to_owned())
            } else if path.exists() {
                Err("That file exists already: choose another path.".to_owned())
            } else {
                Ok(())
            }
        };
        let path = match LinePrompt::new("Save to (file path):")
            .with_initial_value(&suggested)
            .with_help_message("a new file · Esc goes back")
            .with_check(check)
            .prompt()
        {
            Ok(path) => path.trim().to_owned(),
            Err(e) => return stopped(e),
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes))
        {
            Ok(()) => self.screen.ok(&format!(
                "Saved {} bytes to {}.",
                bytes.len(),
                plain_line(&path)
            )),
            Err(e) => self
                .screen
                .error(&format!("Cannot write {}: {e}.", plain_line(&path))),
        }
        Ok(())
    }

    /// Asks for each variable of `template`, then reads the resource it names.
    fn fill(&mut self, conn: &Connection, name: &str, template: &str) -> Result<(), TuiError> {
        self.screen.blank();
        self.screen.line(styled(
            Style::Strong,
            &format!(
                "━━ {} › {} ━━",
                plain_line(&conn.info().name),
                plain_line(name)
            ),
        ));
        self.screen.line(styled(
            Style::Dim,
            &format!("   {} · Esc goes back", plain_line(template)),
        ));
        let mut values: Vec<(String, String)> = Vec::new();
        for variable in variables(template) {
            let label = format!("{}:", plain_line(&variable));
            match LinePrompt::new(&label).prompt() {
                Ok(value) => values.push((variable, value)),
                Err(e) => return stopped(e),
            }
        }
        let uri = expand(template, &values);
        self.read(conn, &uri)
    }

    /// Asks for a prompt's arguments, gets it, and prints its messages.
    fn prompt(&mut self, conn: &Connection, prompt: &Prompt) -> Result<(), TuiError> {
        self.screen.blank();
        self.screen.line(styled(
            Style::Strong,
            &format!(
                "━━ {} › {} ━━",
                plain_line(&conn.info().name),
                plain_line(&prompt.name)
            ),
        ));
        if let Some(d) = prompt.description.as_deref() {
            self.screen.quoted(d);
        }
        let mut arguments = serde_json::Map::new();
        let args = prompt.arguments.as_deref().unwrap_or_default();
        if !args.is_empty() {
            self.screen.line(styled(
                Style::Dim,
                "   Arguments: * required · optional ones may be left empty · Esc goes back",
            ));
        }
        for a in args {
            let required = a.required == Some(true);
            let label = format!(
                "{}{}:",
                plain_line(&a.name),
                if required { " *" } else { "" }
            );
            let help = a.description.as_deref().map(plain_line).unwrap_or_default();
            let check = |v: &str| {
                if required && v.trim().is_empty() {
                    Err(format!("Enter {}.", plain_line(&a.name)))
                } else {
                    Ok(())
                }
            };
            match LinePrompt::new(&label)
                .with_help_message(&help)
                .with_check(check)
                .prompt()
            {
                Ok(value) if value.is_empty() => {}
                Ok(value) => {
                    arguments.insert(a.name.clone(), Value::String(value));
                }
                Err(e) => return stopped(e),
            }
        }
        let got = self
            .handle
            .block_on(conn.get_prompt(&prompt.name, (!arguments.is_empty()).then_some(arguments)));
        let got = match got {
            Ok(got) => got,
            Err(e) => {
                self.screen.error(&plain_line(&e.to_string()));
                return Ok(());
            }
        };
        self.screen.blank();
        self.screen.line(styled(
            Style::Strong,
            &format!("━━ Prompt {} ━━", plain_line(&prompt.name)),
        ));
        if let Some(d) = got.description.as_deref() {
            self.screen
                .line(styled(Style::Dim, &format!("   {}", plain_line(d))));
        }
        for m in &got.messages {
            let role = match serde_json::to_value(&m.role) {
                Ok(Value::String(role)) => role,
                _ => "message".to_owned(),
            };
            self.screen
                .line(styled(Style::Strong, &format!("   {role}:")));
            let said = match serde_json::to_value(&m.content) {
                Ok(Value::Object(o)) => match o.get("type").and_then(Value::as_str) {
                    Some("text") => o
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    Some("resource") if resource_text(&o).is_some() => {
                        resource_text(&o).unwrap_or_default().to_owned()
                    }
                    Some(kind) => crate::tools::describe_block(kind, &o),
                    None => "[content of an unknown kind]".to_owned(),
                },
                _ => "[content that cannot be shown]".to_owned(),
            };
            self.screen.quoted(&said);
        }
        self.screen.blank();
        Ok(())
    }

    /// Prints each update of what is subscribed to as it comes, until Enter; answers
    /// what servers ask meanwhile.
    fn watch(&mut self, conn: &Connection) -> Result<(), TuiError> {
        let count = self
            .host
            .server(conn.id())
            .map_or(0, |s| s.catalog.subscriptions.len());
        self.screen.line(styled(
            Style::Dim,
            &format!(
                "   Watching the {count} resource{} of \"{}\" you subscribed to: updates print here. \
                 Press Enter to stop.",
                if count == 1 { "" } else { "s" },
                plain_line(&conn.info().name)
            ),
        ));
        loop {
            self.show_notices();
            if enter_pressed() {
                self.screen.line(styled(Style::Dim, "   Stopped watching."));
                return Ok(());
            }
            match self.events.next_timeout(KEY_POLL) {
                Ok(Some(UiEvent::Present(view, sink))) => {
                    crate::request::answer(
                        &self.screen,
                        &mut self.events,
                        &self.host,
                        self.handoff.as_deref(),
                        *view,
                        &sink,
                    )?;
                }
                Ok(Some(UiEvent::Closed(_, notice))) => self.closed_in_queue(&notice),
                Ok(_) => {}
                Err(()) => return Err(TuiError::HostStopped),
            }
        }
    }
}

/// The text of an embedded text resource (`{"type": "resource", "resource": {"text"}}`).
fn resource_text(o: &serde_json::Map<String, Value>) -> Option<&str> {
    o.get("resource")?.get("text")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_read_and_filled() {
        assert_eq!(
            variables("demo://resource/dynamic/text/{resourceId}"),
            ["resourceId"]
        );
        assert_eq!(variables("a/{+path}{?q,r*}/{path}"), ["path", "q", "r"]);
        assert_eq!(
            expand(
                "demo://r/{id}/x{?q}",
                &[("id".into(), "3 4".into()), ("q".into(), "é".into())]
            ),
            "demo://r/3%204/x%C3%A9"
        );
    }
}
