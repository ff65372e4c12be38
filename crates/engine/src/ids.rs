//! The ids the engine works with. The driver chooses every one of them (the engine has no
//! counter of its own), unique within one host.

/// The host's id for one request for a person (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// The host's id for one tool call (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallId(pub u64);

/// The host's id for one server connection (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerId(pub u64);

/// The host's id for one MCP Apps view (unique within a host; chosen by the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ViewId(pub u64);

/// A map keyed by ids: hashed with foldhash (seeded per map) instead of SipHash, which costs more
/// than the rest of a lookup for keys this small.
pub(crate) type IdMap<K, V> = std::collections::HashMap<K, V, foldhash::quality::RandomState>;

macro_rules! display_id {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    )*};
}

display_id!(RequestId, CallId, ServerId, ViewId);
