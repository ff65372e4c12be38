use interlude_test_support::NpmPeers;
use interlude_test_support::fantoccini::key::Key;
use serde_json::{Value, json};

use crate::harness::{
    Page, SERVER_EVERYTHING, call_selector, harness, harness_with, server_everything,
};

// Every widget, filled with keys and clicks, in both eras.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_widget_by_keyboard_and_mouse_2026() {
    every_widget("demo").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_widget_by_keyboard_and_mouse_2025() {
    every_widget("demo-2025").await;
}

async fn every_widget(server: &str) {
    let page = harness().await;
    page.call_from_sidebar(server, "event_registration").await;
    let (card, _) = page.focused_card(server, None).await;
    // Focus lands on the first field, ready to type.
    let focused_field = page
        .js("document.activeElement.closest('[data-field]')?.dataset.field")
        .await;
    assert_eq!(
        focused_field,
        json!("name"),
        "focus starts on the first field"
    );
    page.type_keys("Ada Lovelace").await;

    // A bad e-mail address first: the engine's own rule shows inline, on the field.
    let email = page.field("email").await;
    email.send_keys("ada@example").await.unwrap();
    let message = page
        .until(
            "document.querySelector('section.ask [data-field=\"email\"] .field-error')?.textContent",
            "no message on the e-mail field",
        )
        .await;
    assert_eq!(
        message,
        json!("Email must be an e-mail address, such as ada@example.com.")
    );
    // The description and the hint, each said once, as sentences (issue 12).
    let help = page
        .js("document.querySelector('section.ask [data-field=\"email\"] .hint')?.textContent")
        .await;
    assert_eq!(
        help,
        json!("Where we send the ticket. For example, ada@example.com.")
    );
    assert_eq!(
        email.attr("aria-invalid").await.unwrap().as_deref(),
        Some("true"),
        "the invalid field is marked for assistive technology"
    );
    email.send_keys(".org").await.unwrap();
    page.until(
        "document.querySelector('section.ask [data-field=\"email\"] .field-error')?.textContent === ''",
        "the message goes once the address is fixed",
    )
    .await;

    page.field("website")
        .await
        .send_keys("https://ada.example.org/")
        .await
        .unwrap();
    // Date and date-time inputs take keys in the locale's order (Chromium runs with
    // --lang=en-US: month, day, year; then hours, minutes, AM/PM), each segment moving on by
    // itself once full; Tab moves from the year to the time part.
    let arrival = page.field("arrival").await;
    arrival.send_keys("08142026").await.unwrap();
    let talk = page.field("talk_slot").await;
    talk.send_keys("08152026").await.unwrap();
    talk.send_keys(&format!("{}0930AM", Key::Tab))
        .await
        .unwrap();
    let (arrival_value, talk_value) = (
        arrival.prop("value").await.unwrap(),
        talk.prop("value").await.unwrap(),
    );
    assert_eq!(arrival_value.as_deref(), Some("2026-08-14"), "date typed");
    assert_eq!(
        talk_value.as_deref(),
        Some("2026-08-15T09:30"),
        "date and time typed"
    );
    page.field("guests").await.send_keys("2").await.unwrap();
    page.field("budget").await.send_keys("850.5").await.unwrap();
    // Three titled choices: radio buttons.
    page.click_choice("ticket", "student").await;
    // Eight choices: a <select>, chosen with the keyboard ("F" jumps to France).
    let country = page.field("country").await;
    assert_eq!(country.tag_name().await.unwrap(), "select");
    country.send_keys("France").await.unwrap();
    // One to three workshops: checkboxes.
    page.click_choice("workshops", "rust-mcp").await;
    page.click_choice("workshops", "accessible-forms").await;
    // The switch.
    let newsletter = page.field("newsletter").await;
    assert_eq!(
        newsletter.attr("role").await.unwrap().as_deref(),
        Some("switch")
    );
    newsletter.click().await.unwrap();

    // No field complains once everything is filled.
    page.until(
        "Array.from(document.querySelectorAll('section.ask .field-error')).every((e) => e.textContent === '')",
        "a field still complains",
    )
    .await;
    // A tall window for the artifact, so the whole card fits (an element screenshot is clipped
    // to the viewport).
    page.client().set_window_size(1280, 2000).await.unwrap();
    page.element_artifact(&card, &format!("event-registration-{server}"))
        .await;
    page.client().set_window_size(1280, 900).await.unwrap();

    page.press("Accept").await;
    let result = page
        .result_containing(server, "event_registration", "Registered Ada Lovelace")
        .await;
    for typed in [
        "Registered Ada Lovelace <ada@example.org>",
        "website https://ada.example.org/",
        "arrival 2026-08-14",
        "talk slot 2026-08-15T09:30:00",
        "2 guests",
        "budget 850.5",
        "ticket Student",
        "from FR",
        "workshops RustMcp, AccessibleForms",
        "newsletter yes",
    ] {
        assert!(result.contains(typed), "{typed:?} missing from {result:?}");
    }
    // The card is gone and the call shows what was sent.
    page.wait_gone("section.ask").await;
    let record = page
        .request_record(server, "event_registration", "accept")
        .await;
    assert!(record.contains("You accepted"), "{record}");
    assert!(record.contains("\"guests\": 2"), "{record}");
    page.close().await;
}

