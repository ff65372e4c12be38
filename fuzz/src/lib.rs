//! What the fuzz targets share: JSON values drawn from libFuzzer's bytes with the `arbitrary`
//! crate, shaped like what each parser expects (schemas of the elicitation subset, JSON-RPC
//! messages, answers) so that most inputs get past the first `match` on a key.
//!
//! Structure-aware on purpose: flipping bytes of a JSON text mostly yields invalid JSON, which
//! `serde_json` refuses long before any code of ours runs. Every generator here also has a way
//! out to a fully arbitrary value ([`Json`]), so nothing is excluded, only made less likely.

pub mod server;

use arbitrary::{Arbitrary, Result, Unstructured};
use serde_json::{Map, Number, Value};

/// Words the parsers look for: keys and values of schemas, of the seed-000 draft, of MCP Apps
/// messages and of JSON-RPC. A string drawn by [`word`] is one of them most of the time.
pub const WORDS: &[&str] = &[
    // The elicitation schema subset.
    "type",
    "object",
    "properties",
    "required",
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "null",
    "title",
    "description",
    "default",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "allOf",
    "const",
    "items",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "uniqueItems",
    "format",
    "email",
    "uri",
    "date",
    "date-time",
    "pattern",
    "$schema",
    "$ref",
    "$defs",
    "nullable",
    "readOnly",
    "writeOnly",
    // Elicitation and the seed-000 draft.
    "mode",
    "form",
    "url",
    "message",
    "requestedSchema",
    "elicitationId",
    "action",
    "accept",
    "decline",
    "cancel",
    "content",
    "interaction",
    "prompt",
    "ua",
    "schema",
    "id",
    "text",
    "_meta",
    "ui",
    "resourceUri",
    // JSON-RPC and MCP.
    "jsonrpc",
    "2.0",
    "method",
    "params",
    "result",
    "error",
    "code",
    "data",
    "name",
    "arguments",
    "inputResponses",
    "requestState",
    "progressToken",
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "version",
    "elicitation",
    "tools/call",
    "tools/list",
    "ping",
    "initialize",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "requestId",
    "reason",
    // MCP Apps.
    "ui/initialize",
    "ui/notifications/initialized",
    "ui/open-link",
    "ui/message",
    "ui/download-file",
    "ui/request-display-mode",
    "ui/update-model-context",
    "ui/notifications/size-changed",
    "ui/resource-teardown",
    "ui/notifications/sandbox-proxy-ready",
    "mcp-ui/size-change",
    "appInfo",
    "appCapabilities",
    "displayMode",
    "inline",
    "fullscreen",
    "pip",
    "height",
    "width",
    "resources/read",
    "uri",
    // Values that sit on edges.
    "",
    " ",
    "a",
    "\u{0}",
    "\u{202e}",
    "é",
    "https://example.com/",
    "http://127.0.0.1:8080/",
    "https://xn--80ak6aa92e.com/",
    "javascript:alert(1)",
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "1970-01-01",
    "2024-02-30T25:61:61Z",
    "a@b.c",
];

/// A string: a known word most of the time, else arbitrary text (short).
pub fn word(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(3u8, 4u8)? {
        Ok((*u.choose(WORDS)?).to_owned())
    } else {
        let len = u.int_in_range(0..=24usize)?;
        let mut s = String::new();
        for _ in 0..len {
            s.push(char::arbitrary(u)?);
        }
        Ok(s)
    }
}

/// A number: small, on an edge, or any float JSON can carry.
pub fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => Value::from(u.int_in_range(-3i64..=20)?),
        1 => Value::from(i64::arbitrary(u)?),
        2 => Value::from(u64::arbitrary(u)?),
        3 => Number::from_f64(f64::arbitrary(u)?).map_or(Value::Null, Value::Number),
        4 => Value::from(*u.choose(&[
            i64::MIN,
            i64::MAX,
            -1,
            0,
            1,
            9_007_199_254_740_993,
            1_000_000_000,
        ])?),
        _ => Number::from_f64(*u.choose(&[
            0.5,
            -0.0,
            1e308,
            -1e308,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            1.999_999_999_999_999_9,
        ])?)
        .map_or(Value::Null, Value::Number),
    })
}

