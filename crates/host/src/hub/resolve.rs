//! Looking up a link's host name, which the engine asks for only after the person consented to
//! open it ([`UrlEffect::Resolve`](interlude_engine::UrlEffect::Resolve)): a name that points into a
//! private network refuses the link even though it looked public.
//!
//! What it does not do: judge the addresses (the engine's URL rules do) or open anything.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// How long a lookup may take before the link counts as not resolving.
pub(crate) const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

type Lookup = Pin<Box<dyn Future<Output = Vec<IpAddr>> + Send>>;

/// How the host looks up host names: the system's resolver, or a fixed table (tests, and hosts
/// that must not use the system's DNS).
///
/// ```
/// use interlude_host::Resolver;
/// let fixed = Resolver::fixed([("accounts.example.com", vec!["93.184.215.14".parse().unwrap()])]);
/// # let _ = fixed;
/// let _system = Resolver::system();
/// ```
#[derive(Clone)]
pub struct Resolver(Arc<dyn Fn(String) -> Lookup + Send + Sync>);

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Resolver")
    }
}

impl Default for Resolver {
    fn default() -> Self {
        Resolver::system()
    }
}

impl Resolver {
    /// The system's resolver (`getaddrinfo` on tokio's blocking pool).
    pub fn system() -> Resolver {
        Resolver(Arc::new(|host: String| {
            Box::pin(async move {
                // The port is irrelevant to the lookup; getaddrinfo wants one.
                match tokio::net::lookup_host((host.as_str(), 443)).await {
                    Ok(addrs) => addrs.map(|a| a.ip()).collect(),
                    Err(e) => {
                        tracing::info!(%host, "the link's host name does not resolve: {e}");
                        Vec::new()
                    }
                }
            })
        }))
    }

    /// A fixed table: names not in it do not resolve.
    pub fn fixed<N: Into<String>>(table: impl IntoIterator<Item = (N, Vec<IpAddr>)>) -> Resolver {
        let table: BTreeMap<String, Vec<IpAddr>> = table
            .into_iter()
            .map(|(name, addrs)| (name.into().to_ascii_lowercase(), addrs))
            .collect();
        let table = Arc::new(table);
        Resolver(Arc::new(move |host: String| {
            let found = table
                .get(host.trim_end_matches('.').to_ascii_lowercase().as_str())
                .cloned()
                .unwrap_or_default();
            Box::pin(async move { found })
        }))
    }

    /// Looks `host` up, giving up after [`LOOKUP_TIMEOUT`] (no addresses).
    pub(crate) async fn lookup(&self, host: String) -> Vec<IpAddr> {
        tokio::time::timeout(LOOKUP_TIMEOUT, (self.0)(host))
            .await
            .unwrap_or_default()
    }
}
