//! One connection to one server: transport set-up, protocol negotiation, tool calls, and the
//! 2026-07-28 `input_required` loop driven by the host itself.
//!
//! Why the host drives the loop instead of rmcp's `call_tool`: rmcp fulfils every input request
//! of a round in parallel and gives up after ten quick rounds, which suits a machine but not a
//! person. Here requests go to the engine one at a time, and a round lasts as long as the person
//! needs (2026-07-28 `basic/patterns/mrtr.mdx`: echo `requestState` exactly, a new id per retry,
//! nothing carried over to other requests).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_engine::{ElicitParams, Reply};
use interlude_protocol::ProtocolEra;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, InputRequest,
    JsonObject, ProtocolVersion, Tool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::handler::{HostClient, reply_to_result};
use crate::http_client::{HttpClient, ServerStream};
use crate::runtime::{Host, HostError, ProtocolChoice};
use crate::spec::ServerSpec;
use crate::timer::PauseGate;

/// What the host knows about a connected server.
#[derive(Debug, Clone)]
pub struct ConnectionInfo {
    /// The name the host gave it.
    pub name: String,
    /// `stdio` or `http`.
    pub transport: &'static str,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The era of that version.
    pub era: ProtocolEra,
    /// The server's own `serverInfo`, when it sent one.
    pub server_info: Option<Implementation>,
}

/// A finished tool call.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// The tool's result.
    pub result: CallToolResult,
    /// How many `input_required` rounds it took (0 on the push era).
    pub rounds: usize,
}

