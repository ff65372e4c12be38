use std::time::Duration;

use interlude_test_support::NpmPeers;
use serde_json::{Value, json};

use crate::harness::{Extra, Page, WAIT, args, harness_with, js, npm_app};

/// A one-page PDF, written by hand (server-pdf is given a local file: no network here).
fn tiny_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        "<< /Length 44 >>\nstream\nBT /F1 24 Tf 40 70 Td (Interlude) Tj ET\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ];
    let mut pdf = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.push_str(&format!("{} 0 obj\n{body}\nendobj\n", i + 1));
    }
    let xref = pdf.len();
    pdf.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        pdf.push_str(&format!("{offset:010} 00000 n \n"));
    }
    pdf.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    pdf.into_bytes()
}

/// The published example apps (npm, pinned, over stdio) each open beside their call and finish
/// the App SDK's handshake in Chromium: budget-allocator (chart.js), debug, system-monitor
/// (which polls an app-only tool), three.js (WebGL, code run with `new Function`: the host's
/// CSP profile allows eval) and pdf (pdf.js and its worker, a local file). Screenshots of each
/// are artifacts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_published_example_apps_open_and_initialize() {
    let apps: [(&str, &str, &str); 5] = [
        (
            "budget",
            "@modelcontextprotocol/server-budget-allocator/dist/index.js",
            "get-budget-data",
        ),
        (
            "debug",
            "@modelcontextprotocol/server-debug/dist/index.js",
            "debug-tool",
        ),
        (
            "monitor",
            "@modelcontextprotocol/server-system-monitor/dist/index.js",
            "get-system-info",
        ),
        (
            "threejs",
            "@modelcontextprotocol/server-threejs/dist/index.js",
            "show_threejs_scene",
        ),
        (
            "pdf",
            "@modelcontextprotocol/server-pdf/dist/index.js",
            "display_pdf",
        ),
    ];
    let files: Vec<&str> = apps.iter().map(|(_, f, _)| *f).collect();
    let Some(peers) = NpmPeers::locate(&files) else {
        return;
    };
    let pdf = std::env::temp_dir().join(format!("interlude-apps-{}.pdf", std::process::id()));
    std::fs::write(&pdf, tiny_pdf()).unwrap();
    let extra: Vec<Extra> = apps
        .iter()
        .map(|(name, file, _)| {
            let extra = if *name == "pdf" {
                vec![pdf.to_string_lossy().into_owned()]
            } else {
                Vec::new()
            };
            (*name, npm_app(&peers, file, &extra), None)
        })
        .collect();
    let page = harness_with(extra).await;
    let mut failures = Vec::new();
    for (name, _, tool) in apps {
        // server-pdf: the local file it was given (its default is a paper on the network).
        let mut arguments = (name == "pdf")
            .then(|| args(json!({ "url": format!("file://{}", pdf.display()) })))
            .flatten();
        // three.js: the scene's code is the tool's input (its schema's default, as the page's
        // composer fills it in): the view runs what the call was given.
        if name == "threejs" {
            let snapshot = page.app.host().snapshot();
            let server = snapshot.servers.iter().find(|s| s.name == name).unwrap();
            let tool = server.tools.iter().find(|t| t.name == tool).unwrap();
            let code = tool.input_schema["properties"]["code"]["default"].clone();
            assert!(code.is_string(), "{:?}", tool.input_schema);
            arguments = args(json!({ "code": code }));
        }
        let call = page.app.call_tool(name, tool, arguments).await.unwrap();
        let view_of_call = || {
            page.app
                .host()
                .snapshot()
                .views
                .iter()
                .find(|v| v.call.map(|c| c.0) == Some(call))
                .cloned()
        };
        let live =
            interlude_test_support::wait_until(
                "the view to go live",
                WAIT,
                || match view_of_call() {
                    Some(v) if v.live_at_ms.is_some() => Some(Ok(v)),
                    Some(v) if matches!(v.state, interlude_host::ViewState::Failed { .. }) => {
                        Some(Err(format!("{name}: {:?}", v.state)))
                    }
                    _ => None,
                },
            )
            .await
            .unwrap_or_else(|_| Err(format!("{name}: never initialized ({:?})", view_of_call())));
        match live {
            Ok(view) => {
                if name == "budget" {
                    // The view registers tools of its own: the host lists them, and the person
                    // (in a model's place) calls one from the page. Found and clicked in one
                    // step: the view's notes are redrawn as it reports its size and logs.
                    let selector = format!(
                        "li.app-view[data-view=\"{}\"] button.app-tool[data-tool=\"get-allocations\"]",
                        view.id.0
                    );
                    page.until(&format!("(() => {{ const b = document.querySelector({}); if (!b) return null; b.scrollIntoView({{block: 'center'}}); b.click(); return true; }})()", js(&selector)), "the budget view's tools were not listed").await;
                    let answered = page.until(&format!("document.querySelector('li.app-view[data-view=\"{}\"] .app-tool-result')?.textContent ?? null", view.id.0), "the view's tool did not answer").await;
                    let answered = answered.as_str().unwrap();
                    assert!(answered.starts_with("get-allocations → "), "{answered}");
                    assert!(!answered.contains("error"), "{answered}");
                }
                if name == "threejs" {
                    // The scene really ran (WebGL on SwiftShader): the view's own tool reports
                    // its source, no error, and a render loop going.
                    let selector = format!(
                        "li.app-view[data-view=\"{}\"] button.app-tool[data-tool=\"get-scene-info\"]",
                        view.id.0
                    );
                    let info = page.until(&format!(
                                "(() => {{ const b = document.querySelector({}); const r = document.querySelector('li.app-view[data-view=\"{}\"] .app-tool-result')?.textContent; \
                                 if (r && r.includes('isRendering\":true')) return r; if (b) b.click(); return null; }})()",
                                js(&selector),
                                view.id.0
                            ), "the three.js scene did not report rendering").await;
                    let info = info.as_str().unwrap();
                    let json: Value =
                        serde_json::from_str(info.split_once(" → ").map_or(info, |(_, j)| j))
                            .unwrap_or_else(|e| panic!("{e}: {info}"));
                    assert_eq!(json["error"], Value::Null, "{info}");
                    assert!(
                        json["code"].as_str().is_some_and(|c| c.contains("THREE")),
                        "{info}"
                    );
                    assert_eq!(json["isRendering"], true, "{info}");
                }
                // Into sight first: Chromium runs no animation frames in a cross-origin frame
                // out of sight, so a view framed below the fold has not measured itself (its
                // frame keeps the default 150 px) nor drawn (three.js renders in animation
                // frames) until it is scrolled to. Then wait for its size to reach its frame.
                page.client()
                    .execute(
                        &format!(
                            "document.querySelector('li.app-view[data-view=\"{}\"]').scrollIntoView({{block: 'start'}}); return true;",
                            view.id.0
                        ),
                        vec![],
                    )
                    .await
                    .unwrap();
                let height = interlude_test_support::wait_until("its size", WAIT, || {
                    page.app
                        .host()
                        .snapshot()
                        .views
                        .iter()
                        .find(|v| v.id == view.id)
                        .and_then(|v| v.height)
                })
                .await
                .ok();
                let sized = match height {
                    None => Err("the view never said its size".to_owned()),
                    Some(h) => page
                        .browser
                        .wait_js(
                            &format!(
                                "Math.round(document.querySelector('li.app-view[data-view=\"{}\"] iframe.app-frame')?.getBoundingClientRect().height) === {} || null",
                                view.id.0,
                                h.max(80)
                            ),
                            WAIT,
                        )
                        .await
                        .map_err(|e| e.to_string()),
                };
                if let Err(e) = sized {
                    failures.push(format!("{name}: its frame never took the view's size: {e}"));
                }
                if name == "threejs" {
                    // What the person sees: the scene's pixels (see the_threejs_scene_draws_pixels).
                    page.enter_view_at(&format!(
                        "li.app-view[data-view=\"{}\"] iframe.app-frame",
                        view.id.0
                    ))
                    .await;
                    let pixels = scene_pixels(&page).await;
                    page.leave_view().await;
                    if pixels["green"].as_u64().unwrap_or(0) <= 50 {
                        failures.push(format!("threejs: the canvas shows no cube: {pixels}"));
                    }
                }
                page.artifact(&format!("app-{name}")).await;
            }
            Err(e) => failures.push(e),
        }
    }
    let _ = std::fs::remove_file(&pdf);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// What the three.js view's canvas shows in the frame after the next one drawn: its size, and
