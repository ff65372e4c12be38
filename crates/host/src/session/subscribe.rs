//! Subscribing to a server's resources, in both eras, and hearing that they changed.
//!
//! - 2025 eras: `resources/subscribe` and `resources/unsubscribe`, one resource each; the
//!   server's `notifications/resources/updated` (and its `list_changed` notifications) reach
//!   the connection's handler (`handler.rs`).
//! - 2026-07-28: there is no `resources/subscribe`; a client opens one `subscriptions/listen`
//!   request whose filter names the resources (and the list changes it wants), and the server
//!   sends the notifications on that request's stream until it is cancelled. The connection
//!   keeps one such stream while anything is subscribed to: a change of the set opens a new one
//!   (the new first, then the old cancelled, so nothing falls between them) and an empty set
//!   closes it. rmcp buffers at most 64 notifications per stream; the task here drains it.
//!   A stream the server ends clears the record's subscriptions (the person sees it).
//!
//! Either way the set subscribed to is on the host's record ([`ServerCatalog`]
//! (crate::ServerCatalog)), bounded, and each update a [`HostEvent::ResourceUpdated`]
//! (crate::HostEvent::ResourceUpdated).

use std::collections::BTreeSet;
use std::sync::Arc;

use interlude_engine::ServerId;
use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient, Subscription};
use tokio_util::sync::CancellationToken;

use super::Connection;
use crate::hub::config::HostError;
use crate::hub::inputs::{HostInput, ServerUpdate};
use crate::hub::shared::Shared;
use crate::record::catalog::{ListKind, MAX_SUBSCRIPTIONS, Subscribing};
use crate::session::handler::{list_changed, resource_updated};

/// The 2026-07-28 stream of a connection, when one is open.
#[derive(Default)]
pub(crate) struct Listening {
    /// The resources the open stream names.
    uris: BTreeSet<String>,
    /// Cancels the open stream's task (which cancels the request).
    stream: Option<CancellationToken>,
}

impl Connection {
    /// How this server takes subscriptions, as the record has it.
    fn subscribing(&self) -> (Subscribing, usize) {
        self.inner
            .shared
            .registry()
            .server(self.inner.id)
            .map_or((Subscribing::NotOffered, 0), |s| {
                (s.catalog.subscribing, s.catalog.subscriptions.len())
            })
    }

    /// Subscribes to the resource at `uri`: from now on the server says when it changes, as
    /// [`HostEvent::ResourceUpdated`](crate::HostEvent::ResourceUpdated), and the host's record
    /// lists it among the server's subscriptions with its last update
    /// ([`ServerRecord::catalog`](crate::ServerRecord::catalog)). 2025 eras send
    /// `resources/subscribe`; 2026-07-28 opens a `subscriptions/listen` stream naming it.
    ///
    /// Refused ([`HostError::NotOffered`]) when the server did not declare
    /// `resources.subscribe`, when [`MAX_SUBSCRIPTIONS`] of its resources are subscribed to
    /// already, or when a 2026-07-28 server does not accept the resource in its stream.
    ///
    /// ```no_run
    /// # async fn run(host: interlude_host::Host, conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// conn.subscribe("file:///notes/today.md").await?;
    /// // … surfaces hear HostEvent::ResourceUpdated when it changes …
    /// let record = host.server(conn.id()).expect("on the record");
    /// assert!(record.catalog.is_subscribed("file:///notes/today.md"));
    /// conn.unsubscribe("file:///notes/today.md").await?;
    /// # Ok(()) }
    /// ```
    pub async fn subscribe(&self, uri: &str) -> Result<(), HostError> {
        let (subscribing, count) = self.subscribing();
        if count >= MAX_SUBSCRIPTIONS {
            return Err(self.not_offered(format!(
                "more subscriptions: {MAX_SUBSCRIPTIONS} of its resources are subscribed to \
                 already"
            )));
        }
        match subscribing {
            Subscribing::NotOffered => Err(self.not_offered(
                "subscriptions to its resources (it did not declare resources.subscribe)".into(),
            )),
            Subscribing::PerResource => {
                per_resource(&self.inner.peer, uri, true)
                    .await
                    .map_err(|e| self.service_error(format!("subscribing to `{uri}`"), e))?;
                self.recorded(ServerUpdate::Subscribed {
                    id: self.inner.id,
                    uri: uri.to_owned(),
                })
                .await;
                Ok(())
            }
            Subscribing::Listen => {
                let mut listening = self.inner.listening.lock().await;
                let mut uris = listening.uris.clone();
                uris.insert(uri.to_owned());
                let accepted = self.listen(&mut listening, uris).await?;
                if !accepted.contains(uri) {
                    return Err(self.not_offered(format!(
                        "updates of `{uri}`: its subscriptions/listen stream left it out"
                    )));
                }
                self.recorded(ServerUpdate::Subscribed {
                    id: self.inner.id,
                    uri: uri.to_owned(),
                })
                .await;
                Ok(())
            }
        }
    }

