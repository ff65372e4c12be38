//! URL-mode pieces of 2025-11-25 that rmcp 3.11 does not model (both removed in 2026-07-28).

use rmcp::model::ErrorCode;
use serde::{Deserialize, Serialize};

/// Method name of the completion notification (2025-11-25 `schema.ts`,
/// `ElicitationCompleteNotification`).
pub const ELICITATION_COMPLETE_METHOD: &str = "notifications/elicitation/complete";

/// `URLElicitationRequiredError` (2025-11-25 only; reserved afterwards).
pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);

/// The out-of-band draft's `ElicitationRequired` error (seed 003, before URL mode was merged as
/// `-32042`): the same `data.elicitations` list. A compatibility path only.
pub const ELICITATION_REQUIRED_DRAFT: ErrorCode = ErrorCode(-32604);

/// The draft's `elicitation/track` request (seed 003): a client asks the server to answer once
/// the URL elicitation `elicitationId` is complete, with progress on the request's
/// `_meta.progressToken` meanwhile. A compatibility path only.
pub const TRACK_METHOD: &str = "elicitation/track";

/// Whether `code` says "open these links first": `-32042`, or the draft's `-32604`.
pub fn is_url_required(code: ErrorCode) -> bool {
    code == URL_ELICITATION_REQUIRED || code == ELICITATION_REQUIRED_DRAFT
}

/// One entry of `error.data.elicitations`, read leniently: the draft's example spells the id
/// `elicitionId`, which is taken as `elicitationId`.
///
/// ```
/// use interlude_protocol::url::normalize_required;
/// let entry = serde_json::json!({"mode": "url", "elicitionId": "e1", "url": "https://x.example/"});
/// assert_eq!(normalize_required(entry)["elicitationId"], "e1");
/// ```
pub fn normalize_required(mut entry: serde_json::Value) -> serde_json::Value {
    if let Some(o) = entry.as_object_mut()
        && !o.contains_key("elicitationId")
        && let Some(id) = o.remove("elicitionId")
    {
        o.insert("elicitationId".to_owned(), id);
    }
    entry
}

/// Params of `notifications/elicitation/complete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationComplete {
    /// The id of the URL elicitation that finished.
    pub elicitation_id: String,
}