/// how many of a grid of its pixels are opaque and how many distinct colours they have. Read
/// inside the view, in an animation frame after the scene's own (the WebGL buffer is only
/// readable before the frame is composited: the scene does not preserve it).
const CANVAS_PIXELS_JS: &str = r#"
const done = arguments[arguments.length - 1];
const canvas = document.querySelector('canvas');
if (!canvas) { done({ canvas: false }); return; }
requestAnimationFrame(() => requestAnimationFrame(() => {
  const w = canvas.width, h = canvas.height;
  const probe = document.createElement('canvas');
  probe.width = w; probe.height = h;
  const ctx = probe.getContext('2d');
  let error = null, opaque = 0, colours = new Set(), green = 0;
  try {
    ctx.drawImage(canvas, 0, 0);
    const data = ctx.getImageData(0, 0, w, h).data;
    for (let y = 0; y < h; y += 4) for (let x = 0; x < w; x += 4) {
      const i = (y * w + x) * 4;
      if (data[i + 3] > 0) {
        opaque++;
        colours.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
        if (data[i + 1] > data[i] + 40 && data[i + 1] > data[i + 2]) green++;
      }
    }
  } catch (e) { error = String(e); }
  const r = canvas.getBoundingClientRect();
  done({ canvas: true, width: w, height: h, shownWidth: r.width, shownHeight: r.height,
         opaque, colours: colours.size, green, error });
}));
"#;

