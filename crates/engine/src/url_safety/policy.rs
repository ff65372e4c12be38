//! What the host permits beyond the strict default: the development settings for loopback
//! links ([`UrlPolicy`], [`DevOrigin`]).

use std::fmt;

use url::Url;

use super::host::is_loopback_host;

/// What the host permits beyond the strict default (https to public names only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// A development setting: links to loopback hosts (127.0.0.0/8, `::1`, `localhost`) are
    /// allowed, over plain `http` or `https`, with an informational reason.
    pub allow_loopback_http: bool,
    /// Loopback origins allowed exactly (scheme, host and port), such as the demo's own pages on
    /// `http://127.0.0.1:<port>`, with an informational reason.
    pub dev_origins: Vec<DevOrigin>,
}

/// A loopback origin the host serves itself during development: scheme (`http` or `https`),
/// host and port. Only loopback hosts can be one, so listing an origin never opens the private
/// network.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DevOrigin {
    scheme: String,
    host: String,
    port: u16,
}

/// Why a string is not a development origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DevOriginError {
    /// It does not parse as a URL.
    #[error("not a valid origin: {0}")]
    Invalid(String),
    /// Its scheme is neither `http` nor `https`.
    #[error("a development origin uses http or https, not {0}")]
    Scheme(String),
    /// Its host is not on this machine.
    #[error("a development origin is on this machine (127.0.0.1, [::1] or localhost), not {0}")]
    NotLoopback(String),
    /// It has more than scheme, host and port.
    #[error("a development origin is a scheme, a host and a port, nothing more: {0}")]
    NotAnOrigin(String),
}

impl DevOrigin {
    /// Parses `http://127.0.0.1:4000` and the like; the host must be loopback.
    ///
    /// ```
    /// use interlude_engine::url_safety::DevOrigin;
    ///
    /// assert!(DevOrigin::parse("http://127.0.0.1:4000").is_ok());
    /// assert!(DevOrigin::parse("http://10.0.0.5:4000").is_err());
    /// ```
    pub fn parse(origin: &str) -> Result<DevOrigin, DevOriginError> {
        let url = Url::parse(origin).map_err(|e| DevOriginError::Invalid(e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(DevOriginError::Scheme(url.scheme().to_owned()));
        }
        if !url.username().is_empty()
            || url.password().is_some()
            || url.path() != "/"
            || url.query().is_some()
            || url.fragment().is_some()
        {
            return Err(DevOriginError::NotAnOrigin(origin.to_owned()));
        }
        let (Some(host), Some(port)) = (url.host(), url.port_or_known_default()) else {
            return Err(DevOriginError::NotAnOrigin(origin.to_owned()));
        };
        if !is_loopback_host(&host) {
            return Err(DevOriginError::NotLoopback(host.to_string()));
        }
        Ok(DevOrigin {
            scheme: url.scheme().to_owned(),
            host: host.to_string(),
            port,
        })
    }

    /// `http://127.0.0.1:<port>`, the origin the demo serves its pages on.
    pub fn loopback_http(port: u16) -> DevOrigin {
        DevOrigin {
            scheme: "http".to_owned(),
            host: "127.0.0.1".to_owned(),
            port,
        }
    }

    /// `http` or `https`.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The host as the `url` crate serializes it (`127.0.0.1`, `[::1]`, `localhost`).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port (the scheme's default when the origin named none).
    pub fn port(&self) -> u16 {
        self.port
    }

    pub(super) fn matches(&self, url: &Url) -> bool {
        url.scheme() == self.scheme
            && url.host_str() == Some(self.host.as_str())
            && url.port_or_known_default() == Some(self.port)
    }
}

impl fmt::Display for DevOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}
