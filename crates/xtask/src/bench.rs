//! `cargo xtask bench`: a benchmark, never a test.

use std::process::Command;

use crate::{cargo, ensure_chromium, ensure_npm, pkg, root, run, PKG_TESTS};

/// `cargo xtask bench`: the AG-UI stream pipeline natively, then the
/// package side by side with its peers in headless Chromium
/// (`tests/bench/bench.mjs`; the peers from its lockfile, bundled by
/// esbuild). A benchmark, never a test.
pub fn bench() -> Result<(), String> {
    let mut command = cargo();
    command.args([
        "run",
        "--release",
        "--quiet",
        "-p",
        "baton-agui",
        "--example",
        "stream_bench",
    ]);
    run(command)?;
    ensure_chromium()?;
    ensure_npm(PKG_TESTS, "playwright-core")?;
    ensure_npm(BENCH, "esbuild")?;
    println!("{}", pkg()?);
    // Where the bench page imports its peers from.
    let out = root().join("target/bench");
    let mut bundle = Command::new(root().join(BENCH).join("node_modules/.bin/esbuild"));
    bundle
        .arg(root().join(BENCH).join("peers.js"))
        .args(["--bundle", "--format=esm", "--minify"])
        .arg(format!("--outfile={}", out.join("peers.js").display()));
    run(bundle)?;
    let mut node = Command::new("node");
    node.arg("bench.mjs").current_dir(root().join(BENCH));
    run(node)
}

/// The bench's page and its peers' lockfile.
const BENCH: &str = "tests/bench";
