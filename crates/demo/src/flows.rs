//! The demo's URL flows: an API-key page of its own, bound to the demo's one user.
//!
//! `interlude demo` runs the demo twice (over stdio and over HTTP); both keep their flows in one
//! SQLite file and the HTTP one serves the pages (`/flows/…`) and a sign-in page (`/sign-in`),
//! so one loopback origin is all the host has to allow. The stdio one learns where from its
//! environment ([`FLOWS_ENV`], [`STORE_ENV`], [`KEY_ENV`]).
//!
//! The sign-in page signs anyone who can reach it in as the demo's user: this is a demo on
//! loopback. A real server's login decides who a person is; the flow pages only compare.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use interlude_server::url::{
    FlowStore, LocalUser, OAuthProvider, SignedCookie, SqliteStore, StoreError, UrlFlows, UserId,
};
use serde::Deserialize;

/// The demo's one user.
pub const DEMO_USER: &str = "you";
/// The cookie the demo's sign-in sets.
pub const COOKIE: &str = "interlude_demo_user";
/// The flows' base URL, for a demo server that does not serve the pages itself.
pub const FLOWS_ENV: &str = "INTERLUDE_DEMO_FLOWS";
/// The flows' SQLite file.
pub const STORE_ENV: &str = "INTERLUDE_DEMO_STORE";
/// The cookie's signing key, hex.
pub const KEY_ENV: &str = "INTERLUDE_DEMO_COOKIE_KEY";
/// The origin of "Example Cloud", the OAuth provider the demo plays ([`crate::provider`]).
pub const CLOUD_ENV: &str = "INTERLUDE_DEMO_CLOUD";
/// The demo's client secret at Example Cloud.
pub const CLOUD_SECRET_ENV: &str = "INTERLUDE_DEMO_CLOUD_SECRET";

/// The demo's client id at Example Cloud.
pub const CLOUD_CLIENT_ID: &str = "interlude-demo";

/// Where Example Cloud runs and the demo's secret there.
#[derive(Debug, Clone)]
pub struct Cloud {
    /// `http://127.0.0.1:<port>`.
    pub origin: String,
    /// The client secret.
    pub secret: String,
}

/// Serves Example Cloud on `listener` for the flows under `flows_base` (their callback is the
/// only redirect URI it accepts), until the process ends; returns where it runs.
pub fn serve_cloud(
    listener: tokio::net::TcpListener,
    flows_base: &str,
    secret: &str,
) -> std::io::Result<Cloud> {
    let origin = format!("http://{}", listener.local_addr()?);
    let client = crate::provider::Client {
        id: CLOUD_CLIENT_ID.to_owned(),
        secret: secret.to_owned(),
        redirect_uri: format!("{}/oauth/callback", flows_base.trim_end_matches('/')),
    };
    let app = crate::provider::router(client);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!("Example Cloud stopped: {e}");
        }
    });
    Ok(Cloud {
        origin,
        secret: secret.to_owned(),
    })
}

/// The demo's flows: kept in `store`, pages under `base` (`http://…/flows`), sign-in next to
/// them at `/sign-in`, the cookie signed with `key` (32 bytes or more).
pub fn demo_flows(
    base: &str,
    store: Arc<dyn FlowStore>,
    key: &[u8],
    cloud: Option<&Cloud>,
) -> Result<UrlFlows, interlude_server::url::ShortKey> {
    let provider = cloud.map(|cloud| {
        OAuthProvider::new(
            "cloud",
            "Example Cloud",
            format!("{}/authorize", cloud.origin),
            format!("{}/token", cloud.origin),
            CLOUD_CLIENT_ID,
        )
        .with_secret(cloud.secret.clone())
        .with_scopes(["files.read"])
    });
    demo_flows_with(base, store, key, provider)
}

/// [`demo_flows`] with any OAuth provider as the `cloud` of `connect_cloud_account` (its name
/// must be `cloud`): a real OpenID provider in the tests, for instance.
pub fn demo_flows_with(
    base: &str,
    store: Arc<dyn FlowStore>,
    key: &[u8],
    cloud: Option<OAuthProvider>,
) -> Result<UrlFlows, interlude_server::url::ShortKey> {
    let cookie = SignedCookie::new(COOKIE, key)?;
    let origin = base.trim_end_matches('/').trim_end_matches("/flows");
    let flows = UrlFlows::new(store, base, LocalUser::new(UserId::new(DEMO_USER), cookie))
        .with_server_name("the Interlude demo server")
        .with_sign_in(format!("{origin}/sign-in"));
    Ok(match cloud {
        Some(provider) => flows.with_oauth(provider),
        None => flows,
    })
}

/// The demo's flows from the environment a parent set, when it set one.
pub fn from_env() -> Option<UrlFlows> {
    let base = std::env::var(FLOWS_ENV).ok()?;
    let path = std::env::var(STORE_ENV).ok()?;
    let key = unhex(&std::env::var(KEY_ENV).ok()?)?;
    let store = match SqliteStore::open(&path) {
        Ok(store) => store,
        Err(e) => {
            tracing::warn!("cannot open the demo's flow store {path}: {e}");
            return None;
        }
    };
    let cloud = match (std::env::var(CLOUD_ENV), std::env::var(CLOUD_SECRET_ENV)) {
        (Ok(origin), Ok(secret)) => Some(Cloud { origin, secret }),
        _ => None,
    };
    demo_flows(&base, Arc::new(store), &key, cloud.as_ref()).ok()
}

/// Opens (or creates) the demo's flow store at `path`.
pub fn open_store(path: &std::path::Path) -> Result<Arc<dyn FlowStore>, StoreError> {
    Ok(Arc::new(SqliteStore::open(path)?))
}

/// `key` as hex, for [`KEY_ENV`].
pub fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[derive(Clone)]
struct SignIn {
    cookie: SignedCookie,
    flows_base: String,
}

#[derive(Deserialize)]
struct Next {
    next: Option<String>,
}

/// `GET /sign-in?next=<a flow URL>`: signs the visitor in as the demo's user and sends them
/// back to the flow (only to a flow page of this server).
pub(crate) fn sign_in_router(flows_base: &str, key: &[u8]) -> Option<Router> {
    let cookie = SignedCookie::new(COOKIE, key).ok()?;
    let state = SignIn {
        cookie,
        flows_base: format!("{}/", flows_base.trim_end_matches('/')),
    };
    Some(
        Router::new()
            .route("/sign-in", get(sign_in))
            .with_state(state),
    )
}

async fn sign_in(State(s): State<SignIn>, Query(q): Query<Next>) -> Response {
    let cookie = s.cookie.set_cookie(&UserId::new(DEMO_USER));
    // Only back to a flow page here: never an open redirect.
    let next = q
        .next
        .filter(|n| n.starts_with(&s.flows_base) && !n.contains(['\r', '\n', '"', '<', '>']));
    let mut response = match next {
        Some(next) => (StatusCode::SEE_OTHER, [(header::LOCATION, next)]).into_response(),
        None => (
            StatusCode::OK,
            "Signed in to the Interlude demo server as \"you\". Go back to the link you were given.",
        )
            .into_response(),
    };
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
