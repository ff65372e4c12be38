//! "Example Cloud": the third party the demo plays itself, on a loopback port of its own, so
//! that `interlude demo` can show connecting an account through OAuth with nothing but Rust.
//!
//! A minimal OAuth 2.0 authorization server for one registered client: `GET /authorize` shows a
//! consent page (Allow / Deny), `POST /authorize` sends the browser back to the client's
//! registered redirect URI with a one-time code (or `error=access_denied`) and the client's
//! `state`; `POST /token` exchanges the code once, only with the PKCE verifier whose S256
//! challenge came with the authorization request, the same redirect URI and the client's
//! credentials. Codes live one minute, in memory.
//!
//! What it is not: an identity provider (there is no login: whoever reaches the page is the
//! demo's one account), or anything to run beyond loopback. The tests of the toolkit's OAuth
//! pattern use a real OpenID provider as well.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;

/// The one client the provider knows.
#[derive(Debug, Clone)]
pub struct Client {
    /// Its id.
    pub id: String,
    /// Its secret (HTTP Basic at the token endpoint).
    pub secret: String,
    /// The only redirect URI it may use.
    pub redirect_uri: String,
}

struct Grant {
    challenge: String,
    redirect_uri: String,
    issued: Instant,
}

#[derive(Clone)]
struct Provider {
    client: Arc<Client>,
    codes: Arc<Mutex<HashMap<String, Grant>>>,
}

/// The provider's routes, for `client`.
pub fn router(client: Client) -> Router {
    let state = Provider {
        client: Arc::new(client),
        codes: Arc::new(Mutex::new(HashMap::new())),
    };
    Router::new()
        .route("/authorize", get(show).post(decide))
        .route("/token", post(token))
        .with_state(state)
}

#[derive(Deserialize)]
struct Authorize {
    response_type: Option<String>,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    state: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    scope: Option<String>,
    decision: Option<String>,
}

