//! How many ways a backtracking engine can walk a pattern's automaton over
//! the same text, decided on the automaton (Weideman, van der Merwe, Berglund
//! and Watson, *Analyzing Matching Time Behavior of Backtracking Regular
//! Expression Matchers by Using Ambiguity of NFA*, 2016).
//!
//! * **Exponential** (EDA): a state `q` from which two different paths over
//!   the same text both come back to `q`. Pumping that text doubles the
//!   paths each time; a failing suffix makes the engine try them all.
//! * **Polynomial of degree k** (IDA): a chain of k loops `p₁ … pₖ₊₁` in
//!   which, for each link, one text leads from `pᵢ` back to `pᵢ`, from `pᵢ`
//!   to `pᵢ₊₁` and from `pᵢ₊₁` back to `pᵢ₊₁`: where the engine leaves each
//!   loop can be chosen in n ways each, so it may try nᵏ paths.
//!
//! A backtracking engine never backtracks past a state where the match ends
//! with no condition left (no `$`, `\b` or lookaround after it): it stands
//! there once and succeeds, so paths end there and its onward steps start
//! afresh — `^(a+)+` is linear, `^(a+)+$` is not. Nor past a state that can
//! step into such an end on the character it reads next (its *escapes*):
//! no path the attack multiplies steps out of a state on one of them. The
//! same holds two characters ahead: a state that steps on `c` into a state
//! that escapes on `d` is never left on `c` with `d` next — the steps of
//! the product carry the escapes so owed to the next one, and a pumped
//! text's first character must not be owed by its own last step, since it
//! comes next.

use std::cell::Cell;

use super::automaton::Automaton;

/// Steps the analysis of one pattern may take before it gives up.
const MAX_WORK: u64 = 4_000_000;

/// What the analysis found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Ambiguity {
    /// At most this many paths grow as the power of the text's length:
    /// matching takes time of this degree.
    Degree(u32),
    /// Exponentially many paths, which part by the edges listed.
    Exponential(Vec<u32>),
    /// Too large to decide within the work allowed.
    Undecided,
}

struct OverWork;

/// The automaton in the form the analysis walks: its live edges by source,
/// and each state's characters as a bit set over the pattern's alphabet.
struct Graph {
    out: Vec<Vec<(u32, u32)>>,
    /// The live edges' targets by source, and their sources by target.
    next: Vec<Vec<u32>>,
    back: Vec<Vec<u32>>,
    /// Where paths begin: the start, and the fresh states.
    roots: Vec<u32>,
    letters: Vec<u64>,
    /// Each state's escapes: the characters on which it steps, passing no
    /// condition, into a state that ends the match. Standing there with one
    /// of them next, the
    /// engine succeeds before it backtracks past the state, so no path the
    /// attack multiplies steps out of it on one.
    escapes: Vec<u64>,
    /// For each state, the states it steps into, passing no condition,
    /// that have escapes of their own (see [`Graph::owed`]).
    ahead: Vec<Vec<u32>>,
    words: usize,
    work: Cell<u64>,
}

/// Escape sets owed by one step of the product to the next, numbered as
/// they are met; number 0 is the empty set.
struct Owed {
    words: usize,
    sets: Vec<u64>,
    scratch: Vec<u64>,
}

impl Owed {
    fn new(words: usize) -> Owed {
        Owed {
            words,
            sets: vec![0; words],
            scratch: Vec::new(),
        }
    }

    fn get(&self, id: u32) -> &[u64] {
        &self.sets[id as usize * self.words..][..self.words]
    }

    fn id(&mut self, set: &[u64]) -> u32 {
        let count = self.len();
        for id in 0..count {
            if self.get(id as u32) == set {
                return id as u32;
            }
        }
        self.sets.extend_from_slice(set);
        count as u32
    }

    fn len(&self) -> usize {
        self.sets.len() / self.words
    }
}

pub(crate) fn analyse(automaton: &Automaton) -> Ambiguity {
    let graph = Graph::new(automaton);
    let components = graph.components();
    let looping: Vec<&Vec<u32>> = components
        .iter()
        .filter(|component| graph.loops(component))
        .collect();
    graph.verdict(&looping).unwrap_or(Ambiguity::Undecided)
}

