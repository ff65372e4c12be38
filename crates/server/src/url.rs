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

//!
//! # What a server needs around its flows
//!
//! - **An HTTP listener for the pages.** The client only carries the link; the person's
//!   browser opens it. A streamable HTTP server mounts [`UrlFlows::router`] beside `/mcp`; a
//!   **stdio server needs a listener of its own** (bind `127.0.0.1` for a local server), and
//!   the base URL given to [`UrlFlows::new`] must be where the pages are mounted.
//! - **Who the person is**, twice: for the MCP request ([`Identity::mcp_user`]: the one local
//!   user of a stdio server, [`LocalUser`]; MCP authorization's subject over HTTP), and for
//!   the browser opening the page ([`Identity::page_user`], a [`SignedCookie`] set by the
//!   server's own sign-in). [`UrlFlows::with_sign_in`] sends a browser that is not signed in
//!   to `sign-in?next=<the flow's URL>`.
//! - **A sign-in that is not an open redirect**: send the browser on to `next` only when it is
//!   one of your own flow pages (it starts with the flows' base URL and a flow id follows),
//!   never to whatever the query says.
//! - **Housekeeping**: call [`UrlFlows::expire`] now and then (every minute, say, from a
//!   spawned task) — flows past their time are marked expired and finished ones forgotten.
//!
//! The `url_flow` example (`cargo run -p interlude-server --example url_flow`) is a stdio
//! server doing all four.

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
