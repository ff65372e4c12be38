use interlude_test_support::Browser;
use interlude_test_support::NpmPeers;
use interlude_test_support::fantoccini::Locator;
use interlude_test_support::fantoccini::wd::WindowHandle;
use serde_json::json;

use interlude_test_support::fantoccini::key::Key;

use crate::harness::{Page, WAIT, eventually, harness, harness_with_flows, harness_with_flows_and};
use crate::in_process::{TestServer, text_result, tool};

impl Page {
    /// In the flow's tab: sign in, enter `key`, save; then close the tab and come back.
    async fn complete_flow_in_new_tab(&self, key: &str) {
        let home = self.switch_to_new_window().await;
        let c = self.client();
        // Signed in by an earlier flow of the same test, the key field shows at once.
        let signed_in = self
            .until(
                "document.querySelector('input#secret') ? 'key' : \
                 (document.querySelector(\"main a[href*='/sign-in']\") ? 'sign-in' : null)",
                "neither a key field nor a sign-in link",
            )
            .await;
        if signed_in == json!("sign-in") {
            self.sign_in_on_the_flow_page().await;
        }
        let input = self
            .wait_for(
                "input#secret[type=password]",
                "no key field after signing in",
            )
            .await;
        input.send_keys(key).await.unwrap();
        c.find(Locator::Css("button[type=submit]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let saved = c
            .wait()
            .at_most(WAIT)
            .for_element(Locator::XPath("//h1[text()='Saved']"))
            .await;
        if saved.is_err() {
            let html = c.source().await.unwrap_or_default();
            let url = c
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default();
            panic!("the server's page did not say Saved; at {url}: {html}");
        }
        let html = c.source().await.unwrap();
        assert!(!html.contains(key), "the page never echoes the key");
        c.close_window().await.unwrap();
        c.switch_to_window(home).await.unwrap();
    }

    /// Everything the host logged or recorded, as text.
    fn host_text(&self) -> String {
        let audit = serde_json::to_string(&self.app.host().audit_records()).unwrap();
        format!("{audit} {:?}", self.app.host().snapshot())
    }
}

/// The link the host let through for the latest URL request, once there is one.
async fn opened_link(page: &Page) -> String {
    eventually("a link to be opened", WAIT, || {
        page.app
            .host()
            .snapshot()
            .requests
            .iter()
            .rev()
            .find_map(|r| match r.link() {
                Some(interlude_host::LinkState::Opened { url }) => Some(url.clone()),
                _ => None,
            })
    })
    .await
}

/// 2025-11-25: the consent card shows the link with its origin and the development-origin
/// note; "Open" opens the server's page in a new tab; after sign-in and the key, the server's
/// completion notification closes the request and the call returns. The key appears nowhere in
/// the host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_flow_through_the_page_2025() {
    let (page, origin) = harness_with_flows().await;
    page.call_from_sidebar("demo-2025", "weather_api_key").await;
    let (card, _) = page.focused_card("demo-2025", None).await;
    let text = card.text().await.unwrap();
    assert!(
        text.contains(&format!("{origin}/flows/")),
        "the full link: {text}"
    );
    assert!(text.contains("development origin"), "the dev note: {text}");
    // Its era, and the request as the protocol has it, as a form's card has them.
    assert!(
        text.contains("2025 · elicitation/create"),
        "the era chip: {text}"
    );
    let wire = page
        .js("JSON.parse(document.querySelector('section.link-ask details.wire pre.wire-request').textContent)")
        .await;
    assert_eq!(wire["mode"], "url", "{wire}");
    assert!(
        wire["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{origin}/flows/")),
        "{wire}"
    );
    assert!(wire["elicitationId"].is_string(), "{wire}");
    page.artifact("url-consent").await;
    let open = card.find(Locator::Css("button.primary")).await.unwrap();
    assert!(open.text().await.unwrap().starts_with("Open"));
    open.click().await.unwrap();
    // The link forwarded to someone else: a second browser, signed in as another account,
    // is refused and sees no form.
    let link = opened_link(&page).await;
    let other = Browser::start().await.unwrap_or_else(|e| panic!("{e}"));
    // On the server's own page first (signed out: "Sign in first"), so the cookie is its.
    other.client().goto(&link).await.unwrap();
    let mallory =
        interlude_server::url::SignedCookie::new(interlude_demo::flows::COOKIE, [7u8; 32])
            .unwrap()
            .header_value(&interlude_server::url::UserId::new("mallory"));
    other
        .client()
        .execute(
            "document.cookie = arguments[0]; return true;",
            vec![json!(format!("{mallory}; path=/"))],
        )
        .await
        .unwrap();
    other.client().goto(&link).await.unwrap();
    let refused = other
        .wait_for("main h1", WAIT)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(refused, "This link is not yours");
    assert!(other.client().find(Locator::Css("form")).await.is_err());
    other.close().await;
    page.complete_flow_in_new_tab("wx-secret-2025").await;
    let result = page
        .result_containing("demo-2025", "weather_api_key", "Saved your Weather API key")
        .await;
    assert!(!result.contains("wx-secret-2025"));
    page.until(
        "document.querySelector('[data-link=\"completed\"]') ? true : null",
        "the request was not shown as finished",
    )
    .await;
    page.artifact("url-completed").await;
    assert!(!page.host_text().contains("wx-secret-2025"));
    let html = page.client().source().await.unwrap();
    assert!(!html.contains("wx-secret-2025"));
}

