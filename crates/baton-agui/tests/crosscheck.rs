//! Cross-check with the reference AG-UI client: every stream of the corpus
//! goes through `@ag-ui/client`'s `transformChunks` + `verifyEvents` in Node
//! and through Baton's AG-UI checks; both must call each stream valid or
//! invalid alike.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn crosscheck_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/agui-crosscheck")
}

#[test]
fn verdicts_agree_with_the_reference_client() {
    let dir = crosscheck_dir();
    assert!(
        dir.join("node_modules/@ag-ui/client").exists(),
        "the reference client is not installed in {}; `cargo xtask test` installs it",
        dir.display()
    );
    let corpus_text = std::fs::read_to_string(dir.join("corpus.json")).expect("corpus");
    let corpus: Vec<Value> = serde_json::from_str(&corpus_text).expect("corpus is JSON");
    assert!(corpus.len() >= 30, "the corpus holds at least 30 streams");
    let output = Command::new("node")
        .arg("verify.mjs")
        .arg("corpus.json")
        .current_dir(&dir)
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reference: Vec<Value> = serde_json::from_slice(&output.stdout).expect("verdicts are JSON");
    assert_eq!(reference.len(), corpus.len());

    let mut disagreements = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    println!(
        "{:<34} {:<9} {:<9} baton's reason",
        "stream", "client", "baton"
    );
    for (stream, verdict) in corpus.iter().zip(&reference) {
        let name = stream["name"].as_str().unwrap();
        assert_eq!(verdict["name"], stream["name"]);
        let events = stream["events"].as_array().unwrap();
        let ours = baton_agui::verify_agui_events(events);
        let theirs = verdict["valid"].as_bool().unwrap();
        let word = |ok: bool| if ok { "valid" } else { "invalid" };
        println!(
            "{name:<34} {:<9} {:<9} {}",
            word(theirs),
            word(ours.is_ok()),
            ours.as_ref()
                .err()
                .map(|violation| violation.detail.as_str())
                .unwrap_or("")
        );
        if theirs {
            valid += 1;
        } else {
            invalid += 1;
        }
        if ours.is_ok() != theirs {
            disagreements.push(name.to_owned());
        }
    }
    println!(
        "{valid} valid and {invalid} invalid streams; {} disagreements",
        disagreements.len()
    );
    assert!(
        valid >= 10 && invalid >= 10,
        "the corpus exercises both verdicts"
    );
    assert!(
        disagreements.is_empty(),
        "Baton and @ag-ui/client disagree on {disagreements:?}"
    );
}
