//! Audit records: what was asked, by whom, and what came of it, with sensitive values redacted.
//!
//! Redaction is by property name (password, secret, token, api key, card, ssn, pin, otp, …):
//! elicitation forms must not ask for secrets, which is exactly why a log must not keep one
//! when a server does it anyway.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use interlude_schema::Content;

/// One audit entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRecord {
    /// Milliseconds, on the host's clock.
    pub at_ms: u64,
    /// The host's id of the request.
    pub request: u64,
    /// The requesting server's name (as the host knows it), shared with its requests.
    pub server: Arc<str>,
    /// What the server says it is (`serverInfo.title`, else its `name`): the engine does not
    /// know it; the host fills it in from its record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_title: Option<Arc<str>>,
    /// What happened.
    pub event: AuditEvent,
}

/// What happened to a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AuditEvent {
    /// A request arrived and was queued.
    Received {
        /// The protocol era it came in (`2025-11-25`…).
        era: &'static str,
        /// The method it came by: `elicitation/create`, or the seed-000 draft's
        /// `interaction/create`.
        method: &'static str,
        /// The message shown to the person.
        message: String,
        /// The property names asked for (none for a URL request), shared while a server asks
        /// with the same schema.
        fields: Arc<[String]>,
        /// A URL request's link: scheme, host and path only.
        #[serde(skip_serializing_if = "Option::is_none")]
        link: Option<String>,
    },
    /// A request was refused at admission.
    Refused {
        /// The reason sent back.
        reason: String,
    },
    /// The person accepted; values redacted where sensitive.
    Accepted {
        /// The content sent back, redacted.
        content: Content,
    },
    /// The person consented to open a URL request's link, and it passed every check.
    Consented,
    /// The person said they were done in the browser (a link consented to earlier in the call,
    /// or one whose completion the host was waiting for).
    Done,
    /// The server said the link's flow finished.
    Completed,
    /// The person declined.
    Declined,
    /// The person (or a policy) cancelled.
    Cancelled,
    /// An app-rendered form is shown as the plain form instead of in its view.
    FellBack {
        /// Why.
        reason: String,
    },
    /// The request was withdrawn before an answer (server gone, call ended).
    Withdrawn {
        /// Why.
        reason: String,
    },
}

/// Words that mark a property as sensitive, lowercase and without separators. Words of three
/// letters or fewer count only as whole words (`pin`, not `spinach`).
const SENSITIVE: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "privatekey",
    "credential",
    "ssn",
    "socialsecurity",
    "cardnumber",
    "creditcard",
    "cvv",
    "cvc",
    "iban",
    "pin",
    "otp",
];

fn is_sensitive(name: &str) -> bool {
    // Lowercase (keeping `_` as the word separator, `-` counted as one), then again without
    // separators. Field names are short ASCII almost always: that case stays on the stack.
    const STACK: usize = 64;
    if name.is_ascii() && name.len() <= STACK {
        let (mut lower, mut squashed) = ([0u8; STACK], [0u8; STACK]);
        let (mut n, mut m) = (0, 0);
        for b in name.bytes() {
            let b = match b {
                b'-' | b'_' => b'_',
                b if b.is_ascii_alphanumeric() => b.to_ascii_lowercase(),
                _ => continue,
            };
            if let Some(slot) = lower.get_mut(n) {
                *slot = b;
                n += 1;
            }
            if b != b'_'
                && let Some(slot) = squashed.get_mut(m)
            {
                *slot = b;
                m += 1;
            }
        }
        return matches_sensitive(
            lower.get(..n).unwrap_or_default(),
            squashed.get(..m).unwrap_or_default(),
        );
    }
    let lower: String = name
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .flat_map(char::to_lowercase)
        .map(|c| if c == '-' { '_' } else { c })
        .collect();
    let squashed: String = lower.chars().filter(|c| *c != '_').collect();
    matches_sensitive(lower.as_bytes(), squashed.as_bytes())
}

fn matches_sensitive(lower: &[u8], squashed: &[u8]) -> bool {
    SENSITIVE.iter().any(|word| {
        let word = word.as_bytes();
        if word.len() <= 3 {
            lower.split(|b| *b == b'_').any(|w| w == word)
        } else {
            squashed.len() >= word.len() && squashed.windows(word.len()).any(|w| w == word)
        }
    })
}

/// Returns `content` with the values of sensitive-looking properties replaced by `"[redacted]"`.
///
/// ```
/// let c = serde_json::from_value(serde_json::json!({"name": "Ada", "apiToken": "s3cr3t"})).unwrap();
/// let r = interlude_engine::redact(&c);
/// assert_eq!(r["name"], "Ada");
/// assert_eq!(r["apiToken"], "[redacted]");
/// ```
pub fn redact(content: &Content) -> Content {
    content
        .iter()
        .map(|(k, v)| {
            let v = if is_sensitive(k) {
                Value::String("[redacted]".into())
            } else {
                v.clone()
            };
            (k.clone(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::is_sensitive;

    #[test]
    fn sensitive_names() {
        for n in [
            "password",
            "newPassword",
            "api_key",
            "apiKey",
            "access_token",
            "pin",
            "card_pin",
            "CVV",
            "clientSecret",
            "card-pin",
            "Konto_password_für_Zugang",
            "user_password_that_is_far_longer_than_sixty_four_characters_in_total",
        ] {
            assert!(is_sensitive(n), "{n} should be redacted");
        }
        for n in [
            "name",
            "email",
            "spinach",
            "age",
            "genre",
            "topics",
            "Grüße",
            "a_very_long_but_harmless_field_name_that_goes_past_the_stack_buffer",
        ] {
            assert!(!is_sensitive(n), "{n} should not be redacted");
        }
    }
}
