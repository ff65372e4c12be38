//! The pages a flow's link opens, as an axum router the server mounts where its
//! [`UrlFlows`] base URL says.
//!
//! Every request first checks, in order: the id is well formed and names a flow (else 404);
//! the person opening it is signed in (else 401) as the user the flow was started for (else
//! 403, and the attempt is logged: the spec's phishing scenario, someone else opening a link
//! that was forwarded to them); the flow is still pending and in time (else 410). A form post
//! must also come from the page's own origin (a same-origin `Origin`, or without one
//! `Sec-Fetch-Site: same-origin`; `Origin: null` is refused) and carry the page's form token, an
//! HMAC of the flow and its user under a key of this server (else 403). Pages are plain HTML
//! without scripts, sent with a CSP that allows nothing else, no referrer to other origins and
//! no caching.
//!
//! What it does not do: sign anyone in (the server's own login sets the cookie
//! [`Identity::page_user`](crate::url::Identity::page_user) reads).

use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hmac::{KeyInit, Mac};
use serde::Deserialize;

use crate::url::flows::{FlowKind, UrlFlows, now_ms};
use crate::url::store::{Flow, FlowId, FlowStatus, Secret};

/// Refusals of flow pages so far, in this process: anyone who can reach the pages can make
/// thousands, and the log says the 1st, 2nd, 4th, 8th… ([`worth_saying`]).
static REFUSED: AtomicU64 = AtomicU64::new(0);

/// Counts one more refusal, and whether the log should say it now (at powers of two, with the
/// count), so a flood costs a few lines, not one line each.
fn worth_saying(counter: &AtomicU64) -> Option<u64> {
    let count = counter.fetch_add(1, Ordering::Relaxed) + 1;
    count.is_power_of_two().then_some(count)
}

impl UrlFlows {
    /// The flow pages: `GET /{id}` shows the page (or, for an OAuth flow, sends the browser to
    /// the provider), `POST /{id}` takes what it asks for, `GET /oauth/callback` is where
    /// providers send the browser back. Mount it at the path of the base URL given to
    /// [`UrlFlows::new`].
    pub fn router(&self) -> Router {
        Router::new()
            .route("/{id}", get(show).post(submit))
            .route("/oauth/callback", get(callback))
            .with_state(self.clone())
    }
}

