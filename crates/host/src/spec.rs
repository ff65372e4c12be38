//! How to reach a server: a command line for stdio, or an `http(s)://` URL for streamable HTTP.

use std::collections::BTreeMap;

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

    /// `stdio` or `http`, for display.
    pub fn transport(&self) -> &'static str {
        match self {
            ServerSpec::Stdio { .. } => "stdio",
            ServerSpec::Http { .. } => "http",
        }
    }
}
