//! Matching a schema's regular expressions (`pattern`, `patternProperties`,
//! `format: "regex"`) through a port the host backs.
//!
//! JSON Schema's patterns are ECMA-262 regular expressions. A page already
//! carries an engine for exactly that dialect, its own `RegExp`, so the core
//! ships none: the host installs a [`PatternEngine`] once, at start — the
//! browser adapter one backed by `RegExp` with the `u` flag. Natively the
//! feature `native-patterns` (on by default) provides one backed by the
//! `regress` crate, an ECMA-262 engine in Rust, for tests and tools. With no
//! engine at all, a schema that uses a pattern is refused, never accepted
//! unchecked.
//!
//! Whatever the engine, the core reads every pattern first and refuses the
//! ones a backtracking engine could freeze on (see [`Hazard`]); a pattern it
//! accepts with a polynomial degree matches text only up to a length.

mod ambiguity;
mod automaton;
mod hazard;
mod shape;
mod syntax;

use std::fmt;
use std::sync::OnceLock;

use thiserror::Error;

pub use hazard::{Hazard, MIN_CHARS};

/// A compiled pattern, as the host's engine keeps it.
pub trait CompiledPattern: Send + Sync {
    /// Whether the pattern matches anywhere in `text` (unanchored, as
    /// JSON Schema's `pattern` is).
    fn is_match(&self, text: &str) -> bool;
}

/// The host's ECMA-262 regular expression engine, with the `u` flag.
pub trait PatternEngine: Send + Sync {
    /// Compiles a pattern, or says why it is not a regular expression.
    fn compile(&self, pattern: &str) -> Result<Box<dyn CompiledPattern>, InvalidPattern>;
}

/// The host engine's reason a pattern is not a regular expression, in its
/// own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidPattern(pub String);

/// Why a pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PatternError {
    /// Not an ECMA-262 regular expression.
    #[error("`{pattern}` is not a valid ECMA-262 regular expression: {reason}")]
    Syntax {
        /// The pattern.
        pattern: String,
        /// The engine's reason.
        reason: String,
    },
    /// A backtracking engine could take exponential time on it.
    #[error("`{pattern}` is refused: {hazard}")]
    Catastrophic {
        /// The pattern.
        pattern: String,
        /// What makes it so.
        hazard: Hazard,
    },
    /// No engine is installed to run it.
    #[error("`{pattern}` cannot be checked: no pattern engine is installed")]
    NoEngine {
        /// The pattern.
        pattern: String,
    },
}

static INSTALLED: OnceLock<Box<dyn PatternEngine>> = OnceLock::new();

/// Installs the host's pattern engine; the first one installed stays.
/// Returns whether this one was installed.
pub fn install_pattern_engine(engine: Box<dyn PatternEngine>) -> bool {
    INSTALLED.set(engine).is_ok()
}

pub(crate) fn engine() -> Option<&'static dyn PatternEngine> {
    if let Some(engine) = INSTALLED.get() {
        return Some(engine.as_ref());
    }
    #[cfg(feature = "native-patterns")]
    {
        Some(&native::Regress)
    }
    #[cfg(not(feature = "native-patterns"))]
    {
        None
    }
}

/// A pattern read, judged safe and compiled by the host's engine.
pub(crate) struct Pattern {
    source: String,
    compiled: Box<dyn CompiledPattern>,
    degree: u32,
    max_chars: Option<usize>,
}

/// What one validation may still spend on matching patterns
/// ([`hazard::STEP_BUDGET`] across all its strings, not per string).
pub(crate) struct Budget {
    left: f64,
}

impl Budget {
    /// The budget of one validation.
    pub(crate) fn per_validation() -> Budget {
        Budget {
            left: hazard::STEP_BUDGET,
        }
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pattern")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// How a text fared against a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Matched {
    Yes,
    No,
    /// Longer than the pattern may safely be matched against.
    TooLong {
        max_chars: usize,
    },
    /// This text fits, but not with what the validation matched before it:
    /// the validation's budget is spent.
    OverBudget,
}

impl Pattern {
    /// The host's compiled form of `pattern` and its structure as read
    /// here: both must accept it.
    fn read(pattern: &str) -> Result<(Box<dyn CompiledPattern>, syntax::Node), PatternError> {
        let engine = engine().ok_or_else(|| PatternError::NoEngine {
            pattern: pattern.to_owned(),
        })?;
        let compiled =
            engine
                .compile(pattern)
                .map_err(|InvalidPattern(reason)| PatternError::Syntax {
                    pattern: pattern.to_owned(),
                    reason,
                })?;
        let node = syntax::parse(pattern).map_err(|unreadable| PatternError::Syntax {
            pattern: pattern.to_owned(),
            reason: format!("not read at character {}", unreadable.at),
        })?;
        Ok((compiled, node))
    }

    /// Compiles a pattern that will be run on values.
    pub(crate) fn compile(pattern: &str) -> Result<Pattern, PatternError> {
        let (compiled, node) = Self::read(pattern)?;
        let degree =
            hazard::assess(&node, pattern).map_err(|hazard| PatternError::Catastrophic {
                pattern: pattern.to_owned(),
                hazard,
            })?;
        Ok(Pattern {
            source: pattern.to_owned(),
            compiled,
            degree,
            max_chars: hazard::max_chars(degree),
        })
    }

    /// Whether `pattern` is a valid regular expression (`format: "regex"`);
    /// it is never run, so it need not be safe to run.
    pub(crate) fn is_valid_syntax(pattern: &str) -> bool {
        Self::read(pattern).is_ok()
    }

    /// The longest text it is matched against; `None` when it is linear.
    pub(crate) fn max_chars(&self) -> Option<usize> {
        self.max_chars
    }

    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// Matches `text`, spending from `budget` what its worst case costs.
    pub(crate) fn matches(&self, text: &str, budget: &mut Budget) -> Matched {
        // Bytes bound characters from above: count only when it may matter.
        let mut chars = text.len();
        if let Some(max_chars) = self.max_chars {
            if chars > max_chars {
                chars = text.chars().count();
                if chars > max_chars {
                    return Matched::TooLong { max_chars };
                }
            }
        }
        let cost = |n: usize| (n as f64).powi(self.degree.max(1) as i32);
        let mut steps = cost(chars);
        if steps > budget.left && chars == text.len() {
            steps = cost(text.chars().count());
        }
        if steps > budget.left {
            return Matched::OverBudget;
        }
        budget.left -= steps;
        if self.compiled.is_match(text) {
            Matched::Yes
        } else {
            Matched::No
        }
    }
}

#[cfg(feature = "native-patterns")]
mod native {
    use super::{CompiledPattern, InvalidPattern, PatternEngine};

    /// `regress`, an ECMA-262 engine in Rust.
    pub(super) struct Regress;

    impl PatternEngine for Regress {
        fn compile(&self, pattern: &str) -> Result<Box<dyn CompiledPattern>, InvalidPattern> {
            regress::Regex::with_flags(pattern, "u")
                .map(|regex| Box::new(regex) as Box<dyn CompiledPattern>)
                .map_err(|error| InvalidPattern(error.to_string()))
        }
    }

    impl CompiledPattern for regress::Regex {
        fn is_match(&self, text: &str) -> bool {
            self.find(text).is_some()
        }
    }
}