    /// Unsubscribes from the resource at `uri` (`resources/unsubscribe` in 2025 eras; on
    /// 2026-07-28 the stream is opened again without it, or closed when it was the last). The
    /// record drops it whether or not it was subscribed to.
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// conn.unsubscribe("file:///notes/today.md").await?;
    /// # Ok(()) }
    /// ```
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), HostError> {
        match self.subscribing().0 {
            Subscribing::NotOffered => {}
            Subscribing::PerResource => {
                per_resource(&self.inner.peer, uri, false)
                    .await
                    .map_err(|e| self.service_error(format!("unsubscribing from `{uri}`"), e))?;
            }
            Subscribing::Listen => {
                let mut listening = self.inner.listening.lock().await;
                let mut uris = listening.uris.clone();
                if uris.remove(uri) {
                    self.listen(&mut listening, uris).await?;
                }
            }
        }
        self.recorded(ServerUpdate::Unsubscribed {
            id: self.inner.id,
            uri: Some(uri.to_owned()),
        })
        .await;
        Ok(())
    }

    fn not_offered(&self, what: String) -> HostError {
        HostError::NotOffered {
            server: self.inner.info.name.clone(),
            what,
        }
    }

    /// Submits `update` and waits until the record shows it.
    async fn recorded(&self, update: ServerUpdate) {
        self.inner.shared.submit(HostInput::Server(update));
        let (applied, done) = tokio::sync::oneshot::channel();
        self.inner.shared.submit(HostInput::Barrier(applied));
        let _ = done.await;
    }

    /// Makes the 2026-07-28 stream name exactly `uris` (with the list changes the server
    /// declared): a new stream opened, then the old one cancelled; none for an empty set.
    /// Returns the resources the server accepted.
    async fn listen(
        &self,
        listening: &mut Listening,
        uris: BTreeSet<String>,
    ) -> Result<BTreeSet<String>, HostError> {
        let opened = if uris.is_empty() {
            None
        } else {
            let filter = self.filter(&uris);
            let subscription = self.inner.peer.listen(filter).await.map_err(|e| {
                self.service_error("opening its subscriptions/listen stream".into(), e)
            })?;
            let accepted: BTreeSet<String> = subscription
                .acknowledged()
                .resource_subscriptions
                .iter()
                .flatten()
                .cloned()
                .collect();
            let token = CancellationToken::new();
            tokio::spawn(drain(
                subscription,
                token.clone(),
                Heard {
                    shared: self.inner.shared.clone(),
                    id: self.inner.id,
                    name: self.inner.info.name.clone(),
                    peer: self.inner.peer.clone(),
                    listening: self.inner.listening.clone(),
                },
            ));
            Some((token, accepted))
        };
        if let Some(old) = listening.stream.take() {
            old.cancel();
        }
        match opened {
            Some((token, accepted)) => {
                listening.stream = Some(token);
                listening.uris = accepted.clone();
                Ok(accepted)
            }
            None => {
                listening.uris.clear();
                Ok(BTreeSet::new())
            }
        }
    }

    /// The filter of a stream naming `uris`, with every list change the server declared.
    fn filter(&self, uris: &BTreeSet<String>) -> SubscriptionFilter {
        let capabilities = self.inner.peer.peer_info().map(|i| i.capabilities.clone());
        let caps = capabilities.as_ref();
        let mut filter = SubscriptionFilter::builder().resource_subscriptions(uris.iter().cloned());
        if caps
            .and_then(|c| c.tools.as_ref())
            .is_some_and(|t| t.list_changed == Some(true))
        {
            filter = filter.tools_list_changed();
        }
        if caps
            .and_then(|c| c.resources.as_ref())
            .is_some_and(|r| r.list_changed == Some(true))
        {
            filter = filter.resources_list_changed();
        }
        if caps
            .and_then(|c| c.prompts.as_ref())
            .is_some_and(|p| p.list_changed == Some(true))
        {
            filter = filter.prompts_list_changed();
        }
        filter.build()
    }
}

