//! Sampling answered by a person in the page: the demo's `draft_tagline` asks the client for a
//! model's reply (a push request on `demo-2025`, an input request on `demo`, 2026-07-28). The
//! card shows the conversation, the system prompt and the server's wishes as plain text; the
//! person writes the reply, which the server gets as the model's; an empty reply is refused in
//! place; a decline reaches the server.

use interlude_test_support::fantoccini::key::Key;
use serde_json::json;

use crate::harness::harness;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_writes_the_models_reply_in_both_eras() {
    let page = harness().await;
    for server in ["demo-2025", "demo"] {
        page.app
            .call_tool(server, "draft_tagline", None)
            .await
            .unwrap();
        let (card, _) = page.focused_card(server, None).await;
        let text = card.text().await.unwrap();
        for shown in [
            "A server asks for a model's reply",
            "Reply as the model to a conversation of 1 message.",
            "System prompt",
            "You write short, honest product taglines.",
            "Write a tagline of at most eight words for a solar-powered kettle.",
            "60 tokens",
            "claude",
            "Temperature",
        ] {
            assert!(
                text.contains(shown),
                "{server}: the card lacks {shown:?}:\n{text}"
            );
        }
        // Focus is in the reply; sending it empty is refused in place, and nothing leaves.
        assert_eq!(
            page.js("document.activeElement?.name").await,
            json!("text"),
            "{server}: the reply has no focus"
        );
        page.press("Send reply").await;
        page.until(
            "document.querySelector('section.sampling-ask .ask-errors')?.textContent.includes('Write the reply') || null",
            "an empty reply was not refused in place",
        )
        .await;
        if server == "demo" {
            page.artifact("sampling-card").await;
        }
        page.type_keys("Tea, by sunlight.").await;
        // Ctrl+Enter sends (Enter alone starts a new line).
        page.type_keys(&format!("{}{}", Key::Control, Key::Enter))
            .await;
        page.result_containing(
            server,
            "draft_tagline",
            "Tagline for a solar-powered kettle: Tea, by sunlight. (written by interlude-person)",
        )
        .await;
    }
    page.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declining_a_sampling_request_tells_the_server() {
    let page = harness().await;
    page.app
        .call_tool("demo-2025", "draft_tagline", None)
        .await
        .unwrap();
    page.focused_card("demo-2025", None).await;
    page.press("Decline").await;
    page.result_containing("demo-2025", "draft_tagline", "The user declined.")
        .await;
    // The record says what became of it.
    page.until(
        "document.querySelector('.sampling-record.decline')?.textContent.includes('You declined to reply') || null",
        "no record of the decline",
    )
    .await;
    page.close().await;
}
