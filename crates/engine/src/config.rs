//! What the host declared to its servers ([`Declared`]) and the engine's policy knobs
//! ([`EngineConfig`]): configuration, passed in as data.

use crate::url_safety::UrlPolicy;

/// What a host declared to its servers, as data: it decides what admission accepts.
///
/// ```
/// use interlude_engine::Declared;
/// assert!(Declared::default().form);
/// assert!(Declared::default().url);
/// assert!(!Declared::FORM.url);
/// assert!(Declared::FORM_AND_URL.with_apps().apps);
/// assert!(Declared::FORM_AND_URL.with_app_elicitation().apps);
/// assert!(!Declared::default().user_interaction);
/// assert!(Declared::default().with_user_interaction().user_interaction);
/// assert!(Declared::default().sampling && !Declared::FORM_AND_URL.sampling);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// `elicitation.form` (or the bare `elicitation: {}`).
    pub form: bool,
    /// `elicitation.url`.
    pub url: bool,
    /// The MCP Apps extension (`extensions["io.modelcontextprotocol/ui"]`): a surface renders
    /// `ui://` views.
    pub apps: bool,
    /// App-rendered elicitation (SEP-3118) is negotiated with this server: the host declared
    /// `elicitation` in its Apps extension **and** the server did in its own. Only then is a
    /// form request's `_meta.ui.resourceUri` shown in that view
    /// ([`RequestKind::AppForm`](crate::request::RequestKind::AppForm)); otherwise it is a plain form.
    pub app_elicitation: bool,
    /// The User Interaction draft (seed 000): `capabilities.userInteraction` with both types
    /// (`ua`, `prompt`) and progress. Off unless the person turns it on; without it an
    /// `interaction/create` is refused.
    pub user_interaction: bool,
    /// `sampling`: the person answers a server's `sampling/createMessage` as the model
    /// ([`RequestKind::Sampling`](crate::request::RequestKind::Sampling)). On by default;
    /// without it a sampling request is refused.
    pub sampling: bool,
}

impl Declared {
    /// Form elicitation only.
    pub const FORM: Declared = Declared {
        form: true,
        url: false,
        apps: false,
        app_elicitation: false,
        user_interaction: false,
        sampling: false,
    };

    /// Form and URL elicitation.
    pub const FORM_AND_URL: Declared = Declared {
        form: true,
        url: true,
        apps: false,
        app_elicitation: false,
        user_interaction: false,
        sampling: false,
    };

    /// The same, and MCP Apps.
    #[must_use]
    pub const fn with_apps(self) -> Declared {
        Declared { apps: true, ..self }
    }

    /// The same, and the User Interaction draft (seed 000).
    #[must_use]
    pub const fn with_user_interaction(self) -> Declared {
        Declared {
            user_interaction: true,
            ..self
        }
    }

    /// The same, and sampling answered by the person.
    #[must_use]
    pub const fn with_sampling(self) -> Declared {
        Declared {
            sampling: true,
            ..self
        }
    }

    /// The same, and app-rendered elicitation (which needs the Apps extension too).
    #[must_use]
    pub const fn with_app_elicitation(self) -> Declared {
        Declared {
            apps: true,
            app_elicitation: true,
            ..self
        }
    }
}

impl Default for Declared {
    /// What Interlude declares unless configured otherwise: form and URL elicitation, and
    /// sampling answered by the person.
    fn default() -> Self {
        Declared::FORM_AND_URL.with_sampling()
    }
}

/// Policy knobs.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Longest `message` accepted, in characters.
    pub max_message_chars: usize,
    /// Most properties in one form.
    pub max_fields: usize,
    /// Requests a server may make at once before rate limiting applies.
    pub rate_burst: u32,
    /// Sustained requests per minute per server.
    pub rate_per_minute: u32,
    /// Longest `url` of a URL request, in characters.
    pub max_url_chars: usize,
    /// Which links may be opened (strict by default: https to public hosts only).
    pub url_policy: UrlPolicy,
    /// Look a link's host name up after consent and refuse it when it points somewhere the
    /// policy forbids (default true). A driver that never opens links (a headless run that
    /// only prints them) may turn it off.
    pub resolve_links: bool,
    /// How long an app-rendered form's view may take to start (`ui/notifications/initialized`)
    /// once its request is shown and a surface began loading it ([`ViewInput::Loading`](crate::io::ViewInput::Loading)), in
    /// milliseconds, before the person gets the plain form instead.
    pub app_start_ms: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            max_message_chars: 16 * 1024,
            max_fields: 64,
            rate_burst: 20,
            rate_per_minute: 60,
            max_url_chars: 8 * 1024,
            url_policy: UrlPolicy::default(),
            resolve_links: true,
            app_start_ms: 10_000,
        }
    }
}
