//! Error data that rmcp has codes for but no typed payloads.

use rmcp::model::{ErrorCode, ErrorData};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// `error.data` of -32021 (`MissingRequiredClientCapabilityError`, 2026-07-28 `schema.ts`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingCapabilityData {
    /// The capabilities the request needs, in `ClientCapabilities` shape.
    pub required_capabilities: serde_json::Value,
}

/// The -32021 error a server returns when a request needs `elicitation.<mode>` and the client
/// did not declare it.
pub fn missing_elicitation_capability(mode: &str) -> ErrorData {
    let data = MissingCapabilityData {
        required_capabilities: json!({ "elicitation": { mode: {} } }),
    };
    ErrorData::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("client did not declare the elicitation.{mode} capability"),
        serde_json::to_value(data).ok(),
    )
}
