//! The shape rules a pattern too large for its automaton is judged by:
//! syntactic, and conservative. A repetition is refused when it could match
//! the same text in more than one way by the look of it — alternatives that
//! can begin with the same character, a repetition inside a repetition that
//! can hand characters to what follows, a repetition of something that can
//! match nothing — and given one degree more for each repetition whose end
//! is ambiguous with what follows it. They may refuse a pattern that is in
//! fact safe (`(ab|ac)*`), never the other way round.

use super::syntax::{CharSet, Node};

/// Why the shape rules refuse a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Backreference,
    AmbiguousAlternation,
    NestedRepetition,
    EmptyRepetition,
}

/// The degree of a pattern the shape rules do not refuse.
pub(crate) fn assess(node: &Node, anchored: bool) -> Result<u32, Shape> {
    let mut walk = Walk::default();
    walk.node(node, &CharSet::empty(), false)?;
    let unanchored = u32::from(!anchored && walk.unbounded);
    Ok(1 + walk.ambiguous_ends + unanchored)
}

#[derive(Default)]
struct Walk {
    ambiguous_ends: u32,
    unbounded: bool,
}

fn repeats(max: Option<u32>) -> bool {
    max.is_none_or(|max| max > 1)
}

/// The characters a match of `node` can begin with.
fn first(node: &Node) -> CharSet {
    match node {
        Node::Char(set) => set.clone(),
        Node::Seq(terms) => {
            let mut set = CharSet::empty();
            for term in terms {
                set.add(&first(term));
                if !term.nullable() {
                    break;
                }
            }
            set
        }
        Node::Alt(branches) => union(branches.iter().map(first)),
        Node::Repeat { body, .. } => first(body),
        Node::Assert(_) | Node::Look(_) => CharSet::empty(),
        Node::Backref => CharSet::any(),
    }
}

/// Every character a match of `node` can consume.
fn chars(node: &Node) -> CharSet {
    match node {
        Node::Char(set) => set.clone(),
        Node::Seq(parts) | Node::Alt(parts) => union(parts.iter().map(chars)),
        Node::Repeat { body, .. } => chars(body),
        Node::Assert(_) | Node::Look(_) => CharSet::empty(),
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
    fn node(&mut self, node: &Node, follow: &CharSet, in_loop: bool) -> Result<(), Shape> {
        match node {
            Node::Char(_) | Node::Assert(_) => Ok(()),
            Node::Backref => Err(Shape::Backreference),
            Node::Look(body) => self.node(body, &CharSet::empty(), false),
            Node::Seq(terms) => {
                let mut after = follow.clone();
                for term in terms.iter().rev() {
                    self.node(term, &after, in_loop)?;
                    let mut before = first(term);
                    if term.nullable() {
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
                            let both_empty = branches[i].nullable() && branches[j].nullable();
                            if a.overlaps(b) || both_empty {
                                return Err(Shape::AmbiguousAlternation);
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
            Node::Repeat { body, min, max, .. }
                if Some(*min) == *max && matches!(**body, Node::Char(_)) =>
            {
                Ok(())
            }
            Node::Repeat { body, max, .. } if repeats(*max) => {
                let consumed = chars(body);
                if in_loop && consumed.overlaps(follow) {
                    return Err(Shape::NestedRepetition);
                }
                if max.is_none() {
                    if body.nullable() && !consumed.is_empty() {
                        return Err(Shape::EmptyRepetition);
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