/// A `303 See Other` to `to`, with the flow pages' headers.
fn redirect(to: &str) -> Response {
    let mut response = page(StatusCode::SEE_OTHER, "Continue", "<p>Continuing…</p>");
    if let Ok(value) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// `name` where it starts a sentence: its first letter upper case ("the Interlude demo server"
/// → "The Interlude demo server").
fn sentence_start(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn gone(why: &str) -> Response {
    page(
        StatusCode::GONE,
        "This link can no longer be used",
        &format!("<p>{}</p>", escape(why)),
    )
}

/// The person's decision on a confirmation page.
async fn confirmed(flows: &UrlFlows, flow: &Flow, title: &str, decision: Option<&str>) -> Response {
    let server = escape(&flows.inner.server_name);
    let outcome = match decision {
        Some("confirm") => flows.complete(flow, None).await,
        Some("decline") => flows.decline(flow).await,
        _ => return form_page(flows, flow, None),
    };
    match (outcome, decision) {
        (Ok(true), Some("confirm")) => page(
            StatusCode::OK,
            "Confirmed",
            &format!(
                "<p>{} has your confirmation. You can close this tab.</p>",
                sentence_start(&server)
            ),
        ),
        (Ok(true), _) => page(
            StatusCode::OK,
            "Declined",
            &format!("<p>You declined: {}. {server} was told.</p>", escape(title)),
        ),
        (Ok(false), _) => gone("It expired or was already used while you were on this page."),
        (Err(e), _) => {
            tracing::warn!(flow = %flow.id, "cannot end the flow: {e}");
            page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>The server could not record your decision. Try again.</p>",
            )
        }
    }
}

#[derive(Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// The provider sends the browser back here: the `state` names the flow (an unknown or
/// tampered one names none), the person must be the flow's user, and the code is exchanged
/// with the flow's PKCE verifier.
async fn callback(
    State(flows): State<UrlFlows>,
    headers: HeaderMap,
    axum::extract::Query(q): axum::extract::Query<Callback>,
) -> Response {
    let found = match q.state.as_deref() {
        Some(state) => Some(flows.inner.store.flow_by_lookup(state).await),
        None => None,
    };
    let flow = match found {
        Some(Ok(Some(flow))) => flow,
        Some(Err(e)) => {
            tracing::warn!("cannot read the flow of an OAuth callback: {e}");
            return page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>The server could not read this link's state. Try again later.</p>",
            );
        }
        _ => {
            if let Some(count) = worth_saying(&REFUSED) {
                tracing::warn!(
                    "an OAuth callback with an unknown state; refused ({count} refusals of flow \
                     pages so far)"
                );
            }
            return page(
                StatusCode::NOT_FOUND,
                "No such link",
                "<p>This answer from the other service does not belong to anything here.</p>",
            );
        }
    };
    if let Err(refusal) = check(&flows, &flow, &headers) {
        return refusal;
    }
    let Some(FlowKind::OAuth { provider }) = FlowKind::of(&flow) else {
        return gone("This link was not for connecting an account.");
    };
    let Some(provider) = flows.provider(&provider).cloned() else {
        return gone("This server no longer connects to that service.");
    };
    let title = escape(&provider.title);
    if let Some(error) = q.error {
        let reason = q.error_description.unwrap_or_else(|| error.clone());
        if let Err(e) = flows
            .fail(&flow, format!("{}: {reason}", provider.title))
            .await
        {
            tracing::warn!(flow = %flow.id, "cannot end the flow: {e}");
        }
        return page(
            StatusCode::OK,
            &format!("{} was not connected", provider.title),
            &format!(
                "<p>{title} said: {}. Nothing was saved.</p>",
                escape(&reason)
            ),
        );
    }
    let (Some(code), Some(verifier), Some(http)) = (
        q.code,
        flow.data
            .get("verifier")
            .and_then(serde_json::Value::as_str),
        flows.inner.http.as_ref(),
    ) else {
        return gone("The other service sent no code back.");
    };
    let tokens =
        match crate::url::oauth::exchange(http, &provider, &code, verifier, &flows.redirect_uri())
            .await
        {
            Ok(tokens) => tokens,
            Err(e) => {
                tracing::warn!(flow = %flow.id, "the OAuth code exchange failed: {e}");
                return page(
                    StatusCode::BAD_GATEWAY,
                    &format!("{} was not connected", provider.title),
                    &format!(
                        "<p>{title} did not give this server access. Start again from your \
                     assistant.</p>"
                    ),
                );
            }
        };
    let secret = Secret::new(tokens.to_string());
    match flows
        .complete(&flow, Some((&provider.secret_name(), &secret)))
        .await
    {
        Ok(true) => page(
            StatusCode::OK,
            &format!("{} is connected", provider.title),
            &format!(
                "<p>{} can now use your {title} account. You can close this tab and go back \
                 to your assistant.</p>",
                sentence_start(&escape(&flows.inner.server_name))
            ),
        ),
        Ok(false) => gone("It expired or was already used while you were away."),
        Err(e) => {
            tracing::warn!(flow = %flow.id, "cannot complete the flow: {e}");
            page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Not saved",
                "<p>The server could not keep the connection. Try again.</p>",
            )
        }
    }
}