/// A JSON value of at most `depth` levels, keys and strings mostly from [`WORDS`].
pub fn value(u: &mut Unstructured<'_>, depth: u8) -> Result<Value> {
    let top = if depth == 0 { 3u8 } else { 5 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => number(u)?,
        3 => Value::String(word(u)?),
        4 => {
            let len = u.int_in_range(0..=6usize)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(value(u, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => Value::Object(object(u, depth - 1)?),
    })
}

/// A JSON object of at most `depth` further levels.
pub fn object(u: &mut Unstructured<'_>, depth: u8) -> Result<Map<String, Value>> {
    let len = u.int_in_range(0..=6usize)?;
    let mut map = Map::new();
    for _ in 0..len {
        let key = word(u)?;
        let v = value(u, depth)?;
        map.insert(key, v);
    }
    Ok(map)
}

/// Any JSON value (at most 5 levels deep), from the bytes.
#[derive(Debug, Clone)]
pub struct Json(pub Value);

impl<'a> Arbitrary<'a> for Json {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        value(u, 5).map(Json)
    }
}

/// The names form properties get: few, so that `required`, defaults and answers meet them.
pub const FIELD_NAMES: &[&str] = &["name", "age", "email", "color", "tags", "ok", "when", ""];

/// A property of a form schema: one of the subset's shapes with arbitrary constraints, or any
/// value at all.
fn property(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut p = Map::new();
    let kind = u.int_in_range(0..=8u8)?;
    let put = |p: &mut Map<String, Value>, u: &mut Unstructured<'_>, key: &str| -> Result<()> {
        if u.ratio(1u8, 3u8)? {
            let v = if u.ratio(3u8, 4u8)? {
                number(u)?
            } else {
                value(u, 1)?
            };
            p.insert(key.to_owned(), v);
        }
        Ok(())
    };
    match kind {
        0 => {
            p.insert("type".into(), "string".into());
            put(&mut p, u, "minLength")?;
            put(&mut p, u, "maxLength")?;
            if u.ratio(1u8, 3u8)? {
                let f = *u.choose(&["email", "uri", "date", "date-time", "hostname", ""])?;
                p.insert("format".into(), f.into());
            }
        }
        1 | 2 => {
            p.insert(
                "type".into(),
                if kind == 1 { "number" } else { "integer" }.into(),
            );
            put(&mut p, u, "minimum")?;
            put(&mut p, u, "maximum")?;
        }
        3 => {
            p.insert("type".into(), "boolean".into());
        }
        4 => {
            p.insert("type".into(), "string".into());
            let choices = choices(u)?;
            p.insert("enum".into(), Value::Array(choices.clone()));
            if u.ratio(1u8, 3u8)? {
                let names = choices.iter().map(|_| word(u).map(Value::String));
                p.insert(
                    "enumNames".into(),
                    Value::Array(names.collect::<Result<_>>()?),
                );
            }
        }
        5 => {
            p.insert("type".into(), "string".into());
            let key = *u.choose(&["oneOf", "anyOf"])?;
            p.insert(key.into(), Value::Array(titled(u)?));
        }
        6 => {
            p.insert("type".into(), "array".into());
            let mut items = Map::new();
            if u.ratio(1u8, 2u8)? {
                items.insert("type".into(), "string".into());
                items.insert("enum".into(), Value::Array(choices(u)?));
            } else {
                let key = *u.choose(&["anyOf", "oneOf"])?;
                items.insert(key.into(), Value::Array(titled(u)?));
            }
            p.insert("items".into(), Value::Object(items));
            put(&mut p, u, "minItems")?;
            put(&mut p, u, "maxItems")?;
        }
        7 => return value(u, 3),
        _ => {
            p = object(u, 2)?;
        }
    }
    if u.ratio(1u8, 3u8)? {
        p.insert("default".into(), value(u, 2)?);
    }
    if u.ratio(1u8, 4u8)? {
        p.insert("title".into(), Value::String(word(u)?));
    }
    if u.ratio(1u8, 4u8)? {
        p.insert("description".into(), Value::String(word(u)?));
    }
    if u.ratio(1u8, 8u8)? {
        let key = word(u)?;
        p.insert(key, value(u, 2)?);
    }
    Ok(Value::Object(p))
}

