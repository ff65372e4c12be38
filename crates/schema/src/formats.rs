//! Checks for the four string formats the subset allows (`email`, `uri`, `date`, `date-time`),
//! on maintained crates: `chrono`'s RFC 3339 parser for dates and date-times (every field checked,
//! including the days of the month and leap years), `email_address` for the address syntax of
//! RFC 5322, and `url` for absolute URIs.
//!
//! One rule is ours: an e-mail address a person types into a form must have a dotted domain
//! (`ada@localhost` is valid RFC 5322, but never what a form asking for an address means). No
//! I/O (no DNS look-ups). What a value must look like, in words, is
//! [`StringFormat::expectation`](crate::StringFormat::expectation).

use crate::model::StringFormat;

/// Whether `s` matches `format`.
pub(crate) fn matches(format: StringFormat, s: &str) -> bool {
    match format {
        StringFormat::Email => is_email(s),
        StringFormat::Uri => url::Url::parse(s).is_ok(),
        StringFormat::Date => is_date(s),
        StringFormat::DateTime => is_date_time(s),
    }
}

fn is_email(s: &str) -> bool {
    let Ok(address) = s.parse::<email_address::EmailAddress>() else {
        return false;
    };
    // A quoted local part or a domain literal (`ada@[127.0.0.1]`) is RFC 5322, but the domain
    // a form means is a dotted name.
    let domain = address.domain();
    domain.contains('.')
        && !domain.starts_with(['.', '['])
        && !domain.ends_with('.')
        && !domain.chars().any(char::is_whitespace)
}

/// RFC 3339 `full-date`: four-digit year, two-digit month and day, a day the month has.
fn is_date(s: &str) -> bool {
    // chrono's RFC 3339 parser reads exactly `YYYY-MM-DD` before the time; a midnight appended
    // to anything but a bare full-date cannot parse.
    s.len() == 10 && chrono::DateTime::parse_from_rfc3339(&format!("{s}T00:00:00Z")).is_ok()
}

/// RFC 3339 `date-time`, with an offset (`Z` or `±HH:MM`); `t` or a space may stand for `T`.
fn is_date_time(s: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(is_date("2024-02-29"));
        assert!(is_date("2000-02-29"), "a leap year by the 400-year rule");
        assert!(is_date("0001-01-01"));
        assert!(
            !is_date("1900-02-29"),
            "not a leap year by the 100-year rule"
        );
        assert!(!is_date("2023-02-29"));
        assert!(!is_date("2024-04-31"));
        assert!(!is_date("2024-13-01"));
        assert!(!is_date("2024-00-10"));
        assert!(!is_date("2024-01-00"));
        assert!(!is_date("2024-1-01"));
        assert!(!is_date("24-01-01"));
        assert!(!is_date("+2024-01-01"));
        assert!(!is_date("2024-01-01 "));
        assert!(!is_date("2024-01-01T00:00:00Z"));
        assert!(!is_date("2024/01/01"));
        assert!(!is_date("２０２４-01-01"));
        assert!(!is_date(""));
    }

    #[test]
    fn date_times() {
        assert!(is_date_time("2026-07-28T09:30:00Z"));
        assert!(is_date_time("2026-07-28T09:30:00.123+02:00"));
        assert!(
            is_date_time("2026-07-28t09:30:00z"),
            "RFC 3339 allows lower case"
        );
        assert!(
            is_date_time("2026-07-28 09:30:00Z"),
            "RFC 3339 allows a space"
        );
        assert!(is_date_time("2026-07-28T09:30:00-23:59"));
        assert!(is_date_time("2016-12-31T23:59:60Z"), "a leap second");
        assert!(!is_date_time("2026-07-28T25:30:00Z"));
        assert!(!is_date_time("2026-07-28T09:60:00Z"));
        assert!(!is_date_time("2026-07-28T09:30:00"), "no offset");
        assert!(!is_date_time("2026-07-28T09:30:00+0200"));
        assert!(!is_date_time("2026-07-28T09:30:00+24:00"));
        assert!(!is_date_time("2026-07-28T09:30:00.Z"));
        assert!(!is_date_time("2026-07-28T09:30Z"));
        assert!(!is_date_time("2026-07-28T09:30:00Z junk"));
        assert!(!is_date_time("2026-02-30T09:30:00Z"));
        assert!(!is_date_time("2026-07-28"));
        assert!(!is_date_time("2026-07-28é09:30:00Z"));
    }

    #[test]
    fn emails() {
        assert!(is_email("ada@example.com"));
        assert!(is_email("ada.lovelace+forms@mail.example.co.uk"));
        assert!(
            is_email("\"ada lovelace\"@example.com"),
            "a quoted local part"
        );
        assert!(
            !is_email("ada@example"),
            "the domain a form means is dotted"
        );
        assert!(!is_email("ada@localhost"));
        assert!(!is_email("ada@[127.0.0.1]"), "a domain literal");
        assert!(!is_email("ada@example.com."));
        assert!(!is_email("ada@.example.com"));
        assert!(!is_email("ada@example..com"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("ada@"));
        assert!(!is_email("a da@example.com"));
        assert!(!is_email("ada@@example.com"));
        assert!(
            !is_email("ada.@example.com"),
            "a dot may not end the local part"
        );
        assert!(!is_email(""));
    }
}
