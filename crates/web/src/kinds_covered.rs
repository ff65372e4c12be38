//! Every kind of request the host can send has a renderer on every surface: an entry in the
//! page's projection (`state.rs`, matched without a wildcard), a row in the page's renderer table
//! (`assets/host/kinds.js`, which `app.js` picks from), and an arm in the terminal's
//! (`crates/tui/src/request.rs`, matched without a wildcard there too).

use std::collections::BTreeSet;
use std::sync::Arc;

use interlude_engine::{
    AppFormRequest, AppStage, FormRequest, ModelPriorities, Request, RequestId, RequestKind,
    RequestMethod, SamplingPart, SamplingRequest, SamplingRole, SamplingTurn, ServerId, UrlPolicy,
    UrlRequest, UrlStage, ViewId, ViewLinkRequest, check_url,
};
use interlude_host::schema::{Content, FormSchema};
use interlude_host::{RequestRecord, RequestState, RequestStatus};
use interlude_protocol::ProtocolEra;

use crate::state::kind_entry;

/// The name of `kind`'s variant. No wildcard: a new kind fails to compile here — give it an arm
/// and a sample in [`one_of_each`].
fn variant(kind: &RequestKind) -> &'static str {
    match kind {
        RequestKind::Form(_) => "Form",
        RequestKind::Url(_) => "Url",
        RequestKind::AppForm(_) => "AppForm",
        RequestKind::ViewLink(_) => "ViewLink",
        RequestKind::Sampling(_) => "Sampling",
    }
}

/// One request of each kind.
fn one_of_each() -> Vec<RequestKind> {
    let form = FormRequest {
        message: "Your name?".into(),
        schema: Arc::new(FormSchema::empty()),
        prefill: Content::new(),
        requested_schema: Arc::new(serde_json::json!({"type": "object"})),
    };
    vec![
        RequestKind::Form(form.clone()),
        RequestKind::Url(Box::new(UrlRequest {
            message: "Sign in".into(),
            url: "https://example.com/sign-in".into(),
            elicitation_id: None,
            check: check_url("https://example.com/sign-in", &UrlPolicy::default()),
            stage: UrlStage::Consent,
        })),
        RequestKind::AppForm(Box::new(AppFormRequest {
            form,
            resource_uri: "ui://review".into(),
            stage: AppStage::View,
        })),
        RequestKind::ViewLink(Box::new(ViewLinkRequest {
            message: "The app of \"demo\" asks you to open a link.".into(),
            url: "https://example.com/docs".into(),
            check: check_url("https://example.com/docs", &UrlPolicy::default()),
            view: ViewId(1),
        })),
        RequestKind::Sampling(Box::new(SamplingRequest {
            message: "Reply as the model to a conversation of 1 message.".into(),
            messages: vec![SamplingTurn {
                role: SamplingRole::User,
                parts: vec![SamplingPart::Text("What is the capital of France?".into())],
            }],
            system_prompt: None,
            model_hints: Vec::new(),
            priorities: ModelPriorities::default(),
            max_tokens: 100,
            temperature: None,
            stop_sequences: Vec::new(),
            include_context: None,
            tools: Vec::new(),
        })),
    ]
}

/// A pending record of `kind`, in the state its kind starts in.
fn record(kind: RequestKind) -> RequestRecord {
    let state = match &kind {
        RequestKind::Form(_) => RequestState::Form {
            requested_schema: None,
        },
        RequestKind::Url(_) => RequestState::Url {
            link: None,
            progress: None,
        },
        RequestKind::AppForm(_) => RequestState::AppForm {
            requested_schema: None,
        },
        RequestKind::ViewLink(_) => RequestState::ViewLink { link: None },
        RequestKind::Sampling(_) => RequestState::Sampling,
    };
    RequestRecord {
        request: Request {
            id: RequestId(1),
            server: ServerId(1),
            server_name: "demo".into(),
            call: None,
            era: ProtocolEra::Push,
            method: RequestMethod::Elicitation,
            kind,
        },
        status: RequestStatus::Presented,
        errors: Vec::new(),
        received_at_ms: 0,
        state,
    }
}