fn choices(u: &mut Unstructured<'_>) -> Result<Vec<Value>> {
    let len = u.int_in_range(0..=5usize)?;
    (0..len)
        .map(|_| {
            if u.ratio(7u8, 8u8)? {
                word(u).map(Value::String)
            } else {
                value(u, 1)
            }
        })
        .collect()
}

fn titled(u: &mut Unstructured<'_>) -> Result<Vec<Value>> {
    let len = u.int_in_range(0..=5usize)?;
    (0..len)
        .map(|_| {
            let mut c = Map::new();
            if u.ratio(7u8, 8u8)? {
                c.insert("const".into(), Value::String(word(u)?));
            }
            if u.ratio(7u8, 8u8)? {
                c.insert("title".into(), Value::String(word(u)?));
            }
            if u.ratio(1u8, 8u8)? {
                c.insert(word(u)?, value(u, 1)?);
            }
            Ok(Value::Object(c))
        })
        .collect()
}

/// A `requestedSchema`: an object schema of the subset, near-valid, or anything at all.
#[derive(Debug, Clone)]
pub struct Schema(pub Value);

impl<'a> Arbitrary<'a> for Schema {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        if u.ratio(1u8, 10u8)? {
            return value(u, 5).map(Schema);
        }
        let mut s = Map::new();
        if u.ratio(15u8, 16u8)? {
            s.insert("type".into(), "object".into());
        }
        let mut props = Map::new();
        let count = u.int_in_range(0..=5usize)?;
        for _ in 0..count {
            let name = if u.ratio(7u8, 8u8)? {
                (*u.choose(FIELD_NAMES)?).to_owned()
            } else {
                word(u)?
            };
            props.insert(name, property(u)?);
        }
        s.insert("properties".into(), Value::Object(props));
        if u.ratio(1u8, 2u8)? {
            let len = u.int_in_range(0..=4usize)?;
            let required = (0..len)
                .map(|_| {
                    if u.ratio(7u8, 8u8)? {
                        Ok(Value::from(*u.choose(FIELD_NAMES)?))
                    } else {
                        value(u, 0)
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            s.insert("required".into(), Value::Array(required));
        }
        if u.ratio(1u8, 6u8)? {
            s.insert(
                "$schema".into(),
                "https://json-schema.org/draft/2020-12/schema".into(),
            );
        }
        if u.ratio(1u8, 8u8)? {
            s.insert(word(u)?, value(u, 2)?);
        }
        Ok(Schema(Value::Object(s)))
    }
}

/// A form's answer: values under the form's usual field names, of every JSON type.
#[derive(Debug, Clone)]
pub struct Content(pub Map<String, Value>);

impl<'a> Arbitrary<'a> for Content {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let mut m = Map::new();
        let count = u.int_in_range(0..=5usize)?;
        for _ in 0..count {
            let name = if u.ratio(7u8, 8u8)? {
                (*u.choose(FIELD_NAMES)?).to_owned()
            } else {
                word(u)?
            };
            m.insert(name, value(u, 2)?);
        }
        Ok(Content(m))
    }
}

/// A URL: assembled from parts that the URL rules care about (scheme, user info, host of
/// every kind, port, path, query, fragment), or arbitrary text.
#[derive(Debug, Clone)]
pub struct Url(pub String);

impl<'a> Arbitrary<'a> for Url {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        if u.ratio(1u8, 6u8)? {
            return String::arbitrary(u).map(Url);
        }
        let mut s = String::new();
        s.push_str(u.choose(&[
            "https://",
            "http://",
            "HTTPS://",
            "javascript:",
            "data:text/html,",
            "file:///",
            "ftp://",
            "https:",
            "https:/",
            "blob:https://",
            "",
        ])?);
        if u.ratio(1u8, 6u8)? {
            s.push_str(u.choose(&["user@", "user:pass@", "a@b@", "%40@", "@"])?);
        }
        s.push_str(u.choose(&[
            "example.com",
            "EXAMPLE.com.",
            "127.0.0.1",
            "0x7f.1",
            "2130706433",
            "0177.0.0.1",
            "[::1]",
            "[::ffff:127.0.0.1]",
            "[fe80::1%25eth0]",
            "10.0.0.1",
            "169.254.169.254",
            "192.168.0.1",
            "100.64.0.1",
            "localhost",
            "LOCALHOST.",
            "xn--80ak6aa92e.com",
            "аpple.com",
            "ｅxample.com",
            "example.co.uk",
            "a.b.c.d.e.f.example.github.io",
            "xn--",
            "xn--a.com",
            "exa\u{200b}mple.com",
            "",
            ".",
            "..",
            "%2e",
            "ex%41mple.com",
            "[::]",
            "0.0.0.0",
            "255.255.255.255",
            "[2001:db8::1]",
        ])?);
        if u.ratio(1u8, 4u8)? {
            s.push_str(u.choose(&[":443", ":80", ":0", ":65535", ":65536", ":", ":8080"])?);
        }
        if u.ratio(1u8, 2u8)? {
            s.push_str(u.choose(&[
                "/",
                "/path",
                "/a/../b",
                "/%2e%2e/",
                "/\u{202e}gpj.exe",
                "//evil.com",
                "\\\\evil.com",
                "/login?next=https://evil.com",
                "/a b",
            ])?);
        }
        if u.ratio(1u8, 3u8)? {
            s.push_str(&String::arbitrary(u)?);
        }
        if u.ratio(1u8, 4u8)? {
            s.push_str(u.choose(&["?q=1", "#frag", "?", "#", "?a=%zz"])?);
        }
        Ok(Url(s))
    }
}

