//! What a person did with a request: the one answer type of the whole project.
//!
//! The server toolkit hands it to a tool handler typed (`Answer<MyForm>`); the host's surfaces
//! give it to the engine untyped (`Answer<Content>`), and the engine turns it into the
//! `ElicitResult` that goes back on the wire. One enum for both sides, so "accept, decline,
//! cancel" has one spelling everywhere. It does not carry errors: a refused request is not an
//! answer.

use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

/// What the person did with a request (2025-06-18 and later `ElicitResult.action`).
///
/// ```
/// use interlude_protocol::Answer;
/// use rmcp::model::ElicitationAction;
///
/// let answer: Answer<u32> = Answer::Accepted(42);
/// assert_eq!(answer.action(), ElicitationAction::Accept);
/// assert_eq!(answer.accepted(), Some(42));
/// assert_eq!(Answer::<u32>::Declined.accepted(), None);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<T> {
    /// They submitted the form (or consented); the content is `T`.
    Accepted(T),
    /// They explicitly refused.
    Declined,
    /// They dismissed the request without choosing (closed it, pressed Escape).
    Cancelled,
}

impl<T> Answer<T> {
    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Answer::Accepted(v) => Some(v),
            Answer::Declined | Answer::Cancelled => None,
        }
    }

    /// The wire action.
    pub fn action(&self) -> ElicitationAction {
        match self {
            Answer::Accepted(_) => ElicitationAction::Accept,
            Answer::Declined => ElicitationAction::Decline,
            Answer::Cancelled => ElicitationAction::Cancel,
        }
    }

    /// The action's wire name: `accept`, `decline` or `cancel`.
    pub fn action_str(&self) -> &'static str {
        match self {
            Answer::Accepted(_) => "accept",
            Answer::Declined => "decline",
            Answer::Cancelled => "cancel",
        }
    }

    /// Maps the accepted value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Answer::Accepted(v) => Answer::Accepted(f(v)),
            Answer::Declined => Answer::Declined,
            Answer::Cancelled => Answer::Cancelled,
        }
    }
}

impl Answer<Map<String, Value>> {
    /// The `ElicitResult` this answer is on the wire (content only with `accept`).
    ///
    /// ```
    /// use interlude_protocol::Answer;
    /// let result = Answer::Accepted(serde_json::Map::new()).into_result();
    /// assert_eq!(serde_json::to_value(result).unwrap(),
    ///            serde_json::json!({"action": "accept", "content": {}}));
    /// ```
    pub fn into_result(self) -> ElicitResult {
        match self {
            Answer::Accepted(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            Answer::Declined => ElicitResult::new(ElicitationAction::Decline),
            Answer::Cancelled => ElicitResult::new(ElicitationAction::Cancel),
        }
    }
}
