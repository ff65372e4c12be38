//! The one redaction rule of Interlude: which names say "secret", and what is hidden of a
//! property, an HTTP header or a URL. The audit, the protocol log and its `--trace` file, the
//! network log and session recordings all call these functions, so a name hidden in one is
//! hidden in all.
//!
//! A **secret-ish name** is one whose words (split at `-`, `_`, `.`, spaces and camelCase
//! humps, compared without case) include one of [`SECRET_WORDS`], or whose letters, run
//! together, contain one of [`SECRET_STEMS`] (`userPassword`, `clientsecret`): `X-Api-Key`,
//! `access_code`, `accessCode`, `X-Pass`, `mfa_code`, `otp`, `Set-Cookie`, but not `spinach`,
//! `passport` or `keyboard`.
//!
//! What is hidden:
//! - a property whose name is secret-ish: its value, wherever it sits in a JSON document
//!   ([`redact`], [`redact_json`]);
//! - a header whose name is secret-ish: its value (an `Authorization`'s scheme is kept;
//!   `Mcp-Session-Id` keeps its first [`SESSION_ID_KEPT`] characters); a header that carries
//!   URLs (`Location`, `Content-Location`, `Link`, `Referer`, `Refresh`): the secrets in them
//!   ([`redact_header`]);
//! - a URL: its userinfo, and the values of secret-ish query or fragment parameters
//!   (`api_key`, `token`, `code`, `access_token`, `sig`, …) ([`redact_url`]).
//!
//! What it deliberately does not do: look at values (a secret in a property called `note` is
//! kept), decide where redaction happens (each writer calls it), or hide the names themselves.
//! It errs towards hiding: `zip_code` is hidden too (its words include `code`).

use std::borrow::Cow;

use serde_json::Value;

use interlude_schema::Content;

/// What a redacted property's value becomes.
pub const REDACTED_VALUE: &str = "[redacted]";

/// What stands in, in a URL or a header's value, for what was hidden.
pub const REDACTED: &str = "•••";

/// How many characters of an `Mcp-Session-Id` a log keeps: it is no credential, but whoever
/// has it can act in the session.
pub const SESSION_ID_KEPT: usize = 4;

/// Words that make a name secret-ish when the name has one as a word of its own (short words
/// would match inside harmless ones: `pin` in `spinach`, `key` in `keyboard`).
pub const SECRET_WORDS: &[&str] = &[
    "pass", "pwd", "pin", "otp", "totp", "hotp", "mfa", "2fa", "code", "key", "sig", "auth",
    "authn", "authz", "oauth", "sid", "jwt", "bearer", "ssn", "cvv", "cvc", "iban", "nonce",
    "csrf", "xsrf",
];

/// Stems that make a name secret-ish wherever they appear in its letters run together
/// (`newPassword`, `client_secret`, `X-Amz-Signature`, `accesscode`).
pub const SECRET_STEMS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "accesscode",
    "authcode",
    "credential",
    "session",
    "signature",
    "authorization",
    "authenticat",
    "cookie",
    "socialsecurity",
    "cardnumber",
    "creditcard",
];

/// Protocol keys whose names look secret-ish but whose values are not secrets (what is inside
/// them is still looked at).
pub const PROTOCOL_KEYS: &[&str] = &["progressToken", "_meta", "requestState"];

/// Headers whose value is one or more URLs: their secrets are hidden, the rest kept.
const URL_HEADERS: &[&str] = &["location", "content-location", "link", "referer", "refresh"];

/// Whether `name` (a property, header or query parameter name) is secret-ish (see the module
/// documentation).
///
/// ```
/// use interlude_engine::redact::is_secret_name;
/// for name in ["X-Api-Key", "access_code", "accessCode", "otp", "X-Pass", "userPassword"] {
///     assert!(is_secret_name(name), "{name}");
/// }
/// for name in ["spinach", "passport", "keyboard", "name", "Content-Type"] {
///     assert!(!is_secret_name(name), "{name}");
/// }
/// ```
pub fn is_secret_name(name: &str) -> bool {
    let mut squashed = String::with_capacity(name.len());
    let mut found = false;
    for word in words(name) {
        found |= SECRET_WORDS.contains(&word.as_str());
        squashed.push_str(&word);
    }
    found || SECRET_STEMS.iter().any(|stem| squashed.contains(stem))
}