/// The methods an MCP Apps view (or its sandbox proxy) may send, in every dialect, and some it
/// may not.
pub const VIEW_METHODS: &[&str] = &[
    "ui/initialize",
    "ui/notifications/initialized",
    "ui/notifications/sandbox-proxy-ready",
    "ui/notifications/sandbox-ready",
    "ui/notifications/size-changed",
    "ui/notifications/size-change",
    "ui/open-link",
    "ui/message",
    "ui/download-file",
    "ui/request-display-mode",
    "ui/update-model-context",
    "ui/notifications/request-teardown",
    "ui/resource-teardown",
    "ui/log",
    "mcp-ui/sandbox-ready",
    "mcp-ui/size-change",
    "mcp-ui/notifications/tool-input",
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
    "ping",
    "notifications/message",
    "notifications/cancelled",
    "notifications/progress",
    "sampling/createMessage",
    "elicitation/create",
];

/// A JSON-RPC id: mostly small numbers, sometimes strings or values no id may be.
pub fn id(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=7u8)? {
        0..=3 => Value::from(u.int_in_range(0..=12u8)?),
        4 => Value::String(word(u)?),
        5 => Value::Null,
        6 => number(u)?,
        _ => value(u, 2)?,
    })
}

/// A message from a view: a request or notification of a known method with params shaped
/// loosely like its own, a response to the host, or anything at all.
#[derive(Debug, Clone)]
pub struct ViewMessage(pub Value);