// Decline with the button, cancel with Escape.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decline_button_and_escape_cancel() {
    let page = harness().await;
    page.call_from_sidebar("demo", "github_username").await;
    page.focused_card("demo", None).await;
    page.press("Decline").await;
    page.result_containing("demo", "github_username", "The user declined.")
        .await;
    page.wait_gone("section.ask").await;

    page.call_from_sidebar("demo-2025", "github_username").await;
    page.focused_card("demo-2025", None).await;
    page.type_keys("half-typed").await;
    page.type_keys(&Key::Escape).await;
    page.result_containing("demo-2025", "github_username", "The user cancelled.")
        .await;
    page.wait_gone("section.ask").await;
    let record = page
        .request_record("demo-2025", "github_username", "cancel")
        .await;
    assert!(
        !record.contains("half-typed"),
        "a cancel sends nothing: {record}"
    );
    page.close().await;
}

// A reload loses nothing.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_with_a_pending_request() {
    let page = harness().await;
    page.call_from_sidebar("demo-2025", "contact_info").await;
    let (_, before) = page.focused_card("demo-2025", None).await;
    page.client().refresh().await.unwrap();
    page.wait_live().await;
    // The same request, presented and focused again.
    let (_, after) = page.focused_card("demo-2025", None).await;
    assert_eq!(
        before, after,
        "the same request is presented after a reload"
    );
    page.type_keys("Grace Hopper").await;
    finish_grace_hoppers_contact(&page).await;
    page.result_containing(
        "demo-2025",
        "contact_info",
        "Thanks Grace Hopper (grace@example.org, age 85).",
    )
    .await;
    page.close().await;
}

/// In the contact card whose name is typed: Grace Hopper's e-mail address and age, and Enter.
async fn finish_grace_hoppers_contact(page: &Page) {
    page.field("email")
        .await
        .send_keys("grace@example.org")
        .await
        .unwrap();
    let age = page.field("age").await;
    age.send_keys("85").await.unwrap();
    age.send_keys(&Key::Enter).await.unwrap();
}

/// Watches the card's checks of what is typed (`/api/validate`): `window.__checks.settled`
/// gets the name each one judged once the card has taken its answer in; while `holding`, new
/// checks wait (in `held`) before they are sent.
const WATCH_CHECKS_JS: &str = "(() => {
  const checks = { settled: [], held: [], holding: false };
  window.__checks = checks;
  const fetch = window.fetch;
  window.fetch = async (...a) => {
    const validate = String(a[0]) === '/api/validate';
    if (validate && checks.holding) await new Promise((go) => checks.held.push(go));
    const r = await fetch(...a);
    if (validate) {
      const name = JSON.parse(a[1].body).content?.name;
      const json = r.json.bind(r);
      // Settled once the card's own code after its `await res.json()` has run.
      r.json = async () => { const d = await json(); setTimeout(() => checks.settled.push(name), 0); return d; };
    }
    return r;
  };
  return true;
})()";

