//! Progress as a server reports it (`notifications/progress`), for a tool call or for the flow
//! of a link.

use crate::clock::now_ms;

/// How far a tool call got, by its server's last `notifications/progress` for it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallProgress {
    /// The progress so far (increases with each notification).
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// What the server says it is doing.
    pub message: Option<String>,
    /// How many progress notifications arrived for the call.
    pub updates: u64,
    /// When the last one arrived, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

impl CallProgress {
    /// The progress a notification reports, counted after `previous`.
    pub(crate) fn after(
        previous: Option<&CallProgress>,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> CallProgress {
        CallProgress {
            progress,
            total,
            message,
            updates: previous.map_or(0, |p| p.updates) + 1,
            at_ms: now_ms(),
        }
    }
}

impl std::fmt::Display for CallProgress {
    /// `3 of 10 (30%) — copying`; without a total, `3 — copying`; without a message, the
    /// amount alone.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.total.filter(|t| *t > 0.0) {
            Some(total) => write!(
                f,
                "{} of {} ({:.0}%)",
                self.progress,
                total,
                (self.progress / total * 100.0).clamp(0.0, 100.0)
            )?,
            None => write!(f, "{}", self.progress)?,
        }
        match &self.message {
            Some(m) => write!(f, " — {m}"),
            None => Ok(()),
        }
    }
}
