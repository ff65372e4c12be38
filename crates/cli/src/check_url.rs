//! `interlude check-url`: the host's verdict on a link, as the consent screen judges it.

use anyhow::Context;
use clap::Args;
use interlude_engine::url_safety::{DevOrigin, UrlPolicy, Verdict, check_url};

use crate::{EXIT_DECLINED, EXIT_ERROR, EXIT_OK};

#[derive(Debug, Args)]
pub(crate) struct CheckUrlArgs {
    /// The link to judge (never fetched, opened or looked up).
    url: String,
    /// The development setting: allow plain http to loopback hosts.
    #[arg(long)]
    allow_loopback_http: bool,
    /// An origin on this machine allowed in development (e.g. http://127.0.0.1:4000); may be
    /// given more than once.
    #[arg(long, value_name = "ORIGIN")]
    dev_origin: Vec<String>,
}

/// Prints the verdict as JSON; exit 0 allow, 1 flag, 2 refuse.
pub(crate) fn run(args: &CheckUrlArgs) -> anyhow::Result<u8> {
    let dev_origins = args
        .dev_origin
        .iter()
        .map(|o| DevOrigin::parse(o).with_context(|| format!("--dev-origin {o}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let policy = UrlPolicy {
        allow_loopback_http: args.allow_loopback_http,
        dev_origins,
    };
    let check = check_url(&args.url, &policy);
    crate::outln!("{}", serde_json::to_string_pretty(&check)?);
    Ok(match check.verdict {
        Verdict::Allow => EXIT_OK,
        Verdict::Flag => EXIT_DECLINED,
        Verdict::Refuse => EXIT_ERROR,
    })
}
