//! The demo's MCP App: a weather dashboard (the seed's example). `weather_dashboard` shows a
//! city's forecast in the view `ui://demo/weather`; the view asks for fresh ones through
//! `weather_refresh`, and for ten years of history through the slow `weather_history` (with
//! progress, and a Stop that cancels it), tools only views may call. The forecasts are made up (no network), the
//! same for a city and an hour.

use std::sync::LazyLock;

use interlude_server::apps::{AppResource, Apps};
use serde::Serialize;

/// The view's resource.
pub const WEATHER_VIEW: &str = "ui://demo/weather";

/// The portfolio review's view: it renders the question `portfolio_review` asks (app-rendered
/// elicitation, SEP-3118).
pub const PORTFOLIO_VIEW: &str = "ui://demo/portfolio";

/// The Apps SDK widget's resource (`text/html+skybridge`).
pub const COUNTER_VIEW: &str = "ui://demo/counter";

/// The demo's views.
pub(crate) static APPS: LazyLock<Apps> = LazyLock::new(|| {
    let view = AppResource::new(WEATHER_VIEW, include_str!("../assets/weather.html")).map(|r| {
        r.title("Weather dashboard")
            .description("A city's forecast, refreshed by the view itself")
            // An origin of its own: its storage is apart from the demo's other views.
            .domain("weather.interlude.example")
    });
    let counter = AppResource::new(COUNTER_VIEW, include_str!("../assets/counter.html")).map(|r| {
        r.apps_sdk()
            .title("Counter (written for ChatGPT's Apps SDK)")
    });
    let portfolio =
        AppResource::new(PORTFOLIO_VIEW, include_str!("../assets/portfolio.html")).map(|r| {
            r.title("Portfolio review")
                .description("Reviews a customer portfolio and picks its new manager")
        });
    match (view, counter, portfolio) {
        (Ok(view), Ok(counter), Ok(portfolio)) => {
            Apps::new().with(view).with(counter).with(portfolio)
        }
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            tracing::error!("the demo's views: {e}");
            Apps::new()
        }
    }
});

/// The `_meta` of a tool written for ChatGPT's Apps SDK: its widget, callable by the widget.
pub(crate) fn counter_meta() -> rmcp::model::MetaObject {
    let mut meta = serde_json::Map::new();
    meta.insert("openai/outputTemplate".into(), COUNTER_VIEW.into());
    meta.insert("openai/widgetAccessible".into(), true.into());
    rmcp::model::MetaObject(meta)
}

const SKIES: [&str; 6] = ["sunny", "cloudy", "rain", "storm", "snow", "fog"];

/// The skies that go with a temperature: snow only at 2 °C or below, no storm in the cold.
fn skies_at(celsius: i64) -> &'static [&'static str] {
    if celsius <= 2 {
        &["sunny", "cloudy", "snow", "fog"]
    } else {
        SKIES.get(..4).unwrap_or(&SKIES)
    }
}
const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// A made-up forecast (the structured content of both tools).
#[derive(Debug, Serialize)]
pub(crate) struct Forecast {
    city: String,
    now: Now,
    days: Vec<Day>,
    issue: u64,
    updated: String,
}

#[derive(Debug, Serialize)]
struct Now {
    temperature: i64,
    sky: &'static str,
}

#[derive(Debug, Serialize)]
struct Day {
    day: &'static str,
    sky: &'static str,
    high: i64,
    low: i64,
}

/// Forecast number `issue` for `city`.
pub(crate) fn forecast(city: &str, issue: u64) -> Forecast {
    let seed = city.bytes().fold(issue.wrapping_mul(0x9e37_79b9), |h, b| {
        h.wrapping_mul(31).wrapping_add(u64::from(b))
    });
    let pick = |n: u64, from: &[&'static str]| -> &'static str {
        let len = u64::try_from(from.len()).unwrap_or(1).max(1);
        usize::try_from(n % len)
            .ok()
            .and_then(|i| from.get(i))
            .copied()
            .unwrap_or("sunny")
    };
    let temperature = 8 + i64::try_from(seed % 20).unwrap_or(0);
    // The next five days in order, from today (1970-01-01 was a Thursday).
    let today = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    let days = (0..5u32)
        .map(|d| {
            let s = seed.rotate_left(d * 7);
            let high = temperature + i64::try_from(s % 7).unwrap_or(0) - 3;
            Day {
                day: pick(today + 3 + u64::from(d), &DAYS),
                sky: pick(s >> 5, skies_at(high)),
                high,
                low: high - 6 - i64::try_from(s % 4).unwrap_or(0),
            }
        })
        .collect();
    Forecast {
        city: city.to_owned(),
        now: Now {
            temperature,
            sky: pick(seed >> 7, skies_at(temperature)),
        },
        days,
        issue,
        updated: clock(),
    }
}

impl Forecast {
    /// Today's high (the first day's).
    pub(crate) fn high_today(&self) -> i64 {
        self.days.first().map_or(self.now.temperature, |d| d.high)
    }

    /// The text a host without apps shows (and a model reads).
    pub(crate) fn text(&self) -> String {
        let days: Vec<String> = self
            .days
            .iter()
            .map(|d| format!("{} {} {}°/{}°", d.day, d.sky, d.high, d.low))
            .collect();
        format!(
            "{}: {} °C, {} now; next days: {}.",
            self.city,
            self.now.temperature,
            self.now.sky,
            days.join(", ")
        )
    }
}

/// The time now, `HH:MM:SS` UTC.
fn clock() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!(
        "{:02}:{:02}:{:02} UTC",
        secs / 3600 % 24,
        secs / 60 % 60,
        secs % 60
    )
}

/// The next forecast issue (each call makes a new one).
pub(crate) fn next_issue() -> u64 {
    static ISSUE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    ISSUE.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The days follow each other from today, and no day above 2 °C has snow.
    #[test]
    fn a_forecast_reads_like_weather() {
        for city in ["Lisbon", "Tokyo", "Oslo", "Reykjavik", "Cairo"] {
            for issue in 0..50 {
                let f = forecast(city, issue);
                let at = |d: &Day| DAYS.iter().position(|x| *x == d.day).unwrap_or(99);
                for pair in f.days.windows(2) {
                    if let [a, b] = pair {
                        assert_eq!((at(a) + 1) % 7, at(b), "{city} {issue}: {:?}", f.days);
                    }
                }
                for d in &f.days {
                    assert!(d.sky != "snow" || d.high <= 2, "{city} {issue}: {d:?}");
                }
                assert!(f.now.sky != "snow" || f.now.temperature <= 2);
            }
        }
    }
}