/// `name`'s words, lower case: split at anything not a letter or digit, and where a lower-case
/// letter or digit is followed by an upper-case one (`accessCode`), or an upper-case run by a
/// word (`APIKey`: `api`, `key`).
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            continue;
        }
        let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let hump = c.is_uppercase()
            && previous.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if hump && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Returns `content` with the values of secret-ish properties replaced by `"[redacted]"`
/// (nested objects and arrays too).
///
/// ```
/// let c = serde_json::from_value(serde_json::json!({"name": "Ada", "apiToken": "s3cr3t"})).unwrap();
/// let r = interlude_engine::redact(&c);
/// assert_eq!(r["name"], "Ada");
/// assert_eq!(r["apiToken"], "[redacted]");
/// ```
pub fn redact(content: &Content) -> Content {
    let mut value = Value::Object(content.clone());
    redact_json(&mut value);
    match value {
        Value::Object(map) => map,
        _ => Content::new(),
    }
}

/// Replaces, in place, the value of every secret-ish property anywhere in `value` with
/// `"[redacted]"` — except [`PROTOCOL_KEYS`] and the number of an error (`code` beside a
/// `message`).
///
/// ```
/// let mut v = serde_json::json!({"params": {"content": {"accessCode": "1234", "city": "Porto"}}});
/// interlude_engine::redact::redact_json(&mut v);
/// assert_eq!(v["params"]["content"]["accessCode"], "[redacted]");
/// assert_eq!(v["params"]["content"]["city"], "Porto");
/// ```
pub fn redact_json(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // A JSON-RPC or MCP error (`{"code": -32602, "message": …}`): its number is no
            // secret, and a log without it says nothing.
            let error_shape = map.get("message").is_some_and(Value::is_string);
            for (key, v) in map.iter_mut() {
                if error_shape && key == "code" && v.is_i64() {
                    continue;
                }
                if is_secret_name(key) && !PROTOCOL_KEYS.contains(&key.as_str()) {
                    *v = Value::String(REDACTED_VALUE.to_owned());
                } else {
                    redact_json(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_json),
        _ => {}
    }
}

/// `url` with its userinfo and the values of its secret-ish query and fragment parameters
/// replaced by [`REDACTED`]; anything that is not an absolute URL is returned as it is.
///
/// ```
/// use interlude_engine::redact::redact_url;
/// assert_eq!(
///     redact_url("http://user:SECRET@host/mcp?api_key=SECRET&v=2"),
///     "http://•••@host/mcp?api_key=•••&v=2"
/// );
/// assert_eq!(redact_url("https://example.com/cb?code=abc#x"), "https://example.com/cb?code=•••#x");
/// assert_eq!(redact_url("python3 server.py"), "python3 server.py");
/// ```
pub fn redact_url(url: &str) -> Cow<'_, str> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Cow::Borrowed(url);
    };
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return Cow::Borrowed(url);
    }
    // The authority ends at the first `/`, `?` or `#`; its userinfo at its last `@`.
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let host = match authority.rsplit_once('@') {
        Some((_, host)) => Cow::Owned(format!("{REDACTED}@{host}")),
        None => Cow::Borrowed(authority),
    };
    let (before_fragment, fragment) = match tail.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (tail, None),
    };
    let (path, query) = match before_fragment.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (before_fragment, None),
    };
    let query = query.map(redact_parameters);
    let fragment = fragment.map(redact_parameters);
    let changed = matches!(host, Cow::Owned(_))
        || matches!(query, Some(Cow::Owned(_)))
        || matches!(fragment, Some(Cow::Owned(_)));
    if !changed {
        return Cow::Borrowed(url);
    }
    let mut out = format!("{scheme}://{host}{path}");
    if let Some(q) = query {
        out.push('?');
        out.push_str(&q);
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(&f);
    }
    Cow::Owned(out)
}

