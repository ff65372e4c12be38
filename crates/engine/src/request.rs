//! The request for a person, as every surface receives it: one header (who asks, for which call,
//! how it travelled) and one closed enum of kinds.
//!
//! [`RequestKind`] is deliberately *not* `#[non_exhaustive]`: a surface matches it without a
//! wildcard arm, so adding a kind (URL mode, an app view, an app-rendered elicitation) fails to
//! compile in every surface that does not handle it yet. A kind a surface cannot show gets an
//! explicit fallback there (for example "open this in the web page"), never a silent decline.
//!
//! What it does not hold: anything a surface would have to interpret as markup, or the server's
//! raw params (admission turned those into typed values).

use std::sync::Arc;

use interlude_protocol::ProtocolEra;
use interlude_schema::{Content, FormSchema};

use crate::ids::{CallId, RequestId, ServerId, ViewId};
use crate::url_safety::UrlCheck;

/// A request for a person, ready to present.
///
/// ```
/// use interlude_engine::{Request, RequestKind};
///
/// // Every surface has one exhaustive match like this one (no `_` arm).
/// fn headline(request: &Request) -> String {
///     match &request.kind {
///         RequestKind::Form(form) => format!("{} asks: {}", request.server_name, form.message),
///         RequestKind::Url(url) => format!("{} asks you to open {}", request.server_name, url.url),
///         RequestKind::AppForm(app) => {
///             format!("{} asks, in its view {}: {}", request.server_name, app.resource_uri,
///                     app.form.message)
///         }
///         RequestKind::ViewLink(link) => {
///             format!("the app of {} asks you to open {}", request.server_name, link.url)
///         }
///         RequestKind::Sampling(sampling) => {
///             format!("{} asks for a model's reply (at most {} tokens)", request.server_name,
///                     sampling.max_tokens)
///         }
///     }
/// }
/// ```
///
/// A match that leaves a kind out does not compile:
/// ```compile_fail
/// use interlude_engine::RequestKind;
/// fn headline(kind: &RequestKind) -> &'static str {
///     match kind {
///         RequestKind::Form(_) => "a form",
///         RequestKind::Url(_) => "a link",
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The request's id, to answer with.
    pub id: RequestId,
    /// The requesting server (the host's id for it).
    pub server: ServerId,
    /// The requesting server's name as the host knows it: show it prominently.
    pub server_name: Arc<str>,
    /// The tool call that raised it, when the host knows it exactly (never a guess).
    pub call: Option<CallId>,
    /// How it travelled.
    pub era: ProtocolEra,
    /// The method it came by (the seed-000 draft's `interaction/create`, or elicitation).
    pub method: RequestMethod,
    /// What is asked.
    pub kind: RequestKind,
}

/// The method a request came by. Its kind says what is asked; this says in whose words, for
/// labels, the audit log and the answer's shape on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RequestMethod {
    /// Elicitation: `elicitation/create` (2025 eras), or an `input_required` round
    /// (2026-07-28).
    #[default]
    Elicitation,
    /// The User Interaction draft of seed 000 (`interaction/create`, or its `-32003` error): a
    /// `prompt` is a form, a `ua` a link. A compatibility path.
    Interaction,
    /// An app view's `ui/open-link`: the view asks, not its server (a view link).
    OpenLink,
    /// `sampling/createMessage` (a push request in the 2025 eras, an input request on
    /// 2026-07-28): a model's reply, written by the person.
    Sampling,
}

impl RequestMethod {
    /// The wire method: `elicitation/create` or `interaction/create`.
    ///
    /// ```
    /// use interlude_engine::RequestMethod;
    /// assert_eq!(RequestMethod::Interaction.as_str(), "interaction/create");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            RequestMethod::Elicitation => "elicitation/create",
            RequestMethod::Interaction => interlude_protocol::interaction::CREATE_METHOD,
            RequestMethod::OpenLink => "ui/open-link",
            RequestMethod::Sampling => "sampling/createMessage",
        }
    }

    /// What many requests of this method are called, in a sentence ("too many sampling
    /// requests").
    pub(crate) fn plural(self) -> &'static str {
        match self {
            RequestMethod::Elicitation => "elicitations",
            RequestMethod::Interaction => "interaction requests",
            RequestMethod::OpenLink => "requests to open a link",
            RequestMethod::Sampling => "sampling requests",
        }
    }

    /// A label for people: empty for elicitation, the draft's name otherwise.
    pub fn label(self) -> &'static str {
        match self {
            RequestMethod::Elicitation | RequestMethod::OpenLink | RequestMethod::Sampling => "",
            RequestMethod::Interaction => "User Interaction draft (interaction/create)",
        }
    }
}

