//! `cargo xtask corpus`: refreshes the SchemaStore pattern corpus and its
//! verdicts. A maintenance command, never part of `cargo xtask test`: the
//! test reads the recorded file, so the checker need not run every time.
//!
//! * `cargo xtask corpus` — clones the SchemaStore catalog (shallow, into
//!   `target/schemastore`), extracts every `pattern` and `patternProperties`
//!   key and judges each with `recheck` (`tests/corpus/refresh.mjs`).
//! * `cargo xtask corpus --schemastore DIR` — the same from a checkout.
//! * `cargo xtask corpus --verdicts` — judges the recorded patterns again,
//!   with no catalog at all.

use std::process::Command;

use crate::{ensure_npm, root, run};

/// The checker's package and its script.
const CHECKER: &str = "tests/corpus";

/// The recorded corpus the schema tests read.
const CORPUS: &str = "crates/baton-schema/tests/corpus/schemastore-patterns.json";

const SCHEMASTORE: &str = "https://github.com/SchemaStore/schemastore";

pub fn corpus(args: &[String]) -> Result<(), String> {
    ensure_npm(CHECKER, "recheck")?;
    let out = root().join(CORPUS);
    let mut node = Command::new("node");
    node.arg("refresh.mjs").current_dir(root().join(CHECKER));
    match args.first().map(String::as_str) {
        Some("--verdicts") => {
            node.arg("--verdicts").arg(&out);
        }
        Some("--schemastore") => {
            let dir = args
                .get(1)
                .ok_or("--schemastore needs the directory of a SchemaStore checkout")?;
            node.arg("--schemastore")
                .arg(std::fs::canonicalize(dir).map_err(|e| format!("{dir}: {e}"))?);
        }
        None => {
            let checkout = root().join("target/schemastore");
            if checkout.exists() {
                std::fs::remove_dir_all(&checkout).map_err(|e| e.to_string())?;
            }
            let mut clone = Command::new("git");
            clone
                .args(["clone", "--depth", "1", "--quiet", SCHEMASTORE])
                .arg(&checkout);
            run(clone)?;
            node.arg("--schemastore").arg(&checkout);
        }
        Some(other) => return Err(format!("unknown option `{other}`; try `cargo xtask help`")),
    }
    node.arg("--out").arg(&out);
    run(node)?;
    println!("corpus written to {CORPUS}");
    Ok(())
}
