//! Which patterns a backtracking engine could spend exponential or
//! high-polynomial time on, decided before any pattern runs.
//!
//! The browser's own `RegExp` backtracks, and a pattern comes from an acting
//! party or a manifest that may be wrong: `^(a+)+$` against forty `a`s and a
//! `!` would freeze the page. So every pattern is read into the automaton a
//! backtracking engine walks ([`super::automaton`]), and its ambiguity is
//! decided there ([`super::ambiguity`]):
//!
//! * **exponential** — a repetition can match the same text in more than one
//!   way — is refused, naming the repetition;
//! * so is a counted repetition of something that can match nothing,
//!   counted past [`MAX_EMPTY_COPIES`]: `(a?){n}` has no loop, yet reads `k`
//!   characters in `n choose k` ways;
//! * otherwise the pattern gets a **degree**, the power of the text's length
//!   its matching time can grow with: one for a pattern matched in linear
//!   time, which needs no length limit. Text longer than a higher degree
//!   allows within the step budget ([`max_chars`]) is not matched but
//!   refused, and one validation's matches share one budget.
//!
//! What the automaton cannot decide is judged conservatively:
//!
//! * a back-reference is refused (matching with them is NP-hard);
//! * `$`, `\b` and lookarounds are read as always passing, which only adds
//!   paths (`^` passes only where nothing has been read); a lookaround's
//!   body is judged as a pattern of its own: checked once, right after the
//!   leading `^`, its degree counts if higher than the pattern's; checked
//!   wherever the match may stand, one that can repeat without bound adds
//!   its degree to the pattern's;
//! * `\p{…}` is read as any character;
//! * a pattern whose automaton is too large to analyse is judged by its
//!   shape alone ([`super::shape`]), which may refuse a safe pattern but
//!   never accepts an unsafe one.

use super::ambiguity::{analyse, Ambiguity};
use super::automaton::{anchored, Automaton};
use super::shape;
use super::syntax::{Anchor, Node};

/// Steps of backtracking one validation may cost at most, across every
/// string it matches: a match of degree `d` on `n` characters is counted as
/// `n^d` steps. Measured in Chromium, the slowest attack of the SchemaStore
/// corpus took 79 ms at 2·10^7 steps and 25 to 42 ms at 10^7; at 5·10^6
/// one `validate` call stays near 20 ms however many strings it holds.
pub(crate) const STEP_BUDGET: f64 = 5e6;

/// Why a pattern is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hazard {
    /// `\1`, `\k<name>`: matching with back-references is NP-hard.
    Backreference,
    /// A repetition can match the same text in more than one way.
    Exponential {
        /// The repetition, as the pattern writes it.
        part: String,
    },
    /// Matching time grows with so high a power of the text's length that
    /// only text shorter than [`MIN_CHARS`] could be checked.
    Polynomial {
        /// The power.
        degree: u32,
        /// The longest text it could be checked on.
        max_chars: usize,
    },
    /// Too large to analyse, and its shape alone does not prove it safe.
    TooComplex,
}

/// The shortest text a pattern must be checkable on to be accepted.
pub const MIN_CHARS: usize = 32;

impl std::fmt::Display for Hazard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Hazard::Backreference => f.write_str(
                "it uses a back-reference, which can take exponential time to match",
            ),
            Hazard::Exponential { part } => write!(
                f,
                "`{part}` can match the same text in more than one way, which can take exponential time"
            ),
            Hazard::Polynomial { degree, max_chars } => write!(
                f,
                "its matching time can grow with the text's length to the power {degree}, so it could be checked on at most {max_chars} characters"
            ),
            Hazard::TooComplex => f.write_str(
                "it is too large to prove that it matches in polynomial time",
            ),
        }
    }
}

/// The degree of a pattern that is not refused: its matching time grows at
/// most with the text's length to this power.
pub(crate) fn assess(node: &Node, source: &str) -> Result<u32, Hazard> {
    if has_backreference(node) {
        return Err(Hazard::Backreference);
    }
    if let Some((start, end)) = counted_empty(node) {
        return Err(Hazard::Exponential {
            part: source.chars().skip(start).take(end - start).collect(),
        });
    }
    let mut degree = judge(node, anchored(node), source)?;
    let mut looks = Vec::new();
    lookarounds(node, &mut looks);
    let once = checked_once(node);
    for body in looks {
        let body_degree = judge(body, true, source)?;
        if !repeats_without_bound(body) {
            continue;
        }
        // Checked once, its time adds to the pattern's; checked wherever
        // the match may stand, it multiplies.
        if once.iter().any(|look| std::ptr::eq(*look, body)) {
            degree = degree.max(body_degree);
        } else {
            degree += body_degree;
        }
    }
    match max_chars(degree) {
        Some(max_chars) if max_chars < MIN_CHARS => Err(Hazard::Polynomial { degree, max_chars }),
        _ => Ok(degree),
    }
}

