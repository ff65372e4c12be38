//! The seal on a 2026-07-28 `requestState`: what keeps a client from reading anything into the
//! state but what the server put there, and from using it after its time.
//!
//! A sealed state is `is1.<body>.<tag>`, both parts base64url without padding: the body is the
//! moment it expires (milliseconds since the Unix epoch, 8 bytes big-endian) followed by the
//! payload; the tag is HMAC-SHA256 of the body under a key derived from the server's secret for
//! this use alone (`HMAC(secret, "interlude/ask/state/v4")`), so the secret may seal other
//! things without a state ever passing for one of them. The tag is checked in constant time
//! before anything in the body is read.
//!
//! Why not rmcp's `RequestStateCodec`: it derives nothing, so every seal and every opening
//! hashes the key's two padded blocks again and puts a domain label, a length and the
//! associated data in front of the body — four SHA-256 blocks for the smallest state, where
//! this takes two (ring keeps the key's hashed pads, and a state of one question fits one
//! block). States sealed by Interlude 0.1 through rmcp's codec still open (`legacy`).

use std::time::Duration;

use ring::hmac;
use rmcp::model::{RequestStateCodec, RequestStateError};

use crate::url::store::{base64url, unbase64url};

/// The format's name, first in every state.
const VERSION: &str = "is1";

/// What the sealing key is derived for.
const PURPOSE: &[u8] = b"interlude/ask/state/v4";

/// Bytes of the expiry in front of the payload.
const EXPIRY_LEN: usize = 8;

/// Bytes of the tag (HMAC-SHA256, whole).
const TAG_LEN: usize = 32;

/// Seals and opens the states of one server.
#[derive(Debug)]
pub(crate) struct StateSeal {
    key: hmac::Key,
    /// rmcp's codec over the same secret: opens states of the previous format.
    legacy: RequestStateCodec,
}

/// Why a state does not open. Worded for the client: none says more than that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unsealed {
    #[error("not a state of this server (expected `is1.<body>.<tag>`)")]
    Malformed,
    #[error("not a state this server sealed, or altered since")]
    Forged,
    #[error("the state has expired; call the tool again")]
    Expired,
}

impl StateSeal {
    /// Seals with `secret` (at least 32 bytes, as rmcp's codec asks; shorter is refused).
    pub(crate) fn new(secret: Vec<u8>) -> Result<Self, RequestStateError> {
        let key = derive(&secret);
        Ok(StateSeal {
            key,
            legacy: RequestStateCodec::try_new(secret)?,
        })
    }

    /// Seals with a fresh random secret of 32 bytes.
    pub(crate) fn random() -> Self {
        let mut secret = vec![0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rng(), &mut secret);
        StateSeal {
            key: derive(&secret),
            legacy: RequestStateCodec::new_unchecked(secret),
        }
    }

    /// The codec states of the previous format open with.
    pub(crate) fn legacy(&self) -> &RequestStateCodec {
        &self.legacy
    }

    /// `payload` sealed at `now_ms`, good for `ttl`.
    pub(crate) fn seal(&self, payload: &[u8], ttl: Duration, now_ms: u64) -> String {
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let mut body = Vec::with_capacity(EXPIRY_LEN + payload.len());
        body.extend_from_slice(&now_ms.saturating_add(ttl_ms).to_be_bytes());
        body.extend_from_slice(payload);
        let tag = hmac::sign(&self.key, &body);
        let mut sealed =
            String::with_capacity(VERSION.len() + 2 + (body.len() + TAG_LEN) * 4 / 3 + 4);
        sealed.push_str(VERSION);
        sealed.push('.');
        sealed.push_str(&base64url(&body));
        sealed.push('.');
        sealed.push_str(&base64url(tag.as_ref()));
        sealed
    }

