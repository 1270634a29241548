//! A pattern's automaton as a backtracking engine walks it: one state per
//! character the pattern can consume (its Glushkov positions), and one edge
//! per way the engine can step from one to the next.
//!
//! Edges are kept with their multiplicity. `(a+)+` has one position, but a
//! backtracking engine can step from it back to itself in two ways — the
//! inner repetition's next round or the outer one's — and those two ways are
//! what make it exponential; a plain Glushkov automaton would merge them.
//! Counted repetitions are written out copy by copy (`x{2,4}` as
//! `xx(x(x)?)?`), so `{1,2}` is read as the two choices it is.
//!
//! Zero-width parts (`$`, `\b`, lookarounds) consume nothing and are read
//! as always passing: that admits more paths than the engine can take,
//! never fewer, so the analysis stays on the safe side. `^` (no `m` flag)
//! passes only where nothing has been read, so a step through it from a
//! position is no step at all, and only the first attempt, at the start of
//! the text, may begin through it.

use super::syntax::{Anchor, CharSet, Node};

/// Positions a pattern may have before it is judged on its shape alone.
pub(crate) const MAX_STATES: usize = 2_048;

/// Edges, likewise.
const MAX_EDGES: usize = 65_536;

/// Copies a counted repetition is written out with at most; a larger count
/// of something that cannot match nothing is read as unbounded
/// (`.{0,10000}` as `.*`), which admits every path the copies do.
const MAX_COPIES: u32 = 32;

/// The automaton was too large to build.
#[derive(Debug)]
pub(crate) struct TooLarge;

/// A pattern's automaton. State 0 is the start of the text; when the
/// pattern is not anchored, state 1 is every later start position (the
/// engine tries each in turn: it loops on any character). Every other state
/// is a position, entered by reading one character of its set.
pub(crate) struct Automaton {
    /// What each state is entered on.
    pub(crate) sets: Vec<CharSet>,
    /// `(from, to)`, one per way to step, duplicates kept.
    pub(crate) edges: Vec<(u32, u32)>,
    /// For each edge that steps back into a repetition's next round, that
    /// repetition, as its span in the pattern.
    pub(crate) rounds: Vec<Option<(usize, usize)>>,
    /// For each edge, whether it passes no zero-width condition on its way.
    pub(crate) plain: Vec<bool>,
    /// Whether the match ends at each state as soon as the engine stands
    /// on it: it is final with no `$`, `\b` or lookaround left to pass.
    pub(crate) ends: Vec<bool>,
}

/// One way into or out of a fragment: the state, whether the way passes no
/// zero-width condition, and whether it passes `^`.
#[derive(Clone, Copy)]
struct Way {
    state: u32,
    plain: bool,
    start: bool,
}

/// How a fragment matches nothing, when it can: whether some way passes no
/// condition, and whether every way passes `^`.
#[derive(Clone, Copy)]
struct Empty {
    plain: bool,
    start: bool,
}

struct Fragment {
    first: Vec<Way>,
    last: Vec<Way>,
    empty: Option<Empty>,
}

impl Fragment {
    fn empty(plain: bool, start: bool) -> Fragment {
        Fragment {
            first: Vec::new(),
            last: Vec::new(),
            empty: Some(Empty { plain, start }),
        }
    }
}

/// Ways through the empty match `empty` and on by `ways`.
fn after(ways: Vec<Way>, empty: Empty) -> impl Iterator<Item = Way> {
    ways.into_iter().map(move |way| Way {
        plain: way.plain && empty.plain,
        start: way.start || empty.start,
        ..way
    })
}

struct Builder {
    automaton: Automaton,
}

impl Automaton {
    /// The automaton of `node`; `anchored` when every match must begin at
    /// the start of the text.
    pub(crate) fn build(node: &Node, anchored: bool) -> Result<Automaton, TooLarge> {
        let mut builder = Builder {
            automaton: Automaton {
                sets: vec![CharSet::empty()],
                edges: Vec::new(),
                rounds: Vec::new(),
                plain: Vec::new(),
                ends: vec![false],
            },
        };
        let start = |state| Way {
            state,
            plain: true,
            start: false,
        };
        let later = if anchored {
            None
        } else {
            Some(builder.state(&CharSet::any())?)
        };
        let whole = builder.fragment(node)?;
        builder.connect(&[start(0)], &whole.first, None, true)?;
        // A pattern that matches nothing, with no condition, ends the match
        // at the start of the text: no later start is tried.
        let ends_at_once = whole.empty.is_some_and(|empty| empty.plain);
        if let (Some(later), false) = (later, ends_at_once) {
            builder.connect(&[start(0), start(later)], &[start(later)], None, false)?;
            builder.connect(&[start(later)], &whole.first, None, false)?;
        }
        let automaton = &mut builder.automaton;
        for way in &whole.last {
            automaton.ends[way.state as usize] |= way.plain;
        }
        automaton.ends[0] = ends_at_once;
        Ok(builder.automaton)
    }

    pub(crate) fn len(&self) -> usize {
        self.sets.len()
    }
}

