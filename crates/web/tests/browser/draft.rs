//! The User Interaction draft (seed 000): `interaction/create` from a server written by hand
//! against the draft's JSON, and from the demo's toolkit, answered through the page.

use std::time::Duration;

use interlude_host::ServerSpec;
use interlude_test_support::fantoccini::Locator;
use interlude_test_support::fantoccini::elements::Element;
use interlude_web::WebOptions;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::harness::{Page, harness_with_flows_declaring, pin_2025, start};

/// The hand-written seed-000 server (`crates/demo/tests/test_data/interaction_server.py`):
/// each of its tools returns, as its text, the JSON of what it saw.
fn seed_000_server() -> ServerSpec {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo/tests/test_data/interaction_server.py");
    ServerSpec::Stdio {
        command: "python3".into(),
        args: vec![script.to_string_lossy().into_owned()],
        env: Default::default(),
    }
}

/// A page whose host declares the User Interaction draft, with only `seed` (the hand-written
/// server, pinned to 2025-11-25) connected. The `ua`'s host name resolves to a public address
/// from a fixed table (nothing is looked up on this machine).
async fn harness_seed_000() -> Page {
    let public: std::net::IpAddr = "93.184.215.14".parse().unwrap();
    let host = interlude_host::HostConfig {
        declare: interlude_engine::Declared::default().with_user_interaction(),
        resolver: interlude_host::Resolver::fixed([("oauth.example.com", vec![public])]),
        url_wait: Duration::from_secs(10),
        ..interlude_host::HostConfig::default()
    };
    let options = WebOptions {
        host,
        ..WebOptions::default()
    };
    let servers = async { vec![("seed", seed_000_server(), Some(pin_2025()))] };
    start(options, CancellationToken::new(), servers).await
}

/// The chip on `card` saying it came through the draft.
async fn draft_chip(card: &Element) -> Element {
    card.find(Locator::Css(".ask-head .chip.draft"))
        .await
        .unwrap_or_else(|e| panic!("the card did not come through the draft (no chip): {e}"))
}