impl Request {
    /// The message shown with the request, whatever its kind (plain text: never render it as
    /// markup or with live links).
    pub fn message(&self) -> &str {
        match &self.kind {
            RequestKind::Form(form) => &form.message,
            RequestKind::Url(url) => &url.message,
            RequestKind::AppForm(app) => &app.form.message,
            RequestKind::ViewLink(link) => &link.message,
            RequestKind::Sampling(sampling) => &sampling.message,
        }
    }
}

/// What a request asks of the person. Closed: see the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestKind {
    /// Fill in a form (form-mode elicitation, either era).
    Form(FormRequest),
    /// Open a link the server controls, for what must not pass through the host (URL-mode
    /// elicitation, either era).
    Url(Box<UrlRequest>),
    /// A form the server asks to be filled in its own app view (SEP-3118, app-rendered
    /// elicitation): the host shows the `ui://` view and forwards the request to it; the form
    /// is the same request's, for a surface without views and for the fallback.
    AppForm(Box<AppFormRequest>),
    /// Open a link an app view asks the host to open (`ui/open-link`): judged by the same URL
    /// rules and consent as a URL request; the view hears whether it was opened. No flow
    /// follows: the server is not waiting on it.
    ViewLink(Box<ViewLinkRequest>),
    /// Write a model's reply (`sampling/createMessage`): the server asks the client for a
    /// completion, and with no model attached the person is the model. Accepting carries the
    /// reply in the content's `text` field (and optionally `model`); declining refuses the
    /// request.
    Sampling(Box<SamplingRequest>),
}

/// A server's request for a model's reply, as the person reads it: the conversation so far,
/// what the server prefers, and the limits it set. Everything is plain text to show as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    /// The host's sentence saying who asks (plain text).
    pub message: String,
    /// The conversation, oldest first; the reply continues it.
    pub messages: Vec<SamplingTurn>,
    /// The server's system prompt, if it gave one.
    pub system_prompt: Option<String>,
    /// Model names or families the server prefers, in its order.
    pub model_hints: Vec<String>,
    /// The server's priorities, each from 0 to 1.
    pub priorities: ModelPriorities,
    /// The most tokens the reply may have.
    pub max_tokens: u32,
    /// The sampling temperature the server asked for.
    pub temperature: Option<f64>,
    /// Where the server wants the reply to stop.
    pub stop_sequences: Vec<String>,
    /// Which servers' context the server asked to include (`none`, `thisServer`,
    /// `allServers`); the person decides what to use.
    pub include_context: Option<String>,
    /// The names of the tools the server offers the model (a person's reply is text only).
    pub tools: Vec<String>,
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingTurn {
    /// Who said it.
    pub role: SamplingRole,
    /// What it says, part by part.
    pub parts: Vec<SamplingPart>,
}

/// Who said a message of a sampling conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplingRole {
    /// The user.
    User,
    /// The model.
    Assistant,
}

impl SamplingRole {
    /// The wire name: `user` or `assistant`.
    pub fn as_str(self) -> &'static str {
        match self {
            SamplingRole::User => "user",
            SamplingRole::Assistant => "assistant",
        }
    }
}

/// One part of a sampling message. Binary parts are described, not carried.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingPart {
    /// Text.
    Text(String),
    /// An image, of about `bytes` bytes.
    Image {
        /// Its MIME type, as the server said it.
        mime_type: String,
        /// Its size.
        bytes: usize,
    },
    /// Audio, of about `bytes` bytes.
    Audio {
        /// Its MIME type, as the server said it.
        mime_type: String,
        /// Its size.
        bytes: usize,
    },
    /// The model called a tool.
    ToolUse {
        /// The tool.
        name: String,
        /// Its input, as JSON text.
        input: String,
    },
    /// A tool's result, given back to the model.
    ToolResult {
        /// The call it answers.
        tool_use_id: String,
        /// Its text.
        text: String,
    },
}

