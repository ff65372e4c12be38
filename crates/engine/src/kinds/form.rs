//! **Form**: a form to fill in (form-mode elicitation in either era; a seed-000 `prompt`).
//!
//! A pending form keeps its schema, to judge the answer. [`FormPending::judge`] is the one
//! answer path of every kind that carries a form (a plain form, and an app form whether it is
//! answered in its view or outside it): `null` dropped, defaults applied, then validated by the
//! same rules as the server toolkit's.

use std::sync::Arc;

use interlude_protocol::Answer;
use interlude_schema::{Content, FieldError, FormSchema};

use super::{Acceptance, Kind};
use crate::audit::AuditEvent;
use crate::config::EngineConfig;
use crate::io::Reply;
use crate::out::Out;
use crate::redact::redact;
use crate::request::{FormRequest, Header};

/// What a pending form keeps: the schema its answer must fit.
#[derive(Debug)]
pub(crate) struct FormPending {
    pub(crate) schema: Arc<FormSchema>,
}

impl FormPending {
    /// Admits form `message` with `schema`, whose property names are `names` (audited as
    /// received): what the surfaces see, and what the engine keeps to judge the answer.
    pub(crate) fn queue(
        header: &Header,
        message: String,
        schema: Arc<FormSchema>,
        requested_schema: Arc<serde_json::Value>,
        names: Arc<[String]>,
        out: &mut Out,
    ) -> (FormRequest, FormPending) {
        out.received(header, &message, names, None);
        let prefill = schema.prefill();
        let pending = FormPending {
            schema: schema.clone(),
        };
        let form = FormRequest {
            message,
            schema,
            prefill,
            requested_schema,
        };
        (form, pending)
    }

    /// Judges accepted `content`: the content that goes to the server (defaults applied), or
    /// one error per field. `null` is not a content value on the wire (string, number,
    /// boolean, string[]); validation treats it as omitted, so the reply does too, and defaults
    /// apply to it.
    pub(crate) fn judge(&self, mut content: Content) -> Result<Content, Vec<FieldError>> {
        content.retain(|_, v| !v.is_null());
        self.schema.apply_defaults(&mut content);
        self.schema.validate(&content)?;
        Ok(content)
    }
}

impl Kind for FormPending {
    /// The content, judged: the reply, audited redacted.
    fn accepted(&mut self, content: Content, _: &EngineConfig) -> Acceptance {
        match self.judge(content) {
            Ok(content) => {
                let event = AuditEvent::Accepted {
                    content: redact(&content),
                };
                Acceptance::Reply(Reply::Answered(Answer::Accepted(content)), event)
            }
            Err(errors) => Acceptance::Invalid(errors),
        }
    }
}
