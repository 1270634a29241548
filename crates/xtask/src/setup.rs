//! Installing what the commands need, each step idempotent: it checks
//! first and installs only what is absent.

use super::*;

pub(crate) const WASM_TARGET: &str = "wasm32-unknown-unknown";

pub(crate) fn ensure_wasm_target() -> Result<(), String> {
    let mut list = Command::new("rustup");
    list.args(["target", "list", "--installed"]);
    if output(list)?.lines().any(|line| line.trim() == WASM_TARGET) {
        println!("  {WASM_TARGET}: present");
        return Ok(());
    }
    println!("  {WASM_TARGET}: installing");
    let mut add = Command::new("rustup");
    add.args(["target", "add", WASM_TARGET]);
    run(add)
}

/// The wasm-bindgen CLI, pinned to the `wasm-bindgen` crate version that
/// `crates/baton-wasm` pins with `=`.
pub(crate) const WASM_BINDGEN: &str = "0.2.130";

pub(crate) fn ensure_wasm_bindgen() -> Result<(), String> {
    let mut probe = Command::new("wasm-bindgen");
    probe.arg("--version");
    let version = probe
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    let runner = Command::new("wasm-bindgen-test-runner")
        .arg("--version")
        .output()
        .map(|out| out.status.success())
        .unwrap_or(false);
    if version.as_deref() == Some(&format!("wasm-bindgen {WASM_BINDGEN}")) && runner {
        println!("  wasm-bindgen {WASM_BINDGEN}: present");
        return Ok(());
    }
    println!("  wasm-bindgen {WASM_BINDGEN}: installing (a few minutes on two cores)");
    // Not `--locked`: its lockfile names a webpki-roots release the registry
    // here does not serve; the resolver picks the nearest that it does.
    let mut install = cargo();
    install.args([
        "install",
        "wasm-bindgen-cli",
        "--version",
        &format!("={WASM_BINDGEN}"),
    ]);
    run(install)
}

pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";
pub(crate) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

pub(crate) fn ensure_chromium() -> Result<(), String> {
    if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
        println!("  chromium and chromedriver: present");
        return Ok(());
    }
    println!("  chromium and chromedriver: installing from Debian");
    let mut install = Command::new("sh");
    install.args([
        "-c",
        "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver",
    ]);
    run(install)
}

/// Firefox ESR, and WebKitGTK's MiniBrowser with its WebDriver, as Debian
/// packages them (`tests/pkg/browsers.mjs` drives them).
pub(crate) const FIREFOX: &str = "/usr/bin/firefox-esr";
pub(crate) const WEBKIT_DRIVER: &str = "/usr/bin/WebKitWebDriver";

pub(crate) fn ensure_other_engines() -> Result<(), String> {
    let present = [
        FIREFOX,
        WEBKIT_DRIVER,
        "/usr/bin/xvfb-run",
        "/usr/bin/xauth",
    ];
    if present.iter().all(|path| Path::new(path).exists()) {
        println!("  firefox-esr, webkit2gtk-driver and xvfb: present");
        return Ok(());
    }
    println!("  firefox-esr, webkit2gtk-driver and xvfb: installing from Debian");
    let mut install = Command::new("sh");
    install.args([
        "-c",
        "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr webkit2gtk-driver xvfb xauth",
    ]);
    run(install)
}

/// The official AG-UI Python SDK the real peer is built on.
pub(crate) const AGUI_PYTHON: &str = "ag-ui-protocol==1.0.0";

pub(crate) fn ensure_agui_python() -> Result<(), String> {
    let mut probe = Command::new("python3");
    probe.args(["-c", "import ag_ui.core, ag_ui.encoder, importlib.metadata as m; assert m.version('ag-ui-protocol') == '1.0.0'"]);
    if probe
        .output()
        .map(|out| out.status.success())
        .unwrap_or(false)
    {
        println!("  {AGUI_PYTHON}: present");
        return Ok(());
    }
    println!("  {AGUI_PYTHON}: installing");
    let mut install = Command::new("python3");
    install.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        AGUI_PYTHON,
    ]);
    run(install)
}

/// The pinned agent frameworks the framework tests serve (pydantic-ai and
/// LangGraph with `ag-ui-langgraph`): their own venv, so their dozens of
/// dependencies never meet the machine's Python.
pub(crate) const FRAMEWORKS: &str = "tests/peers/frameworks-requirements.txt";

/// The venv's Python.
pub(crate) fn frameworks_python() -> PathBuf {
    root().join("target/frameworks-venv/bin/python")
}

/// Creates the frameworks' venv and installs the pinned requirements into
/// it, unless every pin is there already.
pub(crate) fn ensure_frameworks() -> Result<(), String> {
    ensure_venv("target/frameworks-venv", FRAMEWORKS)
}

/// The tracing backend the OpenTelemetry tests export to and query: Arize
/// Phoenix, from PyPI, in a venv of its own (its dependencies and the
/// frameworks' do not agree).
pub(crate) const TRACING: &str = "tests/peers/tracing-requirements.txt";

/// The tracing venv's `phoenix` command.
pub(crate) fn phoenix() -> PathBuf {
    root().join("target/tracing-venv/bin/phoenix")
}

/// Creates the tracing backend's venv and installs its pins into it.
pub(crate) fn ensure_tracing() -> Result<(), String> {
    ensure_venv("target/tracing-venv", TRACING)
}

/// Creates `venv` and installs the pinned `requirements` into it, unless
/// every pin is there already.
fn ensure_venv(venv: &str, requirements: &str) -> Result<(), String> {
    let python = root().join(venv).join("bin/python");
    let mut probe = Command::new(&python);
    probe
        .args(["-m", "pip", "install", "--dry-run", "--no-deps", "--quiet"])
        .args(["--disable-pip-version-check", "--no-index", "-r"])
        .arg(root().join(requirements));
    if python.exists()
        && probe
            .output()
            .map(|out| out.status.success())
            .unwrap_or(false)
    {
        println!("  {requirements}: present");
        return Ok(());
    }
    println!("  {requirements}: installing into {venv}");
    let mut create = Command::new("python3");
    create.args(["-m", "venv"]).arg(root().join(venv));
    run(create)?;
    let mut install = Command::new(&python);
    install
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(root().join(requirements));
    run(install)
}

/// npm packages of the test helpers, installed from their lockfiles.
pub(crate) fn ensure_npm(dir: &str, marker: &str) -> Result<(), String> {
    let path = root().join(dir);
    // What was installed, by the lockfile it was installed from: a
    // directory installed before a package was added (or a version moved)
    // is installed again, whatever its marker package says.
    let lock = std::fs::read(path.join("package-lock.json")).unwrap_or_default();
    let installed = path.join("node_modules").join(".baton-installed");
    let wanted = lock_digest(&lock);
    let current = std::fs::read_to_string(&installed).unwrap_or_default();
    if path.join("node_modules").join(marker).exists() && current.trim() == wanted {
        println!("  {dir}: npm packages present");
        return Ok(());
    }
    println!("  {dir}: npm ci");
    let mut install = Command::new("npm");
    install
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&path);
    run(install)?;
    std::fs::write(&installed, wanted).map_err(|e| format!("{}: {e}", installed.display()))
}

/// A lockfile's digest, as text: what `node_modules` was installed from.
fn lock_digest(lock: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    lock.hash(&mut hasher);
    format!("{:016x} {}", hasher.finish(), lock.len())
}

// ----- pkg ------------------------------------------------------------------
