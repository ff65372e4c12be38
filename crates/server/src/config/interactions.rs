//! [`Interactions`]: which interactions of the User Interaction draft (seed 000) this server
//! created, and for which client — state of the server that [`AskConfig`](crate::AskConfig)
//! holds, one per server, next to its sealing key.
//!
//! At the bottom with the configuration: the requests that create interactions
//! (`interaction_create.rs`, `interaction/ua.rs`) record them here. Answering
//! `interaction/notify` ([`Interactions::notify`]) follows URL flows, so that method is defined
//! above them, in `interaction.rs`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use interlude_protocol::interaction::InteractionType;
use rmcp::service::{RequestContext, RoleServer};
use tokio::sync::watch;

/// How long a finished interaction is remembered, so that a late `interaction/notify` for it
/// is still answered (at once).
const KEPT_AFTER: Duration = Duration::from_secs(15 * 60);

/// The most interactions remembered per server.
const MAX_KEPT: usize = 10_000;

/// The interactions this server created, per client, so that `interaction/notify` is answered
/// for those only. One per server: [`AskConfig::interactions`](crate::AskConfig::interactions).
#[derive(Debug, Default)]
pub struct Interactions {
    created: Mutex<HashMap<String, Created>>,
}

#[derive(Debug)]
struct Created {
    /// The client it was created for (its HTTP session, else its connection).
    client: String,
    kind: InteractionType,
    /// Becomes true when the interaction is over (prompts; `ua` flows are read from the store).
    over: watch::Sender<bool>,
    at: Instant,
}

impl Interactions {
    /// Remembers interaction `id` of `kind`, created for the client of `context`.
    pub(crate) fn create(
        &self,
        id: &str,
        kind: InteractionType,
        context: &RequestContext<RoleServer>,
    ) -> watch::Sender<bool> {
        let (over, _) = watch::channel(false);
        if let Ok(mut created) = self.created.lock() {
            if created.len() >= MAX_KEPT {
                created.retain(|_, c| !*c.over.borrow() || c.at.elapsed() < KEPT_AFTER);
                if created.len() >= MAX_KEPT {
                    return over;
                }
            }
            created.insert(
                id.to_owned(),
                Created {
                    client: client_of(context),
                    kind,
                    over: over.clone(),
                    at: Instant::now(),
                },
            );
        }
        over
    }

    /// The kind and end signal of interaction `id`, if this server created it for the client
    /// of `context`.
    pub(crate) fn of_client(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<(InteractionType, watch::Receiver<bool>)> {
        let created = self.created.lock().ok()?;
        let c = created.get(id)?;
        (c.client == client_of(context)).then(|| (c.kind, c.over.subscribe()))
    }
}

/// The client a request came from: its streamable HTTP session, else its connection (one
/// client per stdio connection).
fn client_of(context: &RequestContext<RoleServer>) -> String {
    if let Some(session) = context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|v| v.to_str().ok())
    {
        return format!("session:{session}");
    }
    match context.peer.peer_info() {
        // The same allocation for the connection's life: its identity.
        Some(info) => format!("connection:{:p}", std::sync::Arc::as_ptr(&info)),
        None => "connection:unknown".to_owned(),
    }
}
