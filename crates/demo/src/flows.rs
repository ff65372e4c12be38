//! The demo's URL flows: an API-key page of its own, bound to the demo's one user.
//!
//! `interlude demo` runs the demo twice (over stdio and over HTTP); both keep their flows in one
//! SQLite file and the HTTP one serves the pages (`/flows/…`) and a sign-in page (`/sign-in`),
//! so one loopback origin is all the host has to allow. The stdio one learns where from its
//! environment ([`FLOWS_ENV`], [`STORE_ENV`], [`KEY_ENV`]). The file is in the user's own data
//! folder ([`store_path`]), never in a shared one such as `/tmp`, and its secrets are sealed
//! with the key file beside it (`<file>.key`), which both processes read.
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

/// Where the demo keeps its flow store called `file`: in `$XDG_DATA_HOME/interlude`, or
/// `~/.local/share/interlude` when `XDG_DATA_HOME` is unset (or not an absolute path). The
/// folder is created readable by its owner only (`0700`); one that exists and belongs to
/// another user is refused.
///
/// ```no_run
/// let path = interlude_demo::flows::store_path("demo-flows.sqlite")?;
/// assert!(path.ends_with("interlude/demo-flows.sqlite"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn store_path(file: &str) -> std::io::Result<std::path::PathBuf> {
    let data = data_folder(std::env::var_os("XDG_DATA_HOME"), std::env::var_os("HOME"))
        .ok_or_else(|| {
            std::io::Error::other(
                "cannot tell where your data folder is: set HOME or XDG_DATA_HOME",
            )
        })?;
    let folder = data.join("interlude");
    private_folder(&folder)?;
    Ok(folder.join(file))
}

/// The user's data folder: `$XDG_DATA_HOME` when it is an absolute path, else
/// `$HOME/.local/share`.
fn data_folder(
    xdg_data_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<std::path::PathBuf> {
    xdg_data_home
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            home.map(std::path::PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".local").join("share"))
        })
}

/// Creates `folder` (and its parents) with mode `0700` for the folder itself, or checks that
/// the existing one is the user's and that neither the group nor others may write to it.
fn private_folder(folder: &std::path::Path) -> std::io::Result<()> {
    if let Some(parent) = folder.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(folder) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::symlink_metadata(folder)?;
        if !metadata.is_dir() || metadata.uid() != rustix::process::geteuid().as_raw() {
            return Err(std::io::Error::other(format!(
                "{} is not a folder of yours; refusing to keep the demo's flows there",
                folder.display()
            )));
        }
        if metadata.mode() & 0o022 != 0 {
            return Err(std::io::Error::other(format!(
                "{} may be written by other users (mode {:o}); refusing to keep the demo's \
                 flows there (chmod 700 it)",
                folder.display(),
                metadata.mode() & 0o7777
            )));
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::Path;

    use super::*;

    #[test]
    fn the_data_folder_is_xdg_s_or_under_home_never_relative() {
        let data = |xdg: Option<&str>, home: Option<&str>| {
            data_folder(xdg.map(Into::into), home.map(Into::into))
        };
        assert_eq!(
            data(Some("/data"), Some("/u/ada")).as_deref(),
            Some(Path::new("/data"))
        );
        assert_eq!(
            data(None, Some("/u/ada")).as_deref(),
            Some(Path::new("/u/ada/.local/share"))
        );
        // A relative XDG_DATA_HOME is to be ignored (XDG Base Directory specification).
        assert_eq!(
            data(Some("data"), Some("/u/ada")).as_deref(),
            Some(Path::new("/u/ada/.local/share"))
        );
        assert_eq!(data(None, Some("home")), None);
        assert_eq!(data(None, None), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_store_folder_is_created_private() {
        use std::os::unix::fs::PermissionsExt;
        let base =
            std::env::temp_dir().join(format!("interlude-demo-folder-{}", std::process::id()));
        let folder = base.join("interlude");
        private_folder(&folder).unwrap();
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        // Found again: fine.
        private_folder(&folder).unwrap();
        // A file in its place is not a folder of the user's.
        let file = base.join("not-a-folder");
        std::fs::write(&file, b"").unwrap();
        assert!(private_folder(&file).is_err());
        // Issue 34, round two: the user's own folder that anyone may write to is refused too.
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = private_folder(&folder).unwrap_err();
        assert!(
            e.to_string().contains("may be written by other users"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