/// Whether a match of `node` must begin at the start of the text.
pub(crate) fn anchored(node: &Node) -> bool {
    match node {
        Node::Assert(Anchor::Start) => true,
        Node::Seq(terms) => terms.first().is_some_and(anchored),
        Node::Alt(branches) => branches.iter().all(anchored),
        _ => false,
    }
}

impl Builder {
    fn state(&mut self, set: &CharSet) -> Result<u32, TooLarge> {
        let automaton = &mut self.automaton;
        if automaton.sets.len() >= MAX_STATES {
            return Err(TooLarge);
        }
        automaton.sets.push(set.clone());
        automaton.ends.push(false);
        Ok(automaton.sets.len() as u32 - 1)
    }

    /// An edge from each of `from` to each of `to`; it passes no condition
    /// when neither side does. Only `at_start` (nothing read yet) may an
    /// edge pass `^`.
    fn connect(
        &mut self,
        from: &[Way],
        to: &[Way],
        round: Option<(usize, usize)>,
        at_start: bool,
    ) -> Result<(), TooLarge> {
        if self.automaton.edges.len() + from.len() * to.len() > MAX_EDGES {
            return Err(TooLarge);
        }
        for a in from {
            for b in to.iter().filter(|b| at_start || !(a.start || b.start)) {
                self.automaton.edges.push((a.state, b.state));
                self.automaton.rounds.push(round);
                self.automaton.plain.push(a.plain && b.plain);
            }
        }
        Ok(())
    }

    fn fragment(&mut self, node: &Node) -> Result<Fragment, TooLarge> {
        match node {
            Node::Char(set) => {
                let way = Way {
                    state: self.state(set)?,
                    plain: true,
                    start: false,
                };
                Ok(Fragment {
                    first: vec![way],
                    last: vec![way],
                    empty: None,
                })
            }
            // Zero-width: read as always passing, but a match that ends
            // after one ends only if it passes. A lookaround's body is
            // judged on its own (see the hazard analysis).
            Node::Assert(Anchor::Start) => Ok(Fragment::empty(false, true)),
            Node::Assert(_) | Node::Look(_) | Node::Backref => Ok(Fragment::empty(false, false)),
            Node::Seq(terms) => {
                let mut whole = Fragment::empty(true, false);
                for term in terms {
                    let next = self.fragment(term)?;
                    whole = self.then(whole, next)?;
                }
                Ok(whole)
            }
            Node::Alt(branches) => {
                let mut whole = Fragment {
                    first: Vec::new(),
                    last: Vec::new(),
                    empty: None,
                };
                for branch in branches {
                    let next = self.fragment(branch)?;
                    whole.first.extend(next.first);
                    whole.last.extend(next.last);
                    whole.empty = match (whole.empty, next.empty) {
                        (Some(a), Some(b)) => Some(Empty {
                            plain: a.plain || b.plain,
                            start: a.start && b.start,
                        }),
                        (a, b) => a.or(b),
                    };
                }
                Ok(whole)
            }
            Node::Repeat {
                body,
                min,
                max,
                span,
            } => self.repeat(body, *min, *max, *span),
        }
    }

    /// `a` then `b`.
    fn then(&mut self, a: Fragment, b: Fragment) -> Result<Fragment, TooLarge> {
        self.connect(&a.last, &b.first, None, false)?;
        let mut first = a.first;
        if let Some(empty) = a.empty {
            first.extend(after(b.first, empty));
        }
        let mut last = b.last;
        if let Some(empty) = b.empty {
            last.extend(after(a.last, empty));
        }
        let empty = match (a.empty, b.empty) {
            (Some(a), Some(b)) => Some(Empty {
                plain: a.plain && b.plain,
                start: a.start || b.start,
            }),
            _ => None,
        };
        Ok(Fragment { first, last, empty })
    }

    /// `body{min,max}`, copy by copy: the `min` required copies, then
    /// either one copy looping on itself (unbounded) or the optional
    /// copies nested, each only after the one before.
    fn repeat(
        &mut self,
        body: &Node,
        min: u32,
        max: Option<u32>,
        span: (usize, usize),
    ) -> Result<Fragment, TooLarge> {
        let (min, max) = match max {
            Some(max) if max > MAX_COPIES && !body.nullable() => (min.min(1), None),
            _ => (min, max),
        };
        let copies = max.unwrap_or(min.max(1)) as usize;
        if copies >= MAX_STATES {
            return Err(TooLarge);
        }
        let required = match max {
            None => min.saturating_sub(1),
            Some(_) => min,
        };
        let skipped = Empty {
            plain: true,
            start: false,
        };
        let mut whole = Fragment::empty(true, false);
        for _ in 0..required {
            let copy = self.fragment(body)?;
            whole = self.then(whole, copy)?;
        }
        match max {
            None => {
                let mut copy = self.fragment(body)?;
                self.connect(&copy.last, &copy.first, Some(span), false)?;
                if min == 0 {
                    copy.empty = Some(skipped);
                }
                self.then(whole, copy)
            }
            Some(max) => {
                let mut optional = Fragment::empty(true, false);
                for _ in min..max {
                    let copy = self.fragment(body)?;
                    let mut nested = self.then(copy, optional)?;
                    nested.empty = Some(skipped);
                    optional = nested;
                }
                self.then(whole, optional)
            }
        }
    }
}