/// 2025-11-25 `-32042`: the forecast needs a key first. The host shows the required link as a
/// request of the call, waits for the server's word once the key is entered, and calls again by
/// itself; the second call gets the forecast. And on another call, "I’m done" ends the wait at
/// the person's word: the record says so while the call goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_needs_a_key_first_2025() {
    let (page, _origin) = harness_with_flows().await;
    page.call_from_sidebar("demo-2025", "weather_forecast")
        .await;
    let (card, _) = page.focused_card("demo-2025", None).await;
    let text = card.text().await.unwrap();
    assert!(text.contains("needs your weather service"), "{text}");
    page.press_primary(&card).await;
    let waiting = "document.querySelector('[data-link=\"opened\"] button.link-done') ? true : null";
    page.until(waiting, "no waiting record with “I’m done”")
        .await;
    page.artifact("url-required-waiting").await;
    page.complete_flow_in_new_tab("wx-forecast-2025").await;
    let result = page
        .result_containing("demo-2025", "weather_forecast", "Tomorrow in Lisbon")
        .await;
    assert!(result.contains("16-character key"), "{result}");
    assert!(!page.host_text().contains("wx-forecast-2025"));
    let call = &page.app.host().snapshot().calls[0];
    assert_eq!(call.requests.len(), 1, "one link, then one retry");

    // "I’m done" before the server's word.
    page.call_from_sidebar("demo-2025", "weather_api_key").await;
    let (card, _) = page.focused_card("demo-2025", None).await;
    page.press_primary(&card).await;
    page.until(waiting, "no waiting record with “I’m done”")
        .await;
    // Out from under the page's sticky header first.
    page.click_clear("[data-link=\"opened\"] button.link-done")
        .await;
    let said = page
        .until(
            "document.querySelector('[data-link=\"done\"]')?.textContent ?? null",
            "the record did not say done",
        )
        .await;
    assert!(
        said.as_str().unwrap().contains("You said you were done"),
        "{said}"
    );
    page.complete_flow_in_new_tab("wx-secret-done").await;
    page.result_containing("demo-2025", "weather_api_key", "Saved your Weather API key")
        .await;
}

/// 2026-07-28: consent opens the page; the server asks again for the same link while the flow
/// is unfinished, and the card says "waiting for you in the browser"; after the key, "I am done"
/// lets the call go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_flow_through_the_page_2026() {
    let (page, _origin) = harness_with_flows().await;
    page.call_from_sidebar("demo", "weather_api_key").await;
    let (card, first) = page.focused_card("demo", None).await;
    let text = card.text().await.unwrap();
    assert!(
        text.contains("2026-07-28 · input required"),
        "the era chip: {text}"
    );
    page.press_primary(&card).await;
    page.complete_flow_in_new_tab("wx-secret-2026").await;
    let (card, _) = page.focused_card("demo", Some(&first)).await;
    let done = card.find(Locator::Css("button.primary")).await.unwrap();
    assert_eq!(done.text().await.unwrap(), "I am done in the browser");
    page.artifact("url-waiting").await;
    done.click().await.unwrap();
    let result = page
        .result_containing("demo", "weather_api_key", "Saved your Weather API key")
        .await;
    assert!(!result.contains("wx-secret-2026"));
    assert!(!page.host_text().contains("wx-secret-2026"));
}

