//! URL-mode flows: the person is sent to a page the server controls — to enter an API key,
//! connect a third-party account through OAuth, confirm a payment — so that a secret never
//! passes through the MCP client.
//!
//! A tool starts a [`Flow`] for the [`UserId`] it serves and hands the person the flow's URL.
//! The page checks that the person opening it is that user (a session id alone proves nothing:
//! anyone can forward a link), does its work, keeps what it obtained as a [`Secret`] of that user
//! and moves the flow to [`FlowStatus::Completed`]; the tool's retry, or a completion
//! notification, finds it complete.
//!
//! - [`UrlFlows`] (`flows.rs`): the flows of one server — start, wait for, complete and follow
//!   them; from a tool (`run.rs`), send the person through one in either protocol era and learn
//!   how it ended, or give the `-32042` error for tools that would rather fail first;
//! - its pages (`pages.rs`): an axum router the server mounts under the flows' base URL, which
//!   checks who opens a link before doing anything;
//! - the OAuth-client pattern (`oauth.rs`, [`OAuthProvider`]): the link leads through this
//!   server to a third party's consent with PKCE and `state`; the code comes back to
//!   `<base>/oauth/callback` and is exchanged here; the tokens stay with the user's secrets;
//! - [`Identity`] (`identity.rs`): who a flow is for ([`Identity::mcp_user`]) and who opens its
//!   page ([`Identity::page_user`]); [`LocalUser`] and [`SignedCookie`] for a server with one
//!   user;
//! - the durable state underneath (`store.rs`): the [`FlowStore`] trait, [`SqliteStore`] (the
//!   default: a file that survives a restart of the server mid-flow) and [`MemoryStore`] (for
//!   tests and servers that need no durability).

pub(crate) mod flows;
mod identity;
pub(crate) mod oauth;
mod pages;
mod run;
pub mod store;

pub use flows::{DEFAULT_FLOW_TTL, FlowError, FlowKind, UrlFlows};
pub use identity::{Identity, LocalUser, ShortKey, SignedCookie};
pub use oauth::OAuthProvider;
pub use store::{
    Flow, FlowId, FlowStatus, FlowStore, InvalidFlowId, MemoryStore, Secret, SqliteStore,
    StoreError, StoreFuture, StoreKey, StoredTask, UserId,
};