impl Graph {
    fn new(automaton: &Automaton) -> Graph {
        let n = automaton.len();
        let ends = &automaton.ends;
        // Where the match ends as soon as the engine stands on it, the
        // engine never backtracks past: an edge into such a state ends the
        // paths it is on, and the state's own ways on start afresh, once,
        // from a state of their own.
        let mut fresh = vec![u32::MAX; n];
        let mut total = n as u32;
        for state in 1..n {
            if ends[state] {
                fresh[state] = total;
                total += 1;
            }
        }
        let mut out = vec![Vec::new(); total as usize];
        let mut live = Vec::new();
        let (mut letters, words) = alphabet(automaton);
        letters.resize(total as usize * words, 0);
        let mut escapes = vec![0u64; total as usize * words];
        for (index, &(from, to)) in automaton.edges.iter().enumerate() {
            let from = match fresh[from as usize] {
                u32::MAX => from,
                own => own,
            };
            if to != 0 && ends[to as usize] && automaton.plain[index] {
                for w in 0..words {
                    escapes[from as usize * words + w] |= letters[to as usize * words + w];
                }
            }
            out[from as usize].push((index as u32, to));
            live.push((from, to));
        }
        let (next, back) = adjacency(total as usize, &live);
        let mut ahead = vec![Vec::new(); total as usize];
        for (from, steps) in out.iter().enumerate() {
            for &(edge, to) in steps {
                let theirs = &escapes[to as usize * words..][..words];
                if automaton.plain[edge as usize] && theirs.iter().any(|&w| w != 0) {
                    ahead[from].push(to);
                }
            }
        }
        Graph {
            out,
            next,
            back,
            letters,
            escapes,
            ahead,
            words,
            work: Cell::new(0),
            roots: std::iter::once(0)
                .chain(fresh.into_iter().filter(|&f| f != u32::MAX))
                .collect(),
        }
    }

    fn verdict(&self, looping: &[&Vec<u32>]) -> Result<Ambiguity, OverWork> {
        for component in looping {
            if let Some(states) = self.exponential(component)? {
                return Ok(Ambiguity::Exponential(states));
            }
        }
        self.degree(looping).map(Ambiguity::Degree)
    }

    fn spend(&self, steps: u64) -> Result<(), OverWork> {
        self.work.set(self.work.get() + steps);
        if self.work.get() > MAX_WORK {
            Err(OverWork)
        } else {
            Ok(())
        }
    }

    /// The ways the paths standing on `from` step together into `to` on
    /// one character (only the piece `only` of the alphabet, if given):
    /// none when no character enters every one of `to` without being an
    /// escape at one of `from` or owed by the step before (`owing`);
    /// otherwise, into `ways`, the escapes each such step owes to the
    /// next, distinct.
    fn share(
        &self,
        from: &[u32],
        to: &[u32],
        owing: u32,
        only: Option<usize>,
        owed: &mut Owed,
        ways: &mut Vec<u32>,
    ) -> Result<(), OverWork> {
        ways.clear();
        let words = self.words;
        let lookahead = from.iter().any(|&s| !self.ahead[s as usize].is_empty());
        let mut owes = std::mem::take(&mut owed.scratch);
        owes.resize(words, 0);
        for w in 0..words {
            let entered = to.iter().fold(u64::MAX, |bits, &s| {
                bits & self.letters[s as usize * words + w]
            });
            let escaping = from.iter().fold(owed.get(owing)[w], |bits, &s| {
                bits | self.escapes[s as usize * words + w]
            });
            let mut open = entered & !escaping;
            if let Some(piece) = only {
                open &= if piece / 64 == w {
                    1 << (piece % 64)
                } else {
                    0
                };
            }
            if open != 0 && !lookahead {
                ways.push(0);
                break;
            }
            while open != 0 {
                let bit = open & open.wrapping_neg();
                open ^= bit;
                // Each piece walks the steps ahead and the sets owed so far.
                self.spend((from.len() + owed.len()) as u64 * words as u64)?;
                owes.iter_mut().for_each(|o| *o = 0);
                for &s in from {
                    for &t in &self.ahead[s as usize] {
                        if self.letters[t as usize * words + w] & bit != 0 {
                            let theirs = &self.escapes[t as usize * words..][..words];
                            owes.iter_mut().zip(theirs).for_each(|(o, e)| *o |= e);
                        }
                    }
                }
                let id = owed.id(&owes);
                if !ways.contains(&id) {
                    ways.push(id);
                }
            }
        }
        owed.scratch = owes;
        Ok(())
    }

