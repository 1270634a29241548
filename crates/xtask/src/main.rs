//! `cargo xtask <command>`: the project's build and test orchestration.
//!
//! * `cargo xtask demo` — installs what it needs, builds the package, serves
//!   the demo app on 127.0.0.1 and prints its URL.
//! * `cargo xtask test` — installs whatever is missing, then runs every check.
//! * `cargo xtask pkg` — builds the npm package `baton-engine` into `pkg/`.
//! * `cargo xtask bench` — benchmarks, as ratios against a peer.
//!
//! Each setup step is idempotent and cheap when its tool is already present:
//! it checks first and installs only what is absent.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

mod bench;
mod conformance;
mod demo;
mod serve;
mod size;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(),
        Some("bench") => bench::bench(),
        Some("pkg") => pkg().map(|sizes| println!("{sizes}")),
        Some("demo") => demo::demo(&args[1..]),
        Some("help") | Some("--help") | None => {
            println!("usage: cargo xtask <demo|test|pkg|bench>\n\n  demo   install what is missing, build the package, serve the demo on 127.0.0.1 (--port N) and print its URL\n  test   install what is missing, then fmt, clippy, doc, tests, the package and its tests, the demo's journeys\n  pkg    build the npm package into pkg/ (release wasm, wasm-bindgen, wasm-opt) and print its sizes\n  bench  the package against its peers (Ajv, @ag-ui/client, Dexie) in headless Chromium, as ratios; raw figures in target/bench");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`; try `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The root of the workspace `cargo xtask` was invoked in. Asked of cargo at
/// run time: a path baked in at compile time would point at whichever
/// checkout last built this binary when several share one target directory.
fn root() -> PathBuf {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let located = Command::new(cargo)
            .args(["locate-project", "--workspace", "--message-format", "plain"])
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
        match located {
            Some(manifest) => Path::new(&manifest)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            None => std::env::current_dir().unwrap_or_default(),
        }
    })
    .clone()
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root());
    command
}

fn run(mut command: Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let status = command
        .status()
        .map_err(|error| format!("could not start {shown}: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed with {status}"))
    }
}

