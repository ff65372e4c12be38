//! **App form**: a form the server asks to be shown in its own app view (SEP-3118,
//! app-rendered elicitation). The host shows the `ui://` view and forwards the request to it;
//! the form is the same request's, for a surface without views and for the fallback.
//!
//! This module is the one owner of the binding between the request and its view: which view
//! renders it, whether the request is shown and the view loading, the deadline by which the
//! view must be live, whether the person got the plain form instead. The view's bridge only
//! carries the request to the view ([`ViewBridge::ask`](crate::bridge::ViewBridge::ask)) and
//! the view's answer back; the answer is judged by the form's rules ([`FormPending::judge`]),
//! whichever way it comes.

use interlude_protocol::Answer;
use interlude_protocol::apps::ANSWER_ERRORS_META_KEY;
use interlude_schema::{Content, FieldError};
use serde_json::{Map, Value, json};

use super::{Acceptance, Aftermath, Ending, Kind};
use crate::admission::ElicitParams;
use crate::config::{Declared, EngineConfig};
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
        // The draft predates app views; a view's link and a sampling request are no forms.
        ElicitParams::Interaction(_)
        | ElicitParams::ViewLink { .. }
        | ElicitParams::Sampling(_) => {
            return None;
        }
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
    /// A surface began loading the bound view's document.
    loading: bool,
    /// The bound view is live (it was handed the request, or gave way to the plain form).
    live: bool,
    /// The bound view must be live by then (set once the request is shown and the view
    /// loading).
    deadline: Option<u64>,
    /// The view was given up on: the plain form is shown.
    fallen_back: bool,
}

/// What a view's being live means for the app form it renders.
#[derive(Debug, PartialEq)]
pub(crate) enum Live {
    /// Hand the view these params.
    Ask(Value),
    /// The view cannot render questions: the plain form, for this reason.
    FallBack(String),
    /// Nothing (the request fell back already).
    Nothing,
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
            loading: false,
            live: false,
            deadline: None,
            fallen_back: false,
        };
        (kind, pending)
    }

    /// Binds view `view` to the request; `false` when the request is not waiting for a view
    /// (it fell back, or another view renders it).
    pub(crate) fn bind(&mut self, view: ViewId) -> bool {
        if self.fallen_back || self.view.is_some() {
            return false;
        }
        self.view = Some(view);
        true
    }

    /// The request is presented at `now_ms`: the deadline by which its view must be live, when
    /// that clock starts now ([`AppFormPending::start_clock`]).
    pub(crate) fn show(&mut self, now_ms: u64, start_ms: u64) -> Option<u64> {
        self.shown = true;
        self.start_clock(now_ms, start_ms)
    }

    /// A surface began loading the bound view's document at `now_ms` (for the web surface:
    /// the sandbox served its proxy document): the deadline, when the clock starts now.
    pub(crate) fn loading(&mut self, now_ms: u64, start_ms: u64) -> Option<u64> {
        self.loading = true;
        self.start_clock(now_ms, start_ms)
    }

    /// The clock of a bound view starts only when its request is shown and its document is
    /// loading: a view nobody frames yet (no page open, or a terminal still asking the person
    /// where to answer) is not a view that failed.
    fn start_clock(&mut self, now_ms: u64, start_ms: u64) -> Option<u64> {
        let starts = self.view.is_some()
            && self.shown
            && self.loading
            && !self.live
            && !self.fallen_back
            && self.deadline.is_none();
        if !starts {
            return None;
        }
        let at_ms = now_ms.saturating_add(start_ms);
        self.deadline = Some(at_ms);
        Some(at_ms)
    }

    /// Whether the bound view missed its deadline at `now_ms` (it is not live yet).
    pub(crate) fn late(&self, now_ms: u64) -> bool {
        !self.live && !self.fallen_back && self.deadline.is_some_and(|d| now_ms >= d)
    }

    /// The bound view is live and `renders` questions or not.
    pub(crate) fn live(&mut self, renders: bool) -> Live {
        if self.fallen_back || self.live {
            return Live::Nothing;
        }
        self.live = true;
        self.deadline = None;
        if renders {
            Live::Ask(self.params.clone())
        } else {
            Live::FallBack(
                "its app view does not declare that it renders questions \
                 (appCapabilities.elicitation)"
                    .into(),
            )
        }
    }

    /// The params to hand the view again after its answer broke the form, with the reasons
    /// under `_meta["dev.interlude/answerErrors"]`; `None` once the request fell back.
    pub(crate) fn ask_again(&self, errors: &[FieldError]) -> Option<Value> {
        if self.fallen_back {
            return None;
        }
        let listed: Vec<Value> = errors
            .iter()
            .map(|e| json!({"field": e.field, "message": e.message}))
            .collect();
        let mut params = self.params.clone();
        if let Some(object) = params.as_object_mut() {
            let meta = object
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(ANSWER_ERRORS_META_KEY.into(), Value::Array(listed));
            }
        }
        Some(params)
    }

    /// The plain form is shown from now on: the view to release, if one was bound; `None` when
    /// it had fallen back already.
    pub(crate) fn fall_back(&mut self) -> Option<Option<ViewId>> {
        if self.fallen_back {
            return None;
        }
        self.fallen_back = true;
        self.deadline = None;
        Some(self.view.take())
    }

    /// The view bound to the request.
    pub(crate) fn view(&self) -> Option<ViewId> {
        self.view
    }
}

/// Reads the view's answer (an `ElicitResult` as JSON, unchecked): what the person did, or why
impl Kind for AppFormPending {
    /// Judged by the form's rules, whichever way it comes.
    fn accepted(&mut self, content: Content, config: &EngineConfig) -> Acceptance {
        self.form.accepted(content, config)
    }

    /// The view that renders it is released: answered in the view itself, or from the host's
    /// own controls (the view hears it), or closed (the view hears why).
    fn ended<'a>(&self, ending: Ending<'a>) -> Aftermath<'a> {
        let Some(view) = self.view() else {
            return Aftermath::Nothing;
        };
        let reason = match ending {
            Ending::Answered { in_view, .. } => {
                (!in_view).then_some("the person answered outside the view")
            }
            Ending::Closed { why } => Some(why),
            // An app form asks for no link.
            Ending::Consented => return Aftermath::Nothing,
        };
        Aftermath::ReleaseView { view, reason }
    }
}

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