/// How a server weighs cost, speed and capability when a model is chosen (each 0–1).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ModelPriorities {
    /// Prefer cheaper models.
    pub cost: Option<f64>,
    /// Prefer faster models.
    pub speed: Option<f64>,
    /// Prefer more capable models.
    pub intelligence: Option<f64>,
}

/// A link an app view asks to have opened.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewLinkRequest {
    /// The host's sentence saying who asks (plain text).
    pub message: String,
    /// The link exactly as the view sent it (show [`UrlCheck::display`] instead when there is
    /// one: it is what will be opened).
    pub url: String,
    /// The host's verdict on the link, with the parts a consent screen shows.
    pub check: UrlCheck,
    /// The view that asks.
    pub view: ViewId,
}

/// A form shown in the asking server's app view.
///
/// The view's answer is judged by the same rules as the form's (outside the view): content that
/// breaks the schema is never sent, and the view is told why. When the view cannot be shown —
/// its resource does not load, it does not start in time, it does not declare the capability,
/// the surface has no views — the person gets the plain form instead
/// ([`AppStage::Form`]), never a silent decline.
#[derive(Debug, Clone, PartialEq)]
pub struct AppFormRequest {
    /// The form, as for [`RequestKind::Form`].
    pub form: FormRequest,
    /// The view (`ui://…`, a resource of the asking server).
    pub resource_uri: String,
    /// How the request is shown now.
    pub stage: AppStage,
}

/// How an app-rendered form is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppStage {
    /// In the server's view (loading, or live).
    View,
    /// As the plain form, because the view could not be used.
    Form {
        /// Why, in a sentence, for the person.
        reason: String,
    },
}

/// A form to fill in.
#[derive(Debug, Clone, PartialEq)]
pub struct FormRequest {
    /// The message, as plain text.
    pub message: String,
    /// The form (shared: servers ask the same forms again and again).
    pub schema: Arc<FormSchema>,
    /// Initial values: the declared defaults.
    pub prefill: Content,
    /// The `requestedSchema` as the server sent it, as JSON: parsed once, by the engine, and
    /// shared (a server asks the same forms again and again); what a recording keeps.
    pub requested_schema: Arc<serde_json::Value>,
}

/// A link to open, out of band: an API key entered on the server's own page, a third party's
/// OAuth consent, a payment.
///
/// Accepting means *consent to open the link*, nothing more: no content goes back, and the flow
/// itself finishes in the browser.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlRequest {
    /// The message, as plain text.
    pub message: String,
    /// The URL exactly as the server sent it (show [`UrlCheck::display`] instead when there is
    /// one: it is what will be opened).
    pub url: String,
    /// The 2025-11-25 `elicitationId` (absent on 2026-07-28), which the server's completion
    /// notification names.
    pub elicitation_id: Option<String>,
    /// The host's verdict on the link, with the parts a consent screen shows.
    pub check: UrlCheck,
    /// Where the request stands.
    pub stage: UrlStage,
}

/// Where a URL request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlStage {
    /// The person has not consented yet: ask before anything is opened or looked up.
    Consent,
    /// The person already consented to this link earlier in the same tool call (a 2026-07-28
    /// server asks again while its flow is unfinished): accepting means "I am done in the
    /// browser, go on"; nothing is opened again.
    Waiting,
}

/// Who asked, for which call, how: the part of a request every kind shares, before its kind is
/// known.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub(crate) id: RequestId,
    pub(crate) server: ServerId,
    pub(crate) server_name: Arc<str>,
    pub(crate) call: Option<CallId>,
    pub(crate) era: ProtocolEra,
    pub(crate) method: RequestMethod,
}

impl Header {
    /// The request as surfaces see it, once its kind is known.
    pub(crate) fn into_request(self, kind: RequestKind) -> Request {
        Request {
            id: self.id,
            server: self.server,
            server_name: self.server_name,
            call: self.call,
            era: self.era,
            method: self.method,
            kind,
        }
    }
}
