//! `cargo xtask test`: every check, one step after another, and the summary.

use super::*;

/// Runs the browser adapter's tests in headless Chromium, with the real
/// AG-UI peer listening for `AgUiTransport`.
pub(crate) fn browser_tests() -> Result<String, String> {
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

pub(crate) fn browser_command() -> Command {
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

pub(crate) struct Outcome {
    name: &'static str,
    seconds: f64,
    result: Result<String, String>,
}

/// A step of `cargo xtask test`: its name in the summary, and what it runs.
type Step = (&'static str, fn() -> Result<String, String>);

/// Every check, in the order it runs: installs first, then the Rust
/// checks, the browser and package tests, and the builds that guard the
/// layering. The table of steps in crates/xtask/README.md follows this list.
const STEPS: &[Step] = &[
    ("setup: wasm target", || done(ensure_wasm_target())),
    ("setup: wasm-bindgen CLI", || done(ensure_wasm_bindgen())),
    ("setup: Chromium and chromedriver", || {
        done(ensure_chromium())
    }),
    ("setup: Firefox ESR and WebKitGTK (Debian)", || {
        done(ensure_other_engines())
    }),
    ("setup: AG-UI Python SDK", || done(ensure_agui_python())),
    ("setup: AG-UI reference client (npm)", || {
        done(ensure_npm("tests/agui-crosscheck", "@ag-ui/client"))
    }),
    ("setup: package test tools (npm)", || {
        // The marker is the newest package: a directory installed before it
        // was added is installed again.
        done(ensure_npm(PKG_TESTS, "puppeteer-core"))
    }),
    ("setup: Vite scratch app (npm)", || {
        done(ensure_npm(VITE_APP, "react-dom-18"))
    }),
    (
        "setup: agent frameworks (pydantic-ai, LangGraph; venv)",
        || done(ensure_frameworks()),
    ),
    ("setup: tracing backend (Arize Phoenix; venv)", || {
        done(ensure_tracing())
    }),
    ("cargo fmt --check", || {
        cargo_step(&["fmt", "--all", "--", "--check"], None)
    }),
    ("cargo clippy -D warnings", || {
        let args = [
            "clippy",
            "--workspace",
            "--all-targets",
            "--features",
            "baton-core/typescript",
            "--",
            "-D",
            "warnings",
        ];
        cargo_step(&args, None)
    }),
    ("cargo doc -Dwarnings", || {
        let args = ["doc", "--workspace", "--no-deps"];
        cargo_step(&args, Some(("RUSTDOCFLAGS", "-Dwarnings")))
    }),
    ("cargo test (native)", native_tests),
    ("conformance kit (native)", conformance::native),
    ("agent-check: the demo app", conformance::agent_check_demo),
    ("browser tests (headless Chromium)", browser_tests),
    ("package: cargo xtask pkg", package_build),
    (
        "package: the WebAssembly features used, as the README's browser line says",
        || {
            features::check(
                &root().join("pkg/baton_engine_bg.wasm"),
                &root().join("README.md"),
            )
        },
    ),
    ("package: size budget (brotli)", || {
        size::check(&root().join("pkg"))
    }),
    ("package: types (tsc --noEmit)", package_types),
    ("package: JS tests in Chromium", package_tests),
    ("package: JS tests in Firefox", || {
        in_engine("firefox", JS_TESTS, "package tests")
    }),
    ("package: JS tests in WebKit", || {
        in_engine("webkit", JS_TESTS, "package tests")
    }),
    ("package: default surfaces in Chromium", || {
        node_tests(PKG_TESTS, SURFACE_TESTS, "surface tests", &[])
    }),
    (
        "package: default surfaces in Firefox (not media emulation or a fake clock: Chromium's)",
        || in_engine("firefox", SURFACE_TESTS, "surface tests"),
    ),
    (
        "package: default surfaces in WebKit (not media emulation or a fake clock: Chromium's)",
        || in_engine("webkit", SURFACE_TESTS, "surface tests"),
    ),
    ("package: WebMCP bridge in Chromium", || {
        node_tests(PKG_TESTS, "webmcp.test.mjs", "WebMCP tests", &[])
    }),
    ("package: strict CSP and Trusted Types in Chromium", || {
        node_tests(PKG_TESTS, "strict-csp.test.mjs", "strict policy tests", &[])
    }),
    ("package: strict CSP and Trusted Types in Firefox", || {
        in_engine("firefox", "strict-csp.test.mjs", "strict policy tests")
    }),
    ("package: strict CSP and Trusted Types in WebKit", || {
        in_engine("webkit", "strict-csp.test.mjs", "strict policy tests")
    }),
    ("package: faults in Chromium", || {
        node_tests(PKG_TESTS, "faults/", "fault tests", &[])
    }),
    (
        "package: faults in Firefox (not the full disk: a quota set over Chromium's CDP)",
        || in_engine("firefox", "faults/", "fault tests"),
    ),
    (
        "package: faults in WebKit (not the full disk: a quota set over Chromium's CDP)",
        || in_engine("webkit", "faults/", "fault tests"),
    ),
    (
        "package: real agent frameworks (pydantic-ai, LangGraph) in Chromium",
        || {
            let python = frameworks_python().display().to_string();
            let env = [("BATON_FRAMEWORKS_PYTHON", python)];
            node_tests(PKG_TESTS, "frameworks.test.mjs", "framework tests", &env)
        },
    ),
    (
        "package: OpenTelemetry traces read back from Phoenix, in Chromium",
        || {
            let env = [
                ("BATON_PHOENIX", phoenix().display().to_string()),
                (
                    "BATON_FRAMEWORKS_PYTHON",
                    frameworks_python().display().to_string(),
                ),
            ];
            node_tests(PKG_TESTS, "otel.test.mjs", "tracing tests", &env)
        },
    ),
    ("end-to-end: the demo in Chromium", demo::journeys),
    (
        "end-to-end: the demo in Firefox (not media emulation, a fake clock or WebMCP: Chromium's; live regions read from the DOM, the accessibility tree being Chromium's CDP)",
        || demo::journeys_in("firefox"),
    ),
    (
        "end-to-end: the demo in WebKit (not media emulation, a fake clock or WebMCP: Chromium's; live regions read from the DOM, the accessibility tree being Chromium's CDP)",
        || demo::journeys_in("webkit"),
    ),
    ("package: optional JSON Schema suite against Ajv, in Chromium", || {
        node_tests(
            PKG_TESTS,
            "optional-suite.test.mjs",
            "optional suite tests",
            &[],
        )
    }),
    ("package: optional JSON Schema suite against Ajv, in Firefox", || {
        in_engine("firefox", "optional-suite.test.mjs", "optional suite tests")
    }),
    ("package: optional JSON Schema suite against Ajv, in WebKit", || {
        in_engine("webkit", "optional-suite.test.mjs", "optional suite tests")
    }),
    ("conformance kit (JS, in Chromium)", || {
        node_tests(PKG_TESTS, "conformance.test.mjs", "JS conformance kit", &[])
    }),
    ("conformance kit (JS, in Firefox)", || {
        in_engine("firefox", "conformance.test.mjs", "JS conformance kit")
    }),
    ("conformance kit (JS, in WebKit)", || {
        in_engine("webkit", "conformance.test.mjs", "JS conformance kit")
    }),
    ("package: Vite app from npm pack, in Chromium", vite_app_tests),
    (
        "package: React, Vue and Svelte bindings in Vite apps (React 18, 19; Vue 3; Svelte 5), in Chromium",
        binding_app_tests,
    ),
    ("baton-core builds for wasm32", || {
        cargo_step(
            &["build", "-p", "baton-core", "--target", WASM_TARGET],
            None,
        )
    }),
    (
        "baton-core and baton-schema have no web dependencies",
        core_is_pure,
    ),
];

/// `cargo xtask test`: every step, whatever fails before it, then the
/// summary lines.
pub(crate) fn test() -> Result<(), String> {
    let started = Instant::now();
    let outcomes: Vec<Outcome> = STEPS
        .iter()
        .map(|(name, body)| {
            println!("\n== xtask test: {name}");
            let began = Instant::now();
            let result = body();
            if let Err(message) = &result {
                eprintln!("!! {name} failed: {message}");
            }
            Outcome {
                name,
                seconds: began.elapsed().as_secs_f64(),
                result,
            }
        })
        .collect();
    summary(&outcomes, started.elapsed().as_secs_f64())
}

/// The runner's summary: one line per step, then the count.
fn summary(outcomes: &[Outcome], seconds: f64) -> Result<(), String> {
    println!("\n== xtask test: summary");
    let mut failed = 0;
    for outcome in outcomes {
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
    println!("{}", per_engine(outcomes));
    println!(
        "xtask test: {} of {} steps passed in {seconds:.0}s",
        outcomes.len() - failed,
        outcomes.len(),
    );
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} step(s) failed"))
    }
}

/// The browser engines the steps name, each with the tests that passed in
/// it: a step counts for the engine its name ends in (`… in Firefox`), and
/// its passed count is its detail's (`N passed`, after an `engine: `).
fn per_engine(outcomes: &[Outcome]) -> String {
    let mut line = String::from("xtask test: passed per engine:");
    for engine in ["Chromium", "Firefox", "WebKit"] {
        let (mut tests, mut steps) = (0u64, 0u64);
        for outcome in outcomes {
            let Ok(detail) = &outcome.result else {
                continue;
            };
            if !outcome.name.contains(&format!("in {engine}")) {
                continue;
            }
            let detail = detail.rsplit(": ").next().unwrap_or_default();
            if let Some(passed) = detail
                .split(" passed")
                .next()
                .and_then(|n| n.trim().parse::<u64>().ok())
            {
                tests += passed;
                steps += 1;
            }
        }
        line.push_str(&format!(" {engine} {tests} tests ({steps} steps);"));
    }
    line.pop();
    line
}

/// A step that only has to succeed.
fn done(result: Result<(), String>) -> Result<String, String> {
    result.map(|()| String::new())
}

/// `cargo <args>`, with one environment variable if given.
fn cargo_step(args: &[&str], env: Option<(&str, &str)>) -> Result<String, String> {
    let mut command = cargo();
    command.args(args);
    if let Some((key, value)) = env {
        command.env(key, value);
    }
    done(run(command))
}

/// Builds the package and says how big the wasm is.
fn package_build() -> Result<String, String> {
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
}

/// Checks that `pkg/data.d.ts` is what the core's types declare, then
/// type-checks `pkg/baton.d.ts` against what the build produced — the
/// serialised shapes the core emits and the error codes the wasm can throw.
fn package_types() -> Result<String, String> {
    let built = root().join(PKG_TESTS).join("built");
    std::fs::create_dir_all(&built).map_err(|e| format!("{}: {e}", built.display()))?;
    let mut shapes = cargo();
    shapes
        .args([
            "test",
            "--quiet",
            "-p",
            "baton-core",
            "--features",
            "typescript",
        ])
        .args(["--test", "typescript", "--test", "shapes"])
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
        "pkg/data.d.ts is generated from the core's types; pkg/baton.d.ts type-checks, and agrees with the built classes, error codes and shapes"
            .into()
    })
}

