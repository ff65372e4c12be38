//! A minimal HTTP/1.1 exchange for synchronous tests that play a person's browser on a page
//! served on 127.0.0.1 (sign in, post a form): no client library, no TLS, one request per
//! connection.

use std::io::{Read, Write};
use std::net::TcpStream;

/// What came back: the status, the raw head (status line and headers) and the body.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The status code (0 when the response could not be read).
    pub status: u16,
    /// The status line and headers, as sent.
    pub head: String,
    /// The body, as text.
    pub body: String,
}

impl Exchange {
    /// The value of the first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// The `name=value` of the first cookie the response sets, for a `cookie` header.
    pub fn cookie(&self) -> Option<&str> {
        self.header("set-cookie")?.split(';').next()
    }
}

/// Sends one request to an `http://` URL and reads the whole response.
///
/// ```no_run
/// let r = interlude_test_support::http1::exchange("GET", "http://127.0.0.1:8080/", &[], "").unwrap();
/// assert_eq!(r.status, 200);
/// ```
pub fn exchange(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> std::io::Result<Exchange> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| std::io::Error::other(format!("not an http URL: {url}")))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(authority)?;
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes())?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok(Exchange {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    })
}

/// The form token a flow page embeds (its hidden `token` field), which its form post must send
/// back.
///
/// ```
/// let page = r#"<form method="post"><input type="hidden" name="token" value="abc-_1"></form>"#;
/// assert_eq!(interlude_test_support::http1::form_token(page).as_deref(), Some("abc-_1"));
/// ```
pub fn form_token(page: &str) -> Option<String> {
    let (_, rest) = page.split_once("name=\"token\" value=\"")?;
    let (token, _) = rest.split_once('"')?;
    Some(token.to_owned())
}

/// The demo's URL flow, done by "the person": sign in at `<origin>/sign-in`, open the flow page
/// `link`, then post `key` with the page's form token. Returns the page's answer.
pub fn complete_demo_flow(origin: &str, link: &str, key: &str) -> std::io::Result<Exchange> {
    let signed_in = exchange("GET", &format!("{origin}/sign-in"), &[], "")?;
    let cookie = signed_in
        .cookie()
        .ok_or_else(|| std::io::Error::other("the sign-in set no cookie"))?
        .to_owned();
    let page = exchange("GET", link, &[("cookie", cookie.as_str())], "")?;
    let token = form_token(&page.body).unwrap_or_default();
    exchange(
        "POST",
        link,
        &[
            ("cookie", cookie.as_str()),
            ("origin", origin),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        &format!("secret={key}&token={token}"),
    )
}
