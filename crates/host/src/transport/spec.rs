//! How to reach a server: a command line for stdio, or an `http(s)://` URL for streamable HTTP.

use std::collections::BTreeMap;

use serde_json::Value;

/// A server to connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    /// Start a child process and speak MCP over its stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
    },
    /// Speak streamable HTTP to this endpoint.
    Http {
        /// The endpoint URL (usually ending in `/mcp`).
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
}

/// A server spec that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The command line is empty.
    #[error("empty server command")]
    Empty,
    /// An `mcpServers` configuration file that cannot be used.
    #[error("server configuration: {0}")]
    Config(String),
    /// The command line does not split into words (unbalanced quotes).
    #[error("cannot split server command `{command}`: {reason}")]
    BadCommand {
        /// The command line.
        command: String,
        /// Why.
        reason: String,
    },
}

impl ServerSpec {
    /// Reads `http://…`/`https://…` as an HTTP endpoint and anything else as a shell-quoted
    /// command line.
    ///
    /// ```
    /// use interlude_host::ServerSpec;
    /// assert!(matches!(ServerSpec::parse("http://127.0.0.1:3000/mcp").unwrap(), ServerSpec::Http { .. }));
    /// let ServerSpec::Stdio { command, args, .. } = ServerSpec::parse("npx -y 'some server'").unwrap()
    ///     else { unreachable!() };
    /// assert_eq!((command.as_str(), args.len()), ("npx", 2));
    /// ```
    pub fn parse(s: &str) -> Result<Self, SpecError> {
        let trimmed = s.trim();
        if trimmed.starts_with("http://") || trimmed.starts_with("https://") {
            return Ok(ServerSpec::Http {
                url: trimmed.to_owned(),
                headers: BTreeMap::new(),
            });
        }
        let words = shell_words::split(trimmed).map_err(|e| SpecError::BadCommand {
            command: s.to_owned(),
            reason: e.to_string(),
        })?;
        let mut words = words.into_iter();
        let command = words.next().ok_or(SpecError::Empty)?;
        Ok(ServerSpec::Stdio {
            command,
            args: words.collect(),
            env: BTreeMap::new(),
        })
    }

    /// A name for a server the person did not name: for stdio the program's file name, or, when
    /// the program only launches the server (`node`, `npx`, `uvx`, `python`, `docker` …), the
    /// package, script or image it launches; for HTTP the `host:port`. Once connected, the page
    /// and the terminal show what the server says it is, with this name beside it.
    ///
    /// ```
    /// use interlude_host::ServerSpec;
    /// let name = |s: &str| ServerSpec::parse(s).unwrap().default_name();
    /// assert_eq!(name("/usr/bin/my-server --x"), "my-server");
    /// assert_eq!(name("http://127.0.0.1:3000/mcp"), "127.0.0.1:3000");
    /// assert_eq!(name("npx -y @modelcontextprotocol/server-everything@2"), "server-everything");
    /// assert_eq!(name("node /opt/servers/weather/dist/index.js --stdio"), "weather");
    /// assert_eq!(name("uvx mcp-server-fetch"), "mcp-server-fetch");
    /// assert_eq!(name("python3 -m my_server"), "my_server");
    /// assert_eq!(name("docker run -i --rm mcp/fetch"), "fetch");
    /// ```
    pub fn default_name(&self) -> String {
        let name = match self {
            ServerSpec::Stdio { command, args, .. } => {
                let program = file_name(command);
                if LAUNCHERS.contains(&program.trim_end_matches(".exe")) {
                    launched(args).or_else(|| Some(program.to_owned()))
                } else {
                    Some(program.to_owned())
                }
            }
            ServerSpec::Http { url, .. } => url
                .split("://")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .map(str::to_owned),
        };
        name.filter(|n| !n.is_empty())
            .unwrap_or_else(|| "server".to_owned())
    }

    /// The command line or URL, for display.
    pub fn target(&self) -> String {
        match self {
            ServerSpec::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            ServerSpec::Http { url, .. } => url.clone(),
        }
    }

    /// `stdio` or `http`, for display.
    pub fn transport(&self) -> &'static str {
        match self {
            ServerSpec::Stdio { .. } => "stdio",
            ServerSpec::Http { .. } => "http",
        }
    }
}