impl<'a> Arbitrary<'a> for ViewMessage {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let kind = u.int_in_range(0..=9u8)?;
        if kind == 0 {
            return value(u, 4).map(ViewMessage);
        }
        let mut m = Map::new();
        if u.ratio(15u8, 16u8)? {
            m.insert("jsonrpc".into(), "2.0".into());
        } else {
            m.insert("jsonrpc".into(), value(u, 1)?);
        }
        if kind <= 2 {
            // A response to something the host asked the view.
            m.insert("id".into(), id(u)?);
            if u.ratio(3u8, 4u8)? {
                m.insert("result".into(), value(u, 3)?);
            } else {
                let mut e = Map::new();
                e.insert("code".into(), number(u)?);
                e.insert("message".into(), Value::String(word(u)?));
                m.insert("error".into(), Value::Object(e));
            }
            return Ok(ViewMessage(Value::Object(m)));
        }
        let method = if u.ratio(7u8, 8u8)? {
            (*u.choose(VIEW_METHODS)?).to_owned()
        } else {
            word(u)?
        };
        if u.ratio(2u8, 3u8)? {
            m.insert("id".into(), id(u)?);
        }
        let params = match method.as_str() {
            "ui/initialize" if u.ratio(3u8, 4u8)? => {
                let mut p = Map::new();
                let mut info = Map::new();
                info.insert("name".into(), Value::String(word(u)?));
                info.insert("version".into(), "1".into());
                p.insert("appInfo".into(), Value::Object(info));
                p.insert("appCapabilities".into(), Value::Object(object(u, 2)?));
                p.insert(
                    "protocolVersion".into(),
                    (*u.choose(&["2026-01-26", "2025-11-21", "", "1"])?).into(),
                );
                Value::Object(p)
            }
            "ui/open-link" if u.ratio(3u8, 4u8)? => {
                let mut p = Map::new();
                p.insert("url".into(), Value::String(Url::arbitrary(u)?.0));
                Value::Object(p)
            }
            "tools/call" if u.ratio(3u8, 4u8)? => {
                let mut p = Map::new();
                p.insert(
                    "name".into(),
                    Value::String((*u.choose(TOOL_NAMES)?).to_owned()),
                );
                p.insert("arguments".into(), Value::Object(object(u, 2)?));
                if u.ratio(1u8, 4u8)? {
                    let mut meta = Map::new();
                    meta.insert("progressToken".into(), id(u)?);
                    p.insert("_meta".into(), Value::Object(meta));
                }
                Value::Object(p)
            }
            _ => value(u, 3)?,
        };
        if u.ratio(7u8, 8u8)? {
            m.insert("params".into(), params);
        }
        m.insert("method".into(), Value::String(method));
        Ok(ViewMessage(Value::Object(m)))
    }
}

/// The tools a view's server is said to have: one per visibility, and unknown names.
pub const TOOL_NAMES: &[&str] = &["both", "model_only", "app_only", "missing", ""];

/// The input as a JSON document, when it is one: the committed seeds are hand-written JSON
/// (readable, and what libFuzzer's byte mutations and the dictionary then work on); any other
/// input is decoded with `arbitrary`.
pub fn as_json(data: &[u8]) -> Option<Value> {
    let first = data.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' && *first != b'[' {
        return None;
    }
    serde_json::from_slice(data).ok()
}

/// `value[key]` as an object (empty when absent or not an object).
pub fn obj(value: &Value, key: &str) -> Map<String, Value> {
    value
        .get(key)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// `value[key]` as a list (empty when absent or not an array).
pub fn list(value: &Value, key: &str) -> Vec<Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// `value[key]` as a small number (0 when absent).
pub fn small(value: &Value, key: &str) -> u8 {
    value
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u8::try_from(n).ok())
        .unwrap_or(0)
}

/// Prints `what` when `INTERLUDE_FUZZ_DEBUG` is set: replaying a seed or a reproducer with it
/// shows what the code under test answered.
pub fn debug(what: &dyn std::fmt::Debug) {
    if std::env::var_os("INTERLUDE_FUZZ_DEBUG").is_some() {
        eprintln!("{what:?}");
    }
}
