//! The rules: the engine's own manifest checks (one implementation: the
//! core's parser), and what only a look at the source can tell — inert data
//! (AG-12), descriptions that say something (AG-14), capabilities that name
//! the reads they act on (AG-20), cognitive operations lodged in a
//! participant (AG-22), instances of one manifest (AG-23) and actor
//! references passed on verbatim (AG-34).

use oxc_span::Span;
use serde_json::Value;

use crate::source::{Found, Scan};

/// One finding, located.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The file, by index into the scan.
    pub file: usize,
    /// Where, as a byte offset.
    pub offset: u32,
    /// The requirement broken (`AG-15`).
    pub requirement: String,
    /// What is wrong.
    pub message: String,
}

/// Verbs of operations that think rather than act (AG-22).
const COGNITIVE: &[&str] = &[
    "summarize",
    "summarise",
    "translate",
    "classify",
    "categorize",
    "categorise",
    "rewrite",
    "paraphrase",
    "generate",
    "analyze",
    "analyse",
    "infer",
    "predict",
    "explain",
    "recommend",
    "extract",
    "interpret",
    "decide",
];

/// Every finding of a scan, in file and source order.
pub fn check(scan: &Scan) -> Vec<Finding> {
    let mut findings: Vec<Finding> = scan
        .findings
        .iter()
        .map(|finding| Finding {
            file: finding.file,
            offset: finding.span.start,
            requirement: finding.requirement.into(),
            message: finding.message.clone(),
        })
        .collect();
    for manifest in &scan.manifests {
        findings.extend(check_manifest(manifest));
    }
    findings.sort();
    findings.dedup();
    findings
}

/// Every finding on one manifest: what is not data (AG-12), what the engine
/// would refuse, descriptions that say nothing (AG-14), cognitive
/// capabilities (AG-22), acts that name no read (AG-20), and mounts
/// without instance names (AG-23).
fn check_manifest(manifest: &Found) -> Vec<Finding> {
    let finding = |path: &str, requirement: &str, message: String| Finding {
        file: manifest.file,
        offset: locate(manifest, path).start,
        requirement: requirement.into(),
        message,
    };
    let mut out = not_data(manifest);
    let flagged = engine_refusals(manifest, &finding, &mut out);
    let value = &manifest.literal.value;
    // What the engine already said of a description is not said twice.
    let mut terse = Vec::new();
    let mut says_something = |path: &str, description: &Value, name: Option<&str>| {
        if !flagged.iter().any(|flagged| flagged == path) {
            says_something(&mut terse, &finding, path, description, name);
        }
    };
    says_something("$.description", &value["description"], value["id"].as_str());
    for (index, read) in value["reads"].as_array().into_iter().flatten().enumerate() {
        let path = format!("$.reads[{index}].description");
        says_something(&path, &read["description"], read["name"].as_str());
    }
    for (index, capability) in capabilities(value) {
        let name = capability["name"].as_str().unwrap_or_default();
        let path = format!("$.capabilities[{index}].description");
        says_something(&path, &capability["description"], Some(name));
    }
    out.extend(capability_findings(value, &finding));
    out.extend(terse);
    out.extend(mounts(manifest));
    out
}

