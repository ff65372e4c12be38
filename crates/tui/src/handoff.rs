//! Handing what a terminal cannot show to a web page over the same host: a call's MCP Apps view,
//! and a question a server asks in its app view (app-rendered elicitation, SEP-3118).
//!
//! The terminal does not know how the page is served: whoever starts the terminal (the
//! `interlude` CLI) gives it a [`Handoff`], which starts a page on first use and says where it
//! is. The page and the terminal are two surfaces of one host, so an answer given in either
//! reaches the server once, and the other hears how the request ended.
//!
//! How the terminal answers a question asked in a view, with a page to hand it to or without, is
//! the kind's own module (`request/app_form.rs`); here are the handoff itself and the offer to
//! open a call's views after it.

use std::fmt;

use inquire::{Confirm, InquireError};
use interlude_host::{CallRecord, Host, RequestId, ViewId, ViewState};

use crate::TuiError;
use crate::render::{Screen, plain_line};

/// What the terminal hands to a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandoffTarget {
    /// A call's app view.
    View(ViewId),
    /// A question asked in an app view; the page shows it as its current request.
    Request(RequestId),
}

/// A web page over the terminal's own host, to which it hands what it cannot show.
///
/// ```
/// use interlude_tui::{Handoff, HandoffTarget};
///
/// /// A page already being served at a fixed address.
/// struct Page(String);
///
/// impl Handoff for Page {
///     fn address(&self, target: HandoffTarget) -> Result<String, String> {
///         Ok(match target {
///             HandoffTarget::View(view) => format!("{}#view-{}", self.0, view.0),
///             _ => self.0.clone(),
///         })
///     }
/// }
/// ```
pub trait Handoff: Send + Sync + 'static {
    /// The address of a page showing `target`, the page started first if it is not running;
    /// or why there is none, in a sentence.
    fn address(&self, target: HandoffTarget) -> Result<String, String>;
}

impl fmt::Debug for dyn Handoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Handoff")
    }
}

/// After a call: offers to open each of its app views that is still open in the browser (when
/// there is a page to open them on), and each web page its result embeds; says which views of
/// its result cannot be shown.
pub(crate) fn offer_views(
    screen: &Screen,
    host: &Host,
    handoff: Option<&dyn Handoff>,
    call: &CallRecord,
) -> Result<(), TuiError> {
    for view in call.views.iter().filter_map(|v| host.view(*v)) {
        if let ViewState::Failed { reason } = &view.state {
            if view.embedded.is_some() {
                screen.notice(&format!(
                    "This result carries a view that is not shown ({}): {}.",
                    plain_line(&view.resource_uri),
                    plain_line(reason)
                ));
            }
            continue;
        }
        if !matches!(view.state, ViewState::Open | ViewState::Loading) {
            continue;
        }
        // An embedded web page: the person's own browser opens the page itself.
        if let Some(site) = &view.site {
            offer_site(screen, site)?;
            continue;
        }
        let Some(handoff) = handoff else {
            continue;
        };
        let question = format!(
            "This result has an app view ({}). Open it in the browser?",
            plain_line(&view.resource_uri)
        );
        let open = match Confirm::new(&question)
            .with_default(false)
            .with_help_message("a terminal cannot show it; the Interlude page can")
            .prompt()
        {
            Ok(open) => open,
            Err(InquireError::OperationCanceled | InquireError::OperationInterrupted) => false,
            Err(e) => return Err(e.into()),
        };
        if !open {
            continue;
        }
        match handoff.address(HandoffTarget::View(view.id)) {
            Ok(address) => {
                screen.ok("The view is on the Interlude page in your browser:");
                launch(screen, &address);
            }
            Err(why) => screen.error(&format!("No page can be opened: {}", plain_line(&why))),
        }
    }
    Ok(())
}

/// Offers to open the web page a result embeds, named as the URL rules show it (a flagged
/// page by its ASCII form); the default is not to.
fn offer_site(screen: &Screen, site: &interlude_host::ExternalSite) -> Result<(), TuiError> {
    use interlude_host::url_safety::Verdict;
    let display = site.check.display.as_ref();
    let named = match (site.check.verdict, display) {
        (Verdict::Flag, Some(d)) => d.host_ascii.clone(),
        (_, Some(d)) => d
            .registrable_domain
            .clone()
            .unwrap_or_else(|| d.host_unicode.clone()),
        (_, None) => site.url.clone(),
    };
    if site.check.verdict == Verdict::Flag {
        for reason in &site.check.reasons {
            screen.notice(&format!(
                "Look carefully: {}",
                plain_line(&reason.to_string())
            ));
        }
    }
    let question = format!(
        "This result carries a web page on {} ({}). Open it in your browser?",
        plain_line(&named),
        plain_line(&site.url)
    );
    let open = match Confirm::new(&question)
        .with_default(false)
        .with_help_message("it opens in a tab of your own browser, not here")
        .prompt()
    {
        Ok(open) => open,
        Err(InquireError::OperationCanceled | InquireError::OperationInterrupted) => false,
        Err(e) => return Err(e.into()),
    };
    if open {
        launch(screen, &site.url);
    }
    Ok(())
}

/// Prints `address` and hands it to the system's opener.
pub(crate) fn launch(screen: &Screen, address: &str) {
    crate::request::url::launch(screen, address);
}
