//! `interlude record FILE`: `connect`, with every call that ends kept in a recording.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use interlude_headless::recording::Recorder;

use crate::serve::ConnectArgs;

#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// Where the recording goes (replaced if it exists).
    file: PathBuf,
    #[command(flatten)]
    connect: ConnectArgs,
}

impl RecordArgs {
    /// Whether the terminal surface was asked for.
    pub(crate) fn tui(&self) -> bool {
        self.connect.tui()
    }
}

pub(crate) async fn run(args: RecordArgs) -> anyhow::Result<u8> {
    let file = args.file;
    let (recorder, handle) = Recorder::to_file(&file)
        .with_context(|| format!("cannot write the recording {}", file.display()))?;
    let ran = crate::serve::connect(args.connect, Some(recorder)).await;
    let calls = handle
        .finish()
        .with_context(|| format!("cannot write the recording {}", file.display()))?;
    eprintln!(
        "interlude: {} recorded in {}; `interlude replay {} SERVER` makes them again",
        crate::plural(calls, "call"),
        file.display(),
        file.display()
    );
    ran
}