    /// Whether a component has a cycle.
    fn loops(&self, component: &[u32]) -> bool {
        component.len() > 1
            || self.out[component[0] as usize]
                .iter()
                .any(|&(_, to)| to == component[0])
    }

    /// Strongly connected components reachable from the start, sinks first
    /// (Tarjan's algorithm, without recursion).
    fn components(&self) -> Vec<Vec<u32>> {
        let n = self.out.len();
        let (mut index, mut low) = (vec![u32::MAX; n], vec![0u32; n]);
        let mut on_stack = vec![false; n];
        let (mut stack, mut components, mut next) = (Vec::new(), Vec::new(), 0u32);
        let mut calls: Vec<(u32, usize)> = Vec::new();
        for &root in &self.roots {
            if index[root as usize] != u32::MAX {
                continue;
            }
            calls.push((root, 0));
            index[root as usize] = next;
            low[root as usize] = next;
            next += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut at)) = calls.last_mut() {
                if let Some(&(_, w)) = self.out[v as usize].get(*at) {
                    *at += 1;
                    let w_index = index[w as usize];
                    if w_index == u32::MAX {
                        index[w as usize] = next;
                        low[w as usize] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w as usize] = true;
                        calls.push((w, 0));
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(w_index);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    low[parent as usize] = low[parent as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    let mut component = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    components.push(component);
                }
            }
        }
        components
    }

    /// Two different paths from one state of `component` back into it over
    /// the same text: the edges along them, or `None`.
    ///
    /// From a state `q`, the paths split by two different edges on a shared
    /// character. If from there both can again stand on one state `r` after
    /// the same text, they can walk back from `r` to `q` together.
    fn exponential(&self, component: &[u32]) -> Result<Option<Vec<u32>>, OverWork> {
        let k = component.len();
        let cells = k * k;
        // The pairs' tables are k² entries: charged before they are made,
        // so a large loop falls to the shape rules, never to a huge table.
        self.spend(cells as u64)?;
        let local = Local::new(component, self.out.len());
        let inner: Vec<Vec<(u32, u32)>> = component
            .iter()
            .map(|&s| {
                self.out[s as usize]
                    .iter()
                    .filter_map(|&(edge, to)| local.of(to).map(|to| (edge, to as u32)))
                    .collect()
            })
            .collect();
        // Each pair of local states, once per set of escapes owed on
        // reaching it: the pair it was reached from and the two edges it
        // was reached by. The walk starts from every state paired with
        // itself, where the paths split.
        let mut trail: Vec<(u32, u32, u32)> = Vec::new();
        let mut queue: Vec<usize> = (0..k).map(|q| q * k + q).collect();
        let (mut owed, mut ways) = (Owed::new(self.words), Vec::new());
        let mut head = 0;
        while let Some(&node) = queue.get(head) {
            head += 1;
            let (owing, a, b) = (node / cells, node % cells / k, node % k);
            for (i, &(e1, t1)) in inner[a].iter().enumerate() {
                // Where the paths split, two different edges.
                let split = if a == b { i + 1 } else { 0 };
                for &(e2, t2) in &inner[b][split..] {
                    self.spend(1)?;
                    let to = [component[t1 as usize], component[t2 as usize]];
                    let from = [component[a], component[b]];
                    self.share(&from, &to, owing as u32, None, &mut owed, &mut ways)?;
                    if ways.is_empty() {
                        continue;
                    }
                    if t1 == t2 {
                        let mut edges = vec![e1, e2];
                        let mut at = node;
                        while at % cells / k != at % k {
                            let (back, e1, e2) = trail[at];
                            edges.extend([e1, e2]);
                            at = back as usize;
                        }
                        return Ok(Some(edges));
                    }
                    if trail.len() < owed.len() * cells {
                        self.spend((owed.len() * cells - trail.len()) as u64)?;
                        trail.resize(owed.len() * cells, (u32::MAX, 0, 0));
                    }
                    for &way in &ways {
                        let next = way as usize * cells + t1 as usize * k + t2 as usize;
                        if trail[next].0 == u32::MAX {
                            trail[next] = (node as u32, e1, e2);
                            queue.push(next);
                        }
                    }
                }
            }
        }
        Ok(None)
    }

    /// One more than the longest chain of loops, each linked to the next as
    /// the module says (`looping` is in the order [`Graph::components`]
    /// gives: sinks first).
    fn degree(&self, looping: &[&Vec<u32>]) -> Result<u32, OverWork> {
        let mut chain = vec![0u32; looping.len()];
        for later in (0..looping.len()).rev() {
            for earlier in (later + 1..looping.len()).rev() {
                if chain[earlier] + 1 > chain[later]
                    && self.linked(looping[earlier], looping[later])?
                {
                    chain[later] = chain[earlier] + 1;
                }
            }
        }
        Ok(1 + chain.into_iter().max().unwrap_or(0))
    }

    /// Whether some `p` in `first` and `q` in `second` have one text that
    /// leads `p` to `p`, `p` to `q` and `q` to `q`.
    fn linked(&self, first: &[u32], second: &[u32]) -> Result<bool, OverWork> {
        let n = self.out.len();
        // Finding the states between walks every edge twice.
        self.spend(2 * self.out.iter().map(|out| out.len() as u64 + 1).sum::<u64>())?;
        let region = Local::new(&self.between(first, second), n);
        let walk = Walk {
            one: Local::new(first, n),
            region,
            two: Local::new(second, n),
        };
        // Counted in 64 bits: on wasm32 the product could wrap a `usize`.
        let cells = walk.size() as u64;
        self.spend(cells)?;
        // Where escapes are owed from one character to the next, the text
        // repeats: its first character must not be owed by its last step,
        // so each first character is walked on its own.
        let owing = walk
            .region
            .states
            .iter()
            .any(|&s| !self.ahead[s as usize].is_empty());
        for (p, &p_state) in first.iter().enumerate() {
            for (q, &q_state) in second.iter().enumerate() {
                let (Some(p_mid), Some(q_mid)) = (walk.region.of(p_state), walk.region.of(q_state))
                else {
                    continue;
                };
                let (from, goal) = (walk.id(p, p_mid, q), walk.id(p, q_mid, q));
                if owing {
                    for piece in 0..self.words * 64 {
                        let (word, bit) = (piece / 64, 1 << (piece % 64));
                        let starts = self.out[p_state as usize].iter().any(|&(_, to)| {
                            self.letters[to as usize * self.words + word] & bit != 0
                        });
                        if starts && walk.reaches(self, from, goal, Some(piece))? {
                            return Ok(true);
                        }
                    }
                } else if walk.reaches(self, from, goal, None)? {
                    return Ok(true);
                }
                self.spend(cells / 64)?;
            }
        }
        Ok(false)
    }

    /// The states on some path from `first` to `second`, both included.
    fn between(&self, first: &[u32], second: &[u32]) -> Vec<u32> {
        let ahead = spread(&self.next, first);
        let behind = spread(&self.back, second);
        (0..self.out.len() as u32)
            .filter(|&s| ahead[s as usize] && behind[s as usize])
            .collect()
    }
}

