//! Patterns are untrusted input: the ReDoS corpus (`redos-corpus.json`)
//! cannot freeze the validator. Each pattern is refused when its schema is
//! compiled, or it runs on its attack input — at the longest length Baton
//! matches it against, and beyond — and returns in bounded time
//! (`suites::run_redos_corpus`, which the browser runs too).

mod suites;

use std::time::Instant;

#[test]
fn the_redos_corpus_cannot_freeze_the_validator() {
    let start = Instant::now();
    let (refused, bounded) = suites::run_redos_corpus(|| start.elapsed().as_secs_f64() * 1_000.0);
    println!("ReDoS corpus: {refused} refused when compiled, {bounded} run in bounded time");
}
