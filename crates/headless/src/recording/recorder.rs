//! [`Recorder`]: a surface that answers nothing and keeps every finished call as a recording,
//! written to a file after each call (whole, atomically: a reader never sees half of one).
//!
//! What it deliberately does not do: answer a request, or keep a call that is still running.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};

use interlude_host::{AnswerSink, HostEvent, RequestId, RequestRecord, Surface};

use super::{RecordedCall, RecordedServer, Recording};

/// What the recorder and its handle share.
#[derive(Debug, Default)]
struct Shared {
    recording: Recording,
    /// The servers seen so far, by name (a recording lists those its calls went to).
    servers: HashMap<String, RecordedServer>,
    /// The requests of calls still running, as they are now.
    requests: HashMap<RequestId, Arc<RequestRecord>>,
}

/// A surface that records: put it beside the surface the person uses (surfaces pair up as a
/// tuple), and every tool call that ends is added to the recording, with what its server
/// asked and what the person answered. It never answers anything itself.
///
/// ```
/// use interlude_headless::{Answers, HeadlessSurface};
/// use interlude_headless::recording::Recorder;
/// use interlude_host::{Host, HostConfig};
///
/// # #[tokio::main] async fn main() {
/// let (recorder, handle) = Recorder::in_memory();
/// let host = Host::start(HostConfig::default(), (HeadlessSurface::new(Answers::Defaults), recorder));
/// // … connect, call tools …
/// assert!(handle.recording().calls.is_empty());
/// # drop(host); }
/// ```
#[derive(Debug)]
pub struct Recorder {
    shared: Arc<Mutex<Shared>>,
    /// Tells the writer there is more to write (absent when recording in memory).
    wake: Option<mpsc::Sender<Wake>>,
}

/// What the writer thread is told.
#[derive(Debug)]
enum Wake {
    Write,
    Stop,
}

/// The other end of a [`Recorder`]: what it recorded so far, and the last write.
#[derive(Debug)]
pub struct RecorderHandle {
    shared: Arc<Mutex<Shared>>,
    file: Option<PathBuf>,
    wake: Option<mpsc::Sender<Wake>>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Recorder {
    /// A recorder that keeps its recording in memory only ([`RecorderHandle::recording`]).
    pub fn in_memory() -> (Recorder, RecorderHandle) {
        let shared = Arc::new(Mutex::new(Shared::default()));
        (
            Recorder {
                shared: shared.clone(),
                wake: None,
            },
            RecorderHandle {
                shared,
                file: None,
                wake: None,
                writer: None,
            },
        )
    }

    /// A recorder that writes its recording to `file` after every call that ends (and once now,
    /// empty, so that a path that cannot be written is an error at once). The file is readable
    /// by its owner only: it holds what the person typed. It is always replaced whole, from a
    /// new file in a folder only the user may write to (see [`interlude_host::private_file`]).
    pub fn to_file(file: &Path) -> std::io::Result<(Recorder, RecorderHandle)> {
        write(file, &Recording::default())?;
        let shared = Arc::new(Mutex::new(Shared::default()));
        let (wake, woken) = mpsc::channel();
        let writer = {
            let shared = shared.clone();
            let file = file.to_owned();
            std::thread::Builder::new()
                .name("interlude-recorder".into())
                .spawn(move || {
                    while let Ok(Wake::Write) = woken.recv() {
                        // Several calls may have ended meanwhile: one write covers them all.
                        let mut stop = false;
                        while let Ok(more) = woken.try_recv() {
                            stop |= matches!(more, Wake::Stop);
                        }
                        let recording = crate::sync::lock(&shared).recording.clone();
                        if let Err(e) = write(&file, &recording) {
                            tracing::warn!("cannot write the recording {}: {e}", file.display());
                        }
                        if stop {
                            return;
                        }
                    }
                })?
        };
        Ok((
            Recorder {
                shared: shared.clone(),
                wake: Some(wake.clone()),
            },
            RecorderHandle {
                shared,
                file: Some(file.to_owned()),
                wake: Some(wake),
                writer: Some(writer),
            },
        ))
    }
}

impl Surface for Recorder {
    fn on_event(&mut self, event: &HostEvent, _sink: &AnswerSink) {
        let mut shared = crate::sync::lock(&self.shared);
        match event {
            HostEvent::ServerAdded(server) | HostEvent::ServerChanged(server) => {
                shared
                    .servers
                    .insert(server.name.clone(), RecordedServer::of(server));
            }
            HostEvent::RequestQueued(record)
            | HostEvent::RequestPresented(record)
            | HostEvent::RequestInvalid(record)
            | HostEvent::RequestClosed(record)
            | HostEvent::RequestReplied(record)
            // A request raised outside any call is no call's: not recorded.
            | HostEvent::RequestChanged(record)
                if record.request.call.is_some() =>
            {
                shared.requests.insert(record.request.id, record.clone());
            }
            HostEvent::CallEnded(call) => {
                let recorded = RecordedCall::of(call, |id| shared.requests.get(&id).cloned());
                for id in &call.requests {
                    shared.requests.remove(id);
                }
                if let Some(recorded) = recorded {
                    if let Some(server) = shared.servers.get(&recorded.server).cloned() {
                        shared
                            .recording
                            .servers
                            .insert(recorded.server.clone(), server);
                    }
                    shared.recording.calls.push(recorded);
                    if let Some(wake) = &self.wake {
                        let _ = wake.send(Wake::Write);
                    }
                }
            }
            _ => {}
        }
    }
}

impl RecorderHandle {
    /// What was recorded so far.
    pub fn recording(&self) -> Recording {
        crate::sync::lock(&self.shared).recording.clone()
    }

    /// Stops writing in the background and writes the recording a last time; returns how many
    /// calls it holds.
    pub fn finish(mut self) -> std::io::Result<usize> {
        if let Some(wake) = self.wake.take() {
            let _ = wake.send(Wake::Stop);
        }
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
        let recording = self.recording();
        if let Some(file) = &self.file {
            write(file, &recording)?;
        }
        Ok(recording.calls.len())
    }
}

/// Writes `recording` to `file` whole, mode 0600: into a new temporary file of a random name
/// beside it, then renamed over it ([`interlude_host::private_file::replace`]). A `FILE.part`
/// someone planted, or a link at `FILE`, is never opened or written through.
fn write(file: &Path, recording: &Recording) -> std::io::Result<()> {
    let mut text = recording.to_json();
    text.push('\n');
    interlude_host::private_file::replace(file, text.as_bytes())
}
