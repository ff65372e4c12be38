//! Running the conformance suite: listing a set's scored scenarios, running the client half in
//! a loopback-only network namespace and the server half against a conformance server started
//! for it, each run in a process group stopped after [`RUN_LIMIT`].
//!
//! Not here: judging what a run wrote (`judge.rs`); the exit code of a run is never the verdict.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::Side;

/// One set's run may take this long before it is stopped (it takes a few seconds; the suite
/// itself gives each scenario 30 s).
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The scored scenarios of `side` in set `set`, from `conformance list --client|--server
/// --requirements`: the `  - name` lines under "Client scenarios" or "Server scenarios".
pub(super) fn scored_scenarios(
    node: &Path,
    suite: &Path,
    side: Side,
    set: &str,
) -> anyhow::Result<Vec<String>> {
    let flag = format!("--{}", side.name());
    let text =
        crate::output(
            Command::new(node)
                .arg(suite)
                .args(["list", &flag, "--requirements", set]),
        )?;
    let scored = parse_scored(&text, side);
    if scored.is_empty() {
        bail!(
            "`conformance list {flag} --requirements {set}` named no {} scenario:\n{text}",
            side.name()
        );
    }
    Ok(scored)
}

fn parse_scored(text: &str, side: Side) -> Vec<String> {
    let heading = match side {
        Side::Client => "Client scenarios",
        Side::Server => "Server scenarios",
    };
    text.lines()
        .skip_while(|l| !l.starts_with(heading))
        .skip(1)
        .map_while(|l| l.strip_prefix("  - "))
        .map(|s| s.trim().to_owned())
        .collect()
}

/// Whether this process may create a network namespace with only loopback.
pub(super) fn loopback_namespace_works() -> bool {
    Command::new("unshare")
        .args(["-n", "sh", "-c", "ip link set lo up"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One `conformance client --requirements SET -o DIR` in a loopback-only namespace, its output
/// in `log`. Its exit code is not the verdict (see the module documentation).
pub(super) fn run_suite(
    node: &Path,
    suite: &Path,
    client: &str,
    set: &str,
    dir: &Path,
    log: &Path,
) -> anyhow::Result<()> {
    let log_file =
        std::fs::File::create(log).with_context(|| format!("cannot write {}", log.display()))?;
    let mut cmd = Command::new("unshare");
    cmd.args(["-n", "sh", "-c", r#"ip link set lo up && exec "$@""#, "sh"])
        .arg(node)
        .arg(suite)
        .args(["client", "--command", client, "--requirements", set, "-o"])
        .arg(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file);
    wait_for_suite(&mut cmd, set, log)
}

/// Runs the suite's command `cmd` in a process group of its own, stopping the group after
/// [`RUN_LIMIT`].
fn wait_for_suite(cmd: &mut Command, set: &str, log: &Path) -> anyhow::Result<()> {
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{}`", crate::describe(cmd)))?;
    loop {
        if child.try_wait()?.is_some() {
            return Ok(());
        }
        if started.elapsed() > RUN_LIMIT {
            // Still running, so the group id is still ours.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.wait();
            bail!(
                "the conformance run for {set} did not finish within {RUN_LIMIT:?} (log: {})",
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One `conformance server --requirements SET -o DIR` against a conformance server started for
/// it, the suite's output in `log` and the server's beside it (`….server.log`). Its exit code
/// is not the verdict.
pub(super) fn run_server_suite(
    node: &Path,
    suite: &Path,
    server: &Path,
    set: &str,
    dir: &Path,
    log: &Path,
) -> anyhow::Result<()> {
    let server_log = log.with_extension("server.log");
    let running = ServerProcess::start(server, &server_log)?;
    let url = format!("http://{}/mcp", running.addr);
    let log_file =
        std::fs::File::create(log).with_context(|| format!("cannot write {}", log.display()))?;
    let mut cmd = Command::new(node);
    cmd.arg(suite)
        .args(["server", "--url", &url, "--requirements", set, "-o"])
        .arg(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file);
    let result = wait_for_suite(&mut cmd, set, log);
    drop(running);
    result
}

/// A running `interlude-conformance-server`, stopped when dropped.
struct ServerProcess {
    child: std::process::Child,
    addr: std::net::SocketAddr,
}

/// How long the server may take to accept connections.
const SERVER_START_LIMIT: Duration = Duration::from_secs(20);

impl ServerProcess {
    /// Starts `binary` on a free loopback port, its stderr in `log`, and waits until it accepts
    /// connections. Its stdin is a pipe held by this process: `--stop-with-stdin` makes the
    /// server stop when the pipe closes, which it does when this process ends in any way.
    fn start(binary: &Path, log: &Path) -> anyhow::Result<Self> {
        let addr = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0")
                .context("cannot find a free loopback port")?;
            probe.local_addr()?
        };
        let log_file = std::fs::File::create(log)
            .with_context(|| format!("cannot write {}", log.display()))?;
        let mut cmd = Command::new(binary);
        cmd.args(["--http", &addr.to_string(), "--stop-with-stdin"])
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(log_file.try_clone()?)
            .stderr(log_file);
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start `{}`", crate::describe(&cmd)))?;
        let mut server = ServerProcess { child, addr };
        let started = Instant::now();
        loop {
            if let Some(status) = server.child.try_wait()? {
                bail!(
                    "the conformance server exited before it listened ({status}; log: {})",
                    log.display()
                );
            }
            if std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(server);
            }
            if started.elapsed() > SERVER_START_LIMIT {
                bail!(
                    "the conformance server did not listen on {addr} within \
                     {SERVER_START_LIMIT:?} (log: {})",
                    log.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Closing its stdin would stop it too; killing does not wait for that.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scored_client_list_is_read_from_the_listing() {
        let text = "Required for 2025-11-25 (48 scenarios, frozen):\n\nServer scenarios (test \
                    against a server):\n  - ping\n\nClient scenarios (test against a client):\n  \
                    - initialize\n  - auth/metadata-default\n\nRun and reported, but never \
                    scored:\n  extension (6):\n    - auth/dpop [client]\n";
        assert_eq!(
            parse_scored(text, Side::Client),
            ["initialize", "auth/metadata-default"]
        );
        assert_eq!(parse_scored(text, Side::Server), ["ping"]);
    }
}
