//! The Interlude surfaces that need no person at the keyboard, on the host's public API only:
//!
//! - [`HeadlessSurface`] answers every request from a script ([`Answers`]) or from the
//!   schema's defaults, at once: CI, the CLI's `call` command, conformance runs.
//! - [`recording`]: session recordings — a [`Recorder`](recording::Recorder) surface keeps
//!   every finished call with what its server asked and what was answered, and
//!   [`compare`](recording::compare) names every difference when a recording is run again
//!   (`interlude record` / `interlude replay`).
//!
//! What it deliberately does not do: connect to servers or drive the engine (the host does),
//! show anything to a person (the web and terminal surfaces do), or reach into the host's
//! internals (`cargo xtask tidy` allows this crate the host alone).
//!
//! # Example
//! ```no_run
//! use interlude_headless::{Answers, HeadlessSurface};
//! use interlude_host::{Host, HostConfig, ServerSpec};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let host = Host::start(HostConfig::default(), HeadlessSurface::new(Answers::Defaults));
//! let conn = host.connect("demo", ServerSpec::parse("interlude-demo")?).await?;
//! let outcome = conn.call_tool("contact_info", None).await?;
//! println!("{}", serde_json::to_string(&outcome.result)?);
//! # Ok(()) }
//! ```

pub mod recording;
mod surface;
mod sync;

pub use surface::{AnswerQueue, Answers, AnswersError, HeadlessSurface, LINK_POLL, ScriptedAnswer};
