//! ECMA-262 regular expressions with the `u` flag, read into the shape the
//! hazard analysis needs: what each part can match, not how to match it.
//!
//! The host's engine is the authority on syntax and has already accepted a
//! pattern before it is read here, so this reader only has to be right about
//! structure: alternatives, sequences, groups, quantifiers, classes and
//! escapes. Anything it cannot read is refused, never guessed.

/// The highest Unicode code point.
const MAX_CHAR: u32 = 0x10_FFFF;

/// A set of code points, as sorted, disjoint, non-adjacent ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CharSet {
    ranges: Vec<(u32, u32)>,
}

impl CharSet {
    pub(crate) fn empty() -> Self {
        Self::default()
    }

    pub(crate) fn any() -> Self {
        Self::range(0, MAX_CHAR)
    }

    fn range(lo: u32, hi: u32) -> Self {
        Self {
            ranges: vec![(lo, hi)],
        }
    }

    fn single(c: u32) -> Self {
        Self::range(c, c)
    }

    fn from_ranges(ranges: &[(u32, u32)]) -> Self {
        let mut set = Self::empty();
        for &(lo, hi) in ranges {
            set.add(&Self::range(lo, hi));
        }
        set
    }

    pub(crate) fn add(&mut self, other: &CharSet) {
        // Both lists are sorted: merge them rather than sort.
        let mut all: Vec<(u32, u32)> = Vec::with_capacity(self.ranges.len() + other.ranges.len());
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() || j < other.ranges.len() {
            let take_mine = j >= other.ranges.len()
                || (i < self.ranges.len() && self.ranges[i] <= other.ranges[j]);
            if take_mine {
                all.push(self.ranges[i]);
                i += 1;
            } else {
                all.push(other.ranges[j]);
                j += 1;
            }
        }
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(all.len());
        for (lo, hi) in all {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        self.ranges = merged;
    }

    fn complement(&self) -> Self {
        let mut ranges = Vec::new();
        let mut next = 0u32;
        for &(lo, hi) in &self.ranges {
            if lo > next {
                ranges.push((next, lo - 1));
            }
            next = hi.saturating_add(1);
        }
        if next <= MAX_CHAR && self.ranges.last().is_none_or(|last| last.1 < MAX_CHAR) {
            ranges.push((next, MAX_CHAR));
        }
        Self { ranges }
    }

    pub(crate) fn overlaps(&self, other: &CharSet) -> bool {
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = (self.ranges[i], other.ranges[j]);
            if a.1 < b.0 {
                i += 1;
            } else if b.1 < a.0 {
                j += 1;
            } else {
                return true;
            }
        }
        false
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The inclusive ranges of code points, sorted and disjoint.
    pub(crate) fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }
}

/// The structure of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// One character from a set.
    Char(CharSet),
    /// Parts in order.
    Seq(Vec<Node>),
    /// Alternatives.
    Alt(Vec<Node>),
    /// A quantified part; `max` is `None` when unbounded. `span` is where
    /// it stands in the pattern, in characters, quantifier included.
    Repeat {
        body: Box<Node>,
        min: u32,
        max: Option<u32>,
        span: (usize, usize),
    },
    /// `^`, `$`, `\b`, `\B`: zero-width, consumes nothing.
    Assert(Anchor),
    /// A lookahead or lookbehind: zero-width, with a body of its own.
    Look(Box<Node>),
    /// `\1`, `\k<name>`: matches what a group matched.
    Backref,
}

impl Node {
    /// Whether it can match the empty text (zero-width parts are read as
    /// passing).
    pub(crate) fn nullable(&self) -> bool {
        match self {
            Node::Char(_) => false,
            Node::Seq(terms) => terms.iter().all(Node::nullable),
            Node::Alt(branches) => branches.iter().any(Node::nullable),
            Node::Repeat { body, min, .. } => *min == 0 || body.nullable(),
            Node::Assert(_) | Node::Look(_) | Node::Backref => true,
        }
    }
}

/// Which zero-width assertion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// `^`: the start of the text (no `m` flag).
    Start,
    /// `$`: the end of the text.
    End,
    /// `\b`, `\B`: a word boundary or its absence.
    Boundary,
}

/// Why the reader could not read a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable {
    /// Where, in characters from the start.
    pub(crate) at: usize,
}

struct Reader {
    chars: Vec<char>,
    at: usize,
    groups: usize,
}

/// Reads a pattern.
pub(crate) fn parse(pattern: &str) -> Result<Node, Unreadable> {
    let mut reader = Reader {
        chars: pattern.chars().collect(),
        at: 0,
        groups: 0,
    };
    let node = reader.disjunction()?;
    if reader.at != reader.chars.len() {
        return Err(reader.fail());
    }
    Ok(node)
}

