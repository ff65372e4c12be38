//! Per-server rate limiting of elicitations (2025-11-25 client checklist: "SHOULD implement rate
//! limiting"): a token bucket with time passed in, so it is deterministic under test.

/// A token bucket: `burst` requests at once, refilled at `per_minute`.
#[derive(Debug, Clone)]
pub(crate) struct Bucket {
    tokens: f64,
    last_ms: u64,
}

impl Bucket {
    pub(crate) fn new(burst: u32, now_ms: u64) -> Self {
        Bucket {
            tokens: f64::from(burst),
            last_ms: now_ms,
        }
    }

    /// Takes one token if available.
    pub(crate) fn take(&mut self, burst: u32, per_minute: u32, now_ms: u64) -> bool {
        let elapsed = now_ms.saturating_sub(self.last_ms);
        self.last_ms = now_ms;
        // Millisecond counts fit f64 exactly for centuries.
        #[allow(clippy::cast_precision_loss)]
        let refill = elapsed as f64 * f64::from(per_minute) / 60_000.0;
        self.tokens = (self.tokens + refill).min(f64::from(burst));
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refill() {
        let mut b = Bucket::new(2, 0);
        assert!(b.take(2, 60, 0));
        assert!(b.take(2, 60, 0));
        assert!(!b.take(2, 60, 10));
        assert!(b.take(2, 60, 1_010));
        assert!(!b.take(2, 60, 1_020));
    }
}
