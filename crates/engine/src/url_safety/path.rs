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

/// `@` (or `%40`) followed by a dotted name, up to the next separator (`/ ? # & %`).
///
/// One pass over `text`: it is cut into runs between separators, and in each run only the first
/// `@` is looked at, since the name after any later one is the end of that one's name.
fn at_before_name(text: &str) -> bool {
    let is_separator = |b: &u8| matches!(b, b'/' | b'?' | b'#' | b'&' | b'%');
    let dotted_name =
        |name: &[u8]| name.contains(&b'.') && name.iter().any(u8::is_ascii_alphabetic);
    let mut rest = text.as_bytes();
    let mut after_percent = false;
    loop {
        let end = rest.iter().position(is_separator).unwrap_or(rest.len());
        let Some((run, tail)) = rest.split_at_checked(end) else {
            return false;
        };
        if after_percent && run.strip_prefix(b"40").is_some_and(dotted_name) {
            return true;
        }
        if let Some(at) = run.iter().position(|&b| b == b'@')
            && dotted_name(run.get(at + 1..).unwrap_or_default())
        {
            return true;
        }
        match tail.split_first() {
            Some((&separator, next)) => {
                after_percent = separator == b'%';
                rest = next;
            }
            None => return false,
        }
    }
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