fn html(status: StatusCode, title: &str, body: &str) -> Response {
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>body{{font:16px/1.5 system-ui,sans-serif;background:#eef6f1;margin:0}}\
         main{{max-width:30rem;margin:3rem auto;background:#fff;border-radius:12px;\
         padding:1.5rem 2rem}}button{{font:inherit;font-weight:600;padding:.5rem 1.2rem;\
         border-radius:8px;border:1px solid #1b7a4b;margin-right:.5rem}}\
         .allow{{background:#1b7a4b;color:#fff}}</style></head><body><main><h1>{title}</h1>\
         {body}</main></body></html>"
    );
    let mut response = (status, page).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
        ),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What is wrong with an authorization request, if anything.
fn refusal(p: &Provider, q: &Authorize) -> Option<&'static str> {
    if q.response_type.as_deref() != Some("code") {
        return Some("response_type must be code");
    }
    if q.client_id.as_deref() != Some(p.client.id.as_str()) {
        return Some("unknown client");
    }
    if q.redirect_uri.as_deref() != Some(p.client.redirect_uri.as_str()) {
        return Some("redirect_uri is not the registered one");
    }
    if q.code_challenge_method.as_deref() != Some("S256")
        || q.code_challenge.as_deref().is_none_or(|c| c.len() < 43)
    {
        return Some("PKCE with S256 is required");
    }
    if q.state.as_deref().is_none_or(str::is_empty) {
        return Some("state is required");
    }
    None
}

async fn show(State(p): State<Provider>, Query(q): Query<Authorize>) -> Response {
    if let Some(why) = refusal(&p, &q) {
        return html(
            StatusCode::BAD_REQUEST,
            "Example Cloud refused",
            &escape(why),
        );
    }
    let hidden = |name: &str, value: &Option<String>| {
        format!(
            "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
            escape(value.as_deref().unwrap_or_default())
        )
    };
    let fields: String = [
        ("response_type", &q.response_type),
        ("client_id", &q.client_id),
        ("redirect_uri", &q.redirect_uri),
        ("state", &q.state),
        ("code_challenge", &q.code_challenge),
        ("code_challenge_method", &q.code_challenge_method),
        ("scope", &q.scope),
    ]
    .iter()
    .map(|(n, v)| hidden(n, v))
    .collect();
    html(
        StatusCode::OK,
        "Example Cloud",
        &format!(
            "<p>The <strong>Interlude demo server</strong> asks to read your Example Cloud files \
             ({}).</p><form method=\"post\">{fields}\
             <button class=\"allow\" name=\"decision\" value=\"allow\">Allow</button>\
             <button name=\"decision\" value=\"deny\">Deny</button></form>",
            escape(q.scope.as_deref().unwrap_or("no scope"))
        ),
    )
}

fn random_code() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn query_value(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

async fn decide(State(p): State<Provider>, Form(q): Form<Authorize>) -> Response {
    if let Some(why) = refusal(&p, &q) {
        return html(
            StatusCode::BAD_REQUEST,
            "Example Cloud refused",
            &escape(why),
        );
    }
    let (Some(redirect), Some(state), Some(challenge)) =
        (q.redirect_uri, q.state, q.code_challenge)
    else {
        return html(
            StatusCode::BAD_REQUEST,
            "Example Cloud refused",
            "incomplete",
        );
    };
    let to = if q.decision.as_deref() == Some("allow") {
        let code = random_code();
        if let Ok(mut codes) = p.codes.lock() {
            codes.retain(|_, g| g.issued.elapsed() < Duration::from_secs(60));
            codes.insert(
                code.clone(),
                Grant {
                    challenge,
                    redirect_uri: redirect.clone(),
                    issued: Instant::now(),
                },
            );
        }
        format!("{redirect}?code={code}&state={}", query_value(&state))
    } else {
        format!(
            "{redirect}?error=access_denied&error_description={}&state={}",
            query_value("the person denied access"),
            query_value(&state)
        )
    };
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(&to) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

#[derive(Deserialize)]
struct TokenRequest {
    grant_type: Option<String>,
    code: Option<String>,
    redirect_uri: Option<String>,
    code_verifier: Option<String>,
}

fn token_error(error: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        axum::Json(json!({ "error": error })),
    )
        .into_response()
}

fn basic_auth_ok(p: &Provider, headers: &HeaderMap) -> bool {
    use base64::Engine;
    let Some(value) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
    else {
        return false;
    };
    base64::engine::general_purpose::STANDARD
        .decode(value)
        .is_ok_and(|d| d == format!("{}:{}", p.client.id, p.client.secret).as_bytes())
}

async fn token(
    State(p): State<Provider>,
    headers: HeaderMap,
    Form(t): Form<TokenRequest>,
) -> Response {
    if !basic_auth_ok(&p, &headers) {
        return token_error("invalid_client");
    }
    if t.grant_type.as_deref() != Some("authorization_code") {
        return token_error("unsupported_grant_type");
    }
    // A code is good once, whatever happens next.
    let grant = t
        .code
        .as_deref()
        .and_then(|c| p.codes.lock().ok()?.remove(c));
    let Some(grant) = grant else {
        return token_error("invalid_grant");
    };
    let verifier_ok = t.code_verifier.as_deref().is_some_and(|v| {
        use base64::Engine;
        use sha2::Digest;
        let digest = sha2::Sha256::digest(v.as_bytes());
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest) == grant.challenge
    });
    if !verifier_ok
        || t.redirect_uri.as_deref() != Some(grant.redirect_uri.as_str())
        || grant.issued.elapsed() > Duration::from_secs(60)
    {
        return token_error("invalid_grant");
    }
    axum::Json(json!({
        "access_token": format!("ecl_{}", random_code()),
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": format!("ecr_{}", random_code()),
        "scope": "files.read",
    }))
    .into_response()
}
