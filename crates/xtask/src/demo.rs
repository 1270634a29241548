//! `cargo xtask demo`: the first thing a newcomer runs. It installs what the
//! package build needs, builds the package, and serves the demo app (`www/`)
//! on 127.0.0.1 with the built-in actor until interrupted. The end-to-end
//! journeys (`cargo xtask test`) run against the same server.

use crate::serve::Server;
use crate::{
    ensure_npm, ensure_wasm_bindgen, ensure_wasm_target, node_tests, pkg, root, run, Peer,
    PKG_TESTS,
};
use std::process::Command;

/// Installs, builds, serves, prints the URL; runs until interrupted.
pub fn demo(args: &[String]) -> Result<(), String> {
    let port = match args {
        [] => 0,
        [flag, port] if flag == "--port" => port
            .parse()
            .map_err(|_| format!("`{port}` is not a port number"))?,
        _ => return Err("usage: cargo xtask demo [--port N]".into()),
    };
    println!("demo: checking the toolchain (installs what is missing)");
    ensure_wasm_target()?;
    ensure_wasm_bindgen()?;
    // The newest of the package tests' npm packages: the OpenTelemetry SDK
    // the demo's `?otel=URL` loads.
    ensure_npm(PKG_TESTS, "@opentelemetry/exporter-trace-otlp-proto")?;
    println!("demo: building the package");
    let sizes = pkg()?;
    println!("demo: package built ({sizes})");
    bundle_otel_sdk()?;
    let server = Server::bind(&root(), port)?;
    println!();
    println!("Baton demo: {}", server.url());
    println!("(driven by the built-in offline actor; Ctrl+C to stop)");
    server.serve();
    Ok(())
}

/// The OpenTelemetry web SDK the demo loads for `?otel=URL`
/// (`www/otel-sdk.mjs`), bundled into `www/built/otel-sdk.js` from the
/// package tests' npm packages.
fn bundle_otel_sdk() -> Result<(), String> {
    let tests = root().join(PKG_TESTS);
    let mut bundle = Command::new(tests.join("node_modules/.bin/esbuild"));
    bundle
        .arg(root().join("www/otel-sdk.mjs"))
        .args(["--bundle", "--minify", "--format=esm", "--log-level=error"])
        .arg(format!(
            "--outfile={}",
            root().join("www/built/otel-sdk.js").display()
        ))
        .env("NODE_PATH", tests.join("node_modules"));
    run(bundle)
}

/// The demo's journeys in headless Chromium, against the demo as served.
pub fn journeys() -> Result<String, String> {
    journeys_in("chromium")
}

/// The demo's journeys in `engine` (`chromium`, `firefox` or `webkit`,
/// through `tests/pkg/browsers.mjs`); those that need Chromium's own
/// tooling say so in their names and are skipped elsewhere.
pub fn journeys_in(engine: &str) -> Result<String, String> {
    let url = Server::bind(&root(), 0)?.spawn();
    // The real AG-UI peer, for the journey that drives the demo over AG-UI.
    let peer = Peer::start(0)?;
    let env = [
        ("DEMO_URL", url),
        ("AGENT_URL", peer.url("demo")),
        ("BATON_BROWSER", engine.to_owned()),
    ];
    let summary = node_tests(PKG_TESTS, "demo.test.mjs", "end-to-end journeys", &env)?;
    Ok(match engine {
        "chromium" => summary,
        _ => format!("{engine}: {summary}"),
    })
}
