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

/// What a cognitive operation produces, when a description says it writes one.
const THOUGHTS: &[&str] = &[
    "summary",
    "translation",
    "analysis",
    "classification",
    "recommendation",
    "explanation",
    "interpretation",
    "prediction",
    "paraphrase",
];

/// Verbs that only make or pick what their object says.
const MAKING: &[&str] = &[
    "write", "produce", "draft", "compose", "create", "make", "generate",
];

/// The words of a name or a sentence, lower case: split at anything not a
/// letter or digit, and between a lower-case letter and an upper-case one
/// (`summarizeCards` is `summarize`, `cards`).
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            out.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
        } else {
            if c.is_uppercase() && previous_lower {
                out.push(std::mem::take(&mut current));
            }
            current.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase();
    }
    out.extend((!current.is_empty()).then_some(current));
    out
}

/// Whether `word` is a form of `verb`: `classify`, `classifies`,
/// `classified`, `classifying`; `infer`, `inferring`.
fn is_form_of(word: &str, verb: &str) -> bool {
    let Some(rest) = word.strip_prefix(verb.trim_end_matches(['e', 'y'])) else {
        return false;
    };
    let cut = &verb[verb.trim_end_matches(['e', 'y']).len()..];
    let last = verb.chars().last().map(String::from).unwrap_or_default();
    match cut {
        "e" => ["e", "es", "ed", "ing", "er"].contains(&rest),
        "y" => ["y", "ies", "ied", "ying"].contains(&rest),
        _ => {
            ["", "s", "es", "ed", "ing", "er"].contains(&rest)
                || rest
                    .strip_prefix(last.as_str())
                    .is_some_and(|tail| ["ed", "ing"].contains(&tail))
        }
    }
}

fn is_cognitive(word: &str) -> bool {
    COGNITIVE.iter().any(|verb| is_form_of(word, verb))
}

/// The words of a description that say the capability thinks rather than
/// acts (AG-22): it begins with a cognitive verb ("Summarizes the board"),
/// it decides, works out or picks the best, or it writes what only thought
/// produces ("Write a summary of every card").
fn thinks(description: &str) -> Option<String> {
    let words = words(description);
    let at = |index: usize| words.get(index).map(String::as_str).unwrap_or_default();
    if words.first().is_some_and(|word| is_cognitive(word)) {
        return Some(words[0].clone());
    }
    (0..words.len()).find_map(|index| {
        let (word, next, after) = (at(index), at(index + 1), at(index + 2));
        let deciding =
            is_form_of(word, "decide") && ["which", "whether", "what", "how", "if"].contains(&next);
        let working_out = (is_form_of(word, "work") || is_form_of(word, "figure")) && next == "out";
        let picking = ["choose", "pick", "select"]
            .iter()
            .any(|verb| is_form_of(word, verb))
            && next == "the"
            && ["best", "most", "right"].contains(&after);
        let writing = MAKING.iter().any(|verb| is_form_of(word, verb))
            && ["a", "an", "the"].contains(&next)
            && THOUGHTS.iter().any(|thought| {
                after.strip_suffix('s').unwrap_or(after) == *thought || after == *thought
            });
        let span = if deciding || working_out {
            2
        } else if picking || writing {
            3
        } else {
            0
        };
        (span > 0).then(|| words[index..index + span].join(" "))
    })
}

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
        if let Some(verb) = words(name).into_iter().find(|word| is_cognitive(word)) {
            out.push(finding(
                &format!("{base}.name"),
                "AG-22",
                format!("`{name}` is a cognitive operation ({verb}): that is the acting party's work; give the participant the mechanical mutation that records its result"),
            ));
        } else if let Some(wording) = capability["description"].as_str().and_then(thinks) {
            out.push(finding(
                &format!("{base}.description"),
                "AG-22",
                format!("`{name}` is described as a cognitive operation (\"{wording}\"): that is the acting party's work; give the participant the mechanical mutation that records its result"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ag_22_names_are_read_word_by_word() {
        assert_eq!(words("cardsAutoClassify"), ["cards", "auto", "classify"]);
        assert_eq!(words("summarize_cards"), ["summarize", "cards"]);
        let cognitive = |name: &str| words(name).iter().any(|word| is_cognitive(word));
        assert!(cognitive("cardsAutoClassify"));
        assert!(cognitive("smart-translate"));
        assert!(cognitive("generateReport"));
        // A noun is not the verb: sharing a summary is mechanical.
        assert!(!cognitive("share_summary"));
        assert!(!cognitive("set_classification"));
        assert!(!cognitive("rename"));
    }

    #[test]
    fn ag_22_descriptions_that_think_are_found() {
        let found = |text: &str| thinks(text);
        assert_eq!(
            found("Summarizes the board in one paragraph.").as_deref(),
            Some("summarizes")
        );
        assert_eq!(
            found("Moves the cards it decides whether to keep.").as_deref(),
            Some("decides whether")
        );
        assert_eq!(
            found("Works out the next free slot and books it.").as_deref(),
            Some("works out")
        );
        assert_eq!(
            found("Picks the best reviewer for the card.").as_deref(),
            Some("picks the best")
        );
        assert_eq!(
            found("Write a summary of every card on the board.").as_deref(),
            Some("write a summary")
        );
        assert_eq!(
            found("Produces translations of the card titles.").as_deref(),
            None
        );
        assert_eq!(
            found("Produces the translations of the card titles.").as_deref(),
            Some("produces the translations")
        );
        // Mechanical acts, even when they carry a thought's result.
        for text in [
            "Give one card a new title.",
            "Store the summary the person wrote as the week's note.",
            "Send the summary to a teammate by email.",
            "Set the category the acting party chose for one card.",
            "Select the cards with these ids.",
        ] {
            assert_eq!(found(text), None, "{text}");
        }
    }

    #[test]
    fn ag_22_verb_forms() {
        for (word, verb) in [
            ("classifies", "classify"),
            ("classified", "classify"),
            ("classifying", "classify"),
            ("inferring", "infer"),
            ("decides", "decide"),
            ("deciding", "decide"),
            ("picks", "pick"),
        ] {
            assert!(is_form_of(word, verb), "{word} is a form of {verb}");
        }
        for (word, verb) in [
            ("classification", "classify"),
            ("summary", "summarize"),
            ("decidedly", "decide"),
        ] {
            assert!(!is_form_of(word, verb), "{word} is not a form of {verb}");
        }
    }
}