/// Reads the `mcpServers` JSON format Claude Desktop uses (`{"mcpServers": {name: {command, args,
/// env} | {url, headers}}}`), also accepting VS Code's `servers` key and its `type` field.
/// Servers are returned in file order.
///
/// ```
/// use interlude_host::{ServerSpec, parse_mcp_servers};
/// let servers = parse_mcp_servers(&serde_json::json!({"mcpServers": {
///     "demo": {"command": "interlude-demo", "args": []},
///     "remote": {"url": "http://127.0.0.1:3000/mcp", "headers": {"Authorization": "Bearer x"}}
/// }})).unwrap();
/// assert_eq!(servers[0].0, "demo");
/// assert!(matches!(servers[1].1, ServerSpec::Http { .. }));
/// ```
pub fn parse_mcp_servers(config: &Value) -> Result<Vec<(String, ServerSpec)>, SpecError> {
    let bad = |m: String| SpecError::Config(m);
    let servers = config
        .get("mcpServers")
        .or_else(|| config.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| bad("expected an object under `mcpServers` (or `servers`)".into()))?;
    let strings =
        |name: &str, v: Option<&Value>, key: &str| -> Result<BTreeMap<String, String>, SpecError> {
            match v {
                None | Some(Value::Null) => Ok(BTreeMap::new()),
                Some(Value::Object(o)) => o
                    .iter()
                    .map(|(k, v)| match v.as_str() {
                        Some(s) => Ok((k.clone(), s.to_owned())),
                        None => Err(bad(format!(
                            "server `{name}`: `{key}.{k}` must be a string"
                        ))),
                    })
                    .collect(),
                Some(_) => Err(bad(format!(
                    "server `{name}`: `{key}` must be an object of strings"
                ))),
            }
        };
    let mut out = Vec::with_capacity(servers.len());
    for (name, entry) in servers {
        let o = entry
            .as_object()
            .ok_or_else(|| bad(format!("server `{name}` must be an object")))?;
        let spec = if let Some(url) = o.get("url") {
            let url = url
                .as_str()
                .ok_or_else(|| bad(format!("server `{name}`: `url` must be a string")))?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(bad(format!(
                    "server `{name}`: `url` must be http:// or https://"
                )));
            }
            ServerSpec::Http {
                url: url.to_owned(),
                headers: strings(name, o.get("headers"), "headers")?,
            }
        } else if let Some(command) = o.get("command") {
            let command = command
                .as_str()
                .filter(|c| !c.trim().is_empty())
                .ok_or_else(|| {
                    bad(format!(
                        "server `{name}`: `command` must be a non-empty string"
                    ))
                })?;
            let args = match o.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| {
                        v.as_str().map(str::to_owned).ok_or_else(|| {
                            bad(format!("server `{name}`: `args` must be a list of strings"))
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(bad(format!("server `{name}`: `args` must be a list"))),
            };
            ServerSpec::Stdio {
                command: command.to_owned(),
                args,
                env: strings(name, o.get("env"), "env")?,
            }
        } else {
            return Err(bad(format!("server `{name}` needs `command` or `url`")));
        };
        out.push((name.clone(), spec));
    }
    Ok(out)
}

/// Programs that launch a server rather than being one.
const LAUNCHERS: &[&str] = &[
    "node", "nodejs", "npx", "bun", "bunx", "deno", "pnpm", "yarn", "uv", "uvx", "python",
    "python3", "pipx", "docker", "podman", "java", "sh", "bash",
];

/// Words after a launcher that are not what it launches.
const SUBCOMMANDS: &[&str] = &["run", "x", "exec", "dlx", "tool", "start"];

/// The last path component of `path`.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// What a launcher's arguments launch: the first that is neither an option nor a subcommand
/// (after `-m`, the module), as a short name — a package without its scope and version, a
/// script by its folder when it is an `index`/`main` file in `dist`/`build`/`src`, an image
/// without its registry and tag.
fn launched(args: &[String]) -> Option<String> {
    let mut module = false;
    for arg in args {
        if arg == "-m" {
            module = true;
            continue;
        }
        if module {
            return Some(arg.clone());
        }
        if arg.starts_with('-') || SUBCOMMANDS.contains(&arg.as_str()) {
            continue;
        }
        return Some(short_name(arg));
    }
    None
}

fn short_name(arg: &str) -> String {
    // A path to a script: its stem, or its package's folder for a generic entry point.
    let parts: Vec<&str> = arg.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let looks_like_path = arg.contains('/') && (arg.starts_with('.') || arg.starts_with('/'))
        || arg.ends_with(".js")
        || arg.ends_with(".mjs")
        || arg.ends_with(".py");
    if looks_like_path {
        let mut rest = parts.as_slice();
        let stem = rest
            .last()
            .map(|f| f.rsplit_once('.').map_or(*f, |(s, _)| s))
            .unwrap_or(arg);
        if !["index", "main", "server", "cli"].contains(&stem) {
            return stem.to_owned();
        }
        rest = rest.split_last().map_or(rest, |(_, r)| r);
        while let Some((last, before)) = rest.split_last() {
            if ["dist", "build", "lib", "src", "bin", "out"].contains(last) {
                rest = before;
            } else {
                return (*last).to_owned();
            }
        }
        return stem.to_owned();
    }
    // A package (`@scope/name@version`) or an image (`registry/name:tag`).
    let without_version = match arg.strip_prefix('@') {
        Some(scoped) => scoped.split_once('@').map_or(scoped, |(n, _)| n),
        None => arg.split_once('@').map_or(arg, |(n, _)| n),
    };
    let last = without_version
        .rsplit('/')
        .next()
        .unwrap_or(without_version);
    last.split_once(':').map_or(last, |(n, _)| n).to_owned()
}
