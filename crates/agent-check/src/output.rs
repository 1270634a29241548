//! The report, three ways: for people (with the source line), as JSON, and
//! as SARIF 2.1.0 so code-scanning views show findings inline.

use serde_json::{json, Value};

use crate::rules::Finding;
use crate::source::Scan;

/// A 1-based line and column (in characters) of a byte offset.
pub fn line_column(text: &str, offset: u32) -> (usize, usize) {
    let mut offset = (offset as usize).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

fn place(scan: &Scan, finding: &Finding) -> (String, usize, usize, String) {
    let file = &scan.files[finding.file];
    let (line, column) = line_column(&file.text, finding.offset);
    let source = file.text.lines().nth(line - 1).unwrap_or("").to_owned();
    (file.path.display().to_string(), line, column, source)
}

/// For people: `file:line:column: AG-n: message`, the source line, a caret.
pub fn human(scan: &Scan, findings: &[Finding]) -> String {
    let mut out = String::new();
    for finding in findings {
        let (path, line, column, source) = place(scan, finding);
        out.push_str(&format!(
            "{path}:{line}:{column}: {}: {}\n",
            finding.requirement, finding.message
        ));
        out.push_str(&format!(
            "    | {source}\n    | {}^\n",
            " ".repeat(column - 1)
        ));
    }
    for (path, why) in &scan.unreadable {
        out.push_str(&format!("{}: unreadable: {why}\n", path.display()));
    }
    out.push_str(&format!(
        "agent-check: {} manifest{} in {} file{}, {} finding{}, {} unreadable\n",
        scan.manifests.len(),
        if scan.manifests.len() == 1 { "" } else { "s" },
        scan.files.len(),
        if scan.files.len() == 1 { "" } else { "s" },
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        scan.unreadable.len()
    ));
    out
}

/// As JSON.
pub fn as_json(scan: &Scan, findings: &[Finding]) -> Value {
    let findings: Vec<Value> = findings
        .iter()
        .map(|finding| {
            let (path, line, column, _) = place(scan, finding);
            json!({ "file": path, "line": line, "column": column, "requirement": finding.requirement, "message": finding.message })
        })
        .collect();
    let unreadable: Vec<Value> = scan
        .unreadable
        .iter()
        .map(|(path, why)| json!({ "file": path.display().to_string(), "reason": why }))
        .collect();
    json!({ "manifests": scan.manifests.len(), "files": scan.files.len(), "findings": findings, "unreadable": unreadable })
}

/// What each rule checks, for SARIF's rule descriptions.
const RULES: &[(&str, &str)] = &[
    ("AG-12", "A manifest is inert data, declaring capabilities and reads."),
    ("AG-13", "A manifest's problems are reported, and the component keeps working."),
    ("AG-14", "Every capability and read carries a description that says something."),
    ("AG-15", "Capability arguments are typed by a valid, self-contained JSON Schema with an object root."),
    ("AG-16", "Every argument has a size limit."),
    ("AG-17", "The maturity tier matches the effects declared."),
    ("AG-18", "Reversibility is declared per effect; sending, publishing and notifying are irreversible."),
    ("AG-20", "A capability names the reads it acts on."),
    ("AG-22", "Capabilities are mechanical mutations, not cognitive operations."),
    ("AG-23", "Each mount of one manifest has its own instance name."),
    ("AG-34", "A received actor reference is passed on verbatim."),
];

/// As SARIF 2.1.0.
pub fn sarif(scan: &Scan, findings: &[Finding]) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, text)| json!({ "id": id, "shortDescription": { "text": text } }))
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|finding| {
            let (path, line, column, _) = place(scan, finding);
            let uri = path.replace('\\', "/");
            let mut result = json!({
                "ruleId": finding.requirement,
                "level": "error",
                "message": { "text": finding.message },
                "locations": [{ "physicalLocation": {
                    "artifactLocation": { "uri": uri },
                    "region": { "startLine": line, "startColumn": column }
                } }]
            });
            if let Some(index) = RULES.iter().position(|(id, _)| *id == finding.requirement) {
                result["ruleIndex"] = json!(index);
            }
            result
        })
        .collect();
    let notifications: Vec<Value> = scan
        .unreadable
        .iter()
        .map(|(path, why)| json!({
            "level": "error",
            "message": { "text": format!("unreadable: {why}") },
            "locations": [{ "physicalLocation": { "artifactLocation": { "uri": path.display().to_string().replace('\\', "/") } } }]
        }))
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "runs": [{
            "tool": { "driver": {
                "name": "agent-check",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://example.invalid/baton",
                "rules": rules
            } },
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": scan.unreadable.is_empty(),
                "toolExecutionNotifications": notifications
            }],
            "results": results
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::line_column;

    #[test]
    fn lines_and_columns_count_characters_from_one() {
        let text = "{\n  \"título\": \"é\",\n  \"x\": 1\n}";
        assert_eq!(line_column(text, 0), (1, 1));
        let x = text.find("\"x\"").unwrap() as u32;
        assert_eq!(line_column(text, x), (3, 3));
        let accent = text.find("é").unwrap() as u32;
        assert_eq!(line_column(text, accent), (2, 14));
        // Inside a character, or past the end: the nearest place before it.
        assert_eq!(line_column(text, accent + 1), (2, 14));
        assert_eq!(line_column(text, 10_000), (4, 2));
    }
}
