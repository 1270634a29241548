//! Checking a value against a compiled [`Program`]: every keyword in the
//! order compiled, annotations (which properties and items were evaluated)
//! collected only where an `unevaluated*` keyword needs them, and errors
//! built only when asked for.

use std::cmp::Ordering;

use serde_json::Number;

use super::compile::{Bound, Counted, Keyword, NodeId, Program, Types};
use super::instance::{compare, equal, integer, Instance};
use super::pattern::{Budget, Matched};

/// How deep references and subschemas may nest while checking one value.
const MAX_DEPTH: usize = 500;

/// One failure, before it becomes a public `ValidationIssue`.
pub(super) struct Issue {
    pub(super) instance_path: String,
    pub(super) keyword: &'static str,
    pub(super) message: String,
}

/// Where in the value: built on the stack, rendered only for an error.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// Writes the parent's pointer first, then this token.
    fn write(&self, out: &mut String) {
        match *self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.write(out);
                out.push('/');
                if key.contains(['~', '/']) {
                    out.push_str(&super::uri::escape_token(key));
                } else {
                    out.push_str(key);
                }
            }
            Path::Index(parent, index) => {
                parent.write(out);
                out.push('/');
                out.push_str(&index.to_string());
            }
        }
    }
}

/// Which properties (by position) and items of the value were evaluated.
#[derive(Default)]
struct Marks {
    properties: Vec<bool>,
    items: Vec<bool>,
}

impl Marks {
    fn for_value(value: &Instance<'_>) -> Marks {
        match value {
            Instance::Object(entries) => Marks {
                properties: vec![false; entries.len()],
                items: Vec::new(),
            },
            Instance::Array(items) => Marks {
                properties: Vec::new(),
                items: vec![false; items.len()],
            },
            _ => Marks::default(),
        }
    }

    fn merge(&mut self, other: &Marks) {
        for (mine, theirs) in self.properties.iter_mut().zip(&other.properties) {
            *mine |= theirs;
        }
        for (mine, theirs) in self.items.iter_mut().zip(&other.items) {
            *mine |= theirs;
        }
    }
}

fn mark(marks: &mut Option<&mut Marks>, property: Option<usize>, item: Option<usize>) {
    if let Some(marks) = marks.as_deref_mut() {
        if let Some(slot) = property.and_then(|i| marks.properties.get_mut(i)) {
            *slot = true;
        }
        if let Some(slot) = item.and_then(|i| marks.items.get_mut(i)) {
            *slot = true;
        }
    }
}

struct Eval<'p> {
    program: &'p Program,
    scope: Vec<u32>,
    errors: Option<Vec<Issue>>,
    depth: usize,
    /// What this validation may still spend on patterns, across its strings.
    budget: Budget,
}

impl<'p> Eval<'p> {
    /// An evaluation that collects errors only with `errors`.
    fn new(program: &'p Program, errors: bool) -> Self {
        Eval {
            program,
            scope: Vec::new(),
            errors: errors.then(Vec::new),
            depth: 0,
            budget: Budget::per_validation(),
        }
    }
}

/// Whether `value` satisfies the program.
pub(super) fn is_valid(program: &Program, value: &Instance<'_>) -> bool {
    Eval::new(program, false).node(0, value, &Path::Root, None)
}

/// Every issue `value` has against the program, in one walk: errors are
/// built only where a keyword fails, so a valid value costs what
/// [`is_valid`] does, and the patterns' budget is spent once.
pub(super) fn issues(program: &Program, value: &Instance<'_>) -> Vec<Issue> {
    let mut eval = Eval::new(program, true);
    eval.node(0, value, &Path::Root, None);
    eval.errors.unwrap_or_default()
}

/// Why a string was not matched: the validation's strings are, together,
/// too costly to check against their patterns (never a frozen page).
pub(super) fn over_budget(pattern: &str) -> String {
    format!("checking this text against \"{pattern}\" would take this validation over what it may spend on patterns: the value holds too much text for them together")
}

fn show(value: &Instance<'_>) -> String {
    value.to_string()
}