fn judge(node: &Node, anchored: bool, source: &str) -> Result<u32, Hazard> {
    let automaton = Automaton::build(node, anchored);
    match automaton
        .as_ref()
        .map(|automaton| (analyse(automaton), automaton))
    {
        Ok((Ambiguity::Degree(degree), _)) => Ok(degree),
        Ok((Ambiguity::Exponential(edges), automaton)) => Err(Hazard::Exponential {
            part: repetition_around(automaton, &edges, source),
        }),
        Ok((Ambiguity::Undecided, _)) | Err(_) => {
            shape::assess(node, anchored).map_err(|_| Hazard::TooComplex)
        }
    }
}

/// The outermost repetition whose next round one of `edges` steps into,
/// as the pattern writes it (the whole pattern when there is none).
fn repetition_around(automaton: &Automaton, edges: &[u32], source: &str) -> String {
    let outermost = edges
        .iter()
        .filter_map(|&edge| automaton.rounds[edge as usize])
        .max_by_key(|&(start, end)| (end - start, usize::MAX - start));
    match outermost {
        Some((start, end)) => source.chars().skip(start).take(end - start).collect(),
        None => source.to_owned(),
    }
}

/// Copies a counted repetition of something that can match nothing may
/// have: `(a?){n}` reads `k` characters in `n choose k` ways, a number that
/// grows exponentially with the count though the automaton has no loop.
const MAX_EMPTY_COPIES: u32 = 8;

/// A counted repetition of something that can match nothing, counted past
/// [`MAX_EMPTY_COPIES`]: its span.
fn counted_empty(node: &Node) -> Option<(usize, usize)> {
    match node {
        Node::Repeat {
            body,
            min,
            max,
            span,
        } => {
            let copies = max.unwrap_or(*min);
            if copies > MAX_EMPTY_COPIES && body.nullable() {
                Some(*span)
            } else {
                counted_empty(body)
            }
        }
        Node::Seq(parts) | Node::Alt(parts) => parts.iter().find_map(counted_empty),
        Node::Look(body) => counted_empty(body),
        Node::Char(_) | Node::Assert(_) | Node::Backref => None,
    }
}

fn has_backreference(node: &Node) -> bool {
    match node {
        Node::Backref => true,
        Node::Char(_) | Node::Assert(_) => false,
        Node::Seq(parts) | Node::Alt(parts) => parts.iter().any(has_backreference),
        Node::Repeat { body, .. } | Node::Look(body) => has_backreference(body),
    }
}

fn lookarounds<'a>(node: &'a Node, found: &mut Vec<&'a Node>) {
    match node {
        Node::Look(body) => {
            found.push(body);
            lookarounds(body, found);
        }
        Node::Seq(parts) | Node::Alt(parts) => {
            parts.iter().for_each(|part| lookarounds(part, found));
        }
        Node::Repeat { body, .. } => lookarounds(body, found),
        Node::Char(_) | Node::Assert(_) | Node::Backref => {}
    }
}