/// A `prompt` through the page: the card says it came through the draft (chip and note), shows
/// the server's message and its three fields with the e-mail rule inline as for any form;
/// Accept answers `{"result": {"content": …}}` with what was typed, and a second prompt
/// declined gets the draft's error `-1`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_000_prompt_is_a_form_marked_as_the_draft() {
    let page = harness_seed_000().await;
    page.call_from_sidebar("seed", "prompt").await;
    let (card, _) = page.focused_card("seed", None).await;
    let chip = draft_chip(&card).await;
    assert_eq!(chip.text().await.unwrap(), "interaction/create · draft");
    assert_eq!(
        chip.attr("title").await.unwrap().as_deref(),
        Some("User Interaction draft (interaction/create)")
    );
    // The draft's chip stands in for the era's chip: no "2025-11-25" chip beside it.
    assert!(
        card.find(Locator::Css(".ask-head .chip[class*='era-']"))
            .await
            .is_err(),
        "an era chip beside the draft's"
    );
    let message = card
        .find(Locator::Css(".ask-message"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(message, "Let us know some information about you.");
    let notes = card.text().await.unwrap();
    assert!(
        notes.contains("Asked through the User Interaction draft (seed 000)"),
        "{notes}"
    );
    let fields = page.js("Array.from(document.querySelectorAll('section.ask [data-field]')).map((f) => f.dataset.field)").await;
    assert_eq!(
        fields,
        json!(["name", "email", "age"]),
        "the author's order"
    );

    page.type_keys("Ada Lovelace").await;
    let email = page.field("email").await;
    email.send_keys("ada@example").await.unwrap();
    let complaint = page
        .until(
            "document.querySelector('section.ask [data-field=\"email\"] .field-error')?.textContent || null",
            "no message on the e-mail field",
        )
        .await;
    assert_eq!(
        complaint,
        json!("Email must be an e-mail address, such as ada@example.com.")
    );
    email.send_keys(".org").await.unwrap();
    page.field("age").await.send_keys("36").await.unwrap();
    page.until("Array.from(document.querySelectorAll('section.ask .field-error')).every((e) => e.textContent === '') || null", "no field complains once the address is fixed").await;
    // What Accept sends, as the draft has it: a result with `content`, no `action`.
    let wire = page
        .js("document.querySelector('section.ask .wire-response')?.textContent")
        .await;
    let wire: Value = serde_json::from_str(wire.as_str().unwrap()).unwrap();
    assert_eq!(
        wire,
        json!({"content": {"name": "Ada Lovelace", "email": "ada@example.org", "age": 36}})
    );
    page.element_artifact(&card, "seed-000-prompt").await;

    page.press("Accept").await;
    let result = page.result_containing("seed", "prompt", "\"result\"").await;
    let seen = json_in(&result);
    assert_eq!(
        seen,
        json!({"result": {"content": {"name": "Ada Lovelace", "email": "ada@example.org", "age": 36}}}),
        "{result}"
    );
    page.wait_gone("section.ask").await;

    // Declined: the draft's refusal, error -1.
    page.call_from_sidebar("seed", "prompt").await;
    page.focused_card("seed", None).await;
    page.press("Decline").await;
    let result = page.result_containing("seed", "prompt", "\"error\"").await;
    assert!(
        result.contains(r#""code": -1"#)
            && result.contains("User did not consent to the interaction")
            && result.contains(r#""action": "decline""#),
        "{result}"
    );
    page.close().await;
}

/// The JSON object in a result's text (after its label and copy button).
fn json_in(result: &str) -> Value {
    let (start, end) = (result.find('{').unwrap(), result.rfind('}').unwrap());
    serde_json::from_str(&result[start..=end])
        .unwrap_or_else(|e| panic!("the server's text is its JSON: {e}: {result}"))
}

/// A `ua` through the page: the link card says it came through the draft; once the person
/// consents, the server gets `{}` and the host tracks the interaction with
/// `interaction/notify`; the server's progress shows on the waiting record, its answer ends the
/// wait ("Finished in the browser"), and the tool's result has the reply and the notify.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_000_ua_is_a_link_marked_as_the_draft_and_tracked_to_its_end() {
    let page = harness_seed_000().await;
    page.call_from_sidebar("seed", "ua").await;
    let (card, _) = page.focused_card("seed", None).await;
    let chip = draft_chip(&card).await;
    assert_eq!(
        chip.text().await.unwrap(),
        "interaction/create · ua · draft"
    );
    let text = card.text().await.unwrap();
    assert!(text.contains("Please sign in to your account."), "{text}");
    assert!(
        text.contains("https://oauth.example.com/authorize?client_id=abc123&state=1234567890"),
        "the full link before consent: {text}"
    );
    page.artifact("seed-000-ua-consent").await;
    // Every text the waiting record's progress line ever shows (it may last a moment only).
    page.js("(() => { window.progressSeen = []; new MutationObserver(() => { \
             for (const e of document.querySelectorAll('.link-progress')) \
               if (!window.progressSeen.includes(e.textContent)) window.progressSeen.push(e.textContent); \
             }).observe(document.body, { childList: true, subtree: true, characterData: true }); \
             return true; })()")
        .await;
    let open = card.find(Locator::Css("button.primary")).await.unwrap();
    assert_eq!(
        open.text().await.unwrap(),
        "Open example.com in a new tab",
        "consent names the registrable domain"
    );
    open.click().await.unwrap();

    let result = page.result_containing("seed", "ua", "\"reply\"").await;
    let seen = json_in(&result);
    assert_eq!(seen["reply"], json!({"result": {}}), "{result}");
    assert_eq!(seen["notify"]["id"], "c8ec9a71-ua", "{result}");
    page.until(
        "document.querySelector('[data-link=\"completed\"]') ? true : null",
        "the link was not shown as finished",
    )
    .await;
    let progress = page.js("window.progressSeen").await;
    assert_eq!(
        progress,
        json!(["The server says: 50 of 100 (50%) — Reticulating splines..."]),
        "the server's progress on the waiting record"
    );
    page.artifact("seed-000-ua-finished").await;
    page.close().await;
}

/// The demo's `newsletter_sign_up` on the 2025 era (`demo-2025`) from a host that declares the
/// User Interaction draft: the form comes through `interaction/create` (the draft's chip on the
/// card), then the confirmation on the server's own page through a `ua` link (the draft's chip
/// again); once confirmed there, the call ends saying it asked through `interaction/create`.
/// The same tool on the 2026-07-28 era (`demo`) asks through elicitation: no draft chip.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demos_newsletter_sign_up_asks_through_the_draft_on_2025() {
    let (page, _origin) = harness_with_flows_declaring(
        interlude_engine::Declared::default().with_user_interaction(),
        |base| async move {
            interlude_server::url::OAuthProvider::new(
                "cloud",
                "Example Cloud",
                format!("{base}/unused/authorize"),
                format!("{base}/unused/token"),
                interlude_demo::flows::CLOUD_CLIENT_ID,
            )
        },
    )
    .await;
    page.call_from_sidebar("demo-2025", "newsletter_sign_up")
        .await;
    let (card, form_id) = page.focused_card("demo-2025", None).await;
    let chip = draft_chip(&card).await;
    assert_eq!(chip.text().await.unwrap(), "interaction/create · draft");
    page.type_keys("Ada Lovelace").await;
    page.field("email")
        .await
        .send_keys("ada@example.org")
        .await
        .unwrap();
    page.press("Accept").await;

    // The confirmation: a ua link to the demo's own page.
    let (card, _) = page.focused_card("demo-2025", Some(&form_id)).await;
    let chip = draft_chip(&card).await;
    assert_eq!(
        chip.text().await.unwrap(),
        "interaction/create · ua · draft"
    );
    page.press_primary(&card).await;
    let home = page.switch_to_new_window().await;
    page.sign_in_on_the_flow_page().await;
    page.wait_for("button[value=confirm]", "no Confirm on the server's page")
        .await
        .click()
        .await
        .unwrap();
    page.wait_heading("Confirmed").await;
    page.client().close_window().await.unwrap();
    page.client().switch_to_window(home).await.unwrap();
    let result = page
        .result_containing("demo-2025", "newsletter_sign_up", "Signed up")
        .await;
    assert!(
        result.contains(
            "Signed up Ada Lovelace <ada@example.org> and confirmed on the server's page"
        ) && result.contains("asked through the User Interaction draft, interaction/create"),
        "{result}"
    );

    // 2026-07-28: the toolkit asks through elicitation, and the card says nothing of the draft.
    page.call_from_sidebar("demo", "newsletter_sign_up").await;
    let (card, _) = page.focused_card("demo", None).await;
    assert!(
        card.find(Locator::Css(".chip.draft")).await.is_err(),
        "a draft chip on an elicitation"
    );
    page.press("Decline").await;
    let result = page
        .result_containing("demo", "newsletter_sign_up", "You declined")
        .await;
    assert!(result.contains("asked through elicitation"), "{result}");
    page.close().await;
}
