//! How the host reaches a server and what passes on the wire: where a server is
//! ([`spec`]), a child process on stdio ([`child`], its lines decoded by [`decode`], its stderr
//! followed by [`stderr`]), the streamable HTTP client ([`http_client`]), the tap that ties each
//! message to its call and writes the protocol log ([`tap`]), a 2025-11-25 server's task hints
//! read off raw messages ([`task_hints`]), and why a connection failed or ended ([`failure`]).
//!
//! Knows no kind of request, no core and no record: what a transport must tell the rest (a
//! stderr line, a rewrite of `initialize`) comes in as a function from the session that set it
//! up. It writes the logs (`crate::logs`) and nothing above them.

pub(crate) mod child;
pub(crate) mod decode;
pub(crate) mod failure;
pub(crate) mod http_client;
pub(crate) mod spec;
pub(crate) mod stderr;
pub(crate) mod tap;
pub(crate) mod task_hints;
