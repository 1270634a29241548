//! The manual's map (`baton-core/src/manual/requirements.md`) from each requirement to the module that decides it and
//! the test that proves it stays true: every requirement AG-1 … AG-50 has a
//! row, every module named mentions its requirement, and every test named is
//! in the file it is said to be in.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The rows of the manual's "Where each requirement is decided" table:
/// (requirement number, module, test file, test name).
fn rows() -> Vec<(u32, String, String, String)> {
    let section =
        std::fs::read_to_string(root().join("crates/baton-core/src/manual/requirements.md"))
            .expect("the manual has the requirement map");
    section
        .lines()
        .filter(|line| line.starts_with("| AG-"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let number = cells[1]
                .trim_start_matches("AG-")
                .parse()
                .unwrap_or_else(|_| panic!("a requirement number in `{line}`"));
            let ticked = |cell: &str| -> Vec<String> {
                cell.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_owned)
                    .collect()
            };
            let module = ticked(cells[2]).remove(0);
            let mut proof = ticked(cells[3]);
            assert_eq!(proof.len(), 2, "AG-{number}: a test file and a test name");
            let test = proof.remove(1);
            (number, module, proof.remove(0), test)
        })
        .collect()
}

#[test]
fn every_requirement_has_one_deciding_module_and_a_test_that_names_it() {
    let rows = rows();
    let numbers: Vec<u32> = rows.iter().map(|row| row.0).collect();
    assert_eq!(
        numbers,
        (1..=50).collect::<Vec<u32>>(),
        "one row per requirement, in order"
    );
    for (number, module, file, test) in &rows {
        let requirement = format!("AG-{number}");
        let text = std::fs::read_to_string(root().join(module))
            .unwrap_or_else(|error| panic!("{requirement}: {module} cannot be read: {error}"));
        assert!(
            text.contains(&requirement),
            "{requirement}: {module} does not mention it"
        );
        let tests = std::fs::read_to_string(root().join(file))
            .unwrap_or_else(|error| panic!("{requirement}: {file} cannot be read: {error}"));
        let Some(at) = tests.find(test.as_str()) else {
            panic!("{requirement}: no `{test}` in {file}");
        };
        // The test names the requirement: in its name, or in its title or
        // body (a JS test's title, a table of rules in one Rust test).
        let line_start = tests[..at].rfind('\n').map_or(0, |index| index + 1);
        let declared = tests[line_start..].lines().next().unwrap_or_default();
        assert!(
            declared.contains("fn ") || declared.contains("test("),
            "{requirement}: `{test}` in {file} is not where a test is declared: {declared}"
        );
        let body: String = tests[line_start..].chars().take(4000).collect();
        assert!(
            test.starts_with(&format!("ag_{number}_")) || body.contains(&requirement),
            "{requirement}: `{test}` in {file} does not name it"
        );
    }
}
