//! Which patterns a backtracking engine could spend exponential or
//! high-polynomial time on, decided before any pattern runs.
//!
//! The browser's own `RegExp` backtracks, and a pattern comes from an acting
//! party or a manifest that may be wrong: `^(a+)+$` against forty `a`s and a
//! `!` would freeze the page. So every pattern is read first and
//!
//! * refused when a repetition could match the same text in more than one
//!   way — an ambiguous alternation or a nested repetition inside a
//!   repetition, an empty repetition, a back-reference (the shapes behind
//!   exponential time);
//! * otherwise given a **degree**, an upper bound on the power of the text's
//!   length its matching time can grow with: one for a pattern a backtracking
//!   engine runs in linear time, one more for each repetition whose end is
//!   ambiguous with what follows it, and one more when the pattern is not
//!   anchored at the start (every start position is tried). Text longer than
//!   the degree allows ([`max_chars`]) is not matched but refused.
//!
//! The analysis is conservative: it may refuse a pattern that is in fact
//! safe (`(ab|ac)*`), never the other way round.

use super::syntax::{CharSet, Node};

/// Steps of backtracking one validation may cost at most, across every
/// string it matches: a match of degree `d` on `n` characters is counted as
/// `n^d` steps. Measured in Chromium, 10^8 worst-case steps took about
/// 270 ms; this keeps one `validate` call near 50 ms however many strings
/// it holds.
pub(crate) const STEP_BUDGET: f64 = 2e7;

/// Why a pattern is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hazard {
    /// `\1`, `\k<name>`: matching with back-references is NP-hard.
    Backreference,
    /// Inside a repetition, two alternatives can begin with the same character.
    AmbiguousAlternation,
    /// A repetition inside a repetition can hand characters to what follows it.
    NestedRepetition,
    /// An unbounded repetition of something that can match nothing.
    EmptyRepetition,
}

impl std::fmt::Display for Hazard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Hazard::Backreference => "it uses a back-reference",
            Hazard::AmbiguousAlternation => {
                "alternatives inside a repetition can begin with the same character"
            }
            Hazard::NestedRepetition => {
                "a repetition inside a repetition can match the same text in more than one way"
            }
            Hazard::EmptyRepetition => "an unbounded repetition can match nothing",
        })
    }
}

/// The degree of a pattern that is not refused: its matching time grows at
/// most with the text's length to this power.
pub(crate) fn assess(node: &Node, anchored: bool) -> Result<u32, Hazard> {
    let mut walk = Walk::default();
    walk.node(node, &CharSet::empty(), false)?;
    let unanchored = u32::from(!anchored && walk.unbounded);
    Ok(1 + walk.ambiguous_ends + unanchored)
}

/// The longest text, in characters, a pattern of this degree is matched
/// against; `None` when there is no limit.
pub(crate) fn max_chars(degree: u32) -> Option<usize> {
    (degree > 1).then(|| STEP_BUDGET.powf(1.0 / f64::from(degree)).floor() as usize)
}

#[derive(Default)]
struct Walk {
    ambiguous_ends: u32,
    unbounded: bool,
}

fn repeats(max: Option<u32>) -> bool {
    max.is_none_or(|max| max > 1)
}

fn nullable(node: &Node) -> bool {
    match node {
        Node::Char(_) => false,
        Node::Seq(terms) => terms.iter().all(nullable),
        Node::Alt(branches) => branches.iter().any(nullable),
        Node::Repeat { body, min, .. } => *min == 0 || nullable(body),
        Node::Assert | Node::Look(_) | Node::Backref => true,
    }
}

/// The characters a match of `node` can begin with.
fn first(node: &Node) -> CharSet {
    match node {
        Node::Char(set) => set.clone(),
        Node::Seq(terms) => {
            let mut set = CharSet::empty();
            for term in terms {
                set.add(&first(term));
                if !nullable(term) {
                    break;
                }
            }
            set
        }
        Node::Alt(branches) => union(branches.iter().map(first)),
        Node::Repeat { body, .. } => first(body),
        Node::Assert | Node::Look(_) => CharSet::empty(),
        Node::Backref => CharSet::any(),
    }
}

/// Every character a match of `node` can consume.
fn chars(node: &Node) -> CharSet {
    match node {
        Node::Char(set) => set.clone(),
        Node::Seq(parts) | Node::Alt(parts) => union(parts.iter().map(chars)),
        Node::Repeat { body, .. } => chars(body),
        Node::Assert | Node::Look(_) => CharSet::empty(),
        Node::Backref => CharSet::any(),
    }
}

fn union(sets: impl Iterator<Item = CharSet>) -> CharSet {
    let mut all = CharSet::empty();
    for set in sets {
        all.add(&set);
    }
    all
}