/// `a=1&token=x` with the values of secret-ish names hidden (`&` or `;` between pairs).
fn redact_parameters(text: &str) -> Cow<'_, str> {
    if !text.contains('=') {
        return Cow::Borrowed(text);
    }
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let end = rest.find(['&', ';']).unwrap_or(rest.len());
        let (pair, after) = rest.split_at(end);
        match pair.split_once('=') {
            Some((name, value)) if !value.is_empty() && is_secret_name(&decoded(name)) => {
                changed = true;
                out.push_str(name);
                out.push('=');
                out.push_str(REDACTED);
            }
            _ => out.push_str(pair),
        }
        let mut separators = after.chars();
        match separators.next() {
            Some(separator) => {
                out.push(separator);
                rest = separators.as_str();
            }
            None => break,
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// A parameter name with `+` and `%XX` decoded (enough to judge it; invalid escapes are kept).
fn decoded(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a log shows of header `name`'s `value`, and whether anything was hidden (see the
/// module documentation).
///
/// ```
/// use interlude_engine::redact::redact_header;
/// assert_eq!(redact_header("Authorization", "Bearer sk-live-123"), ("Bearer".into(), true));
/// assert_eq!(redact_header("X-Password", "hunter2"), ("".into(), true));
/// assert_eq!(
///     redact_header("Location", "https://app.example/cb?code=abc&state=1"),
///     ("https://app.example/cb?code=•••&state=1".into(), true)
/// );
/// assert_eq!(redact_header("Content-Type", "text/plain"), ("text/plain".into(), false));
/// ```
pub fn redact_header(name: &str, value: &str) -> (String, bool) {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "mcp-session-id" => (value.chars().take(SESSION_ID_KEPT).collect(), true),
        "authorization" | "proxy-authorization" => {
            // The scheme says how the host authenticates; what follows it is the secret.
            let scheme = value
                .split_once(' ')
                .map(|(scheme, _)| scheme)
                .filter(|s| s.len() <= 16 && s.chars().all(|c| c.is_ascii_alphanumeric()));
            (scheme.unwrap_or_default().to_owned(), true)
        }
        n if URL_HEADERS.contains(&n) => {
            let shown = redact_urls_in(value);
            let changed = matches!(shown, Cow::Owned(_));
            (shown.into_owned(), changed)
        }
        _ if is_secret_name(&lower) => (String::new(), true),
        _ => (value.to_owned(), false),
    }
}

/// Every URL inside `text` (a `Link`'s `<…>`, a `Refresh`'s `url=…`, a bare `Location`)
/// redacted as [`redact_url`] says.
fn redact_urls_in(text: &str) -> Cow<'_, str> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut rest = text;
    while let Some(start) = rest.find("://") {
        // Back to the scheme's first character.
        let head = rest.get(..start).unwrap_or_default();
        let scheme_start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let after = rest.get(start..).unwrap_or_default();
        let end = start
            + after
                .find(|c: char| c.is_whitespace() || matches!(c, '>' | '"' | ',' | '\''))
                .unwrap_or(after.len());
        let url = rest.get(scheme_start..end).unwrap_or_default();
        let shown = redact_url(url);
        changed |= matches!(shown, Cow::Owned(_));
        out.push_str(rest.get(..scheme_start).unwrap_or_default());
        out.push_str(&shown);
        rest = rest.get(end..).unwrap_or_default();
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_ish_property_names() {
        for n in [
            "password",
            "newPassword",
            "passphrase",
            "pass",
            "pin",
            "card_pin",
            "card-pin",
            "otp",
            "mfa",
            "mfa_code",
            "code",
            "accessCode",
            "access_code",
            "AccessCode",
            "secret",
            "clientSecret",
            "token",
            "access_token",
            "apiToken",
            "key",
            "apiKey",
            "api_key",
            "APIKey",
            "credential",
            "session",
            "sessionId",
            "signature",
            "authorization",
            "cookie",
            "CVV",
            "Konto_password_für_Zugang",
            "user_password_that_is_far_longer_than_sixty_four_characters_in_total",
            "userpassword",
        ] {
            assert!(is_secret_name(n), "{n} should be redacted");
        }
        for n in [
            "name",
            "email",
            "spinach",
            "passport",
            "keyboard",
            "age",
            "genre",
            "topics",
            "Grüße",
            "author",
            "a_very_long_but_harmless_field_name_that_goes_past_the_stack_buffer",
        ] {
            assert!(!is_secret_name(n), "{n} should not be redacted");
        }
    }

    #[test]
    fn secret_ish_header_names_are_hidden_whatever_their_case() {
        for name in [
            "X-Api-Key",
            "x-goog-api-key",
            "X-Password",
            "X-Pass",
            "X-Passphrase",
            "X-Credential",
            "X-Session",
            "X-Signature",
            "X-Auth-Token",
            "x-client-secret",
            "X-Otp",
            "X-MFA-Code",
            "X-Access-Code",
            "Cookie",
            "Set-Cookie",
            "WWW-Authenticate",
        ] {
            assert_eq!(
                redact_header(name, "SECRET"),
                (String::new(), true),
                "{name}"
            );
        }
        assert_eq!(
            redact_header("Authorization", "Bearer SECRET"),
            ("Bearer".to_owned(), true)
        );
        assert_eq!(
            redact_header("Mcp-Session-Id", "abcdef0123"),
            ("abcd".to_owned(), true)
        );
        for (name, value) in [
            ("content-type", "text/event-stream"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2025-11-25"),
            ("Location", "https://example.com/next?page=2"),
        ] {
            assert_eq!(
                redact_header(name, value),
                (value.to_owned(), false),
                "{name}"
            );
        }
    }

    #[test]
    fn url_headers_keep_the_url_and_hide_its_secrets() {
        let (shown, hidden) =
            redact_header("Location", "https://app.example/cb?code=SECRET&state=xyz");
        assert!(hidden);
        assert_eq!(shown, "https://app.example/cb?code=•••&state=xyz");
        let (shown, hidden) = redact_header(
            "Link",
            r#"<https://u:SECRET@a.example/x?token=SECRET>; rel="next", <https://b.example/y>; rel="prev""#,
        );
        assert!(hidden);
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(
            shown.contains("<https://•••@a.example/x?token=•••>; rel=\"next\""),
            "{shown}"
        );
        assert!(shown.contains("<https://b.example/y>"), "{shown}");
        let (shown, _) = redact_header("Refresh", "0; url=https://a.example/?access_token=SECRET");
        assert_eq!(shown, "0; url=https://a.example/?access_token=•••");
    }

    #[test]
    fn urls_lose_their_userinfo_and_secret_parameters() {
        for (url, shown) in [
            (
                "http://user:SECRET@host/mcp?api_key=SECRET",
                "http://•••@host/mcp?api_key=•••",
            ),
            ("https://SECRET@host:8443/", "https://•••@host:8443/"),
            (
                "https://h/cb?code=SECRET&state=s&token=SECRET",
                "https://h/cb?code=•••&state=s&token=•••",
            ),
            (
                "https://h/cb#access_token=SECRET&token_type=bearer",
                "https://h/cb#access_token=•••&token_type=•••",
            ),
            (
                "https://h/x?X-Amz-Signature=SECRET",
                "https://h/x?X-Amz-Signature=•••",
            ),
            ("https://h/x?api%5Fkey=SECRET", "https://h/x?api%5Fkey=•••"),
            (
                "https://h/x?sig=SECRET;page=1",
                "https://h/x?sig=•••;page=1",
            ),
            ("https://h/x?page=1&q=cats", "https://h/x?page=1&q=cats"),
            ("python3 server.py --port 1", "python3 server.py --port 1"),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
    }

    #[test]
    fn properties_are_redacted_at_any_depth() {
        let mut v = json!({
            "params": {"content": {"accessCode": "1", "otp": "2", "pin": "3", "city": "Porto"}},
            "list": [{"mfa": "4"}, {"X-Api-Key": "5"}],
        });
        redact_json(&mut v);
        assert_eq!(
            v,
            json!({
                "params": {"content": {"accessCode": "[redacted]", "otp": "[redacted]",
                                       "pin": "[redacted]", "city": "Porto"}},
                "list": [{"mfa": "[redacted]"}, {"X-Api-Key": "[redacted]"}],
            })
        );
        let mut error = json!({"error": {"code": -32602, "message": "bad"}, "code": 123456});
        redact_json(&mut error);
        assert_eq!(
            error,
            json!({"error": {"code": -32602, "message": "bad"}, "code": "[redacted]"})
        );
    }
}
