//! Checks for the four string formats the subset allows (`email`, `uri`, `date`, `date-time`).
//!
//! Deliberately small and strict: RFC 3339 dates are checked field by field (including the
//! number of days in the month), URIs must parse as absolute URLs, and e-mail addresses must have
//! a non-empty local part and a dotted domain with no whitespace. No I/O (no DNS look-ups).

use crate::model::StringFormat;

/// Returns a message when `s` does not match `format`.
pub(crate) fn check(format: StringFormat, s: &str) -> Option<&'static str> {
    let ok = match format {
        StringFormat::Email => is_email(s),
        StringFormat::Uri => url::Url::parse(s).is_ok(),
        StringFormat::Date => is_date(s),
        StringFormat::DateTime => is_date_time(s),
    };
    (!ok).then_some(match format {
        StringFormat::Email => "must be an e-mail address",
        StringFormat::Uri => "must be an absolute URI, such as https://example.com",
        StringFormat::Date => "must be a date in the form YYYY-MM-DD",
        StringFormat::DateTime => "must be a date and time such as 2026-07-28T09:30:00Z",
    })
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !s.chars().any(char::is_whitespace)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && !domain.contains('@')
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (
        s.get(0..4).and_then(digits),
        s.get(5..7).and_then(digits),
        s.get(8..10).and_then(digits),
    ) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn is_time(s: &str) -> bool {
    // HH:MM:SS[.frac](Z|±HH:MM)
    let (hms, rest) = match s.get(0..8) {
        Some(hms) => (hms, &s[8..]),
        None => return false,
    };
    let b = hms.as_bytes();
    if b.get(2) != Some(&b':') || b.get(5) != Some(&b':') {
        return false;
    }
    let (Some(h), Some(mi), Some(se)) = (
        hms.get(0..2).and_then(digits),
        hms.get(3..5).and_then(digits),
        hms.get(6..8).and_then(digits),
    ) else {
        return false;
    };
    if h > 23 || mi > 59 || se > 60 {
        return false;
    }
    let mut rest = rest;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    if rest.eq_ignore_ascii_case("z") {
        return true;
    }
    let Some(off) = rest.strip_prefix('+').or_else(|| rest.strip_prefix('-')) else {
        return false;
    };
    let ob = off.as_bytes();
    if ob.len() != 5 || ob.get(2) != Some(&b':') {
        return false;
    }
    matches!(
        (off.get(0..2).and_then(digits), off.get(3..5).and_then(digits)),
        (Some(oh), Some(om)) if oh <= 23 && om <= 59
    )
}

fn is_date_time(s: &str) -> bool {
    if s.len() < 11 || !s.is_char_boundary(10) || !s.is_char_boundary(11) {
        return false;
    }
    let (date, rest) = s.split_at(10);
    let Some(time) = rest.strip_prefix(['T', 't', ' ']) else {
        return false;
    };
    is_date(date) && is_time(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2023-02-29"));
        assert!(!is_date("2024-13-01"));
        assert!(!is_date("2024-1-01"));
        assert!(!is_date("２０２４-01-01"));
    }

    #[test]
    fn date_times() {
        assert!(is_date_time("2026-07-28T09:30:00Z"));
        assert!(is_date_time("2026-07-28T09:30:00.123+02:00"));
        assert!(!is_date_time("2026-07-28T25:30:00Z"));
        assert!(!is_date_time("2026-07-28T09:30:00"));
        assert!(!is_date_time("2026-07-28"));
        assert!(!is_date_time("2026-07-28é09:30:00Z"));
    }

    #[test]
    fn emails() {
        assert!(is_email("ada@example.com"));
        assert!(!is_email("ada@example"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("a da@example.com"));
        assert!(!is_email("ada@@example.com"));
    }
}