/// [`CANVAS_PIXELS_JS`] in the three.js view the session is in, until the canvas shows the
/// cube or the wait is over.
async fn scene_pixels(page: &Page) -> Value {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let pixels = page
            .client()
            .execute_async(CANVAS_PIXELS_JS, vec![])
            .await
            .unwrap();
        if pixels["green"].as_u64().unwrap_or(0) > 50 || std::time::Instant::now() > deadline {
            return pixels;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The published three.js example draws its scene (a lit, rotating cube) with WebGL on
/// SwiftShader: the canvas is as large as the view shows it, and its pixels are not blank — a
/// green cube, shaded in many colours, over a transparent background. A crop of the page's
/// screenshot is an artifact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_threejs_scene_draws_pixels() {
    const THREEJS: &str = "@modelcontextprotocol/server-threejs/dist/index.js";
    let Some(peers) = NpmPeers::locate(&[THREEJS]) else {
        return;
    };
    let page = harness_with(vec![("threejs", npm_app(&peers, THREEJS, &[]), None)]).await;
    let snapshot = page.app.host().snapshot();
    let server = snapshot
        .servers
        .iter()
        .find(|s| s.name == "threejs")
        .unwrap();
    let tool = server
        .tools
        .iter()
        .find(|t| t.name == "show_threejs_scene")
        .unwrap();
    let code = tool.input_schema["properties"]["code"]["default"].clone();
    assert!(code.is_string(), "{:?}", tool.input_schema);
    let call = page
        .app
        .call_tool(
            "threejs",
            "show_threejs_scene",
            args(json!({ "code": code })),
        )
        .await
        .unwrap();
    let view = page.live_view_of(call, 2 * WAIT).await;
    let item = format!("li.app-view[data-view=\"{view}\"]");
    page.client()
        .execute(
            &format!(
                "document.querySelector({}).scrollIntoView({{block: 'start'}}); return true;",
                js(&item)
            ),
            vec![],
        )
        .await
        .unwrap();
    let frame = page
        .wait_for(&format!("{item} iframe.app-frame[src]"), "no frame")
        .await;
    page.enter_view(frame.clone()).await;
    let pixels = scene_pixels(&page).await;
    eprintln!("three.js canvas: {pixels}");
    page.leave_view().await;
    let _ = page
        .browser
        .screenshot_element(&frame, "browser-app-threejs-canvas")
        .await;
    page.artifact("app-threejs-scene").await;
    assert_eq!(pixels["error"], Value::Null, "{pixels}");
    assert!(
        pixels["width"].as_u64().unwrap_or(0) >= 200
            && pixels["height"].as_u64().unwrap_or(0) >= 200,
        "the canvas has a size: {pixels}"
    );
    assert!(
        pixels["opaque"].as_u64().unwrap_or(0) > 100,
        "the scene drew something: {pixels}"
    );
    assert!(
        pixels["colours"].as_u64().unwrap_or(0) >= 3,
        "a lit cube (three faces at least), not one flat colour: {pixels}"
    );
    assert!(
        pixels["green"].as_u64().unwrap_or(0) > 50,
        "the cube is green: {pixels}"
    );
}
