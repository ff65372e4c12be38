//! How a connection is made: the transport of a [`ServerSpec`] (a child process with its stderr
//! followed, or streamable HTTP with the host's client), then the handshake in the era chosen,
//! the tap and the pause gate in place, and the server's record filled in. What a connection
//! does once open is in the parent module.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use interlude_engine::ServerId;
use interlude_protocol::ProtocolEra;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use rmcp::transport::{ConfigureCommandExt, IntoTransport, StreamableHttpClientTransport};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{Connection, ConnectionInfo, Inner, TransportExtras};
use crate::hub::config::{HostError, ProtocolChoice};
use crate::hub::inputs::{HostInput, ServerUpdate};
use crate::hub::shared::Shared;
use crate::hub::timer::PauseGate;
use crate::record::registry::{ServerIdentity, ServerLog};
use crate::session::handler::{HostClient, list_resources};
use crate::transport::child::{ChildTransport, LogTo};
use crate::transport::failure::{self, EndReason};
use crate::transport::http_client::{HttpClient, ServerStream};
use crate::transport::spec::ServerSpec;
use crate::transport::tap::{Declare, Rewrite, Tap};

fn install_crypto() {
    // One process-wide TLS provider for HTTPS servers; a second install is a harmless no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Records that server `id` could not connect, and says so as an error.
fn connect_failed(shared: &Shared, id: ServerId, name: &str, reason: String) -> HostError {
    shared.submit(HostInput::Server(ServerUpdate::Failed {
        id,
        reason: reason.clone(),
    }));
    HostError::Connect {
        server: name.to_owned(),
        reason,
    }
}

impl Connection {
    pub(crate) async fn open_spec(
        shared: Shared,
        id: ServerId,
        name: String,
        spec: ServerSpec,
        protocol: ProtocolChoice,
    ) -> Result<Connection, HostError> {
        let failed = |reason: String| connect_failed(&shared, id, &name, reason);
        let transport_name = spec.transport();
        match spec {
            ServerSpec::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(&command).configure(|c| {
                    c.args(&args);
                    c.envs(&env);
                    c.kill_on_drop(true);
                    c.stdin(std::process::Stdio::piped());
                    c.stdout(std::process::Stdio::piped());
                    // The server's stderr goes to the log, line by line: never raw onto the
                    // person's terminal, where it could interleave with prompts or carry
                    // escape sequences.
                    c.stderr(std::process::Stdio::piped());
                    // Its own process group: Ctrl-C in the person's terminal is the host's to
                    // handle, not a signal to every server.
                    #[cfg(unix)]
                    c.process_group(0);
                });
                let mut child = cmd
                    .spawn()
                    .map_err(|e| failed(format!("cannot start `{command}`: {e}")))?;
                let stderr = child.stderr.take();
                let ended = EndReason::default();
                let log = LogTo {
                    log: shared.log.clone(),
                    server: id,
                    name: name.clone(),
                };
                let hints = Arc::new(crate::transport::task_hints::TaskHints::default());
                let transport = ChildTransport::new(child, ended.clone(), log, hints.clone())
                    .map_err(|e| failed(format!("cannot start `{command}`: {e}")))?;
                // What the server writes on stderr goes to the log, and its last lines are kept:
                // a server says there why it stops, and the failure quotes it.
                let (closed_tx, stderr_closed) = tokio::sync::oneshot::channel();
                if let Some(stderr) = stderr {
                    // The page redraws its server logs when the host says something was
                    // logged.
                    let (hub, server_name) = (shared.clone(), name.clone());
                    let kept = move |text: String| {
                        hub.submit(HostInput::Server(ServerUpdate::Logged(ServerLog {
                            server: id,
                            server_name: server_name.clone(),
                            level: "stderr".to_owned(),
                            logger: None,
                            data: serde_json::Value::String(text),
                            at_ms: crate::clock::now_ms(),
                        })));
                    };
                    let follow = crate::transport::stderr::follow(
                        stderr,
                        Arc::clone(&shared.log),
                        id,
                        name.clone(),
                        ended.clone(),
                        kept,
                    );
                    tokio::spawn(async move {
                        follow.await;
                        let _ = closed_tx.send(());
                    });
                }
                let extras = TransportExtras {
                    transport_name: Some(transport_name),
                    ended: Some(ended),
                    stderr_closed: Some(stderr_closed),
                    lines: Some(transport.lines()),
                    task_hints: Some(hints),
                    ..TransportExtras::default()
                };
                Self::open_transport(shared.clone(), id, name, transport, protocol, extras).await
            }
            ServerSpec::Http { url, headers } => {
                install_crypto();
                let mut config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    )
                    .max_concurrent_requests(256);
                for (k, v) in &headers {
                    let header = http::HeaderName::try_from(k.as_str())
                        .map_err(|e| failed(format!("bad header name `{k}`: {e}")))?;
                    let value = http::HeaderValue::try_from(v.as_str())
                        .map_err(|e| failed(format!("bad value for header `{k}`: {e}")))?;
                    config.custom_headers.insert(header, value);
                }
                let ended = EndReason::default();
                let hints = Arc::new(crate::transport::task_hints::TaskHints::default());
                let client = HttpClient::new()
                    .map_err(failed)?
                    .reading_task_hints(hints.clone())
                    .rewriting(
                        crate::session::interaction::declared(shared.config.declare)
                            .then_some(crate::session::interaction::declare_in as Rewrite),
                    )
                    .noting_to(ended.clone())
                    .recording_to(shared.log.clone(), id, &name);
                let extras = TransportExtras {
                    transport_name: Some(transport_name),
                    ended: Some(ended),
                    server_stream: Some(client.stream_state()),
                    http_client: Some(client.clone()),
                    task_hints: Some(hints),
                    ..TransportExtras::default()
                };
                let transport = StreamableHttpClientTransport::with_client(client, config);
                Self::open_transport(shared.clone(), id, name, transport, protocol, extras).await
            }
        }
    }

    pub(crate) async fn open_transport<T, E, A>(
        shared: Shared,
        id: ServerId,
        name: String,
        transport: T,
        protocol: ProtocolChoice,
        extras: TransportExtras,
    ) -> Result<Connection, HostError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let failed = |reason: String| connect_failed(&shared, id, &name, reason);
        let (lifecycle, version) = match &protocol {
            ProtocolChoice::Auto => (
                ClientLifecycleMode::Auto {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    legacy_version: Some(ProtocolVersion::V_2025_11_25),
                },
                ProtocolVersion::V_2025_11_25,
            ),
            ProtocolChoice::Pin(v) if ProtocolEra::of(v) == ProtocolEra::Mrtr => (
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![v.clone()],
                },
                v.clone(),
            ),
            ProtocolChoice::Pin(v) => (ClientLifecycleMode::Initialize, v.clone()),
        };
        let ended = extras.ended.clone().unwrap_or_default();
        let gate = PauseGate::new();
        let answered = Arc::new(crate::transport::tap::Answered::default());
        // The Tasks extension is defined for 2026-07-28: declared unless the server is pinned to
        // a 2025 version.
        let tasks = shared.config.tasks
            && !matches!(&protocol, ProtocolChoice::Pin(v) if ProtocolEra::of(v) == ProtocolEra::Push);
        // One copy of the name, shared by every request the server raises.
        let shared_name: Arc<str> = Arc::from(name.as_str());
        let handler = HostClient {
            shared: shared.clone(),
            server: id,
            server_name: shared_name.clone(),
            version,
            tasks,
            gate: gate.clone(),
            answered: answered.clone(),
            refused: Arc::default(),
        };
        let closed = CancellationToken::new();
        let declare = match (
            crate::session::interaction::declared(shared.config.declare),
            extras.http_client.is_some(),
        ) {
            (false, _) => Declare::No,
            (true, false) => Declare::Here(crate::session::interaction::declare_in),
            (true, true) => Declare::Below(crate::session::interaction::declare_in),
        };
        let tap = Tap::new(transport.into_transport(), closed.clone())
            .with_lines(extras.lines.clone())
            .with_task_hints(extras.task_hints.clone())
            .logged(shared.log.clone(), id, name.clone())
            .pairing(extras.http_client.is_some())
            .declaring(declare, answered);
        let budget = shared.config.connect_timeout;
        let handshake =
            tokio::time::timeout(budget, handler.serve_with_lifecycle(tap, lifecycle)).await;
        // A stdio server that stopped has usually said why on stderr: the pipe gets a moment to
        // deliver its last lines, which the reason quotes.
        let settled = |closed: Option<tokio::sync::oneshot::Receiver<()>>| async move {
            if let Some(closed) = closed {
                let _ = tokio::time::timeout(Duration::from_millis(500), closed).await;
            }
        };
        let service = match handshake {
            Ok(Ok(service)) => service,
            Ok(Err(e)) => {
                settled(extras.stderr_closed).await;
                return Err(failed(failure::connect(&e, &ended)));
            }
            Err(_) => {
                settled(extras.stderr_closed).await;
                return Err(failed(ended.with_last_words(format!(
                    "the server did not answer the handshake within {} s",
                    budget.as_secs_f64()
                ))));
            }
        };
        let peer = service.peer().clone();
        let peer_info = service.peer_info();
        let negotiated = peer_info
            .as_ref()
            .map(|i| i.protocol_version.clone())
            .unwrap_or(ProtocolVersion::V_2025_11_25);
        let era = ProtocolEra::of(&negotiated);
        if let Some(client) = &extras.http_client
            && era == ProtocolEra::Mrtr
        {
            client.no_standalone_stream();
        }
        let server_info = peer_info.as_ref().and_then(|i| i.server_info.clone());
        let has_tools = peer_info
            .as_ref()
            .is_none_or(|i| i.capabilities.tools.is_some());
        let transport_name = extras.transport_name.unwrap_or("in-process");
        let info = ConnectionInfo {
            name: name.clone(),
            transport: transport_name,
            protocol_version: negotiated.to_string(),
            era,
            server_info: server_info.clone(),
        };
        tracing::info!(server = %name, protocol = %info.protocol_version, transport = transport_name, "connected");
        // stdio is one duplex pipe: the server can always reach the host. Over HTTP the client
        // reports the standalone stream.
        let server_stream = extras
            .server_stream
            .unwrap_or_else(|| watch::channel(ServerStream::Open).1);
        let tools = if has_tools {
            match peer.list_all_tools().await {
                Ok(tools) => tools,
                Err(e) => {
                    let _ = service.cancel().await;
                    return Err(failed(format!(
                        "cannot list its tools: {}",
                        failure::service(&e, &ended)
                    )));
                }
            }
        } else {
            Vec::new()
        };
        // Its resources (MCP Apps views among them), listed now so that a view can open as
        // soon as its tool is called. A server that cannot list them still serves its tools.
        let has_resources = peer_info
            .as_ref()
            .is_some_and(|i| i.capabilities.resources.is_some());
        let resources = if has_resources {
            list_resources(&peer, &name).await
        } else {
            Vec::new()
        };
        let apps = peer_info
            .as_ref()
            .and_then(|i| i.capabilities.extensions.as_ref())
            .and_then(|e| e.get(interlude_protocol::apps::EXTENSION_ID))
            .cloned();
        let identity = ServerIdentity {
            name: server_info
                .as_ref()
                .map_or_else(String::new, |i| i.name.clone()),
            title: server_info.as_ref().and_then(|i| i.title.clone()),
            version: server_info
                .as_ref()
                .map_or_else(String::new, |i| i.version.clone()),
            protocol_version: negotiated.to_string(),
            era,
            logging: peer_info
                .as_ref()
                .is_some_and(|i| i.capabilities.logging.is_some()),
        };
        let subscribing = crate::record::catalog::Subscribing::of(
            peer_info.as_ref().map(|i| &i.capabilities),
            era,
        );
        shared.submit(HostInput::Server(ServerUpdate::Ready {
            id,
            identity,
            tools,
            apps,
            resources,
            subscribing,
            peer: peer.clone(),
        }));
        // The record shows the server ready, with its tools, before `connect` returns: the hub
        // may have left the update to another thread's drain, so wait for it to be applied.
        let (applied, ready) = tokio::sync::oneshot::channel();
        shared.submit(HostInput::Barrier(applied));
        let _ = ready.await;
        let closing = Arc::new(AtomicBool::new(false));
        {
            // The end of the connection, as a signal: the tap cancels the token when the
            // server's stream ends or the service drops the transport.
            let (shared, closed, closing, name, ended) = (
                shared.clone(),
                closed.clone(),
                closing.clone(),
                name.clone(),
                ended.clone(),
            );
            tokio::spawn(async move {
                closed.cancelled().await;
                if closing.load(Ordering::SeqCst) {
                    shared.submit(HostInput::Server(ServerUpdate::Closed { id }));
                } else {
                    let reason = failure::disconnected(&ended);
                    tracing::warn!(server = %name, "{reason}");
                    shared.submit(HostInput::Server(ServerUpdate::Failed { id, reason }));
                }
            });
        }
        Ok(Connection {
            inner: Arc::new(Inner {
                shared,
                id,
                info,
                name: shared_name,
                peer,
                service: tokio::sync::Mutex::new(Some(service)),
                gate,
                server_stream,
                closed,
                closing,
                ended,
                listening: Default::default(),
                task_hints: extras.task_hints,
                farewells: Default::default(),
            }),
        })
    }
}
