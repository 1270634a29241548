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
//! Zero-width parts (`^`, `$`, `\b`, lookarounds) consume nothing and are
//! read as always passing: that admits more paths than the engine can take,
//! never fewer, so the analysis stays on the safe side.

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

/// A pattern's automaton. State 0 is the start; every other state is a
/// position, entered by reading one character of its set.
pub(crate) struct Automaton {
    /// What each state is entered on; the start's is everything when the
    /// pattern is not anchored (the engine tries every start position).
    pub(crate) sets: Vec<CharSet>,
    /// `(from, to)`, one per way to step, duplicates kept.
    pub(crate) edges: Vec<(u32, u32)>,
    /// For each edge that steps back into a repetition's next round, that
    /// repetition, as its span in the pattern.
    pub(crate) rounds: Vec<Option<(usize, usize)>>,
    /// For each edge, whether it passes no zero-width condition (`^`, `$`,
    /// `\b`, a lookaround) on its way.
    pub(crate) plain: Vec<bool>,
    /// Whether the match ends at each state as soon as the engine stands
    /// on it: it is final with no `$`, `\b` or lookaround left to pass.
    pub(crate) ends: Vec<bool>,
}

struct Fragment {
    /// Each state a match can begin on, and whether it is entered with no
    /// zero-width condition before it.
    first: Vec<(u32, bool)>,
    /// Each state a match can end on, and whether it ends there with no
    /// zero-width condition after it.
    last: Vec<(u32, bool)>,
    nullable: bool,
    /// Whether it can match nothing without passing a zero-width condition.
    plain_empty: bool,
}

impl Fragment {
    fn empty(plain_empty: bool) -> Fragment {
        Fragment {
            first: Vec::new(),
            last: Vec::new(),
            nullable: true,
            plain_empty,
        }
    }
}

struct Builder {
    automaton: Automaton,
}

impl Automaton {
    /// The automaton of `node`; `anchored` when every match must begin at
    /// the start of the text.
    pub(crate) fn build(node: &Node, anchored: bool) -> Result<Automaton, TooLarge> {
        let start_set = if anchored {
            CharSet::empty()
        } else {
            CharSet::any()
        };
        let mut builder = Builder {
            automaton: Automaton {
                sets: vec![start_set],
                edges: Vec::new(),
                rounds: Vec::new(),
                plain: Vec::new(),
                ends: vec![false],
            },
        };
        let whole = builder.fragment(node)?;
        if !anchored {
            builder.connect(&[(0, true)], &[(0, true)], None)?;
        }
        builder.connect(&[(0, true)], &whole.first, None)?;
        let automaton = &mut builder.automaton;
        for &(state, plain) in &whole.last {
            automaton.ends[state as usize] = plain;
        }
        automaton.ends[0] = whole.nullable && whole.plain_empty;
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

    /// An edge from each of `from` to each of `to`; it passes no
    /// zero-width condition when neither side does.
    fn connect(
        &mut self,
        from: &[(u32, bool)],
        to: &[(u32, bool)],
        round: Option<(usize, usize)>,
    ) -> Result<(), TooLarge> {
        if self.automaton.edges.len() + from.len() * to.len() > MAX_EDGES {
            return Err(TooLarge);
        }
        for &(a, plain_out) in from {
            for &(b, plain_in) in to {
                self.automaton.edges.push((a, b));
                self.automaton.rounds.push(round);
                self.automaton.plain.push(plain_out && plain_in);
            }
        }
        Ok(())
    }

    fn fragment(&mut self, node: &Node) -> Result<Fragment, TooLarge> {
        match node {
            Node::Char(set) => {
                let state = self.state(set)?;
                Ok(Fragment {
                    first: vec![(state, true)],
                    last: vec![(state, true)],
                    nullable: false,
                    plain_empty: false,
                })
            }
            // Zero-width: read as always passing, but a match that ends
            // after one ends only if it passes. A lookaround's body is
            // judged on its own (see the hazard analysis).
            Node::Assert(_) | Node::Look(_) | Node::Backref => Ok(Fragment::empty(false)),
            Node::Seq(terms) => {
                let mut whole = Fragment::empty(true);
                for term in terms {
                    let next = self.fragment(term)?;
                    whole = self.then(whole, next)?;
                }
                Ok(whole)
            }
            Node::Alt(branches) => {
                let mut whole = Fragment {
                    nullable: false,
                    ..Fragment::empty(false)
                };
                for branch in branches {
                    let next = self.fragment(branch)?;
                    whole.first.extend(next.first);
                    whole.last.extend(next.last);
                    whole.nullable |= next.nullable;
                    whole.plain_empty |= next.nullable && next.plain_empty;
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
        self.connect(&a.last, &b.first, None)?;
        let mut first = a.first;
        if a.nullable {
            first.extend(
                b.first
                    .iter()
                    .map(|&(state, plain)| (state, plain && a.plain_empty)),
            );
        }
        let mut last = b.last;
        if b.nullable {
            last.extend(
                a.last
                    .into_iter()
                    .map(|(state, plain)| (state, plain && b.plain_empty)),
            );
        }
        Ok(Fragment {
            first,
            last,
            nullable: a.nullable && b.nullable,
            plain_empty: a.plain_empty && b.plain_empty,
        })
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
        let mut whole = Fragment::empty(true);
        for _ in 0..required {
            let copy = self.fragment(body)?;
            whole = self.then(whole, copy)?;
        }
        match max {
            None => {
                let copy = self.fragment(body)?;
                self.connect(&copy.last, &copy.first, Some(span))?;
                let copy = Fragment {
                    nullable: copy.nullable || min == 0,
                    plain_empty: copy.plain_empty || min == 0,
                    ..copy
                };
                self.then(whole, copy)
            }
            Some(max) => {
                let mut optional = Fragment::empty(true);
                for _ in min..max {
                    let copy = self.fragment(body)?;
                    let nested = self.then(copy, optional)?;
                    optional = Fragment {
                        nullable: true,
                        plain_empty: true,
                        ..nested
                    };
                }
                self.then(whole, optional)
            }
        }
    }
}
