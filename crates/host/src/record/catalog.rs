//! What the host's record keeps of a server's catalog besides its lists: whether a person can
//! subscribe to its resources (and how, by era), the resources subscribed to with their last
//! update, and how often the server said one of its lists changed.
//!
//! Bounded whatever a server sends: at most [`MAX_SUBSCRIPTIONS`] resources per server, each
//! with a time and a count; an update for a resource nobody subscribed to is not kept; a list
//! change is a counter.
//!
//! What it does not do: talk to the server (`connection/subscribe.rs` does) or keep the lists
//! themselves (asked afresh when shown).

use std::collections::BTreeMap;

use rmcp::model::ServerCapabilities;

use interlude_protocol::ProtocolEra;

/// The most resources of one server subscribed to at once.
pub const MAX_SUBSCRIPTIONS: usize = 64;

/// Whether, and how, a person can subscribe to a server's resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Subscribing {
    /// The server did not declare `resources.subscribe` (or is not connected yet).
    #[default]
    NotOffered,
    /// 2025 eras: one `resources/subscribe` and `resources/unsubscribe` per resource; updates
    /// come as `notifications/resources/updated`.
    PerResource,
    /// 2026-07-28: one `subscriptions/listen` request naming every resource subscribed to (and
    /// the list changes), opened again when the set changes; updates come on its stream.
    Listen,
}

impl Subscribing {
    /// How a server with `capabilities`, speaking `era`, takes subscriptions.
    pub(crate) fn of(capabilities: Option<&ServerCapabilities>, era: ProtocolEra) -> Self {
        let declared = capabilities
            .and_then(|c| c.resources.as_ref())
            .is_some_and(|r| r.subscribe == Some(true));
        match (declared, era) {
            (false, _) => Subscribing::NotOffered,
            (true, ProtocolEra::Push) => Subscribing::PerResource,
            (true, ProtocolEra::Mrtr) => Subscribing::Listen,
        }
    }

    /// Whether a person can subscribe at all.
    pub fn offered(self) -> bool {
        self != Subscribing::NotOffered
    }
}

/// One resource subscribed to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Watched {
    /// When the subscription was made, in milliseconds since the Unix epoch.
    pub since_ms: u64,
    /// When the server last said the resource changed, likewise; `None` until it does.
    pub updated_at_ms: Option<u64>,
    /// How many times it said so since the subscription was made.
    pub updates: u64,
}

/// Which of a server's lists changed (`notifications/…/list_changed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListKind {
    /// Its tools (the record's tools are listed again).
    Tools,
    /// Its resources (and resource templates).
    Resources,
    /// Its prompts.
    Prompts,
}

impl ListKind {
    /// `tools`, `resources` or `prompts`.
    pub fn as_str(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::Prompts => "prompts",
        }
    }
}

/// A server's catalog as the record keeps it (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerCatalog {
    /// Whether, and how, its resources can be subscribed to.
    pub subscribing: Subscribing,
    /// The resources subscribed to, by URI (at most [`MAX_SUBSCRIPTIONS`]).
    pub subscriptions: BTreeMap<String, Watched>,
    /// How many times it said its tools changed.
    pub tools_changed: u64,
    /// How many times it said its resources changed.
    pub resources_changed: u64,
    /// How many times it said its prompts changed.
    pub prompts_changed: u64,
}

impl ServerCatalog {
    /// Whether `uri` is subscribed to.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        self.subscriptions.contains_key(uri)
    }

    /// Records a subscription to `uri` made at `now_ms` (a second one keeps the first's
    /// history); `false` when the set is full.
    pub(crate) fn subscribed(&mut self, uri: &str, now_ms: u64) -> bool {
        if self.subscriptions.contains_key(uri) {
            return true;
        }
        if self.subscriptions.len() >= MAX_SUBSCRIPTIONS {
            return false;
        }
        self.subscriptions.insert(
            uri.to_owned(),
            Watched {
                since_ms: now_ms,
                ..Watched::default()
            },
        );
        true
    }

    /// The server said `uri` changed at `now_ms`: `true` when it is subscribed to (and so
    /// recorded), `false` for any other resource (ignored).
    pub(crate) fn updated(&mut self, uri: &str, now_ms: u64) -> bool {
        let Some(watched) = self.subscriptions.get_mut(uri) else {
            return false;
        };
        watched.updated_at_ms = Some(now_ms);
        watched.updates = watched.updates.saturating_add(1);
        true
    }

    /// The server said its `list` changed.
    pub(crate) fn list_changed(&mut self, list: ListKind) {
        let counter = match list {
            ListKind::Tools => &mut self.tools_changed,
            ListKind::Resources => &mut self.resources_changed,
            ListKind::Prompts => &mut self.prompts_changed,
        };
        *counter = counter.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscriptions_are_bounded_and_updates_of_others_ignored() {
        let mut catalog = ServerCatalog::default();
        for i in 0..MAX_SUBSCRIPTIONS {
            assert!(catalog.subscribed(&format!("test://{i}"), 1));
        }
        assert!(!catalog.subscribed("test://one-too-many", 1));
        // Already there: still fine, history kept.
        assert!(catalog.updated("test://3", 5));
        assert!(catalog.subscribed("test://3", 9));
        assert_eq!(
            catalog.subscriptions.get("test://3"),
            Some(&Watched {
                since_ms: 1,
                updated_at_ms: Some(5),
                updates: 1
            })
        );
        for _ in 0..10_000 {
            assert!(!catalog.updated("test://not-subscribed", 7));
        }
        assert_eq!(catalog.subscriptions.len(), MAX_SUBSCRIPTIONS);
        catalog.list_changed(ListKind::Prompts);
        catalog.list_changed(ListKind::Prompts);
        assert_eq!(catalog.prompts_changed, 2);
    }
}
