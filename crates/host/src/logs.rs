//! The host's logs of what crossed the wire: every JSON-RPC message per server
//! ([`protocol_log`]) and its `--trace` file ([`trace`]), every HTTP exchange with a
//! streamable-HTTP server ([`network_log`]), and the names both give a message
//! ([`message_id`]); and how every file the host writes for the person is created
//! ([`private_file`]).
//!
//! Written by the transport as messages pass, read by surfaces through the host. What it does not
//! do: know the record of servers and calls (a logged message names its call by id only), or any
//! kind of request.

pub(crate) mod message_id;
pub(crate) mod network_log;
pub mod private_file;
pub(crate) mod protocol_log;
pub(crate) mod trace;