fn is_integer(n: &Number) -> bool {
    integer(n).is_some() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn is_multiple(n: &Number, of: &Number) -> bool {
    if let (Some(n), Some(of)) = (integer(n), integer(of)) {
        return of != 0 && n % of == 0;
    }
    let (Some(n), Some(of)) = (n.as_f64(), of.as_f64()) else {
        return false;
    };
    let quotient = n / of;
    quotient.is_finite()
        && (quotient - quotient.round()).abs() <= f64::EPSILON * quotient.abs().max(1.0) * 8.0
}

/// Whether the value is of one of `types`.
fn is_of(types: Types, value: &Instance<'_>) -> bool {
    let kind = match value {
        Instance::Null => Types::NULL,
        Instance::Bool(_) => Types::BOOLEAN,
        Instance::Object(_) => Types::OBJECT,
        Instance::Array(_) => Types::ARRAY,
        Instance::String(_) => Types::STRING,
        Instance::Number(n) => {
            return types.has(Types::NUMBER) || (types.has(Types::INTEGER) && is_integer(n))
        }
    };
    types.has(kind)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Eval<'_> {
    fn fail(&mut self, path: &Path<'_>, keyword: &'static str, message: impl FnOnce() -> String) {
        if let Some(errors) = self.errors.as_mut() {
            errors.push(Issue {
                instance_path: path.render(),
                keyword,
                message: message(),
            });
        }
    }

    /// `ok`, reporting `message` when it is not.
    fn check(
        &mut self,
        ok: bool,
        path: &Path<'_>,
        keyword: &'static str,
        message: impl FnOnce() -> String,
    ) -> bool {
        if !ok {
            self.fail(path, keyword, message);
        }
        ok
    }

    /// Runs `check` with error collection off, as combinators judge branches.
    fn quietly<T>(&mut self, check: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.errors.take();
        let result = check(self);
        self.errors = saved;
        result
    }

    fn node(
        &mut self,
        id: NodeId,
        value: &Instance<'_>,
        path: &Path<'_>,
        marks: Option<&mut Marks>,
    ) -> bool {
        let program = self.program;
        let Some(node) = program.nodes.get(id) else {
            return false;
        };
        if node.reject_all {
            self.fail(path, "false", || {
                format!("False schema does not allow {}", show(value))
            });
            return false;
        }
        if node.keywords.is_empty() {
            return true;
        }
        if self.depth >= MAX_DEPTH {
            self.fail(path, "$ref", || {
                "the schema nests too deeply on this value to check it".to_owned()
            });
            return false;
        }
        self.depth += 1;
        let entered = self.scope.last() != Some(&node.resource);
        if entered {
            self.scope.push(node.resource);
        }
        let mut mine = (node.unevaluated || marks.is_some()).then(|| Marks::for_value(value));
        let mut valid = true;
        for keyword in &node.keywords {
            if !self.keyword(keyword, value, path, mine.as_mut()) {
                valid = false;
                if self.errors.is_none() {
                    break;
                }
            }
        }
        if let (true, Some(outer), Some(mine)) = (valid, marks, mine.as_ref()) {
            outer.merge(mine);
        }
        if entered {
            self.scope.pop();
        }
        self.depth -= 1;
        valid
    }

    fn keyword(
        &mut self,
        keyword: &Keyword,
        value: &Instance<'_>,
        path: &Path<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        match (keyword, value) {
            (Keyword::Type(types), _) => self.check(is_of(*types, value), path, "type", || {
                match types.names().as_slice() {
                    [one] => format!("{} is not of type \"{one}\"", show(value)),
                    many => format!(
                        "{} is not of types {}",
                        show(value),
                        many.iter()
                            .map(|n| format!("\"{n}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            }),
            (Keyword::Enum(options), _) => self.check(
                options.iter().any(|option| equal(option, value)),
                path,
                "enum",
                || {
                    format!(
                        "{} is not one of {}",
                        show(value),
                        show(&Instance::Array(options.clone()))
                    )
                },
            ),
            (Keyword::Const(expected), _) => {
                self.check(equal(expected, value), path, "const", || {
                    format!("{} was expected", show(expected))
                })
            }
            (Keyword::Ref(target), _) => self.node(*target, value, path, marks),
            (Keyword::DynamicRef { target, anchor }, _) => {
                let program = self.program;
                let dynamic = anchor.as_ref().and_then(|anchor| {
                    self.scope
                        .iter()
                        .find_map(|resource| program.dynamic.get(*resource, anchor))
                });
                self.node(dynamic.unwrap_or(*target), value, path, marks)
            }
            (Keyword::AllOf(all), _) => {
                let mut ok = true;
                for &node in all {
                    ok &= self.node(node, value, path, marks.as_deref_mut());
                    if !ok && self.errors.is_none() {
                        break;
                    }
                }
                ok
            }
            (Keyword::AnyOf(any), _) => {
                let collect = marks.is_some();
                let ok = self.quietly(|eval| {
                    let mut ok = false;
                    for &node in any {
                        ok |= eval.node(node, value, path, marks.as_deref_mut());
                        if ok && !collect {
                            break;
                        }
                    }
                    ok
                });
                if !ok {
                    self.fail(path, "anyOf", || {
                        format!("{} is not valid under any of the schemas listed in the 'anyOf' keyword", show(value))
                    });
                }
                ok
            }
            (Keyword::OneOf(one), _) => {
                let passed = self.quietly(|eval| {
                    one.iter()
                        .filter(|&&node| eval.node(node, value, path, marks.as_deref_mut()))
                        .count()
                });
                match passed {
                    1 => true,
                    0 => {
                        self.fail(path, "oneOf", || {
                            format!("{} is not valid under any of the schemas listed in the 'oneOf' keyword", show(value))
                        });
                        false
                    }
                    _ => {
                        self.fail(path, "oneOf", || {
                            format!("{} is valid under more than one of the schemas listed in the 'oneOf' keyword", show(value))
                        });
                        false
                    }
                }
            }
            (Keyword::Not(node), _) => {
                let passed = self.quietly(|eval| eval.node(*node, value, path, None));
                if passed {
                    self.fail(path, "not", || {
                        format!(
                            "{} should not be valid under the schema in 'not'",
                            show(value)
                        )
                    });
                }
                !passed
            }
            (
                Keyword::If {
                    condition,
                    then,
                    otherwise,
                },
                _,
            ) => {
                let holds =
                    self.quietly(|eval| eval.node(*condition, value, path, marks.as_deref_mut()));
                match if holds { then } else { otherwise } {
                    Some(branch) => self.node(*branch, value, path, marks),
                    None => true,
                }
            }
            (Keyword::MultipleOf(of), Instance::Number(n)) => {
                self.check(is_multiple(n, of), path, "multipleOf", || {
                    format!("{n} is not a multiple of {of}")
                })
            }
            (Keyword::Bound(bound, limit), Instance::Number(n)) => {
                self.bound(*bound, limit, n, path)
            }
            (Keyword::Count(counted, limit), _) => self.count(*counted, *limit, value, path),
            (Keyword::Pattern(pattern), Instance::String(s)) => {
                match pattern.matches(s, &mut self.budget) {
                    Matched::Yes => true,
                    Matched::No => {
                        self.fail(path, "pattern", || {
                            format!("{} does not match \"{}\"", show(value), pattern.source())
                        });
                        false
                    }
                    Matched::TooLong { max_chars } => {
                        self.fail(path, "pattern", || {
                        format!("the text is too long to check against \"{}\" safely (at most {max_chars} characters)", pattern.source())
                    });
                        false
                    }
                    Matched::OverBudget => {
                        self.fail(path, "pattern", || over_budget(pattern.source()));
                        false
                    }
                }
            }
            (Keyword::Format(format), Instance::String(s)) => {
                self.check(format.accepts(s), path, "format", || {
                    format!("{} is not a \"{}\"", show(value), format.name())
                })
            }
            (_, Instance::Array(items)) => self.array_keyword(keyword, value, items, path, marks),
            (_, Instance::Object(_)) => self.object_keyword(keyword, value, path, marks),
            _ => true,
        }
    }

    /// `minLength` … `maxProperties`: characters, items or properties
    /// against `limit`; any other kind of value passes.
    fn count(
        &mut self,
        counted: Counted,
        limit: u64,
        value: &Instance<'_>,
        path: &Path<'_>,
    ) -> bool {
        let (count, one, many, small, large) = match (counted, value) {
            (Counted::MinLength | Counted::MaxLength, Instance::String(s)) => {
                // Bytes bound characters from above: when the byte length
                // already decides, the characters are not counted.
                // A character is one to four bytes: `bytes` bound the count
                // from above, a quarter of them from below.
                let bytes = s.len() as u64;
                let decided = if counted.is_min() {
                    bytes < limit || bytes.div_ceil(4) >= limit
                } else {
                    bytes <= limit
                };
                let count = if decided {
                    bytes
                } else {
                    s.chars().count() as u64
                };
                (
                    count,
                    "character",
                    "characters",
                    "is shorter than",
                    "is longer than",
                )
            }
            (Counted::MinItems | Counted::MaxItems, Instance::Array(items)) => (
                items.len() as u64,
                "item",
                "items",
                "has less than",
                "has more than",
            ),
            (Counted::MinProperties | Counted::MaxProperties, Instance::Object(map)) => (
                map.len() as u64,
                "property",
                "properties",
                "has less than",
                "has more than",
            ),
            _ => return true,
        };
        let (ok, what) = if counted.is_min() {
            (count >= limit, small)
        } else {
            (count <= limit, large)
        };
        self.check(ok, path, counted.keyword(), || {
            format!("{} {what} {}", show(value), plural(limit, one, many))
        })
    }

    fn bound(&mut self, bound: Bound, limit: &Number, n: &Number, path: &Path<'_>) -> bool {
        let order = compare(n, limit);
        let (ok, keyword, what) = match bound {
            Bound::Minimum => (
                order != Some(Ordering::Less),
                "minimum",
                "is less than the minimum of",
            ),
            Bound::Maximum => (
                order != Some(Ordering::Greater),
                "maximum",
                "is greater than the maximum of",
            ),
            Bound::ExclusiveMinimum => (
                order == Some(Ordering::Greater),
                "exclusiveMinimum",
                "is less than or equal to the minimum of",
            ),
            Bound::ExclusiveMaximum => (
                order == Some(Ordering::Less),
                "exclusiveMaximum",
                "is greater than or equal to the maximum of",
            ),
        };
        if !ok {
            self.fail(path, keyword, || format!("{n} {what} {limit}"));
        }
        ok
    }
}

mod containers;
