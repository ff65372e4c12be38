//! The host's record: what a person may want to see of servers (identity, tools, catalog,
//! state), tool calls (status, progress, result, the requests and views they raised) and
//! requests for a person ([`registry`], [`request`], [`catalog`], [`progress`]), and the check of
//! a call's arguments against its tool's schema ([`arguments`]).
//!
//! Written by the core alone, one input at a time; read by surfaces as shared snapshots. What it
//! does not do: talk to servers, decide anything about a request (the engine does), or know the
//! logs.

pub(crate) mod arguments;
pub(crate) mod catalog;
pub(crate) mod progress;
pub(crate) mod registry;
pub(crate) mod request;
pub(crate) mod server;
pub(crate) mod view;