/// A page refusing, or a page of the flow, with the headers every flow page carries.
fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>{STYLE}</style></head><body><main>\
         <h1>{title}</h1>{body}</main></body></html>",
        title = escape(title),
    );
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
             frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    // `same-origin`, not `no-referrer`: no other site learns a flow's URL either way, but under
    // `no-referrer` browsers send `Origin: null` with the page's own form post, which is what a
    // sandboxed frame of another site sends too (refused, `cross_origin`).
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;background:#f5f6fa;color:#1b1d29;\
margin:0}main{max-width:34rem;margin:3rem auto;background:#fff;border-radius:12px;\
padding:1.5rem 2rem;box-shadow:0 2px 12px #0001}h1{font-size:1.3rem}label{display:block;\
font-weight:600;margin:1rem 0 .3rem}input{width:100%;box-sizing:border-box;font:inherit;\
padding:.5rem;border:1px solid #c9cbd6;border-radius:8px}button{margin-top:1rem;font:inherit;\
font-weight:600;padding:.5rem 1.2rem;border:0;border-radius:8px;background:#4f46e5;color:#fff}\
button.secondary{background:#fff;color:#1b1d29;border:1px solid #c9cbd6}\
.note{color:#5b5f73;font-size:.9rem}.error{color:#b42318}";

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The flow `id` names, if the person opening it may use it now; else the page saying why.
#[allow(clippy::result_large_err)]
async fn usable(flows: &UrlFlows, id: &str, headers: &HeaderMap) -> Result<Flow, Response> {
    let missing = || {
        page(
            StatusCode::NOT_FOUND,
            "No such link",
            "<p>This link does not name anything on this server.</p>",
        )
    };
    let Ok(id) = FlowId::parse(id) else {
        return Err(missing());
    };
    let flow = match flows.inner.store.flow(&id).await {
        Ok(Some(flow)) => flow,
        Ok(None) => return Err(missing()),
        Err(e) => {
            tracing::warn!(flow = %id, "cannot read the flow: {e}");
            return Err(page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>The server could not read this link's state. Try again later.</p>",
            ));
        }
    };
    check(flows, &flow, headers)?;
    Ok(flow)
}

/// Whether the person opening `flow`'s page may use it now: signed in, as the flow's own
/// user, while it is pending and in time; else the page saying why.
#[allow(clippy::result_large_err)]
fn check(flows: &UrlFlows, flow: &Flow, headers: &HeaderMap) -> Result<(), Response> {
    let server = escape(&flows.inner.server_name);
    let Some(visitor) = flows.inner.identity.page_user(headers) else {
        let link = flows.inner.sign_in.as_ref().map_or_else(String::new, |to| {
            format!(
                "<p><a href=\"{}?next={}\">Sign in to {server}</a></p>",
                escape(to),
                escape(&crate::url::oauth::percent_encode(&flows.url_of(&flow.id)))
            )
        });
        return Err(page(
            StatusCode::UNAUTHORIZED,
            "Sign in first",
            &format!(
                "<p>This link belongs to an account on {server}: sign in to it in this browser, \
                 then open the link again.</p>{link}"
            ),
        ));
    };
    if visitor != flow.user {
        if let Some(count) = worth_saying(&REFUSED) {
            tracing::warn!(
                flow = %flow.id,
                "a flow's link was opened by a different identity than the one that started it; \
                 refused ({count} refusals of flow pages so far)"
            );
        }
        return Err(page(
            StatusCode::FORBIDDEN,
            "This link is not yours",
            &format!(
                "<p>This link was started by another account on {server}. Nothing was done.</p>\
                 <p class=\"note\">If someone sent you this link, do not use it: ask your own \
                 assistant to start again.</p>"
            ),
        ));
    }
    if flow.status != FlowStatus::Pending || flow.is_expired(now_ms()) {
        return Err(page(
            StatusCode::GONE,
            "This link can no longer be used",
            "<p>It expired or was already used. Start again from your assistant.</p>",
        ));
    }
    Ok(())
}

async fn show(
    State(flows): State<UrlFlows>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let flow = match usable(&flows, &id, &headers).await {
        Ok(flow) => flow,
        Err(refusal) => return refusal,
    };
    form_page(&flows, &flow, None)
}

fn form_page(flows: &UrlFlows, flow: &Flow, error: Option<&str>) -> Response {
    let server = escape(&flows.inner.server_name);
    let server_starts = sentence_start(&server);
    match FlowKind::of(flow) {
        Some(FlowKind::OAuth { provider }) => match flows.provider(&provider) {
            Some(p) => match crate::url::oauth::authorize_url(p, flow, &flows.redirect_uri()) {
                Some(to) => redirect(&to),
                None => gone("This link's state is incomplete."),
            },
            None => gone("This server no longer connects to that service."),
        },
        Some(FlowKind::Confirm { title, detail, .. }) => page(
            StatusCode::OK,
            &title,
            &format!(
                "<p>{server_starts} asks you to confirm:</p><p><strong>{}</strong></p>\
                 <form method=\"post\">{token}<button type=\"submit\" name=\"decision\" \
                 value=\"confirm\">Confirm</button> <button type=\"submit\" \
                 name=\"decision\" value=\"decline\" class=\"secondary\">Decline</button></form>",
                escape(&detail),
                token = token_field(flows, flow),
            ),
        ),
        Some(FlowKind::ApiKey { label, .. }) => {
            let label = escape(&label);
            let error = error.map_or_else(String::new, |e| {
                format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e))
            });
            page(
                if error.is_empty() {
                    StatusCode::OK
                } else {
                    StatusCode::BAD_REQUEST
                },
                &format!("Enter your {}", label),
                &format!(
                    "<p>{server_starts} asks for your {label}. It goes to {server} only: your \
                     assistant and the app you use it in never see it.</p>{error}\
                     <form method=\"post\">{token}<label for=\"secret\">{label}</label>\
                     <input id=\"secret\" name=\"secret\" type=\"password\" \
                     autocomplete=\"off\" required autofocus>\
                     <button type=\"submit\">Save</button></form>",
                    token = token_field(flows, flow),
                ),
            )
        }
        None => page(
            StatusCode::GONE,
            "This link can no longer be used",
            "<p>This server no longer knows what this link was for.</p>",
        ),
    }
}

#[derive(Deserialize)]
struct Submitted {
    secret: Option<String>,
    decision: Option<String>,
    /// The page's form token ([`form_token`]).
    token: Option<String>,
}

/// The name of the form token's hidden field.
const TOKEN_FIELD: &str = "token";

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