/// An answer the engine refuses (posted straight to the API, as a second tab or a script could)
/// is shown on the card, nothing reaches the server, and the person's place in the form survives
/// the re-render.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_refusal_is_shown_and_keeps_focus() {
    let page = harness().await;
    page.call_from_sidebar("demo", "contact_info").await;
    let (_, id) = page.focused_card("demo", None).await;
    page.js(WATCH_CHECKS_JS).await;
    page.type_keys("Grace").await;
    // The card checks what was typed 180 ms after the last key; once that check is back, the
    // engine's refusal below is the last word on the fields (a later check would judge the
    // form's own content, which has no age yet: any is held until the refusal is seen).
    page.until(
        "window.__checks.settled.includes('Grace') ? (window.__checks.holding = true) : null",
        "the card's check of what was typed never came back",
    )
    .await;
    page.browser
        .js(&format!(
            "fetch('/api/answer', {{ method: 'POST', headers: {{ 'content-type': 'application/json', \
             'x-interlude-token': new URLSearchParams(location.search).get('token') }}, \
             body: JSON.stringify({{ id: {id}, action: 'accept', \
             content: {{ name: 'X', email: 'x@example.org', age: 12 }} }}) }}).then((r) => r.status)"
        ))
        .await
        .unwrap();
    let refused = page
        .until(
            "document.querySelector('section.ask .ask-errors')?.textContent",
            "the refusal was not shown",
        )
        .await;
    assert_eq!(
        refused,
        json!("The host refused this answer. Age must be between 18 and 150.")
    );
    let age_error = page
        .js("document.querySelector('section.ask [data-field=\"age\"] .field-error').textContent")
        .await;
    assert_eq!(age_error, json!("Age must be between 18 and 150."));
    // Still the same card, focus still in the name field, typing goes on where it was.
    let (_, still) = page.focused_card("demo", None).await;
    assert_eq!(still, id);
    page.js("(() => { window.__checks.holding = false; \
         window.__checks.held.splice(0).forEach((go) => go()); return true; })()")
        .await;
    page.type_keys(" Hopper").await;
    assert_eq!(
        page.field("name")
            .await
            .prop("value")
            .await
            .unwrap()
            .as_deref(),
        Some("Grace Hopper")
    );
    finish_grace_hoppers_contact(&page).await;
    let result = page
        .result_containing("demo", "contact_info", "Thanks Grace Hopper")
        .await;
    assert!(!result.contains("age 12"), "{result}");
    page.close().await;
}

// Two requests: one presented, one queued, presented next.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_request_is_presented_next() {
    let page = harness().await;
    page.call_from_sidebar("demo", "github_username").await;
    let (_, first) = page.focused_card("demo", None).await;
    // A second request queues behind the first. It is started through the app rather than the
    // composer's button, so the person's focus stays in the card they are answering.
    page.app
        .call_tool("demo", "github_username", None)
        .await
        .unwrap();
    let queue = page
        .until(
            "(() => { const q = document.getElementById('queue'); return q && !q.hidden ? q.textContent : null; })()",
            "no queue bar",
        )
        .await;
    assert!(
        queue.as_str().unwrap().contains("1 more in the queue"),
        "{queue}"
    );
    let summary = page.text("#pending-summary").await;
    assert_eq!(summary, "2 requests waiting for you");
    // A queue item shows where that request waits, in its call…
    page.click("#queue button.queue-item").await;
    page.until(
        "document.activeElement?.dataset?.queued ?? null",
        "the queued request's place did not take focus",
    )
    .await;
    // … and the header's count leads back to the card being answered, focused in its field.
    page.click("#pending-summary button.pending-link").await;
    page.until(
        &format!(
            "(() => {{ const a = document.activeElement; return a && a.closest('section.ask')?.dataset.request === '{first}' && a.matches('input') ? true : null; }})()"
        ),
        "the header's count did not lead to the card",
    )
    .await;
    page.type_keys(&format!("first{}", Key::Enter)).await;

    let (_, second) = page.focused_card("demo", Some(&first)).await;
    assert_ne!(first, second);
    page.until(
        "document.getElementById('queue').hidden",
        "the queue bar goes once nothing waits behind the card",
    )
    .await;
    page.type_keys(&format!("second{}", Key::Enter)).await;
    page.result_containing("demo", "github_username", "Hello, @first!")
        .await;
    page.result_containing("demo", "github_username", "Hello, @second!")
        .await;
    // Each page that presented a card reported how long it took.
    let reported = page.app.telemetry();
    for id in [&first, &second] {
        let id: u64 = id.parse().unwrap();
        assert!(
            reported.iter().any(|(r, _)| *r == id),
            "no telemetry for request {id}: {reported:?}"
        );
    }
    page.close().await;
}