fn output(mut command: Command) -> Result<String, String> {
    let shown = format!("{command:?}");
    let out = command
        .output()
        .map_err(|error| format!("could not start {shown}: {error}"))?;
    if !out.status.success() {
        return Err(format!(
            "{shown} failed with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

// ----- setup ----------------------------------------------------------------

const WASM_TARGET: &str = "wasm32-unknown-unknown";

fn ensure_wasm_target() -> Result<(), String> {
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
const WASM_BINDGEN: &str = "0.2.130";

fn ensure_wasm_bindgen() -> Result<(), String> {
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

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

fn ensure_chromium() -> Result<(), String> {
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

/// Where the browser tests reach the real AG-UI peer. Fixed, so that the
/// tests' build does not change from one run to the next.
const AGUI_PEER_PORT: u16 = 47310;

/// The real AG-UI peer (`tests/peers/agui_peer.py`), stopped when dropped.
pub(crate) struct Peer(std::process::Child, u16);

impl Peer {
    /// Starts the peer on `port` (0: a free one) and waits until it listens.
    pub(crate) fn start(port: u16) -> Result<Peer, String> {
        let mut child = Command::new("python3")
            .arg(root().join("tests/peers/agui_peer.py"))
            .arg(port.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|error| format!("could not start the AG-UI peer: {error}"))?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = BufReader::new(stdout).read_line(&mut line);
        }
        let listening = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|n| n.parse::<u16>().ok())
            .filter(|&n| port == 0 || n == port);
        let Some(listening) = listening else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "the AG-UI peer did not listen on 127.0.0.1:{port} (is the port taken?)"
            ));
        };
        Ok(Peer(child, listening))
    }

    /// The URL of one of its scenarios.
    pub(crate) fn url(&self, scenario: &str) -> String {
        format!("http://127.0.0.1:{}/{scenario}", self.1)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the browser adapter's tests in headless Chromium, with the real
/// AG-UI peer listening for `AgUiTransport`.
fn browser_tests() -> Result<String, String> {
    let _peer = Peer::start(AGUI_PEER_PORT)?;
    let mut unloaded = false;
    let first = summarize_tests(browser_command(), "browser tests", &mut unloaded);
    if first.is_ok() || !unloaded {
        return first;
    }
    // The runner's page sometimes never loads its scripts (no test ran at
    // all); that is the harness, not a result. One more try, and say so.
    println!("browser tests: the test page did not load; running them once more");
    summarize_tests(browser_command(), "browser tests", &mut unloaded)
        .map(|summary| format!("{summary} (second try: the first page did not load)"))
}

fn browser_command() -> Command {
    let mut command = cargo();
    command
        .args(["test", "-p", "baton-wasm", "--target", WASM_TARGET])
        .env(
            "BATON_AGUI_PEER",
            format!("http://127.0.0.1:{AGUI_PEER_PORT}"),
        )
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .env("CHROMEDRIVER", CHROMEDRIVER)
        // A test that hangs fails after two minutes, with its output.
        .env("WASM_BINDGEN_TEST_TIMEOUT", "120")
        .current_dir(root().join("crates/baton-wasm"));
    command
}

/// The official AG-UI Python SDK the real peer is built on.
const AGUI_PYTHON: &str = "ag-ui-protocol==1.0.0";

fn ensure_agui_python() -> Result<(), String> {
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

/// npm packages of the test helpers, installed from their lockfiles.
fn ensure_npm(dir: &str, marker: &str) -> Result<(), String> {
    let path = root().join(dir);
    if path.join("node_modules").join(marker).exists() {
        println!("  {dir}: npm packages present");
        return Ok(());
    }
    println!("  {dir}: npm ci");
    let mut install = Command::new("npm");
    install
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(path);
    run(install)
}

// ----- pkg ------------------------------------------------------------------

/// The npm project whose `binaryen` supplies `wasm-opt` (Debian's binaryen
/// corrupts wasm-bindgen output; see the README's toolchain notes).
const PKG_TESTS: &str = "tests/pkg";

/// Features the Rust wasm target emits by default, which wasm-opt must
/// accept as they are.
const WASM_FEATURES: [&str; 7] = [
    "--enable-bulk-memory",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-sign-ext",
    "--enable-multivalue",
    // Some dependencies carry SIMD paths for wasm (every current browser
    // has SIMD).
    "--enable-simd",
];

/// Builds the release package: the cdylib with the `wasm-release` profile
/// (size-optimised, real LTO), wasm-bindgen's web target with weak refs into
/// `pkg/`, then binaryen's `wasm-opt -Oz` and esbuild's minifier on the
/// generated glue. Returns a table of sizes.
fn pkg() -> Result<String, String> {
    ensure_wasm_target()?;
    ensure_wasm_bindgen()?;
    ensure_npm(PKG_TESTS, "binaryen")?;
    ensure_npm(PKG_TESTS, "esbuild")?;
    let mut build = cargo();
    build.args([
        "build",
        "-p",
        "baton-wasm",
        "--target",
        WASM_TARGET,
        "--profile",
        "wasm-release",
    ]);
    run(build)?;
    let built = target_dir()?
        .join(WASM_TARGET)
        .join("wasm-release")
        .join("baton_wasm.wasm");
    let out = root().join("pkg");
    let mut bindgen = Command::new("wasm-bindgen");
    bindgen.arg(&built).args(["--out-dir"]).arg(&out).args([
        "--out-name",
        "baton_engine",
        "--target",
        "web",
        "--weak-refs",
    ]);
    run(bindgen)?;
    let wasm = out.join("baton_engine_bg.wasm");
    let unoptimised = file_size(&wasm)?;
    let mut optimise = Command::new(root().join(PKG_TESTS).join("node_modules/.bin/wasm-opt"));
    optimise
        .arg(&wasm)
        .arg("-o")
        .arg(&wasm)
        .args(["-Oz", "--strip-debug", "--strip-producers"])
        .args(WASM_FEATURES);
    run(optimise)?;
    // The generated glue, minified where it stands (imports, exports and
    // `new URL(…, import.meta.url)` kept, so bundlers still find the wasm):
    // about 6 KiB of brotli less for every app (README, "Size").
    let glue = out.join("baton_engine.js");
    let mut minify = Command::new(root().join(PKG_TESTS).join("node_modules/.bin/esbuild"));
    minify
        .arg(&glue)
        .args(["--minify", "--format=esm", "--allow-overwrite"])
        .arg(format!("--outfile={}", glue.display()));
    run(minify)?;
    let mut table = format!(
        "package built in {}\n{:<28} {:>10} {:>10} {:>10}\n",
        out.display(),
        "file",
        "raw",
        "gzip",
        "brotli"
    );
    table.push_str(&format!(
        "{:<28} {:>10}\n",
        "wasm before wasm-opt", unoptimised
    ));
    let fixtures = conformance::bundle_fixtures(&out)?;
    table.push_str(&format!("conformance fixtures bundled: {fixtures}\n"));
    for name in ["baton_engine_bg.wasm", "baton_engine.js", "baton.js"] {
        let (raw, gzip, brotli) = compressed_sizes(&out.join(name))?;
        table.push_str(&format!("{name:<28} {raw:>10} {gzip:>10} {brotli:>10}\n"));
    }
    Ok(table)
}

fn target_dir() -> Result<PathBuf, String> {
    let mut metadata = cargo();
    metadata.args(["metadata", "--format-version", "1", "--no-deps"]);
    let parsed: serde_json::Value = serde_json::from_str(&output(metadata)?)
        .map_err(|error| format!("cargo metadata is not JSON: {error}"))?;
    parsed["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata has no target_directory".into())
}

fn file_size(path: &Path) -> Result<u64, String> {
    std::fs::metadata(path)
        .map(|meta| meta.len())
        .map_err(|error| format!("{}: {error}", path.display()))
}

/// Raw, gzip (level 9) and brotli (quality 11) sizes, measured with Node's
/// zlib — the compressors a CDN would use.
pub(crate) fn compressed_sizes(path: &Path) -> Result<(u64, u64, u64), String> {
    let mut node = Command::new("node");
    node.args([
        "-e",
        "const z=require('zlib'),b=require('fs').readFileSync(process.argv[1]);\
         console.log(b.length, z.gzipSync(b,{level:9}).length, \
         z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)",
    ])
    .arg(path);
    let text = output(node)?;
    let numbers: Vec<u64> = text
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    match numbers[..] {
        [raw, gzip, brotli] => Ok((raw, gzip, brotli)),
        _ => Err(format!("could not measure {}: {text}", path.display())),
    }
}

// ----- test -----------------------------------------------------------------

struct Outcome {
    name: &'static str,
    seconds: f64,
    result: Result<String, String>,
}

fn test() -> Result<(), String> {
    let started = Instant::now();
    let mut outcomes = Vec::new();
    let mut step = |name: &'static str, body: &mut dyn FnMut() -> Result<String, String>| {
        println!("\n== xtask test: {name}");
        let began = Instant::now();
        let result = body();
        if let Err(message) = &result {
            eprintln!("!! {name} failed: {message}");
        }
        outcomes.push(Outcome {
            name,
            seconds: began.elapsed().as_secs_f64(),
            result,
        });
    };

    step("setup: wasm target", &mut || {
        ensure_wasm_target().map(|()| String::new())
    });
    step("setup: wasm-bindgen CLI", &mut || {
        ensure_wasm_bindgen().map(|()| String::new())
    });
    step("setup: Chromium and chromedriver", &mut || {
        ensure_chromium().map(|()| String::new())
    });
    step("setup: AG-UI Python SDK", &mut || {
        ensure_agui_python().map(|()| String::new())
    });
    step("setup: AG-UI reference client (npm)", &mut || {
        ensure_npm("tests/agui-crosscheck", "@ag-ui/client").map(|()| String::new())
    });
    step("setup: package test tools (npm)", &mut || {
        ensure_npm(PKG_TESTS, "axe-core").map(|()| String::new())
    });
    step("setup: Vite scratch app (npm)", &mut || {
        ensure_npm(VITE_APP, "vite").map(|()| String::new())
    });
    step("cargo fmt --check", &mut || {
        let mut command = cargo();
        command.args(["fmt", "--all", "--", "--check"]);
        run(command).map(|()| String::new())
    });
    step("cargo clippy -D warnings", &mut || {
        let mut command = cargo();
        command.args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]);
        run(command).map(|()| String::new())
    });
    step("cargo doc -Dwarnings", &mut || {
        let mut command = cargo();
        command
            .args(["doc", "--workspace", "--no-deps"])
            .env("RUSTDOCFLAGS", "-Dwarnings");
        run(command).map(|()| String::new())
    });
    step("cargo test (native)", &mut native_tests);
    step("conformance kit (native)", &mut conformance::native);
    step(
        "agent-check: the demo app",
        &mut conformance::agent_check_demo,
    );
    step("browser tests (headless Chromium)", &mut browser_tests);
    step("package: cargo xtask pkg", &mut || {
        let table = pkg()?;
        println!("{table}");
        Ok(table
            .lines()
            .find(|line| line.starts_with("baton_engine_bg.wasm"))
            .map(|line| {
                let sizes: Vec<&str> = line.split_whitespace().skip(1).collect();
                format!(
                    "wasm {} B raw, {} B gzip, {} B brotli",
                    sizes[0], sizes[1], sizes[2]
                )
            })
            .unwrap_or_default())
    });
    step("package: size budget (brotli)", &mut || {
        size::check(&root().join("pkg"))
    });
    step("package: types (tsc --noEmit)", &mut || {
        // What the build produced — the serialised shapes the core emits and
        // the error codes the wasm can throw — for the contract test.
        let built = root().join(PKG_TESTS).join("built");
        std::fs::create_dir_all(&built).map_err(|e| format!("{}: {e}", built.display()))?;
        let mut shapes = cargo();
        shapes
            .args(["test", "--quiet", "-p", "baton-core", "--test", "shapes"])
            .env("BATON_SHAPES_OUT", built.join("shapes.json"));
        run(shapes)?;
        let mut emit = Command::new("node");
        emit.arg("emit-built.mjs")
            .current_dir(root().join(PKG_TESTS));
        run(emit)?;
        let mut tsc = Command::new(root().join(PKG_TESTS).join("node_modules/.bin/tsc"));
        tsc.args(["--noEmit", "-p", "."])
            .current_dir(root().join(PKG_TESTS));
        run(tsc).map(|()| {
            "pkg/baton.d.ts type-checks, and agrees with the built classes, error codes and shapes".into()
        })
    });
    step("package: JS tests in Chromium", &mut package_tests);
    step("package: default surfaces in Chromium", &mut || {
        node_tests(PKG_TESTS, "surfaces.test.mjs", "surface tests", &[])
    });
    step(
        "package: strict CSP and Trusted Types in Chromium",
        &mut || node_tests(PKG_TESTS, "strict-csp.test.mjs", "strict policy tests", &[]),
    );
    step("package: faults in Chromium", &mut || {
        node_tests(PKG_TESTS, "faults/", "fault tests", &[])
    });
    step("end-to-end: the demo in Chromium", &mut demo::journeys);
    step("conformance kit (JS, in Chromium)", &mut || {
        node_tests(PKG_TESTS, "conformance.test.mjs", "JS conformance kit", &[])
    });
    step("package: Vite app from npm pack", &mut vite_app_tests);
    step("baton-core builds for wasm32", &mut || {
        let mut command = cargo();
        command.args(["build", "-p", "baton-core", "--target", WASM_TARGET]);
        run(command).map(|()| String::new())
    });
    step("baton-core has no web dependencies", &mut core_is_pure);

    println!("\n== xtask test: summary");
    let mut failed = 0;
    for outcome in &outcomes {
        let (mark, detail) = match &outcome.result {
            Ok(detail) => ("ok  ", detail.clone()),
            Err(message) => {
                failed += 1;
                (
                    "FAIL",
                    message.lines().next().unwrap_or_default().to_owned(),
                )
            }
        };
        println!(
            "{mark} {:<38} {:>7.1}s  {detail}",
            outcome.name, outcome.seconds
        );
    }
    println!(
        "xtask test: {} of {} steps passed in {:.0}s",
        outcomes.len() - failed,
        outcomes.len(),
        started.elapsed().as_secs_f64()
    );
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} step(s) failed"))
    }
}

