//! The OAuth-client pattern of URL mode: connecting the user's account at a third party.
//!
//! The flow's link leads to this server first (who opens it is checked like any flow page),
//! which sends the browser on to the third party's authorization endpoint with PKCE (S256) and
//! a `state` that names the flow; the third party sends it back to `<base>/oauth/callback`
//! with a code, which this server exchanges (with the PKCE verifier) for tokens, kept as the
//! user's secret `oauth:<provider>`. The MCP client never sees a token, and the server never
//! uses the client's own token with the third party (no token passthrough).
//!
//! What it does not do: refresh tokens, or act as an authorization server.

use serde_json::Value;

use crate::url::store::{Flow, base64url};

/// A third party this server is a registered OAuth client of.
///
/// ```
/// use interlude_server::url::OAuthProvider;
/// let github = OAuthProvider::new(
///     "github",
///     "GitHub",
///     "https://github.com/login/oauth/authorize",
///     "https://github.com/login/oauth/access_token",
///     "my-client-id",
/// )
/// .with_secret("my-client-secret")
/// .with_scopes(["repo"]);
/// # let _ = github;
/// ```
#[derive(Clone)]
pub struct OAuthProvider {
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) authorize_url: String,
    pub(crate) token_url: String,
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<String>,
    pub(crate) scopes: Vec<String>,
}

impl std::fmt::Debug for OAuthProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProvider")
            .field("name", &self.name)
            .field("authorize_url", &self.authorize_url)
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl OAuthProvider {
    /// A provider called `name` (in the store: the secret `oauth:<name>`), shown as `title`,
    /// with its authorization and token endpoints and this server's client id there.
    pub fn new(
        name: impl Into<String>,
        title: impl Into<String>,
        authorize_url: impl Into<String>,
        token_url: impl Into<String>,
        client_id: impl Into<String>,
    ) -> Self {
        OAuthProvider {
            name: name.into(),
            title: title.into(),
            authorize_url: authorize_url.into(),
            token_url: token_url.into(),
            client_id: client_id.into(),
            client_secret: None,
            scopes: Vec::new(),
        }
    }

    /// A confidential client: the secret goes to the token endpoint (HTTP Basic).
    #[must_use]
    pub fn with_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// The scopes to ask for.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The provider's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The secret the tokens are kept under.
    pub fn secret_name(&self) -> String {
        format!("oauth:{}", self.name)
    }
}

/// A fresh PKCE verifier (32 random bytes, 43 characters) or `state` value.
pub(crate) fn random_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    base64url(&bytes)
}

/// The S256 challenge of a PKCE verifier (RFC 7636 §4.2).
pub(crate) fn challenge(verifier: &str) -> String {
    use sha2::Digest;
    base64url(&sha2::Sha256::digest(verifier.as_bytes()))
}

/// `text` percent-encoded for a query or form value (unreserved characters kept).
pub(crate) fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Where the browser goes for the provider's consent.
pub(crate) fn authorize_url(
    provider: &OAuthProvider,
    flow: &Flow,
    redirect_uri: &str,
) -> Option<String> {
    let state = flow.lookup.as_deref()?;
    let verifier = flow.data.get("verifier").and_then(Value::as_str)?;
    let separator = if provider.authorize_url.contains('?') {
        '&'
    } else {
        '?'
    };
    let mut url = format!(
        "{}{separator}response_type=code&client_id={}&redirect_uri={}&state={}&code_challenge={}&code_challenge_method=S256",
        provider.authorize_url,
        percent_encode(&provider.client_id),
        percent_encode(redirect_uri),
        percent_encode(state),
        challenge(verifier),
    );
    if !provider.scopes.is_empty() {
        url.push_str("&scope=");
        url.push_str(&percent_encode(&provider.scopes.join(" ")));
    }
    Some(url)
}

/// Why a code could not be exchanged.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ExchangeError {
    #[error("the token endpoint could not be reached: {0}")]
    Transport(String),
    #[error("the token endpoint refused the code ({status}): {body}")]
    Refused { status: u16, body: String },
    #[error("the token endpoint's answer has no access token")]
    NoToken,
}

/// Exchanges `code` for tokens at the provider's token endpoint (with the PKCE verifier);
/// returns the token response as the provider sent it.
pub(crate) async fn exchange(
    http: &reqwest::Client,
    provider: &OAuthProvider,
    code: &str,
    verifier: &str,
    redirect_uri: &str,
) -> Result<Value, ExchangeError> {
    let body = format!(
        "grant_type=authorization_code&code={}&redirect_uri={}&client_id={}&code_verifier={}",
        percent_encode(code),
        percent_encode(redirect_uri),
        percent_encode(&provider.client_id),
        percent_encode(verifier),
    );
    let mut request = http
        .post(&provider.token_url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json");
    if let Some(secret) = &provider.client_secret {
        request = request.basic_auth(&provider.client_id, Some(secret));
    }
    let response = request
        .body(body)
        .send()
        .await
        .map_err(|e| ExchangeError::Transport(e.to_string()))?;
    let status = response.status().as_u16();
    let bytes = response
        .bytes()
        .await
        .map_err(|e| ExchangeError::Transport(e.to_string()))?;
    if !(200..300).contains(&status) {
        let body = String::from_utf8_lossy(&bytes).chars().take(300).collect();
        return Err(ExchangeError::Refused { status, body });
    }
    let tokens: Value = serde_json::from_slice(&bytes).map_err(|_| ExchangeError::NoToken)?;
    if tokens.get("access_token").and_then(Value::as_str).is_none() {
        return Err(ExchangeError::NoToken);
    }
    Ok(tokens)
}

/// An HTTP client for token endpoints (TLS with the ring provider).
pub(crate) fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(20))
        .build()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_s256_challenge_matches_rfc_7636() {
        // RFC 7636, appendix B.
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(
            percent_encode("http://127.0.0.1:1/flows/oauth/callback?x=1 2"),
            "http%3A%2F%2F127.0.0.1%3A1%2Fflows%2Foauth%2Fcallback%3Fx%3D1%202"
        );
    }
}
