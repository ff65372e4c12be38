//! Roots questions: [`Root`], one of the places the client lets the server work in, as read
//! from the client's answer to `roots/list` — checked before a handler sees it, whichever
//! transport carried it (pushed in 2025, an `inputRequests` entry on 2026-07-28).
//!
//! rmcp's own `Root` is marked deprecated (SEP-2577 plans to remove roots after 2026-07-28);
//! this crate's type keeps that out of a server author's way.

use rmcp::model::{InputRequest, ServerRequest};
use serde_json::Value;

use crate::error::AskError;
use crate::wire::field_error;

/// One root the client declared: a `file://` URI and, optionally, a name for people.
///
/// Returned by [`Ask::roots`](crate::Ask::roots).
///
/// # Example
/// ```
/// # use interlude_server::{Ask, AskError};
/// # async fn tool(ask: Ask) -> Result<String, AskError> {
/// let roots = ask.roots().await?;
/// let names: Vec<&str> = roots
///     .iter()
///     .map(|root| root.name.as_deref().unwrap_or(&root.uri))
///     .collect();
/// Ok(names.join(", "))
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI; always starts with `file://` (the specification requires it).
    pub uri: String,
    /// A name for the root, as the client gives it.
    pub name: Option<String>,
}

/// The `roots/list` request to push (it has no parameters, so no `_meta` either).
#[allow(deprecated)] // rmcp marks roots deprecated (SEP-2577); every revision spoken has it.
/// The pushed `roots/list`, naming the call it is asked for in `_meta` as every pushed question
/// does (a client ties it to that call).
pub(crate) fn roots_request(meta: rmcp::model::RequestMetaObject) -> ServerRequest {
    let mut request = rmcp::model::ListRootsRequest::default();
    request.extensions.insert(meta);
    ServerRequest::ListRootsRequest(request)
}

/// The `roots/list` question as an `inputRequests` entry.
#[allow(deprecated)] // as above
pub(crate) fn roots_input_request() -> InputRequest {
    InputRequest::ListRoots(rmcp::model::ListRootsRequest::default())
}

/// Reads a client's answer to `roots/list`. `at` prefixes the field names in errors (empty for
/// a pushed answer, `inputResponses.<key>.` for a round trip's).
pub(crate) fn read_roots(answer: &Value, at: &str) -> Result<Vec<Root>, AskError> {
    let invalid = |field: &str, message: &str| {
        AskError::InvalidAnswer(vec![field_error(&format!("{at}{field}"), message)])
    };
    let Some(list) = answer.get("roots") else {
        return Err(invalid("roots", "The roots answer has no list of roots."));
    };
    let Value::Array(list) = list else {
        return Err(invalid("roots", "The roots must be a list."));
    };
    let mut roots = Vec::with_capacity(list.len());
    for (i, root) in list.iter().enumerate() {
        let uri = match root.get("uri") {
            Some(Value::String(uri)) if uri.starts_with("file://") => uri.clone(),
            Some(Value::String(_)) => {
                return Err(invalid(
                    &format!("roots[{i}].uri"),
                    "A root's URI must start with file://.",
                ));
            }
            _ => {
                return Err(invalid(
                    &format!("roots[{i}].uri"),
                    "Each root needs a URI (a string).",
                ));
            }
        };
        let name = match root.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name.clone()),
            Some(_) => {
                return Err(invalid(
                    &format!("roots[{i}].name"),
                    "A root's name must be a string.",
                ));
            }
        };
        roots.push(Root { uri, name });
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field_of(e: AskError) -> String {
        match e {
            AskError::InvalidAnswer(errors) => {
                errors.first().map(|e| e.field.clone()).unwrap_or_default()
            }
            other => format!("not an invalid answer: {other}"),
        }
    }

    #[test]
    fn roots_read_with_and_without_names() {
        let roots = read_roots(
            &json!({"roots": [{"uri": "file:///test/root", "name": "Test Root"},
                              {"uri": "file:///tmp"}]}),
            "",
        );
        let Ok(roots) = roots else {
            panic!("reads: {roots:?}");
        };
        assert_eq!(roots.len(), 2);
        assert_eq!(roots[0].uri, "file:///test/root");
        assert_eq!(roots[0].name.as_deref(), Some("Test Root"));
        assert_eq!(roots[1].name, None);
    }

    #[test]
    fn a_malformed_answer_names_its_field() {
        for (answer, field) in [
            (json!({}), "at.roots"),
            (json!(5), "at.roots"),
            (json!({"roots": {}}), "at.roots"),
            (json!({"roots": [{"name": "x"}]}), "at.roots[0].uri"),
            (json!({"roots": [{"uri": "https://x"}]}), "at.roots[0].uri"),
            (
                json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "name": 1}]}),
                "at.roots[1].name",
            ),
        ] {
            let e = read_roots(&answer, "at.").err();
            assert_eq!(e.map(field_of).as_deref(), Some(field), "{answer}");
        }
    }
}