/// Runs the native workspace tests (the browser adapter runs in Chromium).
fn native_tests() -> Result<String, String> {
    let mut command = cargo();
    // `--show-output` prints what passing tests report, such as the AG-UI
    // cross-check table.
    command.args([
        "test",
        "--workspace",
        "--exclude",
        "baton-wasm",
        "--exclude",
        "baton-conformance",
        "--",
        "--show-output",
    ]);
    summarize_tests(command, "native tests", &mut false)
}

/// The built package as an application imports it, in headless Chromium
/// (Node's test runner driving `playwright-core`).
fn package_tests() -> Result<String, String> {
    node_tests(PKG_TESTS, "engine.test.mjs", "package tests", &[])
}

/// The scratch app that consumes the package as published: `npm pack` of
/// `pkg/`, installed into a copy of the app outside the repository, built
/// with Vite and run in headless Chromium.
const VITE_APP: &str = "tests/vite-app";

/// The package as most apps get it: packed, installed, bundled by Vite.
fn vite_app_tests() -> Result<String, String> {
    node_tests(VITE_APP, "vite-app.test.mjs", "Vite app tests", &[])
}

/// Runs a Node test file of `dir` (relative to the root, where its npm
/// packages are) against `/usr/bin/chromium`, echoing its output and adding
/// up its pass and fail counts.
fn node_tests(
    dir: &str,
    file: &str,
    label: &str,
    env: &[(&str, String)],
) -> Result<String, String> {
    let mut node = Command::new("node");
    node.args(["--test", "--test-reporter=spec", file])
        .env("CHROMIUM", CHROMIUM)
        .envs(env.iter().map(|(key, value)| (*key, value.as_str())))
        .current_dir(root().join(dir))
        .stdout(Stdio::piped());
    let mut child = node
        .spawn()
        .map_err(|error| format!("could not start node: {error}"))?;
    let stdout = child.stdout.take().ok_or("node has no stdout")?;
    let (mut passed, mut failed) = (0u64, 0u64);
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|error| error.to_string())?;
        println!("{line}");
        let trimmed = line.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
        if let Some(n) = trimmed.strip_prefix("pass ") {
            passed += n.trim().parse::<u64>().unwrap_or(0);
        } else if let Some(n) = trimmed.strip_prefix("fail ") {
            failed += n.trim().parse::<u64>().unwrap_or(0);
        }
    }
    let status = child.wait().map_err(|error| error.to_string())?;
    let summary = format!("{passed} passed, {failed} failed");
    println!("{label}: {summary}");
    if status.success() && failed == 0 && passed > 0 {
        Ok(summary)
    } else {
        Err(summary)
    }
}