fn digit_set() -> CharSet {
    CharSet::range('0' as u32, '9' as u32)
}

fn word_set() -> CharSet {
    CharSet::from_ranges(&[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
}

fn space_set() -> CharSet {
    CharSet::from_ranges(&[
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ])
}

fn line_terminators() -> CharSet {
    CharSet::from_ranges(&[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
}

impl Reader {
    fn fail(&self) -> Unreadable {
        Unreadable { at: self.at }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn next(&mut self) -> Result<char, Unreadable> {
        let c = self.peek().ok_or_else(|| self.fail())?;
        self.at += 1;
        Ok(c)
    }

    fn disjunction(&mut self) -> Result<Node, Unreadable> {
        let mut alternatives = vec![self.alternative()?];
        while self.eat('|') {
            alternatives.push(self.alternative()?);
        }
        Ok(if alternatives.len() == 1 {
            alternatives.remove(0)
        } else {
            Node::Alt(alternatives)
        })
    }

    fn alternative(&mut self) -> Result<Node, Unreadable> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let start = self.at;
            let atom = self.atom()?;
            terms.push(self.quantified(atom, start)?);
        }
        Ok(Node::Seq(terms))
    }

    fn quantified(&mut self, atom: Node, start: usize) -> Result<Node, Unreadable> {
        let simple = match self.peek() {
            Some('*') => Some((0, None)),
            Some('+') => Some((1, None)),
            Some('?') => Some((0, Some(1))),
            _ => None,
        };
        let (min, max) = match simple {
            Some(bounds) => {
                self.at += 1;
                bounds
            }
            None if self.peek() == Some('{') => match self.braces() {
                Some(bounds) => bounds,
                None => return Ok(atom),
            },
            None => return Ok(atom),
        };
        self.eat('?');
        if matches!(atom, Node::Assert(_)) {
            return Err(self.fail());
        }
        Ok(Node::Repeat {
            body: Box::new(atom),
            min,
            max,
            span: (start, self.at),
        })
    }

    /// `{n}`, `{n,}`, `{n,m}`, consumed; `None` (nothing consumed) otherwise.
    fn braces(&mut self) -> Option<(u32, Option<u32>)> {
        let start = self.at;
        self.at += 1;
        let min = self.number();
        let bounds = match (min, self.peek()) {
            (Some(min), Some('}')) => Some((min, Some(min))),
            (Some(min), Some(',')) => {
                self.at += 1;
                match (self.number(), self.peek()) {
                    (Some(max), Some('}')) => Some((min, Some(max))),
                    (None, Some('}')) => Some((min, None)),
                    _ => None,
                }
            }
            _ => None,
        };
        match bounds {
            Some(bounds) => {
                self.at += 1;
                Some(bounds)
            }
            None => {
                self.at = start;
                None
            }
        }
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        let mut value: u32 = 0;
        while let Some(digit) = self.peek().and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(digit);
            self.at += 1;
        }
        (self.at > start).then_some(value)
    }

    fn atom(&mut self) -> Result<Node, Unreadable> {
        match self.next()? {
            '^' => Ok(Node::Assert(Anchor::Start)),
            '$' => Ok(Node::Assert(Anchor::End)),
            '.' => Ok(Node::Char(line_terminators().complement())),
            '(' => self.group(),
            '[' => self.class().map(Node::Char),
            '\\' => self.atom_escape(),
            '*' | '+' | '?' | ')' => Err(Unreadable { at: self.at - 1 }),
            c => Ok(Node::Char(CharSet::single(c as u32))),
        }
    }

    fn group(&mut self) -> Result<Node, Unreadable> {
        let look = if self.eat('?') {
            match self.next()? {
                ':' => false,
                '=' | '!' => true,
                '<' if matches!(self.peek(), Some('=' | '!')) => {
                    self.at += 1;
                    true
                }
                '<' => {
                    while self.next()? != '>' {}
                    self.groups += 1;
                    false
                }
                _ => return Err(self.fail()),
            }
        } else {
            self.groups += 1;
            false
        };
        let body = self.disjunction()?;
        if !self.eat(')') {
            return Err(self.fail());
        }
        Ok(if look {
            Node::Look(Box::new(body))
        } else {
            body
        })
    }

    fn atom_escape(&mut self) -> Result<Node, Unreadable> {
        match self.peek() {
            Some('b' | 'B') => {
                self.at += 1;
                Ok(Node::Assert(Anchor::Boundary))
            }
            Some('1'..='9') => {
                self.number();
                Ok(Node::Backref)
            }
            Some('k') => {
                self.at += 1;
                if !self.eat('<') {
                    return Err(self.fail());
                }
                while self.next()? != '>' {}
                Ok(Node::Backref)
            }
            _ => self.class_escape(false).map(Node::Char),
        }
    }

    /// An escape after `\`, as a set; `\b` inside a class is a backspace.
    fn class_escape(&mut self, in_class: bool) -> Result<CharSet, Unreadable> {
        let c = self.next()?;
        let set = match c {
            'd' => digit_set(),
            'D' => digit_set().complement(),
            'w' => word_set(),
            'W' => word_set().complement(),
            's' => space_set(),
            'S' => space_set().complement(),
            'p' | 'P' => {
                if !self.eat('{') {
                    return Err(self.fail());
                }
                while self.next()? != '}' {}
                // A property's extent is not tracked: assume it may hold anything.
                CharSet::any()
            }
            'b' if in_class => CharSet::single(0x08),
            '-' if in_class => CharSet::single('-' as u32),
            _ => CharSet::single(self.character_escape(c)?),
        };
        Ok(set)
    }

    fn character_escape(&mut self, c: char) -> Result<u32, Unreadable> {
        Ok(match c {
            't' => 0x09,
            'n' => 0x0A,
            'v' => 0x0B,
            'f' => 0x0C,
            'r' => 0x0D,
            '0' => 0x00,
            'c' => {
                let letter = self.next()?;
                if !letter.is_ascii_alphabetic() {
                    return Err(self.fail());
                }
                letter as u32 % 32
            }
            'x' => self.hex(2)?,
            'u' => {
                if self.eat('{') {
                    let start = self.at;
                    while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                        self.at += 1;
                    }
                    let digits: String = self.chars[start..self.at].iter().collect();
                    if !self.eat('}') {
                        return Err(self.fail());
                    }
                    u32::from_str_radix(&digits, 16).map_err(|_| self.fail())?
                } else {
                    let unit = self.hex(4)?;
                    // A surrogate pair written as two escapes is one character.
                    if (0xD800..0xDC00).contains(&unit)
                        && self.peek() == Some('\\')
                        && self.peek_at(1) == Some('u')
                    {
                        let save = self.at;
                        self.at += 2;
                        match self.hex(4) {
                            Ok(low) if (0xDC00..0xE000).contains(&low) => {
                                0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            }
                            _ => {
                                self.at = save;
                                unit
                            }
                        }
                    } else {
                        unit
                    }
                }
            }
            other if "^$\\.*+?()[]{}|/".contains(other) => other as u32,
            _ => return Err(Unreadable { at: self.at - 1 }),
        })
    }

    fn hex(&mut self, digits: usize) -> Result<u32, Unreadable> {
        let end = self.at + digits;
        let text: String = self
            .chars
            .get(self.at..end)
            .ok_or_else(|| self.fail())?
            .iter()
            .collect();
        let value = u32::from_str_radix(&text, 16).map_err(|_| self.fail())?;
        self.at = end;
        Ok(value)
    }

    fn class(&mut self) -> Result<CharSet, Unreadable> {
        let negated = self.eat('^');
        let mut set = CharSet::empty();
        loop {
            if self.eat(']') {
                break;
            }
            let lo = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.at += 1;
                let hi = self.class_atom()?;
                match (single(&lo), single(&hi)) {
                    (Some(lo), Some(hi)) if lo <= hi => set.add(&CharSet::range(lo, hi)),
                    _ => return Err(self.fail()),
                }
            } else {
                set.add(&lo);
            }
        }
        Ok(if negated { set.complement() } else { set })
    }

    fn class_atom(&mut self) -> Result<CharSet, Unreadable> {
        match self.next()? {
            '\\' => self.class_escape(true),
            c => Ok(CharSet::single(c as u32)),
        }
    }
}