/// A live connection to a server. Dropping it closes the connection.
pub struct Connection {
    host: Host,
    info: ConnectionInfo,
    service: RunningService<RoleClient, HostClient>,
    gate: PauseGate,
    inflight: Arc<Mutex<Vec<String>>>,
    server_stream: watch::Receiver<ServerStream>,
    watcher: CancellationToken,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

fn install_crypto() {
    // One process-wide TLS provider for HTTPS servers; a second install is a harmless no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl Connection {
    pub(crate) async fn open(
        host: Host,
        name: String,
        spec: ServerSpec,
    ) -> Result<Self, HostError> {
        let protocol = host.config.protocol.clone();
        Self::open_with(host, name, spec, protocol).await
    }

    pub(crate) async fn open_with(
        host: Host,
        name: String,
        spec: ServerSpec,
        protocol: ProtocolChoice,
    ) -> Result<Self, HostError> {
        let connect_err = |reason: String| HostError::Connect {
            server: name.clone(),
            reason,
        };
        let (lifecycle, version) = match &protocol {
            ProtocolChoice::Auto => (
                ClientLifecycleMode::Auto {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    legacy_version: Some(ProtocolVersion::V_2025_11_25),
                },
                ProtocolVersion::V_2025_11_25,
            ),
            ProtocolChoice::Pin(v) if ProtocolEra::of(v) == ProtocolEra::MultiRoundTrip => (
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![v.clone()],
                },
                v.clone(),
            ),
            ProtocolChoice::Pin(v) => (ClientLifecycleMode::Initialize, v.clone()),
        };
        let gate = PauseGate::new();
        let inflight = Arc::new(Mutex::new(Vec::new()));
        let handler = HostClient {
            host: host.clone(),
            server: name.clone(),
            version,
            gate: gate.clone(),
            inflight: inflight.clone(),
        };
        let transport_name = spec.transport();
        // stdio is one duplex pipe: the server can always reach the host. Over HTTP the client
        // reports the standalone stream.
        let (_, mut server_stream) = watch::channel(ServerStream::Open);
        let mut http_client = None;
        let service = match spec {
            ServerSpec::Stdio { command, args, env } => {
                let cmd = tokio::process::Command::new(&command).configure(|c| {
                    c.args(&args);
                    c.envs(&env);
                    c.kill_on_drop(true);
                    // Its own process group: Ctrl-C in the person's terminal is the host's to
                    // handle, not a signal to every server.
                    #[cfg(unix)]
                    c.process_group(0);
                });
                // The server's stderr goes to the log, line by line: never raw onto the person's
                // terminal, where it could interleave with prompts or carry escape sequences.
                let (transport, stderr) = TokioChildProcess::builder(cmd)
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .map_err(|e| connect_err(format!("cannot start `{command}`: {e}")))?;
                if let Some(stderr) = stderr {
                    let server = name.clone();
                    tokio::spawn(async move {
                        use tokio::io::AsyncBufReadExt;
                        let mut lines = tokio::io::BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            tracing::info!(target: "interlude::server_stderr", server = %server, "{}", line.escape_debug());
                        }
                    });
                }
                handler
                    .serve_with_lifecycle(transport, lifecycle)
                    .await
                    .map_err(|e| connect_err(e.to_string()))?
            }
            ServerSpec::Http { url, headers } => {
                install_crypto();
                let mut config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    )
                    .max_concurrent_requests(256);
                for (k, v) in &headers {
                    let name = http::HeaderName::try_from(k.as_str())
                        .map_err(|e| connect_err(format!("bad header name `{k}`: {e}")))?;
                    let value = http::HeaderValue::try_from(v.as_str())
                        .map_err(|e| connect_err(format!("bad value for header `{k}`: {e}")))?;
                    config.custom_headers.insert(name, value);
                }
                let client = HttpClient::new().map_err(connect_err)?;
                server_stream = client.stream_state();
                http_client = Some(client.clone());
                let transport = StreamableHttpClientTransport::with_client(client, config);
                handler
                    .serve_with_lifecycle(transport, lifecycle)
                    .await
                    .map_err(|e| connect_err(e.to_string()))?
            }
        };
        let peer_info = service.peer_info();
        let protocol = peer_info
            .as_ref()
            .map(|i| i.protocol_version.clone())
            .unwrap_or(ProtocolVersion::V_2025_11_25);
        if let Some(client) = &http_client
            && ProtocolEra::of(&protocol) == ProtocolEra::MultiRoundTrip
        {
            client.no_standalone_stream();
        }
        let info = ConnectionInfo {
            name: name.clone(),
            transport: transport_name,
            protocol_version: protocol.to_string(),
            era: ProtocolEra::of(&protocol),
            server_info: peer_info.and_then(|i| i.server_info.clone()),
        };
        tracing::info!(server = %name, protocol = %info.protocol_version, transport = transport_name, "connected");
        let watcher = CancellationToken::new();
        {
            let peer = service.peer().clone();
            let host = host.clone();
            let token = watcher.clone();
            let name = name.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        () = token.cancelled() => return,
                        () = tokio::time::sleep(Duration::from_millis(100)) => {}
                    }
                    if peer.is_transport_closed() {
                        tracing::warn!(server = %name, "server connection closed");
                        host.server_gone(&name, format!("server `{name}` disconnected"));
                        return;
                    }
                }
            });
        }
        Ok(Connection {
            host,
            info,
            service,
            gate,
            inflight,
            server_stream,
            watcher,
        })
    }

    /// What the host knows about this server.
    pub fn info(&self) -> &ConnectionInfo {
        &self.info
    }

    /// Whether the server can reach this host outside a tool call right now (see
    /// [`ServerStream`]); stdio connections always can.
    pub fn server_stream(&self) -> ServerStream {
        *self.server_stream.borrow()
    }

    /// Waits until the server's standalone stream is open, or known to be unavailable, for at
    /// most `patience`; returns the state then. A 2025 server that pushes requests outside tool
    /// calls needs the stream open before the call that makes it do so.
    ///
    /// ```no_run
    /// # async fn run(connection: interlude_host::Connection) {
    /// use interlude_host::ServerStream;
    /// let state = connection.wait_server_stream(std::time::Duration::from_secs(2)).await;
    /// if state != ServerStream::Open {
    ///     eprintln!("the server can only reach us within tool calls");
    /// }
    /// # }
    /// ```
    pub async fn wait_server_stream(&self, patience: Duration) -> ServerStream {
        let mut state = self.server_stream.clone();
        let settled = state.wait_for(|s| *s != ServerStream::Pending);
        match tokio::time::timeout(patience, settled).await {
            Ok(Ok(s)) => *s,
            _ => self.server_stream(),
        }
    }

    /// Whether the server's transport has closed (the server exited or the connection dropped).
    pub fn is_closed(&self) -> bool {
        self.service.peer().is_transport_closed()
    }

    /// Lists every tool (following pagination).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, HostError> {
        self.service
            .peer()
            .list_all_tools()
            .await
            .map_err(|source| HostError::Service {
                server: self.info.name.clone(),
                source: Box::new(source),
            })
    }

    /// Calls a tool; elicitations it raises (either era) go to the person through the engine.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        if let Ok(mut calls) = self.inflight.lock() {
            calls.push(name.to_owned());
        }
        let _inflight = InflightGuard {
            calls: self.inflight.clone(),
            name: name.to_owned(),
        };
        let run = self.drive(name, arguments);
        match self.host.config.call_timeout {
            None => run.await,
            Some(budget) => self
                .gate
                .run_with_active_timeout(budget, run)
                .await
                .unwrap_or_else(|()| {
                    Err(HostError::Timeout {
                        server: self.info.name.clone(),
                        budget,
                    })
                }),
        }
    }

    async fn drive(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let server = &self.info.name;
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = arguments;
        let max_rounds = self.host.config.max_rounds;
        let mut state_only_rounds = 0u32;
        for round in 0..=max_rounds {
            let response = self
                .service
                .peer()
                .call_tool_once(params.clone())
                .await
                .map_err(|source| HostError::Service {
                    server: server.clone(),
                    source: Box::new(source),
                })?;
            let ir = match response {
                CallToolResponse::Complete(result) => {
                    return Ok(CallOutcome {
                        result,
                        rounds: round,
                    });
                }
                CallToolResponse::InputRequired(ir) => ir,
                _ => {
                    return Err(HostError::Unexpected {
                        server: server.clone(),
                        what: "a task result (tasks are not declared by this host)".into(),
                    });
                }
            };
            let requests = ir.input_requests.unwrap_or_default();
            let mut responses = BTreeMap::new();
            if requests.is_empty() {
                // State-only round (load shedding, polling): back off a little, then retry.
                state_only_rounds += 1;
                let wait = Duration::from_millis(100u64 << state_only_rounds.min(4));
                tokio::time::sleep(wait).await;
            }
            // One at a time, in key order: never several questions behind the person's back.
            for (key, request) in requests {
                let InputRequest::Elicitation(elicit) = request else {
                    return Err(HostError::Refused {
                        server: server.clone(),
                        reason: format!(
                            "input request `{key}` is not an elicitation (sampling and roots are not declared)"
                        ),
                    });
                };
                let params = ElicitParams::from(elicit.params);
                let reply = {
                    let _paused = self.gate.pause();
                    self.host
                        .elicit(
                            server,
                            ProtocolEra::MultiRoundTrip,
                            params,
                            Some(name.to_owned()),
                        )
                        .await
                };
                if let Reply::Error { message, .. } = &reply {
                    return Err(HostError::Refused {
                        server: server.clone(),
                        reason: message.clone(),
                    });
                }
                let result = reply_to_result(reply).map_err(|e| HostError::Refused {
                    server: server.clone(),
                    reason: e.message.to_string(),
                })?;
                let value = serde_json::to_value(result).unwrap_or(Value::Null);
                responses.insert(key, value);
            }
            params.input_responses = if responses.is_empty() {
                None
            } else {
                Some(responses)
            };
            params.request_state = ir.request_state;
        }
        Err(HostError::TooManyRounds {
            server: server.clone(),
            rounds: max_rounds,
        })
    }

    /// Closes the connection (for stdio servers, the child process is stopped).
    pub async fn close(mut self) {
        self.watcher.cancel();
        let _ = self
            .service
            .close_with_timeout(Duration::from_secs(5))
            .await;
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.watcher.cancel();
    }
}

struct InflightGuard {
    calls: Arc<Mutex<Vec<String>>>,
    name: String,
}

impl Drop for InflightGuard {
    fn drop(&mut self) {
        if let Ok(mut calls) = self.calls.lock()
            && let Some(i) = calls.iter().position(|c| *c == self.name)
        {
            calls.remove(i);
        }
    }
}