impl Page {
    /// Calls `tool` of `server`, consents on its link card, follows the link into the new tab
    /// and signs in there; returns the page's own window and the first request's id.
    async fn open_the_flow(&self, server: &str, tool: &str) -> (WindowHandle, String) {
        self.call_from_sidebar(server, tool).await;
        let (card, first) = self.focused_card(server, None).await;
        self.press_primary(&card).await;
        let home = self.switch_to_new_window().await;
        self.sign_in_on_the_flow_page().await;
        (home, first)
    }

    /// Closes the flow's tab, comes back, and says "I am done" on the request that follows
    /// `first` (a 2026-07-28 server asking again for the same link).
    async fn back_and_done(&self, home: WindowHandle, server: &str, first: &str) {
        let c = self.client();
        c.close_window().await.unwrap();
        c.switch_to_window(home).await.unwrap();
        // Back in the page's window, as a person clicking back to its tab.
        c.execute("window.focus(); return true;", vec![])
            .await
            .unwrap();
        let (card, _) = self.focused_card(server, Some(first)).await;
        self.press_primary(&card).await;
    }
}

/// OAuth (2026-07-28): consent opens the server's page, which (once signed in) sends the
/// browser to Example Cloud's consent; "Allow" comes back to the server's callback, which keeps
/// the tokens; "I am done" lets the call go on. No token reaches the host or the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_flow_through_the_page() {
    let (page, _origin) = harness_with_flows().await;
    let (home, first) = page.open_the_flow("demo", "connect_cloud_account").await;
    let c = page.client();
    let allow = page
        .wait_for("button.allow", "no consent page at Example Cloud")
        .await;
    page.artifact("oauth-consent").await;
    allow.click().await.unwrap();
    page.wait_heading("Example Cloud is connected").await;
    let html = c.source().await.unwrap();
    assert!(!html.contains("ecl_"), "no token on the page");
    page.back_and_done(home, "demo", &first).await;
    let result = page
        .result_containing(
            "demo",
            "connect_cloud_account",
            "Connected your Example Cloud",
        )
        .await;
    assert!(result.contains("files.read"), "{result}");
    assert!(!page.host_text().contains("ecl_"), "no token in the host");
}

const OIDC_PROVIDER: &str = "oidc-provider/lib/index.js";

/// A real OpenID provider (`oidc-provider`, pinned) on 127.0.0.1, stopped when dropped.
struct OidcProvider {
    child: std::process::Child,
    issuer: String,
}

impl Drop for OidcProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl OidcProvider {
    fn start(peers: &NpmPeers, redirect_uri: &str) -> OidcProvider {
        use std::io::BufRead;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/test_data/oidc_provider.mjs");
        let mut child = std::process::Command::new(&peers.node)
            .arg(script)
            .args([
                &port.to_string(),
                "interlude-test",
                "oidc-test-secret",
                redirect_uri,
            ])
            .env("INTERLUDE_NPM_PEERS", &peers.npm)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        // The provider prints notices later on: keep its stdout drained (a closed pipe would
        // end it).
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let issuer = line
            .trim()
            .strip_prefix("ready ")
            .unwrap_or_else(|| panic!("the OpenID provider did not start: {line:?}"))
            .to_owned();
        OidcProvider { child, issuer }
    }
}

