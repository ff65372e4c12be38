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
//! What is here is the durable state underneath: the [`FlowStore`] trait, [`SqliteStore`] (the
//! default: a file that survives a restart of the server mid-flow) and [`MemoryStore`] (for tests
//! and servers that need no durability). Nothing here speaks HTTP or MCP.

pub mod store;

pub use store::{
    Flow, FlowId, FlowStatus, FlowStore, InvalidFlowId, MemoryStore, Secret, SqliteStore,
    StoreError, UserId,
};