impl Walk {
    /// `follow`: what can come right after `node`; `in_loop`: whether
    /// `node` sits inside a repetition.
    fn node(&mut self, node: &Node, follow: &CharSet, in_loop: bool) -> Result<(), Hazard> {
        match node {
            Node::Char(_) | Node::Assert => Ok(()),
            Node::Backref => Err(Hazard::Backreference),
            Node::Look(body) => self.node(body, &CharSet::empty(), false),
            Node::Seq(terms) => {
                let mut after = follow.clone();
                for term in terms.iter().rev() {
                    self.node(term, &after, in_loop)?;
                    let mut before = first(term);
                    if nullable(term) {
                        before.add(&after);
                    }
                    after = before;
                }
                Ok(())
            }
            Node::Alt(branches) => {
                if in_loop {
                    let firsts: Vec<CharSet> = branches.iter().map(first).collect();
                    for (i, a) in firsts.iter().enumerate() {
                        for (j, b) in firsts.iter().enumerate().skip(i + 1) {
                            let both_empty = nullable(&branches[i]) && nullable(&branches[j]);
                            if a.overlaps(b) || both_empty {
                                return Err(Hazard::AmbiguousAlternation);
                            }
                        }
                    }
                }
                branches
                    .iter()
                    .try_for_each(|branch| self.node(branch, follow, in_loop))
            }
            // An exact count of one character class (`[0-9a-f]{3}`) is a
            // run of fixed width: it can match a text in one way only, so
            // it hands nothing on, wherever it stands.
            Node::Repeat { body, min, max }
                if Some(*min) == *max && matches!(**body, Node::Char(_)) =>
            {
                Ok(())
            }
            Node::Repeat { body, max, .. } if repeats(*max) => {
                let consumed = chars(body);
                if in_loop && consumed.overlaps(follow) {
                    return Err(Hazard::NestedRepetition);
                }
                if max.is_none() {
                    if nullable(body) && !consumed.is_empty() {
                        return Err(Hazard::EmptyRepetition);
                    }
                    self.unbounded = true;
                    if consumed.overlaps(follow) {
                        self.ambiguous_ends += 1;
                    }
                }
                let mut inner = first(body);
                inner.add(follow);
                self.node(body, &inner, true)
            }
            Node::Repeat { body, .. } => self.node(body, follow, in_loop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::syntax::parse;
    use super::*;

    fn verdict(pattern: &str) -> Result<u32, Hazard> {
        assess(&parse(pattern).unwrap(), pattern.starts_with('^'))
    }

    #[test]
    fn exponential_shapes_are_refused() {
        for (pattern, hazard) in [
            ("^(a+)+$", Hazard::NestedRepetition),
            ("^(a*)*$", Hazard::EmptyRepetition),
            ("^(a|aa)+$", Hazard::AmbiguousAlternation),
            ("^(a|a?)+$", Hazard::EmptyRepetition),
            ("^(a|ab)+$", Hazard::AmbiguousAlternation),
            ("^(\\w+\\s?)+$", Hazard::NestedRepetition),
            ("^(([a-z])+.)+[A-Z]([a-z])+$", Hazard::NestedRepetition),
            ("(.*a){12}", Hazard::NestedRepetition),
            ("^(a?)*$", Hazard::EmptyRepetition),
            ("(a)\\1", Hazard::Backreference),
        ] {
            assert_eq!(verdict(pattern), Err(hazard), "{pattern}");
        }
    }

    #[test]
    fn common_safe_shapes_are_linear() {
        for pattern in [
            // Hex colours: the inner count is exact, the outer bounded.
            "^#(?:[0-9a-fA-F]{3}){1,2}$",
            "^(?:[0-9a-f]{4}-?){2}$",
            "^[a-z0-9]+(-[a-z0-9]+)*$",
            "^\\d{4}-\\d{2}-\\d{2}$",
            "^[A-Z][a-z]*$",
            "^(foo|bar)*$",
            "^#[0-9a-f]{6}$",
        ] {
            assert_eq!(verdict(pattern), Ok(1), "{pattern}");
        }
    }

    #[test]
    fn polynomial_shapes_get_a_degree_and_a_length_limit() {
        assert_eq!(verdict("[0-9]+x"), Ok(2));
        // Conservative: the last label could start where another iteration could.
        assert_eq!(verdict("^([a-zA-Z0-9-]+\\.)+[a-z]{2,}$"), Ok(2));
        assert_eq!(verdict("^\\d+\\.?\\d+$"), Ok(2));
        assert_eq!(verdict("^\\S+@\\S+\\.\\S+$"), Ok(3));
        assert_eq!(max_chars(1), None);
        assert_eq!(max_chars(2), Some(4_472));
        assert!(max_chars(3).is_some_and(|n| (260..275).contains(&n)));
    }
}
