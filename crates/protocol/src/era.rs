//! The protocol era of a session or request: how a server asks a person for something.

use rmcp::model::ProtocolVersion;

/// How elicitation travels in a given protocol revision.
///
/// One notion for the whole code base: modules branch on this, never on version strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProtocolEra {
    /// 2025-06-18 and 2025-11-25: the server sends `elicitation/create` as a request to the client
    /// while the tool call is in flight.
    Push,
    /// 2026-07-28 and later: the server answers `tools/call` (or `prompts/get`,
    /// `resources/read`) with `resultType: "input_required"`; the client asks the person and
    /// retries the same request with `inputResponses` and the echoed `requestState`.
    Mrtr,
}

impl ProtocolEra {
    /// The era of a negotiated protocol version. Versions before elicitation existed map to
    /// [`ProtocolEra::Push`], which is harmless: such a client never declares the capability.
    pub fn of(version: &ProtocolVersion) -> Self {
        if version.as_str() >= ProtocolVersion::V_2026_07_28.as_str() {
            ProtocolEra::Mrtr
        } else {
            ProtocolEra::Push
        }
    }

    /// A short name for logs and audit records.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolEra::Push => "push",
            ProtocolEra::Mrtr => "mrtr",
        }
    }
}

impl std::fmt::Display for ProtocolEra {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