fn capabilities(value: &Value) -> impl Iterator<Item = (usize, &Value)> {
    value["capabilities"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
}

/// AG-12: what in the literal is not data (a function, a computed value).
fn not_data(manifest: &Found) -> Vec<Finding> {
    manifest
        .literal
        .not_data
        .iter()
        .map(|(path, span, what)| Finding {
            file: manifest.file,
            offset: span.start,
            requirement: "AG-12".into(),
            message: format!("{path} is {what}: a manifest is inert data only"),
        })
        .collect()
}

/// The engine's own checks: what it would refuse at registration. Returns
/// the paths it flagged.
fn engine_refusals(
    manifest: &Found,
    finding: &impl Fn(&str, &str, String) -> Finding,
    out: &mut Vec<Finding>,
) -> Vec<String> {
    let literal = &manifest.literal;
    let mut flagged = Vec::new();
    let Err(error) = baton_core::Manifest::parse(&literal.value.to_string()) else {
        return flagged;
    };
    for problem in error.problems {
        let under_not_data = literal
            .not_data
            .iter()
            .any(|(path, _, _)| problem.path.starts_with(path.as_str()));
        if under_not_data {
            continue;
        }
        let requirement = problem
            .requirement
            .clone()
            .unwrap_or_else(|| "AG-12".into());
        flagged.push(problem.path.clone());
        out.push(finding(
            &problem.path,
            &requirement,
            format!("{}: {}", problem.path, problem.message),
        ));
    }
    flagged
}

/// AG-22: no cognitive operation as a capability; AG-20: a capability that
/// acts on existing items names the reads it acts on.
fn capability_findings(
    value: &Value,
    finding: &impl Fn(&str, &str, String) -> Finding,
) -> Vec<Finding> {
    let reads: Vec<&str> = value["reads"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|read| read["name"].as_str())
        .collect();
    let mut out = Vec::new();
    for (index, capability) in capabilities(value) {
        let name = capability["name"].as_str().unwrap_or_default();
        let base = format!("$.capabilities[{index}]");
        let lower = name.to_ascii_lowercase();
        if let Some(verb) = COGNITIVE.iter().find(|verb| lower.starts_with(*verb)) {
            out.push(finding(
                &format!("{base}.name"),
                "AG-22",
                format!("`{name}` is a cognitive operation ({verb}): that is the acting party's work; give the participant the mechanical mutation that records its result"),
            ));
        }
        let acts_on_items = capability["arguments"]["properties"]
            .as_object()
            .is_some_and(|properties| {
                properties
                    .keys()
                    .any(|key| key == "id" || key.ends_with("Id"))
            });
        let names_reads = capability["reads"]
            .as_array()
            .is_some_and(|r| !r.is_empty());
        if acts_on_items && !reads.is_empty() && !names_reads {
            out.push(finding(
                &base,
                "AG-20",
                format!("`{name}` acts on existing items but names no read it acts on (this participant has {}): list them in `reads`, so a stale plan is refused", reads.join(", ")),
            ));
        }
    }
    out
}

/// AG-23: one manifest mounted more than once needs an instance name per
/// mount.
fn mounts(manifest: &Found) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut names: Vec<Option<&str>> = Vec::new();
    for (file, span, instance) in &manifest.registrations {
        let instance = instance.as_deref();
        if !names.is_empty() && (instance.is_none() || names.contains(&instance)) {
            out.push(Finding {
                file: *file,
                offset: span.start,
                requirement: "AG-23".into(),
                message: "this manifest is registered again without an instance name of its own: give each mount `instance` in its behaviour, so an ambiguous address is asked about".into(),
            });
        }
        names.push(instance);
    }
    out
}

/// A description must say something: a few words, not the name again.
fn says_something(
    out: &mut Vec<Finding>,
    finding: &impl Fn(&str, &str, String) -> Finding,
    path: &str,
    description: &Value,
    name: Option<&str>,
) {
    let Some(text) = description.as_str() else {
        return; // a missing description is the core's finding
    };
    let words = text.split_whitespace().count();
    let restates = name.is_some_and(|name| {
        let plain = |s: &str| {
            s.to_ascii_lowercase()
                .replace(['_', '-', '.'], " ")
                .trim()
                .to_owned()
        };
        plain(text) == plain(name)
    });
    if words < 3 || restates {
        out.push(finding(
            path,
            "AG-14",
            format!("{path} says too little ({text:?}): say what it does or holds, for the acting party and for people"),
        ));
    }
}

/// Where a JSON path stands: its own place, or its nearest located parent's.
fn locate(manifest: &Found, path: &str) -> Span {
    let mut path = path.to_owned();
    loop {
        if let Some(span) = manifest.literal.spans.get(&path) {
            return *span;
        }
        match path.rfind(['.', '[']) {
            Some(cut) if cut > 0 => path.truncate(cut),
            _ => return manifest.span,
        }
    }
}
