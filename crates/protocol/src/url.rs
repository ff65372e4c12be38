//! URL-mode pieces of 2025-11-25 that rmcp 3.9 does not model (both removed in 2026-07-28).

use rmcp::model::ErrorCode;
use serde::{Deserialize, Serialize};

/// Method name of the completion notification (2025-11-25 `schema.ts`,
/// `ElicitationCompleteNotification`).
pub const ELICITATION_COMPLETE_METHOD: &str = "notifications/elicitation/complete";

/// `URLElicitationRequiredError` (2025-11-25 only; reserved afterwards).
pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);

/// Params of `notifications/elicitation/complete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationComplete {
    /// The id of the URL elicitation that finished.
    pub elicitation_id: String,
}