// Two windows on one host stay consistent.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_windows_stay_consistent() {
    let page = harness().await;
    let c = page.client();
    let first = c.window().await.unwrap();
    let second = c.new_window(false).await.unwrap().handle;
    c.switch_to_window(second.clone()).await.unwrap();
    page.open().await;

    // Asked through the second window; both show the card.
    page.call_from_sidebar("demo-2025", "favourite_genre").await;
    let (_, id) = page.focused_card("demo-2025", None).await;
    c.switch_to_window(first.clone()).await.unwrap();
    page.wait_for(
        &format!("section.ask[data-request=\"{id}\"]"),
        "the first window shows the same card",
    )
    .await;

    // Answered in the first window.
    page.click_choice("genre", "jazz").await;
    page.press("Accept").await;
    page.result_containing("demo-2025", "favourite_genre", "Favourite genre: Jazz.")
        .await;

    // The second window follows: no card, the record and the result.
    c.switch_to_window(second).await.unwrap();
    page.wait_gone("section.ask").await;
    page.wait_for(
        &format!(
            "{} .request-record.accept",
            call_selector("demo-2025", "favourite_genre")
        ),
        "no record of the answer",
    )
    .await;
    page.result_containing("demo-2025", "favourite_genre", "Favourite genre: Jazz.")
        .await;
    let summary = page.text("#pending-summary").await;
    assert_eq!(summary, "Nothing is waiting for you");
    page.close().await;
}

// server-everything's form, through the page.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_form_through_the_page() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    page.call_from_sidebar("everything", "trigger-elicitation-request")
        .await;
    page.focused_card("everything", None).await;
    // Who asks: what the server says it is (its serverInfo title), never the program that
    // runs it, with the name it has here beside it.
    let who = page.text("section.ask .ask-server").await;
    assert!(who.starts_with("Everything Reference Server"), "{who}");
    assert!(
        who.ends_with("everything") && !who.contains("node"),
        "{who}"
    );
    let heading = page
        .js("document.querySelector('li[data-server=\"everything\"] .server-name').textContent")
        .await;
    assert_eq!(heading, json!("Everything Reference Server"));

    page.type_keys("Grace Hopper").await;
    // An integer prefilled with its default (42): replaced.
    let integer = page.field("integer").await;
    assert_eq!(integer.prop("value").await.unwrap().as_deref(), Some("42"));
    integer.clear().await.unwrap();
    integer.send_keys("7").await.unwrap();
    // Six untitled choices: a <select>.
    let friend = page.field("untitledSingleSelectEnum").await;
    assert_eq!(friend.tag_name().await.unwrap(), "select");
    friend.select_by_value("Phoebe").await.unwrap();
    // A multi-select prefilled with Guitar: Guitar off, Piano and Violin on.
    page.click_choice("untitledMultipleSelectEnum", "Guitar")
        .await;
    page.click_choice("untitledMultipleSelectEnum", "Piano")
        .await;
    page.click_choice("untitledMultipleSelectEnum", "Violin")
        .await;
    // Titled single select (oneOf): radios.
    page.click_choice("titledSingleSelectEnum", "hero-3").await;
    // The legacy enum with enumNames: radios labelled with the names.
    let birds = page.choice("legacyTitledEnum", "pet-3").await;
    let label = page
        .js("document.querySelector('section.ask [data-field=\"legacyTitledEnum\"] input[value=\"pet-3\"]').parentElement.textContent")
        .await;
    assert_eq!(label, json!("Birds"), "enumNames label the legacy choices");
    birds.click().await.unwrap();
    page.artifact("everything-filled").await;
    page.press("Accept").await;

    let text = page
        .result_containing(
            "everything",
            "trigger-elicitation-request",
            "User provided the requested information",
        )
        .await;
    for line in ["- Name: Grace Hopper", "- Favorite Integer: 7"] {
        assert!(text.contains(line), "{line:?} missing from {text:?}");
    }
    let (_, raw) = text.split_once("Raw result: ").expect("a raw result");
    let raw: Value = serde_json::from_str(raw.trim()).unwrap();
    assert_eq!(raw["action"], "accept");
    let content = &raw["content"];
    assert_eq!(content["name"], "Grace Hopper");
    assert_eq!(content["integer"], 7);
    assert_eq!(content["untitledSingleSelectEnum"], "Phoebe");
    assert_eq!(
        content["untitledMultipleSelectEnum"],
        json!(["Piano", "Violin"])
    );
    assert_eq!(content["titledSingleSelectEnum"], "hero-3");
    assert_eq!(content["legacyTitledEnum"], "pet-3");
    page.close().await;
}