/// The lookarounds a match checks once at most: those right after the `^`
/// that begins the pattern (`^(?!…)…`), before anything is read.
fn checked_once(node: &Node) -> Vec<&Node> {
    match node {
        Node::Seq(terms) if matches!(terms.first(), Some(Node::Assert(Anchor::Start))) => terms
            [1..]
            .iter()
            .map_while(|term| match term {
                Node::Look(body) => Some(&**body),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn repeats_without_bound(node: &Node) -> bool {
    match node {
        Node::Repeat { max: None, .. } => true,
        Node::Repeat { body, .. } | Node::Look(body) => repeats_without_bound(body),
        Node::Seq(parts) | Node::Alt(parts) => parts.iter().any(repeats_without_bound),
        Node::Char(_) | Node::Assert(_) | Node::Backref => false,
    }
}

/// The longest text, in characters, a pattern of this degree is matched
/// against; `None` when there is no limit.
pub(crate) fn max_chars(degree: u32) -> Option<usize> {
    (degree > 1).then(|| STEP_BUDGET.powf(1.0 / f64::from(degree)).floor() as usize)
}

#[cfg(test)]
mod tests {
    use super::super::syntax::parse;
    use super::*;

    fn verdict(pattern: &str) -> Result<u32, Hazard> {
        assess(&parse(pattern).unwrap(), pattern)
    }

    fn part(pattern: &str) -> Option<String> {
        match verdict(pattern) {
            Err(Hazard::Exponential { part }) => Some(part),
            _ => None,
        }
    }

    #[test]
    fn exponential_patterns_are_refused_naming_the_repetition() {
        for (pattern, named) in [
            ("^(a+)+$", "(a+)+"),
            ("^(a*)*$", "(a*)*"),
            ("^(a|aa)+$", "(a|aa)+"),
            ("^(a|a?)+$", "(a|a?)+"),
            ("^(\\w+\\s?)+$", "(\\w+\\s?)+"),
            ("^(([a-z])+.)+[A-Z]([a-z])+$", "(([a-z])+.)+"),
            ("^x(?:(a+)+b)?", "(a+)+"),
            ("(a*b*)*c", "(a*b*)*"),
            ("^(?:a|a)*$", "(?:a|a)*"),
            ("^(?=(a+)+$)", "(a+)+"),
        ] {
            assert_eq!(part(pattern).as_deref(), Some(named), "{pattern}");
        }
        assert_eq!(verdict("(a)\\1"), Err(Hazard::Backreference));
        // No loop, but `n choose k` ways to read `k` characters.
        assert_eq!(part("^(?:a?){1500}b$").as_deref(), Some("(?:a?){1500}"));
        assert_eq!(part("^(?:(?:a?){20}b)+$").as_deref(), Some("(?:a?){20}"));
        assert_eq!(verdict("^(?:a?){8}b$"), Ok(1));
        assert_eq!(
            verdict("(.*a){12}"),
            Err(Hazard::Polynomial {
                degree: 12,
                max_chars: 3
            })
        );
    }

    #[test]
    fn unambiguous_patterns_are_linear() {
        for pattern in [
            "^#(?:[0-9a-fA-F]{3}){1,2}$",
            "^(?:[0-9a-f]{4}-?){2}$",
            "^[a-z0-9]+(-[a-z0-9]+)*$",
            "^\\d{4}-\\d{2}-\\d{2}$",
            "^[A-Z][a-z]*$",
            "^(foo|bar)*$",
            "^(a|ab)+$",
            "^(ab|ac)*$",
            // With no condition at its end, the match ends at the first
            // text it covers: nothing after is backtracked over.
            "^(a+)+",
            "^(\\w+\\s?)+",
            // semver.org
            "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$",
            // IPv4, dotted quads
            "^((25[0-5]|(2[0-4]|1\\d|[1-9]|)\\d)\\.?\\b){4}$",
            // RFC 5322-style email
            "^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$",
            // DNS-1123 subdomain
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
            // Go-style durations
            "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$",
            // `^` passes only at the start of the text: later start
            // positions never enter the anchored branch.
            "^\\s+$|\\s{2,}",
            "^(\\d+\\.\\d+\\.\\d+)|(UNVERSIONED)$",
            // A lookahead right after the leading `^` is checked once.
            "^(?!.*\\bnative\\b)[a-zA-Z][a-zA-Z0-9_]*(\\.[a-zA-Z][a-zA-Z0-9_]*)+$",
            // Two characters ahead: wherever a round ends (or an attempt
            // starts), a letter and a word character end the match, so no
            // round is given back past one.
            "([A-Za-z_]\\w+\\\\)*([A-Za-z_]\\w+)",
            // A Windows path: the two ways of a segment part on `.` then a
            // character that ends the match.
            "(\\/.*|[a-zA-Z]:\\\\(?:([^<>:\"\\/\\\\|?*]*[^<>:\"\\/\\\\|?*.]\\\\|..\\\\)*([^<>:\"\\/\\\\|?*]*[^<>:\"\\/\\\\|?*.]\\\\?|..\\\\))?)",
        ] {
            assert_eq!(verdict(pattern), Ok(1), "{pattern}");
        }
    }

    #[test]
    fn patterns_too_large_to_analyse_are_judged_by_their_shape() {
        assert_eq!(verdict("^(?:a{2}){3000}$"), Ok(1));
        // Thousands of words in one alternation: too large for the
        // automaton, and the shape rules see the nested repetition.
        let words: Vec<String> = (0..1_000).map(|i| format!("w{i}")).collect();
        let pattern = format!("^(?:(a+)+(?:{}))$", words.join("|"));
        assert_eq!(verdict(&pattern), Err(Hazard::TooComplex));
        assert_eq!(verdict(&format!("^(?:{})$", words.join("|"))), Ok(1));
    }

    #[test]
    fn large_counts_are_read_as_unbounded() {
        assert_eq!(verdict("^[a-z]{3000}$"), Ok(1));
        assert_eq!(verdict("^(?:[a-z]{1,63}\\.)+[a-z]{2,63}$"), Ok(1));
        assert_eq!(verdict("^.{0,10000}$"), Ok(1));
        assert_eq!(verdict("^[a-z]{0,100}[a-z]{0,100}$"), Ok(2));
        assert_eq!(
            part("^(?:[a-z]{1,100}){1,100}$").as_deref(),
            Some("(?:[a-z]{1,100}){1,100}")
        );
    }

    #[test]
    fn polynomial_patterns_get_their_degree_and_a_length_limit() {
        assert_eq!(verdict("^a*a*$"), Ok(2));
        assert_eq!(verdict("^\\d+\\.?\\d+$"), Ok(2));
        assert_eq!(verdict("^a*a*a*$"), Ok(3));
        // Not anchored: every start position is tried.
        assert_eq!(verdict("a+b"), Ok(2));
        // Two characters ahead end nothing here: `b\\` never starts `a\w`.
        assert_eq!(verdict("(b\\\\)*(a\\w+)"), Ok(2));
        assert_eq!(verdict("\\s+$|^\\s+"), Ok(2));
        // A lookahead checked wherever the match may stand adds its degree.
        assert_eq!(verdict("^a*(?=.*b)c"), Ok(2));
        assert_eq!(verdict("^\\S+@\\S+\\.\\S+$"), Ok(3));
        assert_eq!(max_chars(1), None);
        assert_eq!(max_chars(2), Some(2_236));
        assert!(max_chars(3).is_some_and(|n| (165..175).contains(&n)));
    }
}
