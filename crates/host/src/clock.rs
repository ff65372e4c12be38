//! The wall clock the record and the logs are stamped with, in milliseconds since the Unix
//! epoch. Below every room of the host, so that the logs and the record each read it without
//! reaching into the other.

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