fn token_mac(flows: &UrlFlows, flow: &Flow) -> Option<HmacSha256> {
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&flows.inner.form_key).ok()?;
    mac.update(b"interlude/flow-form/v1\0");
    mac.update(flow.id.as_str().as_bytes());
    mac.update(b"\0");
    mac.update(flow.user.as_str().as_bytes());
    Some(mac)
}

/// The token a flow page's form carries and its post must send back: an HMAC of the flow and
/// its user under this server's form key. Another site cannot read it (the page is only shown
/// to the flow's signed-in user, and no page of another origin can read it), so a form that
/// another site makes the browser post lacks it.
fn form_token(flows: &UrlFlows, flow: &Flow) -> String {
    token_mac(flows, flow).map_or_else(String::new, |mac| {
        crate::url::store::base64url(&mac.finalize().into_bytes())
    })
}

fn token_field(flows: &UrlFlows, flow: &Flow) -> String {
    format!(
        "<input type=\"hidden\" name=\"{TOKEN_FIELD}\" value=\"{}\">",
        escape(&form_token(flows, flow))
    )
}

/// Whether `token` is `flow`'s form token (compared in constant time).
fn token_matches(flows: &UrlFlows, flow: &Flow, token: Option<&str>) -> bool {
    let Some(tag) = token.and_then(crate::url::store::unbase64url) else {
        return false;
    };
    token_mac(flows, flow).is_some_and(|mac| mac.verify_slice(&tag).is_ok())
}

/// Why a form post does not come from the flow page's own origin, if it does not. A browser
/// says where a post comes from with `Origin` and `Sec-Fetch-Site`: the `Origin` must be the
/// pages' own (`null`, sent from sandboxed frames, `data:` and `file:` pages and some
/// redirects, is refused); without it, `Sec-Fetch-Site` must say `same-origin`; with neither,
/// nothing shows where it came from, and it is refused.
fn cross_origin(flows: &UrlFlows, headers: &HeaderMap) -> Option<&'static str> {
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap_or("?"));
    if let Some(site) = header("sec-fetch-site")
        && site != "same-origin"
    {
        return Some("Sec-Fetch-Site is not same-origin");
    }
    match header("origin") {
        Some("null") => Some("Origin is null"),
        Some(origin) => {
            let ours = flows
                .inner
                .base
                .strip_prefix(origin)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
            (!ours).then_some("Origin is another origin")
        }
        None if header("sec-fetch-site").is_some() => None,
        None => Some("neither Origin nor Sec-Fetch-Site was sent"),
    }
}

async fn submit(
    State(flows): State<UrlFlows>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Form(form): Form<Submitted>,
) -> Response {
    let flow = match usable(&flows, &id, &headers).await {
        Ok(flow) => flow,
        Err(refusal) => return refusal,
    };
    let refused = cross_origin(&flows, &headers).or_else(|| {
        (!token_matches(&flows, &flow, form.token.as_deref()))
            .then_some("the form token is missing or wrong")
    });
    if let Some(why) = refused {
        if let Some(count) = worth_saying(&REFUSED) {
            tracing::warn!(
                flow = %flow.id,
                "a flow form post was refused: {why} ({count} refusals of flow pages so far)"
            );
        }
        return page(
            StatusCode::FORBIDDEN,
            "Not sent from this page",
            "<p>This form must be sent from its own page. Nothing was saved. Open the link \
             again and send the form from there.</p>",
        );
    }
    let name = match FlowKind::of(&flow) {
        Some(FlowKind::ApiKey { name, .. }) => name,
        Some(FlowKind::Confirm { title, .. }) => {
            return confirmed(&flows, &flow, &title, form.decision.as_deref()).await;
        }
        _ => return form_page(&flows, &flow, None),
    };
    let secret = form.secret.unwrap_or_default();
    let secret = secret.trim();
    if secret.is_empty() {
        return form_page(&flows, &flow, Some("Enter the key to save it."));
    }
    let secret = Secret::new(secret);
    match flows.complete(&flow, Some((&name, &secret))).await {
        Ok(true) => page(
            StatusCode::OK,
            "Saved",
            &format!(
                "<p>{} has your key. You can close this tab and go back to your assistant.</p>",
                sentence_start(&escape(&flows.inner.server_name))
            ),
        ),
        Ok(false) => page(
            StatusCode::GONE,
            "This link can no longer be used",
            "<p>It expired or was already used while you were on this page.</p>",
        ),
        Err(e) => {
            tracing::warn!(flow = %flow.id, "cannot complete the flow: {e}");
            page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Not saved",
                "<p>The server could not save the key. Try again.</p>",
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_labels_and_names_is_escaped() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
    }
}