/// `resources/subscribe` (or `resources/unsubscribe`) for `uri`: rmcp marks them legacy-only,
/// which is exactly the 2025 eras' way.
#[allow(deprecated)]
async fn per_resource(
    peer: &Peer<RoleClient>,
    uri: &str,
    subscribe: bool,
) -> Result<(), rmcp::ServiceError> {
    if subscribe {
        peer.subscribe(rmcp::model::SubscribeRequestParams::new(uri))
            .await
    } else {
        peer.unsubscribe(rmcp::model::UnsubscribeRequestParams::new(uri))
            .await
    }
}

/// What a stream's task needs: not the connection itself, whose last clone dropped closes it.
struct Heard {
    shared: Shared,
    id: ServerId,
    name: String,
    peer: Peer<RoleClient>,
    listening: SharedListening,
}

/// Reads one 2026-07-28 stream until it is cancelled (replaced, or nothing is subscribed to any
/// more) or ends (the server ended it, or the connection): then the record's subscriptions are
/// cleared, unless a newer stream has taken over.
async fn drain(mut subscription: Subscription, token: CancellationToken, heard: Heard) {
    enum Next {
        Cancelled,
        Heard(Option<Box<ServerNotification>>),
        Failed(String),
    }
    let (id, name, peer) = (heard.id, heard.name.as_str(), &heard.peer);
    loop {
        let next = tokio::select! {
            () = token.cancelled() => Next::Cancelled,
            next = subscription.next() => match next {
                Ok(notification) => Next::Heard(notification.map(Box::new)),
                Err(e) => Next::Failed(e.to_string()),
            },
        };
        let why = match next {
            Next::Cancelled => {
                let _ = subscription.cancel().await;
                return;
            }
            Next::Heard(Some(notification)) => {
                match *notification {
                    ServerNotification::ResourceUpdatedNotification(n) => {
                        resource_updated(&heard.shared, id, n.params.uri);
                    }
                    ServerNotification::ToolListChangedNotification(_) => {
                        list_changed(&heard.shared, id, name, peer, ListKind::Tools).await;
                    }
                    ServerNotification::ResourceListChangedNotification(_) => {
                        list_changed(&heard.shared, id, name, peer, ListKind::Resources).await;
                    }
                    ServerNotification::PromptListChangedNotification(_) => {
                        list_changed(&heard.shared, id, name, peer, ListKind::Prompts).await;
                    }
                    // rmcp hands on only what the acknowledged filter names.
                    _ => {}
                }
                continue;
            }
            Next::Heard(None) => match subscription.end() {
                Some(end) => format!("{end:?}"),
                None => "it ended".to_owned(),
            },
            Next::Failed(e) => e,
        };
        // Ended on the server's side: unless a newer stream took over, nothing is subscribed to.
        let mut listening = heard.listening.lock().await;
        if token.is_cancelled() {
            return;
        }
        tracing::warn!(server = %name, "its subscriptions/listen stream ended: {why}");
        listening.uris.clear();
        listening.stream = None;
        drop(listening);
        heard
            .shared
            .submit(HostInput::Server(ServerUpdate::Unsubscribed {
                id,
                uri: None,
            }));
        return;
    }
}

/// The shared state of a connection's stream (see [`Listening`]).
pub(crate) type SharedListening = Arc<tokio::sync::Mutex<Listening>>;
