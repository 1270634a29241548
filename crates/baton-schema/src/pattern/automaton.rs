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
    /// Whether the match may end at each state.
    pub(crate) finals: Vec<bool>,
    /// Whether a state's being final depends on nothing but reaching it
    /// (no `$`, `\b` or lookaround anywhere in the pattern).
    pub(crate) plain_ends: bool,
}

struct Fragment {
    first: Vec<u32>,
    last: Vec<u32>,
    nullable: bool,
}

impl Fragment {
    fn empty() -> Fragment {
        Fragment {
            first: Vec::new(),
            last: Vec::new(),
            nullable: true,
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
                finals: vec![false],
                plain_ends: plain_ends(node),
            },
        };
        let whole = builder.fragment(node)?;
        if !anchored {
            builder.connect(&[0], &[0], None)?;
        }
        builder.connect(&[0], &whole.first, None)?;
        let automaton = &mut builder.automaton;
        for &state in &whole.last {
            automaton.finals[state as usize] = true;
        }
        automaton.finals[0] = whole.nullable;
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

fn plain_ends(node: &Node) -> bool {
    match node {
        Node::Char(_) | Node::Assert(Anchor::Start) => true,
        Node::Assert(_) | Node::Look(_) | Node::Backref => false,
        Node::Seq(parts) | Node::Alt(parts) => parts.iter().all(plain_ends),
        Node::Repeat { body, .. } => plain_ends(body),
    }
}

impl Builder {
    fn state(&mut self, set: &CharSet) -> Result<u32, TooLarge> {
        let automaton = &mut self.automaton;
        if automaton.sets.len() >= MAX_STATES {
            return Err(TooLarge);
        }
        automaton.sets.push(set.clone());
        automaton.finals.push(false);
        Ok(automaton.sets.len() as u32 - 1)
    }

    fn connect(
        &mut self,
        from: &[u32],
        to: &[u32],
        round: Option<(usize, usize)>,
    ) -> Result<(), TooLarge> {
        if self.automaton.edges.len() + from.len() * to.len() > MAX_EDGES {
            return Err(TooLarge);
        }
        for &a in from {
            for &b in to {
                self.automaton.edges.push((a, b));
                self.automaton.rounds.push(round);
            }
        }
        Ok(())
    }

    fn fragment(&mut self, node: &Node) -> Result<Fragment, TooLarge> {
        match node {
            Node::Char(set) => {
                let state = self.state(set)?;
                Ok(Fragment {
                    first: vec![state],
                    last: vec![state],
                    nullable: false,
                })
            }
            // Zero-width: read as always passing. A lookaround's body is
            // judged on its own (see the hazard analysis).
            Node::Assert(_) | Node::Look(_) | Node::Backref => Ok(Fragment::empty()),
            Node::Seq(terms) => {
                let mut whole = Fragment::empty();
                for term in terms {
                    let next = self.fragment(term)?;
                    whole = self.then(whole, next)?;
                }
                Ok(whole)
            }
            Node::Alt(branches) => {
                let mut whole = Fragment {
                    nullable: false,
                    ..Fragment::empty()
                };
                for branch in branches {
                    let next = self.fragment(branch)?;
                    whole.first.extend(next.first);
                    whole.last.extend(next.last);
                    whole.nullable |= next.nullable;
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
            first.extend(&b.first);
        }
        let mut last = b.last;
        if b.nullable {
            last.extend(a.last);
        }
        Ok(Fragment {
            first,
            last,
            nullable: a.nullable && b.nullable,
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
        let mut whole = Fragment::empty();
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
                    ..copy
                };
                self.then(whole, copy)
            }
            Some(max) => {
                let mut optional = Fragment::empty();
                for _ in min..max {
                    let copy = self.fragment(body)?;
                    let nested = self.then(copy, optional)?;
                    optional = Fragment {
                        nullable: true,
                        ..nested
                    };
                }
                self.then(whole, optional)
            }
        }
    }
}
