//! `cargo xtask <command>`: the project's build and test orchestration.
//!
//! * `cargo xtask demo` — installs what it needs, builds the package, serves
//!   the demo app on 127.0.0.1 and prints its URL.
//! * `cargo xtask test` — installs whatever is missing, then runs every check.
//! * `cargo xtask pkg` — builds the npm package `baton-engine` into `pkg/`.
//! * `cargo xtask bench` — benchmarks, as ratios against a peer.
//! * `cargo xtask corpus` — refreshes the SchemaStore pattern corpus and its
//!   ReDoS verdicts (see `corpus.rs`).
//!
//! Each setup step is idempotent and cheap when its tool is already present:
//! it checks first and installs only what is absent.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

mod bench;
mod check;
mod conformance;
mod corpus;
mod demo;
mod features;
mod peer;
mod pkg;
mod serve;
mod setup;
mod short_names;
mod size;

use check::*;
use peer::*;
use pkg::*;
use setup::*;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(),
        Some("bench") => bench::bench(),
        Some("pkg") => pkg().map(|sizes| println!("{sizes}")),
        Some("demo") => demo::demo(&args[1..]),
        Some("corpus") => corpus::corpus(&args[1..]),
        Some("help") | Some("--help") | None => {
            println!("usage: cargo xtask <demo|test|pkg|bench|corpus>\n\n  demo   install what is missing, build the package, serve the demo on 127.0.0.1 (--port N) and print its URL\n  test   install what is missing, then fmt, clippy, doc, tests, the package and its tests, the demo's journeys\n  pkg    build the npm package into pkg/ (release wasm, wasm-bindgen, wasm-opt) and print its sizes\n  bench  the package against its peers (Ajv, @ag-ui/client, Dexie) in headless Chromium, as ratios; raw figures in target/bench\n  corpus refresh the SchemaStore pattern corpus and its recheck verdicts (--schemastore DIR: from a checkout; --verdicts: judge the recorded patterns again)");
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