/// Runs the native workspace tests (the browser adapter runs in Chromium).
pub(crate) fn native_tests() -> Result<String, String> {
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
/// A package test file in another browser engine (`tests/pkg/browsers.mjs`:
/// `firefox` or `webkit`), its passed count labelled with the engine.
fn in_engine(engine: &str, file: &str, what: &str) -> Result<String, String> {
    let env = [("BATON_BROWSER", engine.to_owned())];
    node_tests(PKG_TESTS, file, what, &env).map(|summary| format!("{engine}: {summary}"))
}

pub(crate) fn package_tests() -> Result<String, String> {
    node_tests(PKG_TESTS, JS_TESTS, "package tests", &[])
}

/// The package's JS tests, run in every engine: the package as an app uses
/// it, and every door knocked on with wrong arguments.
const JS_TESTS: &str =
    "engine.test.mjs readme.test.mjs reload.test.mjs doors.test.mjs export.test.mjs history.test.mjs";

/// The default surfaces' tests, run in every engine: presence and review
/// with the three surfaces' look, and the question form.
const SURFACE_TESTS: &str = "surfaces.test.mjs question.test.mjs";

/// The scratch app that consumes the package as published: `npm pack` of
/// `pkg/`, installed into a copy of the app outside the repository, built
/// with Vite and run in headless Chromium.
pub(crate) const VITE_APP: &str = "tests/vite-app";

/// The package as most apps get it: packed, installed, bundled by Vite.
pub(crate) fn vite_app_tests() -> Result<String, String> {
    node_tests(VITE_APP, "vite-app.test.mjs", "Vite app tests", &[])
}

/// `baton-engine/react`, `baton-engine/vue` and `baton-engine/svelte` in
/// TypeScript apps, type-checked, then built by Vite from `npm pack` (React
/// 18 and 19, Vue 3, Svelte 5) and run in Chromium through the same
/// scenarios.
pub(crate) fn binding_app_tests() -> Result<String, String> {
    node_tests(
        VITE_APP,
        "bindings.test.mjs",
        "framework binding tests",
        &[],
    )
}

/// Runs a Node test file of `dir` (relative to the root, where its npm
/// packages are) against `/usr/bin/chromium`, echoing its output and adding
/// up its pass and fail counts.
pub(crate) fn node_tests(
    dir: &str,
    file: &str,
    label: &str,
    env: &[(&str, String)],
) -> Result<String, String> {
    let mut node = Command::new("node");
    // `file`: one test file or folder, or several separated by spaces.
    node.args(["--test", "--test-reporter=spec"])
        .args(file.split_whitespace())
        .env("CHROMIUM", CHROMIUM)
        .envs(env.iter().map(|(key, value)| (*key, value.as_str())))
        .current_dir(root().join(dir))
        .stdout(Stdio::piped());
    let mut child = node
        .spawn()
        .map_err(|error| format!("could not start node: {error}"))?;
    let stdout = child.stdout.take().ok_or("node has no stdout")?;
    let mut tally = NodeTally::default();
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|error| error.to_string())?;
        println!("{line}");
        tally.read(&line);
    }
    let status = child.wait().map_err(|error| error.to_string())?;
    let summary = tally.summary();
    println!("{label}: {summary}");
    let (passed, failed) = (tally.passed, tally.failed + tally.cancelled);
    if status.success() && failed == 0 && passed > 0 {
        Ok(summary)
    } else {
        Err(summary)
    }
}

