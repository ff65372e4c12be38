//! The map the host keys by ids (its own, a server's JSON-RPC ids). Below every room of the
//! host, beside the clock and the lock.

/// A map keyed by ids: hashed with foldhash, seeded per map, instead of SipHash, which costs more
/// than the rest of a lookup for keys this small.
pub(crate) type IdMap<K, V> = std::collections::HashMap<K, V, foldhash::quality::RandomState>;
