//! Paths, queries and fragments that make a link seem to lead elsewhere.

/// A path that looks like it leads to another host: an empty segment (`//host`), a backslash,
/// or `@` before a dotted name (`/@bank.example`).
pub(super) fn path_deceives(path: &str) -> bool {
    ["//", "%2f%2f", "/%2f", "%2f/", "%5c"]
        .iter()
        .any(|needle| contains_ignore_case(path, needle))
        || at_before_name(path)
}

/// A query or fragment that embeds an address with a user-name part (`?next=https://a@b`), or a
/// scheme-relative one (`?next=//host`).
pub(super) fn query_deceives(query: &str) -> bool {
    ["=//", "=%2f%2f"]
        .iter()
        .any(|needle| contains_ignore_case(query, needle))
        || embedded_authority_with_at(query)
}

fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    hay.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// `@` (or `%40`) followed by a dotted name, up to the next separator.
fn at_before_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| {
        let after = if bytes.get(i) == Some(&b'@') {
            i + 1
        } else if bytes
            .get(i..i + 3)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"%40"))
        {
            i + 3
        } else {
            return false;
        };
        let name = bytes.get(after..).unwrap_or_default();
        let end = name
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#' | b'&' | b'%'))
            .unwrap_or(name.len());
        let name = name.get(..end).unwrap_or_default();
        name.contains(&b'.') && name.iter().any(u8::is_ascii_alphabetic)
    })
}

/// After each `://` (or `%3A%2F%2F`), an `@` (or `%40`) before the embedded authority ends.
fn embedded_authority_with_at(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| {
        let start = if bytes.get(i..i + 3) == Some(b"://") {
            i + 3
        } else if bytes
            .get(i..i + 9)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"%3a%2f%2f"))
        {
            i + 9
        } else {
            return false;
        };
        let rest = bytes.get(start..).unwrap_or_default();
        let mut j = 0;
        while let Some(&b) = rest.get(j) {
            match b {
                b'@' => return true,
                b'/' | b'?' | b'#' | b'&' => return false,
                b'%' => {
                    let code = rest.get(j + 1..j + 3).unwrap_or_default();
                    if code == b"40" {
                        return true;
                    }
                    if [b"2f", b"3f", b"23", b"26"]
                        .iter()
                        .any(|c| code.eq_ignore_ascii_case(*c))
                    {
                        return false;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        false
    })
}
