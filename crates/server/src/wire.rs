//! What a question and its answer look like on the wire, the same whichever transport carries
//! them (`push`, `round_trip`, the seed-000 `interaction/create`): the form as rmcp's schema
//! type, the `_meta` that ties a question to the call it serves and to the app view it is shown
//! in, and the check of an accepted answer against its form.

use interlude_protocol::{Answer, RELATED_REQUEST_ID_KEY};
use interlude_schema::{Content, FieldError, FormSchema};
use rmcp::ErrorData;
use rmcp::model::{
    ElicitResult, ElicitationAction, ElicitationSchema, NumberOrString, RequestId,
    RequestMetaObject,
};
use serde_json::Value;

use crate::error::AskError;

/// Converts the form model into rmcp's wire schema type, keeping field order.
pub(crate) fn wire_schema(schema: &FormSchema) -> Result<ElicitationSchema, AskError> {
    serde_json::from_value(schema.to_json()).map_err(|e| {
        AskError::Tool(ErrorData::internal_error(
            format!("schema cannot be sent: {e}"),
            None,
        ))
    })
}

/// The `_meta` of an elicitation raised while serving the request `call`.
pub(crate) fn related_to(call: &RequestId) -> RequestMetaObject {
    let id = match call {
        NumberOrString::Number(n) => Value::from(*n),
        NumberOrString::String(s) => Value::from(s.as_ref()),
    };
    let mut meta = RequestMetaObject::new();
    meta.insert(RELATED_REQUEST_ID_KEY.to_owned(), id);
    meta
}

/// Names the app view a question is shown in (SEP-3118: `_meta.ui.resourceUri`).
pub(crate) fn add_view(meta: &mut RequestMetaObject, uri: &str) {
    let mut ui = serde_json::Map::new();
    ui.insert("resourceUri".into(), Value::from(uri));
    meta.insert("ui".to_owned(), Value::Object(ui));
}

/// Characters of a message about a peer's answer; a longer one (a serde error quoting the
/// peer's text) is cut with `…`.
const MAX_MESSAGE_CHARS: usize = 300;

/// The error for answer field `field` (a path such as `inputResponses.q0.content[1]`, or empty
/// for the whole answer), its message cut to a bounded length.
pub(crate) fn field_error(field: &str, message: impl Into<String>) -> FieldError {
    let mut message = message.into();
    if let Some((end, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS) {
        message.truncate(end);
        message.push('…');
    }
    FieldError {
        field: field.trim_end_matches('.').to_owned(),
        message,
    }
}

/// Applies defaults and validates an `ElicitResult` against the schema it answers.
pub(crate) fn check_result(
    schema: &FormSchema,
    result: ElicitResult,
) -> Result<Answer<Content>, AskError> {
    match result.action {
        ElicitationAction::Accept => {
            let mut content = match result.content {
                None | Some(Value::Null) => Content::new(),
                Some(Value::Object(o)) => o,
                Some(_) => {
                    return Err(AskError::InvalidAnswer(vec![FieldError {
                        field: "content".into(),
                        message: "The answer's content must be an object.".into(),
                    }]));
                }
            };
            schema.apply_defaults(&mut content);
            schema.validate(&content).map_err(AskError::InvalidAnswer)?;
            Ok(Answer::Accepted(content))
        }
        ElicitationAction::Decline => Ok(Answer::Declined),
        // `ElicitationAction` is non-exhaustive: anything new reads as a dismissal.
        _ => Ok(Answer::Cancelled),
    }
}

/// For a reader that rewrites lines (`interaction::Normalized`, `checked::CheckedLines`): puts
/// what is ready in `out` (from `sent` on) into `buf`, forgetting it once all of it is taken.
/// Whether anything was handed out.
pub(crate) fn hand_out(
    out: &mut Vec<u8>,
    sent: &mut usize,
    buf: &mut tokio::io::ReadBuf<'_>,
) -> bool {
    let Some(ready) = out.get(*sent..).filter(|r| !r.is_empty()) else {
        return false;
    };
    let n = ready.len().min(buf.remaining());
    buf.put_slice(ready.get(..n).unwrap_or_default());
    *sent += n;
    if *sent == out.len() {
        out.clear();
        *sent = 0;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_call_id_keeps_its_json_type() {
        let number = related_to(&NumberOrString::Number(42));
        assert_eq!(number.get(RELATED_REQUEST_ID_KEY), Some(&json!(42)));
        let string = related_to(&NumberOrString::String("call-7".into()));
        assert_eq!(string.get(RELATED_REQUEST_ID_KEY), Some(&json!("call-7")));
        assert_eq!(
            serde_json::to_value(&string).ok(),
            Some(json!({ "dev.interlude/relatedRequestId": "call-7" }))
        );
    }
}
