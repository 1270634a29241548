//! Patterns as teams write them: every pattern of the SchemaStore catalog,
//! judged as the `recheck` ReDoS checker judges it (`suites::schemastore`,
//! which the browser runs too, timed with the page's clock).

mod suites;

use std::time::Instant;

/// Natively, patterns run on `regress` in the unoptimised test build: the
/// bound tells slow from frozen; the browser holds attacks to 50 ms.
const NATIVE_BOUND_MS: f64 = 2_000.0;

#[test]
fn the_schemastore_patterns_are_judged_as_recheck_judges_them() {
    let start = Instant::now();
    let report = suites::schemastore::run_schemastore_corpus(
        || start.elapsed().as_secs_f64() * 1_000.0,
        NATIVE_BOUND_MS,
    );
    println!("{report:#?}");
    assert!(report.failures.is_empty(), "{:#?}", report.failures);
    assert!(report.patterns > 1_000, "the corpus is present");
    assert!(report.exponential > 0 && report.polynomial_accepted > 0);
    assert!(
        report.safe > 1_200,
        "every safe pattern accepted: {}",
        report.safe
    );
}
