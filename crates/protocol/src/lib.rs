//! Wire types for human-in-the-loop MCP that `rmcp` does not model, and the one notion of a
//! protocol era that the rest of Interlude switches on.
//!
//! What lives here: [`ProtocolEra`] (2025 push `elicitation/create` vs 2026-07-28 MRTR, multi
//! round-trip `input_required`), [`Answer`] (what a person did: the one accept/decline/cancel
//! type of both sides), the 2025-11-25-only URL-mode pieces rmcp dropped
//! (`notifications/elicitation/complete`, error -32042), the -32021 "missing required client
//! capability" error data of 2026-07-28, and Interlude's vendor `_meta` key tying a push-era
//! `elicitation/create` to its tool call ([`RELATED_REQUEST_ID_KEY`]). Pure serde data: no I/O,
//! no async, no HTTP. And the names and metadata of MCP Apps ([`apps`]), with the spellings
//! of seed 001, the early draft and ChatGPT's Apps SDK read as aliases. And the User
//! Interaction draft of seed 000 ([`interaction`]: `interaction/create`, `-32003`), a
//! compatibility path.
//!
//! # Example
//! ```
//! use interlude_protocol::ProtocolEra;
//! use rmcp::model::ProtocolVersion;
//!
//! assert_eq!(ProtocolEra::of(&ProtocolVersion::V_2025_11_25), ProtocolEra::Push);
//! assert_eq!(ProtocolEra::of(&ProtocolVersion::V_2026_07_28), ProtocolEra::Mrtr);
//! ```

pub mod answer;
pub mod apps;
pub mod era;
pub mod errors;
pub mod interaction;
pub mod related;
pub mod url;

pub use answer::Answer;
pub use era::ProtocolEra;
pub use errors::{MissingCapabilityData, missing_elicitation_capability};
pub use related::RELATED_REQUEST_ID_KEY;