fn single(set: &CharSet) -> Option<u32> {
    match set.ranges.as_slice() {
        [(lo, hi)] if lo == hi => Some(*lo),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_structures_it_needs() {
        for pattern in [
            "^[a-z0-9]+(-[a-z0-9]+)*$",
            "(?:a|b){2,5}?c",
            "(?<year>\\d{4})-\\k<year>",
            "(?<=x)y(?!z)",
            "\\u{1F600}\\uD83D\\uDE00[\\u0041-\\u005A\\-]",
            "\\p{Letter}+\\P{L}",
            "[^\\]]|\\/|\\cJ\\x41\\0",
            "a{,5}",
        ] {
            assert!(parse(pattern).is_ok(), "{pattern}");
        }
        for pattern in ["(a", "a)", "[b-a]", "*a", "\\q", "(?x)"] {
            assert!(parse(pattern).is_err(), "{pattern}");
        }
    }

    #[test]
    fn sets_complement_and_overlap() {
        assert!(digit_set().overlaps(&word_set()));
        assert!(!digit_set().overlaps(&space_set()));
        assert!(!digit_set().complement().overlaps(&digit_set()));
        assert!(CharSet::any().complement().is_empty());
        assert_eq!(CharSet::empty().complement(), CharSet::any());
    }
}