/// What node's spec reporter said of a run: its counts, and the first test
/// that did not pass, so the summary line names it.
#[derive(Default)]
struct NodeTally {
    passed: u64,
    failed: u64,
    /// Timed out, or cut off by its file's end: counted apart by node, and
    /// a failure here.
    cancelled: u64,
    first_failing: Option<String>,
    in_failing_list: bool,
}

impl NodeTally {
    fn read(&mut self, line: &str) {
        let trimmed = line.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
        let count = |n: &str| n.trim().parse::<u64>().unwrap_or(0);
        if let Some(n) = trimmed.strip_prefix("pass ") {
            self.passed += count(n);
        } else if let Some(n) = trimmed.strip_prefix("fail ") {
            self.failed += count(n);
        } else if let Some(n) = trimmed.strip_prefix("cancelled ") {
            self.cancelled += count(n);
        } else if line.starts_with("\u{2716} failing tests:") {
            self.in_failing_list = true;
        } else if let Some(name) = line.strip_prefix("\u{2716} ") {
            // The list at the end names each failing test at the margin.
            if self.in_failing_list && self.first_failing.is_none() {
                let name = name.rsplit_once(" (").map_or(name, |(name, _)| name);
                self.first_failing = Some(name.to_owned());
            }
        }
    }

    fn summary(&self) -> String {
        let mut summary = format!("{} passed, {} failed", self.passed, self.failed);
        if self.cancelled > 0 {
            summary.push_str(&format!(", {} cancelled", self.cancelled));
        }
        if let Some(name) = &self.first_failing {
            summary.push_str(&format!(" (first: {name})"));
        }
        summary
    }
}