/// Runs a test command, echoing everything and adding up the `test result:`
/// lines into one summary.
/// `unloaded` is set when a browser test page never ran its scripts.
fn summarize_tests(
    mut command: Command,
    label: &str,
    unloaded: &mut bool,
) -> Result<String, String> {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|error| format!("could not start {label}: {error}"))?;
    let stdout = child.stdout.take().ok_or("the tests have no stdout")?;
    let stderr = child.stderr.take().ok_or("the tests have no stderr")?;
    // Echo stderr as it comes, watching it for the same signature.
    let errors = std::thread::spawn(move || {
        let mut seen = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            seen |= line.contains("Loading scripts...Failed to detect test as having been run");
        }
        seen
    });
    let (mut passed, mut failed, mut ignored, mut binaries) = (0u64, 0u64, 0u64, 0u64);
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|error| error.to_string())?;
        println!("{line}");
        if line.contains("Loading scripts...Failed to detect test as having been run") {
            *unloaded = true;
        }
        if let Some(rest) = line.strip_prefix("test result: ") {
            binaries += 1;
            passed += count(rest, "passed");
            failed += count(rest, "failed");
            ignored += count(rest, "ignored");
        }
    }
    let status = child.wait().map_err(|error| error.to_string())?;
    *unloaded |= errors.join().unwrap_or(false);
    let summary =
        format!("{passed} passed, {failed} failed, {ignored} ignored in {binaries} test binaries");
    println!("{label}: {summary}");
    if status.success() && failed == 0 && binaries > 0 {
        Ok(summary)
    } else {
        Err(summary)
    }
}