/// Three paths walked together over one text (see [`Graph::linked`]): one
/// in the first loop, one from it to the second, one in the second.
struct Walk {
    one: Local,
    region: Local,
    two: Local,
}

impl Walk {
    fn size(&self) -> usize {
        self.one.states.len() * self.region.states.len() * self.two.states.len()
    }

    fn id(&self, a: usize, b: usize, c: usize) -> usize {
        (a * self.region.states.len() + b) * self.two.states.len() + c
    }

    /// Whether the paths at `from` reach `goal` together; with `first`,
    /// on a text that begins with that piece of the alphabet and whose last
    /// step owes no escape on it.
    fn reaches(
        &self,
        graph: &Graph,
        from: usize,
        goal: usize,
        first: Option<usize>,
    ) -> Result<bool, OverWork> {
        let (kr, k2, size) = (self.region.states.len(), self.two.states.len(), self.size());
        let mut owed = Owed::new(graph.words);
        let mut ways = Vec::new();
        // Each triple once per set of escapes owed on reaching it.
        // Its table is charged as it is made: one walk per first piece.
        graph.spend(size as u64)?;
        let mut seen = vec![false; size];
        seen[from] = true;
        let mut queue = vec![(from, 0u32)];
        while let Some((at, owing)) = queue.pop() {
            let (a, b, c) = (at / (kr * k2), at / k2 % kr, at % k2);
            let tuple = [
                self.one.states[a],
                self.region.states[b],
                self.two.states[c],
            ];
            let only = if at == from && owing == 0 {
                first
            } else {
                None
            };
            for &(_, ta) in &graph.out[tuple[0] as usize] {
                let Some(la) = self.one.of(ta) else { continue };
                for &(_, tb) in &graph.out[tuple[1] as usize] {
                    let Some(lb) = self.region.of(tb) else {
                        continue;
                    };
                    for &(_, tc) in &graph.out[tuple[2] as usize] {
                        let Some(lc) = self.two.of(tc) else { continue };
                        graph.spend(1)?;
                        let next = self.id(la, lb, lc);
                        if owed.len() == 1 && seen[next] && first.is_none() {
                            continue;
                        }
                        graph.share(&tuple, &[ta, tb, tc], owing, only, &mut owed, &mut ways)?;
                        if next == goal
                            && ways.iter().any(|&way| {
                                first.is_none_or(|piece| {
                                    owed.get(way)[piece / 64] & 1 << (piece % 64) == 0
                                })
                            })
                        {
                            return Ok(true);
                        }
                        if seen.len() < owed.len() * size {
                            graph.spend((owed.len() * size - seen.len()) as u64)?;
                            seen.resize(owed.len() * size, false);
                        }
                        for &way in &ways {
                            if !std::mem::replace(&mut seen[way as usize * size + next], true) {
                                queue.push((next, way));
                            }
                        }
                    }
                }
            }
        }
        Ok(false)
    }
}