/// Runs a test command, echoing everything and adding up the `test result:`
/// lines into one summary.
/// `unloaded` is set when a browser test page never ran its scripts.
pub(crate) fn summarize_tests(
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
pub(crate) fn count(summary: &str, word: &str) -> u64 {
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

pub(crate) fn core_is_pure() -> Result<String, String> {
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
        Err(format!(
            "baton-core (or baton-schema) depends on {}",
            forbidden.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::count;
    use crate::root;

    /// The browser tests' page imports one module per `inline_js` snippet
    /// and per `module = "…"` file of baton-wasm, all at once. The test
    /// runner's server leaves some of them unanswered when there are more
    /// than a few (its connections are held open by the ones before), and
    /// the page then never starts: helpers of the tests belong in
    /// `src/engine/test_support.js`, the one module they share.
    #[test]
    fn the_browser_test_page_imports_few_modules() {
        let mut snippets = Vec::new();
        let mut dirs = vec![root().join("crates/baton-wasm/src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|ext| ext == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let inline = text.matches("#[wasm_bindgen(inline_js").count();
                    snippets.extend(std::iter::repeat_n(path.display().to_string(), inline));
                    // A module file is imported once, however many blocks name it.
                    for (at, _) in text.match_indices("#[wasm_bindgen(module = \"") {
                        let rest = &text[at + "#[wasm_bindgen(module = \"".len()..];
                        let module = rest.split('"').next().unwrap_or_default().to_owned();
                        if !snippets.contains(&module) {
                            snippets.push(module);
                        }
                    }
                }
            }
        }
        assert!(
            snippets.len() <= 3,
            "{} JS modules for the browser tests' page, at most 3: {snippets:?}",
            snippets.len()
        );
    }

    #[test]
    fn the_summary_adds_up_what_passed_in_each_engine() {
        let step = |name: &'static str, result: Result<&str, &str>| super::Outcome {
            name,
            seconds: 1.0,
            result: result.map(str::to_owned).map_err(str::to_owned),
        };
        let outcomes = [
            step("package: JS tests in Chromium", Ok("25 passed, 0 failed")),
            step(
                "package: JS tests in Firefox",
                Ok("firefox: 24 passed, 0 failed"),
            ),
            step(
                "end-to-end: the demo in Firefox (not WebMCP: Chromium's)",
                Ok("firefox: 15 passed, 0 failed"),
            ),
            step("package: faults in WebKit", Err("3 passed, 1 failed")),
            step("package: size budget (brotli)", Ok("runtime 356.8 KiB")),
        ];
        assert_eq!(
            super::per_engine(&outcomes),
            "xtask test: passed per engine: Chromium 25 tests (1 steps); Firefox 39 tests (2 steps); WebKit 0 tests (0 steps)"
        );
    }

    #[test]
    fn a_cancelled_test_fails_its_step_and_is_named() {
        let mut tally = super::NodeTally::default();
        for line in [
            "\u{2714} journey: one (3061.9ms)",
            "\u{2716} journey: two (60001.6ms)",
            "  'test timed out after 60000ms'",
            "\u{2139} pass 14",
            "\u{2139} fail 0",
            "\u{2139} cancelled 1",
            "\u{2716} failing tests:",
            "\u{2716} journey: two (60001.6ms)",
        ] {
            tally.read(line);
        }
        assert_eq!(
            tally.summary(),
            "14 passed, 0 failed, 1 cancelled (first: journey: two)"
        );
    }

    #[test]
    fn counts_libtest_summaries() {
        let line =
            "ok. 12 passed; 1 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.01s";
        assert_eq!(count(line, "passed"), 12);
        assert_eq!(count(line, "failed"), 1);
        assert_eq!(count(line, "ignored"), 3);
    }
}
