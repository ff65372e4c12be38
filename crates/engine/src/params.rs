//! The params of a request for a person as they reach the engine ([`ElicitParams`]): one of
//! the ways a request arrives (typed or raw elicitation, the seed-000 draft, a view's link, a
//! sampling request). Below admission and the kinds, which read them, and the engine's inputs
//! ([`crate::io`]), which carry them.

use rmcp::model::{ElicitRequestParams, RequestMetaObject};
use serde_json::Value;

use crate::ids::ViewId;

/// The params of an elicitation request, as they reached the host.
///
/// ```
/// use interlude_engine::ElicitParams;
/// use serde_json::json;
///
/// let raw = json!({"message": "Name?", "requestedSchema": {"type": "object",
///     "properties": {"name": {"type": "string"}}}});
/// // What rmcp typed (the usual path) …
/// let typed: rmcp::model::ElicitRequestParams = serde_json::from_value(raw.clone()).unwrap();
/// assert!(matches!(ElicitParams::from(typed), ElicitParams::Typed(_)));
/// // … or raw JSON, for what rmcp could not type.
/// assert!(matches!(ElicitParams::from(raw), ElicitParams::Json(_)));
/// ```
#[derive(Debug, Clone)]
pub enum ElicitParams {
    /// Typed by rmcp: the usual path (push requests through rmcp's client handler, and
    /// `input_required` rounds).
    Typed(Box<ElicitRequestParams>),
    /// Raw JSON: what rmcp could not type (a schema outside its model arrives as a custom
    /// request), or a driver without rmcp types.
    Json(Value),
    /// The params of a seed-000 `interaction/create` (the User Interaction draft), as sent, or
    /// the interaction of a `-32003` error said as such
    /// ([`CreatedInteraction::to_params`](interlude_protocol::interaction::CreatedInteraction::to_params)):
    /// a `prompt` is admitted as a form request and a `ua` as a URL request, by the same rules.
    Interaction(Value),
    /// A link app view `view` asks the host to open (`ui/open-link`, its bridge's question
    /// `question`): admitted as a view link, whatever the host declared to the view's server
    /// (it is the view's request, not the server's); how it ends is the view's answer.
    ViewLink {
        /// The view that asks.
        view: ViewId,
        /// Its bridge's number for the question (the view's request awaiting the answer).
        question: u64,
        /// The link, as the view sent it.
        url: String,
    },
    /// The params of a `sampling/createMessage` (a push request, or an input request of an
    /// `input_required` round), as JSON: admitted as a sampling request when the host declared
    /// sampling.
    Sampling(Value),
}

impl ElicitParams {
    /// The method the request arrived by.
    pub fn method(&self) -> crate::request::RequestMethod {
        match self {
            ElicitParams::Typed(_) | ElicitParams::Json(_) => {
                crate::request::RequestMethod::Elicitation
            }
            ElicitParams::Interaction(_) => crate::request::RequestMethod::Interaction,
            ElicitParams::ViewLink { .. } => crate::request::RequestMethod::OpenLink,
            ElicitParams::Sampling(_) => crate::request::RequestMethod::Sampling,
        }
    }
}

impl ElicitParams {
    /// These params with the request's `_meta` put back into a form's params, as it came on the
    /// wire: rmcp keeps a request's `_meta` apart (in the request's context), while a form's
    /// `_meta` belongs to its params — an app form names its view there, and its view gets the
    /// params unchanged. The one place this is done, for every way a form arrives (pushed typed
    /// or as JSON, or an input request of a round). Params that kept a `_meta` of their own, an
    /// empty `meta`, and every other kind are left as they are.
    ///
    /// ```
    /// use interlude_engine::ElicitParams;
    /// use serde_json::json;
    ///
    /// let meta: rmcp::model::RequestMetaObject =
    ///     serde_json::from_value(json!({"ui": {"resourceUri": "ui://form"}})).unwrap();
    /// let params = ElicitParams::from(json!({"message": "Name?", "requestedSchema": {}}));
    /// let ElicitParams::Json(params) = params.with_request_meta(&meta) else { unreachable!() };
    /// assert_eq!(params["_meta"]["ui"]["resourceUri"], "ui://form");
    /// ```
    #[must_use]
    pub fn with_request_meta(mut self, meta: &RequestMetaObject) -> Self {
        if meta.is_empty() {
            return self;
        }
        match &mut self {
            ElicitParams::Typed(typed) => {
                if let ElicitRequestParams::FormElicitationParams {
                    meta: own @ None, ..
                } = &mut **typed
                {
                    *own = Some(meta.clone());
                }
            }
            ElicitParams::Json(Value::Object(o))
                if !o.contains_key("_meta")
                    && match o.get("mode") {
                        None | Some(Value::Null) => true,
                        Some(Value::String(m)) => m == "form",
                        Some(_) => false,
                    } =>
            {
                if let Ok(Value::Object(meta)) = serde_json::to_value(meta) {
                    o.insert("_meta".to_owned(), Value::Object(meta));
                }
            }
            _ => {}
        }
        self
    }
}

impl From<Value> for ElicitParams {
    fn from(value: Value) -> Self {
        ElicitParams::Json(value)
    }
}

impl From<ElicitRequestParams> for ElicitParams {
    fn from(params: ElicitRequestParams) -> Self {
        ElicitParams::Typed(Box::new(params))
    }
}