/// The same OAuth flow against a real OpenID provider: its own login and consent pages, its
/// PKCE and code checks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_flow_with_a_real_openid_provider() {
    let Some(peers) = NpmPeers::locate(&[OIDC_PROVIDER]) else {
        return;
    };
    let oidc = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = oidc.clone();
    let (page, _origin) = harness_with_flows_and(|base| async move {
        let provider = OidcProvider::start(&peers, &format!("{base}/oauth/callback"));
        let issuer = provider.issuer.clone();
        *slot.lock().unwrap() = Some(provider);
        interlude_server::url::OAuthProvider::new(
            "cloud",
            "Example Cloud",
            format!("{issuer}/auth"),
            format!("{issuer}/token"),
            "interlude-test",
        )
        .with_secret("oidc-test-secret")
        .with_scopes(["openid"])
    })
    .await;
    let (home, first) = page.open_the_flow("demo", "connect_cloud_account").await;
    let c = page.client();
    // The provider's own login page (development interactions: any name and password).
    let login = page
        .wait_for("input[name=login]", "no login page at the OpenID provider")
        .await;
    login.send_keys("ada").await.unwrap();
    c.find(Locator::Css("input[name=password]"))
        .await
        .unwrap()
        .send_keys("secret")
        .await
        .unwrap();
    page.artifact("oidc-login").await;
    c.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Its consent page: once the login page is gone (its own submit button would be found
    // first, then go stale as the page navigates).
    let left_login = page
        .browser
        .wait_js(
            "!document.querySelector('input[name=login]') && !!document.querySelector('button[type=submit]') || null",
            WAIT,
        )
        .await;
    let consent = match left_login.map_err(|e| e.to_string()).and(
        c.find(Locator::Css("button[type=submit]"))
            .await
            .map_err(|e| e.to_string()),
    ) {
        Ok(button) => button,
        Err(e) => {
            let url = c
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default();
            let html = c.source().await.unwrap_or_default();
            panic!("no consent page ({e}) at {url}: {html}");
        }
    };
    consent.click().await.unwrap();
    page.wait_heading("Example Cloud is connected").await;
    page.back_and_done(home, "demo", &first).await;
    page.result_containing(
        "demo",
        "connect_cloud_account",
        "Connected your Example Cloud",
    )
    .await;
    drop(oidc);
}

/// A link whose name passes for another site's ("аpple.com", with a Cyrillic "а") is flagged:
/// its card names it only by its ASCII form, and Decline comes first, primary, with focus on it
/// (Enter declines). The look-alike spelling is on no button.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_look_alike_link_is_named_in_ascii_and_declined_by_default() {
    let page = harness().await;
    let sign_in = tool(
        "sign_in",
        "Sends the person to a sign-in page",
        json!({"type": "object"}),
    );
    let server = TestServer::new(vec![sign_in], |_, context| async move {
        let params: rmcp::model::ElicitRequestParams = serde_json::from_value(json!({
            "mode": "url",
            "message": "Sign in to continue",
            "url": "https://\u{0430}pple.com/login",
            "elicitationId": "look-alike-1"
        }))
        .map_err(|e| rmcp::ErrorData::internal_error(e.to_string(), None))?;
        let answer = context
            .peer
            .create_elicitation(params)
            .await
            .map_err(|e| rmcp::ErrorData::internal_error(e.to_string(), None))?;
        Ok(text_result(format!("answered {:?}", answer.action)))
    });
    page.connect_in_process("lookalike", server).await;
    page.call_from_sidebar("lookalike", "sign_in").await;
    page.focused_card("lookalike", None).await;
    let buttons = page
        .js("Array.from(document.querySelectorAll('section.link-ask .actions button')).map((b) => [b.textContent, b.classList.contains('primary')])")
        .await;
    assert_eq!(
        buttons,
        json!([
            ["Decline", true],
            ["Open xn--pple-43d.com in a new tab", false],
            ["Cancel", false]
        ]),
        "{buttons}"
    );
    assert_eq!(
        page.js("document.activeElement?.textContent ?? null").await,
        json!("Decline"),
        "focus starts on Decline"
    );
    page.type_keys(&Key::Enter).await;
    page.result_containing("lookalike", "sign_in", "Decline")
        .await;
}

/// 2026-07-28, "I am done" pressed before the flow is finished: the server asks again, and the
/// card says so — the flow is not finished yet — instead of the same card again in silence. The
/// waiting card names the site once, not the message and the link a second time (issue 23).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn done_too_early_says_the_flow_is_not_finished() {
    let (page, _origin) = harness_with_flows().await;
    page.call_from_sidebar("demo", "weather_api_key").await;
    let (card, first) = page.focused_card("demo", None).await;
    page.press_primary(&card).await;
    // The flow's tab opened beside this one; the person comes back without finishing there.
    let (card, second) = page.focused_card("demo", Some(&first)).await;
    let note = card
        .find(Locator::Css(".waiting-note"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(note.contains("The link is open in your browser"), "{note}");
    assert!(
        card.find(Locator::Css(".ask-message")).await.is_err(),
        "the waiting card repeats the server's message"
    );
    page.press_primary(&card).await;
    let (card, _) = page.focused_card("demo", Some(&second)).await;
    let note = card
        .find(Locator::Css(".waiting-note"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(note.contains("says the flow is not finished yet"), "{note}");
    page.artifact("url-done-too-early").await;
}
