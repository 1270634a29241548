//! What a root property's values are checked against, read off the compiled
//! graph: the patterns its text meets, so a manifest can be told when an
//! argument's byte limit lets a polynomial pattern run longer than the
//! validation's step budget allows.

use std::sync::Arc;

use crate::compile::{Keyword, NodeId, Program};
use crate::pattern::Pattern;

/// The pattern a root property's text can be checked against least far:
/// its source and the most characters it may be matched on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowestPattern {
    /// The pattern, as the schema writes it.
    pub pattern: String,
    /// The longest text it is matched against.
    pub max_chars: usize,
}

/// The nodes a keyword hands (part of) the value on to.
fn children(keyword: &Keyword) -> Vec<NodeId> {
    match keyword {
        Keyword::Contains { node, .. }
        | Keyword::AdditionalProperties { node, .. }
        | Keyword::PropertyNames(node)
        | Keyword::Items { node, .. }
        | Keyword::Not(node)
        | Keyword::Ref(node)
        | Keyword::UnevaluatedItems(node)
        | Keyword::UnevaluatedProperties(node) => vec![*node],
        Keyword::DynamicRef { target, .. } => vec![*target],
        Keyword::Properties(named) | Keyword::DependentSchemas(named) => {
            named.iter().map(|(_, node)| *node).collect()
        }
        Keyword::PatternProperties(patterned) => patterned.iter().map(|(_, node)| *node).collect(),
        Keyword::PrefixItems(nodes)
        | Keyword::AllOf(nodes)
        | Keyword::AnyOf(nodes)
        | Keyword::OneOf(nodes) => nodes.clone(),
        Keyword::If {
            condition,
            then,
            otherwise,
        } => [Some(*condition), *then, *otherwise]
            .into_iter()
            .flatten()
            .collect(),
        _ => Vec::new(),
    }
}

/// The patterns a keyword matches text against itself.
fn patterns(keyword: &Keyword) -> Vec<&Arc<Pattern>> {
    match keyword {
        Keyword::Pattern(pattern) => vec![pattern],
        Keyword::PatternProperties(patterned) => patterned.iter().map(|(p, _)| p).collect(),
        Keyword::AdditionalProperties { patterns, .. } => patterns.iter().collect(),
        _ => Vec::new(),
    }
}

/// The nodes that check the root's property `name` (through the root's
/// in-place applicators too, and any `patternProperties` or
/// `additionalProperties` that may take it), then everything below them.
pub(crate) fn slowest_pattern(program: &Program, name: &str) -> Option<SlowestPattern> {
    let mut in_place = vec![0];
    let mut seen_in_place = vec![false; program.nodes.len()];
    seen_in_place[0] = true;
    let mut todo = Vec::new();
    while let Some(id) = in_place.pop() {
        for keyword in &program.nodes[id].keywords {
            match keyword {
                Keyword::Properties(named) => {
                    todo.extend(
                        named
                            .iter()
                            .filter(|(n, _)| n == name)
                            .map(|(_, node)| *node),
                    );
                }
                Keyword::PatternProperties(_)
                | Keyword::AdditionalProperties { .. }
                | Keyword::UnevaluatedProperties(_)
                | Keyword::PropertyNames(_) => todo.extend(children(keyword)),
                Keyword::AllOf(_)
                | Keyword::AnyOf(_)
                | Keyword::OneOf(_)
                | Keyword::If { .. }
                | Keyword::Ref(_)
                | Keyword::DynamicRef { .. }
                | Keyword::DependentSchemas(_) => {
                    for next in children(keyword) {
                        if !seen_in_place[next] {
                            seen_in_place[next] = true;
                            in_place.push(next);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut seen = vec![false; program.nodes.len()];
    let mut slowest: Option<SlowestPattern> = None;
    // The root's own patterns meet argument names, never their text: only
    // what lies below counts.
    let mut consider = |pattern: &Pattern| {
        if let Some(max_chars) = pattern.max_chars() {
            if slowest.as_ref().is_none_or(|s| max_chars < s.max_chars) {
                slowest = Some(SlowestPattern {
                    pattern: pattern.source().to_owned(),
                    max_chars,
                });
            }
        }
    };
    while let Some(id) = todo.pop() {
        if std::mem::replace(&mut seen[id], true) {
            continue;
        }
        for keyword in &program.nodes[id].keywords {
            patterns(keyword)
                .into_iter()
                .for_each(|pattern| consider(pattern));
            todo.extend(children(keyword));
        }
    }
    slowest
}