/// The kinds named in the page's renderer table (`export const renderers = Object.freeze({` …
/// `});`, one `'<kind>': {` row each).
fn page_renderers(kinds_js: &str) -> BTreeSet<String> {
    let start = kinds_js
        .find("export const renderers = Object.freeze({")
        .expect("kinds.js declares its renderer table");
    let table = &kinds_js[start..];
    let table = &table[..table.find("\n});").expect("the renderer table ends")];
    table
        .lines()
        .filter_map(|line| {
            let row = line.strip_prefix("  '")?;
            let (kind, rest) = row.split_once('\'')?;
            rest.starts_with(": {").then(|| kind.to_owned())
        })
        .collect()
}

/// The page's name of each kind, as the projection writes it (`kind` in a request's entry).
fn page_names() -> Vec<(&'static str, String)> {
    let kinds = one_of_each();
    let variants: BTreeSet<_> = kinds.iter().map(variant).collect();
    assert_eq!(variants.len(), kinds.len(), "one sample of each kind, once");
    kinds
        .into_iter()
        .map(|kind| {
            let name = variant(&kind);
            let entry = serde_json::to_value(kind_entry(&record(kind))).unwrap();
            let page = entry["kind"].as_str().unwrap_or_default().to_owned();
            assert!(!page.is_empty(), "{name}: no `kind` in {entry}");
            (name, page)
        })
        .collect()
}

#[test]
fn every_kind_has_a_renderer_on_the_page() {
    let table = page_renderers(include_str!("../assets/host/kinds.js"));
    let names = page_names();
    for (variant, name) in &names {
        assert!(
            table.contains(name),
            "RequestKind::{variant} reaches the page as `{name}`, and the page's renderer table \
             (assets/host/kinds.js) has no row for it: {table:?}"
        );
    }
    // And it draws nothing the host cannot send (a row for a kind that was renamed).
    let sent: BTreeSet<String> = names.into_iter().map(|(_, name)| name).collect();
    assert_eq!(
        table, sent,
        "the page's renderer table and the kinds the host sends"
    );
    // The page picks from that table.
    let app = include_str!("../assets/host/app.js");
    assert!(
        app.contains("rendererOf(req).ask(") && app.contains("rendererOf(r).record("),
        "app.js draws requests through kinds.js's table"
    );
}

#[test]
fn every_kind_has_a_renderer_in_the_terminal() {
    // The terminal matches every kind without a wildcard (and fails to compile without an arm);
    // this names the arm each kind has there.
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tui/src/request.rs"
    ))
    .unwrap();
    for (variant, _) in page_names() {
        assert!(
            source.contains(&format!("RequestKind::{variant}(")),
            "the terminal (crates/tui/src/request.rs) has no arm for RequestKind::{variant}"
        );
    }
}

#[test]
fn the_renderer_table_is_read_as_written() {
    // The reader above can fail: a table without a kind's row is seen without it.
    let js = "export const renderers = Object.freeze({\n  'form': {\n    ask: a,\n  },\n  'url': {\n  },\n});\n";
    let table = page_renderers(js);
    assert_eq!(table, BTreeSet::from(["form".to_owned(), "url".to_owned()]));
    assert!(!table.contains("app-form"));
}

#[test]
fn each_kind_reaches_the_page_where_the_page_reads_it() {
    // `kind` and `status` are flattened beside what every request has; each kind's fields are
    // where the renderers read them (form.js: `fields`, `prefill`; url.js: `link`; view.js and
    // app.js: `app.stage`, `app.resourceUri`).
    let entries: Vec<_> = one_of_each()
        .into_iter()
        .map(|kind| serde_json::to_value(kind_entry(&record(kind))).unwrap())
        .collect();
    assert_eq!(entries[0]["kind"], "form");
    assert!(entries[0]["fields"].is_array() && entries[0]["prefill"].is_object());
    assert!(entries[0].get("link").is_none(), "{}", entries[0]);
    assert_eq!(entries[1]["kind"], "url");
    assert_eq!(entries[1]["link"]["stage"], "consent");
    assert_eq!(entries[1]["link"]["full"], "https://example.com/sign-in");
    assert!(entries[1].get("fields").is_none(), "{}", entries[1]);
    assert_eq!(entries[2]["kind"], "app-form");
    assert_eq!(entries[2]["app"]["stage"], "view");
    assert_eq!(entries[2]["app"]["resourceUri"], "ui://review");
    assert!(entries[2]["fields"].is_array());
}