/// Targets by source and sources by target.
fn adjacency(n: usize, edges: &[(u32, u32)]) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let (mut next, mut back) = (vec![Vec::new(); n], vec![Vec::new(); n]);
    for &(from, to) in edges {
        next[from as usize].push(to);
        back[to as usize].push(from);
    }
    (next, back)
}

/// The states reachable from `start` along `adjacency`, `start` included.
fn spread(adjacency: &[Vec<u32>], start: &[u32]) -> Vec<bool> {
    let mut reached = vec![false; adjacency.len()];
    let mut todo = start.to_vec();
    for &s in start {
        reached[s as usize] = true;
    }
    while let Some(s) = todo.pop() {
        for &t in &adjacency[s as usize] {
            if !std::mem::replace(&mut reached[t as usize], true) {
                todo.push(t);
            }
        }
    }
    reached
}

/// A subset of the states, numbered from zero.
struct Local {
    states: Vec<u32>,
    index: Vec<u32>,
}

impl Local {
    fn new(states: &[u32], n: usize) -> Local {
        let mut index = vec![u32::MAX; n];
        for (i, &s) in states.iter().enumerate() {
            index[s as usize] = i as u32;
        }
        Local {
            states: states.to_vec(),
            index,
        }
    }

    fn of(&self, state: u32) -> Option<usize> {
        let i = self.index[state as usize];
        (i != u32::MAX).then_some(i as usize)
    }
}

/// Each state's set as bits over the pattern's alphabet: the pieces the
/// boundaries of all its sets cut the code points into.
fn alphabet(automaton: &Automaton) -> (Vec<u64>, usize) {
    // Kept in order as they come (a sort would add one more instantiation
    // of it to the module).
    let mut cuts: Vec<u32> = Vec::new();
    for &(lo, hi) in automaton.sets.iter().flat_map(|set| set.ranges()) {
        for cut in [lo, hi + 1] {
            let at = cuts.partition_point(|&c| c < cut);
            if cuts.get(at) != Some(&cut) {
                cuts.insert(at, cut);
            }
        }
    }
    let words = cuts.len().div_ceil(64).max(1);
    let mut letters = vec![0u64; automaton.len() * words];
    for (state, set) in automaton.sets.iter().enumerate() {
        for &(lo, hi) in set.ranges() {
            let from = cuts.partition_point(|&cut| cut < lo);
            let to = cuts.partition_point(|&cut| cut < hi + 1);
            for piece in from..to {
                letters[state * words + piece / 64] |= 1 << (piece % 64);
            }
        }
    }
    (letters, words)
}