/// The number before `word` in a libtest summary such as `ok. 3 passed; 0 failed`.
fn count(summary: &str, word: &str) -> u64 {
    summary
        .split(';')
        .filter_map(|part| {
            let mut words = part.split_whitespace().rev();
            let last = words.next()?;
            let number = words.next()?;
            (last == word).then(|| number.parse::<u64>().ok()).flatten()
        })
        .sum()
}

fn core_is_pure() -> Result<String, String> {
    let mut command = cargo();
    command.args([
        "tree",
        "-p",
        "baton-core",
        "-e",
        "normal",
        "--prefix",
        "none",
    ]);
    let tree = output(command)?;
    let forbidden: Vec<&str> = tree
        .lines()
        .filter(|line| {
            let name = line.split_whitespace().next().unwrap_or_default();
            matches!(name, "wasm-bindgen" | "js-sys" | "web-sys")
                || name.starts_with("wasm-bindgen-")
        })
        .collect();
    if forbidden.is_empty() {
        Ok(format!("{} crates checked", tree.lines().count()))
    } else {
        Err(format!("baton-core depends on {}", forbidden.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_libtest_summaries() {
        let line =
            "ok. 12 passed; 1 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.01s";
        assert_eq!(count(line, "passed"), 12);
        assert_eq!(count(line, "failed"), 1);
        assert_eq!(count(line, "ignored"), 3);
    }
}
