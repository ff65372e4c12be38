//! **App form**: a form the server asks to be shown in its own app view (SEP-3118,
//! app-rendered elicitation). The host shows the `ui://` view and forwards the request to it;
//! the form is the same request's, for a surface without views and for the fallback.
//!
//! This module is the one owner of the binding between the request and its view: which view
//! renders it, whether the request is shown, whether the person got the plain form instead.
//! The view's bridge only carries the request to the view and the view's answer back; the
//! answer is judged by the form's rules ([`FormPending::judge`]), whichever way it comes.

use interlude_protocol::Answer;
use interlude_schema::{Content, FieldError};
use serde_json::Value;

use crate::admission::ElicitParams;
use crate::config::Declared;
use crate::ids::ViewId;
use crate::kinds::form::FormPending;
use crate::request::{AppFormRequest, AppStage, FormRequest, RequestKind};

/// A form request to be shown in its server's app view.
#[derive(Debug, Clone)]
pub(crate) struct AppView {
    /// The view's resource (`ui://…`).
    resource_uri: String,
    /// The request's params as the server sent them (`_meta` included), forwarded to the view
    /// unchanged.
    params: Value,
}

/// The app view a form request asks for, when app-rendered elicitation is negotiated with its
/// server and the hint is a `ui://` URI; `None` means the plain form (a hint that is not a
/// `ui://` URI, or one sent without negotiation, is ignored: the request is a valid form all the
/// same).
pub(crate) fn app_view(params: &ElicitParams, declared: Declared) -> Option<AppView> {
    if !(declared.apps && declared.app_elicitation) {
        return None;
    }
    let params = match params {
        ElicitParams::Typed(typed) => match typed.as_ref() {
            rmcp::model::ElicitRequestParams::FormElicitationParams { meta: Some(_), .. } => {
                serde_json::to_value(typed).ok()?
            }
            _ => return None,
        },
        ElicitParams::Json(json) => json.clone(),
        // The draft predates app views.
        ElicitParams::Interaction(_) => return None,
    };
    let uri = interlude_protocol::apps::elicitation_view(params.get("_meta")?.as_object()?)?;
    let valid = uri.len() > "ui://".len() && uri.starts_with("ui://") && uri.len() <= 2048;
    if !valid {
        return None;
    }
    Some(AppView {
        resource_uri: uri.to_owned(),
        params,
    })
}

/// What a pending app form keeps.
#[derive(Debug)]
pub(crate) struct AppFormPending {
    /// The form: its answer is judged like any form's.
    pub(crate) form: FormPending,
    /// The request's params as the server sent them, for the view.
    params: Value,
    /// The view bound to it, once its bridge is open.
    view: Option<ViewId>,
    /// It was presented to the person (the view's start deadline runs from then).
    shown: bool,
    /// The view was given up on: the plain form is shown.
    fallen_back: bool,
}

impl AppFormPending {
    /// The request as surfaces see it (first in its view), and what the engine keeps.
    pub(crate) fn queue(
        form: FormRequest,
        pending: FormPending,
        app: AppView,
    ) -> (RequestKind, AppFormPending) {
        let kind = RequestKind::AppForm(Box::new(AppFormRequest {
            form,
            resource_uri: app.resource_uri,
            stage: AppStage::View,
        }));
        let pending = AppFormPending {
            form: pending,
            params: app.params,
            view: None,
            shown: false,
            fallen_back: false,
        };
        (kind, pending)
    }

    /// Binds view `view` to the request: the params the view renders, and whether the request
    /// is shown already; `None` when the request is not waiting for a view (it fell back, or
    /// another view renders it).
    pub(crate) fn bind(&mut self, view: ViewId) -> Option<(Value, bool)> {
        if self.fallen_back || self.view.is_some() {
            return None;
        }
        self.view = Some(view);
        Some((self.params.clone(), self.shown))
    }

    /// The request is presented: the view bound to it, if any, starts its clock.
    pub(crate) fn show(&mut self) -> Option<ViewId> {
        self.shown = true;
        self.view
    }

    /// The plain form is shown from now on: the view to release, if one was bound; `None` when
    /// it had fallen back already.
    pub(crate) fn fall_back(&mut self) -> Option<Option<ViewId>> {
        if self.fallen_back {
            return None;
        }
        self.fallen_back = true;
        Some(self.view.take())
    }

    /// The view bound to the request.
    pub(crate) fn view(&self) -> Option<ViewId> {
        self.view
    }
}

/// Reads the view's answer (an `ElicitResult` as JSON, unchecked): what the person did, or why
/// the answer cannot be read. The content is judged afterwards, by the form's rules.
pub(crate) fn read_answer(result: &Value) -> Result<Answer<Content>, Vec<FieldError>> {
    let field_error = |field: &str, message: &str| FieldError {
        field: field.into(),
        message: message.into(),
    };
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => match result.get("content") {
            None | Some(Value::Null) => Ok(Answer::Accepted(Content::new())),
            Some(Value::Object(content)) => Ok(Answer::Accepted(content.clone())),
            Some(_) => Err(vec![field_error(
                "content",
                "The answer's content must be an object.",
            )]),
        },
        Some("decline") => Ok(Answer::Declined),
        Some("cancel") => Ok(Answer::Cancelled),
        _ => Err(vec![field_error(
            "action",
            "The answer's action must be \"accept\", \"decline\" or \"cancel\".",
        )]),
    }
}