    /// The payload of `sealed`, if this server sealed it and it has not expired at `now_ms`.
    pub(crate) fn open(&self, sealed: &str, now_ms: u64) -> Result<Vec<u8>, Unsealed> {
        let mut parts = sealed.split('.');
        let (Some(VERSION), Some(body), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Unsealed::Malformed);
        };
        let body = unbase64url(body).ok_or(Unsealed::Malformed)?;
        let tag = unbase64url(tag).ok_or(Unsealed::Malformed)?;
        let (Some((expiry, _)), TAG_LEN) = (body.split_first_chunk::<EXPIRY_LEN>(), tag.len())
        else {
            return Err(Unsealed::Malformed);
        };
        let expiry = u64::from_be_bytes(*expiry);
        hmac::verify(&self.key, &body, &tag).map_err(|_| Unsealed::Forged)?;
        if now_ms > expiry {
            return Err(Unsealed::Expired);
        }
        let mut payload = body;
        payload.drain(..EXPIRY_LEN);
        Ok(payload)
    }
}

/// The sealing key `secret` gives: `HMAC(secret, PURPOSE)`.
fn derive(secret: &[u8]) -> hmac::Key {
    let derived = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, secret), PURPOSE);
    hmac::Key::new(hmac::HMAC_SHA256, derived.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    fn seal() -> StateSeal {
        StateSeal::new((0u8..32).collect()).unwrap()
    }

    #[test]
    fn a_sealed_payload_opens_until_it_expires() {
        let s = seal();
        let sealed = s.seal(b"{\"p\":[\"q0\"]}", HOUR, 1_000);
        assert!(sealed.starts_with("is1."));
        assert_eq!(s.open(&sealed, 1_000).unwrap(), b"{\"p\":[\"q0\"]}");
        assert_eq!(s.open(&sealed, 1_000 + 3_600_000).unwrap().len(), 12);
        assert_eq!(s.open(&sealed, 1_001 + 3_600_000), Err(Unsealed::Expired));
        // A time limit past the end of time saturates instead of wrapping around.
        let forever = s.seal(b"", Duration::MAX, u64::MAX - 1);
        assert_eq!(s.open(&forever, u64::MAX).unwrap(), b"");
    }

    #[test]
    fn anything_altered_or_foreign_is_refused() {
        let s = seal();
        let sealed = s.seal(b"payload", HOUR, 0);
        let (head, tag) = sealed.rsplit_once('.').unwrap();
        // Another key's seal, a changed body, a changed tag; then text of the wrong shape.
        let other = StateSeal::new(vec![9; 32])
            .unwrap()
            .seal(b"payload", HOUR, 0);
        assert_eq!(s.open(&other, 0), Err(Unsealed::Forged));
        let body = head.strip_prefix("is1.").unwrap();
        let mut bytes = unbase64url(body).unwrap();
        bytes[9] ^= 1;
        let changed = format!("is1.{}.{tag}", base64url(&bytes));
        assert_eq!(s.open(&changed, 0), Err(Unsealed::Forged));
        let mut t = unbase64url(tag).unwrap();
        t[0] ^= 0x80;
        assert_eq!(
            s.open(&format!("{head}.{}", base64url(&t)), 0),
            Err(Unsealed::Forged)
        );
        for malformed in [
            "",
            "is1",
            "is1..",
            "is2.AAAA.AAAA",
            &format!("{sealed}.x"),
            &format!("{head}.{tag}="),
            "is1.!!.AAAA",
            &format!("{head}.{}", base64url(b"short tag")),
            &format!("is1.{tag}.{body}"),
        ] {
            assert_eq!(
                s.open(malformed, 0),
                Err(Unsealed::Malformed),
                "{malformed:?}"
            );
        }
        // A body too short to hold an expiry, sealed genuinely, is still refused.
        let short = format!(
            "is1.{}.{}",
            base64url(b"abc"),
            base64url(hmac::sign(&s.key, b"abc").as_ref())
        );
        assert_eq!(s.open(&short, 0), Err(Unsealed::Malformed));
    }

    #[test]
    fn a_short_secret_is_refused() {
        assert!(StateSeal::new(vec![1; 31]).is_err());
        assert!(StateSeal::new(vec![1; 32]).is_ok());
    }
}
