//! Who a flow is for, and who is opening its page.
//!
//! A URL flow is bound to the user the server trusts for the MCP request that started it (from
//! MCP authorization's `sub` when the server has it, or the one local user of a stdio server),
//! and its page completes it only for that same user, identified the way the server's own web
//! pages identify people (a session cookie). A link alone proves nothing — anyone can forward
//! one — which is the phishing scenario of the spec: a second person opening the link is
//! refused.
//!
//! What it does not do: authenticate anyone. The server's own login does; [`SignedCookie`] only
//! carries its answer to the flow pages, tamper-proof.

use std::sync::Arc;

use hmac::{KeyInit, Mac};
use http::HeaderMap;
use rmcp::service::{RequestContext, RoleServer};

use crate::url::store::{UserId, base64url};

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// How a server knows who a flow is for and who opens its page.
///
/// ```
/// use interlude_server::url::{Identity, LocalUser, SignedCookie, UserId};
/// let cookies = SignedCookie::new("interlude_user", [9u8; 32]).unwrap();
/// let identity = LocalUser::new(UserId::new("ada"), cookies.clone());
/// let mut headers = http::HeaderMap::new();
/// headers.insert(http::header::COOKIE, cookies.header_value(&UserId::new("ada")).parse().unwrap());
/// assert_eq!(identity.page_user(&headers), Some(UserId::new("ada")));
/// ```
pub trait Identity: Send + Sync + 'static {
    /// The user an MCP request acts for, or `None` when the server cannot tell (then no flow
    /// is started).
    fn mcp_user(&self, context: &RequestContext<RoleServer>) -> Option<UserId>;

    /// The user opening a flow page, from the request's headers, or `None` (not signed in).
    fn page_user(&self, headers: &HeaderMap) -> Option<UserId>;
}

/// A cookie naming a user, signed with the server's key (HMAC-SHA256): `name=<user>.<mac>`,
/// the user base64url-encoded. The server's login sets it ([`SignedCookie::set_cookie`]); flow
/// pages read it.
#[derive(Clone)]
pub struct SignedCookie {
    name: Arc<str>,
    key: Arc<[u8]>,
}

impl std::fmt::Debug for SignedCookie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignedCookie")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A key too short to sign with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a signing key needs at least 32 bytes, this one has {0}")]
pub struct ShortKey(pub usize);

impl SignedCookie {
    /// A cookie called `name`, signed with `key` (at least 32 bytes).
    pub fn new(name: &str, key: impl AsRef<[u8]>) -> Result<Self, ShortKey> {
        let key = key.as_ref();
        if key.len() < 32 {
            return Err(ShortKey(key.len()));
        }
        Ok(SignedCookie {
            name: name.into(),
            key: key.into(),
        })
    }

    /// A cookie called `name` with a fresh random key (sign-ins do not survive a restart).
    pub fn random(name: &str) -> Self {
        use rand::RngCore;
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        SignedCookie {
            name: name.into(),
            key: key.to_vec().into(),
        }
    }

    fn mac(&self, user: &str) -> Option<HmacSha256> {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&self.key).ok()?;
        mac.update(b"interlude/user-cookie/v1\0");
        mac.update(user.as_bytes());
        Some(mac)
    }

    fn value(&self, user: &UserId) -> String {
        let tag = self
            .mac(user.as_str())
            .map(|m| hex(&m.finalize().into_bytes()))
            .unwrap_or_default();
        format!("{}.{tag}", base64url(user.as_str().as_bytes()))
    }

    /// `name=value`, for a `Cookie` request header (tests, tools).
    pub fn header_value(&self, user: &UserId) -> String {
        format!("{}={}", self.name, self.value(user))
    }

    /// A `Set-Cookie` value signing `user` in: HttpOnly, SameSite=Lax, path `/`.
    pub fn set_cookie(&self, user: &UserId) -> String {
        format!(
            "{}={}; Path=/; HttpOnly; SameSite=Lax",
            self.name,
            self.value(user)
        )
    }

    /// The user the request's cookie names, when its signature holds.
    pub fn user(&self, headers: &HeaderMap) -> Option<UserId> {
        for header in headers.get_all(http::header::COOKIE) {
            let Ok(text) = header.to_str() else { continue };
            for pair in text.split(';') {
                let Some((name, value)) = pair.trim().split_once('=') else {
                    continue;
                };
                if name != &*self.name {
                    continue;
                }
                let (user, tag) = value.split_once('.')?;
                let user = String::from_utf8(unb64(user)?).ok()?;
                let tag = unhex(tag)?;
                self.mac(&user)?.verify_slice(&tag).ok()?;
                return Some(UserId::new(user));
            }
        }
        None
    }
}

/// A server with one user: every MCP request acts for `user` (a stdio server runs for the person
/// who started it), and pages know who opens them by a [`SignedCookie`].
#[derive(Debug, Clone)]
pub struct LocalUser {
    user: UserId,
    cookie: SignedCookie,
}

impl LocalUser {
    /// Every MCP request acts for `user`; pages read `cookie`.
    pub fn new(user: UserId, cookie: SignedCookie) -> Self {
        LocalUser { user, cookie }
    }

    /// The one user.
    pub fn user(&self) -> &UserId {
        &self.user
    }

    /// The page cookie.
    pub fn cookie(&self) -> &SignedCookie {
        &self.cookie
    }
}

impl Identity for LocalUser {
    fn mcp_user(&self, _context: &RequestContext<RoleServer>) -> Option<UserId> {
        Some(self.user.clone())
    }

    fn page_user(&self, headers: &HeaderMap) -> Option<UserId> {
        self.cookie.user(headers)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn unb64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let digits: Option<Vec<u32>> = text
        .bytes()
        .map(|c| B64.iter().position(|d| *d == c).map(|p| p as u32))
        .collect();
    for chunk in digits?.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (d << (18 - 6 * i)));
        for i in 0..chunk.len() - 1 {
            out.push(((n >> (16 - 8 * i)) & 0xff) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(cookie: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(http::header::COOKIE, cookie.parse().unwrap());
        h
    }

    #[test]
    fn a_signed_cookie_names_its_user_and_a_forged_one_nobody() {
        let c = SignedCookie::new("u", [1u8; 32]).unwrap();
        for name in ["ada", "a", "ab", "mallory@example.com", "Zoë"] {
            let user = UserId::new(name);
            let h = headers(&format!("other=1; {}", c.header_value(&user)));
            assert_eq!(c.user(&h), Some(user));
        }
        let ada = c.header_value(&UserId::new("ada"));
        let (_, tag) = ada.split_once('.').unwrap();
        // Another user's name with Ada's signature, another key, garbage.
        let forged = format!("u={}.{tag}", base64url(b"mallory"));
        assert_eq!(c.user(&headers(&forged)), None);
        let other = SignedCookie::new("u", [2u8; 32]).unwrap();
        assert_eq!(other.user(&headers(&ada)), None);
        assert_eq!(c.user(&headers("u=%%%.zz")), None);
        assert_eq!(c.user(&headers("u=")), None);
        assert!(SignedCookie::new("u", [0u8; 31]).is_err());
    }
}
